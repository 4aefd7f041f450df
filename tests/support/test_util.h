// tests/support/test_util.h: assertions shared by the unit tests.
//
//   EXPECT_TRUE(Rejects(stguard::parse(bytes), Reason::kOffsetGap, 42));
//   EXPECT_TRUE(Accepts(stguard::parse(bytes, Reference())));
//
// Verdicts are compared by reason and absolute offset, never by message text;
// the message is only printed to explain a failure.
#ifndef STGUARD_TESTS_SUPPORT_TEST_UTIL_H_
#define STGUARD_TESTS_SUPPORT_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace stguard {

// gtest prints reasons and profiles by name.
inline void PrintTo(Reason reason, std::ostream* os) { *os << reason_name(reason); }
inline void PrintTo(Profile profile, std::ostream* os) { *os << profile_name(profile); }
inline void PrintTo(Dtype dtype, std::ostream* os) { *os << dtype_name(dtype); }

}  // namespace stguard

namespace stguard_test {

inline stguard::ParseOptions Strict() { return stguard::ParseOptions{}; }

inline stguard::ParseOptions Reference() {
  stguard::ParseOptions options;
  options.profile = stguard::Profile::kReference;
  return options;
}

inline stguard::ParseOptions WithProfile(stguard::Profile profile) {
  stguard::ParseOptions options;
  options.profile = profile;
  return options;
}

template <class T>
::testing::AssertionResult Accepts(const stguard::Result<T>& result) {
  if (result.has_value()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "rejected: " << result.error().to_string();
}

// `offset` nullopt: only the reason is fixed.
template <class T>
::testing::AssertionResult Rejects(const stguard::Result<T>& result, stguard::Reason reason,
                                   std::optional<std::uint64_t> offset) {
  if (result.has_value()) {
    return ::testing::AssertionFailure()
           << "accepted, expected " << stguard::reason_name(reason)
           << (offset ? " at byte " + std::to_string(*offset) : std::string());
  }
  const stguard::Error& error = result.error();
  if (error.reason != reason || (offset && error.offset != *offset)) {
    return ::testing::AssertionFailure()
           << "expected " << stguard::reason_name(reason)
           << (offset ? " at byte " + std::to_string(*offset) : std::string(" (any offset)"))
           << ", got " << error.to_string();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_TEST_UTIL_H_
