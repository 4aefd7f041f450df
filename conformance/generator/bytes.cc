#include "conformance/generator/bytes.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "base/decimal.h"
#include "base/hex.h"
#include "conformance/generator/recipe_error.h"

namespace stguard::conformance {
namespace {

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

void append_hex(std::string_view text, std::vector<std::uint8_t>& out, const SourceLine& at) {
  int high = -1;
  for (char c : text) {
    if (c == ' ') {
      if (high >= 0) fail(at, "hex bytes are two digits each");
      continue;
    }
    const int d = base::hex_value(c);
    if (d < 0) fail(at, std::string("not a hex digit: '") + c + "'");
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<std::uint8_t>(high * 16 + d));
      high = -1;
    }
  }
  if (high >= 0) fail(at, "odd number of hex digits");
}

std::int64_t parse_i64(std::string_view text, const SourceLine& at) {
  const bool negative = !text.empty() && text.front() == '-';
  const std::uint64_t magnitude = parse_u64(negative ? text.substr(1) : text, at);
  constexpr std::uint64_t kMaxNegative = std::uint64_t{1} << 63;
  if (negative) {
    if (magnitude > kMaxNegative) fail(at, "out of range: " + std::string(text));
    return magnitude == kMaxNegative ? std::numeric_limits<std::int64_t>::min()
                                     : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude >= kMaxNegative) fail(at, "out of range: " + std::string(text));
  return static_cast<std::int64_t>(magnitude);
}

void put_le(std::uint64_t value, unsigned bytes, std::vector<std::uint8_t>& out) {
  for (unsigned i = 0; i < bytes; ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

void append_integers(std::string_view kind, const std::vector<std::string>& args,
                     std::vector<std::uint8_t>& out, const SourceLine& at) {
  const bool is_signed = kind.front() == 'i';
  const unsigned bits = static_cast<unsigned>(std::stoul(std::string(kind.substr(1))));
  const unsigned bytes = bits / 8;
  for (const std::string& a : args) {
    if (is_signed) {
      const std::int64_t v = parse_i64(a, at);
      const std::int64_t lo =
          bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
      const std::int64_t hi = bits == 64 ? std::numeric_limits<std::int64_t>::max()
                                         : (std::int64_t{1} << (bits - 1)) - 1;
      if (v < lo || v > hi) fail(at, a + " does not fit " + std::string(kind));
      put_le(static_cast<std::uint64_t>(v), bytes, out);
    } else {
      const std::uint64_t v = parse_u64(a, at);
      if (bits < 64 && v >= (std::uint64_t{1} << bits)) {
        fail(at, a + " does not fit " + std::string(kind));
      }
      put_le(v, bytes, out);
    }
  }
}

double parse_double(const std::string& text, const SourceLine& at) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE) fail(at, "not a number: " + text);
  return v;
}

std::size_t parse_count(std::string_view text, const SourceLine& at) {
  const std::uint64_t v = parse_u64(text, at);
  // Corpus files are small; only the on-demand limit cases go near this.
  if (v > 200'000'000) fail(at, "count too large: " + std::string(text));
  return static_cast<std::size_t>(v);
}

}  // namespace

std::uint64_t parse_u64(std::string_view text, const SourceLine& at) {
  const std::optional<std::uint64_t> value = base::parse_u64_or_hex(text);
  if (!value) {
    fail(at,
         "expected a number (decimal, or hex after 0x) up to 2^64-1: `" + std::string(text) + "`");
  }
  return *value;
}

std::string expand_header_text(std::string_view text, const SourceLine& at) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '`') {
      out.push_back(text[i++]);
      continue;
    }
    const std::size_t close = text.find('`', i + 1);
    if (close == std::string_view::npos) fail(at, "unterminated `directive`");
    const std::string_view directive = text.substr(i + 1, close - i - 1);
    i = close + 1;
    const std::size_t space = directive.find(' ');
    const std::string_view name = directive.substr(0, space);
    const std::string_view arg =
        space == std::string_view::npos ? std::string_view() : directive.substr(space + 1);
    if (name == "hex") {
      std::vector<std::uint8_t> bytes;
      append_hex(arg, bytes, at);
      if (bytes.empty()) fail(at, "`hex` without bytes");
      out.append(bytes.begin(), bytes.end());
    } else if (name == "spaces") {
      out.append(parse_count(arg, at), ' ');
    } else if (name == "repeat") {
      const std::size_t count_end = arg.find(' ');
      if (count_end == std::string_view::npos) fail(at, "expected `repeat N TEXT`");
      const std::size_t count = parse_count(arg.substr(0, count_end), at);
      const std::string_view unit = arg.substr(count_end + 1);
      for (std::size_t k = 0; k < count; ++k) out.append(unit);
    } else if (directive == "tab") {
      out.push_back('\t');
    } else if (directive == "lf") {
      out.push_back('\n');
    } else if (directive == "cr") {
      out.push_back('\r');
    } else if (directive == "nul") {
      out.push_back('\0');
    } else if (directive == "bom") {
      out.append("\xEF\xBB\xBF");
    } else {
      fail(at, "unknown directive `" + std::string(directive) + "`");
    }
  }
  return out;
}

