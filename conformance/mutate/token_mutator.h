// conformance/mutate/token_mutator.h: the token-level mutator behind the fuzz_mutator
// harness (its LLVMFuzzerCustomMutator) and `stguard hunt`.
//
// Raw byte mutation mostly breaks the length prefix or the JSON syntax, so
// inputs die at the first checks. This mutator keeps the 8-byte prefix equal
// to the header length and edits the header's JSON at the token level:
// numbers to boundary values (0, 2^53, 2^64-1, 2^64, ...), repeated and
// deleted keys, dtype swaps, shifted data offsets, inserted whitespace,
// escapes and BOMs, and a data buffer one byte longer or shorter.
//
//   std::vector<std::uint8_t> file = read_valid_file();
//   std::vector<std::uint8_t> edited = stguard::mutate::mutate_copy(file, seed);
//
// Deterministic: the same bytes, room and seed give the same result.
#ifndef STGUARD_CONFORMANCE_MUTATE_TOKEN_MUTATOR_H_
#define STGUARD_CONFORMANCE_MUTATE_TOKEN_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stguard::mutate {

// A whole-input byte mutation to fall back on (libFuzzer's LLVMFuzzerMutate):
// mutates data[0, size) in place within max_size bytes, returns the new size.
using FallbackMutator = std::size_t (*)(std::uint8_t* data, std::size_t size, std::size_t max_size);

// Mutates data[0, size) in place; the buffer holds max_size bytes (the result
// never grows past them; with max_size < size only shrinking edits apply).
// One edit as a rule; a few stacked when an edit does not fit. Without a
// fallback (nullptr), a byte flip stands in for it. Returns the new size.
std::size_t mutate_tokens(std::uint8_t* data, std::size_t size, std::size_t max_size,
                          unsigned int seed, FallbackMutator fallback);

// mutate_tokens on a copy of `input` with room for `room` more bytes and no
// fallback: the edited file.
std::vector<std::uint8_t> mutate_copy(std::span<const std::uint8_t> input, unsigned int seed,
                                      std::size_t room = 64);

// One layout edit on a copy of `input` (a file whose prefix fits it;
// anything else comes back unchanged): a tensor entry copied under a new
// name (the same range claimed twice, sizes matching), or both data offsets
// of one tensor moved by the same amount (an overlap with a neighbour, or a
// gap). Files with such a single fault are what finds a reader that skips
// the overlap check; the token-level edits rarely make one, since a
// changed offset usually breaks the size first. Not part of mutate_tokens,
// so the fuzz harness's mutator is unchanged.
std::vector<std::uint8_t> mutate_layout(std::span<const std::uint8_t> input, unsigned int seed);

}  // namespace stguard::mutate

#endif  // STGUARD_CONFORMANCE_MUTATE_TOKEN_MUTATOR_H_
