// conformance/model/verdict.h: what a case expects of a reader, and what a
// reader said: one enum for the whole of conformance/, with the names the
// manifest and the JSON-lines results write.
//
//   stguard::conformance::Verdict v = stguard::conformance::Verdict::kEither;
//   std::string_view name = stguard::conformance::verdict_name(v);        // "either"
//   auto back = stguard::conformance::verdict_from_name("reject");        // kReject
//
// A case is `accept` or `reject` when stguard's strict and reference profiles
// agree on it, and `either` when they differ (a reader may do either). A
// profile's own verdict, and a reader's, is only ever kAccept or kReject.
#ifndef STGUARD_CONFORMANCE_MODEL_VERDICT_H_
#define STGUARD_CONFORMANCE_MODEL_VERDICT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace stguard::conformance {

enum class Verdict : std::uint8_t {
  kAccept = 0,  // "accept"
  kReject = 1,  // "reject"
  kEither = 2,  // "either": the profiles differ
};

std::string_view verdict_name(Verdict verdict) noexcept;

// nullopt for anything but "accept", "reject" and "either" (exact, lower case).
std::optional<Verdict> verdict_from_name(std::string_view name) noexcept;

// The verdict of a case whose strict and reference profiles give `strict` and
// `reference` (each kAccept or kReject): the one they share, or kEither.
constexpr Verdict case_verdict(Verdict strict, Verdict reference) noexcept {
  return strict == reference ? strict : Verdict::kEither;
}

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_MODEL_VERDICT_H_
