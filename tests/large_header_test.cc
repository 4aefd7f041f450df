// Headers with thousands of tensors, large enough to take the parser's bulk
// paths: the duplicate-name check that runs after the scan (names spread over
// many partitions) and the fast path for compact tensor entries with its
// fallback to the general reader. Each expectation holds for parse_header and
// validate_header alike; offsets are found in the header text.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "file_builder.h"
#include "test_util.h"

namespace {

using stguard::Profile;
using stguard::Reason;
using stguard_test::header_at;
using stguard_test::Rejects;

constexpr std::size_t kCount = 5000;

std::string name_of(std::size_t i) { return "model.layers." + std::to_string(i) + ".weight"; }

// kCount U8 tensors of one byte each, tensor i over [i, i + 1). Entries can be
// replaced whole ("\"name\":value") before the header is assembled.
struct LargeHeader {
  std::vector<std::string> entries;

  LargeHeader() {
    for (std::size_t i = 0; i < kCount; ++i) entries.push_back(entry(name_of(i), i));
  }

  static std::string entry(const std::string& quoted_name_text, std::size_t i) {
    return "\"" + quoted_name_text + R"(":{"dtype":"U8","shape":[1],"data_offsets":[)" +
           std::to_string(i) + "," + std::to_string(i + 1) + "]}";
  }
  // Entry i takes another name (JSON string text) and keeps its offsets.
  void rename(std::size_t i, const std::string& name) { entries[i] = entry(name, i); }
  void set_value(std::size_t i, const std::string& value) {
    entries[i] = "\"" + name_of(i) + "\":" + value;
  }

  std::string text() const {
    std::string h = "{";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i != 0) h += ',';
      h += entries[i];
    }
    return h + "}";
  }
};

std::vector<std::uint8_t> file_of(const std::string& header) {
  return stguard_test::FileBuilder(header).data_size(kCount).build();
}

// Both entry points, one profile: the same verdict, reason and offset.
void ExpectRejects(const std::vector<std::uint8_t>& bytes, Profile profile, Reason reason,
                   std::uint64_t offset) {
  const stguard::ParseOptions options = stguard_test::WithProfile(profile);
  EXPECT_TRUE(Rejects(stguard::parse(bytes, options), reason, offset)) << "parse_header";
  EXPECT_TRUE(Rejects(stguard::validate_header(bytes, bytes.size(), options), reason, offset))
      << "validate_header";
}

std::optional<stguard::Header> ExpectAccepts(const std::vector<std::uint8_t>& bytes,
                                             Profile profile) {
  const stguard::ParseOptions options = stguard_test::WithProfile(profile);
  auto summary = stguard::validate_header(bytes, bytes.size(), options);
  EXPECT_TRUE(stguard_test::Accepts(summary)) << "validate_header";
  auto parsed = stguard::parse(bytes, options);
  EXPECT_TRUE(stguard_test::Accepts(parsed)) << "parse_header";
  if (!summary || !parsed) return std::nullopt;
  EXPECT_EQ(summary->tensor_count, parsed->tensors.size());
  return std::move(parsed).value();
}

TEST(LargeHeader, AcceptedInBothProfiles) {
  const std::vector<std::uint8_t> bytes = file_of(LargeHeader().text());
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    const auto header = ExpectAccepts(bytes, profile);
    ASSERT_TRUE(header.has_value());
    ASSERT_EQ(header->tensors.size(), kCount);
    for (std::size_t i = 0; i < kCount; i += 977) {
      EXPECT_EQ(header->tensors[i].name, name_of(i));
      EXPECT_EQ(header->tensors[i].begin, i);
      EXPECT_EQ(header->tensors[i].end, i + 1);
      EXPECT_EQ(header->tensors[i].shape, std::vector<std::uint64_t>{1});
    }
  }
}

TEST(LargeHeader, EarliestRepeatIsReported) {
  LargeHeader h;
  // Forty names repeated late, each long after its first use...
  for (std::size_t k = 0; k < 40; ++k) h.rename(4900 - k * 50, name_of(k));
  // ...and one repeated at once, sooner in the text than all of them.
  h.rename(2500, name_of(2499));
  const std::string text = h.text();
  ExpectRejects(file_of(text), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(2499) + "\"", 1));
}

TEST(LargeHeader, RepeatComesBeforeLaterFaults) {
  LargeHeader h;
  h.rename(100, name_of(7));
  h.set_value(4000, R"({"dtype":"X","shape":[1],"data_offsets":[4000,4001]})");
  h.set_value(20, R"({"dtype":"U8","shape":[2],"data_offsets":[20,21]})");  // size fault
  const std::string text = h.text();
  ExpectRejects(file_of(text), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(7) + "\"", 1));
  // Cut inside the last entry: the syntax fault comes after the repeat too.
  ExpectRejects(file_of(text.substr(0, text.size() - 10)), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(7) + "\"", 1));
}

TEST(LargeHeader, FaultBeforeRepeatIsReported) {
  LargeHeader h;
  h.set_value(50, R"({"dtype":"X","shape":[1],"data_offsets":[50,51]})");
  h.rename(100, name_of(7));
  const std::string text = h.text();
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    ExpectRejects(file_of(text), profile, Reason::kDtypeInvalid, header_at(text, "\"X\""));
  }
}

TEST(LargeHeader, RepeatWithFaultyValue) {
  LargeHeader h;
  h.entries[4000] = "\"" + name_of(3) + "\":null";
  const std::string text = h.text();
  ExpectRejects(file_of(text), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(3) + "\"", 1));
  ExpectRejects(file_of(text), Profile::kReference, Reason::kTensorInvalid,
                header_at(text, "null"));
}

TEST(LargeHeader, RepeatAfterUnescaping) {
  LargeHeader h;
  // "model.layers.20.weight" with its first letter and a dot escaped.
  h.rename(4500, "\\u006dodel\\u002elayers.20.weight");
  const std::string text = h.text();
  ExpectRejects(file_of(text), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"\\u006dodel"));
  // Reference: the repeat's content replaces the first's, leaving a hole.
  ExpectRejects(file_of(text), Profile::kReference, Reason::kOffsetGap, 8 + text.size() + 20);
}

TEST(LargeHeader, EveryNameTheSame) {
  LargeHeader h;
  for (std::size_t i = 0; i < kCount; ++i) h.rename(i, "a");
  const std::string text = h.text();
  ExpectRejects(file_of(text), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"a\"", 1));
}

TEST(LargeHeader, EscapedNamesWithoutRepeats) {
  LargeHeader h;
  for (std::size_t i = 0; i < kCount; i += 3) h.rename(i, "\\u0041" + name_of(i));
  const std::string text = h.text();
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    const auto header = ExpectAccepts(file_of(text), profile);
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(header->tensors[3].name, "A" + name_of(3));
    EXPECT_EQ(header->tensors[4].name, name_of(4));
  }
}

}  // namespace
