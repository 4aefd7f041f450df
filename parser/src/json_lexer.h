// The JSON lexer under the header grammar (header_scanner.h): a cursor over
// the header bytes [begin, end) that reads JSON tokens (strings with every
// escape, numbers, literals, whitespace), skips whole values as serde_json
// would read them, and records the first fault as an Error with its reason,
// absolute file offset and message. It knows JSON, not safetensors.
//
// UTF-8: invalid UTF-8 anywhere outranks every other fault of the header. The
// lexer does not decode UTF-8: a non-ASCII byte outside a string is a syntax
// fault, inside one plain content, and the lexer notes whether it saw one
// (saw_non_ascii). The caller (header.cc) runs the full UTF-8 check after a
// fault or when one was seen, and its verdict then wins; until then the
// lexer's reading of invalid UTF-8 is harmless and thrown away. Whatever the
// input, the lexer never reads outside [begin, end).
//
// The word-at-a-time helpers (find_string_stop, read_plain_u64,
// read_offset_pair, matches) are inline here, not in json_lexer.cc: the
// grammar's compact-entry reader runs them in straight-line code once or more
// per tensor, and a call there costs more than the work. So are the cursor's
// one-byte steps (peek, skip_whitespace, expect), for every token.
#ifndef STGUARD_SRC_JSON_LEXER_H_
#define STGUARD_SRC_JSON_LEXER_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "kernels/kernels.h"
#include "layers.h"
#include "little_endian.h"
#include "stguard/error.h"

namespace stguard::detail {

// The words of JSON syntax errors, written once: the lexer and the syntax
// pass (json_syntax.h) give the same message for the same fault.
namespace syntax_text {
// What was expected (SyntaxFaultKind::kExpected).
inline constexpr std::string_view kValue = "a JSON value";
inline constexpr std::string_view kKeyOrClose = "a key string or '}'";
inline constexpr std::string_view kKey = "a key string";
inline constexpr std::string_view kColon = "':' after an object key";
inline constexpr std::string_view kCommaOrBrace = "',' or '}'";
inline constexpr std::string_view kCommaOrBracket = "',' or ']'";
inline constexpr std::string_view kStringClose = "'\"' to close the string";
inline constexpr std::string_view kDigit = "a digit";
inline constexpr std::string_view kFractionDigit = "a digit after the decimal point";
inline constexpr std::string_view kExponentDigit = "a digit in the exponent";
inline constexpr std::string_view kHexDigit = "a hex digit in a \\u escape";
// Whole messages.
inline constexpr std::string_view kLeadingZero = "invalid JSON: number with a leading zero";
inline constexpr std::string_view kBadEscape = "invalid JSON: invalid escape sequence in a string";
inline constexpr std::string_view kControlInString =
    "invalid JSON: control character inside a string (must be escaped)";
inline constexpr std::string_view kLoneTrailingSurrogate =
    "invalid JSON: lone trailing surrogate in a \\u escape";
inline constexpr std::string_view kLoneLeadingSurrogate =
    "invalid JSON: lone leading surrogate in a \\u escape";
}  // namespace syntax_text

// How a syntax fault's message is made.
enum class SyntaxFaultKind : std::uint8_t {
  kNone,      // no fault (or none named)
  kExpected,  // "invalid JSON: expected <text>, found <the byte at `at`, or the end>"
  kLiteral,   // the same, expecting "the literal '<text>'": `text` is the literal's word
  kMessage,   // `text` is the whole message
};

// A \u escape read from its backslash `escape_start` (the 'u' follows it):
// four hex digits, and for a leading surrogate a second escape with a
// trailing one. Either the code point and the byte after the escape, or the
// fault as the lexer reports it.
struct UnicodeEscape {
  const std::uint8_t* next = nullptr;
  std::uint32_t code_point = 0;
  const std::uint8_t* fault_at = nullptr;  // null: no fault
  SyntaxFaultKind fault_kind = SyntaxFaultKind::kNone;
  std::string_view text;  // syntax_text
};
UnicodeEscape read_unicode_escape(const std::uint8_t* escape_start,
                                  const std::uint8_t* end) noexcept;

// The message of a syntax fault of `kind` (not kNone) at `at`, from `text`,
// as in SyntaxFaultKind; `end` is the end of the header. The one place the
// lexer's syntax messages are made.
std::string syntax_fault_message(SyntaxFaultKind kind, std::string_view text,
                                 const std::uint8_t* at, const std::uint8_t* end);

inline bool is_digit(int c) noexcept { return c >= '0' && c <= '9'; }

// Bytes that start a syntactically plausible JSON value. Used to tell "a value
// of the wrong type" (a schema fault) from "not JSON at all" (a syntax fault).
inline bool starts_value(int c) noexcept {
  return c == '"' || c == '{' || c == '[' || c == '-' || is_digit(c) || c == 't' || c == 'f' ||
         c == 'n';
}

// SWAR over 8 bytes loaded little-endian: a mask with the high bit set in
// each byte that is '"', '\\' or below 0x20. Borrows can only flag bytes
// above a true hit, so the lowest set bit always marks a real one.
[[gnu::always_inline]] inline std::uint64_t string_stop_mask(std::uint64_t w) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t backslash = w ^ (kOnes * '\\');
  const std::uint64_t has_quote = (quote - kOnes) & ~quote;
  const std::uint64_t has_backslash = (backslash - kOnes) & ~backslash;
  const std::uint64_t has_control = (w - kOnes * 0x20) & ~w;
  return (has_quote | has_backslash | has_control) & kHigh;
}

