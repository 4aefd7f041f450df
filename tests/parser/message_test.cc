// The message builder behind every Error::message (parser/src/message.h):
// quoted_size() predicts stguard::detail::quoted()'s length exactly, so message() reserves the
// whole text once; numbers print in full at both ends of u64. A white-box
// test: the header is internal, the messages it builds are public.
#include "parser/src/message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stguard::detail::message;
using stguard::detail::Quoted;
// Called qualified: with a std::string argument, ADL would find std::quoted.
using stguard::detail::quoted_size;

std::vector<std::string> names_to_quote() {
  std::vector<std::string> names = {"",     "w",        "layer.0.weight", "a\"b",    "a\\b",
                                    "a\nb", "\x01\x1f", "\x7f",           "\xC3\xA9"};
  // Around the 80-byte cut, with a 2-, 3- and 4-byte character across it.
  for (const std::size_t length : {79U, 80U, 81U, 200U}) names.push_back(std::string(length, 'x'));
  for (const std::string_view wide : {"\xC3\xA9", "\xE2\x80\xAE", "\xF0\x9F\x98\x80"}) {
    for (std::size_t before = 76; before <= 80; ++before) {
      names.push_back(std::string(before, 'x') + std::string(wide) + "tail");
    }
  }
  // Escapes that straddle the cut: every shown byte may expand to 4.
  names.push_back(std::string(100, '\x01'));
  return names;
}

TEST(Messages, QuotedSizeIsExact) {
  for (const std::string& name : names_to_quote()) {
    EXPECT_EQ(quoted_size(name), stguard::detail::quoted(name).size())
        << stguard::detail::quoted(name);
  }
}

TEST(Messages, QuotingRules) {
  EXPECT_EQ(stguard::detail::quoted("w"), "\"w\"");
  EXPECT_EQ(stguard::detail::quoted("a\"b\\c\nd\x01\x7f"), "\"a\\\"b\\\\c\\nd\\x01\\x7f\"");
  EXPECT_EQ(stguard::detail::quoted(std::string(80, 'x')), "\"" + std::string(80, 'x') + "\"");
  EXPECT_EQ(stguard::detail::quoted(std::string(81, 'x')), "\"" + std::string(80, 'x') + "\"...");
  // A character across the cut is left out whole: the message stays UTF-8.
  EXPECT_EQ(stguard::detail::quoted(std::string(79, 'x') + "\xC3\xA9"),
            "\"" + std::string(79, 'x') + "\"...");
}

TEST(Messages, PiecesInOrder) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(message("a ", std::uint64_t{0}, " b ", kMax, " c"), "a 0 b 18446744073709551615 c");
  EXPECT_EQ(message("tensor ", Quoted{"x\ny"}, ": ", std::uint64_t{42}), "tensor \"x\\ny\": 42");
  const std::string_view view = "view";
  EXPECT_EQ(message(view, std::string("string"), "literal"), "viewstringliteral");
  for (const std::string& name : names_to_quote()) {
    EXPECT_EQ(message("<", Quoted{name}, ">"), "<" + stguard::detail::quoted(name) + ">");
  }
}

}  // namespace
