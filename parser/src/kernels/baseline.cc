// The baseline kernels: SSE2, which every x86-64 CPU has, else 8-byte words.
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "json_lexer.h"
#include "kernels/kernels.h"
#include "utf8.h"

namespace stguard::detail {
namespace {

// 64 bytes with one test where SSE2 is available, then words.
const std::uint8_t* find_non_ascii_baseline(const std::uint8_t* p,
                                            const std::uint8_t* end) noexcept {
#if defined(__SSE2__)
  for (std::size_t blocks = static_cast<std::size_t>(end - p) / 64; blocks != 0; --blocks) {
    __m128i x[4];
    std::memcpy(x, p, sizeof x);
    const __m128i any = _mm_or_si128(_mm_or_si128(x[0], x[1]), _mm_or_si128(x[2], x[3]));
    if (_mm_movemask_epi8(any) != 0) break;  // found within these 64 bytes below
    p += 64;
  }
#endif
  return find_non_ascii_in_words(p, end);
}

}  // namespace

std::size_t find_invalid_utf8_baseline(const std::uint8_t* data, std::size_t size) noexcept {
  return find_invalid_utf8_with<find_non_ascii_baseline>(data, size);
}

const std::uint8_t* find_string_stop_baseline(const std::uint8_t* p,
                                              const std::uint8_t* end) noexcept {
  return find_string_stop(p, end);
}

const std::uint8_t* find_ascii_string_stop_baseline(const std::uint8_t* p,
                                                    const std::uint8_t* end) noexcept {
  return find_string_stop<true>(p, end);
}

}  // namespace stguard::detail
