// base/decimal.h: strict parsing of unsigned integers from text.
//
//   std::optional<std::uint64_t> n = stguard::base::parse_u64("4096");    // 4096
//   stguard::base::parse_u64("18446744073709551616");                     // nullopt
//   stguard::base::parse_u64_or_hex("0x1F");                              // 31
//
// Only ASCII digits: no sign, no blanks, no leading '+', not empty. A value
// above 2^64-1 is an error, never a wrapped number.
#ifndef STGUARD_BASE_DECIMAL_H_
#define STGUARD_BASE_DECIMAL_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace stguard::base {

// A decimal u64.
std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept;

// A decimal u64, or a hexadecimal one after "0x" / "0X".
std::optional<std::uint64_t> parse_u64_or_hex(std::string_view text) noexcept;

// A non-negative decimal number with at most `decimals` digits after a '.',
// scaled by 10^decimals: ("2.5", 3) -> 2500, ("7", 3) -> 7000. No sign, no
// exponent, at least one digit before the point; nullopt for anything else
// or a value that does not fit.
std::optional<std::uint64_t> parse_scaled_decimal(std::string_view text,
                                                  unsigned decimals) noexcept;

}  // namespace stguard::base

#endif  // STGUARD_BASE_DECIMAL_H_
