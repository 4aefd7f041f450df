// Little-endian loads and stores: the one place the parser turns bytes into
// integers (the length prefix, the word-at-a-time scans over header text, the
// dtype name words, the name hash) and back (the writer's length prefix).
//
// A load is one unaligned native load, byte-swapped on big-endian hosts, so
// the result is the same everywhere. Not a loop over bytes: compilers merge
// such a loop into one load, but not under AddressSanitizer, which checks
// each byte load on its own (clang 14: 125 instructions instead of 38 for an
// 8-byte load), and the fuzzers and the tests run under it. In a constant
// expression (the dtype table's compile-time hash) the bytes are combined one
// by one, since memcpy is not constexpr.
#ifndef STGUARD_SRC_LITTLE_ENDIAN_H_
#define STGUARD_SRC_LITTLE_ENDIAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace stguard::detail {

// The kWidth bytes (1, 2, 4 or 8) at `p` as a little-endian unsigned integer.
// `Byte` is char, unsigned char or std::uint8_t; `p` needs no alignment.
template <std::size_t kWidth = 8, class Byte>
constexpr std::uint64_t load_le(const Byte* p) noexcept {
  static_assert(sizeof(Byte) == 1, "loads read bytes");
  static_assert(kWidth == 1 || kWidth == 2 || kWidth == 4 || kWidth == 8);
  if (std::is_constant_evaluated()) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < kWidth; ++i) {
      v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    }
    return v;
  }
  using Word = std::conditional_t<
      kWidth == 8, std::uint64_t,
      std::conditional_t<kWidth == 4, std::uint32_t,
                         std::conditional_t<kWidth == 2, std::uint16_t, std::uint8_t>>>;
  Word v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big && kWidth > 1) {
    if constexpr (kWidth == 8) v = __builtin_bswap64(v);
    if constexpr (kWidth == 4) v = __builtin_bswap32(v);
    if constexpr (kWidth == 2) v = __builtin_bswap16(v);
  }
  return v;
}

inline std::uint64_t load_le64(const std::uint8_t* p) noexcept { return load_le<8>(p); }

// Writes `value` as 8 little-endian bytes at `out`.
inline void store_le64(std::uint8_t* out, std::uint64_t value) noexcept {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_LITTLE_ENDIAN_H_
