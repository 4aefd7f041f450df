// conformance/model/rule.cc: rule enforcement names and rule ids (rule.h).
#include "conformance/model/rule.h"

namespace stguard::conformance {

std::string_view rule_enforcement_name(RuleEnforcement enforcement) noexcept {
  switch (enforcement) {
    case RuleEnforcement::kBoth:
      return "both";
    case RuleEnforcement::kStrict:
      return "strict";
    case RuleEnforcement::kAccepted:
      return "accepted";
    case RuleEnforcement::kEnvironment:
      return "environment";
  }
  return "both";
}

std::optional<RuleEnforcement> rule_enforcement_from_name(std::string_view name) noexcept {
  for (const RuleEnforcement e : {RuleEnforcement::kBoth, RuleEnforcement::kStrict,
                                  RuleEnforcement::kAccepted, RuleEnforcement::kEnvironment}) {
    if (rule_enforcement_name(e) == name) return e;
  }
  return std::nullopt;
}

bool is_rule_id(std::string_view text) noexcept {
  if (text.rfind("ST-", 0) != 0) return false;
  text.remove_prefix(3);
  const std::size_t dash = text.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash + 1 == text.size()) return false;
  for (const char c : text.substr(0, dash)) {
    if (c < 'A' || c > 'Z') return false;
  }
  for (const char c : text.substr(dash + 1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace stguard::conformance
