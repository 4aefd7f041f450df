// The parser against an independent JSON parser (nlohmann::json), over the
// pseudo-random files of tests/support/random_header.h (the same ones
// tests/parser/property_test.cc checks):
//   nlohmann rejects the header text => both profiles reject, with the reason
//   and offset docs/reasons.md's syntax rule gives for nlohmann's error
//   (fuzz/nlohmann_syntax.h translates its position); when a profile
//   accepts, nlohmann's reading of the same text agrees on every tensor and
//   metadata pair.
// Not in the parser's own test executable, which needs the parser and
// GoogleTest only.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/nlohmann_syntax.h"
#include "tests/support/file_builder.h"
#include "tests/support/random_header.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Dtype;
using stguard::Header;
using stguard::Profile;

// What nlohmann makes of the header text.
struct Oracle {
  bool syntax_ok = false;
  bool number_overflow = false;  // valid JSON nlohmann refuses (1e400): no verdict
  nlohmann::json value;
};

Oracle ReadWithNlohmann(const std::string& text) {
  Oracle o;
  try {
    o.value = nlohmann::json::parse(text);
    o.syntax_ok = true;
  } catch (const nlohmann::json::exception& e) {
    // 406 (thrown as out_of_range): a number too large for a double.
    o.number_overflow = e.id == 406;
  }
  return o;
}

std::optional<Dtype> OracleDtype(const nlohmann::json& v) {
  if (v.is_string()) return stguard::dtype_from_name(v.get<std::string>());
  if (v.is_object() && v.size() == 1 && v.begin().value().is_null()) {
    return stguard::dtype_from_name(v.begin().key());
  }
  return std::nullopt;
}

// Checks an accepted header against nlohmann's reading of the same text
// (duplicate keys: last one wins there too, as upstream).
void ExpectMatchesOracle(const Header& header, const nlohmann::json& doc, Profile profile,
                         const std::string& text) {
  ASSERT_TRUE(doc.is_object()) << text;
  std::size_t tensor_keys = 0;
  for (const auto& [key, value] : doc.items()) {
    if (key == "__metadata__") {
      if (value.is_null()) {
        EXPECT_EQ(profile, Profile::kReference) << "strict accepted null metadata: " << text;
        EXPECT_FALSE(header.metadata.has_value()) << text;
        continue;
      }
      ASSERT_TRUE(header.metadata.has_value()) << text;
      std::map<std::string, std::string> expected;
      for (const auto& [k, v] : value.items()) expected[k] = v.get<std::string>();
      std::map<std::string, std::string> got(header.metadata->begin(), header.metadata->end());
      EXPECT_EQ(got, expected) << text;
      EXPECT_EQ(header.metadata->size(), got.size()) << "metadata key listed twice: " << text;
      continue;
    }
    ++tensor_keys;
    const stguard::TensorInfo* t = header.find(key);
    ASSERT_NE(t, nullptr) << "missing tensor " << key << " in " << text;
    const nlohmann::json* dtype = nullptr;
    const nlohmann::json* shape = nullptr;
    const nlohmann::json* offsets = nullptr;
    if (value.is_array()) {
      EXPECT_EQ(profile, Profile::kReference) << text;
      ASSERT_EQ(value.size(), 3U) << text;
      dtype = &value[0];
      shape = &value[1];
      offsets = &value[2];
    } else {
      ASSERT_TRUE(value.is_object()) << text;
      dtype = &value.at("dtype");
      shape = &value.at("shape");
      offsets = &value.at("data_offsets");
    }
    EXPECT_EQ(OracleDtype(*dtype), t->dtype) << key << " in " << text;
    std::vector<std::uint64_t> expected_shape;
    for (const auto& d : *shape) {
      ASSERT_TRUE(d.is_number_unsigned() || (d.is_number_integer() && d.get<std::int64_t>() >= 0))
          << text;
      expected_shape.push_back(d.get<std::uint64_t>());
    }
    EXPECT_EQ(t->shape, expected_shape) << key << " in " << text;
    ASSERT_EQ(offsets->size(), 2U) << text;
    EXPECT_EQ(t->begin, (*offsets)[0].get<std::uint64_t>()) << text;
    EXPECT_EQ(t->end, (*offsets)[1].get<std::uint64_t>()) << text;
  }
  EXPECT_EQ(header.tensors.size(), tensor_keys) << text;
  if (!doc.contains("__metadata__")) {
    EXPECT_FALSE(header.metadata.has_value()) << text;
  }
}