// The first byte in [p, end) that a string scan must look at: '"', '\\' or a
// control byte (< 0x20), and with kStopAtNonAscii also a non-ASCII byte
// (>= 0x80); or end. Otherwise non-ASCII bytes are plain string content. The
// scan looks for the first non-ASCII byte of the header (see JsonLexer) and
// after it takes them as content.
template <bool kStopAtNonAscii = false>
[[gnu::always_inline]] inline const std::uint8_t* find_string_stop(
    const std::uint8_t* p, const std::uint8_t* end) noexcept {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    __m128i x;
    std::memcpy(&x, p, sizeof x);
    // x <= 0x1F as unsigned bytes: min(x, 0x1F) == x.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x, last_control), x);
    __m128i stops =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), control);
    if constexpr (kStopAtNonAscii) stops = _mm_or_si128(stops, x);  // the high bit of x
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stops));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (end - p >= 8) {
    const std::uint64_t w = load_le64(p);
    std::uint64_t mask = string_stop_mask(w);
    if constexpr (kStopAtNonAscii) mask |= w & 0x8080808080808080ULL;
    if (mask != 0) return p + __builtin_ctzll(mask) / 8;
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && (!kStopAtNonAscii || *p < 0x80)) {
    ++p;
  }
  return p;
}

// How many of the 8 bytes of a little-endian word, from the lowest, are ASCII
// digits before the first one that is not (0 to 8). `t` is the word minus
// '0' in every byte: a digit byte is then 0..9; any other byte is >= 0x80 or
// reaches 0x80 when 0x76 is added. Borrows and carries only move upwards,
// past the first non-digit, so they never change the answer.
[[gnu::always_inline]] inline int leading_digits(std::uint64_t t) noexcept {
  const std::uint64_t non_digit = (t | (t + 0x7676767676767676ULL)) & 0x8080808080808080ULL;
  return non_digit == 0 ? 8 : __builtin_ctzll(non_digit) / 8;
}

// The value of the first `n` (1 to 8) digits of `t` (bytes already minus
// '0', the first digit in the lowest byte). Shifting them to the top leaves
// zero digits in front; then neighbours combine in three rounds (pairs,
// quads, the whole) with one multiply each, no lane exceeding its width.
[[gnu::always_inline]] inline std::uint64_t digits_value(std::uint64_t t, int n) noexcept {
  t <<= 8 * (8 - n);
  t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFULL;    // 16-bit lanes 0..99
  t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFULL;  // 32-bit lanes 0..9999
  return (t * 10000 + (t >> 32)) & 0xFFFFFFFFULL;
}

