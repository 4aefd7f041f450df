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

std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
  std::size_t i = 0;
  while (i < size) {
    // Headers are almost entirely ASCII: skip 16 bytes at a time while no byte
    // has its high bit set.
    while (size - i >= 16 && ((load64(data + i) | load64(data + i + 8)) & kHighBits) == 0) {
      i += 16;
    }
    if (i >= size) break;
    const std::uint8_t lead = data[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
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
      return i;  // continuation byte as lead, C0/C1 (overlong), F5..FF
    }
    if (size - i - 1 < need) return i;
    const std::uint8_t second = data[i + 1];
    if (second < second_lo || second > second_hi) return i;
    for (std::size_t k = 2; k <= need; ++k) {
      if (!is_continuation(data[i + k])) return i;
    }
    i += need + 1;
  }
  return size;
}

}  // namespace stguard::detail
