#include "stguard/header.h"

#include <memory>
#include <optional>
#include <string>

#include "checks.h"
#include "header_scanner.h"
#include "header_window.h"
#include "huge_pages.h"
#include "json_syntax.h"
#include "kernels/kernels.h"
#include "layers.h"
#include "layout.h"
#include "little_endian.h"
#include "message.h"
#include "stguard/parser.h"

namespace stguard {
namespace {

// Every check after the length prefix's (header length `n`, from
// parse_header_length), into the compact scanned form. Faults of the prefix
// are a third of fuzzed inputs, so they are settled before the scanned form,
// with its borrowed tables, is set up.
std::optional<Error> scan_and_check(std::span<const std::uint8_t> bytes, std::uint64_t n,
                                    std::uint64_t file_size, const ParseOptions& options,
                                    detail::ScannedHeader& out, detail::Scratch& scratch) {
  if (bytes.size() - 8 < n) {
    return Error{Reason::kIoError, bytes.size(),
                 detail::message("only ", std::uint64_t{bytes.size()},
                                 " bytes are available, the header needs ", 8 + n)};
  }
  const std::uint8_t* header_begin = bytes.data() + 8;
  const auto header_size = static_cast<std::size_t>(n);

  // Invalid UTF-8 anywhere outranks every other fault of the header text.
  // A small header is checked first, in one pass: that settles the third of
  // fuzzed inputs that are random bytes without setting up a scan. In a
  // larger one the scan does the work: it reads every byte outside a string
  // as ASCII grammar and notes whether a string held a non-ASCII byte, so a
  // header it reads whole without one is ASCII, valid UTF-8. After a fault or
  // a non-ASCII byte the full check runs, and its verdict wins.
  const detail::Kernels& kernels = detail::kernels_for(options.simd);
  auto utf8_fault = [&]() -> std::optional<Error> {
    const std::size_t bad = kernels.find_invalid_utf8(header_begin, header_size);
    if (bad == header_size || STGUARD_LET_THROUGH(kHeaderNotUtf8, {})) return std::nullopt;
    return Error{Reason::kHeaderNotUtf8, 8 + static_cast<std::uint64_t>(bad),
                 "header is not valid UTF-8 (invalid sequence starting here)"};
  };
  const bool checked_first =
      header_size < detail::kUtf8CheckFirstBelow || !detail::layers().utf8_after_scan;
  if (checked_first) {
    if (auto fault = utf8_fault()) return fault;
  }
  detail::HeaderScanner scanner(header_begin, header_begin + header_size, 8, options, scratch);
  const bool scanned = scanner.scan(out);
  if (!checked_first && (!scanned || scanner.saw_non_ascii())) {
    if (auto fault = utf8_fault()) return fault;
  }
  if (!scanned) {
    Error fault = scanner.take_error();
    // A syntax error in the header's value outranks every other fault but
    // strict's check of the first byte (docs/reasons.md, "Order of checks").
    // The scanner stops at its first fault of any kind, so after any other
    // fault the rest of the value is read again for syntax alone, from the
    // top-level member the scanner was in (the scan read what comes before
    // it, well-formed). This costs time on rejected headers only, but they
    // are nearly all that a fuzzer feeds, so it is skipped where the answer
    // is known: a value read whole has no syntax error left, and one the
    // scanner stopped at is the first. A syntax fault the pass finds at the
    // scanner's byte keeps the scanner's message, which knows where in the
    // format it was.
    const detail::Layers& layers = detail::layers();
    if (fault.reason == Reason::kHeaderBadStart) return fault;
    if (layers.syntax_shortcuts &&
        (scanner.value_read_whole() || scanner.stopped_at_syntax_error())) {
      return fault;
    }
    std::optional<Error> syntax = detail::find_json_syntax_error(
        header_begin, header_begin + header_size, 8, kernels,
        layers.syntax_resume ? scanner.member_in_progress() : nullptr);
    if (syntax && (fault.reason != Reason::kHeaderNotJson || fault.offset != syntax->offset)) {
      return std::move(*syntax);
    }
    return fault;
  }
  return detail::check_sizes_and_layout(out, n, file_size, scratch);
}

}  // namespace

std::string_view profile_name(Profile profile) noexcept {
  switch (profile) {
    case Profile::kStrict:
      return "strict";
    case Profile::kReference:
      return "reference";
  }
  return "unknown";
}

std::optional<Profile> profile_from_name(std::string_view name) noexcept {
  if (name == "strict") return Profile::kStrict;
  if (name == "reference") return Profile::kReference;
  return std::nullopt;
}

ResolvedLimits default_limits(Profile profile) noexcept {
  switch (profile) {
    case Profile::kStrict:
      return kStrictLimits;
    case Profile::kReference:
      return kReferenceLimits;
  }
  return kStrictLimits;
}

ResolvedLimits resolve_limits(Profile profile, const Limits& overrides) noexcept {
  ResolvedLimits limits = default_limits(profile);
  limits.max_header_bytes = overrides.max_header_bytes.value_or(limits.max_header_bytes);
  limits.max_tensors = overrides.max_tensors.value_or(limits.max_tensors);
  limits.max_rank = overrides.max_rank.value_or(limits.max_rank);
  limits.max_name_bytes = overrides.max_name_bytes.value_or(limits.max_name_bytes);
  return limits;
}

bool operator==(const TensorInfo& a, const TensorInfo& b) noexcept {
  return a.name == b.name && a.shape == b.shape && a.begin == b.begin && a.end == b.end &&
         a.header_offset == b.header_offset && a.dtype == b.dtype;
}

const TensorInfo* Header::find(std::string_view name) const noexcept {
  for (const TensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Result<std::uint64_t> parse_header_length(std::span<const std::uint8_t> first_bytes,
                                          std::uint64_t file_size, const Limits& limits) {
  if (file_size < 8) {
    return Error{Reason::kHeaderTooSmall, 0,
                 detail::message("file is ", file_size,
                                 " bytes, shorter than the 8-byte header length prefix")};
  }
  if (first_bytes.size() < 8) {
    return Error{Reason::kIoError, first_bytes.size(),
                 detail::message("only ", std::uint64_t{first_bytes.size()}, " of the file's ",
                                 file_size, " bytes are available")};
  }
  const std::uint64_t n = detail::load_le64(first_bytes.data());
  const std::uint64_t max_header_bytes =
      limits.max_header_bytes.value_or(kStrictLimits.max_header_bytes);
  // Upstream checks the cap before the file length, so a huge N on a short
  // file is HEADER_TOO_LARGE.
  if (n > max_header_bytes && !STGUARD_LET_THROUGH(kHeaderTooLarge, {})) {
    return Error{
        Reason::kHeaderTooLarge, 0,
        detail::message("header length ", n, " exceeds max_header_bytes ", max_header_bytes)};
  }
  if (n > file_size - 8) {
    return Error{Reason::kHeaderLengthExceedsFile, 0,
                 detail::message("header length ", n, " + 8 exceeds the file size ", file_size)};
  }
  return n;
}

namespace {

// What validate_header returns for a header scanned and checked without fault.
HeaderSummary summary_of(const detail::ScannedHeader& scanned, std::uint64_t n,
                         std::uint64_t file_size) {
  HeaderSummary summary;
  summary.tensor_count = scanned.tensors.size();
  summary.has_metadata = scanned.metadata.has_value();
  summary.metadata_count = scanned.metadata ? scanned.metadata->size() : 0;
  summary.header_len = n;
  summary.file_size = file_size;
  return summary;
}

// What parse_header returns for a header scanned (with details) and checked
// without fault. Takes the scan's names, dimensions and metadata.
Header header_of(detail::ScannedHeader& scanned, std::uint64_t n, std::uint64_t file_size) {
  Header header;
  header.header_len = n;
  header.file_size = file_size;
  header.metadata = std::move(scanned.metadata);
  // The scan put every name and every dimension into one buffer each, which
  // the tensors view: two allocations per header instead of two per tensor.
  auto storage = std::make_shared<HeaderStorage>();
  storage->names = std::move(scanned.name_arena);
  storage->dims = std::move(scanned.dims);
  header.tensors.reserve(scanned.tensors.size());
  // Fresh memory, as the scan's large buffers are (huge_pages.h).
  detail::advise_huge_pages(header.tensors.data(), header.tensors.capacity() * sizeof(TensorInfo));
  for (std::size_t i = 0; i < scanned.tensors.size(); ++i) {
    const detail::TensorRecord& r = scanned.tensors[i];
    const detail::TensorDetail& d = scanned.details[i];
    header.tensors.push_back(TensorInfo{
        .name = std::string_view(storage->names.data() + d.name_pos,
                                 static_cast<std::size_t>(d.name_len)),
        .shape = Shape(storage->dims.data() + d.shape_pos, static_cast<std::size_t>(d.rank)),
        .begin = r.begin,
        .end = r.end,
        .header_offset = r.header_offset,
        .dtype = r.dtype,
    });
  }
  header.storage = std::move(storage);
  return header;
}

}  // namespace

Parser::Parser() noexcept = default;
Parser::~Parser() = default;
Parser::Parser(Parser&&) noexcept = default;
Parser& Parser::operator=(Parser&&) noexcept = default;

detail::Scratch& Parser::scratch() {
  if (scratch_ == nullptr) scratch_ = std::make_unique<detail::Scratch>();
  return *scratch_;
}

std::size_t Parser::scratch_bytes() const noexcept {
  return scratch_ == nullptr ? 0 : scratch_->bytes();
}

void Parser::release() { scratch_.reset(); }

Result<HeaderSummary> Parser::validate_header(std::span<const std::uint8_t> bytes,
                                              std::uint64_t file_size,
                                              const ParseOptions& options) {
  Result<std::uint64_t> n = parse_header_length(bytes, file_size, options.limits);
  if (!n) return std::move(n).error();
  detail::ScannedHeader scanned(scratch());
  if (auto fault = scan_and_check(bytes, *n, file_size, options, scanned, scratch())) {
    return std::move(*fault);
  }
  return summary_of(scanned, *n, file_size);
}

Result<Header> Parser::parse_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                                    const ParseOptions& options) {
  Result<std::uint64_t> n = parse_header_length(bytes, file_size, options.limits);
  if (!n) return std::move(n).error();
  detail::ScannedHeader scanned(scratch());
  scanned.keep_details = true;
  if (auto fault = scan_and_check(bytes, *n, file_size, options, scanned, scratch())) {
    return std::move(*fault);
  }
  return header_of(scanned, *n, file_size);
}

// The one-shot calls: a fresh Parser each, freed after.
Result<HeaderSummary> validate_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                                      const ParseOptions& options) {
  return Parser().validate_header(bytes, file_size, options);
}

Result<Header> parse_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                            const ParseOptions& options) {
  return Parser().parse_header(bytes, file_size, options);
}