inline constexpr std::uint64_t kDigitsPow10[9] = {
    1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000};
inline constexpr std::uint64_t kAsciiZeros = 0x3030303030303030ULL;  // '0' in every byte

// The common form of an unsigned integer: 1 to 19 digits, no leading zero
// (except "0" itself), which always fits in u64. Needs 24 readable bytes at
// `p`. Returns the end of the digits and sets `value`, or nullptr for any
// other form (which the general grammar then reads). Inlined: it runs about
// four times per tensor.
[[gnu::always_inline]] inline const std::uint8_t* read_plain_u64(const std::uint8_t* p,
                                                                 std::uint64_t& value) noexcept {
  const std::uint64_t t1 = load_le64(p) - kAsciiZeros;
  const int n1 = leading_digits(t1);
  if (n1 == 0 || (n1 > 1 && (t1 & 0xFF) == 0)) return nullptr;
  value = digits_value(t1, n1);
  if (n1 < 8) return p + n1;
  const std::uint64_t t2 = load_le64(p + 8) - kAsciiZeros;
  const int n2 = leading_digits(t2);
  if (n2 == 0) return p + 8;
  value = value * kDigitsPow10[n2] + digits_value(t2, n2);
  if (n2 < 8) return p + 8 + n2;
  const std::uint64_t t3 = load_le64(p + 16) - kAsciiZeros;
  const int n3 = leading_digits(t3);
  if (n3 > 3) return nullptr;  // 20 digits or more
  if (n3 == 0) return p + 16;
  value = value * kDigitsPow10[n3] + digits_value(t3, n3);
  return p + 16 + n3;
}

#if defined(__SSE2__)
// The values of two runs of 1 to 16 ASCII digits, the first `first_len`
// bytes before `first_end`, the second `second_len` before `second_end`,
// with 16 bytes readable before each end. Each run is loaded as the 16 bytes
// that end with it, the bytes in front masked to zero digits, and both runs'
// digits are combined together in multiply-adds (pairs, fours, eights),
// then each run's two eights in one scalar multiply: about half the
// instructions of combining each run a word at a time (digits_value), where
// shuffled headers read both offsets of every entry.
[[gnu::always_inline]] inline void two_digit_runs(const std::uint8_t* first_end, int first_len,
                                                  const std::uint8_t* second_end, int second_len,
                                                  std::uint64_t& first,
                                                  std::uint64_t& second) noexcept {
  const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  auto digits = [&lane](const std::uint8_t* end, int len) {
    __m128i x;
    std::memcpy(&x, end - 16, sizeof x);
    // The last `len` lanes: those above 15 - len.
    const __m128i in_run = _mm_cmpgt_epi8(lane, _mm_set1_epi8(static_cast<char>(15 - len)));
    return _mm_and_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')), in_run);
  };
  const __m128i zero = _mm_setzero_si128();
  // Multiply-add weights: the more significant of each pair of lanes first.
  const __m128i tens = _mm_set_epi16(1, 10, 1, 10, 1, 10, 1, 10);
  const __m128i hundreds = _mm_set_epi16(1, 100, 1, 100, 1, 100, 1, 100);
  const __m128i ten_thousands = _mm_set_epi16(1, 10000, 1, 10000, 1, 10000, 1, 10000);
  // 16 digits to four 32-bit lanes of 4 digits each (0 to 9999).
  auto fours = [&](__m128i d) {
    const __m128i pairs = _mm_packs_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(d, zero), tens),
                                          _mm_madd_epi16(_mm_unpackhi_epi8(d, zero), tens));
    return _mm_madd_epi16(pairs, hundreds);
  };
  // First run's high and low 8 digits, then the second's (0 to 99,999,999).
  const __m128i eights = _mm_madd_epi16(
      _mm_packs_epi32(fours(digits(first_end, first_len)), fours(digits(second_end, second_len))),
      ten_thousands);
  std::uint64_t words[2];
  std::memcpy(words, &eights, sizeof words);
  first = (words[0] & 0xFFFFFFFFu) * 100'000'000 + (words[0] >> 32);
  second = (words[1] & 0xFFFFFFFFu) * 100'000'000 + (words[1] >> 32);
}
#endif

