// base/failure.h: the one error model of the modules above the parser.
//
// The parser answers with stguard::Result<T> (a value, or an Error with a
// reason code and a byte offset). Everything around it (files, folders,
// manifests, recipes, adapters, reports) answers with base::Result<T>: the
// same type, whose error is a Failure, a sentence for a person that names
// what failed, the path and the system's reason.
//
//   stguard::base::Result<std::string> text = stguard::base::read_file("manifest.json");
//   if (!text) return fail(text.error().message);  // "cannot read manifest.json: ..."
//   use(*text);
//
//   stguard::base::Result<void> written = stguard::base::write_file(path, bytes);
//   if (!written) ...
//
// A function that can fail takes no out-parameter for its error; it returns
// the Result, and its comment says which failures it reports.
#ifndef STGUARD_BASE_FAILURE_H_
#define STGUARD_BASE_FAILURE_H_

#include <string>
#include <string_view>
#include <utility>

#include "stguard/result.h"

namespace stguard::base {

struct Failure {
  std::string message;
  // True when a file could not be read or written: the work was not done
  // (a command exits 2), as against input that was read and found wrong.
  bool io = false;

  // The same failure, with `context` before its message ("PATH: " + ...).
  Failure in(std::string_view context) const {
    return Failure{std::string(context) + ": " + message, io};
  }
};

template <class T>
using Result = stguard::Result<T, Failure>;

// `return base::fail("why");` from a function returning base::Result<T>.
inline Failure fail(std::string message) { return Failure{std::move(message), false}; }

// The same for a file that could not be read or written.
inline Failure io_failure(std::string message) { return Failure{std::move(message), true}; }

}  // namespace stguard::base

#endif  // STGUARD_BASE_FAILURE_H_
