#include "utf8.h"

#include <cstring>

namespace stguard::detail {
namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

std::uint64_t load64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);  // only the high bit of each byte is used: byte order is irrelevant
  return v;
}

bool is_continuation(std::uint8_t b) noexcept { return (b & 0xC0) == 0x80; }

}  // namespace

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

std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
  std::size_t i = 0;
  while (i < size) {
    // Headers are almost entirely ASCII: skip 16 bytes at a time while no byte
    // has its high bit set.
    while (size - i >= 16 && ((load64(data + i) | load64(data + i + 8)) & kHighBits) == 0) {
      i += 16;
    }
    if (i >= size) break;
    if (data[i] < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = multibyte_sequence_length(data + i, data + size);
    if (length == 0) return i;
    i += length;
  }
  return size;
}

}  // namespace stguard::detail
