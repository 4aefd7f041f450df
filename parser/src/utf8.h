// Strict UTF-8 validation, as Rust's std::str::from_utf8 defines it: no
// overlong forms, no encoded surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF, no truncated sequences.
#ifndef STGUARD_SRC_UTF8_H_
#define STGUARD_SRC_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "little_endian.h"

namespace stguard::detail {

// Index of the first byte of the first invalid sequence, or `size` when all
// of [data, data + size) is valid. Runs the kernel of SimdPath::kAuto
// (kernels/kernels.h); a parse runs the one its ParseOptions chose.
std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept;

// The pieces every kernel version shares: the rules for a sequence, the
// word-at-a-time search for the tail of a buffer, and the loop between them.

// The length (2 to 4) of the valid multi-byte sequence starting at `p` (whose
// first byte is >= 0x80) and ending by `end`, or 0 when it is not valid.
inline std::size_t multibyte_sequence_length(const std::uint8_t* p,
                                             const std::uint8_t* end) noexcept {
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
    if ((p[k] & 0xC0) != 0x80) return 0;  // not a continuation byte
  }
  return need + 1;
}

// The first byte in [p, end) at or above 0x80, or end: 8 bytes at a time,
// then single bytes.
inline const std::uint8_t* find_non_ascii_in_words(const std::uint8_t* p,
                                                   const std::uint8_t* end) noexcept {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  while (end - p >= 8) {
    // Loaded little-endian, the lowest set bit is in the first such byte.
    const std::uint64_t high = load_le64(p) & kHighBits;
    if (high != 0) return p + __builtin_ctzll(high) / 8;
    p += 8;
  }
  while (p < end && *p < 0x80) ++p;
  return p;
}

// find_invalid_utf8 around a search for the next non-ASCII byte (which skips
// the ASCII that headers are nearly all made of, as wide as the CPU allows).
template <const std::uint8_t* (*kFindNonAscii)(const std::uint8_t*, const std::uint8_t*) noexcept>
std::size_t find_invalid_utf8_with(const std::uint8_t* data, std::size_t size) noexcept {
  const std::uint8_t* p = data;
  const std::uint8_t* const end = data + size;
  for (;;) {
    p = kFindNonAscii(p, end);
    if (p == end) return size;
    const std::size_t length = multibyte_sequence_length(p, end);
    if (length == 0) return static_cast<std::size_t>(p - data);
    p += length;
  }
}

// Appends the UTF-8 encoding of a scalar value (< 0x110000, not a surrogate).
template <class String>
void append_utf8(String& out, std::uint32_t cp) {
  using Char = typename String::value_type;
  if (cp < 0x80) {
    out.push_back(static_cast<Char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<Char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<Char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<Char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<Char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<Char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<Char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<Char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<Char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<Char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_UTF8_H_
