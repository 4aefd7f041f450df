// Invariants shared by the byte-level harnesses (fuzz_parse, fuzz_structured):
// what must hold for any input, accepted or rejected, in both profiles.
// A broken invariant prints what broke and aborts, which every engine reports
// as a crash with the input saved.
#ifndef STGUARD_FUZZ_FUZZ_INVARIANTS_H_
#define STGUARD_FUZZ_FUZZ_INVARIANTS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "stguard/stguard.h"

namespace stguard_fuzz {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "stguard fuzz invariant broken: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

inline std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Bytes of a tensor from its dtype and shape, or nullopt when the count
// overflows u64. A zero dimension makes the count zero whatever the others.
inline std::optional<std::uint64_t> expected_bytes(const stguard::TensorInfo& t) {
  std::uint64_t elements = 1;
  bool overflow = false;
  for (std::uint64_t d : t.shape) {
    if (d == 0) return 0;
    if (elements > std::numeric_limits<std::uint64_t>::max() / d) overflow = true;
    elements *= d;  // unsigned: wraps harmlessly when overflow is already set
  }
  if (overflow) return std::nullopt;
  const std::uint64_t bits = stguard::dtype_bits(t.dtype);
  if (elements > std::numeric_limits<std::uint64_t>::max() / bits) return std::nullopt;
  if (elements * bits % 8 != 0) return std::nullopt;
  return elements * bits / 8;
}

// An accepted header describes exactly the input it came from.
inline void check_accepted(const stguard::Header& h, const std::uint8_t* data, std::size_t size) {
  check(h.file_size == size, "accepted: file_size is not the input size");
  check(h.header_len <= size && 8 <= size - h.header_len, "accepted: header beyond the input");
  const std::uint64_t data_len = h.data_len();
  std::vector<const stguard::TensorInfo*> sorted;
  sorted.reserve(h.tensors.size());
  for (const stguard::TensorInfo& t : h.tensors) {
    check(!stguard::dtype_name(t.dtype).empty(), "accepted: tensor with an invalid dtype");
    check(t.begin <= t.end, "accepted: begin > end");
    check(t.end <= data_len, "accepted: tensor ends beyond the data buffer");
    check(t.header_offset >= 8 && t.header_offset < h.data_offset(),
          "accepted: header_offset outside the header");
    check(data[t.header_offset] == '"', "accepted: header_offset does not point at a quote");
    const std::optional<std::uint64_t> bytes = expected_bytes(t);
    check(bytes.has_value(), "accepted: dtype x shape overflows or is not whole bytes");
    check(*bytes == t.byte_size(), "accepted: byte size differs from dtype x shape");
    sorted.push_back(&t);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const stguard::TensorInfo* a, const stguard::TensorInfo* b) {
              return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
            });
  std::uint64_t prev_end = 0;
  for (const stguard::TensorInfo* t : sorted) {
    check(t->begin == prev_end, "accepted: tensors leave a gap or overlap");
    prev_end = t->end;
  }
  check(prev_end == data_len, "accepted: tensors do not cover the data buffer");
}

inline void check_error(const stguard::Error& e, std::size_t size) {
  check(!stguard::reason_name(e.reason).empty(), "error: unknown reason");
  check(e.reason != stguard::Reason::kIoError, "error: kIoError from a complete in-memory input");
  // With the whole file in memory every documented offset is at most the file
  // size (kOffsetOutOfBounds and an unexpected end of the header point at it).
  check(e.offset <= size, "error: offset beyond the input");
  check(!e.message.empty(), "error: empty message");
}

inline bool same_error(const stguard::Error& a, const stguard::Error& b) {
  return a.reason == b.reason && a.offset == b.offset;
}

inline bool same_header(const stguard::Header& a, const stguard::Header& b) {
  return a.tensors == b.tensors && a.metadata == b.metadata && a.header_len == b.header_len &&
         a.file_size == b.file_size;
}

// parse_header and validate_header on one input and profile: each alone is
// sane and the two agree. Returns the parse_header result.
inline stguard::Result<stguard::Header> check_profile(const std::uint8_t* data, std::size_t size,
                                                      stguard::Profile profile) {
  stguard::ParseOptions options;
  options.profile = profile;
  const std::span<const std::uint8_t> bytes(data, size);
  stguard::Result<stguard::Header> parsed = stguard::parse(bytes, options);
  const stguard::Result<stguard::HeaderSummary> summary =
      stguard::validate_header(bytes, size, options);
  check(parsed.has_value() == summary.has_value(), "validate_header and parse_header disagree");
  if (parsed) {
    check_accepted(*parsed, data, size);
    check(summary->tensor_count == parsed->tensors.size(), "validate_header: tensor_count");
    check(summary->has_metadata == parsed->metadata.has_value(), "validate_header: has_metadata");
    check(summary->metadata_count == (parsed->metadata ? parsed->metadata->size() : 0),
          "validate_header: metadata_count");
    check(summary->header_len == parsed->header_len, "validate_header: header_len");
    check(summary->file_size == parsed->file_size, "validate_header: file_size");
  } else {
    check_error(parsed.error(), size);
    check(same_error(parsed.error(), summary.error()),
          "validate_header and parse_header give different reason/offset");
  }

  // The data part is never read: the first 8 + N bytes alone, in a buffer of
  // exactly that size (so ASan sees any read past it), give the same answer.
  if (size >= 8) {
    const std::uint64_t n = load_le64(data);
    if (n <= size - 8 && n + 8 < size) {
      const std::size_t prefix = static_cast<std::size_t>(n) + 8;
      auto copy = std::make_unique<std::uint8_t[]>(prefix);
      std::copy(data, data + prefix, copy.get());
      const stguard::Result<stguard::Header> again =
          stguard::parse_header(std::span<const std::uint8_t>(copy.get(), prefix), size, options);
      check(again.has_value() == parsed.has_value(), "prefix-only parse changes the verdict");
      if (parsed) {
        check(same_header(*again, *parsed), "prefix-only parse changes the header");
      } else {
        check(same_error(again.error(), parsed.error()), "prefix-only parse changes the error");
      }
    }
  }
  return parsed;
}

// Both profiles, and strict accepts => reference accepts the same header.
inline void check_all(const std::uint8_t* data, std::size_t size) {
  const stguard::Result<stguard::Header> strict =
      check_profile(data, size, stguard::Profile::kStrict);
  const stguard::Result<stguard::Header> reference =
      check_profile(data, size, stguard::Profile::kReference);
  if (strict) {
    check(reference.has_value(), "strict accepts but reference rejects");
    check(same_header(*strict, *reference), "strict and reference read different headers");
  }
}

}  // namespace stguard_fuzz

#endif  // STGUARD_FUZZ_FUZZ_INVARIANTS_H_
