// The inputs and the observable answer shared by the tests that compare two
// ways of parsing the same bytes (simd_paths_test.cc: SIMD paths against the
// baseline; window_paths_test.cc: a header read a window at a time against
// the whole header): every corpus file, every fuzz regression and 10,000
// mutated corpus files (seeded: half token-level edits from
// conformance/mutate/, half 1 to 3 random bytes changed, which break the
// UTF-8 and the strings where the vector kernels work).
#ifndef STGUARD_TESTS_PARSER_PATH_INPUTS_H_
#define STGUARD_TESTS_PARSER_PATH_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "stguard/header.h"

namespace stguard_test {

struct PathInput {
  std::string label;
  std::vector<std::uint8_t> bytes;
};

// The corpus files, then the regressions, then the mutations, in the same
// order on every machine.
std::vector<PathInput> every_path_input();

// Everything a caller can observe of a parse, as text: the error, or the
// header with every tensor and metadata pair.
std::string describe(const stguard::Result<stguard::Header>& result);
std::string describe(const stguard::Result<stguard::HeaderSummary>& result);

}  // namespace stguard_test

#endif  // STGUARD_TESTS_PARSER_PATH_INPUTS_H_
