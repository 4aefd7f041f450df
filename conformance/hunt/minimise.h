// conformance/hunt/minimise.h: shrinks a file while a test on it keeps holding (for
// `stguard hunt`: while the reader's divergence keeps its signature).
//
//   std::vector<std::uint8_t> small = stguard::hunt::minimise(file, [&](auto bytes) {
//     return signature_of(bytes) == wanted;
//   }, {.max_tests = 400});
//
// Token-level delta debugging, the header first, then the data:
//  1. whole members ("key":value with one comma) of the header's JSON, at any
//     depth, are dropped one at a time while the test holds;
//  2. ddmin (complements of ever smaller chunks) over the header's tokens:
//     strings, numbers and other bare words, punctuation, blank runs;
//  3. ddmin over the data bytes.
// After every edit the length prefix is rewritten to the new header length.
// A file whose prefix does not fit it (shorter than 8 bytes, or 8 + N past
// the end) is shrunk by ddmin over its bytes as they are. Deterministic:
// the same file and the same answers of the test give the same result. The
// test is never called on the input itself (the caller knows it holds).
#ifndef STGUARD_CONFORMANCE_HUNT_MINIMISE_H_
#define STGUARD_CONFORMANCE_HUNT_MINIMISE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::hunt {

struct MinimiseOptions {
  std::size_t max_tests = 400;  // calls of the test at most (each one a reader run)
};

using StillHolds = std::function<bool(std::span<const std::uint8_t>)>;

// The smallest file found; `*tests` (when not null) gets the number of calls.
std::vector<std::uint8_t> minimise(std::span<const std::uint8_t> file, const StillHolds& holds,
                                   const MinimiseOptions& options, std::size_t* tests = nullptr);

// The header text split into tokens (concatenated they give the text back):
// a JSON string (to its closing quote, or the end), a run of blanks, one of
// { } [ ] : , or a run of anything else.
std::vector<std::string> header_tokens(std::string_view header);

}  // namespace stguard::hunt

#endif  // STGUARD_CONFORMANCE_HUNT_MINIMISE_H_
