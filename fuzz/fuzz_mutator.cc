// Every invariant (stguard_fuzz::check_all: fuzz_parse's checks plus the
// validate_header, prefix-only and window cross-checks) behind a structure-aware
// custom mutator, the token-level mutator of conformance/mutate/token_mutator.h (shared
// with `stguard hunt`).
//
// Raw byte mutation mostly breaks the length prefix or the JSON syntax, so
// inputs die at the first checks. LLVMFuzzerCustomMutator here keeps the
// 8-byte prefix equal to the header length and edits the header's JSON at the
// token level: numbers to boundary values (0, 2^53, 2^64-1, 2^64, ...),
// repeated and deleted keys, dtype swaps, shifted data offsets, inserted
// whitespace, escapes and BOMs, and a data buffer one byte longer or shorter.
// It works in place in the buffer libFuzzer hands over (no allocation, per
// docs/fuzzing.md, pitfall 12) and falls back to libFuzzer's own mutation now and then.
//
// In replay builds the replay main also runs this mutator a few times over
// every input and replays the results, so the mutator itself is checked
// under the sanitizers too.
#include <cstddef>
#include <cstdint>

#include "conformance/mutate/token_mutator.h"
#include "fuzz_invariants.h"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size)
    __attribute__((weak));

// LLVMFuzzerMutate is weak: null outside libFuzzer (replay builds), and the
// mutator then falls back to a byte flip.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return stguard::mutate::mutate_tokens(data, size, max_size, seed, LLVMFuzzerMutate);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stguard_fuzz::check_all(data, size);
  return 0;
}
