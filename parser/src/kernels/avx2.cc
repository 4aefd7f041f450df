// The AVX2 kernels: 32-byte vectors. Each function carries the target
// attribute itself; the shared helpers they call (utf8.h, json_lexer.h) are
// baseline code, which an AVX2 function may inline.
#if defined(__x86_64__)

#include <immintrin.h>

#include "json_lexer.h"
#include "kernels/kernels.h"
#include "utf8.h"

#define STGUARD_TARGET_AVX2 [[gnu::target("avx2")]]

namespace stguard::detail {
namespace {

STGUARD_TARGET_AVX2 __m256i load32(const std::uint8_t* p) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// 128 bytes with one test, then 32, then words.
STGUARD_TARGET_AVX2 const std::uint8_t* find_non_ascii_avx2(const std::uint8_t* p,
                                                            const std::uint8_t* end) noexcept {
  while (end - p >= 128) {
    const __m256i any = _mm256_or_si256(_mm256_or_si256(load32(p), load32(p + 32)),
                                        _mm256_or_si256(load32(p + 64), load32(p + 96)));
    if (_mm256_movemask_epi8(any) != 0) break;  // found within these 128 bytes below
    p += 128;
  }
  while (end - p >= 32) {
    const auto high = static_cast<unsigned>(_mm256_movemask_epi8(load32(p)));
    if (high != 0) return p + __builtin_ctz(high);
    p += 32;
  }
  return find_non_ascii_in_words(p, end);
}

}  // namespace

STGUARD_TARGET_AVX2 std::size_t find_invalid_utf8_avx2(const std::uint8_t* data,
                                                       std::size_t size) noexcept {
  return find_invalid_utf8_with<find_non_ascii_avx2>(data, size);
}

namespace {

template <bool kStopAtNonAscii>
STGUARD_TARGET_AVX2 [[gnu::always_inline]] inline const std::uint8_t* string_stop_avx2(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i last_control = _mm256_set1_epi8(0x1F);
  while (end - p >= 32) {
    const __m256i x = load32(p);
    // x <= 0x1F as unsigned bytes: min(x, 0x1F) == x.
    const __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, last_control), x);
    __m256i stops = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, backslash)), control);
    if constexpr (kStopAtNonAscii) stops = _mm256_or_si256(stops, x);  // the high bit of x
    const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(stops));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 32;
  }
  // Under 32 bytes left: the baseline's 16 and words.
  return find_string_stop<kStopAtNonAscii>(p, end);
}

}  // namespace

STGUARD_TARGET_AVX2 const std::uint8_t* find_string_stop_avx2(const std::uint8_t* p,
                                                              const std::uint8_t* end) noexcept {
  return string_stop_avx2<false>(p, end);
}

STGUARD_TARGET_AVX2 const std::uint8_t* find_ascii_string_stop_avx2(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
  return string_stop_avx2<true>(p, end);
}

}  // namespace stguard::detail

#endif  // __x86_64__
