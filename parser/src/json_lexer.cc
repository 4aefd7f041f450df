#include "json_lexer.h"

#include <charconv>
#include <system_error>

#include "message.h"
#include "utf8.h"

namespace stguard::detail {
namespace {

// For a well-formed JSON number literal: does its value round to infinity as
// an f64? Decided from the decimal order of magnitude, with an exact parse
// only in the one decade where that is not enough.
bool number_overflows_f64(const std::uint8_t* start, const std::uint8_t* end) {
  const std::uint8_t* p = start;
  if (*p == '-') ++p;
  // Order of magnitude of the first non-zero digit, before the exponent.
  std::int64_t magnitude = 0;
  bool found = false;
  std::int64_t int_digits = 0;
  const std::uint8_t* q = p;
  for (; q < end && is_digit(*q); ++q) {
    if (!found && *q != '0') {
      found = true;
      magnitude = -1;
    }
    if (found) ++int_digits;
  }
  magnitude += int_digits;
  if (q < end && *q == '.') {
    std::int64_t frac_position = 0;
    for (++q; q < end && is_digit(*q); ++q) {
      ++frac_position;
      if (!found && *q != '0') {
        found = true;
        magnitude = -frac_position;
      }
    }
  }
  if (!found) return false;  // zero, whatever the exponent
  if (q < end && (*q == 'e' || *q == 'E')) {
    ++q;
    bool negative = false;
    if (*q == '+' || *q == '-') negative = (*q++ == '-');
    std::int64_t exponent = 0;
    for (; q < end && is_digit(*q); ++q) {
      if (exponent < 1'000'000) exponent = exponent * 10 + (*q - '0');  // saturate
    }
    magnitude += negative ? -exponent : exponent;
  }
  if (magnitude < 308) return false;
  if (magnitude > 308) return true;
  double value = 0;
  const auto result = std::from_chars(reinterpret_cast<const char*>(start),
                                      reinterpret_cast<const char*>(end), value);
  return result.ec == std::errc::result_out_of_range;
}

}  // namespace

bool JsonLexer::fail(Reason reason, const std::uint8_t* at, std::string message) {
  error_ = Error{reason, offset_of(at), std::move(message)};
  stopped_at_syntax_error_ = reason == Reason::kHeaderNotJson;
  return false;
}

bool JsonLexer::fail_beyond_serde(const std::uint8_t* at, std::string message) {
  fail(Reason::kHeaderNotJson, at, std::move(message));
  mark_fault_not_syntax();
  return false;
}

namespace {

// "invalid JSON: expected <expected>, found <the byte at `at`, or the end of
// the header when `at` is `end`>".
std::string syntax_error_message(std::string_view expected, const std::uint8_t* at,
                                 const std::uint8_t* end) {
  constexpr std::string_view kLead = "invalid JSON: expected ";
  if (at >= end) return message(kLead, expected, ", found the end of the header");
  const unsigned char c = *at;
  if (c >= 0x20 && c < 0x7F) {
    const char found = static_cast<char>(c);
    return message(kLead, expected, ", found '", std::string_view(&found, 1), "'");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const char hex[] = {kHex[c >> 4], kHex[c & 0xF]};
  return message(kLead, expected, ", found byte 0x", std::string_view(hex, 2));
}

// "the literal '<word>'": what a literal's first differing byte was part of.
std::string expected_literal(std::string_view word) {
  std::string what = "the literal '";
  what += word;
  what += "'";
  return what;
}

}  // namespace

std::string syntax_fault_message(SyntaxFaultKind kind, std::string_view text,
                                 const std::uint8_t* at, const std::uint8_t* end) {
  switch (kind) {
    case SyntaxFaultKind::kExpected:
      return syntax_error_message(text, at, end);
    case SyntaxFaultKind::kLiteral:
      return syntax_error_message(expected_literal(text), at, end);
    default:
      return std::string(text);
  }
}

bool JsonLexer::fail_syntax(const std::uint8_t* at, std::string_view expected) {
  return fail(Reason::kHeaderNotJson, at, syntax_error_message(expected, at, end_));
}

bool JsonLexer::fail_after_end(Reason reason, const std::uint8_t* at) {
  const std::string_view rest(reinterpret_cast<const char*>(at),
                              static_cast<std::size_t>(end_ - at));
  if (reason == Reason::kHeaderBadPadding) {
    fail(reason, at,
         message("the header continues after its end with ", Quoted{rest},
                 ": only spaces (0x20) may follow the header object as padding"));
  } else {
    fail(reason, at, message("invalid JSON: the header continues after its end: ", Quoted{rest}));
  }
  stopped_at_syntax_error_ = false;  // past the value: the profiles' rule, not the value's syntax
  return false;
}

bool JsonLexer::read_literal(std::string_view word) {
  const auto left = static_cast<std::size_t>(end_ - p_);
  if (left >= word.size() && std::memcmp(p_, word.data(), word.size()) == 0) {
    p_ += word.size();
    return true;
  }
  // Point at the first byte that differs, as serde_json does.
  const std::uint8_t* at = p_;
  for (std::size_t i = 0; i < word.size() && at < end_ && *at == word[i]; ++i) ++at;
  return fail_syntax(at, expected_literal(word));
}

namespace {

// Four hex digits from `p`: their value, or the first byte that is not one
// (`end` when the header ends first).
struct Hex4 {
  std::uint32_t value = 0;
  const std::uint8_t* bad = nullptr;
};
Hex4 read_hex4(const std::uint8_t* p, const std::uint8_t* end) noexcept {
  Hex4 out;
  for (int i = 0; i < 4; ++i, ++p) {
    const int c = p < end ? *p : -1;
    std::uint32_t digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      out.bad = p;
      return out;
    }
    out.value = (out.value << 4) | digit;
  }
  return out;
}

}  // namespace

UnicodeEscape read_unicode_escape(const std::uint8_t* escape_start,
                                  const std::uint8_t* end) noexcept {
  UnicodeEscape out;
  auto fault = [&](const std::uint8_t* at, SyntaxFaultKind kind, std::string_view text) {
    out.fault_at = at;
    out.fault_kind = kind;
    out.text = text;
    return out;
  };
  const std::uint8_t* p = escape_start + 2;  // after the backslash and the u
  const Hex4 unit = read_hex4(p, end);
  if (unit.bad != nullptr) {
    return fault(unit.bad, SyntaxFaultKind::kExpected, syntax_text::kHexDigit);
  }
  p += 4;
  std::uint32_t code_point = unit.value;
  if (code_point >= 0xDC00 && code_point <= 0xDFFF) {
    return fault(escape_start, SyntaxFaultKind::kMessage, syntax_text::kLoneTrailingSurrogate);
  }
  if (code_point >= 0xD800 && code_point <= 0xDBFF) {
    // A leading surrogate must be followed at once by an escaped trailing one.
    if (end - p < 2 || p[0] != '\\' || p[1] != 'u') {
      return fault(escape_start, SyntaxFaultKind::kMessage, syntax_text::kLoneLeadingSurrogate);
    }
    p += 2;
    const Hex4 low = read_hex4(p, end);
    if (low.bad != nullptr) {
      return fault(low.bad, SyntaxFaultKind::kExpected, syntax_text::kHexDigit);
    }
    p += 4;
    if (low.value < 0xDC00 || low.value > 0xDFFF) {
      return fault(escape_start, SyntaxFaultKind::kMessage, syntax_text::kLoneLeadingSurrogate);
    }
    code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low.value - 0xDC00);
  }
  out.next = p;
  out.code_point = code_point;
  return out;
}

