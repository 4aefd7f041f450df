// generator/rule_coverage.cc: rule coverage of the recipes (rule_coverage.h).
#include "conformance/generator/rule_coverage.h"

#include <algorithm>

namespace stguard::conformance {

std::vector<RuleCoverage> rule_coverage(const RecipeSet& set) {
  std::vector<RuleCoverage> rows;
  rows.reserve(set.vocabulary.rules.size());
  for (const Rule& rule : set.vocabulary.rules) {
    RuleCoverage row;
    row.rule = &rule;
    const bool strict_only = rule.enforcement == RuleEnforcement::kStrict;
    for (const Recipe* r : set.all()) {
      if (std::find(r->rules.begin(), r->rules.end(), rule.id) == r->rules.end()) continue;
      const bool alone = r->rules.size() == 1;
      switch (r->verdict()) {
        case Verdict::kAccept:
          ++row.accepted;
          break;
        case Verdict::kReject:
          ++row.rejected;
          if (alone) ++row.only_fault;
          break;
        case Verdict::kEither:
          ++row.contested;
          if (alone && strict_only) ++row.only_fault;
          break;
      }
    }
    switch (rule.enforcement) {
      case RuleEnforcement::kBoth:
      case RuleEnforcement::kStrict:
        if (row.only_fault == 0) {
          row.gap = strict_only
                        ? "no case that strict alone rejects with this rule as its only fault"
                        : "no rejected case with this rule as its only fault";
        } else if (row.accepted == 0) {
          row.gap = "no accepted case that holds this rule at an edge";
        }
        break;
      case RuleEnforcement::kAccepted:
        if (row.accepted == 0) row.gap = "no accepted case that exercises this freedom";
        break;
      case RuleEnforcement::kEnvironment:
        break;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace stguard::conformance
