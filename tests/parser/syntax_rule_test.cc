// Which reason wins when a header has a JSON syntax error and other faults
// (docs/reasons.md, "Order of checks"): a syntax error in the header's value
// is HEADER_NOT_JSON at that error, in both profiles, whatever faults come
// before it; only strict's first-byte check (HEADER_BAD_START) and the
// UTF-8 check outrank it. Bytes after the end of the value are judged by the
// padding rules, and only when the value has no fault.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "parser/src/header_scanner.h"
#include "parser/src/json_syntax.h"
#include "parser/src/kernels/kernels.h"
#include "tests/support/byte_edits.h"
#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Profile;
using stguard::Reason;
using stguard_test::header_at;
using stguard_test::Rejects;

constexpr Profile kBoth[] = {Profile::kStrict, Profile::kReference};

// Both entry points (the full parse and the summary-only check) agree.
void ExpectRejects(const std::string& header, Profile profile, Reason reason,
                   std::uint64_t offset) {
  const std::vector<std::uint8_t> file = stguard_test::make_file(header);
  const stguard::ParseOptions options = stguard_test::WithProfile(profile);
  EXPECT_TRUE(Rejects(stguard::parse_header(file, file.size(), options), reason, offset))
      << stguard::profile_name(profile) << ", parse_header: " << header;
  EXPECT_TRUE(Rejects(stguard::validate_header(file, file.size(), options), reason, offset))
      << stguard::profile_name(profile) << ", validate_header: " << header;
}

void ExpectNotJsonInBoth(const std::string& header, std::uint64_t offset) {
  for (const Profile profile : kBoth) {
    ExpectRejects(header, profile, Reason::kHeaderNotJson, offset);
  }
}

const std::string kGood = R"("dtype":"U8","shape":[0],"data_offsets":[0,0])";

TEST(SyntaxRule, UnclosedArrayInAnEntry) {
  // Strict used to stop at the '[' (an entry must be an object).
  const std::string h = R"({"a": [1,2})";
  ExpectNotJsonInBoth(h, header_at(h, "}"));
}

TEST(SyntaxRule, UnterminatedStringAsAnEntry) {
  const std::string h = R"({"a": "x})";
  ExpectNotJsonInBoth(h, 8 + h.size());  // the end of the header
}

TEST(SyntaxRule, SyntaxErrorAfterAGrammarFault) {
  // TENSOR_INVALID at the 5, then a trailing comma in another entry.
  const std::string h = R"({"a":5,"b":{"dtype":"U8","shape":[0,],"data_offsets":[0,0]}})";
  ExpectNotJsonInBoth(h, header_at(h, ",]") + 1);
}

