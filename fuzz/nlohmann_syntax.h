// Where nlohmann/json says a header's JSON breaks, translated to where
// stguard's HEADER_NOT_JSON must point (docs/reasons.md, "Where
// HEADER_NOT_JSON points"). Shared by the differential fuzz harness
// (fuzz_differential.cc) and the oracle test (tests/parser/json_oracle_test.cc).
//
//   const NlohmannSyntaxError e = nlohmann_syntax_error(text);  // text: not JSON
//   // stguard: HEADER_NOT_JSON at 8 + e.offset (see the struct for after_value)
//
// nlohmann's position convention (3.11, parse_error::byte and the SAX
// parse_error callback's `position`): the number of bytes its lexer had read
// when it gave up, counting the byte that made it give up, so the last byte
// read is at 0-based index L = byte - 1; at the end of the input L is the
// text's length (the end counts as one more byte read). A byte read ahead
// and pushed back (after a number) is not counted. nlohmann lexes a whole
// token before its parser looks at it, while stguard looks at the first
// byte of each token first, so the mapping depends on who gave up:
//
//   nlohmann's error                                  stguard's offset
//   the parser refused a structural token or the      L
//     end of the input
//   the parser refused a whole string, number,        T, the token's first byte
//     true/false/null token ("unexpected number
//     literal", ...)
//   the lexer failed in a token where the parser      T: stguard refuses the
//     wanted something else ("; expected ':'", "','   token at its first byte
//     or '}'", "end of input", a key string and the
//     token is not a string)
//   either T row, when T starts with a digit right    the 0 (or the '-' of -0)
//     after the number 0 or -0                          before T: a leading zero
//     (016 is the tokens 0 and 16)
//   the lexer failed in a value, or in a key string   L (the faulty byte), but:
//     "forbidden character after backslash" (\x)        L - 1, the backslash
//     "surrogate U+DC00..U+DFFF must follow ..."         L - 5, the backslash
//       (a lone low surrogate; L its last hex digit)
//     "surrogate U+D800..U+DBFF must be followed by     the backslash of the
//       ..." (a high surrogate \uXXXX at h, then: not    high surrogate
//       '\': L = h + 6; '\' and not 'u': L = h + 7;
//       \uYYYY that is not a low one: L = h + 11)
//
// T comes from running nlohmann's own lexer (nlohmann::detail::lexer) over the
// text token by token: the token whose scan ends at nlohmann's position
// starts at the first non-whitespace byte after the token before it.
//
// Not covered (the caller skips them): invalid UTF-8 (stguard reports
// HEADER_NOT_UTF8 first, wherever it is); a header that starts with 0xEF
// (nlohmann skips a UTF-8 BOM, which stguard treats as a byte that is not
// JSON); strict's first-byte check (HEADER_BAD_START).
#ifndef STGUARD_FUZZ_NLOHMANN_SYNTAX_H_
#define STGUARD_FUZZ_NLOHMANN_SYNTAX_H_

#include <stguard/stguard.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace stguard_fuzz {

struct NlohmannSyntaxError {
  // The header-relative offset stguard's HEADER_NOT_JSON must have.
  std::uint64_t offset = 0;
  // nlohmann's complaint is "expected end of input": the first JSON value
  // ended and something other than whitespace follows it. The syntax rule
  // does not cover that part (docs/reasons.md): stguard may report a fault
  // inside the value (an offset before `offset`), or at `offset` its padding
  // fault (strict HEADER_BAD_PADDING, which may come earlier, at a tab;
  // reference HEADER_NOT_JSON).
  bool after_value = false;
  std::string what;  // nlohmann's message, for reports
};

namespace nlohmann_syntax_detail {

// The SAX events are ignored; only the error is kept.
struct ErrorCatcher : nlohmann::json_sax<nlohmann::json> {
  std::size_t position = 0;
  std::string last_token;
  std::string what;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t pos, const std::string& token,
                   const nlohmann::detail::exception& ex) override {
    position = pos;
    last_token = token;
    what = ex.what();
    return false;
  }
};

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

inline bool at(std::string_view text, std::size_t i, char c) {
  return i < text.size() && text[i] == c;
}

}  // namespace nlohmann_syntax_detail

// The first byte of the token nlohmann's lexer was reading when it reached
// `position` (bytes read, as in parse_error::byte).
inline std::size_t nlohmann_token_start(std::string_view text, std::size_t position) {
  using Input = decltype(nlohmann::detail::input_adapter(text.data(), text.data()));
  nlohmann::detail::lexer<nlohmann::json, Input> lexer(
      nlohmann::detail::input_adapter(text.data(), text.data() + text.size()));
  using Token = decltype(lexer.scan());
  std::size_t before = 0;
  for (;;) {
    const Token token = lexer.scan();
    const std::size_t after = lexer.get_position().chars_read_total;
    if (token == Token::parse_error || token == Token::end_of_input || after >= position) break;
    before = after;
  }
  while (before < text.size() && (text[before] == ' ' || text[before] == '\t' ||
                                  text[before] == '\n' || text[before] == '\r')) {
    ++before;
  }
  return before;
}

