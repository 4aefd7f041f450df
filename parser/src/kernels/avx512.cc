// The AVX-512 kernels (F and BW): 64-byte vectors, compares into mask
// registers, and masked loads for the last bytes, which read nothing outside
// the buffer (masked-off bytes are not accessed, so they cannot fault).
#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/kernels.h"
#include "utf8.h"

#define STGUARD_TARGET_AVX512 [[gnu::target("avx512f,avx512bw")]]

namespace stguard::detail {
namespace {

// The first `n` (0 to 63) lanes.
constexpr __mmask64 first_lanes(std::ptrdiff_t n) noexcept {
  return (std::uint64_t{1} << static_cast<unsigned>(n)) - 1;
}

STGUARD_TARGET_AVX512 __m512i load64(const std::uint8_t* p) noexcept {
  return _mm512_loadu_si512(p);
}

// 256 bytes with one test, then 64, then the rest with one masked load.
STGUARD_TARGET_AVX512 const std::uint8_t* find_non_ascii_avx512(const std::uint8_t* p,
                                                                const std::uint8_t* end) noexcept {
  while (end - p >= 256) {
    const __m512i any = _mm512_or_si512(_mm512_or_si512(load64(p), load64(p + 64)),
                                        _mm512_or_si512(load64(p + 128), load64(p + 192)));
    if (_mm512_movepi8_mask(any) != 0) break;  // found within these 256 bytes below
    p += 256;
  }
  while (end - p >= 64) {
    const __mmask64 high = _mm512_movepi8_mask(load64(p));
    if (high != 0) return p + __builtin_ctzll(high);
    p += 64;
  }
  if (p == end) return end;
  const __mmask64 high =
      _mm512_movepi8_mask(_mm512_maskz_loadu_epi8(first_lanes(end - p), p));  // zeros beyond
  return high != 0 ? p + __builtin_ctzll(high) : end;
}

// The lanes of `x` among `live` that are '"', '\\' or below 0x20.
STGUARD_TARGET_AVX512 __mmask64 string_stops(__mmask64 live, __m512i x) noexcept {
  return _mm512_mask_cmpeq_epi8_mask(live, x, _mm512_set1_epi8('"')) |
         _mm512_mask_cmpeq_epi8_mask(live, x, _mm512_set1_epi8('\\')) |
         _mm512_mask_cmplt_epu8_mask(live, x, _mm512_set1_epi8(0x20));
}

}  // namespace

STGUARD_TARGET_AVX512 std::size_t find_invalid_utf8_avx512(const std::uint8_t* data,
                                                           std::size_t size) noexcept {
  return find_invalid_utf8_with<find_non_ascii_avx512>(data, size);
}

STGUARD_TARGET_AVX512 const std::uint8_t* find_string_stop_avx512(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  constexpr __mmask64 kAll = ~__mmask64{0};
  while (end - p >= 64) {
    const __mmask64 stops = string_stops(kAll, load64(p));
    if (stops != 0) return p + __builtin_ctzll(stops);
    p += 64;
  }
  if (p == end) return end;
  const __mmask64 live = first_lanes(end - p);
  const __mmask64 stops = string_stops(live, _mm512_maskz_loadu_epi8(live, p));
  return stops != 0 ? p + __builtin_ctzll(stops) : end;
}

}  // namespace stguard::detail

#endif  // __x86_64__
