// generator/grammar_walk.h: the corpus's generated group `grammar`: a walk
// over every position of a header (docs/spec.md) instead of the faults
// someone thought of.
//
//   std::string text = stguard::conformance::grammar_walk_recipes();
//   // "about: ...\ncase: dtype-empty-array\n..." in the recipe format
//
// From one valid file (metadata {"format":"pt"}, one U8 [2] tensor "t"), it
// puts every JSON form of conformance/mutate/grammar_forms.h (string,
// fraction, integer, true, false, null, empty array, array of strings, empty
// object, object) in every position (the whole header, the entry, dtype,
// shape, each shape element, data_offsets, begin, end, __metadata__, a
// metadata value, the keys), every spelling of the value in each numeric
// position (fraction, exponents, quotes, leading zero, plus and minus
// signs), the wide integers (2^53, 2^53+1, 2^63, 2^64-1, 2^64) with the rest
// of the file made consistent around them, and length prefixes that a
// narrow read cuts back to the header's length (N + 2^8, 2^16, 2^31, 2^32,
// 2^53, 2^63), the upstream limit, and headers exactly 255, 256, 257 and
// 65,536 bytes long. Each case breaks one rule, names it, states both
// profiles' verdicts from docs/spec.md's rules (never from running a parser),
// and repairs back to the valid file.
//
// load_recipes() parses the text as the group `grammar`, so the cases go
// through every check a hand-written recipe does, and the corpus replay
// holds stguard to the stated verdicts.
#ifndef STGUARD_CONFORMANCE_GENERATOR_GRAMMAR_WALK_H_
#define STGUARD_CONFORMANCE_GENERATOR_GRAMMAR_WALK_H_

#include <string>
#include <string_view>

namespace stguard::conformance {

// The group name and the "file" its recipes are attributed to in messages.
inline constexpr std::string_view kGrammarGroup = "grammar";
inline constexpr std::string_view kGrammarSource = "grammar walk (generator/grammar_walk.cc)";

// The whole group in the recipe format (conformance/README.md).
std::string grammar_walk_recipes();

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_GRAMMAR_WALK_H_
