// tests/support/failure_of.h: what a base::Result failed with, for assertions.
//
//   EXPECT_EQ(failure_of(write_file(path, "x")), "cannot write PATH: Is a directory");
//   EXPECT_EQ(failure_of(write_file(path, "x")), "");  // it succeeded
#ifndef STGUARD_TESTS_SUPPORT_FAILURE_OF_H_
#define STGUARD_TESTS_SUPPORT_FAILURE_OF_H_

#include <string>

#include "base/failure.h"

namespace stguard_test {

// The failure's message, or "" when `result` holds a value.
template <class T>
std::string failure_of(const stguard::base::Result<T>& result) {
  return result ? std::string() : result.error().message;
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_FAILURE_OF_H_
