// base/text.h, hex.h, decimal.h, sha256.h, path.h, json.h: pure functions.
#include "base/text.h"

#include <gtest/gtest.h>

#include <string>

#include "base/decimal.h"
#include "base/hex.h"
#include "base/json.h"
#include "base/path.h"
#include "base/sha256.h"

namespace stguard::base {
namespace {

TEST(TerminalSafe, EscapesControlsBidiAndInvalidBytes) {
  EXPECT_EQ(terminal_safe("plain text é"), "plain text é");
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(terminal_safe("\x1b[31m\x7f"), "\\x1b[31m\\x7f");
  EXPECT_EQ(terminal_safe("evil\xE2\x80\xAEtxt.exe"), "evil\\u{202e}txt.exe");  // RLO
  EXPECT_EQ(terminal_safe("\xC2\x85"), "\\u{0085}");                            // C1 NEL
  EXPECT_EQ(terminal_safe("\xD8\x9C\xE2\x80\xA8\xEF\xBB\xBF"), "\\u{061c}\\u{2028}\\u{feff}");
  EXPECT_EQ(terminal_safe("\xff\xC0\x80\xED\xA0\x80"), "\\xff\\xc0\\x80\\xed\\xa0\\x80");
  EXPECT_EQ(terminal_safe("a\\b"), "a\\\\b");
  EXPECT_EQ(terminal_safe("a\\b", {.keep_backslash = true}), "a\\b");
  EXPECT_EQ(terminal_safe("a\nb", {.keep_newlines = true}), "a\nb");
}

TEST(TerminalSafe, CutsWholePiecesWithAnEllipsis) {
  EXPECT_EQ(terminal_safe("abcdef", {.max_chars = 4}), "abc\xE2\x80\xA6");
  EXPECT_EQ(terminal_safe("abcd", {.max_chars = 4}), "abcd");
  // An escape is never split: "\n" is two characters of output.
  EXPECT_EQ(terminal_safe("ab\ncd", {.max_chars = 4}), "ab\xE2\x80\xA6");
  EXPECT_EQ(terminal_safe("\xC3\xA9\xC3\xA9\xC3\xA9", {.max_chars = 2}), "\xC3\xA9\xE2\x80\xA6");
}

TEST(TerminalSafe, OnePieceIsWhatTheWholeTextShows) {
  // Escapers of other media build on the piece: it must be the policy itself.
  for (const std::string_view text :
       {"a", "\n", "\t", "\r", "\\", "\x01", "\x7f", "\xC2\x9B", "\xE2\x80\xAE", "\xEF\xBB\xBF",
        "\xff", "\xC3\xA9", "\xF0\x9F\x98\x80"}) {
    for (const SafeTextOptions& options :
         {SafeTextOptions{}, SafeTextOptions{.keep_backslash = true},
          SafeTextOptions{.keep_newlines = true}}) {
      std::size_t pos = 0;
      const char32_t cp = next_code_point(text, pos);
      std::string piece = "<";
      append_terminal_safe(piece, cp, text.substr(0, pos), options);
      EXPECT_EQ(piece, "<" + terminal_safe(text.substr(0, pos), options)) << text;
    }
  }
}

TEST(Utf8, DecodesAndCounts) {
  EXPECT_TRUE(is_valid_utf8("h\xC3\xA9\xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\x80"));      // overlong
  EXPECT_EQ(code_point_count("h\xC3\xA9\xF0\x9F\x98\x80"), 3u);
  EXPECT_EQ(lossy_utf8("a\xff"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  std::string out;
  append_utf8(out, 0x1F600);
  EXPECT_EQ(out, "\xF0\x9F\x98\x80");
}

TEST(Hex, RoundTripsAndRejects) {
  const std::uint8_t bytes[] = {0x00, 0xAB, 0xff};
  EXPECT_EQ(to_hex(bytes), "00abff");
  std::uint8_t back[3];
  EXPECT_TRUE(from_hex("00ABff", back));
  EXPECT_EQ(back[1], 0xAB);
  EXPECT_FALSE(from_hex("00abf", back));
  EXPECT_FALSE(from_hex("00abfg", back));
  EXPECT_EQ(to_hex_number(0), "0");
  EXPECT_EQ(to_hex_number(0x202e), "202e");
}

TEST(Decimal, StrictU64) {
  EXPECT_EQ(parse_u64("0"), 0u);
  EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_u64("18446744073709551616"));
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1.0"}) {
    EXPECT_FALSE(parse_u64(bad)) << bad;
  }
  EXPECT_EQ(parse_u64_or_hex("0x1F"), 31u);
  EXPECT_EQ(parse_u64_or_hex("0xFFFFFFFFFFFFFFFF"), UINT64_MAX);
  EXPECT_FALSE(parse_u64_or_hex("0x10000000000000000"));
  EXPECT_FALSE(parse_u64_or_hex("0x"));
}

TEST(Decimal, ScaledDecimal) {
  EXPECT_EQ(parse_scaled_decimal("2.5", 3), 2500u);
  EXPECT_EQ(parse_scaled_decimal("7", 3), 7000u);
  EXPECT_EQ(parse_scaled_decimal("0.001", 3), 1u);
  EXPECT_EQ(parse_scaled_decimal("86400", 3), 86'400'000u);
  for (const char* bad : {"", ".5", "5.", "-1", "+1", "1e3", "0.0001", "1.2.3", "1,5", " 1"}) {
    EXPECT_FALSE(parse_scaled_decimal(bad, 3)) << bad;
  }
  EXPECT_FALSE(parse_scaled_decimal("18446744073709551615", 3));
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(std::string_view("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(std::string_view("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 incremental;
  incremental.update(std::string_view("a"));
  incremental.update(std::string_view("bc"));
  EXPECT_EQ(to_hex(incremental.finish()), sha256_hex(std::string_view("abc")));
  const auto digest = digest_from_hex(sha256_hex(std::string_view("abc")));
  ASSERT_TRUE(digest);
  EXPECT_EQ(*digest, sha256(std::string_view("abc")));
  EXPECT_FALSE(digest_from_hex("abc"));
}

TEST(SafeRelativeName, JudgesEachComponent) {
  EXPECT_EQ(safe_relative_name("./a//b.safetensors").value(), "a/b.safetensors");
  EXPECT_EQ(safe_relative_name("a..b/c...d").value(), "a..b/c...d");
  EXPECT_EQ(safe_relative_name("sub//x/./y").value(), "sub/x/y");
  EXPECT_EQ(safe_relative_name("...").value(), "...");  // a legal file name
  for (const char* bad :
       {"", "/etc/passwd", "../x", "..", "a/../b", "a/../../x", "a\\b", "C:\\x", ".", "./"}) {
    const Result<std::string> name = safe_relative_name(bad);
    ASSERT_FALSE(name) << bad;
    EXPECT_FALSE(name.error().message.empty());
  }
  EXPECT_FALSE(safe_relative_name(std::string_view("a\0b", 3)));
}

TEST(JsonLine, ReplacesInvalidUtf8) {
  nlohmann::ordered_json record;
  record["file"] = std::string("a\xff");
  record["n"] = 1;
  EXPECT_EQ(json_line(record), "{\"file\":\"a\xEF\xBF\xBD\",\"n\":1}");
}

}  // namespace
}  // namespace stguard::base
