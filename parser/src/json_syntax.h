// The syntax-only pass over a header: are its leading whitespace and its
// first JSON value well-formed (RFC 8259), and if not, where is the first
// syntax error?
//
// The header scanner (header_scanner.h) stops at its first fault, whatever
// its kind. docs/reasons.md makes a syntax error in the header's value win
// over every other fault of the header, wherever it is, so when the scanner
// stops at a fault that is not a syntax error, before the end of the value,
// header.cc runs this pass over the rest of the header to look for one. It
// only runs on the reject path: an accepted header is JSON. What follows the
// end of the value is not looked at: the profiles' padding rules judge it,
// once the value has no fault.
//
// It checks syntax alone: no profile rules, no nesting limit, no number
// range (those are the scanner's). Offsets and messages are the JSON lexer's
// (json_lexer.h), so a fault both find is reported alike. Iterative: nesting
// costs one bit per level, never native stack.
//
// Precondition: the bytes are valid UTF-8, as for the lexer.
#ifndef STGUARD_SRC_JSON_SYNTAX_H_
#define STGUARD_SRC_JSON_SYNTAX_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/kernels.h"
#include "stguard/error.h"

namespace stguard::detail {

// The first syntax error in the value that starts [begin, end) (after JSON
// whitespace) as a kHeaderNotJson error, with offsets from `file_base`, the
// absolute offset of `begin`; nullopt when that value is well-formed.
// Strings are scanned with `kernels`.
//
// `member_at`, when not null, is where the pass may start instead of the
// beginning: the opening quote of a key of the top-level object, all of whose
// bytes before it are known to be well-formed (the scanner read them). The
// answer is the one a pass from the beginning gives, which would be at that
// key in the same state: inside the top-level object, at a key.
std::optional<Error> find_json_syntax_error(const std::uint8_t* begin, const std::uint8_t* end,
                                            std::uint64_t file_base, const Kernels& kernels,
                                            const std::uint8_t* member_at = nullptr);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_JSON_SYNTAX_H_
