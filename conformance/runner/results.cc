// conformance/runner/results.cc: grade names.
#include "conformance/runner/results.h"

namespace stguard::conformance {

std::string_view grade_name(Grade grade) noexcept {
  switch (grade) {
    case Grade::kCrash:
      return "CRASH";
    case Grade::kTimeout:
      return "TIMEOUT";
    case Grade::kFailShouldReject:
      return "FAIL_SHOULD_REJECT";
    case Grade::kFailWrongContent:
      return "FAIL_WRONG_CONTENT";
    case Grade::kFailShouldAccept:
      return "FAIL_SHOULD_ACCEPT";
    case Grade::kFailInvalidOutput:
      return "FAIL_INVALID_OUTPUT";
    case Grade::kFailShouldRefuse:
      return "FAIL_SHOULD_REFUSE";
    case Grade::kFailShouldWrite:
      return "FAIL_SHOULD_WRITE";
    case Grade::kProtocolError:
      return "PROTOCOL_ERROR";
    case Grade::kImplAccept:
      return "IMPL_ACCEPT";
    case Grade::kImplReject:
      return "IMPL_REJECT";
    case Grade::kNotApplicable:
      return "NOT_APPLICABLE";
    case Grade::kPass:
      return "PASS";
  }
  return "PROTOCOL_ERROR";
}

std::optional<Grade> grade_from_name(std::string_view name) noexcept {
  for (Grade grade : kAllGrades) {
    if (grade_name(grade) == name) return grade;
  }
  return std::nullopt;
}

}  // namespace stguard::conformance
