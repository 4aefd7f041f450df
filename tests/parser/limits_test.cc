// tests/parser/limits_test.cc: the resource caps per profile (docs/reference-profile.md).
//
// The reference profile imposes only upstream's own cap, the 100,000,000-byte
// header; strict keeps its caps on name length, rank and tensor count. Each
// cap is overridable field by field in either profile. Files just past each
// strict default are generated here, at test time: strict rejects them with
// LIMIT_EXCEEDED at the documented offset, reference accepts them with the
// tensors intact. So do the larger ones upstream reads (a 1,000,000-byte name,
// a rank-100,000 shape), too large to commit to the corpus.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

using stguard::kNoLimit;
using stguard::ParseOptions;
using stguard::Profile;
using stguard::Reason;
using stguard::ResolvedLimits;
using stguard_test::Accepts;
using stguard_test::entry;
using stguard_test::header_at;
using stguard_test::make_file;
using stguard_test::Rejects;

constexpr std::uint64_t kStrictMaxName = 65'536;
constexpr std::uint64_t kStrictMaxRank = 1024;

// `rank` dimensions, all 1: "1,1,...,1".
std::string ones(std::uint64_t rank) {
  std::string out;
  for (std::uint64_t i = 0; i < rank; ++i) {
    if (i > 0) out += ',';
    out += '1';
  }
  return out;
}

// {"NAME":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}} with 2 data bytes.
std::string named_header(const std::string& name) {
  return "{" + entry(name, "U8", "2", 0, 2) + "}";
}

// {"t":{"dtype":"U8","shape":[1,...,1],"data_offsets":[0,1]}}: one element.
std::string ranked_header(std::uint64_t rank) {
  return "{" + entry("t", "U8", ones(rank), 0, 1) + "}";
}

// The absolute offset of the first dimension past `max_rank` in ranked_header:
// after "[" and max_rank times "1,".
std::uint64_t dimension_offset(const std::string& header, std::uint64_t index) {
  return header_at(header, "[") + 1 + 2 * index;
}

ParseOptions with(Profile profile) { return stguard_test::WithProfile(profile); }

// parse (details) and validate_header (counts only) must agree on the verdict.
void expect_both_accept(const std::vector<std::uint8_t>& file, const ParseOptions& options) {
  EXPECT_TRUE(Accepts(stguard::parse(file, options)));
  EXPECT_TRUE(Accepts(stguard::validate_header(file, file.size(), options)));
}

void expect_both_reject(const std::vector<std::uint8_t>& file, const ParseOptions& options,
                        Reason reason, std::uint64_t offset) {
  EXPECT_TRUE(Rejects(stguard::parse(file, options), reason, offset));
  EXPECT_TRUE(Rejects(stguard::validate_header(file, file.size(), options), reason, offset));
}

// ---------------------------------------------------------------------------
// The defaults and how overrides resolve.

TEST(LimitsPerProfile, DefaultsAreTheDocumentedTable) {
  const ResolvedLimits strict = stguard::default_limits(Profile::kStrict);
  EXPECT_EQ(strict.max_header_bytes, 100'000'000U);
  EXPECT_EQ(strict.max_tensors, 10'000'000U);
  EXPECT_EQ(strict.max_rank, kStrictMaxRank);
  EXPECT_EQ(strict.max_name_bytes, kStrictMaxName);
  EXPECT_EQ(strict, stguard::kStrictLimits);

  // Upstream's only cap is the header size.
  const ResolvedLimits reference = stguard::default_limits(Profile::kReference);
  EXPECT_EQ(reference.max_header_bytes, 100'000'000U);
  EXPECT_EQ(reference.max_tensors, kNoLimit);
  EXPECT_EQ(reference.max_rank, kNoLimit);
  EXPECT_EQ(reference.max_name_bytes, kNoLimit);
  EXPECT_EQ(reference, stguard::kReferenceLimits);
}

TEST(LimitsPerProfile, EmptyOverridesGiveTheDefaults) {
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    EXPECT_EQ(stguard::resolve_limits(profile, {}), stguard::default_limits(profile));
  }
  const stguard::Limits overrides;
  EXPECT_FALSE(overrides.max_header_bytes.has_value());
  EXPECT_FALSE(overrides.max_tensors.has_value());
  EXPECT_FALSE(overrides.max_rank.has_value());
  EXPECT_FALSE(overrides.max_name_bytes.has_value());
}

