// conformance/mutate/format_math.h: the two pieces of safetensors arithmetic
// that the generators (structured.h, token_mutator.h) and the fuzz
// harnesses' invariants (fuzz/fuzz_invariants.h) share: the length prefix
// and a tensor's byte size from its dtype and shape.
//
//   const std::uint64_t n = stguard::mutate::load_le64(file.data());  // header length
//   const std::optional<std::uint64_t> bytes = stguard::mutate::expected_bytes(info);
//
// Both are written here, independently of the parser's own (parser/src/
// little_endian.h and sizes.h), on purpose: the generators predict verdicts
// and the invariants check the parser with them, and an oracle that shared
// the parser's code would share its bugs.
#ifndef STGUARD_CONFORMANCE_MUTATE_FORMAT_MATH_H_
#define STGUARD_CONFORMANCE_MUTATE_FORMAT_MATH_H_

#include <cstdint>
#include <limits>
#include <optional>

#include "stguard/stguard.h"

namespace stguard::mutate {

// The little-endian u64 at p[0, 8), read byte by byte.
inline std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Bytes of a tensor from its dtype and shape, or nullopt when the count
// overflows u64 or is not a whole number of bytes. A zero dimension makes
// the count zero whatever the others.
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

}  // namespace stguard::mutate

#endif  // STGUARD_CONFORMANCE_MUTATE_FORMAT_MATH_H_
