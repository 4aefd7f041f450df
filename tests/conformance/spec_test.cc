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
#include "tests/support/test_util.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

const fs::path kRecipesDir = STGUARD_RECIPES_DIR;
const fs::path kCorpusDir = STGUARD_CORPUS_DIR;
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
    if ((r->strict.accept && r->reference.accept) || r->on_demand()) continue;
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

}  // namespace
