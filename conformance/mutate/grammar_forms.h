// conformance/mutate/grammar_forms.h: the values the grammar walk puts in
// each position of a header (docs/spec.md), shared by the corpus's generated
// group `grammar` (conformance/generator/grammar_walk.h) and the structured
// generator of the fuzzers and the hunt (structured.h), so that both try the
// same matrix.
//
//   for (const stguard::mutate::JsonForm& form : stguard::mutate::kJsonForms)
//     header = base_before + std::string(form.text) + base_after;
//   for (const stguard::mutate::NumberSpelling& s : stguard::mutate::spellings_of(2))
//     shape = "[" + s.text + "]";
#ifndef STGUARD_CONFORMANCE_MUTATE_GRAMMAR_FORMS_H_
#define STGUARD_CONFORMANCE_MUTATE_GRAMMAR_FORMS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::mutate {

// One JSON value of each type, as written into a position.
struct JsonForm {
  std::string_view name;  // kebab-case, part of a case name: "empty-array"
  std::string_view text;  // the JSON text
  bool is_string;         // a JSON string
  bool is_object;         // a JSON object
};

inline constexpr JsonForm kJsonForms[] = {
    {"string", R"("x")", true, false},   {"fraction", "1.5", false, false},
    {"integer", "7", false, false},      {"true", "true", false, false},
    {"false", "false", false, false},    {"null", "null", false, false},
    {"empty-array", "[]", false, false}, {"array-of-strings", R"(["format","pt"])", false, false},
    {"empty-object", "{}", false, true}, {"object", R"({"a":"b"})", false, true},
};

// One way to write an integer value, and what JSON and the format make of it.
struct NumberSpelling {
  std::string name;  // "fraction", "leading-zero", ...
  std::string text;  // "2.0"
  bool json = true;  // false: not JSON at all ("02", "+2")
};

// The spellings of `value` other than the plain one: a fraction, an
// exponent, a capital exponent with a sign, quotes, leading zeros, a plus
// sign, and a minus sign (`-0` for 0). Each reads as `value` to a reader that
// goes through a double or a lax number parser; the format allows none.
inline std::vector<NumberSpelling> spellings_of(std::uint64_t value) {
  const std::string v = std::to_string(value);
  return {
      {"fraction", v + ".0", true},
      {"exponent", v + "e0", true},
      {"capital-exponent", v + "E+0", true},
      {"quoted", "\"" + v + "\"", true},
      {"leading-zero", "0" + v, false},
      {"plus-sign", "+" + v, false},
      {value == 0 ? "negative-zero" : "negative", "-" + v, true},
  };
}

// Integers where readers that hold numbers narrowly go wrong: exact and
// inexact as doubles, the top of i64 and u64, and one past u64.
struct WideInteger {
  std::string_view name;
  std::string_view text;
  bool fits_u64;
};

inline constexpr WideInteger kWideIntegers[] = {
    {"2-pow-53", "9007199254740992", true},      {"2-pow-53-plus-1", "9007199254740993", true},
    {"2-pow-63", "9223372036854775808", true},   {"2-pow-64-minus-1", "18446744073709551615", true},
    {"2-pow-64", "18446744073709551616", false},
};

// The powers of two at which a reader that reads the length prefix into a
// narrower integer (8, 16 or 32 bits, signed or not, or a double) cuts it.
inline constexpr unsigned kLengthPrefixCuts[] = {8, 16, 31, 32, 53, 63};

}  // namespace stguard::mutate

#endif  // STGUARD_CONFORMANCE_MUTATE_GRAMMAR_FORMS_H_