// At the byte after a backslash. Appends the unescaped text to `scratch`.
bool JsonLexer::read_escape(std::string& scratch) {
  const std::uint8_t* escape_start = p_ - 1;
  const int c = peek();
  ++p_;
  switch (c) {
    case '"':
      scratch.push_back('"');
      return true;
    case '\\':
      scratch.push_back('\\');
      return true;
    case '/':
      scratch.push_back('/');
      return true;
    case 'b':
      scratch.push_back('\b');
      return true;
    case 'f':
      scratch.push_back('\f');
      return true;
    case 'n':
      scratch.push_back('\n');
      return true;
    case 'r':
      scratch.push_back('\r');
      return true;
    case 't':
      scratch.push_back('\t');
      return true;
    case 'u': {
      const UnicodeEscape u = read_unicode_escape(escape_start, end_);
      if (u.fault_at != nullptr) {
        return fail(Reason::kHeaderNotJson, u.fault_at,
                    syntax_fault_message(u.fault_kind, u.text, u.fault_at, end_));
      }
      p_ = u.next;
      append_utf8(scratch, u.code_point);
      return true;
    }
    default:
      return fail(Reason::kHeaderNotJson, escape_start, std::string(syntax_text::kBadEscape));
  }
}

// At the opening quote.
bool JsonLexer::read_string(std::string& scratch, StringValue& out) {
  ++p_;  // the caller checked the quote
  const std::uint8_t* run = p_;
  bool escaped = false;
  out.has_nul = false;
  for (;;) {
    p_ = next_string_stop(p_);
    if (p_ >= end_) return fail_syntax(p_, syntax_text::kStringClose);
    const std::uint8_t c = *p_;
    if (c >= 0x80) {
      saw_non_ascii_ = true;  // from now on, non-ASCII bytes do not stop the scan
      continue;
    }
    if (c == '"') {
      if (!escaped) {
        out.text = std::string_view(reinterpret_cast<const char*>(run),
                                    static_cast<std::size_t>(p_ - run));
      } else {
        scratch.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p_ - run));
        out.text = scratch;
      }
      out.decoded = escaped;
      ++p_;
      return true;
    }
    if (c == '\\') {
      if (!escaped) {
        scratch.clear();
        escaped = true;
      }
      scratch.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p_ - run));
      ++p_;
      const std::size_t before = scratch.size();
      if (!read_escape(scratch)) return false;
      if (scratch.size() == before + 1 && scratch.back() == '\0') out.has_nul = true;
      run = p_;
      continue;
    }
    // Only a control character is left.
    return fail(Reason::kHeaderNotJson, p_, std::string(syntax_text::kControlInString));
  }
}

