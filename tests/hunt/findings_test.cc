// tests/hunt/findings_test.cc: cases.txt stanzas round-trip through the
// corpus generator (the recipe makes the same bytes, with stguard's verdicts,
// reasons, offsets and expected tensors), findings.jsonl's fields, and
// `promote` (hunt/findings.h).
#include "hunt/findings.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"
#include "hunt/oracle.h"
#include "tests/support/file_builder.h"
#include "tests/support/temp_dir.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;
using stguard::hunt::Bucket;
using stguard_test::FileBuilder;
using stguard_test::TempDir;

// A conformance directory with the real rules and no cases yet (the ref:
// and bug: tags would each need a case).
void make_recipes_dir(const fs::path& dir) {
  fs::create_directories(dir / "cases");
  std::ifstream in(fs::path(STGUARD_RECIPES_DIR) / "vocabulary.txt");
  std::ofstream out(dir / "vocabulary.txt");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("rule:", 0) == 0) out << line << "\n";
  }
}

Bucket bucket_for(std::vector<std::uint8_t> file, const std::string& tag) {
  Bucket b;
  b.signature.kind = stguard::hunt::Divergence::kCrash;
  b.signature.reader_error = tag;  // one bucket name per file
  b.file = std::move(file);
  b.hits = 3;
  return b;
}

std::vector<Bucket> sample_buckets() {
  std::vector<Bucket> out;
  // Accepted, with metadata, a non-ASCII name, a backtick and trailing spaces.
  out.push_back(bucket_for(
      FileBuilder(
          R"({"__metadata__":{"k":"v`x","z":"\u00e9"},"w\u00e9 `q":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[],"data_offsets":[8,9]}}   )")
          .data_size(9)
          .build(),
      "accepted"));
  // Raw UTF-8 in a name, an empty __metadata__.
  out.push_back(bucket_for(FileBuilder("{\"__metadata__\":{},\"\xc3\xa9\":{\"dtype\":\"I16\","
                                       "\"shape\":[1,2],\"data_offsets\":[0,4]}}")
                               .data_size(4)
                               .build(),
                           "raw-utf8"));
  // Rejected by both: an overlap.
  out.push_back(bucket_for(
      FileBuilder(
          R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})")
          .data_size(4)
          .build(),
      "overlap"));
  // Contested: a tab before the object (strict HEADER_BAD_START).
  out.push_back(
      bucket_for(FileBuilder("\t{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}")
                     .data_size(1)
                     .build(),
                 "contested"));
  // No tensors at all, accepted.
  out.push_back(bucket_for(FileBuilder("{}").build(), "empty"));
  // Invalid UTF-8 and a NUL in the header.
  out.push_back(
      bucket_for(FileBuilder(std::string("{\"a\xff\":1,\"b\":\"\0\"}", 17)).build(), "bytes"));
  // A prefix past the end of the file: only `file:` can say it.
  std::vector<std::uint8_t> bad_prefix = stguard_test::u64_le(1000);
  bad_prefix.resize(20, 'x');
  out.push_back(bucket_for(bad_prefix, "bad-prefix"));
  return out;
}

TEST(HuntFindings, StanzasRebuildTheSameFilesWithStguardsVerdicts) {
  const TempDir dir;
  make_recipes_dir(dir.path());
  const std::vector<Bucket> buckets = sample_buckets();
  std::string group = "about: round trip\n";
  for (const Bucket& b : buckets) group += "\n" + stguard::hunt::render_stanza(b, "fake");
  std::ofstream(dir.path() / "cases" / "hunt.txt") << group;

  conf::RecipeSet set;
  try {
    set = conf::load_recipes(dir.path());
  } catch (const conf::RecipeError& e) {
    FAIL() << e.what() << "\n" << group;
  }
  ASSERT_EQ(set.groups.size(), 1u);
  ASSERT_EQ(set.groups[0].cases.size(), buckets.size());
  for (const Bucket& b : buckets) {
    const std::string name = "hunt-" + b.signature.bucket();
    const auto it = std::find_if(set.groups[0].cases.begin(), set.groups[0].cases.end(),
                                 [&](const conf::Recipe& r) { return r.name == name; });
    ASSERT_NE(it, set.groups[0].cases.end()) << name;
    SCOPED_TRACE(b.signature.reader_error);
    conf::BuiltCase built;
    try {
      built = conf::build_case(*it);
    } catch (const conf::RecipeError& e) {
      FAIL() << e.what() << "\n" << stguard::hunt::render_stanza(b, "fake");
    }
    EXPECT_EQ(built.bytes, b.file) << stguard::hunt::render_stanza(b, "fake");
    const stguard::hunt::Oracle oracle = stguard::hunt::judge(b.file);
    EXPECT_EQ(built.strict.accept, oracle.strict.accept);
    EXPECT_EQ(built.strict.reason, oracle.strict.reason);
    EXPECT_EQ(built.strict.offset, oracle.strict.offset);
    EXPECT_EQ(built.reference.accept, oracle.reference.accept);
    EXPECT_EQ(built.reference.reason, oracle.reference.reason);
    EXPECT_EQ(built.reference.offset, oracle.reference.offset);
    EXPECT_EQ(built.entry.verdict, oracle.expected.verdict);
    EXPECT_EQ(built.entry.expected, oracle.expected.expected);
  }
}

