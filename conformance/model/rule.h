// conformance/model/rule.h: a rule of docs/spec.md as the corpus carries it:
// declared in conformance/vocabulary.txt, copied into manifest.json's
// "rules", named by each case's "rules".
//
//   for (const stguard::conformance::Rule& rule : manifest.rules)
//     if (rule.enforcement == RuleEnforcement::kBoth) use(rule.id, rule.reasons);
#ifndef STGUARD_CONFORMANCE_MODEL_RULE_H_
#define STGUARD_CONFORMANCE_MODEL_RULE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::conformance {

// Who holds a reader to a rule.
enum class RuleEnforcement {
  kBoth,         // "both": both profiles reject a file that breaks it
  kStrict,       // "strict": only strict rejects it; upstream (reference) accepts
  kAccepted,     // "accepted": a freedom the format grants; only accepted cases exercise it
  kEnvironment,  // "environment": about reading the file; no file's bytes can break it
};

std::string_view rule_enforcement_name(RuleEnforcement enforcement) noexcept;
// nullopt for anything but the four names above.
std::optional<RuleEnforcement> rule_enforcement_from_name(std::string_view name) noexcept;

struct Rule {
  std::string id;  // "ST-LEN-1"
  RuleEnforcement enforcement = RuleEnforcement::kBoth;
  std::vector<std::string> reasons;  // the stguard reason codes that report a break
  std::string summary;               // the rule in one line

  bool operator==(const Rule&) const = default;
};

// "ST-" then upper-case letters, "-", digits: "ST-LEN-1".
bool is_rule_id(std::string_view text) noexcept;

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_MODEL_RULE_H_