TEST(LimitsPerProfile, EachOverrideReplacesOnlyItsField) {
  stguard::Limits overrides;
  overrides.max_rank = 7;
  const ResolvedLimits strict = stguard::resolve_limits(Profile::kStrict, overrides);
  EXPECT_EQ(strict.max_rank, 7U);
  EXPECT_EQ(strict.max_name_bytes, kStrictMaxName);
  EXPECT_EQ(strict.max_tensors, 10'000'000U);
  const ResolvedLimits reference = stguard::resolve_limits(Profile::kReference, overrides);
  EXPECT_EQ(reference.max_rank, 7U);
  EXPECT_EQ(reference.max_name_bytes, kNoLimit);

  overrides = {};
  overrides.max_name_bytes = kNoLimit;
  overrides.max_tensors = 0;
  overrides.max_header_bytes = 200'000'000;
  const ResolvedLimits lifted = stguard::resolve_limits(Profile::kStrict, overrides);
  EXPECT_EQ(lifted.max_name_bytes, kNoLimit);
  EXPECT_EQ(lifted.max_tensors, 0U);
  EXPECT_EQ(lifted.max_header_bytes, 200'000'000U);
  EXPECT_EQ(lifted.max_rank, kStrictMaxRank);
}

// ---------------------------------------------------------------------------
// Just past each strict default: strict rejects at the offset, reference
// accepts what upstream reads.

TEST(LimitsPerProfile, NameJustPastTheStrictLimit) {
  const std::string name(kStrictMaxName + 1, 'n');
  const std::vector<std::uint8_t> file = make_file(named_header(name), 2);
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded, 9);  // the name's '"'
  expect_both_accept(file, with(Profile::kReference));
  const stguard::Result<stguard::Header> header = stguard::parse(file, with(Profile::kReference));
  ASSERT_TRUE(header.has_value());
  ASSERT_EQ(header->tensors.size(), 1U);
  EXPECT_EQ(header->tensors[0].name, name);

  // At the limit both accept.
  const std::vector<std::uint8_t> at_limit =
      make_file(named_header(std::string(kStrictMaxName, 'n')), 2);
  expect_both_accept(at_limit, with(Profile::kStrict));
  expect_both_accept(at_limit, with(Profile::kReference));
}

// The limit counts bytes after unescaping: 65,537 bytes written as escapes.
TEST(LimitsPerProfile, EscapedNameJustPastTheStrictLimit) {
  std::string escaped;
  for (std::uint64_t i = 0; i < kStrictMaxName + 1; ++i) escaped += "\\u0041";
  const std::vector<std::uint8_t> file = make_file(named_header(escaped), 2);
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded, 9);
  const stguard::Result<stguard::Header> header = stguard::parse(file, with(Profile::kReference));
  ASSERT_TRUE(Accepts(header));
  EXPECT_EQ(header->tensors[0].name, std::string(kStrictMaxName + 1, 'A'));
}

TEST(LimitsPerProfile, MetadataKeyJustPastTheStrictLimit) {
  const std::string key(kStrictMaxName + 1, 'k');
  const std::string h =
      R"({"__metadata__":{")" + key + R"(":"v"},)" + entry("t", "U8", "2", 0, 2) + "}";
  const std::vector<std::uint8_t> file = make_file(h, 2);
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded,
                     header_at(h, "\"" + key));
  const stguard::Result<stguard::Header> header = stguard::parse(file, with(Profile::kReference));
  ASSERT_TRUE(Accepts(header));
  ASSERT_TRUE(header->metadata.has_value());
  ASSERT_EQ(header->metadata->size(), 1U);
  EXPECT_EQ(header->metadata->front().first, key);
}

TEST(LimitsPerProfile, RankJustPastTheStrictLimit) {
  const std::string h = ranked_header(kStrictMaxRank + 1);
  const std::vector<std::uint8_t> file = make_file(h, 1);
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded,
                     dimension_offset(h, kStrictMaxRank));
  expect_both_accept(file, with(Profile::kReference));
  const stguard::Result<stguard::Header> header = stguard::parse(file, with(Profile::kReference));
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->tensors[0].shape, std::vector<std::uint64_t>(kStrictMaxRank + 1, 1));
}

