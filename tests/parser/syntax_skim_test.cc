// The skim (parser/src/json_syntax_skim.h) against the JSON lexer's syntax
// pass: never more lenient; where it names a fault, the same offset and
// message as the lexer's pass from the beginning; and the lexer's pass from
// the point it gives (where it leaves the fault to the lexer) finds the same
// first syntax error as from the beginning.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "parser/src/json_syntax.h"
#include "parser/src/json_syntax_skim.h"
#include "parser/src/kernels/kernels.h"
#include "stguard/simd.h"
#include "tests/support/byte_edits.h"

namespace {

using stguard::detail::read_json_syntax_error;
using stguard::detail::skim_json_syntax;

const stguard::detail::Kernels& Baseline() {
  return stguard::detail::kernels_for(stguard::SimdPath::kBaseline);
}

struct Agreement {
  bool skim_well_formed;
  bool named;          // the skim named the fault itself
  bool resumed_later;  // left to the lexer, whose pass starts after where the skim did
};

// Checks the skim of `doc` (from `member_at`, or the beginning) against the
// lexer's pass, and says what the skim answered.
Agreement ExpectAgreement(const std::string& doc, std::size_t member_at = std::string::npos) {
  // A heap block of exactly the document's bytes, so that AddressSanitizer
  // sees a read before or after them.
  const std::unique_ptr<std::uint8_t[]> bytes(new std::uint8_t[doc.size() + (doc.empty() ? 1 : 0)]);
  std::memcpy(bytes.get(), doc.data(), doc.size());
  const std::uint8_t* begin = bytes.get();
  const std::uint8_t* end = begin + doc.size();
  const std::uint8_t* start = member_at == std::string::npos ? nullptr : begin + member_at;
  const std::optional<stguard::Error> lexer = read_json_syntax_error(begin, end, 8, Baseline());
  const stguard::detail::SyntaxSkim skim = skim_json_syntax(begin, end, start);
  if (skim.well_formed) {
    EXPECT_FALSE(lexer.has_value())
        << "the skim passed what the lexer refuses: " << doc << " (" << lexer->message << ")";
    return {true, false, false};
  }
  // The pass as the parser runs it: the skim's answer, or the lexer's from
  // the skim's resume point.
  const std::optional<stguard::Error> found =
      stguard::detail::find_json_syntax_error(begin, end, 8, Baseline(), start);
  EXPECT_EQ(lexer.has_value(), found.has_value()) << doc;
  if (lexer && found) {
    EXPECT_EQ(lexer->offset, found->offset) << doc;
    EXPECT_EQ(lexer->message, found->message) << doc;
  }
  const bool named = skim.fault != stguard::detail::SyntaxFaultKind::kNone;
  // The resume point holds either way.
  const std::optional<stguard::Error> resumed =
      read_json_syntax_error(begin, end, 8, Baseline(), skim.resume);
  EXPECT_EQ(lexer.has_value(), resumed.has_value()) << doc;
  if (lexer && resumed) {
    EXPECT_EQ(lexer->offset, resumed->offset) << doc;
    EXPECT_EQ(lexer->message, resumed->message) << doc;
  }
  return {false, named, skim.resume.at != start};
}

TEST(SyntaxSkim, ReadsTheGrammarAsTheLexerDoes) {
  // Well-formed, and within the skim: it says so itself.
  for (const std::string doc :
       {"{}", "[]", " \t\r\n{ \"a\" : [ 1 , -0.5e+3 , 0 , 0E-0 , 12.25 ] }", "[true,false,null]",
        "\"x\\\"\\\\\\/\\b\\f\\n\\r\\ty\"", "-0", "0.0e1", "[[[{}]],{\"\":{}}]", "123 trailing",
        "{\"k\":\"\x7f\xc3\xa9\"} x", "null", "[1]]"}) {
    EXPECT_TRUE(ExpectAgreement(doc).skim_well_formed) << doc;
  }
  // Malformed.
  for (const std::string doc : {"",
                                " ",
                                "{",
                                "[1,]",
                                "{,}",
                                "{\"a\" 1}",
                                "{\"a\":}",
                                "[01]",
                                "[-]",
                                "[1.]",
                                "[1.e3]",
                                "[1e]",
                                "[1e+]",
                                "[.5]",
                                "[+1]",
                                "[truE]",
                                "[nul]",
                                "[fals]",
                                "[tru",
                                "[\"a\tb\"]",
                                "[\"\\x\"]",
                                "[\"\\ud800\"]",
                                "{\"a\":1]",
                                "[1}",
                                "[1 2]",
                                "{\"a\":1,}",
                                "{\"a\"\n:\n1\n,\n\"b\"\n:\n[\n}",
                                "\x01",
                                "{\"\x01\":1}",
                                "[1,\"x",
                                "{\"a\":tru}"}) {
    EXPECT_FALSE(ExpectAgreement(doc).skim_well_formed) << doc;
  }
  // Each way the skim names a fault, in the middle and at the end of the
  // header: the lexer's offset and message.
  for (const std::string doc :
       {"[1.", "[1.x]", "[1e", "[1E-", "[1e+x]", "[-", "[-x]", "-01", "[-01]", "[0 1]", "01", "[0",
        "[t", "[tx]", "[fa", "[falsE]", "[n", "[nulL]", "{\"a\"", "{\"a\":", "{\"a\" :x}", "[\"\\",
        "[\"\\q\"]", "[\"ab", "{\"a\x1f\":1}", "[\"a\nb\"]", "[1", "{\"a\":1", "{\"a\":1 ",
        "{\"a\":[1,2}", "{\"a\":{\"b\":1]}", "[\xc3\xa9]", "[\x7f]", " ", "{", "{\"a\":1,", "[1,",
        "{,", "[\"x\"\"y\"]",
        // \u escapes: hex digits, lone surrogates, a pair cut short.
        "[\"\\u00\"]", "[\"\\u00g0\"]", "[\"\\u", "[\"\\ud800\"]", "[\"\\udc00\"]",
        "[\"\\ud800\\u0041\"]", "[\"\\ud800\\", "[\"\\ud800\\udc0", "{\"\\uD83D\\uDE00\\x\":1}",
        "[\"\\u0041\\u00e9\x01\"]"}) {
    const Agreement a = ExpectAgreement(doc);
    EXPECT_FALSE(a.skim_well_formed) << doc;
    EXPECT_TRUE(a.named) << doc;
  }
  // What it leaves to the lexer: an empty header.
  const Agreement empty = ExpectAgreement("");
  EXPECT_FALSE(empty.skim_well_formed);
  EXPECT_FALSE(empty.named);
  // Escapes it reads through.
  for (const std::string doc :
       {"[\"\\u0041\"]", "[\"\\ud83d\\ude00\\u0000\\n\"]", "{\"\\u00e9\\\"\":\"\\/\"}"}) {
    EXPECT_TRUE(ExpectAgreement(doc).skim_well_formed) << doc;
  }
}

// The \u escape reader is shared by the lexer and the skim, so their
// agreement cannot test it: these offsets and messages are written out.
TEST(SyntaxSkim, UnicodeEscapeFaultsAtTheirBytes) {
  const std::string lead = "invalid JSON: lone leading surrogate in a \\u escape";
  const std::string trail = "invalid JSON: lone trailing surrogate in a \\u escape";
  const std::string hex = "invalid JSON: expected a hex digit in a \\u escape, found ";
  const struct {
    std::string doc;
    std::uint64_t offset;  // from 8, the header's first byte
    std::string message;
  } cases[] = {
      {"[\"\\ud800\"]", 8 + 2, lead},
      {"[\"\\udbff\\u0041\"]", 8 + 2, lead},
      {"[\"\\ud800\\udbff\"]", 8 + 2, lead},
      {"[\"\\ud800\\", 8 + 2, lead},
      {"[\"\\udc00\"]", 8 + 2, trail},
      {"[\"\\udfff\"]", 8 + 2, trail},
      {"[\"\\u00g0\"]", 8 + 6, hex + "'g'"},
      {"[\"\\u", 8 + 4, hex + "the end of the header"},
      {"[\"\\ud800\\udc0", 8 + 13, hex + "the end of the header"},
      {"[\"\\ud800\\udc0\x01\"]", 8 + 13, hex + "byte 0x01"},
  };
  for (const auto& c : cases) {
    const auto* begin = reinterpret_cast<const std::uint8_t*>(c.doc.data());
    const auto* end = begin + c.doc.size();
    for (const std::optional<stguard::Error>& e :
         {stguard::detail::find_json_syntax_error(begin, end, 8, Baseline()),
          read_json_syntax_error(begin, end, 8, Baseline())}) {
      ASSERT_TRUE(e.has_value()) << c.doc;
      EXPECT_EQ(e->offset, c.offset) << c.doc;
      EXPECT_EQ(e->message, c.message) << c.doc;
    }
  }
  // The edges of the surrogate ranges that are not faults.
  for (const std::string doc :
       {"[\"\\ud7ff\"]", "[\"\\ue000\"]", "[\"\\udbff\\udfff\"]", "[\"\\ud800\\udc00\"]"}) {
    EXPECT_TRUE(ExpectAgreement(doc).skim_well_formed) << doc;
  }
}

TEST(SyntaxSkim, ResumesAtTheLastKeyOrElementBeforeTheFault) {
  const std::string doc = "{\"a\":[1,2],\"b\":{\"c\":[3]},\"d\":[4, 5,],\"e\":5}";
  const Agreement from_b = ExpectAgreement(doc, doc.find("\"b\""));
  EXPECT_FALSE(from_b.skim_well_formed);
  EXPECT_TRUE(from_b.resumed_later);
  const auto* begin = reinterpret_cast<const std::uint8_t*>(doc.data());
  const stguard::detail::SyntaxSkim skim = skim_json_syntax(begin, begin + doc.size(), nullptr);
  // At the element 5 of "d", inside the top-level object and that array.
  EXPECT_EQ(skim.resume.at, begin + doc.find("5,]"));
  ASSERT_EQ(skim.resume.depth, 2U);
  EXPECT_TRUE(skim.resume.objects[0]);
  EXPECT_FALSE(skim.resume.objects[1]);
  // A fault in a nested object: at its last key, with both objects open.
  const std::string nested = "{\"a\":{\"b\":1,\"c\" 2}}";
  const auto* nb = reinterpret_cast<const std::uint8_t*>(nested.data());
  const stguard::detail::SyntaxSkim in_nested = skim_json_syntax(nb, nb + nested.size(), nullptr);
  EXPECT_EQ(in_nested.resume.at, nb + nested.find("\"c\""));
  EXPECT_EQ(in_nested.resume.depth, 2U);
  ExpectAgreement(nested);
  // A container that closed before the fault is not resumed in; one just
  // opened, with nothing begun in it, is not either.
  const std::pair<std::string, std::string> cases[] = {
      {"{\"a\":[[1,2],[3]],\"b\" 1}", "\"b\" 1"},  // at "b", not in the closed arrays
      {"{\"a\":[[1,2],[,]]}", "[,]"},              // at the array, not in it
  };
  for (const auto& [closed, resume] : cases) {
    const auto* cb = reinterpret_cast<const std::uint8_t*>(closed.data());
    EXPECT_EQ(skim_json_syntax(cb, cb + closed.size(), nullptr).resume.at, cb + closed.find(resume))
        << closed;
    ExpectAgreement(closed);
  }
}

TEST(SyntaxSkim, NamesFaultsInNestingDeeperThanItsStack) {
  // Past kSkimStackDepth levels the skim's stack moves to the heap and grows
  // (twice and more for 3,000 levels); its resume point stays within the
  // levels it keeps, which the lexer's pass from there reads the same.
  for (const std::size_t levels : {stguard::detail::kSkimStackDepth + 200, std::size_t{3000}}) {
    const std::string open(levels, '['), close(levels, ']');
    EXPECT_TRUE(ExpectAgreement("{\"a\":" + open + close + "}").skim_well_formed) << levels;
    for (const std::string& doc :
         {"{\"a\":" + open + close.substr(1) + "}", "{\"a\":" + open + "1,]" + close + "}",
          "{\"a\":" + open + "{\"k\" 1}" + close + "}", open + "\"\x01"}) {
      const Agreement a = ExpectAgreement(doc);
      EXPECT_FALSE(a.skim_well_formed) << levels;
      EXPECT_TRUE(a.named) << levels;
    }
  }
  // Deep, but within its stack.
  const std::size_t fits = stguard::detail::kSkimStackDepth / 2;
  EXPECT_TRUE(ExpectAgreement("[" + std::string(fits, '[') + std::string(fits, ']') + "]")
                  .skim_well_formed);
}

// Mutated JSON documents, from seeds that use every part of the grammar.
TEST(SyntaxSkim, AgreesWithTheLexerOnMutatedDocuments) {
  const std::vector<std::string> seeds = {
      R"({"__metadata__":{"format":"pt","k":"v"},"a":{"dtype":"F32","shape":[2,3],)"
      R"("data_offsets":[0,24]},"b":{"dtype":"U8","shape":[],"data_offsets":[24,25]}})",
      "{ \"x\" : [ -1.5e-3 , 0 , 10E+2 , true , false , null , \"s\\n\\\"t\" ] ,\n"
      " \"y\" : { \"z\" : [ [ ] , { } , [ { \"w\" : 0.0 } ] ] } }",
      R"({"a":"\u00e9\ud83d\ude00","b":[1,2,{"c":"\/\b\f\r\t"}]})",
      "[1,[2,[3,[4,{\"k\":[5]}]]]]",
  };
  const std::string alphabet = "{}[],:\"\\ \n\t0123456789-+.eEtrufalsnbx\x01\x7f";
  std::mt19937 rng(20261204);
  int well_formed = 0, named = 0, left_to_lexer = 0, resumed_later = 0, total = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string doc = seeds[rng() % seeds.size()];
    stguard_test::EditRandomBytes(doc, alphabet, [&](std::size_t n) { return rng() % n; });
    const Agreement a = ExpectAgreement(doc);
    ++total;
    well_formed += a.skim_well_formed ? 1 : 0;
    named += a.named ? 1 : 0;
    left_to_lexer += !a.skim_well_formed && !a.named ? 1 : 0;
    resumed_later += a.resumed_later ? 1 : 0;
    if (::testing::Test::HasFailure()) break;  // one document is enough to see
  }
  EXPECT_EQ(total, 20000);
  // Every answer was put to the test many times.
  EXPECT_GT(well_formed, 1500);
  EXPECT_GT(named, 15000);
  EXPECT_GT(resumed_later, 5000);
  std::printf("well-formed %d, named by the skim %d, left to the lexer %d\n", well_formed, named,
              left_to_lexer);
}

}  // namespace
