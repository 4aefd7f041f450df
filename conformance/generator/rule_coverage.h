// generator/rule_coverage.h: how well the recipes cover docs/spec.md's rules.
//
//   const std::vector<stguard::conformance::RuleCoverage> rows =
//       stguard::conformance::rule_coverage(set);
//   for (const auto& row : rows)
//     if (!row.gap.empty()) report(row.rule->id, row.gap);
//
// A rule is covered when the corpus can catch a reader that breaks only that
// rule: a file it must reject whose only fault is that rule (`rules:` naming
// it alone; for a rule only strict enforces, a case the profiles disagree
// on), and a file it must accept that holds the rule at an edge. Rules the
// format grants (`accepted`) need only the accepted file; rules about
// reading (`environment`) nothing.
#ifndef STGUARD_CONFORMANCE_GENERATOR_RULE_COVERAGE_H_
#define STGUARD_CONFORMANCE_GENERATOR_RULE_COVERAGE_H_

#include <string>
#include <vector>

#include "conformance/generator/recipe.h"

namespace stguard::conformance {

struct RuleCoverage {
  const Rule* rule = nullptr;  // owned by the RecipeSet's vocabulary
  int accepted = 0;            // cases both profiles accept that name the rule
  int rejected = 0;            // cases both profiles reject that name the rule
  int contested = 0;           // cases the profiles disagree on that name the rule
  int only_fault = 0;          // rejected (or, for a strict rule, contested) naming it alone
  std::string gap;             // why the rule is not covered; empty when it is

  int cases() const { return accepted + rejected + contested; }
};

// One row per declared rule, in declaration order; on-demand cases count.
std::vector<RuleCoverage> rule_coverage(const RecipeSet& set);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_RULE_COVERAGE_H_
