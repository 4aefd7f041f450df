// conformance/model/release.h: upstream safetensors releases ("0.4.0"), as a
// case's `since` and a reader's `implements` name them (docs/spec.md,
// "Releases").
//
//   if (stguard::conformance::is_release(text) &&
//       stguard::conformance::compare_releases(since, implements) > 0) { /* not applicable */ }
#ifndef STGUARD_CONFORMANCE_MODEL_RELEASE_H_
#define STGUARD_CONFORMANCE_MODEL_RELEASE_H_

#include <string_view>

namespace stguard::conformance {

// Dot-separated decimal numbers of at most 9 digits each: "0.4", "0.4.0".
bool is_release(std::string_view text) noexcept;

// Compares two releases component by component, a missing component counting
// as 0 ("0.5" equals "0.5.0"): negative, zero or positive. Both must satisfy
// is_release.
int compare_releases(std::string_view a, std::string_view b) noexcept;

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_MODEL_RELEASE_H_
