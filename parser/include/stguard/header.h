// stguard/header.h: validate a safetensors header from bytes.
//
// A safetensors file is: 8 bytes little-endian u64 N, N bytes of JSON header
// (UTF-8, possibly space-padded), then the data buffer. `parse_header` checks
// everything about a file that can be known from its first 8 + N bytes and
// its total size: it never needs the data bytes.
//
//   std::span<const std::uint8_t> bytes = ...;   // the whole file, or a prefix
//   stguard::ParseOptions options;                  // strict profile by default
//   stguard::Result<stguard::Header> r =
//       stguard::parse_header(bytes, file_size, options);
//   if (!r) { /* r.error().reason, r.error().offset */ }
//   for (const stguard::TensorInfo& t : r->tensors) { ... }
//
// Guarantees, whatever the input: no exception escapes, no abort, no read
// outside `bytes`, memory bounded by a small constant times N (never by sizes
// the header declares), time linear in N plus, at worst, n log n in the
// tensor count n (the sort of data spans that are not in offset order; the
// search for repeated names hashes with a key, linear in expectation).
//
// Each call here allocates its scratch memory (about 40 bytes per tensor)
// and frees it before it returns: no state is kept between calls. To check
// many headers, keep a stguard::Parser (stguard/parser.h), which gives the
// same answers and keeps that memory for its next call.
#ifndef STGUARD_HEADER_H_
#define STGUARD_HEADER_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stguard/dtype.h"
#include "stguard/error.h"
#include "stguard/result.h"
#include "stguard/simd.h"

namespace stguard {

// Which reading of the format to apply.
enum class Profile : std::uint8_t {
  // The hardened reading (default): everything the format text forbids is
  // rejected, and so is every serde_json quirk the upstream reader tolerates
  // (leading whitespace, non-space padding, duplicate keys, unknown fields,
  // array-form entries, {"F32": null} dtypes, null metadata, U+0000 in names).
  kStrict = 0,
  // Accepts exactly what the upstream Rust reader (safetensors crate) accepts:
  // a drop-in, fuzzable model of it. Invariant: strict accepts => reference
  // accepts with identical tensors.
  kReference = 1,
};

std::string_view profile_name(Profile profile) noexcept;  // "strict" | "reference"
std::optional<Profile> profile_from_name(std::string_view name) noexcept;

// Resource caps. Each profile has its own defaults, and a caller overrides
// any of them field by field:
//
//   | cap              | strict      | reference   | exceeded gives     |
//   |------------------|-------------|-------------|--------------------|
//   | max_header_bytes | 100,000,000 | 100,000,000 | kHeaderTooLarge    |
//   | max_tensors      | 10,000,000  | none        | kLimitExceeded     |
//   | max_rank         | 1,024       | none        | kLimitExceeded     |
//   | max_name_bytes   | 65,536      | none        | kLimitExceeded     |
//
// The reference profile imposes only upstream's own cap, the 100,000,000-byte
// header: upstream reads any name length, rank and tensor count, and so does
// the reference profile. Strict keeps caps of its own, far above every real
// checkpoint known (the largest seen has 1.29M tensors in a 126 MB header,
// which the upstream size cap rejects; raise max_header_bytes to read it).
// "none" is kNoLimit. Without caps, memory stays bounded by a small constant
// times N and time stays as the guarantees above say; the one
// implementation limit left is kMaxTensorsSupported, which only a header of
// tens of gigabytes could reach.
inline constexpr std::uint64_t kNoLimit = UINT64_MAX;
inline constexpr std::uint64_t kMaxTensorsSupported = 0xFFFFFFFEu;  // 2^32 - 2

// The caps in force for a parse: every field set (kNoLimit for none). A
// default-constructed one equals kReferenceLimits.
struct ResolvedLimits {
  // Largest accepted N. The upstream constant: 100,000,000 is accepted,
  // 100,000,001 rejected. Checked before the file length.
  std::uint64_t max_header_bytes = 100'000'000;
  // Most tensors in one header (counted after the reference profile merges
  // repeated names). Above kMaxTensorsSupported, kMaxTensorsSupported holds.
  std::uint64_t max_tensors = kNoLimit;
  // Most dimensions in one shape.
  std::uint64_t max_rank = kNoLimit;
  // Longest tensor name or metadata key, in bytes after unescaping.
  std::uint64_t max_name_bytes = kNoLimit;

