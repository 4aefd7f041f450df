// conformance/model/verdict.cc: verdict names (verdict.h).
#include "conformance/model/verdict.h"

namespace stguard::conformance {

std::string_view verdict_name(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kAccept:
      return "accept";
    case Verdict::kReject:
      return "reject";
    case Verdict::kEither:
      return "either";
  }
  return "either";
}

std::optional<Verdict> verdict_from_name(std::string_view name) noexcept {
  for (const Verdict verdict : {Verdict::kAccept, Verdict::kReject, Verdict::kEither}) {
    if (verdict_name(verdict) == name) return verdict;
  }
  return std::nullopt;
}

}  // namespace stguard::conformance
