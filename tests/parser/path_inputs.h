// The inputs and the observable answer shared by the tests that compare two
// ways of parsing the same bytes (simd_paths_test.cc: SIMD paths against the
// baseline; window_paths_test.cc: a header read a window at a time against
// the whole header; layer_paths_test.cc: the plain path and the fast paths'
// combinations against all of them), and checkpoint-shaped files: every corpus file, every fuzz
// regression and 10,000 mutated corpus files (seeded: half token-level edits from
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

// A checkpoint's file: 16-byte tensors (BF16 [4,2], or F32 [4] for a norm),
// named as a PyTorch state_dict names them, `begin` being each one's data
// offset, listed in the order given, with the metadata first, then `pad`
// spaces.
struct CheckpointTensor {
  std::string name;
  std::uint64_t begin;
};
std::vector<std::uint8_t> file_of(const std::vector<CheckpointTensor>& tensors,
                                  const std::string& metadata = R"({"format":"pt"})",
                                  std::size_t pad = 0);

// `count` tensors in the order of their data: names sorted; as the upstream
// writer orders them (by dtype, the F32 norms first, then by name), so that
// names ascend up to the dtype's change; in state_dict order; shuffled names.
enum class Order { kSorted, kWriter, kStateDict, kShuffled };
std::vector<CheckpointTensor> tensors_of(std::size_t count, Order order);

// file_of(tensors_of(count, order)).
std::vector<std::uint8_t> checkpoint(std::size_t count, Order order);

}  // namespace stguard_test

#endif  // STGUARD_TESTS_PARSER_PATH_INPUTS_H_