bool JsonLexer::read_number(NumberForm& out) {
  const std::uint8_t* start = p_;
  out = NumberForm{};
  if (peek() == '-') {
    out.negative = true;
    ++p_;
  }
  const int first = peek();
  if (!is_digit(first)) return fail_syntax(p_, syntax_text::kDigit);
  if (first == '0') {
    ++p_;
    if (is_digit(peek())) {
      return fail(Reason::kHeaderNotJson, start, std::string(syntax_text::kLeadingZero));
    }
  } else {
    const std::uint8_t* digits = p_;
    const std::uint8_t* p = p_;
    while (p < end_ && is_digit(*p)) ++p;
    p_ = p;
    std::uint64_t value = 0;
    bool overflow = false;
    // Up to 19 digits cannot overflow u64; only longer runs need the checks.
    const std::uint8_t* unchecked_end = (p_ - digits <= 19) ? p_ : digits + 19;
    for (const std::uint8_t* d = digits; d < unchecked_end; ++d) {
      value = value * 10 + static_cast<std::uint64_t>(*d - '0');
    }
    for (const std::uint8_t* d = unchecked_end; d < p_ && !overflow; ++d) {
      overflow |= __builtin_mul_overflow(value, 10u, &value);
      overflow |= __builtin_add_overflow(value, static_cast<std::uint64_t>(*d - '0'), &value);
    }
    out.value = value;
    out.above_u64 = overflow;
  }
  if (peek() == '.') {
    out.fractional_or_exponent = true;
    ++p_;
    if (!is_digit(peek())) return fail_syntax(p_, syntax_text::kFractionDigit);
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  if (peek() == 'e' || peek() == 'E') {
    out.fractional_or_exponent = true;
    ++p_;
    if (peek() == '+' || peek() == '-') ++p_;
    if (!is_digit(peek())) return fail_syntax(p_, syntax_text::kExponentDigit);
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  out.is_u64 = !out.negative && !out.fractional_or_exponent && !out.above_u64;
  return true;
}

// One element of shape or data_offsets: a JSON integer in [0, 2^64).
bool JsonLexer::read_u64_element(Reason type_reason, std::string_view what, std::uint64_t& out) {
  const std::uint8_t* start = p_;
  const int c = peek();
  // Fast path for the common form (see read_plain_u64) followed by something
  // that cannot continue a number. Anything else takes the full grammar.
  if (u64_words_ && end_ - p_ >= 24) {
    std::uint64_t value;
    const std::uint8_t* p = read_plain_u64(p_, value);
    if (p != nullptr && *p != '.' && *p != 'e' && *p != 'E') {
      p_ = p;
      out = value;
      return true;
    }
  }
  if (c == '-' || is_digit(c)) {
    NumberForm number;
    if (!read_number(number)) return false;
    if (number.is_u64) {
      out = number.value;
      return true;
    }
    std::string message(what);
    if (number.negative) {
      message += " is negative";
    } else if (number.fractional_or_exponent) {
      message += " is not an integer (fraction or exponent)";
    } else {
      message += " exceeds 2^64-1";
    }
    return fail(type_reason, start, std::move(message));
  }
  if (starts_value(c)) {
    std::string message(what);
    message += " is not an unsigned integer";
    return fail(type_reason, start, std::move(message));
  }
  return fail_syntax(p_, syntax_text::kValue);
}

bool JsonLexer::skip_value(int depth) {
  // Iterative so that nesting costs no native stack; the depth is capped at
  // serde_json's limit anyway. kinds[i] is true for an object.
  bool kinds[kMaxDepth];
  int open = 0;
  for (;;) {
    // Expecting a value.
    const int c = peek();
    if (c == '{' || c == '[') {
      if (depth + open + 1 >= kMaxDepth) {
        return fail_beyond_serde(p_,
                                 "invalid JSON: nesting deeper than 127 levels (upstream "
                                 "serde_json recursion limit)");
      }
      kinds[open++] = (c == '{');
      ++p_;
      skip_whitespace();
      const int close = (c == '{') ? '}' : ']';
      if (peek() == close) {
        ++p_;
        --open;
      } else if (c == '{') {
        if (peek() != '"') return fail_syntax(p_, syntax_text::kKeyOrClose);
        StringValue key;
        if (!read_string(skip_scratch_, key)) return false;
        skip_whitespace();
        if (!expect(':', syntax_text::kColon)) return false;
        skip_whitespace();
        continue;
      } else {
        continue;  // first array element
      }
    } else if (c == '"') {
      StringValue ignored;
      if (!read_string(skip_scratch_, ignored)) return false;
    } else if (c == '-' || is_digit(c)) {
      const std::uint8_t* start = p_;
      NumberForm number;
      if (!read_number(number)) return false;
      // serde_json reads integers above u64 and all non-integers as f64 and
      // rejects a magnitude that overflows it ("number out of range").
      if (!number.is_u64 && number_overflows_f64(start, p_)) {
        return fail_beyond_serde(start, "invalid JSON: number out of range for f64");
      }
    } else if (c == 't') {
      if (!read_literal("true")) return false;
    } else if (c == 'f') {
      if (!read_literal("false")) return false;
    } else if (c == 'n') {
      if (!read_literal("null")) return false;
    } else {
      return fail_syntax(p_, syntax_text::kValue);
    }
    // After a value: close containers or move to the next element.
    for (;;) {
      if (open == 0) return true;
      skip_whitespace();
      const bool in_object = kinds[open - 1];
      if (peek() == ',') {
        ++p_;
        skip_whitespace();
        if (in_object) {
          if (peek() != '"') return fail_syntax(p_, syntax_text::kKey);
          StringValue key;
          if (!read_string(skip_scratch_, key)) return false;
          skip_whitespace();
          if (!expect(':', syntax_text::kColon)) return false;
          skip_whitespace();
        }
        break;  // next value
      }
      if (peek() == (in_object ? '}' : ']')) {
        ++p_;
        --open;
        continue;
      }
      return fail_syntax(p_, in_object ? syntax_text::kCommaOrBrace : syntax_text::kCommaOrBracket);
    }
  }
}

bool JsonLexer::comma_before_value() {
  ++p_;
  skip_whitespace();
  return starts_value(peek()) || fail_syntax(p_, syntax_text::kValue);
}

std::string_view JsonLexer::string_at(const std::uint8_t* begin, const std::uint8_t* end,
                                      const std::uint8_t* quote, std::string& scratch) {
  JsonLexer lexer(begin, end, 0, kernels_for(SimdPath::kBaseline));
  lexer.p_ = quote;
  StringValue value;
  if (!lexer.read_string(scratch, value)) return {};  // not reached for a string read before
  return value.text;
}

}  // namespace stguard::detail
