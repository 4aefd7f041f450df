// generator/bytes.h: the small languages inside a recipe that make bytes and
// name positions (documented in conformance/README.md).
//
//   std::string header = expand_header_text("{\"a\":1}`hex 00`", at);  // 8 bytes
//   std::vector<std::uint8_t> data;
//   append_byte_spec({"f32 1.5 -2", at}, data);                       // 8 bytes
//
// Internal to conformance/generator/: every function throws RecipeError
// (recipe_error.h, with the recipe line) on malformed input.
#ifndef STGUARD_CONFORMANCE_GENERATOR_BYTES_H_
#define STGUARD_CONFORMANCE_GENERATOR_BYTES_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/generator/recipe.h"

namespace stguard::conformance {

// Header text with `directives` replaced by their bytes:
//   `hex EF BB BF`   bytes in hex (spaces between pairs optional)
//   `spaces N`       N spaces (0x20)
//   `repeat N TEXT`  TEXT (everything after the count and one space) N times
//   `tab` `lf` `cr` `nul` `bom`   0x09, 0x0A, 0x0D, 0x00, EF BB BF
// Everything outside backticks is copied byte for byte.
std::string expand_header_text(std::string_view text, const SourceLine& at);

// Appends the bytes of one `data:`/`append:`/`file:` line:
//   hex HH..., zeros N, iota N (bytes 0,1,2,.. mod 256), fill N HH,
//   text LITERAL, bool 0|1..., u8/i8/u16/i16/u32/i32/u64/i64 VALUES (little-
//   endian, decimal or 0x hex), f32/f64 VALUES (little-endian IEEE 754).
void append_byte_spec(const ByteSpec& spec, std::vector<std::uint8_t>& out);

// Parses a u64 written in decimal or 0x hex, the whole string
// (base::parse_u64_or_hex); throws RecipeError naming `at` otherwise.
std::uint64_t parse_u64(std::string_view text, const SourceLine& at);

// Evaluates an offset expression against the generated file: terms joined by
// '+' or '-', each a decimal number, `data` (8 + N, N = the length prefix),
// `eof` (file size) or 'TEXT' / 'TEXT'#K (the absolute offset of the first,
// or K-th, occurrence of TEXT in the file at or after byte 8).
std::uint64_t evaluate_offset(std::string_view expr, std::span<const std::uint8_t> file,
                              const SourceLine& at);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_BYTES_H_
