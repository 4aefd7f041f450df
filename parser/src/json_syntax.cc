#include "json_syntax.h"

#include <cstddef>
#include <string>
#include <vector>

#include "json_lexer.h"

namespace stguard::detail {
namespace {

// The kinds of the open containers, one bit each (set: an object). The first
// 64 levels live in one word, so the pass allocates nothing for the headers
// writers emit (3 levels) or for most fuzzed ones; deeper levels take a
// vector.
class ContainerStack {
 public:
  bool empty() const noexcept { return depth_ == 0; }
  bool top_is_object() const noexcept {
    const std::uint64_t i = depth_ - 1;
    return ((word(i / 64) >> (i % 64)) & 1U) != 0;
  }
  void push(bool object) {
    if (depth_ % 64 == 0 && depth_ != 0) deeper_.push_back(0);
    const std::uint64_t bit = std::uint64_t{1} << (depth_ % 64);
    std::uint64_t& w = word(depth_ / 64);
    if (object) {
      w |= bit;
    } else {
      w &= ~bit;
    }
    ++depth_;
  }
  void pop() noexcept {
    --depth_;
    if (depth_ % 64 == 0 && depth_ != 0) deeper_.pop_back();
  }

 private:
  std::uint64_t& word(std::uint64_t i) noexcept { return i == 0 ? first_ : deeper_[i - 1]; }
  std::uint64_t word(std::uint64_t i) const noexcept { return i == 0 ? first_ : deeper_[i - 1]; }

  std::uint64_t first_ = 0;            // levels 1 to 64
  std::vector<std::uint64_t> deeper_;  // 64 levels per word after those
  std::uint64_t depth_ = 0;
};

// At the opening quote of an object key: the key, the ':' and the whitespace
// around it, leaving the cursor at the member's value.
bool read_key(JsonLexer& lex, std::string& scratch, std::string_view expected) {
  if (lex.peek() != '"') return lex.fail_syntax(lex.pos(), expected);
  JsonLexer::StringValue ignored;
  if (!lex.read_string(scratch, ignored)) return false;
  lex.skip_whitespace();
  if (!lex.expect(':', syntax_text::kColon)) return false;
  lex.skip_whitespace();
  return true;
}

// Reads the value for syntax alone, from the beginning or, with `member_at`,
// from that key of the top-level object.
bool check_syntax(JsonLexer& lex, const std::uint8_t* member_at) {
  if (lex.begin() == lex.end()) {
    return lex.fail(Reason::kHeaderNotJson, lex.pos(), "invalid JSON: the header is empty (N = 0)");
  }
  ContainerStack open;
  std::string scratch;  // escaped strings are decoded into it and dropped
  if (member_at != nullptr) {
    // As a pass from the beginning would be at this key: inside the
    // top-level object, after its '{' or a ',' and the whitespace after it.
    lex.set_pos(member_at);
    open.push(/*object=*/true);
    if (!read_key(lex, scratch, syntax_text::kKey)) return false;
  } else {
    lex.skip_whitespace();
  }
  for (;;) {
    // Expecting a value.
    const int c = lex.peek();
    bool closed = false;  // a scalar or an empty container: the value is complete
    if (c == '{' || c == '[') {
      lex.advance();
      lex.skip_whitespace();
      const int close = (c == '{') ? '}' : ']';
      if (lex.peek() == close) {
        lex.advance();
        closed = true;
      } else {
        open.push(c == '{');
        if (c == '{' && !read_key(lex, scratch, syntax_text::kKeyOrClose)) return false;
      }
    } else if (c == '"') {
      JsonLexer::StringValue ignored;
      if (!lex.read_string(scratch, ignored)) return false;
      closed = true;
    } else if (c == '-' || is_digit(c)) {
      JsonLexer::NumberForm ignored;
      if (!lex.read_number(ignored)) return false;
      closed = true;
    } else if (c == 't') {
      if (!lex.read_literal("true")) return false;
      closed = true;
    } else if (c == 'f') {
      if (!lex.read_literal("false")) return false;
      closed = true;
    } else if (c == 'n') {
      if (!lex.read_literal("null")) return false;
      closed = true;
    } else {
      return lex.fail_syntax(lex.pos(), syntax_text::kValue);
    }
    if (!closed) continue;  // the first element or member's value
    // After a complete value: close containers or move to the next element.
    for (;;) {
      // What follows the top-level value is the padding rule's, not this pass's.
      if (open.empty()) return true;
      lex.skip_whitespace();
      const bool in_object = open.top_is_object();
      if (lex.peek() == ',') {
        lex.advance();
        lex.skip_whitespace();
        if (in_object && !read_key(lex, scratch, syntax_text::kKey)) return false;
        break;  // the next value
      }
      if (lex.peek() == (in_object ? '}' : ']')) {
        lex.advance();
        open.pop();
        continue;
      }
      return lex.fail_syntax(lex.pos(),
                             in_object ? syntax_text::kCommaOrBrace : syntax_text::kCommaOrBracket);
    }
  }
}

}  // namespace

std::optional<Error> find_json_syntax_error(const std::uint8_t* begin, const std::uint8_t* end,
                                            std::uint64_t file_base, const Kernels& kernels,
                                            const std::uint8_t* member_at) {
  JsonLexer lex(begin, end, file_base, kernels);
  if (check_syntax(lex, member_at)) return std::nullopt;
  return lex.take_error();
}

}  // namespace stguard::detail
