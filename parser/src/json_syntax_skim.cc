#include "json_syntax_skim.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "json_lexer.h"  // find_string_stop, syntax_text

#if defined(__clang__)
#define STGUARD_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define STGUARD_NO_COVERAGE
#endif

namespace stguard::detail {
namespace {

// Byte classes: bytes the grammar treats alike share one.
enum Class : std::uint8_t {
  kOther,   // anything else: fine in a string, a fault elsewhere (bytes >= 0x80 too)
  kSpace,   // ' ': whitespace, and fine in a string
  kWsCtrl,  // '\t' '\n' '\r': whitespace, but control characters in a string
  kCtrl,    // the other bytes below 0x20
  kQuote,
  kBackslash,
  kSlash,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kComma,
  kColon,
  kMinus,
  kPlus,
  kZero,
  kDigit,  // 1-9
  kDot,
  kLowerE,
  kUpperE,
  kT,
  kR,
  kU,
  kF,
  kA,
  kL,
  kS,
  kN,
  kB,
  kEnd,  // not a byte: the end of the input
  kClasses
};

// States. kFault and kDone absorb every class; the table's entries keep the
// state in 5 bits.
enum State : std::uint8_t {
  kFault,
  kDone,          // the top-level value ended; what follows is not read
  kValue,         // expecting a value
  kValueOrClose,  // after '[': a value or ']'
  kKey,           // after ',' in an object: a key
  kKeyOrClose,    // after '{': a key or '}'
  kInKey,
  kKeyEscape,
  kColonNext,  // after a key
  kInString,
  kStringEscape,
  kAfterValue,  // ',' or the container's close (anything, at the top level)
  kMinusSign,   // number states
  kIntZero,
  kInt,
  kDecimalPoint,
  kFraction,
  kExponentMark,
  kExponentSign,
  kExponent,
  kLiteralT,
  kLiteralTr,
  kLiteralTru,
  kLiteralF,
  kLiteralFa,
  kLiteralFal,
  kLiteralFals,
  kLiteralN,
  kLiteralNu,
  kLiteralNul,
  kStates
};
static_assert(kStates <= 32);

// What is on top of the stack of open containers.
enum Top : std::uint8_t { kTopNone, kTopObject, kTopArray, kTops };

// A transition, in one byte: the next state, the stack action, and whether
// the byte begins a key or an array element (a mark).
enum Action : std::uint8_t { kNoAction, kPushObject, kPushArray, kPop };
constexpr std::uint8_t entry(State next, Action action = kNoAction, bool mark = false) {
  return static_cast<std::uint8_t>(next | (action << 5) | (mark ? 0x80 : 0));
}

constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> c{};
  for (std::size_t b = 0; b < 0x20; ++b) c[b] = kCtrl;
  c['\t'] = c['\n'] = c['\r'] = kWsCtrl;
  c[' '] = kSpace;
  c['"'] = kQuote;
  c['\\'] = kBackslash;
  c['/'] = kSlash;
  c['{'] = kLBrace;
  c['}'] = kRBrace;
  c['['] = kLBracket;
  c[']'] = kRBracket;
  c[','] = kComma;
  c[':'] = kColon;
  c['-'] = kMinus;
  c['+'] = kPlus;
  c['0'] = kZero;
  for (std::size_t b = '1'; b <= '9'; ++b) c[b] = kDigit;
  c['.'] = kDot;
  c['e'] = kLowerE;
  c['E'] = kUpperE;
  c['t'] = kT;
  c['r'] = kR;
  c['u'] = kU;
  c['f'] = kF;
  c['a'] = kA;
  c['l'] = kL;
  c['s'] = kS;
  c['n'] = kN;
  c['b'] = kB;
  return c;
}

constexpr std::size_t at(int state, int cls, int top) {
  return (static_cast<std::size_t>(state) * kClasses + static_cast<std::size_t>(cls)) * kTops +
         static_cast<std::size_t>(top);
}

constexpr bool is_whitespace(int cls) { return cls == kSpace || cls == kWsCtrl; }

// After a complete value, on the class `cls`, with `top` open.
constexpr std::uint8_t after_value(int cls, int top) {
  if (top == kTopNone) return entry(kDone);  // the value ended: stop reading
  if (is_whitespace(cls)) return entry(kAfterValue);
  if (cls == kComma) return entry(top == kTopObject ? kKey : kValue);
  if (cls == kRBrace && top == kTopObject) return entry(kAfterValue, kPop);
  if (cls == kRBracket && top == kTopArray) return entry(kAfterValue, kPop);
  return entry(kFault);
}

// Where a value may start, on the class `cls`. A value that starts in an
// array is an element: its first byte is marked, as a key's quote is.
constexpr std::uint8_t value_start(int cls, int top) {
  const bool element = top == kTopArray;
  switch (cls) {
    case kLBrace:
      return entry(kKeyOrClose, kPushObject, element);
    case kLBracket:
      return entry(kValueOrClose, kPushArray, element);
    case kQuote:
      return entry(kInString, kNoAction, element);
    case kMinus:
      return entry(kMinusSign, kNoAction, element);
    case kZero:
      return entry(kIntZero, kNoAction, element);
    case kDigit:
      return entry(kInt, kNoAction, element);
    case kT:
      return entry(kLiteralT, kNoAction, element);
    case kF:
      return entry(kLiteralF, kNoAction, element);
    case kN:
      return entry(kLiteralN, kNoAction, element);
    default:
      return entry(kFault);
  }
}

// Inside a string (key or value) that `close` ends.
constexpr std::uint8_t in_string(int cls, State self, State escape, State close) {
  if (cls == kQuote) return entry(close);
  if (cls == kBackslash) return entry(escape);
  if (cls == kCtrl || cls == kWsCtrl || cls == kEnd) return entry(kFault);
  return entry(self);
}

// After a backslash. \u goes to the lexer (kFault): its surrogate rules are
// the lexer's to apply.
constexpr std::uint8_t escape(int cls, State string) {
  switch (cls) {
    case kQuote:
    case kBackslash:
    case kSlash:
    case kB:
    case kF:
    case kN:
    case kR:
    case kT:
      return entry(string);
    default:
      return entry(kFault);
  }
}

// The next literal letter `want` leads to `next`; anything else is a fault.
constexpr std::uint8_t literal(int cls, int want, State next) {
  return cls == want ? entry(next) : entry(kFault);
}

constexpr std::uint8_t transition(int state, int cls, int top) {
  const bool digit = cls == kZero || cls == kDigit;
  const bool exponent = cls == kLowerE || cls == kUpperE;
  switch (state) {
    case kValue:
      return is_whitespace(cls) ? entry(kValue) : value_start(cls, top);
    case kValueOrClose:
      if (is_whitespace(cls)) return entry(kValueOrClose);
      if (cls == kRBracket && top == kTopArray) return entry(kAfterValue, kPop);
      return value_start(cls, top);
    case kKey:
    case kKeyOrClose:
      if (is_whitespace(cls)) return entry(static_cast<State>(state));
      if (cls == kQuote) return entry(kInKey, kNoAction, true);
      if (state == kKeyOrClose && cls == kRBrace && top == kTopObject) {
        return entry(kAfterValue, kPop);
      }
      return entry(kFault);
    case kInKey:
      return in_string(cls, kInKey, kKeyEscape, kColonNext);
    case kKeyEscape:
      return escape(cls, kInKey);
    case kColonNext:
      if (is_whitespace(cls)) return entry(kColonNext);
      return cls == kColon ? entry(kValue) : entry(kFault);
    case kInString:
      return in_string(cls, kInString, kStringEscape, kAfterValue);
    case kStringEscape:
      return escape(cls, kInString);
    case kAfterValue:
      return after_value(cls, top);
    case kMinusSign:
      if (cls == kZero) return entry(kIntZero);
      return cls == kDigit ? entry(kInt) : entry(kFault);
    case kIntZero:
    case kInt:
      if (digit) return state == kInt ? entry(kInt) : entry(kFault);  // no leading zero
      if (cls == kDot) return entry(kDecimalPoint);
      if (exponent) return entry(kExponentMark);
      return after_value(cls, top);
    case kDecimalPoint:
      return digit ? entry(kFraction) : entry(kFault);
    case kFraction:
      if (digit) return entry(kFraction);
      if (exponent) return entry(kExponentMark);
      return after_value(cls, top);
    case kExponentMark:
      if (cls == kPlus || cls == kMinus) return entry(kExponentSign);
      return digit ? entry(kExponent) : entry(kFault);
    case kExponentSign:
      return digit ? entry(kExponent) : entry(kFault);
    case kExponent:
      return digit ? entry(kExponent) : after_value(cls, top);
    case kLiteralT:
      return literal(cls, kR, kLiteralTr);
    case kLiteralTr:
      return literal(cls, kU, kLiteralTru);
    case kLiteralTru:
      return literal(cls, kLowerE, kAfterValue);
    case kLiteralF:
      return literal(cls, kA, kLiteralFa);
    case kLiteralFa:
      return literal(cls, kL, kLiteralFal);
    case kLiteralFal:
      return literal(cls, kS, kLiteralFals);
    case kLiteralFals:
      return literal(cls, kLowerE, kAfterValue);
    case kLiteralN:
      return literal(cls, kU, kLiteralNu);
    case kLiteralNu:
      return literal(cls, kL, kLiteralNul);
    case kLiteralNul:
      return literal(cls, kL, kAfterValue);
    case kDone:
      return entry(kDone);
    default:
      return entry(kFault);
  }
}

constexpr std::array<std::uint8_t, std::size_t{kStates} * kClasses * kTops> make_table() {
  std::array<std::uint8_t, std::size_t{kStates} * kClasses * kTops> t{};
  for (int s = 0; s < kStates; ++s) {
    for (int c = 0; c < kClasses; ++c) {
      for (int top = 0; top < kTops; ++top) t[at(s, c, top)] = transition(s, c, top);
    }
  }
  return t;
}

constexpr std::array<std::uint8_t, 256> kClassOf = make_classes();
constexpr std::array<std::uint8_t, std::size_t{kStates}* kClasses* kTops> kTable = make_table();
// Per action: the container pushed (as a Top), and the change in depth.
constexpr std::array<std::uint8_t, 4> kPushed = {kTopNone, kTopObject, kTopArray, kTopNone};
constexpr std::array<std::ptrdiff_t, 4> kDepthChange = {0, 1, 1, -1};

// The steps run in blocks, between which the depth is looked at: a block
// cannot take the depth past the arrays, which grow before it could.
constexpr std::ptrdiff_t kBlock = 64;
static_assert(kSkimStackDepth > kBlock);

// The states after which the step loop does more than step: it stops at a
// fault or the end of the value, and skips a string's plain bytes.
constexpr unsigned kStopStates = (1U << kFault) | (1U << kDone);
constexpr unsigned kStringStates = (1U << kInKey) | (1U << kInString);
constexpr unsigned kEscapeStates = (1U << kKeyEscape) | (1U << kStringEscape);

// The first syntax error, as the lexer's pass gives it, from the state the
// skim was in at the byte `at` of class `cls` (kEnd: `at` is the end), in a
// container of kind `top`. `first` is where the skim started. Kept out of
// line, and so instrumented for coverage unlike the skim: each kind of fault
// it names is a branch the fuzzer can see.
[[gnu::noinline]] void name_fault(int state, int cls, int top, const std::uint8_t* at,
                                  const std::uint8_t* first, SyntaxSkim& skim) {
  namespace text = syntax_text;
  auto expected = [&](std::string_view what) {
    skim.fault = SyntaxFaultKind::kExpected;
    skim.at = at;
    skim.text = what;
  };
  auto whole = [&](std::string_view what, const std::uint8_t* where) {
    skim.fault = SyntaxFaultKind::kMessage;
    skim.at = where;
    skim.text = what;
  };
  auto literal = [&](std::string_view word) {
    skim.fault = SyntaxFaultKind::kLiteral;
    skim.at = at;
    skim.text = word;
  };
  switch (state) {
    case kValue:
    case kValueOrClose:
      return expected(text::kValue);
    case kKeyOrClose:
      return expected(text::kKeyOrClose);
    case kKey:
      return expected(text::kKey);
    case kInKey:
    case kInString:
      // Only a control byte or the end stops a string short.
      return cls == kEnd ? expected(text::kStringClose) : whole(text::kControlInString, at);
    case kKeyEscape:
    case kStringEscape:
      return whole(text::kBadEscape, at - 1);  // at the backslash (\u is read in the loop)
    case kColonNext:
      return expected(text::kColon);
    case kMinusSign:
      return expected(text::kDigit);
    case kIntZero:
      if (cls == kZero || cls == kDigit) {
        // At the number's first byte: its '0', or the '-' before that.
        const std::uint8_t* zero = at - 1;
        return whole(text::kLeadingZero, (zero > first && zero[-1] == '-') ? zero - 1 : zero);
      }
      break;  // the number ended: what follows it is wrong
    case kDecimalPoint:
      return expected(text::kFractionDigit);
    case kExponentMark:
    case kExponentSign:
      return expected(text::kExponentDigit);
    case kLiteralT:
    case kLiteralTr:
    case kLiteralTru:
      return literal("true");
    case kLiteralF:
    case kLiteralFa:
    case kLiteralFal:
    case kLiteralFals:
      return literal("false");
    case kLiteralN:
    case kLiteralNu:
    case kLiteralNul:
      return literal("null");
    default:
      break;  // after a value (kAfterValue, or a number's digits)
  }
  // Neither ',' nor the close of the container the value is in. (At the top
  // level a value's end is the end of the skim, never a fault.)
  expected(top == kTopObject ? text::kCommaOrBrace : text::kCommaOrBracket);
}

}  // namespace

