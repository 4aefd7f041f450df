// A quick first reading for the syntax-only pass (json_syntax.h): a
// table-driven automaton that tells whether a JSON value is well-formed
// without saying why not.
//
// The syntax pass runs on rejected headers, which are nearly all that a
// fuzzer feeds the parser, and reads the rest of the header after the
// scanner's fault. Read by the lexer, every byte goes through a chain of
// compares; under -fsanitize=fuzzer each compare is a call into the fuzzer's
// comparison tracing, and this pass cost a quarter to a third of fuzz_parse's
// time. The automaton reads one byte per step with table lookups and no
// branch on the byte: one state transition and the stack of open containers
// kept by arithmetic. Only where it finds a fault does the lexer's pass run,
// from the last key or array element begun before it, to give the offset
// and message.
//
// It is never more lenient than the lexer's pass: what it reads as
// well-formed, the lexer does too. It may be stricter: a \u escape, or
// nesting past about kMaxSkimDepth levels, ends the skim as a fault, and
// the lexer's pass settles it.
#ifndef STGUARD_SRC_JSON_SYNTAX_SKIM_H_
#define STGUARD_SRC_JSON_SYNTAX_SKIM_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace stguard::detail {

// The levels the skim keeps, in about 2 KiB of stack (writers' headers nest
// 3 levels; the lexer's pass takes any depth).
inline constexpr std::size_t kMaxSkimDepth = 250;

// Where the lexer's pass may start and still find the first syntax error:
// the first byte of a key or an array element, every byte before which is
// well-formed, and the containers open there.
struct SyntaxResumePoint {
  const std::uint8_t* at = nullptr;  // nullptr: the beginning, nothing open
  std::size_t depth = 0;             // how many containers are open at `at`
  // The open containers, outermost first: an object (at a key) or an array
  // (at an element).
  std::array<bool, kMaxSkimDepth> objects{};
};

struct SyntaxSkim {
  // The value is well-formed: the lexer's pass would find no syntax error.
  bool well_formed = false;
  // Otherwise, where the lexer's pass may start: the last key or element
  // begun, in the innermost container that had begun one, before the fault;
  // or, with none, where the skim started.
  SyntaxResumePoint resume;
};

// Skims the value that starts [begin, end) (after JSON whitespace), or, with
// `member_at` not null, the rest of the top-level object from the opening
// quote of one of its keys (as find_json_syntax_error). What follows the
// end of the value is not read.
SyntaxSkim skim_json_syntax(const std::uint8_t* begin, const std::uint8_t* end,
                            const std::uint8_t* member_at);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_JSON_SYNTAX_SKIM_H_