// Written with spaces the shape takes the general reader, not the compact one.
TEST(LimitsPerProfile, SpacedRankJustPastTheStrictLimit) {
  std::string dims;
  for (std::uint64_t i = 0; i <= kStrictMaxRank; ++i) dims += i == 0 ? "1" : ", 1";
  const std::string h =
      R"({"t": {"dtype": "U8", "shape": [)" + dims + R"(], "data_offsets": [0, 1]}})";
  const std::vector<std::uint8_t> file = make_file(h, 1);
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded,
                     header_at(h, "[") + 1 + 3 * kStrictMaxRank);
  expect_both_accept(file, with(Profile::kReference));
}

// ---------------------------------------------------------------------------
// The limits bar: a 70,000-byte tensor name and a rank-2,000 shape, which
// upstream reads and so the reference profile must.

TEST(LimitsPerProfile, BarSeventyThousandByteName) {
  const std::vector<std::uint8_t> file = make_file(named_header(std::string(70'000, 'x')), 2);
  expect_both_accept(file, with(Profile::kReference));
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded, 9);
  stguard_test::TempDir dir;
  const std::string path = dir.write("name-70000.safetensors", file);
  stguard::ParseOptions reference = with(Profile::kReference);
  EXPECT_TRUE(Accepts(stguard::File::open(path, reference)));
  EXPECT_TRUE(Accepts(stguard::validate_file(path, reference)));
}

TEST(LimitsPerProfile, BarRankTwoThousand) {
  const std::string h = ranked_header(2000);
  const std::vector<std::uint8_t> file = make_file(h, 1);
  expect_both_accept(file, with(Profile::kReference));
  expect_both_reject(file, with(Profile::kStrict), Reason::kLimitExceeded,
                     dimension_offset(h, kStrictMaxRank));
  stguard_test::TempDir dir;
  const std::string path = dir.write("rank-2000.safetensors", file);
  EXPECT_TRUE(Accepts(stguard::File::open(path, with(Profile::kReference))));
}

// What upstream reads and a 1 MB header holds: a 1,000,000-byte name and a
// rank-100,000 shape (the reference profile stays linear; docs/performance.md
// has the times).
TEST(LimitsPerProfile, ReferenceReadsMegabyteNamesAndHugeRanks) {
  const std::string name(1'000'000, 'm');
  expect_both_accept(make_file(named_header(name), 2), with(Profile::kReference));
  const std::string h = ranked_header(100'000);
  const stguard::Result<stguard::Header> header =
      stguard::parse(make_file(h, 1), with(Profile::kReference));
  ASSERT_TRUE(Accepts(header));
  EXPECT_EQ(header->tensors[0].shape.size(), 100'000U);
  // Many long names in one header, repeated names included (the last wins).
  std::string many = "{";
  for (int i = 0; i < 20; ++i) {
    if (i > 0) many += ',';
    many += entry(std::string(70'000, static_cast<char>('a' + i % 10)), "U8", "0", 0, 0);
  }
  many += "}";
  const stguard::Result<stguard::Header> merged =
      stguard::parse(make_file(many), with(Profile::kReference));
  ASSERT_TRUE(Accepts(merged));
  EXPECT_EQ(merged->tensors.size(), 10U);
}

// ---------------------------------------------------------------------------
// Overrides apply in either profile.

TEST(LimitsOverrides, ReferenceWithCapsRejectsAtTheOffset) {
  ParseOptions options = with(Profile::kReference);
  options.limits.max_rank = 3;
  const std::string ranked = ranked_header(4);
  expect_both_reject(make_file(ranked, 1), options, Reason::kLimitExceeded,
                     dimension_offset(ranked, 3));

  options = with(Profile::kReference);
  options.limits.max_name_bytes = 4;
  expect_both_reject(make_file(named_header("abcde"), 2), options, Reason::kLimitExceeded, 9);
  expect_both_accept(make_file(named_header("abcd"), 2), options);

  options = with(Profile::kReference);
  options.limits.max_tensors = 2;
  const std::string three = "{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "1", 1, 2) +
                            "," + entry("c", "U8", "1", 2, 3) + "}";
  expect_both_reject(make_file(three, 3), options, Reason::kLimitExceeded,
                     header_at(three, "\"c\""));
}

// The reference profile counts tensors after last-one-wins merging
// (docs/reasons.md, LIMIT_EXCEEDED): a repeated name arriving at the cap is
// not a tensor more, while a new name there is one too many.
TEST(LimitsOverrides, ReferenceCapCountsTensorsAfterMergingRepeats) {
  ParseOptions options = with(Profile::kReference);
  options.limits.max_tensors = 2;
  const std::string repeat = "{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "1", 1, 2) +
                             "," + entry("a", "U8", "1", 0, 1) + "}";
  expect_both_accept(make_file(repeat, 2), options);
  const std::string repeat_then_new =
      "{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "1", 1, 2) + "," +
      entry("a", "U8", "1", 0, 1) + "," + entry("c", "U8", "1", 2, 3) + "}";
  expect_both_reject(make_file(repeat_then_new, 3), options, Reason::kLimitExceeded,
                     header_at(repeat_then_new, "\"c\""));
  // Strict counts entries (a repeat is a fault there anyway, found after the
  // scan), so the third entry is past the cap.
  options = with(Profile::kStrict);
  options.limits.max_tensors = 2;
  expect_both_reject(make_file(repeat, 2), options, Reason::kLimitExceeded,
                     header_at(repeat, "\"a\"", 1));
}

// The reference profile's array-form entries obey an overridden rank cap too.
TEST(LimitsOverrides, ReferenceArrayFormEntryObeysMaxRank) {
  ParseOptions options = with(Profile::kReference);
  options.limits.max_rank = 2;
  const std::string h = R"({"t":["U8",[1,1,1],[0,1]]})";
  expect_both_reject(make_file(h, 1), options, Reason::kLimitExceeded, header_at(h, "1]"));
  expect_both_accept(make_file(h, 1), with(Profile::kReference));
}

TEST(LimitsOverrides, StrictWithoutCapsReadsWhatReferenceReads) {
  ParseOptions options = with(Profile::kStrict);
  options.limits.max_rank = kNoLimit;
  options.limits.max_name_bytes = kNoLimit;
  options.limits.max_tensors = kNoLimit;
  expect_both_accept(make_file(ranked_header(2000), 1), options);
  expect_both_accept(make_file(named_header(std::string(70'000, 'x')), 2), options);
}

TEST(LimitsOverrides, ZeroCapsAllowOnlyEmptyThings) {
  ParseOptions options = with(Profile::kReference);
  options.limits.max_tensors = 0;
  expect_both_accept(make_file("{}"), options);
  const std::string one = "{" + entry("a", "U8", "1", 0, 1) + "}";
  expect_both_reject(make_file(one, 1), options, Reason::kLimitExceeded, 9);

  options = with(Profile::kStrict);
  options.limits.max_rank = 0;
  expect_both_accept(make_file("{" + entry("s", "U8", "", 0, 1) + "}", 1), options);
  const std::string vector = "{" + entry("v", "U8", "1", 0, 1) + "}";
  expect_both_reject(make_file(vector, 1), options, Reason::kLimitExceeded,
                     header_at(vector, "1]"));
}

// The header cap stays upstream's in both profiles.
TEST(LimitsOverrides, HeaderCapIsUpstreamsInBothProfiles) {
  const std::vector<std::uint8_t> file =
      stguard_test::FileBuilder("{}").length_prefix(100'000'001).build();
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    EXPECT_TRUE(Rejects(stguard::parse(file, with(profile)), Reason::kHeaderTooLarge, 0));
  }
}

// The writer refuses what strict rejects, with strict's defaults.
TEST(LimitsOverrides, WriterUsesStrictDefaults) {
  const std::vector<stguard::TensorToWrite> long_name = {
      {std::string(kStrictMaxName + 1, 'w'), stguard::Dtype::kU8, {0}, {}}};
  EXPECT_TRUE(Rejects(stguard::write_safetensors(long_name), Reason::kLimitExceeded, 0));
  stguard::Limits lifted;
  lifted.max_name_bytes = kNoLimit;
  EXPECT_TRUE(Accepts(stguard::write_safetensors(long_name, {}, lifted)));
}

}  // namespace
