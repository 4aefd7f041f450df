// tests/hunt/findings_test.cc: cases.txt stanzas round-trip through the
// corpus generator (the recipe makes the same bytes, with stguard's verdicts,
// reasons, offsets and expected tensors), findings.jsonl's fields, and
// `promote` (conformance/hunt/findings.h).
#include "conformance/hunt/findings.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/owned_dir.h"
#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"
#include "conformance/hunt/oracle.h"
#include "tests/support/failure_of.h"
#include "tests/support/file_builder.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;
using stguard::hunt::Bucket;
using stguard_test::failure_of;
using stguard_test::FileBuilder;
using stguard_test::read_text;
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

  const stguard::base::Result<conf::RecipeSet> loaded = conf::load_recipes(dir.path());
  ASSERT_TRUE(loaded) << loaded.error().message << "\n" << group;
  const conf::RecipeSet& set = *loaded;
  // The hunt group beside the generated grammar walk.
  ASSERT_EQ(set.groups.size(), 2u);
  const conf::Group& hunt = set.groups[0].name == "hunt" ? set.groups[0] : set.groups[1];
  ASSERT_EQ(hunt.name, "hunt");
  ASSERT_EQ(hunt.cases.size(), buckets.size());
  for (const Bucket& b : buckets) {
    const std::string name = "hunt-" + b.signature.bucket();
    const auto it = std::find_if(hunt.cases.begin(), hunt.cases.end(),
                                 [&](const conf::Recipe& r) { return r.name == name; });
    ASSERT_NE(it, hunt.cases.end()) << name;
    SCOPED_TRACE(b.signature.reader_error);
    const stguard::base::Result<conf::BuiltCase> made = conf::build_case(*it);
    ASSERT_TRUE(made) << made.error().message << "\n" << stguard::hunt::render_stanza(b, "fake");
    const conf::BuiltCase& built = *made;
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

// Writes the buckets as a hunt of reader "fake" into `dir`.
stguard::hunt::FindingsReport write_hunt(const fs::path& dir, const std::vector<Bucket>& buckets,
                                         std::uint64_t runs = 100,
                                         std::string_view reader = "fake") {
  std::vector<const Bucket*> pointers;
  for (const Bucket& b : buckets) pointers.push_back(&b);
  stguard::base::Result<stguard::base::OwnedDir> owned =
      stguard::base::OwnedDir::claim(dir, "hunt");
  if (!owned) {
    ADD_FAILURE() << owned.error().message;
    return {};
  }
  const auto report = stguard::hunt::write_findings(*owned, pointers, reader, runs);
  if (!report) {
    ADD_FAILURE() << report.error().message;
    return {};
  }
  return *report;
}

std::vector<nlohmann::json> findings_of(const fs::path& dir) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(dir / "findings.jsonl");
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Promotes and writes; the plan, or why it was refused.
stguard::base::Result<stguard::hunt::PromotePlan> promote_and_write(
    const fs::path& hunt_dir, const fs::path& recipes, const std::vector<std::string>& chosen) {
  stguard::base::Result<stguard::hunt::PromotePlan> plan =
      stguard::hunt::promote(hunt_dir, recipes, "hunt", chosen);
  if (!plan) return plan;
  if (const stguard::base::Result<void> written = stguard::hunt::write_promotion(*plan); !written) {
    return written.error();
  }
  return plan;
}

TEST(HuntFindings, PromoteAppendsChosenStanzasOnce) {
  const TempDir hunt_dir;
  const TempDir recipes;
  make_recipes_dir(recipes.path());
  const std::vector<Bucket> buckets = sample_buckets();
  write_hunt(hunt_dir.path(), buckets);
  EXPECT_TRUE(fs::is_regular_file(hunt_dir.path() / "findings.jsonl"));
  EXPECT_TRUE(fs::is_regular_file(hunt_dir.path() / "findings" /
                                  (buckets[2].signature.bucket() + ".safetensors")));

  const std::vector<std::string> chosen = {buckets[2].signature.bucket(),
                                           buckets[4].signature.bucket()};
  const auto plan = promote_and_write(hunt_dir.path(), recipes.path(), chosen);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->promoted.size(), 2u);
  EXPECT_EQ(plan->group_file, recipes.path() / "cases" / "hunt.txt");
  // Again: nothing new; then everything: the rest.
  const auto again = promote_and_write(hunt_dir.path(), recipes.path(), chosen);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->promoted.empty());
  EXPECT_EQ(again->already_present.size(), 2u);
  const auto all = promote_and_write(hunt_dir.path(), recipes.path(), {});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->promoted.size(), buckets.size() - 2);

  const stguard::base::Result<conf::RecipeSet> set = conf::load_recipes(recipes.path());
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->groups.size(), 2u);  // hunt, and the generated grammar walk
  EXPECT_EQ(set->groups[0].name, "grammar");
  EXPECT_EQ(set->groups[1].cases.size(), buckets.size());

  const std::vector<std::string> unknown = {"000000000000"};
  EXPECT_NE(failure_of(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", unknown))
                .find("000000000000"),
            std::string::npos);
  EXPECT_NE(failure_of(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "Bad Group", {})),
            "");
}

