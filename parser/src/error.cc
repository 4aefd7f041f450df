#include "stguard/error.h"

#include <array>

#include "message.h"

namespace stguard {
namespace {

struct ReasonEntry {
  Reason reason;
  std::string_view name;
};

// One row per enumerator, in numeric order. reason_name's switch (no default)
// makes the compiler flag an enumerator missing there; the reason test checks
// this table against it.
constexpr std::array<ReasonEntry, 23> kReasons = {{
    {Reason::kHeaderTooSmall, "HEADER_TOO_SMALL"},
    {Reason::kHeaderTooLarge, "HEADER_TOO_LARGE"},
    {Reason::kHeaderLengthExceedsFile, "HEADER_LENGTH_EXCEEDS_FILE"},
    {Reason::kHeaderNotUtf8, "HEADER_NOT_UTF8"},
    {Reason::kHeaderBadStart, "HEADER_BAD_START"},
    {Reason::kHeaderBadPadding, "HEADER_BAD_PADDING"},
    {Reason::kHeaderNotJson, "HEADER_NOT_JSON"},
    {Reason::kDuplicateKey, "DUPLICATE_KEY"},
    {Reason::kNameInvalid, "NAME_INVALID"},
    {Reason::kTensorInvalid, "TENSOR_INVALID"},
    {Reason::kDtypeInvalid, "DTYPE_INVALID"},
    {Reason::kShapeInvalid, "SHAPE_INVALID"},
    {Reason::kOffsetsInvalid, "OFFSETS_INVALID"},
    {Reason::kSizeOverflow, "SIZE_OVERFLOW"},
    {Reason::kSubbyteMisaligned, "SUBBYTE_MISALIGNED"},
    {Reason::kSizeMismatch, "SIZE_MISMATCH"},
    {Reason::kOffsetOutOfBounds, "OFFSET_OUT_OF_BOUNDS"},
    {Reason::kOffsetGap, "OFFSET_GAP"},
    {Reason::kOffsetOverlap, "OFFSET_OVERLAP"},
    {Reason::kTrailingData, "TRAILING_DATA"},
    {Reason::kMetadataInvalid, "METADATA_INVALID"},
    {Reason::kLimitExceeded, "LIMIT_EXCEEDED"},
    {Reason::kIoError, "IO_ERROR"},
}};

constexpr std::array<Reason, kReasons.size()> make_reason_list() {
  std::array<Reason, kReasons.size()> out{};
  for (std::size_t i = 0; i < kReasons.size(); ++i) out[i] = kReasons[i].reason;
  return out;
}
constexpr std::array<Reason, kReasons.size()> kReasonList = make_reason_list();

}  // namespace

std::span<const Reason> all_reasons() noexcept { return kReasonList; }

std::string_view reason_name(Reason reason) noexcept {
  switch (reason) {
    case Reason::kHeaderTooSmall:
    case Reason::kHeaderTooLarge:
    case Reason::kHeaderLengthExceedsFile:
    case Reason::kHeaderNotUtf8:
    case Reason::kHeaderBadStart:
    case Reason::kHeaderBadPadding:
    case Reason::kHeaderNotJson:
    case Reason::kDuplicateKey:
    case Reason::kNameInvalid:
    case Reason::kTensorInvalid:
    case Reason::kDtypeInvalid:
    case Reason::kShapeInvalid:
    case Reason::kOffsetsInvalid:
    case Reason::kSizeOverflow:
    case Reason::kSubbyteMisaligned:
    case Reason::kSizeMismatch:
    case Reason::kOffsetOutOfBounds:
    case Reason::kOffsetGap:
    case Reason::kOffsetOverlap:
    case Reason::kTrailingData:
    case Reason::kMetadataInvalid:
    case Reason::kLimitExceeded:
    case Reason::kIoError:
      // Values are dense from 1, so the table is indexed directly.
      return kReasons[static_cast<std::size_t>(reason) - 1].name;
  }
  return "UNKNOWN_REASON";
}

std::optional<Reason> reason_from_name(std::string_view name) noexcept {
  for (const ReasonEntry& entry : kReasons) {
    if (entry.name == name) return entry.reason;
  }
  return std::nullopt;
}

std::string Error::to_string() const {
  std::string out(reason_name(reason));
  out += " at byte ";
  out += std::to_string(offset);
  if (!message.empty()) {
    out += ": ";
    out += message;
  }
  return out;
}

}  // namespace stguard

namespace stguard::detail {

namespace {

constexpr std::size_t kMaxShown = 80;

// How many bytes of `name` a quotation shows: at most kMaxShown, cut on a
// character boundary so the message stays valid UTF-8.
std::size_t shown_bytes(std::string_view name) noexcept {
  std::size_t shown = name.size() > kMaxShown ? kMaxShown : name.size();
  while (shown < name.size() && shown > 0 &&
         (static_cast<unsigned char>(name[shown]) & 0xC0) == 0x80) {
    --shown;
  }
  return shown;
}

// Bytes one name byte takes in a quotation.
std::size_t escaped_size(unsigned char c) noexcept {
  if (c == '"' || c == '\\' || c == '\n') return 2;
  if (c < 0x20 || c == 0x7F) return 4;
  return 1;
}

}  // namespace

std::size_t quoted_size(std::string_view name) noexcept {
  const std::size_t shown = shown_bytes(name);
  std::size_t size = 2 + (shown < name.size() ? 3 : 0);
  for (std::size_t i = 0; i < shown; ++i) size += escaped_size(static_cast<unsigned char>(name[i]));
  return size;
}

// Writes what quoted_size() counts, byte class by byte class (escaped_size
// decides both), so message() can size its buffer from quoted_size().
char* write_quoted(char* out, std::string_view name) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t shown = shown_bytes(name);
  *out++ = '"';
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    switch (escaped_size(c)) {
      case 1:
        *out++ = static_cast<char>(c);  // UTF-8 passes through (the header was validated)
        break;
      case 2:
        *out++ = '\\';
        *out++ = c == '\n' ? 'n' : static_cast<char>(c);
        break;
      default:
        *out++ = '\\';
        *out++ = 'x';
        *out++ = kHex[c >> 4];
        *out++ = kHex[c & 0xF];
        break;
    }
  }
  *out++ = '"';
  if (shown < name.size()) {
    std::char_traits<char>::copy(out, "...", 3);
    out += 3;
  }
  return out;
}

std::string quoted(std::string_view name) { return message(Quoted{name}); }

}  // namespace stguard::detail