TEST(SyntaxRule, SyntaxErrorFarPastTheFault) {
  // The syntax pass reads on past the fault's member however far the
  // syntax error is: a short and a long way, the same answers.
  for (const std::size_t filler : {std::size_t{100}, std::size_t{100'000}}) {
    const std::string front =
        R"({"a":5,"__metadata__":{"p":")" + std::string(filler, 'x') + R"("},)";
    const std::string broken = front + R"("c":[1,]})";
    ExpectNotJsonInBoth(broken, header_at(broken, ",]") + 1);
    const std::string well_formed = front + R"("c":[1]})";
    const std::vector<std::uint8_t> file = stguard_test::make_file(well_formed);
    for (const Profile profile : kBoth) {
      EXPECT_TRUE(
          Rejects(stguard::parse_header(file, file.size(), stguard_test::WithProfile(profile)),
                  Reason::kTensorInvalid, header_at(well_formed, "5")))
          << stguard::profile_name(profile) << " " << filler;
    }
  }
}

TEST(SyntaxRule, GrammarFaultAfterASyntaxError) {
  // The syntax error comes first: nothing changes, in both profiles.
  const std::string h = R"({"a":{"dtype":"U8",,"shape":[0],"data_offsets":[0,0]},"b":5})";
  ExpectNotJsonInBoth(h, header_at(h, ",,") + 1);
}

TEST(SyntaxRule, SyntaxErrorAfterARepeatedKey) {
  // Strict: DUPLICATE_KEY at the second "a" (found after the scan), then a
  // bad literal.
  const std::string h =
      "{\"b\":{" + kGood + "},\"a\":{" + kGood + "},\"a\":{" + kGood + "},\"c\":tru}";
  ExpectNotJsonInBoth(h, header_at(h, "tru}") + 3);
  // The same with the repeat noticed at once (names out of order from the start).
  const std::string h2 = "{\"a\":{" + kGood + "},\"a\":{" + kGood + "},\"c\":{" + kGood + ",}}";
  ExpectNotJsonInBoth(h2, header_at(h2, ",}") + 1);
}

TEST(SyntaxRule, SyntaxErrorLaterInTheMemberOfTheFault) {
  // DTYPE_INVALID in the second member, then a trailing comma in the same
  // member: the syntax pass starts at that member's key, not at the fault
  // (which is not where a key could be).
  const std::string h =
      "{\"a\":{" + kGood + "},\"b\":{\"dtype\":\"X\",\"shape\":[0,],\"data_offsets\":[0,0]}}";
  ExpectNotJsonInBoth(h, header_at(h, ",]") + 1);
  // The same with whitespace around the keys and separators.
  const std::string h2 = "{ \"a\" : {" + kGood + "} ,\n \"b\" :{\"dtype\":\"X\",\"shape\":[0,]}}";
  ExpectNotJsonInBoth(h2, header_at(h2, ",]") + 1);
}

TEST(SyntaxRule, SyntaxErrorAfterAFaultAtAKey) {
  // LIMIT_EXCEEDED at the second tensor's key (max_tensors 1), then a
  // missing ':' in a later member.
  const std::string h = "{\"a\":{" + kGood + "},\"b\":{" + kGood + "},\"c\" 1}";
  const std::vector<std::uint8_t> file = stguard_test::make_file(h);
  for (const Profile profile : kBoth) {
    stguard::ParseOptions options = stguard_test::WithProfile(profile);
    options.limits.max_tensors = 1;
    EXPECT_TRUE(Rejects(stguard::parse_header(file, file.size(), options), Reason::kHeaderNotJson,
                        header_at(h, "1}")))
        << stguard::profile_name(profile);
  }
}

TEST(SyntaxRule, InMetadata) {
  // METADATA_INVALID at the 1, then an unterminated string.
  const std::string h = R"({"__metadata__":{"k":1,"j":"x}})";
  ExpectNotJsonInBoth(h, 8 + h.size());
  // METADATA_INVALID at the array, which never closes properly.
  const std::string h2 = R"({"__metadata__":{"k":[1,2}})";
  ExpectNotJsonInBoth(h2, header_at(h2, "2}") + 1);
  // Strict: U+0000 in a key (NAME_INVALID), then a missing colon.
  const std::string h3 = R"({"__metadata__":{"\u0000":"v","k" "v"}})";
  ExpectNotJsonInBoth(h3, header_at(h3, "\"k\" ") + 4);
}

TEST(SyntaxRule, InAShape) {
  // SHAPE_INVALID at -1, then a trailing comma.
  const std::string h = R"({"a":{"dtype":"U8","shape":[-1,2,],"data_offsets":[0,0]}})";
  ExpectNotJsonInBoth(h, header_at(h, ",]") + 1);
  // A number with a leading zero after a fractional dimension.
  const std::string h2 = R"({"a":{"dtype":"U8","shape":[1.5,016],"data_offsets":[0,0]}})";
  ExpectNotJsonInBoth(h2, header_at(h2, "016"));
}

