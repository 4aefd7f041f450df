#include "base/decimal.h"

#include "base/hex.h"

namespace stguard::base {
namespace {

std::optional<std::uint64_t> parse_in_base(std::string_view text, unsigned base) noexcept {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    const int digit = base == 16 ? hex_value(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
    if (digit < 0) return std::nullopt;
    if (__builtin_mul_overflow(value, std::uint64_t{base}, &value) ||
        __builtin_add_overflow(value, static_cast<std::uint64_t>(digit), &value)) {
      return std::nullopt;
    }
  }
  return value;
}

}  // namespace

std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept {
  return parse_in_base(text, 10);
}

std::optional<std::uint64_t> parse_u64_or_hex(std::string_view text) noexcept {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return parse_in_base(text.substr(2), 16);
  }
  return parse_in_base(text, 10);
}

std::optional<std::uint64_t> parse_scaled_decimal(std::string_view text,
                                                  unsigned decimals) noexcept {
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  if (point != std::string_view::npos && fraction.empty()) return std::nullopt;
  if (fraction.size() > decimals) return std::nullopt;
  std::optional<std::uint64_t> value = parse_u64(whole);
  std::uint64_t scaled = 0;
  if (!value) return std::nullopt;
  scaled = *value;
  for (unsigned i = 0; i < decimals; ++i) {
    const int digit = i < fraction.size() ? fraction[i] - '0' : 0;
    if (digit < 0 || digit > 9) return std::nullopt;
    if (__builtin_mul_overflow(scaled, std::uint64_t{10}, &scaled) ||
        __builtin_add_overflow(scaled, static_cast<std::uint64_t>(digit), &scaled)) {
      return std::nullopt;
    }
  }
  return scaled;
}

}  // namespace stguard::base