// The two offsets of a compact data_offsets value: `DIGITS,DIGITS]`, each 1
// to 16 digits with no leading zero (except "0"), kOffsetPairBytes readable
// at p and 16 before it. Returns the ']', sets both values and `second_at`
// (the second's first digit); nullptr for any other form, which
// read_plain_u64 then reads (longer numbers) or the general reader reports.
//
// Why not read_plain_u64 twice: there the second number's start waits for
// the first's digit count, and the entry's end for the second's, and the
// next entry waits for that end. Here the ',' and the ']' come from one set
// of vector compares over 32 bytes, and the digits' values are computed
// beside the scan instead of in its way, which matters on headers out of
// offset order, whose begins are not the previous end.
inline constexpr std::ptrdiff_t kOffsetPairBytes = 48;
[[gnu::always_inline]] inline const std::uint8_t* read_offset_pair(
    const std::uint8_t* p, std::uint64_t& first, std::uint64_t& second,
    const std::uint8_t*& second_at) noexcept {
#if defined(__SSE2__)
  __m128i low;
  __m128i high;
  std::memcpy(&low, p, sizeof low);
  std::memcpy(&high, p + 16, sizeof high);
  auto mask_of = [&low, &high](auto&& bytes_that) {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(bytes_that(low))) |
           (static_cast<std::uint32_t>(_mm_movemask_epi8(bytes_that(high))) << 16);
  };
  const std::uint32_t commas =
      mask_of([](__m128i x) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(',')); });
  const std::uint32_t closes =
      mask_of([](__m128i x) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(']')); });
  // '0' to '9', compared as signed bytes: a byte of 0x80 or more is negative.
  const std::uint32_t digits = mask_of([](__m128i x) {
    return _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                         _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  });
  if (commas == 0 || closes == 0) return nullptr;
  const int comma_at = __builtin_ctz(commas);
  const int close_at = __builtin_ctz(closes);
  const int first_len = comma_at;
  const int second_len = close_at - comma_at - 1;
  if (first_len < 1 || first_len > 16 || second_len < 1 || second_len > 16) return nullptr;
  // Every byte before the ']' but the ',' is a digit.
  const std::uint32_t wanted =
      ((std::uint32_t{1} << close_at) - 1) & ~(std::uint32_t{1} << comma_at);
  if ((digits & wanted) != wanted) return nullptr;
  const std::uint8_t* const second_digits = p + comma_at + 1;
  if ((p[0] == '0' && first_len > 1) || (second_digits[0] == '0' && second_len > 1)) {
    return nullptr;
  }
  two_digit_runs(p + comma_at, first_len, p + close_at, second_len, first, second);
  second_at = second_digits;
  return p + close_at;
#else
  (void)p;
  (void)first;
  (void)second;
  (void)second_at;
  return nullptr;
#endif
}

// A literal of 9 to 16 bytes at p (with that many readable) as two
// overlapping 8-byte compares.
template <std::size_t N>
[[gnu::always_inline]] inline bool matches(const std::uint8_t* p,
                                           const char (&literal)[N]) noexcept {
  constexpr std::size_t kLen = N - 1;
  static_assert(kLen > 8 && kLen <= 16);
  const auto* text = reinterpret_cast<const std::uint8_t*>(literal);
  return load_le64(p) == load_le64(text) && load_le64(p + kLen - 8) == load_le64(text + kLen - 8);
}

