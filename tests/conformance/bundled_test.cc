// tests/conformance/bundled_test.cc: `stguard conform --all-readers
// --all-writers`, the run the main job makes: stguard grades itself through
// the adapter protocol with no failure in either profile, its writer passes
// every writer case, and conformance/RESULTS.md is what the runner writes
// today (regenerate with ci/conform.sh --update-results).
//
// The JavaScript readers need `npm ci` (ci/setup-readers.sh). Without them
// the run reports them as skipped; the sync check is then skipped too,
// unless STGUARD_REQUIRE_READERS=1 (set by ci/test.sh) makes it a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

bool readers_required() {
  const char* value = std::getenv("STGUARD_REQUIRE_READERS");
  return value != nullptr && std::string(value) == "1";
}

class ConformBundled : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new stguard_test::TempDir();
    run_ = new stguard_test::CliRun(stguard_test::run_cli(
        {"conform", "--all-readers", "--all-writers", "-q", "--jsonl", dir_->file("results.jsonl"),
         "--markdown", dir_->file("RESULTS.md")}));
    std::ifstream in(dir_->file("results.jsonl"));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines_->push_back(nlohmann::json::parse(line));
    }
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }

  static std::set<std::string> skipped_readers() {
    std::set<std::string> skipped;
    for (const nlohmann::json& line : *lines_) {
      if (line.value("skipped", false)) skipped.insert(line["reader"].get<std::string>());
    }
    return skipped;
  }

  static inline stguard_test::TempDir* dir_ = nullptr;
  static inline stguard_test::CliRun* run_ = nullptr;
  static inline std::vector<nlohmann::json>* lines_ = new std::vector<nlohmann::json>();
};

TEST_F(ConformBundled, RunCompletes) {
  // 0 or 1 (third-party readers fail cases); 2 would mean the run broke.
  EXPECT_TRUE(run_->exit_code == 0 || run_->exit_code == 1) << run_->out << run_->err;
  EXPECT_NE(run_->out.find("stguard-strict"), std::string::npos) << run_->out;
}

TEST_F(ConformBundled, StguardPassesItsOwnCorpusInBothProfiles) {
  std::size_t strict = 0;
  std::size_t reference = 0;
  for (const nlohmann::json& line : *lines_) {
    const std::string reader = line["reader"];
    if (reader != "stguard-strict" && reader != "stguard-reference") continue;
    ASSERT_FALSE(line.value("skipped", false)) << line.dump();
    const bool either = line["expected"] == "either";
    const std::string want = !either                      ? "PASS"
                             : reader == "stguard-strict" ? "IMPL_REJECT"
                                                          : "IMPL_ACCEPT";
    EXPECT_EQ(line["grade"], want) << line.dump();
    ++(reader == "stguard-strict" ? strict : reference);
  }
  EXPECT_GT(strict, 400u);
  EXPECT_EQ(strict, reference);
}

TEST_F(ConformBundled, StguardsWriterPassesEveryWriterCase) {
  std::size_t cases = 0;
  for (const nlohmann::json& line : *lines_) {
    if (line["reader"] != "stguard-write") continue;
    ASSERT_FALSE(line.value("skipped", false)) << line.dump();
    EXPECT_EQ(line["grade"], "PASS") << line.dump();
    ++cases;
  }
  EXPECT_GE(cases, 60u);
}

TEST_F(ConformBundled, ThirdPartyReadersRan) {
  std::set<std::string> skipped = skipped_readers();
  if (skipped.empty()) return;
  std::string names;
  for (const std::string& name : skipped) names += " " + name;
  if (readers_required()) FAIL() << "readers not installed:" << names;
  GTEST_SKIP() << "readers not installed (run ci/setup-readers.sh):" << names;
}

// "line 42:\n  committed: ...\n  fresh:     ..." for the first line that
// differs, so that a CI log says what changed without the files at hand.
std::string first_difference(const std::string& committed, const std::string& fresh) {
  std::istringstream a(committed);
  std::istringstream b(fresh);
  std::string line_a;
  std::string line_b;
  for (std::size_t line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "(no line differs: the line endings do)";
    if (more_a != more_b || line_a != line_b) {
      return "first difference, line " + std::to_string(line) +
             ":\n  committed: " + (more_a ? line_a : "(end of file)") +
             "\n  fresh:     " + (more_b ? line_b : "(end of file)");
    }
  }
}

TEST_F(ConformBundled, ResultsMarkdownIsInSync) {
  if (!skipped_readers().empty() && !readers_required()) {
    GTEST_SKIP() << "a bundled reader is not installed; RESULTS.md cannot be compared";
  }
  const std::string committed = stguard_test::read_text(STGUARD_RECIPES_DIR "/RESULTS.md");
  const std::string fresh = stguard_test::read_text(dir_->file("RESULTS.md"));
  ASSERT_FALSE(fresh.empty());
  EXPECT_TRUE(committed == fresh)
      << "conformance/RESULTS.md differs from what the runner writes now; regenerate it with "
         "ci/conform.sh --update-results and commit the change.\n"
      << first_difference(committed, fresh);
}

}  // namespace
