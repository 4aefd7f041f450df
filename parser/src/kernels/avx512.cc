// The AVX-512 kernels (F and BW): 64-byte vectors and compares into mask
// registers. Under 64 bytes from the end they hand over to the baseline's
// loops. Masked loads could take those bytes in one step without reading past
// the buffer, but AddressSanitizer checks a masked load lane by lane, and
// fuzz inputs are so short that nearly every scan would end in one (see
// docs/performance.md, choices in the code); in a real header the tail is
// reached once, at its end.
#if defined(__x86_64__)

#include <immintrin.h>

#include "json_lexer.h"
#include "kernels/kernels.h"
#include "utf8.h"

#define STGUARD_TARGET_AVX512 [[gnu::target("avx512f,avx512bw")]]

namespace stguard::detail {
namespace {

STGUARD_TARGET_AVX512 __m512i load64(const std::uint8_t* p) noexcept {
  return _mm512_loadu_si512(p);
}

// 256 bytes with one test, then 64, then words.
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
  return find_non_ascii_in_words(p, end);
}

}  // namespace

STGUARD_TARGET_AVX512 std::size_t find_invalid_utf8_avx512(const std::uint8_t* data,
                                                           std::size_t size) noexcept {
  return find_invalid_utf8_with<find_non_ascii_avx512>(data, size);
}

namespace {

template <bool kStopAtNonAscii>
STGUARD_TARGET_AVX512 [[gnu::always_inline]] inline const std::uint8_t* string_stop_avx512(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  const __m512i quote = _mm512_set1_epi8('"');
  const __m512i backslash = _mm512_set1_epi8('\\');
  const __m512i first_printable = _mm512_set1_epi8(0x20);
  while (end - p >= 64) {
    const __m512i x = load64(p);
    __mmask64 stops = _mm512_cmpeq_epi8_mask(x, quote) | _mm512_cmpeq_epi8_mask(x, backslash) |
                      _mm512_cmplt_epu8_mask(x, first_printable);
    if constexpr (kStopAtNonAscii) stops |= _mm512_movepi8_mask(x);
    if (stops != 0) return p + __builtin_ctzll(stops);
    p += 64;
  }
  // Under 64 bytes left: the baseline's 16 and words.
  return find_string_stop<kStopAtNonAscii>(p, end);
}

}  // namespace

STGUARD_TARGET_AVX512 const std::uint8_t* find_string_stop_avx512(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  return string_stop_avx512<false>(p, end);
}

STGUARD_TARGET_AVX512 const std::uint8_t* find_ascii_string_stop_avx512(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  return string_stop_avx512<true>(p, end);
}

}  // namespace stguard::detail

#endif  // __x86_64__
