// Strict UTF-8 validation, as Rust's std::str::from_utf8 defines it: no
// overlong forms, no encoded surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF, no truncated sequences.
#ifndef STGUARD_SRC_UTF8_H_
#define STGUARD_SRC_UTF8_H_

#include <cstddef>
#include <cstdint>

namespace stguard::detail {

// Index of the first byte of the first invalid sequence, or `size` when all
// of [data, data + size) is valid.
std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept;

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
