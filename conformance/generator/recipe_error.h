// conformance/generator/recipe_error.h (internal to conformance/generator/):
// the exceptions the recipe parser and the byte builder throw from deep
// inside, caught at the module's edge. Nothing outside the generator sees
// them: its functions return base::Result (recipe.h, corpus.h).
#ifndef STGUARD_CONFORMANCE_GENERATOR_RECIPE_ERROR_H_
#define STGUARD_CONFORMANCE_GENERATOR_RECIPE_ERROR_H_

#include <stdexcept>
#include <string>

#include "base/failure.h"

namespace stguard::conformance {

// A recipe (or a whole recipe set) that cannot be used. The message starts
// with "file:line: " where a line is known.
class RecipeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The recipes (or a file they name) could not be read at all: the work was
// not done, rather than done and found wrong.
class RecipeReadError : public RecipeError {
 public:
  using RecipeError::RecipeError;
};

struct SourceLine;  // recipe.h

// Throws a RecipeError whose message is "file:line: message".
[[noreturn]] void fail(const SourceLine& at, const std::string& message);

// Runs `work` (returning T), turning a RecipeError it throws into the
// Failure it stands for (io for a RecipeReadError).
template <class T, class Work>
base::Result<T> recipe_result(Work&& work) {
  try {
    return work();
  } catch (const RecipeReadError& e) {
    return base::io_failure(e.what());
  } catch (const RecipeError& e) {
    return base::fail(e.what());
  }
}

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_RECIPE_ERROR_H_