TEST(SyntaxRule, InOffsets) {
  // OFFSETS_INVALID at the third element, then '}' where a value belongs.
  const std::string h = R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0,5,}})";
  ExpectNotJsonInBoth(h, header_at(h, ",}") + 1);
  // A bad escape inside a string used as an offset.
  const std::string h2 = R"({"a":{"dtype":"U8","shape":[0],"data_offsets":["\q",0]}})";
  ExpectNotJsonInBoth(h2, header_at(h2, "\\q"));
}

TEST(SyntaxRule, InADtype) {
  // DTYPE_INVALID (an unknown name), then a raw tab in a later string.
  const std::string h = "{\"a\":{\"dtype\":\"X\",\"shape\":[0],\"data_offsets\":[0,0]},\"b\t\":1}";
  ExpectNotJsonInBoth(h, header_at(h, "\t"));
}

TEST(SyntaxRule, DeepNestingThenASyntaxError) {
  // Strict: an unknown field (TENSOR_INVALID); reference: the nesting limit
  // (depth 128). Then 200 '[' closed by 199 ']' and a '}': a syntax error.
  const std::string prefix = "{\"a\":{" + kGood + ",\"x\":";
  const std::string h = prefix + std::string(200, '[') + std::string(199, ']') + "}}";
  ExpectNotJsonInBoth(h, 8 + prefix.size() + 200 + 199);
}

TEST(SyntaxRule, NestingPast64LevelsAndBack) {
  // 70 arrays open and close inside an array, then an object in it lacks a
  // ':' (the pass keeps 64 levels per word; the kinds below must survive).
  const std::string prefix = "{\"a\":{" + kGood + ",\"x\":[";
  const std::string h = prefix + std::string(70, '[') + std::string(70, ']') + ",{\"k\" 1}]}}";
  ExpectNotJsonInBoth(h, header_at(h, "1}"));
  // And an array that closes with '}' after the levels come back.
  const std::string h2 = prefix + std::string(70, '[') + std::string(70, ']') + "}}}";
  ExpectNotJsonInBoth(h2, 8 + prefix.size() + 140);
  // The entry's object, below the 64 levels, is still an object: a member
  // and then a trailing comma before its '}'.
  const std::string h3 = prefix + std::string(70, '[') + std::string(70, ']') + "],\"y\":1,}}";
  ExpectNotJsonInBoth(h3, header_at(h3, ",}") + 1);
}

TEST(SyntaxRule, DeepNestingAloneKeepsItsReason) {
  // Well-formed: the grammar decides (strict: unknown field; reference: the
  // nesting limit at the 126th bracket).
  const std::string prefix = "{\"a\":{" + kGood + ",\"x\":";
  const std::string h = prefix + std::string(200, '[') + std::string(200, ']') + "}}";
  ExpectRejects(h, Profile::kStrict, Reason::kTensorInvalid, header_at(h, "\"x\""));
  ExpectRejects(h, Profile::kReference, Reason::kHeaderNotJson, 8 + prefix.size() + 125);
}

TEST(SyntaxRule, StrictFirstByteComesFirst) {
  const std::string h = R"( {"a": [1,2})";
  ExpectRejects(h, Profile::kStrict, Reason::kHeaderBadStart, 8);
  ExpectRejects(h, Profile::kReference, Reason::kHeaderNotJson, header_at(h, "}"));
}

TEST(SyntaxRule, ReferenceNonObjectTopLevelThatIsNotJson) {
  // Reference stops at the '[' (the header must be an object); the array
  // never closes.
  const std::string h = "[1,2";
  ExpectRejects(h, Profile::kReference, Reason::kHeaderNotJson, 8 + h.size());
}

TEST(SyntaxRule, AfterTheValueTheValuesFaultComesFirst) {
  // The bytes after the value are judged only once the value has no fault.
  const std::string h = R"({"a":5}})";
  for (const Profile profile : kBoth) {
    ExpectRejects(h, profile, Reason::kTensorInvalid, header_at(h, "5"));
  }
}