TEST(HuntFindings, FindingsLinesCarryTheListedFields) {
  Bucket b = sample_buckets()[2];
  b.signature.kind = stguard::hunt::Divergence::kAcceptsInvalid;
  b.signature.strict_reason = "OFFSET_OVERLAP";
  b.signature.reference_reason = "OFFSET_OVERLAP";
  b.signature.reader_verdict = "accept";
  b.signature.reader_error = "";
  const nlohmann::json line =
      nlohmann::json::parse(stguard::hunt::findings_line(b, "findings/x.safetensors"));
  EXPECT_EQ(line["bucket"], b.signature.bucket());
  EXPECT_EQ(line["kind"], "accepts-invalid");
  EXPECT_EQ(line["strict_reason"], "OFFSET_OVERLAP");
  EXPECT_EQ(line["reference_reason"], "OFFSET_OVERLAP");
  EXPECT_EQ(line["reader_verdict"], "accept");
  EXPECT_EQ(line["reader_error"], "");
  EXPECT_EQ(line["hits"], 3);
  EXPECT_EQ(line["file"], "findings/x.safetensors");
  EXPECT_EQ(line["size"], b.file.size());

  EXPECT_TRUE(line.at("stderr").is_null());

  Bucket crash = sample_buckets()[0];
  const nlohmann::json c = nlohmann::json::parse(stguard::hunt::findings_line(crash, "f"));
  EXPECT_TRUE(c["strict_reason"].is_null());
  EXPECT_TRUE(c["reader_verdict"].is_null());
  // A crash's own account, which the bucket's key alone does not give.
  crash.stderr_text = "==9==ERROR: AddressSanitizer: SEGV on unknown address\n...";
  EXPECT_EQ(nlohmann::json::parse(stguard::hunt::findings_line(crash, "f")).at("stderr"),
            crash.stderr_text);
}

TEST(HuntFindings, PromoteAppendsChosenStanzasOnce) {
  const TempDir hunt_dir;
  const TempDir recipes;
  make_recipes_dir(recipes.path());
  const std::vector<Bucket> buckets = sample_buckets();
  std::vector<const Bucket*> pointers;
  for (const Bucket& b : buckets) pointers.push_back(&b);
  std::string error;
  ASSERT_TRUE(stguard::hunt::write_findings(hunt_dir.path(), pointers, "fake", &error)) << error;
  EXPECT_TRUE(fs::is_regular_file(hunt_dir.path() / "findings.jsonl"));
  EXPECT_TRUE(fs::is_regular_file(hunt_dir.path() / "findings" /
                                  (buckets[2].signature.bucket() + ".safetensors")));

  const std::vector<std::string> chosen = {buckets[2].signature.bucket(),
                                           buckets[4].signature.bucket()};
  stguard::hunt::PromoteReport report;
  ASSERT_TRUE(
      stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", chosen, &report, &error))
      << error;
  EXPECT_EQ(report.promoted.size(), 2u);
  EXPECT_EQ(report.group_file, recipes.path() / "cases" / "hunt.txt");
  // Again: nothing new; then everything: the rest.
  stguard::hunt::PromoteReport again;
  ASSERT_TRUE(
      stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", chosen, &again, &error));
  EXPECT_TRUE(again.promoted.empty());
  EXPECT_EQ(again.already_present.size(), 2u);
  stguard::hunt::PromoteReport all;
  ASSERT_TRUE(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", {}, &all, &error));
  EXPECT_EQ(all.promoted.size(), buckets.size() - 2);

  conf::RecipeSet set;
  ASSERT_NO_THROW(set = conf::load_recipes(recipes.path()));
  ASSERT_EQ(set.groups.size(), 1u);
  EXPECT_EQ(set.groups[0].cases.size(), buckets.size());

  const std::vector<std::string> unknown = {"000000000000"};
  stguard::hunt::PromoteReport none;
  EXPECT_FALSE(
      stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", unknown, &none, &error));
  EXPECT_NE(error.find("000000000000"), std::string::npos);
  EXPECT_FALSE(
      stguard::hunt::promote(hunt_dir.path(), recipes.path(), "Bad Group", {}, &none, &error));
}

}  // namespace