// The offset of the first '"' among the 16 bytes at `p` (all readable), or
// 16 when there is none.
[[gnu::always_inline]] inline std::size_t first_quote_in_16(const std::uint8_t* p) noexcept {
#if defined(__SSE2__)
  __m128i x;
  std::memcpy(&x, p, sizeof x);
  const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"'))));
  return static_cast<std::size_t>(__builtin_ctz(mask | 0x10000u));
#else
  std::size_t i = 0;
  while (i < 16 && p[i] != '"') ++i;
  return i;
#endif
}

// Whether the first `n` (at most kSameBytesAtMost) bytes at `a` and `b` are
// equal, with kSameBytesAtMost bytes readable at each: two vector compares
// and no call. The compact-entry reader compares an entry's text with the
// previous entry's this way (header_scanner.h).
inline constexpr std::ptrdiff_t kSameBytesAtMost = 32;
[[gnu::always_inline]] inline bool same_leading_bytes(const std::uint8_t* a, const std::uint8_t* b,
                                                      std::size_t n) noexcept {
#if defined(__SSE2__)
  const std::uint64_t wanted = (std::uint64_t{1} << n) - 1;
  __m128i x;
  __m128i y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  const auto low = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
  std::memcpy(&x, a + 16, sizeof x);
  std::memcpy(&y, b + 16, sizeof y);
  const auto high = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
  const std::uint64_t equal = low | (std::uint64_t{high} << 16);
  return (~equal & wanted) == 0;
#else
  return std::memcmp(a, b, n) == 0;
#endif
}

class JsonLexer {
 public:
  // serde_json's recursion limit: a container at this depth (top-level object
  // = 1) is rejected. Only reachable in the reference profile.
  static constexpr int kMaxDepth = 128;

  // A JSON string read: its unescaped value (a view into the header when it
  // had no escapes, otherwise into the caller's scratch buffer) and whether it
  // contains U+0000.
  struct StringValue {
    std::string_view text;
    bool has_nul = false;
    bool decoded = false;  // text is in the scratch buffer, not the header
  };

  // A well-formed JSON number, and whether it is a plain unsigned integer
  // that fits in u64.
  struct NumberForm {
    bool is_u64 = false;
    std::uint64_t value = 0;
    bool negative = false;
    bool fractional_or_exponent = false;
    bool above_u64 = false;
  };

  // `begin`/`end` delimit the header bytes; `file_base` is the absolute file
  // offset of `begin` (8), used for error offsets. Strings are scanned with
  // the `kernels` of the parse's SIMD path.
  JsonLexer(const std::uint8_t* begin, const std::uint8_t* end, std::uint64_t file_base,
            const Kernels& kernels) noexcept
      : begin_(begin),
        end_(end),
        p_(begin),
        file_base_(file_base),
        wide_string_stop_(kernels.find_string_stop),
        wide_ascii_string_stop_(kernels.find_ascii_string_stop),
        u64_words_(layers().u64_words) {}
  JsonLexer(const JsonLexer&) = delete;
  JsonLexer& operator=(const JsonLexer&) = delete;

  // The cursor. set_pos takes a position in [begin, end].
  const std::uint8_t* begin() const noexcept { return begin_; }
  const std::uint8_t* end() const noexcept { return end_; }
  const std::uint8_t* pos() const noexcept { return p_; }
  void set_pos(const std::uint8_t* p) noexcept { p_ = p; }
  // For a header scanned a window at a time (header_window.h): the lexer
  // now reads [begin, end), whose first byte is at absolute file offset
  // `file_base`, from its start. Pointers into the bytes before are no
  // longer the lexer's to read.
  void rebase(const std::uint8_t* begin, const std::uint8_t* end,
              std::uint64_t file_base) noexcept {
    begin_ = begin;
    end_ = end;
    p_ = begin;
    file_base_ = file_base;
  }
  // Steps over the byte at the cursor, which the caller has looked at.
  void advance() noexcept { ++p_; }
  // The byte at the cursor, or -1 at the end.
  int peek() const noexcept { return p_ < end_ ? *p_ : -1; }
  std::uint64_t file_base() const noexcept { return file_base_; }
  std::uint64_t offset_of(const std::uint8_t* at) const noexcept {
    return file_base_ + static_cast<std::uint64_t>(at - begin_);
  }

