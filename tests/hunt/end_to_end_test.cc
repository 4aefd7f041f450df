// tests/hunt/end_to_end_test.cc: `stguard hunt` against a fake reader with a
// planted bug (stguard_fake_reader plain-no-overlap-check: it never checks
// that tensors overlap). A fixed-seed hunt finds the overlap bucket with a
// small minimised file; the same seed and --runs give the same findings;
// promoting the bucket and building the corpus makes a case on which
// `stguard conform` grades that reader FAIL_SHOULD_REJECT. Against a reader
// that prints names unquoted and crashes with sanitizer reports, buckets
// follow the messages' shape and the crashes' cause.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::CliRun;
using stguard_test::run_cli;
using stguard_test::TempDir;

const std::string kPlantedBug =
    std::string("'") + STGUARD_FAKE_READER_PATH + "' plain-no-overlap-check";

using stguard_test::read_text;

// Seed 6 finds the overlap within 200 runs in corpus 5, and some finding
// within 60 (seeds 2 to 5, 8, 10 and 12 find no overlap, 1 nothing in 60;
// overlaps are about one file in 300, and a new corpus changes which files a
// seed makes, so it may need another seed).
CliRun hunt_planted_bug(const fs::path& out, const std::string& runs,
                        const std::string& minimise_runs) {
  return run_cli({"hunt", "--adapter", kPlantedBug, "--plain", "--name", "no-overlap-check",
                  "--runs", runs, "--seed", "6", "-j", "2", "--minimise-runs", minimise_runs,
                  "--corpus", STGUARD_CORPUS_DIR, "--out", out.string(), "-q"});
}

// The findings.jsonl line of the overlap bucket, if any.
std::optional<nlohmann::json> overlap_bucket(const fs::path& out) {
  std::ifstream in(out / "findings.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] == "accepts-invalid" && j["strict_reason"] == "OFFSET_OVERLAP") return j;
  }
  return std::nullopt;
}

TEST(HuntEndToEnd, FindsPromotesAndGradesThePlantedOverlapBug) {
  const TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const CliRun run = hunt_planted_bug(out, "200", "120");
  ASSERT_EQ(run.exit_code, 1) << run.err;  // divergences found
  const std::optional<nlohmann::json> overlap = overlap_bucket(out);
  ASSERT_TRUE(overlap) << read_text(out / "findings.jsonl");
  EXPECT_EQ((*overlap)["reader_verdict"], "accept");
  EXPECT_LE((*overlap)["size"].get<std::size_t>(), 512u);
  const fs::path file = out / (*overlap)["file"].get<std::string>();
  EXPECT_EQ(fs::file_size(file), (*overlap)["size"].get<std::size_t>());
  EXPECT_FALSE(fs::exists(out / ".work"));
  const std::string bucket = (*overlap)["bucket"];

  // Promote into a copy of the recipes, build, grade.
  const fs::path recipes = dir.path() / "conformance";
  fs::create_directories(recipes);
  fs::copy(fs::path(STGUARD_RECIPES_DIR) / "vocabulary.txt", recipes / "vocabulary.txt");
  fs::copy(fs::path(STGUARD_RECIPES_DIR) / "cases", recipes / "cases");
  fs::copy(fs::path(STGUARD_RECIPES_DIR) / "corpus_readme.md.in", recipes / "corpus_readme.md.in");
  const CliRun promote = run_cli({"hunt", "promote", out.string(), "--group", "hunt", "--bucket",
                                  bucket, "--recipes", recipes.string()});
  ASSERT_EQ(promote.exit_code, 0) << promote.err;
  EXPECT_NE(promote.out.find("promoted hunt/hunt-" + bucket), std::string::npos) << promote.out;
  const fs::path corpus = dir.path() / "corpus";
  const CliRun build =
      run_cli({"corpus", "build", "--recipes", recipes.string(), "--out", corpus.string()});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  const fs::path results = dir.path() / "results.jsonl";
  const CliRun conform =
      run_cli({"conform", "--adapter", kPlantedBug, "--plain", "--name", "no-overlap-check",
               "--corpus", corpus.string(), "--case", "hunt/*", "--jsonl", results.string(), "-q"});
  EXPECT_EQ(conform.exit_code, 1) << conform.err;
  std::ifstream in(results);
  bool graded = false;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (!j.contains("case") || j["case"] != "hunt/hunt-" + bucket) continue;
    EXPECT_EQ(j["grade"], "FAIL_SHOULD_REJECT") << line;
    graded = true;
  }
  EXPECT_TRUE(graded) << read_text(results);
}