void append_byte_spec(const ByteSpec& spec, std::vector<std::uint8_t>& out) {
  const SourceLine& at = spec.source;
  const std::string_view text = spec.text;
  const std::size_t space = text.find(' ');
  const std::string kind(text.substr(0, space));
  const std::string_view rest =
      space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
  if (kind == "text") {
    if (rest.empty()) fail(at, "`text` without text");
    out.insert(out.end(), rest.begin(), rest.end());
    return;
  }
  const std::vector<std::string> args = words(rest);
  if (kind == "hex") {
    append_hex(rest, out, at);
  } else if (kind == "zeros" || kind == "iota") {
    if (args.size() != 1) fail(at, "expected `" + kind + " N`");
    const std::size_t n = parse_count(args[0], at);
    for (std::size_t k = 0; k < n; ++k) {
      out.push_back(kind == "zeros" ? std::uint8_t{0} : static_cast<std::uint8_t>(k & 0xFF));
    }
  } else if (kind == "fill") {
    std::vector<std::uint8_t> byte;
    if (args.size() != 2) fail(at, "expected `fill N HH`");
    append_hex(args[1], byte, at);
    if (byte.size() != 1) fail(at, "`fill` takes one hex byte");
    out.insert(out.end(), parse_count(args[0], at), byte[0]);
  } else if (kind == "bool") {
    if (args.empty()) fail(at, "`bool` without values");
    for (const std::string& a : args) {
      if (a != "0" && a != "1") fail(at, "bool values are 0 or 1");
      out.push_back(a == "1" ? 1 : 0);
    }
  } else if (kind == "u8" || kind == "i8" || kind == "u16" || kind == "i16" || kind == "u32" ||
             kind == "i32" || kind == "u64" || kind == "i64") {
    if (args.empty()) fail(at, "`" + kind + "` without values");
    append_integers(kind, args, out, at);
  } else if (kind == "f32" || kind == "f64") {
    if (args.empty()) fail(at, "`" + kind + "` without values");
    for (const std::string& a : args) {
      const double v = parse_double(a, at);
      if (kind == "f64") {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        put_le(bits, 8, out);
      } else {
        const float f = static_cast<float>(v);
        if (std::isfinite(v) && !std::isfinite(f)) fail(at, a + " does not fit f32");
        if (static_cast<double>(f) != v && !std::isnan(v)) {
          fail(at, a + " is not exactly representable as f32; write hex");
        }
        std::uint32_t bits = 0;
        std::memcpy(&bits, &f, sizeof bits);
        put_le(bits, 4, out);
      }
    }
  } else {
    fail(at, "unknown byte kind `" + kind + "`");
  }
}

std::uint64_t evaluate_offset(std::string_view expr, std::span<const std::uint8_t> file,
                              const SourceLine& at) {
  std::uint64_t total = 0;
  bool negative_next = false;
  bool expect_term = true;
  std::size_t i = 0;
  const auto apply = [&](std::uint64_t v) {
    const bool overflow = negative_next ? __builtin_sub_overflow(total, v, &total)
                                        : __builtin_add_overflow(total, v, &total);
    if (overflow) fail(at, "offset expression out of range: " + std::string(expr));
    expect_term = false;
  };
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == ' ') {
      ++i;
    } else if (!expect_term && (c == '+' || c == '-')) {
      negative_next = c == '-';
      expect_term = true;
      ++i;
    } else if (expect_term && c == '\'') {
      const std::size_t close = expr.find('\'', i + 1);
      if (close == std::string_view::npos) fail(at, "unterminated 'text' in offset");
      const std::string_view needle = expr.substr(i + 1, close - i - 1);
      i = close + 1;
      std::uint64_t nth = 1;
      if (i < expr.size() && expr[i] == '#') {
        std::size_t j = ++i;
        while (j < expr.size() && expr[j] >= '0' && expr[j] <= '9') ++j;
        nth = parse_u64(expr.substr(i, j - i), at);
        i = j;
      }
      if (needle.empty() || nth == 0) fail(at, "bad 'text'#K in offset");
      std::size_t from = 8;
      std::optional<std::size_t> found;
      for (std::uint64_t k = 0; k < nth; ++k) {
        if (from > file.size()) break;
        auto it = std::search(
            file.begin() + static_cast<std::ptrdiff_t>(from), file.end(), needle.begin(),
            needle.end(), [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); });
        if (it == file.end()) {
          found.reset();
          break;
        }
        found = static_cast<std::size_t>(it - file.begin());
        from = *found + 1;
      }
      if (!found) fail(at, "offset text '" + std::string(needle) + "' not found in the file");
      apply(*found);
    } else if (expect_term && c >= '0' && c <= '9') {
      const bool hex = expr.substr(i, 2) == "0x";
      std::size_t j = hex ? i + 2 : i;
      while (j < expr.size() &&
             (hex ? base::hex_value(expr[j]) >= 0 : expr[j] >= '0' && expr[j] <= '9')) {
        ++j;
      }
      apply(parse_u64(expr.substr(i, j - i), at));
      i = j;
    } else if (expect_term && expr.substr(i, 4) == "data") {
      if (file.size() < 8) fail(at, "`data` needs a length prefix");
      std::uint64_t n = 0;
      for (int k = 7; k >= 0; --k) n = (n << 8) | file[static_cast<std::size_t>(k)];
      if (n > (std::uint64_t{1} << 62)) fail(at, "`data` with an absurd length prefix");
      apply(8 + n);
      i += 4;
    } else if (expect_term && expr.substr(i, 3) == "eof") {
      apply(file.size());
      i += 3;
    } else {
      fail(at, "cannot read offset expression: " + std::string(expr));
    }
  }
  if (expect_term) fail(at, "incomplete offset expression: " + std::string(expr));
  return total;
}

}  // namespace stguard::conformance
