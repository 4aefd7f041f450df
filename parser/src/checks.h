// The places where the plain path (layers.h) decides that a file breaks a
// rule of the format, each with an id, and the switch that a test build
// uses to leave one out.
//
// A check that no corpus case needs is a check the corpus cannot defend:
// take it away and every case still gets its grade, so a reader lacking it
// would pass the corpus. tests/parser/check_switch_test.cc proves each one
// needed: built once more with STGUARD_CHECK_SWITCHES (the target
// stguard_parser_check_switches; never the library that ships), it runs
// the whole corpus through the plain path in both profiles with each check
// left out in turn, always or only under one condition (the conditional
// mutants: a rank-0 tensor, a rank of 8 or more, no elements, a sub-byte
// dtype, an empty data buffer, the last tensor in key order, a header of
// no tensors), and requires
// some case to change its verdict, reason or offset.
//
// At each check:
//
//   if (STGUARD_LET_THROUGH(kUnknownDtype, {})) {
//     out = Dtype::kU8;  // as a reader without the check would
//     return true;
//   }
//   return lex_.fail(Reason::kDtypeInvalid, ...);
//
// In every other build STGUARD_LET_THROUGH is a constant false, its
// arguments never evaluated, and the branch is gone: the shipped parser has
// the checks, no switch.
//
// Left out of the switches: the guards that keep the parser inside its input
// (the file shorter than 8 bytes, N past the end of the file) and the JSON
// grammar's structure (a missing ':', an entry that is not an object, the
// elements of data_offsets), which no reader can skip and go on; the grammar
// walk of the corpus (group `grammar`) breaks each in one place.
#ifndef STGUARD_SRC_CHECKS_H_
#define STGUARD_SRC_CHECKS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "stguard/dtype.h"

namespace stguard::detail {

enum class CheckId : std::uint8_t {
  kHeaderTooLarge,          // N above max_header_bytes
  kHeaderNotUtf8,           // invalid UTF-8 in the header
  kLeadingWhitespace,       // strict: the first header byte is not '{'
  kPaddingNotSpace,         // strict: a byte after the object is not a space
  kSecondValue,             // a value after the top-level object
  kRepeatedTensorName,      // strict: a tensor name given twice
  kRepeatedMetadata,        // "__metadata__" given twice
  kRepeatedMetadataKey,     // strict: a key repeated inside __metadata__
  kRepeatedField,           // a field given twice in a tensor entry
  kNulInName,               // strict: U+0000 in a tensor name or metadata key
  kNulInMetadataValue,      // strict: U+0000 in a metadata value
  kNameTooLong,             // a name above max_name_bytes
  kTooManyTensors,          // more tensors than max_tensors
  kRankTooHigh,             // a shape of more than max_rank dimensions
  kUnknownField,            // strict: a field other than the three
  kMissingField,            // an entry without dtype, shape or data_offsets
  kUnknownDtype,            // a dtype name not among the 22
  kMetadataNotObject,       // __metadata__ not an object (nor null in reference)
  kMetadataValueNotString,  // a metadata value that is not a string
  kBeginAfterEnd,           // data_offsets [b, e] with b > e
  kSizeOverflow,            // elements x bits beyond 64 bits
  kSubbyteMisaligned,       // a bit count that is not whole bytes
  kSizeMismatch,            // e - b other than the size dtype x shape needs
  kOutOfBounds,             // a tensor ending past the data buffer
  kGap,                     // data bytes no tensor covers, before a tensor
  kOverlap,                 // a tensor starting inside the one before
  kTrailingData,            // data bytes after the last tensor
  kCount,
};

// "kUnknownDtype" -> "unknown_dtype", for the test's report.
std::string_view check_name(CheckId id) noexcept;

// When a switched-off check is left out: always, or only for a tensor (or
// header) of one kind.
enum class CheckCondition : std::uint8_t {
  kAlways,
  kRank0,            // the tensor is a scalar
  kRank8OrMore,      // the tensor has 8 or more dimensions
  kZeroElements,     // some dimension is 0
  kSubByteDtype,     // F4, F6_E2M3, F6_E3M2
  kEmptyDataBuffer,  // the file ends where the header does
  kLastInKeyOrder,   // the tensor is the last in the header's order
  kNoTensors,        // the header has no tensors (only metadata, or `{}`)
  kCount,
};

std::string_view condition_name(CheckCondition when) noexcept;

// What a check knows of where it is: the tensor it judges (when one), its
// place in the header's order and how many there are, and the data
// buffer's length (when known).
struct TensorFacts {
  std::uint64_t rank = 0;
  bool zero_elements = false;
  Dtype dtype = Dtype::kU8;
  std::uint64_t index = 0;  // in document order
  std::uint64_t count = 0;  // tensors in the header (0: not known yet)
};
struct CheckContext {
  std::optional<TensorFacts> tensor;
  std::optional<std::uint64_t> data_len;
  std::optional<std::uint64_t> tensor_count;  // for the checks after the scan
};

#ifdef STGUARD_CHECK_SWITCHES
// The check left out, and when; nullopt: none (every check in force).
struct CheckSwitch {
  CheckId id;
  CheckCondition when = CheckCondition::kAlways;
};
void leave_out(std::optional<CheckSwitch> which) noexcept;
bool let_through(CheckId id, const CheckContext& context) noexcept;
// Whether the check `id` is left out where `context` holds.
#define STGUARD_LET_THROUGH(id, ...) \
  ::stguard::detail::let_through(::stguard::detail::CheckId::id, __VA_ARGS__)
#else
// Never: the shipped parser has every check (the arguments are not evaluated).
#define STGUARD_LET_THROUGH(id, ...) false
#endif

}  // namespace stguard::detail

#endif  // STGUARD_SRC_CHECKS_H_
