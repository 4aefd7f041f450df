// The skim (parser/src/json_syntax_skim.h) against the JSON lexer's syntax
// pass: never more lenient, and where it finds a fault, the lexer's pass
// from the point it gives finds the same first syntax error as from the
// beginning.
#include <gtest/gtest.h>

#include <cstdint>
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
  bool resumed_later;  // the lexer's pass starts after where the skim did
};

// Checks the skim of `doc` (from `member_at`, or the beginning) against the
// lexer's pass, and says what the skim answered.
Agreement ExpectAgreement(const std::string& doc, std::size_t member_at = std::string::npos) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(doc.data());
  const auto* end = begin + doc.size();
  const std::uint8_t* start = member_at == std::string::npos ? nullptr : begin + member_at;
  const std::optional<stguard::Error> lexer = read_json_syntax_error(begin, end, 8, Baseline());
  const stguard::detail::SyntaxSkim skim = skim_json_syntax(begin, end, start);
  if (skim.well_formed) {
    EXPECT_FALSE(lexer.has_value())
        << "the skim passed what the lexer refuses: " << doc << " (" << lexer->message << ")";
    return {true, false};
  }
  const std::optional<stguard::Error> resumed =
      read_json_syntax_error(begin, end, 8, Baseline(), skim.resume);
  EXPECT_EQ(lexer.has_value(), resumed.has_value()) << doc;
  if (lexer && resumed) {
    EXPECT_EQ(lexer->offset, resumed->offset) << doc;
    EXPECT_EQ(lexer->message, resumed->message) << doc;
  }
  return {false, skim.resume.at != start};
}

TEST(SyntaxSkim, ReadsTheGrammarAsTheLexerDoes) {
  // Well-formed, and within the skim: it says so itself.
  for (const std::string doc :
       {"{}", "[]", " \t\r\n{ \"a\" : [ 1 , -0.5e+3 , 0 , 0E-0 , 12.25 ] }", "[true,false,null]",
        "\"x\\\"\\\\\\/\\b\\f\\n\\r\\ty\"", "-0", "0.0e1", "[[[{}]],{\"\":{}}]", "123 trailing",
        "{\"k\":\"\x7f\xc3\xa9\"} x", "null", "[1]]"}) {
    EXPECT_TRUE(ExpectAgreement(doc).skim_well_formed) << doc;
  }
  // Malformed, or beyond the skim (a \u escape): the lexer settles it.
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
                                "[\"\\u0041\"]",
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

TEST(SyntaxSkim, NestingDeeperThanItKeepsGoesToTheLexer) {
  const std::size_t levels = stguard::detail::kMaxSkimDepth + 200;
  const std::string deep = "{\"a\":" + std::string(levels, '[') + std::string(levels, ']') + "}";
  EXPECT_FALSE(ExpectAgreement(deep).skim_well_formed);
  const std::string deep_broken =
      "{\"a\":" + std::string(levels, '[') + std::string(levels - 1, ']') + "}";
  EXPECT_FALSE(ExpectAgreement(deep_broken).skim_well_formed);
  // Deep, but not past what it keeps.
  const std::size_t fits = stguard::detail::kMaxSkimDepth / 2;
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
  int well_formed = 0, resumed_later = 0, total = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string doc = seeds[rng() % seeds.size()];
    stguard_test::EditRandomBytes(doc, alphabet, [&](std::size_t n) { return rng() % n; });
    const Agreement a = ExpectAgreement(doc);
    ++total;
    well_formed += a.skim_well_formed ? 1 : 0;
    resumed_later += a.resumed_later ? 1 : 0;
    if (::testing::Test::HasFailure()) break;  // one document is enough to see
  }
  EXPECT_EQ(total, 20000);
  // Both answers were put to the test many times.
  EXPECT_GT(well_formed, 1500);
  EXPECT_GT(resumed_later, 5000);
}

}  // namespace