  friend bool operator==(const ResolvedLimits&, const ResolvedLimits&) = default;
};

// The defaults of each profile (the table above).
inline constexpr ResolvedLimits kStrictLimits{100'000'000, 10'000'000, 1024, 65'536};
inline constexpr ResolvedLimits kReferenceLimits{100'000'000, kNoLimit, kNoLimit, kNoLimit};
static_assert(kStrictLimits.max_header_bytes == kReferenceLimits.max_header_bytes,
              "parse_header_length and the writer rely on one header default");

// Overrides of the profile's defaults: a field left empty takes the default
// of the profile being parsed; a field set replaces it (kNoLimit for none).
//
//   stguard::ParseOptions options;
//   options.profile = stguard::Profile::kReference;  // no name, rank or count caps
//   options.limits.max_rank = 64;                    // but at most 64 dimensions
struct Limits {
  std::optional<std::uint64_t> max_header_bytes;
  std::optional<std::uint64_t> max_tensors;
  std::optional<std::uint64_t> max_rank;
  std::optional<std::uint64_t> max_name_bytes;
};

// kStrictLimits or kReferenceLimits.
ResolvedLimits default_limits(Profile profile) noexcept;
// The profile's defaults with `overrides` applied: what a parse with
// ParseOptions{profile, overrides} enforces.
ResolvedLimits resolve_limits(Profile profile, const Limits& overrides) noexcept;

struct ParseOptions {
  Profile profile = Profile::kStrict;
  Limits limits;  // overrides of the profile's defaults; empty: the defaults
  // The vector instructions of the hot loops (stguard/simd.h). Every path
  // gives the same results; kAuto picks the fastest the CPU has.
  SimdPath simd = SimdPath::kAuto;
};

// A tensor's dimensions: a view (std::span) that compares by value, with a
// std::vector or another Shape, and converts from a std::vector.
//
//   if (t.shape == std::vector<std::uint64_t>{4096, 4096}) ...
//   std::vector<std::uint64_t> owned = t.shape.to_vector();
class Shape : public std::span<const std::uint64_t> {
 public:
  using std::span<const std::uint64_t>::span;
  Shape() noexcept = default;
  Shape(std::span<const std::uint64_t> dims) noexcept  // NOLINT(google-explicit-constructor)
      : std::span<const std::uint64_t>(dims) {}
  // A view of a temporary vector would dangle at the end of the statement
  // (`t.shape = dims_of(x);`): refused at compile time. Keep the vector alive
  // in a variable and view that.
  Shape(std::vector<std::uint64_t>&&) = delete;
  Shape(const std::vector<std::uint64_t>&&) = delete;

  std::vector<std::uint64_t> to_vector() const { return {begin(), end()}; }
  friend bool operator==(Shape a, Shape b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  // Compares with any vector, a temporary included (nothing is kept).
  friend bool operator==(Shape a, const std::vector<std::uint64_t>& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
};

// One tensor as the header declares it. Offsets are relative to the start of
// the data buffer (absolute file offset = Header::data_offset() + begin).
//
// `name` and `shape` are views. In a TensorInfo of a parsed Header they point
// into that Header's `storage` (one buffer for every name and one for every
// dimension, not one allocation per tensor), so they stay valid as long as
// the Header or any copy of it lives: a Header is cheap to copy or move, and
// both keep the views valid. A TensorInfo copied out of its Header must not
// outlive every Header sharing its storage; copy the name (std::string) and
// shape (std::vector) out when they must. A TensorInfo built by hand views
// whatever the builder points it at.
struct TensorInfo {
  std::string_view name;            // unescaped UTF-8
  Shape shape;                      // empty = scalar (one element)
  std::uint64_t begin = 0;          // data_offsets[0]
  std::uint64_t end = 0;            // data_offsets[1], exclusive
  std::uint64_t header_offset = 0;  // absolute file offset of the name's '"'
  Dtype dtype = Dtype::kU8;

  std::uint64_t byte_size() const noexcept { return end - begin; }
  // Equal names and dimensions (by value, wherever they are stored) and
  // equal offsets and dtype.
  friend bool operator==(const TensorInfo& a, const TensorInfo& b) noexcept;
};

// The bytes a parsed Header's TensorInfo views point into, shared by copies of
// the Header. Read it through the views only.
struct HeaderStorage {
  std::vector<std::uint64_t> dims;  // the shapes (one copy per repeated shape)
  std::string names;                // every name, back to back
};

// A validated header.
struct Header {
  // Tensors in header (document) order. In the reference profile a name given
  // twice keeps the position of its first occurrence and the content of its
  // last, as upstream's "last one wins".
  std::vector<TensorInfo> tensors;
  // "__metadata__" pairs in document order; nullopt when absent (or, in the
  // reference profile, null). Reference: a repeated key keeps its first
  // position and its last value.
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;
  std::uint64_t header_len = 0;  // N, padding included
  std::uint64_t file_size = 0;
  // What `tensors`' names and shapes view (see TensorInfo); null for a Header
  // built by hand. Never changed after parse_header, so copies share it.
  std::shared_ptr<const HeaderStorage> storage;

  std::uint64_t data_offset() const noexcept { return 8 + header_len; }
  std::uint64_t data_len() const noexcept { return file_size - data_offset(); }

  // Linear search by name; nullptr when absent. For many lookups build a map.
  const TensorInfo* find(std::string_view name) const noexcept;
};

// Reads the length prefix and checks it against the limits and the file size
// (kHeaderTooSmall, kHeaderTooLarge, kHeaderLengthExceedsFile). Only
// limits.max_header_bytes applies, whose default is the same in both
// profiles. `first_bytes`
// needs at least 8 bytes unless the file is shorter. Returns N. Useful to know
// how many bytes to read before calling parse_header on a stream.
Result<std::uint64_t> parse_header_length(std::span<const std::uint8_t> first_bytes,
                                          std::uint64_t file_size, const Limits& limits = {});

// Validates a whole file's header. `bytes` holds the start of the file: at
// least min(file_size, 8 + N) bytes (more is fine; the data part is never
// read). `file_size` is the size of the whole file. If `bytes` is shorter
// than the header it claims while file_size says the bytes exist, the result
// is kIoError (a caller bug or a file that shrank), never an out-of-bounds
// read.
Result<Header> parse_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                            const ParseOptions& options = {});

// What validation establishes about a file without building the tensor list.
struct HeaderSummary {
  std::uint64_t tensor_count = 0;
  std::uint64_t metadata_count = 0;  // pairs in "__metadata__"
  bool has_metadata = false;
  std::uint64_t header_len = 0;  // N
  std::uint64_t file_size = 0;

  std::uint64_t data_offset() const noexcept { return 8 + header_len; }
  std::uint64_t data_len() const noexcept { return file_size - data_offset(); }
};

// The same checks as parse_header, with the same verdict, reason and offset,
// but without materialising names and shapes: no allocation per tensor, the
// fastest way to answer "is this file valid?".
Result<HeaderSummary> validate_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                                      const ParseOptions& options = {});

// Convenience: `bytes` is the entire file.
inline Result<Header> parse(std::span<const std::uint8_t> bytes, const ParseOptions& options = {}) {
  return parse_header(bytes, bytes.size(), options);
}

}  // namespace stguard

#endif  // STGUARD_HEADER_H_