TEST(HuntEndToEnd, TheSameSeedAndRunsGiveTheSameFindings) {
  const TempDir dir;
  const CliRun first = hunt_planted_bug(dir.path() / "first", "60", "40");
  const CliRun second = hunt_planted_bug(dir.path() / "second", "60", "40");
  ASSERT_EQ(first.exit_code, 1) << first.err;
  ASSERT_EQ(second.exit_code, 1) << second.err;
  EXPECT_EQ(first.out, second.out);
  const std::string findings = read_text(dir.path() / "first" / "findings.jsonl");
  EXPECT_FALSE(findings.empty());
  EXPECT_EQ(findings, read_text(dir.path() / "second" / "findings.jsonl"));
  EXPECT_EQ(read_text(dir.path() / "first" / "cases.txt"),
            read_text(dir.path() / "second" / "cases.txt"));
}

// A reader that prints the file's tensor names unquoted and crashes, with a
// sanitizer report, on two root causes whatever else the file breaks
// (stguard_fake_reader names-and-crashes). Before, its messages made a
// bucket per name pair (15 rejects-valid buckets in a hunt of 1,500 runs),
// and its crashes a bucket per pair of stguard reasons, both causes merged
// under "exit status 1" (55 buckets), the report itself nowhere in
// findings.jsonl. 500 runs hit each crash dozens of times and every message
// shape, which is all the test needs.
TEST(HuntEndToEnd, NamesDoNotSplitBucketsAndCrashesAreKeyedByTheirCause) {
  const TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const CliRun run = run_cli(
      {"hunt", "--adapter", std::string("'") + STGUARD_FAKE_READER_PATH + "' names-and-crashes",
       "--name", "names-and-crashes", "--runs", "500", "--seed", "5", "-j", "2", "--minimise-runs",
       "20", "--corpus", STGUARD_CORPUS_DIR, "--out", out.string(), "-q"});
  ASSERT_EQ(run.exit_code, 1) << run.err;
  std::map<std::string, nlohmann::json> crashes;  // by crash state
  std::set<std::string> rejects;                  // reader_error of rejects-valid buckets
  std::ifstream in(out / "findings.jsonl");
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] == "crash") {
      EXPECT_TRUE(crashes.emplace(j["reader_error"].get<std::string>(), j).second) << line;
    } else {
      ASSERT_EQ(j["kind"], "rejects-valid") << line;
      EXPECT_TRUE(j.at("stderr").is_null()) << line;
      EXPECT_TRUE(rejects.insert(j["reader_error"].get<std::string>()).second) << line;
    }
  }
  // The reader's three messages with the names blanked; a name that is
  // empty leaves a message of another shape.
  const std::set<std::string> shapes = {"no tensors", "tensor _ is not aligned",
                                        "offsets for _ _ overlap", "tensor is not aligned",
                                        "offsets for _ overlap"};
  EXPECT_FALSE(rejects.empty());
  for (const std::string& message : rejects) EXPECT_TRUE(shapes.count(message)) << message;
  ASSERT_EQ(crashes.size(), 2u) << read_text(out / "findings.jsonl");
  const auto metadata =
      crashes.find("heap-buffer-overflow READ in parse_metadata, read_header, main");
  const auto shape = crashes.find("SEGV READ in shape_product, read_entry, read_header");
  ASSERT_NE(metadata, crashes.end());
  ASSERT_NE(shape, crashes.end());
  for (const auto& [state, j] : crashes) {
    const std::string stderr_text = j.at("stderr").get<std::string>();
    EXPECT_NE(stderr_text.find("==ERROR: AddressSanitizer: "), std::string::npos) << stderr_text;
    EXPECT_NE(stderr_text.find("==ABORTING"), std::string::npos) << stderr_text;
    EXPECT_GT(j["hits"].get<int>(), 1);
  }
  // The long report kept its head and tail.
  EXPECT_NE(metadata->second.at("stderr").get<std::string>().find("bytes dropped"),
            std::string::npos);
}

TEST(HuntEndToEnd, ARightReaderHasNoFindings) {
  const TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const CliRun run = run_cli({"hunt", "--reader", "stguard-reference", "--runs", "24", "--seed",
                              "3", "-j", "2", "--out", out.string(), "-q"});
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(read_text(out / "findings.jsonl"), "");
  EXPECT_EQ(read_text(out / "cases.txt"), "");
}

TEST(HuntEndToEnd, UsageErrors) {
  EXPECT_EQ(run_cli({"hunt"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hunt", "--adapter", "x", "--reader", "y"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hunt", "--reader", "stguard-strict", "--runs", "0"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hunt", "promote", "/nonexistent", "--group", "hunt", "--recipes", "/tmp"})
                .exit_code,
            2);
  EXPECT_EQ(run_cli({"hunt", "promote", "/nonexistent"}).exit_code, 2);
}

}  // namespace