TEST(JsonOracle, RandomHeadersAgreeWithNlohmann) {
  const int iterations = stguard_test::Iterations();
  stguard_test::Rng rng(stguard_test::Seed());
  stguard_test::HeaderGenerator gen(rng);
  int oracle_rejects = 0;
  for (int i = 0; i < iterations; ++i) {
    const std::vector<std::uint8_t> file = gen.Generate();
    const std::uint64_t n = stguard_test::load_u64_le(file);
    if (file.size() < 8 || n > file.size() - 8) continue;  // no header text to compare
    const std::string text(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    SCOPED_TRACE("iteration " + std::to_string(i) + ", header: " + text);

    const auto strict = stguard::parse(file, stguard_test::Strict());
    const auto reference = stguard::parse(file, stguard_test::Reference());
    const Oracle oracle = ReadWithNlohmann(text);
    if (!oracle.syntax_ok && !oracle.number_overflow) {
      ++oracle_rejects;
      EXPECT_FALSE(strict.has_value()) << "strict accepted JSON that nlohmann rejects";
      EXPECT_FALSE(reference.has_value()) << "reference accepted JSON that nlohmann rejects";
      if (!strict) {
        EXPECT_EQ(stguard_fuzz::check_syntax_reason(strict.error(), Profile::kStrict, text), "");
      }
      if (!reference) {
        EXPECT_EQ(stguard_fuzz::check_syntax_reason(reference.error(), Profile::kReference, text),
                  "");
      }
    }
    if (oracle.syntax_ok) {
      if (strict) ExpectMatchesOracle(*strict, oracle.value, Profile::kStrict, text);
      if (reference) ExpectMatchesOracle(*reference, oracle.value, Profile::kReference, text);
    }
    if (HasFatalFailure()) return;
  }
  // The generator must give nlohmann something to reject, or this proves little.
  EXPECT_GT(oracle_rejects, iterations / 20);
  std::printf("nlohmann rejects %d\n", oracle_rejects);
}

// Hand-picked headers for each row of fuzz/nlohmann_syntax.h's table, both
// profiles: stguard's HEADER_NOT_JSON offset against nlohmann's position.
TEST(JsonOracle, SyntaxErrorOffsetsMatchNlohmann) {
  const std::vector<std::string> headers = {
      R"({"a": [1,2})",
      R"({"a": "x})",
      R"({"a":trux})",
      R"({"a":tr)",
      R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":"\q"}})",
      R"({"a":"\udc00"})",
      R"({"a":"\ud800"})",
      R"({"a":"\ud800\n"})",
      R"({"a":"\ud800\u0041"})",
      R"({"a":"\ud800)",
      R"({"a":"\u12g4"})",
      R"({"a":{"dtype":"U8","shape":[016],"data_offsets":[0,0]}})",
      R"({"a":{"dtype":"U8","shape":[-01],"data_offsets":[0,0]}})",
      R"({"a":{"dtype":"U8","shape":[0-2],"data_offsets":[0,0]}})",
      R"({"a":{"dtype":"U8","shape":[08.],"data_offsets":[0,0]}})",
      R"({"a" 12})",
      R"({"a" "bc"})",
      R"({"a":5 true})",
      R"({"a":-})",
      R"({"a":1.})",
      R"({"a":1e})",
      R"({"a":[1,]})",
      R"({"__metadata__":{"k":1,"j":"x}})",
      "{\"a\":\"\t\"}",
      "{",
      "",
      R"({} x)",
      R"({}{})",
      R"({},"__metadata__":{}})",
      R"({"a":5}})",
      " [1,2",
      "[1,2",
  };
  for (const std::string& text : headers) {
    SCOPED_TRACE("header: " + text);
    ASSERT_FALSE(ReadWithNlohmann(text).syntax_ok);
    const std::vector<std::uint8_t> file = stguard_test::make_file(text);
    for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
      const auto result = stguard::parse(file, stguard_test::WithProfile(profile));
      ASSERT_FALSE(result.has_value());
      EXPECT_EQ(stguard_fuzz::check_syntax_reason(result.error(), profile, text), "")
          << stguard::profile_name(profile);
    }
  }
}

}  // namespace
