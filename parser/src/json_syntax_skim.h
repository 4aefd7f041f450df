// A quick first reading for the syntax-only pass (json_syntax.h): a
// table-driven automaton that tells whether a JSON value is well-formed and,
// when it is not, where its first syntax error is and what was expected.
//
// The syntax pass runs on rejected headers, which are nearly all that a
// fuzzer feeds the parser, and reads the rest of the header after the
// scanner's fault. Read by the lexer, every byte goes through a chain of
// compares; under -fsanitize=fuzzer each compare is a call into the fuzzer's
// comparison tracing, and this pass cost a quarter to a third of fuzz_parse's
// time. The automaton reads one byte per step with table lookups and no
// branch on the byte: one state transition and the stack of open containers
// kept by arithmetic; inside a string it goes straight to the next '"', '\\'
// or control byte with the lexer's vector search. The lexer's pass, which
// under the fuzzer cost as much again as the skim, now runs only where the
// skim cannot name the fault, from the last key or array element begun
// before it.
//
// It reads as the lexer's pass does: what it reads as well-formed, the lexer
// does too, and at a fault it names the offset and the words the lexer's
// pass would give (the automaton's state says what was expected). A \u
// escape, which the table leaves out, it reads with the lexer's own reader
// (read_unicode_escape). Only an empty header it leaves to the lexer's pass.
#ifndef STGUARD_SRC_JSON_SYNTAX_SKIM_H_
#define STGUARD_SRC_JSON_SYNTAX_SKIM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_lexer.h"  // SyntaxFaultKind

namespace stguard::detail {

// The levels the skim keeps on the stack, in about 2 KiB (writers' headers
// nest 3 levels); deeper ones go to the heap. Also the deepest resume point.
inline constexpr std::size_t kSkimStackDepth = 250;

// Where the lexer's pass may start and still find the first syntax error:
// the first byte of a key or an array element, every byte before which is
// well-formed, and the containers open there.
struct SyntaxResumePoint {
  const std::uint8_t* at = nullptr;  // nullptr: the beginning, nothing open
  std::size_t depth = 0;             // how many containers are open at `at`
  // The open containers, outermost first: an object (at a key) or an array
  // (at an element).
  std::array<bool, kSkimStackDepth> objects{};
};

struct SyntaxSkim {
  // The value is well-formed: the lexer's pass would find no syntax error.
  bool well_formed = false;
  // Otherwise, the first syntax error as the lexer's pass gives it, where
  // the skim can tell (nearly always): how its message is made from `text`,
  // one of json_lexer.h's syntax_text or a literal's word, and where it is.
  SyntaxFaultKind fault = SyntaxFaultKind::kNone;
  const std::uint8_t* at = nullptr;
  std::string_view text;
  // And where the lexer's pass may start, which it does with kNone (an empty
  // header): the last key or element begun, in the innermost container (up
  // to kSkimStackDepth levels) that had begun one, before the fault; or, with
  // none, where the skim started.
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
