// base/hex.h: hexadecimal digits, one table for the whole project.
//
//   std::string h = stguard::base::to_hex(digest);           // "9f86d0..."
//   std::array<std::uint8_t, 32> d;
//   bool ok = stguard::base::from_hex("9f86d0...", d);        // exact length only
//
// Output is lower-case; input accepts either case.
#ifndef STGUARD_BASE_HEX_H_
#define STGUARD_BASE_HEX_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stguard::base {

// '0'..'9', 'a'..'f' for 0..15 (higher bits ignored).
char hex_digit(unsigned value) noexcept;

// Appends the two digits of `byte`.
void append_hex_byte(std::string& out, std::uint8_t byte);

// Two digits per byte.
std::string to_hex(std::span<const std::uint8_t> bytes);

// `value` in as few digits as it needs ("0" for zero).
std::string to_hex_number(std::uint64_t value);

// 0..15 for a hex digit of either case, -1 for anything else.
int hex_value(char c) noexcept;

// Parses exactly 2 * out.size() hex digits into `out`. False (and `out`
// unspecified) for any other length or a non-hex character.
bool from_hex(std::string_view text, std::span<std::uint8_t> out) noexcept;

}  // namespace stguard::base

#endif  // STGUARD_BASE_HEX_H_