// Not instrumented for coverage (-fsanitize=fuzzer): the automaton's paths
// are in its table, not in its code, so coverage could not tell the fuzzer
// anything of them, and tracing the loop's compares would cost what the skim
// saves. name_fault, which turns the state at a fault into its message, and
// the \u escape reader keep theirs.
STGUARD_NO_COVERAGE
SyntaxSkim skim_json_syntax(const std::uint8_t* begin, const std::uint8_t* end,
                            const std::uint8_t* member_at) {
  // kinds[d]: the container open at depth d (kinds[0]: none). starts[d]: the
  // first byte of the last key or array element begun in the container open
  // at depth d, or null when none has begun; starts[0] takes the writes of
  // the other bytes. Neither is cleared: a slot is written before it is
  // read, but for these.
  // They live on the stack up to kSkimStackDepth levels, and move to the
  // heap for deeper nesting, which only a hostile header has: at most 9 bytes
  // a level, and a level takes a byte of the at most kSkimAtMostBytes read.
  std::array<std::uint8_t, kSkimStackDepth + 2> kinds;
  std::array<const std::uint8_t*, kSkimStackDepth + 2> starts;
  std::vector<std::uint8_t> deep_kinds;
  std::vector<const std::uint8_t*> deep_starts;
  std::ptrdiff_t capacity = kSkimStackDepth + 2;  // of the arrays in use
  kinds[0] = kTopNone;
  starts[0] = nullptr;
  std::ptrdiff_t depth = 0;
  int state = kValue;
  const std::uint8_t* p = begin;
  if (member_at != nullptr) {
    depth = 1;
    kinds[1] = kTopObject;
    starts[1] = member_at;
    state = kKey;
    p = member_at;
  }
  const std::uint8_t* const first = p;
  // The hot loop reads through raw pointers: no bounds checks, and under
  // -fsanitize=fuzzer no compare on a byte's value to trace.
  const std::uint8_t* const class_of = kClassOf.data();
  const std::uint8_t* const table = kTable.data();
  std::uint8_t* kind = kinds.data();
  const std::uint8_t** start = starts.data();
  int top = kind[depth];
  // The state and container before the last step: what a fault is named by.
  int state_before = state;
  int top_before = top;
  SyntaxSkim skim;
  while (p != end && ((1U << state) & kStopStates) == 0) {
    // A block writes at most kBlock + 1 levels above the depth it starts at.
    if (depth + kBlock + 2 > capacity) {
      capacity *= 2;
      if (deep_kinds.empty()) {
        deep_kinds.assign(kinds.begin(), kinds.end());
        deep_starts.assign(starts.begin(), starts.end());
      }
      deep_kinds.resize(static_cast<std::size_t>(capacity));
      deep_starts.resize(static_cast<std::size_t>(capacity));
      kind = deep_kinds.data();
      start = deep_starts.data();
    }
    const std::uint8_t* const block_end = (end - p > kBlock) ? p + kBlock : end;
    for (; p < block_end; ++p) {
      state_before = state;
      top_before = top;
      const std::uint8_t e = table[at(state, class_of[*p], top)];
      const unsigned action = (e >> 5) & 3U;
      state = e & 31;
      // The slots above the top belong to no open container: one opened
      // there has begun nothing yet.
      start[depth + 1] = nullptr;
      kind[depth + 1] = kPushed[action];
      start[(e >> 7) * depth] = p;  // a key or an array element begins here
      depth += kDepthChange[action];
      top = kind[depth];
      if (((1U << state) & (kStopStates | kStringStates)) != 0) {
        if (state == kFault && ((1U << state_before) & kEscapeStates) != 0 && class_of[*p] == kU) {
          // A \u escape, which the table leaves out: read as the lexer does.
          const UnicodeEscape u = read_unicode_escape(p - 1, end);
          if (u.fault_at != nullptr) {
            skim.fault = u.fault_kind;
            skim.at = u.fault_at;
            skim.text = u.text;
            break;
          }
          state = state_before == kKeyEscape ? kInKey : kInString;
          p = u.next - 1;  // the loop's ++p lands after the escape
          continue;
        }
        if (((1U << state) & kStopStates) != 0) break;  // at the byte that ends it
        // Inside a string every byte but '"', '\\' and a control byte leaves
        // the state, the depth and the slots as they are: on to the next of
        // those, with the lexer's vector search (the loop's ++p lands on it;
        // a block's bound is on the depth, which does not change on the way).
        p = find_string_stop(p + 1, end) - 1;
      }
    }
  }
  const std::uint8_t* fault_at = p;
  int fault_class = p != end ? int{class_of[*p]} : int{kEnd};
  if (p == end && ((1U << state) & kStopStates) == 0) {
    state_before = state;
    top_before = top;
    state = kTable[at(state, kEnd, top)] & 31;
    fault_class = kEnd;
  }
  if (state == kDone) {
    skim.well_formed = true;
    return skim;
  }
  if (first != end && skim.fault == SyntaxFaultKind::kNone) {
    name_fault(state_before, fault_class, top_before, fault_at, first, skim);
  }
  // Where the lexer's pass may start (it runs when the fault has no name):
  // in the deepest container still open, up to kSkimStackDepth levels, that
  // has begun a key or an element, at that one's first byte, with the
  // containers around it open. A fault state writes nothing but starts[0],
  // so every byte before that one was read well-formed. With none, it starts
  // where the skim did.
  std::ptrdiff_t d = std::min(depth, static_cast<std::ptrdiff_t>(kSkimStackDepth));
  while (d > 0 && start[d] == nullptr) --d;
  if (d > 0) {
    skim.resume.at = start[d];
    skim.resume.depth = static_cast<std::size_t>(d);
    for (std::ptrdiff_t level = 1; level <= d; ++level) {
      skim.resume.objects[static_cast<std::size_t>(level - 1)] = kind[level] == kTopObject;
    }
  }
  return skim;
}

}  // namespace stguard::detail
