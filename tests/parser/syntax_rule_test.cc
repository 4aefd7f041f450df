// Which reason wins when a header has a JSON syntax error and other faults
// (docs/reasons.md, "Order of checks"): a syntax error in the header's value
// is HEADER_NOT_JSON at that error, in both profiles, whatever faults come
// before it; only strict's first-byte check (HEADER_BAD_START) and the
// UTF-8 check outrank it. Bytes after the end of the value are judged by the
// padding rules, and only when the value has no fault.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace
