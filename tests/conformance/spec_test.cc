// tests/conformance/spec_test.cc: docs/spec.md's rules against the corpus
// (suites CorpusSpec*, run with the corpus replay: ctest -L corpus).
//
//   CorpusSpec.EveryRuleIsCovered        a reader breaking only one rule fails a case
//   CorpusSpec.EveryReasonBelongsToARule the rules' reasons are all of stguard's
//   CorpusSpec.SpecDocumentsEveryRule    docs/spec.md has a section per rule, no other id
//   CorpusSpec.RejectedCasesAreOneRepairFromValid
//                                        every rejected case's repair: both profiles accept
//   CorpusSpec.VersionFollowsTheCases    the recorded corpus version names this corpus,
//                                        and any change to a case needs a new one
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"
#include "conformance/generator/rule_coverage.h"
#include "conformance/model/manifest.h"
#include "stguard/stguard.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

using conformance_test::kCorpusDir;
using conformance_test::kRecipesDir;
const fs::path kSpecPath = fs::path(STGUARD_RECIPES_DIR) / ".." / "docs" / "spec.md";

const stguard::base::Result<conf::RecipeSet>& recipes() {
  static const stguard::base::Result<conf::RecipeSet> set = conf::load_recipes(kRecipesDir);
  return set;
}

TEST(CorpusSpec, EveryRuleIsCovered) {
  const auto& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_FALSE(set->vocabulary.rules.empty());
  for (const conf::RuleCoverage& row : conf::rule_coverage(*set)) {
    EXPECT_TRUE(row.gap.empty()) << row.rule->id << ": " << row.gap
                                 << " (stguard corpus list --rules)";
  }
}

TEST(CorpusSpec, EveryReasonBelongsToARule) {
  const auto& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  std::set<std::string> covered;
  for (const conf::Rule& rule : set->vocabulary.rules) {
    covered.insert(rule.reasons.begin(), rule.reasons.end());
  }
  for (const stguard::Reason reason : stguard::all_reasons()) {
    EXPECT_TRUE(covered.count(std::string(stguard::reason_name(reason))))
        << stguard::reason_name(reason) << " is no rule's reason in vocabulary.txt";
  }
}

TEST(CorpusSpec, SpecDocumentsEveryRule) {
  const auto& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  const stguard::base::Result<std::string> spec = stguard::base::read_file(kSpecPath);
  ASSERT_TRUE(spec) << spec.error().message;
  // Each rule is a heading "### ST-LEN-1: ..." whose section names its reasons.
  std::set<std::string> headed;
  const std::regex heading(R"(^### (ST-[A-Z]+-[0-9]+)\b)", std::regex::multiline);
  for (auto it = std::sregex_iterator(spec->begin(), spec->end(), heading);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(headed.insert((*it)[1]).second) << (*it)[1] << " has two sections";
  }
  for (const conf::Rule& rule : set->vocabulary.rules) {
    SCOPED_TRACE(rule.id);
    ASSERT_TRUE(headed.count(rule.id)) << "docs/spec.md has no `### " << rule.id << "` section";
    const std::size_t start = spec->find("### " + rule.id);
    const std::size_t end = spec->find("\n#", start + 1);
    const std::string section = spec->substr(start, end - start);
    for (const std::string& reason : rule.reasons) {
      EXPECT_NE(section.find(reason), std::string::npos) << "its section does not name " << reason;
    }
  }
  // Every id the document mentions is declared.
  const std::regex mention(R"(ST-[A-Z]+-[0-9]+)");
  for (auto it = std::sregex_iterator(spec->begin(), spec->end(), mention);
       it != std::sregex_iterator(); ++it) {
    EXPECT_NE(set->vocabulary.rule(it->str()), nullptr) << it->str() << " is not declared";
  }
}

TEST(CorpusSpec, RejectedCasesAreOneRepairFromValid) {
  const auto& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  std::vector<std::string> without_repair;
  for (const conf::Recipe* r : set->all()) {
    if (r->strict.accept && r->reference.accept) continue;  // on-demand cases too
    SCOPED_TRACE(r->id);
    if (r->repair.empty()) {
      without_repair.push_back(r->id);
      continue;
    }
    const auto bytes = conf::build_repaired(*r);
    if (!bytes) {
      ADD_FAILURE() << bytes.error().message;
      continue;
    }
    for (const stguard::Profile profile :
         {stguard::Profile::kStrict, stguard::Profile::kReference}) {
      const stguard::Result<stguard::Header> parsed =
          stguard::parse(*bytes, stguard_test::WithProfile(profile));
      EXPECT_TRUE(stguard_test::Accepts(parsed))
          << "the repaired file is rejected by " << stguard::profile_name(profile) << ": "
          << (parsed ? "" : parsed.error().message);
    }
  }
  std::string list;
  for (const std::string& id : without_repair) list += "\n  " + id;
  EXPECT_TRUE(without_repair.empty())
      << without_repair.size()
      << " rejected cases do not say what repairs them (`repair:`):" << list;
}

TEST(CorpusSpec, VersionFollowsTheCases) {
  const auto& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_TRUE(set->corpus_version) << "conformance/corpus-version.txt is missing";
  const auto corpus = conf::build_corpus(*set);
  ASSERT_TRUE(corpus) << corpus.error().message;
  const auto version = conf::corpus_version(*set, *corpus);
  ASSERT_TRUE(version) << version.error().message;
  const auto manifest = conf::read_manifest(kCorpusDir / "manifest.json");
  ASSERT_TRUE(manifest) << manifest.error().message();
  EXPECT_EQ(manifest->corpus_version, *version);

  // Changing one case's verdict, or one byte of one case, changes the
  // fingerprint, so the recorded version no longer names the corpus.
  conf::Corpus changed = *corpus;
  conf::Case& first = changed.cases.front().entry;
  first.reason = first.reason.empty() ? "OFFSET_GAP" : "";
  conf::Corpus changed_bytes = *corpus;
  changed_bytes.cases.back().entry.sha256.assign(64, '0');
  EXPECT_NE(conf::corpus_fingerprint(*set, changed), corpus->fingerprint);
  EXPECT_NE(conf::corpus_fingerprint(*set, changed_bytes), corpus->fingerprint);
  EXPECT_EQ(conf::corpus_fingerprint(*set, *corpus), corpus->fingerprint);
}

// `conform --implements`: the sub-byte and later dtypes' accepted cases are
// NOT_APPLICABLE to a reader of 0.5, counted apart, failing nothing; without
// it they are graded.
TEST(CorpusSpec, ConformImplementsGradesNewerCasesNotApplicable) {
  const stguard_test::TempDir dir;
  const auto conform = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"conform", "--adapter", "\"" STGUARD_CLI_PATH "\" adapter",
                                     "--name", "strict", "--case", "dtypes/*", "--corpus",
                                     STGUARD_CORPUS_DIR,
                                     // The adapter is this build's stguard: under ASan its
                                     // shadow memory needs more address space than any limit.
                                     "--memory-mb", "0", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return stguard_test::run_cli(args);
  };
  const stguard_test::CliRun old = conform({"--implements", "0.5"});
  EXPECT_EQ(old.exit_code, 0) << old.out << old.err;
  // f4, f6-e2m3, f6-e3m2, f8-e8m0 (0.6.0), c64 (0.7.0), both FNUZ and all-22 (0.8.0).
  EXPECT_NE(old.out.find("NOT_APPLICABLE 8"), std::string::npos) << old.out;
  const stguard_test::CliRun now = conform({});
  EXPECT_EQ(now.exit_code, 0) << now.out << now.err;
  EXPECT_EQ(now.out.find("NOT_APPLICABLE"), std::string::npos) << now.out;
  const stguard_test::CliRun bad = conform({"--implements", "latest"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("is not an upstream release"), std::string::npos) << bad.err;
}

}  // namespace