// The header the upstream writer emits for zero tensors and an empty
// metadata map: the object ends after "{}" and the rest follows it. The
// message says so and quotes the rest (not "padding").
TEST(AfterTheEnd, UpstreamHeaderForZeroTensorsAndEmptyMetadata) {
  const std::string h = R"({},"__metadata__":{}})";
  ExpectRejects(h, Profile::kStrict, Reason::kHeaderBadPadding, 10);
  ExpectRejects(h, Profile::kReference, Reason::kHeaderNotJson, 10);
  const std::vector<std::uint8_t> file = stguard_test::make_file(h);
  for (const Profile profile : kBoth) {
    const auto result = stguard::parse(file, stguard_test::WithProfile(profile));
    ASSERT_FALSE(result.has_value());
    const std::string& message = result.error().message;
    EXPECT_NE(message.find("the header continues after its end"), std::string::npos) << message;
    EXPECT_NE(message.find(R"(",\"__metadata__\":{}}")"), std::string::npos) << message;
  }
}

TEST(AfterTheEnd, QuoteIsEscapedAndBounded) {
  const std::string h = "{}\x01\n" + std::string(10'000, 'x');
  const std::vector<std::uint8_t> file = stguard_test::make_file(h);
  for (const Profile profile : kBoth) {
    const auto result = stguard::parse(file, stguard_test::WithProfile(profile));
    ASSERT_FALSE(result.has_value());
    const std::string& message = result.error().message;
    EXPECT_EQ(result.error().offset, 10U);
    EXPECT_NE(message.find(R"("\x01\nxxx)"), std::string::npos) << message;
    EXPECT_LT(message.size(), 200U) << message;
  }
}

// The syntax pass started at a top-level key (as header.cc does after a fault
// in that member) answers as the lexer's pass from the beginning: the same
// error, at the same offset, with the same message, or none.
TEST(SyntaxPass, StartingAtAMemberAnswersAsFromTheBeginning) {
  const std::vector<std::string> well_formed = {
      R"("a":1)", R"( "b" : {"x":[1,2,{"y":null}],"z":"\"q"})", R"("c":"s\u0000t")"};
  const std::vector<std::string> broken = {R"("d":[1,2,])", R"("e":tru)", R"("f":{"g" 1})",
                                           R"("h":"x)", R"("i":[{]})"};
  std::vector<std::string> members = well_formed;
  members.insert(members.end(), broken.begin(), broken.end());
  const auto is_well_formed = [&](const std::string& m) {
    return std::find(well_formed.begin(), well_formed.end(), m) != well_formed.end();
  };
  const stguard::detail::Kernels& kernels =
      stguard::detail::kernels_for(stguard::SimdPath::kBaseline);
  int resumed = 0;
  for (const std::string& m0 : members) {
    for (const std::string& m1 : members) {
      for (const std::string& m2 : members) {
        const std::string h = "{" + m0 + "," + m1 + ",\n" + m2 + "}";
        const auto* begin = reinterpret_cast<const std::uint8_t*>(h.data());
        const auto* end = begin + h.size();
        const auto from_start = stguard::detail::find_json_syntax_error(begin, end, 8, kernels);
        const std::size_t keys[] = {h.find('"'), h.find('"', 1 + m0.size() + 1),
                                    h.find('"', 1 + m0.size() + 1 + m1.size() + 2)};
        const bool prefix_ok[] = {true, is_well_formed(m0),
                                  is_well_formed(m0) && is_well_formed(m1)};
        for (int k = 0; k < 3; ++k) {
          if (!prefix_ok[k]) continue;
          ++resumed;
          const auto resumed_answer =
              stguard::detail::find_json_syntax_error(begin, end, 8, kernels, begin + keys[k]);
          ASSERT_EQ(from_start.has_value(), resumed_answer.has_value()) << h << " from key " << k;
          if (!from_start) continue;
          EXPECT_EQ(from_start->offset, resumed_answer->offset) << h << " from key " << k;
          EXPECT_EQ(from_start->message, resumed_answer->message) << h << " from key " << k;
          EXPECT_EQ(resumed_answer->reason, Reason::kHeaderNotJson);
        }
      }
    }
  }
  EXPECT_GT(resumed, 500);
}

// header.cc skips the syntax pass, or starts it late, on three facts about
// where the scanner stopped. They hold on mutated headers, in both profiles:
// a value read whole has no syntax error; a syntax error the scanner stopped
// at is the one a pass from the beginning finds; otherwise the pass from the
// member in progress answers as the pass from the beginning.
TEST(SyntaxPass, WhereTheScannerStoppedSettlesWhatThePassWouldFind) {
  const std::vector<std::string> seeds = {
      "{\"__metadata__\":{\"format\":\"pt\"},\"a\":{" + kGood + "},\"b\":{" + kGood + "}}",
      "{ \"b\" : { \"shape\" : [ 2 , 3 ] , \"dtype\" : \"F32\" , \"data_offsets\" : [ 0 , 24 ] } ,"
      " \"a\" : [ \"U8\" , [ ] , [ 24 , 25 ] ] }",
      "{\"a\":{" + kGood +
          ",\"x\":[1,{\"y\":[true,null,-1.5e3]}]},\"a\":{\"dtype\":{\"U8\":null}}}",
      // Bytes after the object: when the edits leave the value well-formed,
      // the fault is past it (strict's padding rule, reference's trailing
      // characters) and the value was read whole.
      "{\"a\":{" + kGood + "}}\n",
      "{\"a\":{" + kGood + "},\"b\":{" + kGood + "}}  x",
  };
  const std::string alphabet = "{}[],:\"\\ \n0123456789-.eEtrufalsnxU8F32_";
  const stguard::detail::Kernels& kernels =
      stguard::detail::kernels_for(stguard::SimdPath::kBaseline);
  std::mt19937 rng(20261203);
  int whole = 0, at_syntax_error = 0, resumed = 0;
  for (int i = 0; i < 6000; ++i) {
    std::string h = seeds[rng() % seeds.size()];
    stguard_test::EditRandomBytes(h, alphabet, [&](std::size_t n) { return rng() % n; });
    const auto* begin = reinterpret_cast<const std::uint8_t*>(h.data());
    const auto* end = begin + h.size();
    const auto from_start = stguard::detail::find_json_syntax_error(begin, end, 8, kernels);
    for (const Profile profile : kBoth) {
      const stguard::ParseOptions options = stguard_test::WithProfile(profile);
      stguard::detail::Scratch scratch;
      stguard::detail::ScannedHeader scanned(scratch);
      stguard::detail::HeaderScanner scanner(begin, end, 8, options, scratch);
      if (scanner.scan(scanned)) continue;
      const stguard::Error fault = scanner.take_error();
      if (fault.reason == Reason::kHeaderBadStart) continue;
      if (scanner.value_read_whole()) {
        ++whole;
        EXPECT_FALSE(from_start.has_value()) << h;
      } else if (scanner.stopped_at_syntax_error()) {
        ++at_syntax_error;
        ASSERT_TRUE(from_start.has_value()) << h;
        EXPECT_EQ(from_start->offset, fault.offset) << h;
      } else {
        ++resumed;
        const auto late = stguard::detail::find_json_syntax_error(begin, end, 8, kernels,
                                                                  scanner.member_in_progress());
        ASSERT_EQ(from_start.has_value(), late.has_value()) << h;
        if (from_start) {
          EXPECT_EQ(from_start->offset, late->offset) << h;
          EXPECT_EQ(from_start->message, late->message) << h;
        }
      }
    }
  }
  // Each fact was put to the test many times.
  EXPECT_GT(whole, 100);
  EXPECT_GT(at_syntax_error, 2000);
  EXPECT_GT(resumed, 1000);
}

}  // namespace