// `case: ../../../../tmp/x` was once appended unchecked, and then
// `corpus build` failed for the whole checkout.
TEST(HuntFindings, PromoteRefusesAStanzaThatWouldBreakTheCorpusBuild) {
  const TempDir hunt_dir;
  const TempDir recipes;
  make_recipes_dir(recipes.path());
  for (const std::string stanza :
       {"case: ../../../../tmp/x\ndescription: d\nrules: layout\nstrict: accept\n",
        "case: fine-name\ndescription: d\nrules: no-such-rule\nstrict: accept\n",
        "case: bad-bytes\ndescription: d\nrules: layout\nstrict: accept\nreference: "
        "accept\ndata: zz\n"}) {
    std::ofstream(hunt_dir.path() / "cases.txt") << stanza;
    const std::string error =
        failure_of(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", {}));
    EXPECT_EQ(error.rfind("not promoted: ", 0), 0u) << stanza << error;
    EXPECT_FALSE(fs::exists(recipes.path() / "cases" / "hunt.txt"));
  }
  // A cases.txt that holds no stanza (a link to /etc/passwd, say) promotes
  // nothing and says so, instead of "appended".
  fs::remove(hunt_dir.path() / "cases.txt");
  fs::create_symlink("/etc/passwd", hunt_dir.path() / "cases.txt");
  EXPECT_EQ(failure_of(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", {})),
            (hunt_dir.path() / "cases.txt").string() +
                ": no recipe stanza in it (not a cases.txt of stguard hunt)");
}

// A stanza once stated whatever it said: `strict: reject OFFSET_GAP` for a
// file with a repeated key, a wrong `@ offset`, a second `case:` line; the
// manifest then repeated it as fact. Promote builds each case and has both
// profiles judge it.
TEST(HuntFindings, PromoteRefusesAStanzaThatMisstatesTheVerdict) {
  std::size_t offsets_edited = 0;
  for (const Bucket& bucket : sample_buckets()) {
    const TempDir hunt_dir;
    const TempDir recipes;
    make_recipes_dir(recipes.path());
    write_hunt(hunt_dir.path(), {bucket});
    const std::string cases = read_text(hunt_dir.path() / "cases.txt");
    // The stanza as written promotes (a control for the edits below).
    ASSERT_TRUE(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", {})) << cases;
    const std::size_t strict_at = cases.find("\nstrict: ");
    ASSERT_NE(strict_at, std::string::npos) << cases;
    const std::size_t strict_end = cases.find('\n', strict_at + 1);
    const std::string strict_line = cases.substr(strict_at + 1, strict_end - strict_at - 1);
    const auto with_strict = [&](const std::string& line) {
      return cases.substr(0, strict_at + 1) + line + cases.substr(strict_end);
    };
    std::vector<std::pair<std::string, std::string>> edits = {
        {"another reason", with_strict(strict_line.rfind("strict: reject OFFSET_GAP", 0) == 0
                                           ? "strict: reject DUPLICATE_KEY"
                                           : "strict: reject OFFSET_GAP")},
        {"the other verdict",
         with_strict(strict_line == "strict: accept" ? "strict: reject DUPLICATE_KEY"
                                                     : "strict: accept")},
        {"a second case", cases + "case: smuggled\n"},
    };
    if (const std::size_t at = strict_line.find(" @ "); at != std::string::npos) {
      edits.emplace_back("another offset", with_strict(strict_line.substr(0, at) + " @ 1"));
      ++offsets_edited;
    }
    for (const auto& [what, text] : edits) {
      std::ofstream(hunt_dir.path() / "cases.txt") << text;
      const std::string error =
          failure_of(stguard::hunt::promote(hunt_dir.path(), recipes.path(), "hunt", {}));
      EXPECT_NE(error.find("not promoted"), std::string::npos) << what << ": " << error << "\n"
                                                               << cases;
      EXPECT_FALSE(fs::exists(recipes.path() / "cases" / "hunt.txt")) << what;
    }
  }
  EXPECT_GT(offsets_edited, 0u);
}

// A second hunt into the folder of the first once deleted its findings.
TEST(HuntFindings, ASecondHuntMergesWithTheFirst) {
  const TempDir scratch;
  const fs::path dir = scratch.path() / "hunt-fake";
  std::vector<Bucket> first = sample_buckets();
  first.resize(3);
  stguard::hunt::FindingsReport report = write_hunt(dir, first, 100);
  EXPECT_EQ(report.earlier, 0u);
  EXPECT_EQ(report.total, 3u);
  // The second finds bucket 2 again with a smaller file, bucket 1 again
  // with a larger one, and two new ones.
  std::vector<Bucket> second = sample_buckets();
  second.erase(second.begin());
  second[1].file.resize(second[1].file.size() - 1);
  second[0].file.push_back(0);
  second[0].hits = 5;
  report = write_hunt(dir, second, 50);
  EXPECT_EQ(report.earlier, 3u);
  EXPECT_EQ(report.seen_again, 2u);
  EXPECT_EQ(report.added, second.size() - 2);
  EXPECT_EQ(report.total, 3 + second.size() - 2);
  const std::vector<nlohmann::json> lines = findings_of(dir);
  ASSERT_EQ(lines.size(), report.total);
  // Earlier buckets first, in their order.
  EXPECT_EQ(lines[0]["bucket"], first[0].signature.bucket());
  EXPECT_EQ(lines[0]["hits"], 3);
  EXPECT_EQ(lines[1]["bucket"], first[1].signature.bucket());
  EXPECT_EQ(lines[1]["hits"], 3 + 5);
  EXPECT_EQ(lines[1]["size"], first[1].file.size()) << "the smaller, earlier file stays";
  EXPECT_EQ(lines[2]["hits"], 6);
  EXPECT_EQ(lines[2]["size"], second[1].file.size()) << "the smaller, new file replaces it";
  EXPECT_EQ(
      stguard::base::read_file(dir / "findings" / (first[2].signature.bucket() + ".safetensors"))
          ->size(),
      second[1].file.size());
  const stguard::base::Result<std::string> hunt = stguard::base::read_file(dir / "hunt.json");
  ASSERT_TRUE(hunt) << hunt.error().message;
  EXPECT_EQ(*hunt, "{\"reader\":\"fake\",\"runs\":150,\"buckets\":" + std::to_string(report.total) +
                       "}\n");
  // Every bucket has its stanza, once.
  const stguard::base::Result<std::string> cases = stguard::base::read_file(dir / "cases.txt");
  ASSERT_TRUE(cases) << cases.error().message;
  for (const nlohmann::json& line : lines) {
    const std::string name = "\ncase: hunt-" + line["bucket"].get<std::string>() + "\n";
    EXPECT_NE(cases->find(name), std::string::npos) << name;
    EXPECT_EQ(cases->find(name), cases->rfind(name)) << name;
  }
  // Another reader's hunt is not merged into this one.
  std::vector<const Bucket*> pointers;
  stguard::base::Result<stguard::base::OwnedDir> owned =
      stguard::base::OwnedDir::claim(dir, "hunt");
  ASSERT_TRUE(owned) << owned.error().message;
  EXPECT_EQ(failure_of(stguard::hunt::write_findings(*owned, pointers, "other", 1)),
            dir.string() + " holds the findings of reader fake, not other: give another --out");
}

}  // namespace
