#include "base/hex.h"

namespace stguard::base {

char hex_digit(unsigned value) noexcept { return "0123456789abcdef"[value & 0xFu]; }

void append_hex_byte(std::string& out, std::uint8_t byte) {
  out += hex_digit(byte >> 4u);
  out += hex_digit(byte);
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (const std::uint8_t byte : bytes) append_hex_byte(out, byte);
  return out;
}

std::string to_hex_number(std::uint64_t value) {
  std::string out;
  do {
    out.insert(out.begin(), hex_digit(static_cast<unsigned>(value & 0xFu)));
    value >>= 4u;
  } while (value != 0);
  return out;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool from_hex(std::string_view text, std::span<std::uint8_t> out) noexcept {
  if (text.size() != 2 * out.size()) return false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int high = hex_value(text[2 * i]);
    const int low = hex_value(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    out[i] = static_cast<std::uint8_t>((high << 4) | low);
  }
  return true;
}

}  // namespace stguard::base