  // Faults. Each records the error (the first one wins the scan, as every
  // reader stops at it) and returns false, so `return fail(...)` ends a read.
  bool fail(Reason reason, const std::uint8_t* at, std::string message);
  // kHeaderNotJson at `at`: "expected <expected>, found <the byte there>".
  bool fail_syntax(const std::uint8_t* at, std::string_view expected);
  // A fault at `at`, after the top-level value has ended: the header goes on
  // past its end. kHeaderNotJson or (strict, JSON whitespace other than
  // spaces) kHeaderBadPadding; the message quotes the first bytes from `at`,
  // escaped and cut short (message.h), since they are what a reader would
  // need to see (e.g. the rest of a header a writer broke in two).
  bool fail_after_end(Reason reason, const std::uint8_t* at);
  // kHeaderNotJson for JSON that upstream's serde_json refuses all the same
  // (nesting past its recursion limit, a number beyond f64): not a syntax
  // error, so one later in the header still outranks it.
  bool fail_beyond_serde(const std::uint8_t* at, std::string message);
  // The fault just recorded as kHeaderNotJson is at well-formed JSON that the
  // format refuses (a top-level value that is not an object), not a syntax
  // error.
  void mark_fault_not_syntax() noexcept { stopped_at_syntax_error_ = false; }
  Error take_error() { return std::move(error_); }
  // The recorded fault is a syntax error in the value (RFC 8259), found where
  // the bytes read stop being the start of a JSON value. A syntax-only pass
  // over the same bytes (json_syntax.h), which reads them with the same
  // lexer, stops at the same byte: none comes before it.
  bool stopped_at_syntax_error() const noexcept { return stopped_at_syntax_error_; }

