#include "utf8.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "little_endian.h"

namespace stguard::detail {
namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

bool is_continuation(std::uint8_t b) noexcept { return (b & 0xC0) == 0x80; }

// The first byte in [p, end) at or above 0x80, or end. Headers are almost
// entirely ASCII, so whole blocks are skipped: 64 bytes with one test where
// SSE2 is available, then 8 at a time, then single bytes.
const std::uint8_t* find_non_ascii(const std::uint8_t* p, const std::uint8_t* end) noexcept {
#if defined(__SSE2__)
  for (std::size_t blocks = static_cast<std::size_t>(end - p) / 64; blocks != 0; --blocks) {
    __m128i x[4];
    std::memcpy(x, p, sizeof x);
    const __m128i any = _mm_or_si128(_mm_or_si128(x[0], x[1]), _mm_or_si128(x[2], x[3]));
    if (_mm_movemask_epi8(any) != 0) break;  // found within these 64 bytes below
    p += 64;
  }
#endif
  while (end - p >= 8) {
    // Loaded little-endian, the lowest set bit is in the first such byte.
    const std::uint64_t high = load_le64(p) & kHighBits;
    if (high != 0) return p + __builtin_ctzll(high) / 8;
    p += 8;
  }
  while (p < end && *p < 0x80) ++p;
  return p;
}

// The length (2 to 4) of the valid multi-byte sequence starting at `p` (whose
// first byte is >= 0x80) and ending by `end`, or 0 when it is not valid.
std::size_t multibyte_sequence_length(const std::uint8_t* p, const std::uint8_t* end) noexcept {
  const std::uint8_t lead = *p;
  std::size_t need;
  std::uint8_t second_lo = 0x80;
  std::uint8_t second_hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) second_lo = 0xA0;  // overlong
    if (lead == 0xED) second_hi = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) second_lo = 0x90;  // overlong
    if (lead == 0xF4) second_hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // continuation byte as lead, C0/C1 (overlong), F5..FF
  }
  if (static_cast<std::size_t>(end - p) - 1 < need) return 0;
  const std::uint8_t second = p[1];
  if (second < second_lo || second > second_hi) return 0;
  for (std::size_t k = 2; k <= need; ++k) {
    if (!is_continuation(p[k])) return 0;
  }
  return need + 1;
}

}  // namespace

std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
  const std::uint8_t* p = data;
  const std::uint8_t* const end = data + size;
  for (;;) {
    p = find_non_ascii(p, end);
    if (p == end) return size;
    const std::size_t length = multibyte_sequence_length(p, end);
    if (length == 0) return static_cast<std::size_t>(p - data);
    p += length;
  }
}

}  // namespace stguard::detail