namespace detail {
namespace {

// The scan and the checks after it, in a window (header_window.h): true
// when they accept the header. A fault of the checks after the scan
// declines too: its message may name a tensor whose name the window let go.
bool accepted_in_window(HeaderWindow& window, std::uint64_t file_size, const ParseOptions& options,
                        ScannedHeader& out, Scratch& scratch) {
  HeaderScanner scanner(window, options, scratch);
  return scanner.scan(out) &&
         !check_sizes_and_layout(out, window.header_size(), file_size, scratch);
}

}  // namespace

std::optional<HeaderSummary> validate_header_in_window(std::uint64_t file_size,
                                                       const ParseOptions& options,
                                                       HeaderWindow& window, Scratch& scratch) {
  ScannedHeader scanned(scratch);
  if (!accepted_in_window(window, file_size, options, scanned, scratch)) return std::nullopt;
  return summary_of(scanned, window.header_size(), file_size);
}

std::optional<Header> parse_header_in_window(std::uint64_t file_size, const ParseOptions& options,
                                             HeaderWindow& window, Scratch& scratch) {
  ScannedHeader scanned(scratch);
  scanned.keep_details = true;
  if (!accepted_in_window(window, file_size, options, scanned, scratch)) return std::nullopt;
  return header_of(scanned, window.header_size(), file_size);
}

std::size_t Scratch::bytes() const noexcept {
  auto held = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return held(tensors) + held(details) + held(dims) + held(name_hashes) + held(tensor_names) +
         held(metadata_keys) + held(repeat_table) + held(tiling_table) + held(radix_counts) +
         packed_words_size * sizeof(std::uint64_t);
}

}  // namespace detail

}  // namespace stguard
