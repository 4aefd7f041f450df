#include "base/text.h"

#include "base/hex.h"

namespace stguard::base {

char32_t next_code_point(std::string_view text, std::size_t& pos) noexcept {
  const auto byte = [&](std::size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[i]));
  };
  const char32_t lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  std::size_t length = 0;
  char32_t code_point = 0;
  char32_t minimum = 0;
  if ((lead & 0xE0u) == 0xC0u) {
    length = 2;
    code_point = lead & 0x1Fu;
    minimum = 0x80;
  } else if ((lead & 0xF0u) == 0xE0u) {
    length = 3;
    code_point = lead & 0x0Fu;
    minimum = 0x800;
  } else if ((lead & 0xF8u) == 0xF0u) {
    length = 4;
    code_point = lead & 0x07u;
    minimum = 0x10000;
  } else {
    ++pos;
    return kNotUtf8;
  }
  if (text.size() - pos < length) {
    ++pos;
    return kNotUtf8;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const char32_t next = byte(pos + i);
    if ((next & 0xC0u) != 0x80u) {
      ++pos;
      return kNotUtf8;
    }
    code_point = (code_point << 6) | (next & 0x3Fu);
  }
  if (code_point < minimum || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    ++pos;
    return kNotUtf8;
  }
  pos += length;
  return code_point;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_valid_utf8(std::string_view text) noexcept {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (next_code_point(text, pos) == kNotUtf8) return false;
  }
  return true;
}

std::string lossy_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  return rewrite_code_points(text, 0, [](std::string& out, char32_t cp, std::string_view raw) {
    out += cp == kNotUtf8 ? std::string_view("\xEF\xBF\xBD") : raw;  // U+FFFD
  });
}

std::size_t code_point_count(std::string_view text) noexcept {
  std::size_t count = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    (void)next_code_point(text, pos);
    ++count;
  }
  return count;
}

bool is_invisible_control(char32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0xFEFF;
}

void append_terminal_safe(std::string& out, char32_t cp, std::string_view raw,
                          const SafeTextOptions& options) {
  if (cp == kNotUtf8) {
    out += "\\x";
    append_hex_byte(out, static_cast<std::uint8_t>(raw.front()));
  } else if (options.keep_newlines && (cp == '\n' || cp == '\t')) {
    out += raw;
  } else if (cp == '\n') {
    out += "\\n";
  } else if (cp == '\t') {
    out += "\\t";
  } else if (cp == '\r') {
    out += "\\r";
  } else if (cp == '\\') {
    out += options.keep_backslash ? "\\" : "\\\\";
  } else if (cp < 0x20 || cp == 0x7F) {
    out += "\\x";
    append_hex_byte(out, static_cast<std::uint8_t>(cp));
  } else if (is_invisible_control(cp)) {
    out += "\\u{";
    if (cp < 0x1000) out += '0';
    if (cp < 0x100) out += '0';
    out += to_hex_number(cp);
    out += '}';
  } else {
    out += raw;
  }
}

std::string terminal_safe(std::string_view text, const SafeTextOptions& options) {
  return rewrite_code_points(text, options.max_chars,
                             [&options](std::string& out, char32_t cp, std::string_view raw) {
                               append_terminal_safe(out, cp, raw, options);
                             });
}

std::string plural(std::uint64_t n, std::string_view word) {
  std::string out = std::to_string(n) + " " + std::string(word);
  if (n != 1) out += 's';
  return out;
}

}  // namespace stguard::base
