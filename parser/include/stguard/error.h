// stguard/error.h: the one error model of stguard.
//
// Every fault the library reports is an `Error`: a stable reason code, the
// absolute byte offset in the file where the fault was detected, and a
// human-readable message. Tests, the corpus manifest and the CLI compare the
// reason and the offset; the message is for people and may change.
//
//   stguard::Result<stguard::Header> r = stguard::parse(bytes);
//   if (!r) {
//     std::cerr << stguard::reason_name(r.error().reason) << " at byte "
//               << r.error().offset << ": " << r.error().message << "\n";
//   }
#ifndef STGUARD_ERROR_H_
#define STGUARD_ERROR_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stguard {

// Why a file was rejected. The numeric values are part of the ABI and never
// change; new codes are only appended. `reason_name` gives the stable
// SCREAMING_CASE name used by the CLI's JSON and the corpus manifest.
//
// Where `offset` points, per reason:
//   header-length faults (kHeaderTooSmall .. kHeaderLengthExceedsFile): 0, the
//     length prefix;
//   header text faults (kHeaderNotUtf8 .. kMetadataInvalid, kLimitExceeded):
//     the header byte where the fault was found (8 + index in the header);
//     faults found after parsing a tensor (sizes, begin > end) point at the
//     tensor's name in the header;
//   layout faults: into the data buffer. kOffsetGap: the first byte of the
//     hole; kOffsetOverlap: the first byte claimed twice; kOffsetOutOfBounds:
//     the file size (where the missing bytes would start); kTrailingData: the
//     first byte after the last tensor;
//   kIoError: where the bytes at hand end or a read stopped; otherwise 0 (the
//     file could not be opened, mapped or allocated, or is not a regular file).
enum class Reason : std::uint8_t {
  kHeaderTooSmall = 1,           // file shorter than 8 bytes
  kHeaderTooLarge = 2,           // N above Limits::max_header_bytes
  kHeaderLengthExceedsFile = 3,  // 8 + N beyond the end of the file
  kHeaderNotUtf8 = 4,            // header bytes are not strict UTF-8
  kHeaderBadStart = 5,           // strict: first header byte is not '{'
  kHeaderBadPadding = 6,         // strict: a byte after the closing '}' is not 0x20
  kHeaderNotJson = 7,            // JSON syntax error (incl. nesting limit)
  kDuplicateKey = 8,             // a key repeated where the profile forbids it
  kNameInvalid = 9,              // strict: name or metadata key with U+0000
  kTensorInvalid = 10,           // entry not an object, field missing/unknown
  kDtypeInvalid = 11,            // dtype is not one of the 22 names
  kShapeInvalid = 12,            // shape is not an array of u64 integers
  kOffsetsInvalid = 13,          // data_offsets not two u64s, or begin > end
  kSizeOverflow = 14,            // element or bit count overflows u64
  kSubbyteMisaligned = 15,       // elements * bits not a multiple of 8
  kSizeMismatch = 16,            // end - begin differs from dtype x shape
  kOffsetOutOfBounds = 17,       // a tensor ends beyond the data buffer
  kOffsetGap = 18,               // a hole before or between tensors
  kOffsetOverlap = 19,           // tensors overlap or alias
  kTrailingData = 20,            // bytes after the last tensor
  kMetadataInvalid = 21,         // __metadata__ not a string->string object
  kLimitExceeded = 22,           // a configured Limits value is exceeded
  kIoError = 23,                 // the file could not be opened or read (not
                                 // a verdict about the format)
};

// Every reason, in numeric order. Useful for exhaustive tests and tables.
std::span<const Reason> all_reasons() noexcept;

// The stable name, e.g. "OFFSET_GAP". Never empty for a valid enumerator.
std::string_view reason_name(Reason reason) noexcept;

// The inverse of reason_name; nullopt for an unknown name.
std::optional<Reason> reason_from_name(std::string_view name) noexcept;

// A fault: what (reason), where (absolute file byte), and a message that names
// the tensor or key involved where there is one.
struct Error {
  Reason reason;
  std::uint64_t offset;
  std::string message;

  // "OFFSET_GAP at byte 123: <message>"
  std::string to_string() const;
};

}  // namespace stguard

#endif  // STGUARD_ERROR_H_