  void skip_whitespace() noexcept {
    // Compact headers have no whitespace: every JSON whitespace byte is <= ' ',
    // so one compare settles the common case.
    if (p_<end_&& * p_> ' ') return;
    // A local cursor: stores through the member would alias every byte read.
    const std::uint8_t* p = p_;
    while (p < end_ && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    p_ = p;
  }

  // The byte `c`, or a syntax fault naming `what` was expected.
  bool expect(char c, std::string_view what) {
    if (p_ < end_ && *p_ == static_cast<std::uint8_t>(c)) {
      ++p_;
      return true;
    }
    return fail_syntax(p_, what);
  }

  // What follows an element of an array or a member of an object, after any
  // whitespace.
  enum class AfterElement : std::uint8_t {
    kNext,   // ',' (stepped over, and the whitespace after it): another one follows
    kClose,  // the container's `close` byte, at the cursor (not stepped over)
    kFault,  // anything else: a syntax fault naming `expected` is recorded
  };
  AfterElement after_element(char close, std::string_view expected) {
    skip_whitespace();
    if (p_ < end_ && *p_ == ',') {
      ++p_;
      skip_whitespace();
      return AfterElement::kNext;
    }
    if (p_ < end_ && *p_ == static_cast<std::uint8_t>(close)) return AfterElement::kClose;
    fail_syntax(p_, expected);
    return AfterElement::kFault;
  }

  // `word` (true, false, null); a fault points at the first byte that differs.
  bool read_literal(std::string_view word);

  // At the opening quote (checked by the caller). Escaped strings are decoded
  // into `scratch`, which then holds out.text.
  bool read_string(std::string& scratch, StringValue& out);
  // read_string's common case inline: a string whose every byte is plain
  // content (no escape; non-ASCII only once one was seen). Otherwise false,
  // at the quote still, for read_string.
  [[gnu::always_inline]] bool read_plain_string(StringValue& out) {
    const std::uint8_t* stop = next_string_stop(p_ + 1);
    if (stop >= end_ || *stop != '"') return false;
    out.text = std::string_view(reinterpret_cast<const char*>(p_ + 1),
                                static_cast<std::size_t>(stop - (p_ + 1)));
    out.has_nul = false;
    out.decoded = false;
    p_ = stop + 1;
    return true;
  }

  // Whether a string read so far held a non-ASCII byte. Every byte outside a
  // string is ASCII or a fault (the grammar matches ASCII only), so a header
  // read without fault and without one is all ASCII: valid UTF-8 without a
  // separate pass over it (header.cc).
  bool saw_non_ascii() const noexcept { return saw_non_ascii_; }

  // Matches a key written without escapes, quotes included, e.g. "\"dtype\"".
  // A template so the compare has a constant length and is inlined.
  template <std::size_t N>
  bool match_plain_key(const char (&quoted_key)[N], StringValue& out) noexcept {
    constexpr std::size_t kLen = N - 1;  // without the terminating NUL
    if (static_cast<std::size_t>(end_ - p_) < kLen || std::memcmp(p_, quoted_key, kLen) != 0) {
      return false;
    }
    p_ += kLen;
    out.text = std::string_view(quoted_key + 1, kLen - 2);
    out.has_nul = false;
    out.decoded = false;
    return true;
  }

  // The number grammar. On a well-formed JSON number, moves past it and
  // reports its form.
  bool read_number(NumberForm& out);

  // One JSON integer in [0, 2^64) (an element of shape or data_offsets). A
  // number of another form, or another value, is a `type_reason` fault whose
  // message starts with `what`; anything else is a syntax fault.
  bool read_u64_element(Reason type_reason, std::string_view what, std::uint64_t& out);

  // Any JSON value, nested at most up to kMaxDepth counting the `depth`
  // containers it is in, with serde_json's checks (numbers out of f64 range).
  // Iterative, so nesting costs no native stack.
  bool skip_value(int depth);

  // At a ',' inside an array that already holds all the elements it may
  // have: a further value is the caller's schema fault (returns true with the
  // cursor at that value), a trailing comma a syntax fault.
  bool comma_before_value();

  // The unescaped value of the JSON string whose opening quote is at `quote`
  // in [begin, end), a string already read once without fault. The view is
  // into the header, or into `scratch` when the string had escapes.
  static std::string_view string_at(const std::uint8_t* begin, const std::uint8_t* end,
                                    const std::uint8_t* quote, std::string& scratch);

 private:
  // After a backslash: appends the unescaped text to `scratch`.
  bool read_escape(std::string& scratch);

  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  const std::uint8_t* p_;
  std::uint64_t file_base_;
  // The next byte a string scan must look at: until the first non-ASCII
  // byte, non-ASCII ones too; after it, they are content (a string of
  // non-ASCII text stops once, not at every byte). Always inlined: it runs
  // for every tensor name, from read_plain_string.
  [[gnu::always_inline]] const std::uint8_t* next_string_stop(
      const std::uint8_t* p) const noexcept {
    if (saw_non_ascii_) {
      return wide_string_stop_ != nullptr ? wide_string_stop_(p, end_) : find_string_stop(p, end_);
    }
    return wide_ascii_string_stop_ != nullptr ? wide_ascii_string_stop_(p, end_)
                                              : find_string_stop<true>(p, end_);
  }

  // Kernels::find_string_stop and find_ascii_string_stop; nullptr: the
  // inline baseline loops.
  using StringStop = const std::uint8_t* (*)(const std::uint8_t*, const std::uint8_t*) noexcept;
  StringStop wide_string_stop_;
  StringStop wide_ascii_string_stop_;
  bool saw_non_ascii_ = false;
  // layers.h: unsigned integers of the common form read a word at a time.
  bool u64_words_;
  Error error_{};
  bool stopped_at_syntax_error_ = false;
  std::string skip_scratch_;  // strings skip_value reads and drops
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_JSON_LEXER_H_