// For a text nlohmann::json::parse rejects with a parse_error (not a number
// overflow): where stguard's HEADER_NOT_JSON must point.
inline NlohmannSyntaxError nlohmann_syntax_error(std::string_view text) {
  using nlohmann_syntax_detail::at;
  using nlohmann_syntax_detail::contains;
  nlohmann_syntax_detail::ErrorCatcher catcher;
  nlohmann::json::sax_parse(text.begin(), text.end(), &catcher);
  NlohmannSyntaxError out;
  out.what = catcher.what;
  // The message is "[json.exception.parse_error.101] parse error at ...:
  // syntax error while parsing <context> - <detail>", the detail either
  // "unexpected <token kind>" (the parser refused a token) or "<lexer
  // message>; last read: '<token text>'" (the lexer failed), then "; expected
  // <kind>" when the parser wanted a particular token. The token text is the
  // input's, so only the fixed parts are searched, never the token text.
  std::string_view detail = catcher.what;
  const std::size_t dash = detail.find(" - ");
  detail = dash == std::string_view::npos ? std::string_view() : detail.substr(dash + 3);
  constexpr std::string_view kLastRead = "; last read: '";
  const bool lexer_failed = !detail.starts_with("unexpected ");
  std::string_view what;    // the lexer's message, or the parser's "unexpected ..."
  std::string_view suffix;  // "; expected ..." or empty
  if (lexer_failed) {
    const std::size_t last_read = detail.find(kLastRead);
    what = detail.substr(0, last_read);
    const std::size_t after_token =
        last_read == std::string_view::npos
            ? detail.size()
            : last_read + kLastRead.size() + catcher.last_token.size() + 1;
    suffix = after_token < detail.size() ? detail.substr(after_token) : std::string_view();
  } else {
    const std::size_t expected = detail.find("; expected ");
    what = detail.substr(0, expected);
    suffix = expected == std::string_view::npos ? std::string_view() : detail.substr(expected);
  }
  out.after_value = suffix == "; expected end of input";
  const std::size_t last = catcher.position == 0 ? 0 : catcher.position - 1;  // L
  const bool wanted_other = lexer_failed && suffix.starts_with("; expected ");
  const std::size_t token = nlohmann_token_start(text, catcher.position);  // T
  const bool key_string = suffix == "; expected string literal" && at(text, token, '"');
  std::size_t offset = last;
  if (lexer_failed && wanted_other && !key_string) {
    offset = token;
  } else if (lexer_failed) {
    if (contains(what, "forbidden character after backslash")) {
      offset = last - 1;
    } else if (contains(what, "must follow U+D800..U+DBFF")) {
      offset = last - 5;
    } else if (contains(what, "must be followed by U+DC00..U+DFFF")) {
      if (last >= 11 && at(text, last - 11, '\\') && at(text, last - 5, '\\')) {
        offset = last - 11;  // \uD8xx\uYYYY
      } else if (last >= 7 && at(text, last - 7, '\\') && at(text, last - 1, '\\')) {
        offset = last - 7;  // \uD8xx\ then not u
      } else {
        offset = last - 6;  // \uD8xx then not a backslash, or the end
      }
    }
  } else if (what == "unexpected number literal" || what == "unexpected string literal" ||
             what == "unexpected true literal" || what == "unexpected false literal" ||
             what == "unexpected null literal") {
    offset = token;
  }
  // A token that starts with a digit right after the number 0 or -0 (016 is
  // the tokens 0 and 16, 08. the tokens 0 and a broken 8.): stguard reads
  // them as one number with a leading zero, at the 0 (or the '-'). A 0 that
  // ends a longer number (10, 1.0, 1e0) would have taken the digits.
  const bool digit_first = token < text.size() && text[token] >= '0' && text[token] <= '9';
  if (offset == token && digit_first && token >= 1 && text[token - 1] == '0') {
    offset -= (token >= 2 && text[token - 2] == '-') ? std::size_t{2} : std::size_t{1};
  }
  out.offset = offset;
  return out;
}

// Checks stguard's answer for a header text nlohmann rejects as JSON (a
// parse_error). Returns what is wrong, or an empty string. `header_base` is
// the file offset of the text (8).
inline std::string check_syntax_reason(const stguard::Error& error, stguard::Profile profile,
                                       std::string_view text, std::uint64_t header_base = 8) {
  using stguard::Reason;
  const bool strict = profile == stguard::Profile::kStrict;
  if (error.reason == Reason::kHeaderNotUtf8) return {};  // outranks syntax, wherever it is
  if (!text.empty() && static_cast<unsigned char>(text[0]) == 0xEF) return {};  // a BOM?
  if (strict && !text.empty() && text[0] != '{') {
    if (error.reason == Reason::kHeaderBadStart && error.offset == header_base) return {};
    return "strict must report HEADER_BAD_START at 8, got " + error.to_string();
  }
  const NlohmannSyntaxError expected = nlohmann_syntax_error(text);
  const std::uint64_t at = header_base + expected.offset;
  const std::string where = " (nlohmann: " + expected.what + ")";
  if (expected.after_value) {
    const Reason padding = strict ? Reason::kHeaderBadPadding : Reason::kHeaderNotJson;
    if (error.offset > at) {
      return "a fault after the value's end must be reported at byte " + std::to_string(at) +
             " or before, got " + error.to_string() + where;
    }
    if ((error.offset == at || error.reason == Reason::kHeaderBadPadding) &&
        error.reason != padding) {
      return std::string("bytes after the value's end must be ") +
             std::string(stguard::reason_name(padding)) + ", got " + error.to_string() + where;
    }
    return {};
  }
  if (error.reason != Reason::kHeaderNotJson || error.offset != at) {
    return "expected HEADER_NOT_JSON at byte " + std::to_string(at) + ", got " + error.to_string() +
           where;
  }
  return {};
}

}  // namespace stguard_fuzz

#endif  // STGUARD_FUZZ_NLOHMANN_SYNTAX_H_
