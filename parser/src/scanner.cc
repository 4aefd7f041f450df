#include "scanner.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <charconv>
#include <cstring>
#include <system_error>

#include "dtype_table.h"
#include "little_endian.h"
#include "message.h"
#include "sizes.h"
#include "utf8.h"

namespace stguard::detail {
namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::size_t kUsualMetadataEntries = 4;

bool is_digit(int c) noexcept { return c >= '0' && c <= '9'; }

// Bytes that start a syntactically plausible JSON value. Used to tell "a value
// of the wrong type" (a schema fault) from "not JSON at all" (a syntax fault).
bool starts_value(int c) noexcept {
  return c == '"' || c == '{' || c == '[' || c == '-' || is_digit(c) || c == 't' || c == 'f' ||
         c == 'n';
}

// SWAR over 8 bytes loaded little-endian: a mask with the high bit set in
// each byte that is '"', '\\' or below 0x20. Borrows can only flag bytes
// above a true hit, so the lowest set bit always marks a real one.
std::uint64_t string_stop_mask(std::uint64_t w) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t backslash = w ^ (kOnes * '\\');
  const std::uint64_t has_quote = (quote - kOnes) & ~quote;
  const std::uint64_t has_backslash = (backslash - kOnes) & ~backslash;
  const std::uint64_t has_control = (w - kOnes * 0x20) & ~w;
  return (has_quote | has_backslash | has_control) & kHigh;
}

// How many of the 8 bytes of a little-endian word, from the lowest, are ASCII
// digits before the first one that is not (0 to 8). `t` is the word minus
// '0' in every byte: a digit byte is then 0..9; any other byte is >= 0x80 or
// reaches 0x80 when 0x76 is added. Borrows and carries only move upwards,
// past the first non-digit, so they never change the answer.
int leading_digits(std::uint64_t t) noexcept {
  const std::uint64_t non_digit = (t | (t + 0x7676767676767676ULL)) & 0x8080808080808080ULL;
  return non_digit == 0 ? 8 : __builtin_ctzll(non_digit) / 8;
}

// The value of the first `n` (1 to 8) digits of `t` (bytes already minus
// '0', the first digit in the lowest byte). Shifting them to the top leaves
// zero digits in front; then neighbours combine in three rounds (pairs,
// quads, the whole) with one multiply each, no lane exceeding its width.
std::uint64_t digits_value(std::uint64_t t, int n) noexcept {
  t <<= 8 * (8 - n);
  t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFULL;    // 16-bit lanes 0..99
  t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFULL;  // 32-bit lanes 0..9999
  return (t * 10000 + (t >> 32)) & 0xFFFFFFFFULL;
}

constexpr std::uint64_t kPow10[9] = {1,       10,        100,        1'000,      10'000,
                                     100'000, 1'000'000, 10'000'000, 100'000'000};
constexpr std::uint64_t kZeros = 0x3030303030303030ULL;

// The common form of an unsigned integer: 1 to 19 digits, no leading zero
// (except "0" itself), which always fits in u64. Needs 24 readable bytes at
// `p`. Returns the end of the digits and sets `value`, or nullptr for any
// other form (which the general grammar then reads). Inlined: it runs about
// four times per tensor.
[[gnu::always_inline]] inline const std::uint8_t* read_plain_u64(const std::uint8_t* p,
                                                                 std::uint64_t& value) noexcept {
  const std::uint64_t t1 = load_le64(p) - kZeros;
  const int n1 = leading_digits(t1);
  if (n1 == 0 || (n1 > 1 && (t1 & 0xFF) == 0)) return nullptr;
  value = digits_value(t1, n1);
  if (n1 < 8) return p + n1;
  const std::uint64_t t2 = load_le64(p + 8) - kZeros;
  const int n2 = leading_digits(t2);
  if (n2 == 0) return p + 8;
  value = value * kPow10[n2] + digits_value(t2, n2);
  if (n2 < 8) return p + 8 + n2;
  const std::uint64_t t3 = load_le64(p + 16) - kZeros;
  const int n3 = leading_digits(t3);
  if (n3 > 3) return nullptr;  // 20 digits or more
  if (n3 == 0) return p + 16;
  value = value * kPow10[n3] + digits_value(t3, n3);
  return p + 16 + n3;
}

// A literal of 9 to 16 bytes at p (with that many readable) as two
// overlapping 8-byte compares.
template <std::size_t N>
bool matches(const std::uint8_t* p, const char (&literal)[N]) noexcept {
  constexpr std::size_t kLen = N - 1;
  static_assert(kLen > 8 && kLen <= 16);
  const auto* text = reinterpret_cast<const std::uint8_t*>(literal);
  return load_le64(p) == load_le64(text) && load_le64(p + kLen - 8) == load_le64(text + kLen - 8);
}

// The first byte in [p, end) that a string scan must look at: '"', '\\' or a
// control byte (< 0x20); or end. Non-ASCII bytes are plain string content:
// the header's UTF-8 is validated before the scan (scanner.h).
const std::uint8_t* find_string_stop(const std::uint8_t* p, const std::uint8_t* end) noexcept {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    __m128i x;
    std::memcpy(&x, p, sizeof x);
    // x <= 0x1F as unsigned bytes: min(x, 0x1F) == x.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x, last_control), x);
    const __m128i stops =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), control);
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stops));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (end - p >= 8) {
    const std::uint64_t mask = string_stop_mask(load_le64(p));
    if (mask != 0) return p + __builtin_ctzll(mask) / 8;
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\' && *p >= 0x20) ++p;
  return p;
}

// Keeps a shape's element count (sizes.h) in the scanned record.
void store_count(const ElementCount& count, TensorRecord& tensor) noexcept {
  tensor.elements = count.elements();
  tensor.elements_overflow = count.overflow;
}

// For a well-formed JSON number literal: does its value round to infinity as
// an f64? Decided from the decimal order of magnitude, with an exact parse
// only in the one decade where that is not enough.
bool number_overflows_f64(const std::uint8_t* start, const std::uint8_t* end) {
  const std::uint8_t* p = start;
  if (*p == '-') ++p;
  // Order of magnitude of the first non-zero digit, before the exponent.
  std::int64_t magnitude = 0;
  bool found = false;
  std::int64_t int_digits = 0;
  const std::uint8_t* q = p;
  for (; q < end && is_digit(*q); ++q) {
    if (!found && *q != '0') {
      found = true;
      magnitude = -1;
    }
    if (found) ++int_digits;
  }
  magnitude += int_digits;
  if (q < end && *q == '.') {
    std::int64_t frac_position = 0;
    for (++q; q < end && is_digit(*q); ++q) {
      ++frac_position;
      if (!found && *q != '0') {
        found = true;
        magnitude = -frac_position;
      }
    }
  }
  if (!found) return false;  // zero, whatever the exponent
  if (q < end && (*q == 'e' || *q == 'E')) {
    ++q;
    bool negative = false;
    if (*q == '+' || *q == '-') negative = (*q++ == '-');
    std::int64_t exponent = 0;
    for (; q < end && is_digit(*q); ++q) {
      if (exponent < 1'000'000) exponent = exponent * 10 + (*q - '0');  // saturate
    }
    magnitude += negative ? -exponent : exponent;
  }
  if (magnitude < 308) return false;
  if (magnitude > 308) return true;
  double value = 0;
  const auto result = std::from_chars(reinterpret_cast<const char*>(start),
                                      reinterpret_cast<const char*>(end), value);
  return result.ec == std::errc::result_out_of_range;
}

}  // namespace

HeaderScanner::HeaderScanner(const std::uint8_t* begin, const std::uint8_t* end,
                             std::uint64_t file_base, const ParseOptions& options) noexcept
    : begin_(begin), end_(end), p_(begin), file_base_(file_base), options_(options) {}

HeaderScanner::~HeaderScanner() {
  if (!borrowed_spares_) return;
  return_spare<NameHashPool>(name_hashes_);
  return_spare<TensorNameTablePool>(tensor_names_.storage());
  return_spare<MetadataKeyTablePool>(metadata_keys_.storage());
}

bool HeaderScanner::fail(Reason reason, const std::uint8_t* at, std::string message) {
  error_ = Error{reason, offset_of(at), std::move(message)};
  return false;
}

bool HeaderScanner::fail_syntax(const std::uint8_t* at, std::string_view expected) {
  constexpr std::string_view kLead = "invalid JSON: expected ";
  if (at >= end_) {
    return fail(Reason::kHeaderNotJson, at,
                message(kLead, expected, ", found the end of the header"));
  }
  const unsigned char c = *at;
  if (c >= 0x20 && c < 0x7F) {
    const char found = static_cast<char>(c);
    return fail(Reason::kHeaderNotJson, at,
                message(kLead, expected, ", found '", std::string_view(&found, 1), "'"));
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const char hex[] = {kHex[c >> 4], kHex[c & 0xF]};
  return fail(Reason::kHeaderNotJson, at,
              message(kLead, expected, ", found byte 0x", std::string_view(hex, 2)));
}

void HeaderScanner::skip_whitespace() noexcept {
  // Compact headers have no whitespace: every JSON whitespace byte is <= ' ',
  // so one compare settles the common case.
  if (p_<end_&& * p_> ' ') return;
  // A local cursor: stores through the member would alias every byte read.
  const std::uint8_t* p = p_;
  while (p < end_ && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  p_ = p;
}

bool HeaderScanner::expect(char c, std::string_view what) {
  if (p_ < end_ && *p_ == static_cast<std::uint8_t>(c)) {
    ++p_;
    return true;
  }
  return fail_syntax(p_, what);
}

bool HeaderScanner::read_literal(std::string_view word) {
  const auto left = static_cast<std::size_t>(end_ - p_);
  if (left >= word.size() && std::memcmp(p_, word.data(), word.size()) == 0) {
    p_ += word.size();
    return true;
  }
  // Point at the first byte that differs, as serde_json does.
  const std::uint8_t* at = p_;
  for (std::size_t i = 0; i < word.size() && at < end_ && *at == word[i]; ++i) ++at;
  std::string what = "the literal '";
  what += word;
  what += "'";
  return fail_syntax(at, what);
}

bool HeaderScanner::read_hex4(std::uint32_t& out) {
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const int c = peek();
    std::uint32_t digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return fail_syntax(p_, "a hex digit in a \\u escape");
    }
    out = (out << 4) | digit;
    ++p_;
  }
  return true;
}

// At the byte after a backslash. Appends the unescaped text to `scratch`.
bool HeaderScanner::read_escape(std::string& scratch) {
  const std::uint8_t* escape_start = p_ - 1;
  const int c = peek();
  ++p_;
  switch (c) {
    case '"':
      scratch.push_back('"');
      return true;
    case '\\':
      scratch.push_back('\\');
      return true;
    case '/':
      scratch.push_back('/');
      return true;
    case 'b':
      scratch.push_back('\b');
      return true;
    case 'f':
      scratch.push_back('\f');
      return true;
    case 'n':
      scratch.push_back('\n');
      return true;
    case 'r':
      scratch.push_back('\r');
      return true;
    case 't':
      scratch.push_back('\t');
      return true;
    case 'u':
      break;
    default:
      return fail(Reason::kHeaderNotJson, escape_start,
                  "invalid JSON: invalid escape sequence in a string");
  }
  std::uint32_t unit;
  if (!read_hex4(unit)) return false;
  if (unit >= 0xDC00 && unit <= 0xDFFF) {
    return fail(Reason::kHeaderNotJson, escape_start,
                "invalid JSON: lone trailing surrogate in a \\u escape");
  }
  if (unit >= 0xD800 && unit <= 0xDBFF) {
    // A leading surrogate must be followed at once by an escaped trailing one.
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
      return fail(Reason::kHeaderNotJson, escape_start,
                  "invalid JSON: lone leading surrogate in a \\u escape");
    }
    p_ += 2;
    std::uint32_t low;
    if (!read_hex4(low)) return false;
    if (low < 0xDC00 || low > 0xDFFF) {
      return fail(Reason::kHeaderNotJson, escape_start,
                  "invalid JSON: lone leading surrogate in a \\u escape");
    }
    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(scratch, unit);
  return true;
}

// At the opening quote.
bool HeaderScanner::read_string(std::string& scratch, StringValue& out) {
  ++p_;  // the caller checked the quote
  const std::uint8_t* run = p_;
  bool escaped = false;
  out.has_nul = false;
  for (;;) {
    p_ = find_string_stop(p_, end_);
    if (p_ >= end_) return fail_syntax(p_, "'\"' to close the string");
    const std::uint8_t c = *p_;
    if (c == '"') {
      if (!escaped) {
        out.text = std::string_view(reinterpret_cast<const char*>(run),
                                    static_cast<std::size_t>(p_ - run));
      } else {
        scratch.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p_ - run));
        out.text = scratch;
      }
      out.decoded = escaped;
      ++p_;
      return true;
    }
    if (c == '\\') {
      if (!escaped) {
        scratch.clear();
        escaped = true;
      }
      scratch.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p_ - run));
      ++p_;
      const std::size_t before = scratch.size();
      if (!read_escape(scratch)) return false;
      if (scratch.size() == before + 1 && scratch.back() == '\0') out.has_nul = true;
      run = p_;
      continue;
    }
    // Only a control character is left.
    return fail(Reason::kHeaderNotJson, p_,
                "invalid JSON: control character inside a string (must be escaped)");
  }
}

bool HeaderScanner::read_number(NumberForm& out) {
  const std::uint8_t* start = p_;
  out = NumberForm{};
  if (peek() == '-') {
    out.negative = true;
    ++p_;
  }
  const int first = peek();
  if (!is_digit(first)) return fail_syntax(p_, "a digit");
  if (first == '0') {
    ++p_;
    if (is_digit(peek())) {
      return fail(Reason::kHeaderNotJson, start, "invalid JSON: number with a leading zero");
    }
  } else {
    const std::uint8_t* digits = p_;
    const std::uint8_t* p = p_;
    while (p < end_ && is_digit(*p)) ++p;
    p_ = p;
    std::uint64_t value = 0;
    bool overflow = false;
    // Up to 19 digits cannot overflow u64; only longer runs need the checks.
    const std::uint8_t* unchecked_end = (p_ - digits <= 19) ? p_ : digits + 19;
    for (const std::uint8_t* d = digits; d < unchecked_end; ++d) {
      value = value * 10 + static_cast<std::uint64_t>(*d - '0');
    }
    for (const std::uint8_t* d = unchecked_end; d < p_ && !overflow; ++d) {
      overflow |= __builtin_mul_overflow(value, 10u, &value);
      overflow |= __builtin_add_overflow(value, static_cast<std::uint64_t>(*d - '0'), &value);
    }
    out.value = value;
    out.above_u64 = overflow;
  }
  if (peek() == '.') {
    out.fractional_or_exponent = true;
    ++p_;
    if (!is_digit(peek())) return fail_syntax(p_, "a digit after the decimal point");
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  if (peek() == 'e' || peek() == 'E') {
    out.fractional_or_exponent = true;
    ++p_;
    if (peek() == '+' || peek() == '-') ++p_;
    if (!is_digit(peek())) return fail_syntax(p_, "a digit in the exponent");
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  out.is_u64 = !out.negative && !out.fractional_or_exponent && !out.above_u64;
  return true;
}

// One element of shape or data_offsets: a JSON integer in [0, 2^64).
bool HeaderScanner::read_u64_element(Reason type_reason, std::string_view what,
                                     std::uint64_t& out) {
  const std::uint8_t* start = p_;
  const int c = peek();
  // Fast path for the common form (see read_plain_u64) followed by something
  // that cannot continue a number. Anything else takes the full grammar.
  if (end_ - p_ >= 24) {
    std::uint64_t value;
    const std::uint8_t* p = read_plain_u64(p_, value);
    if (p != nullptr && *p != '.' && *p != 'e' && *p != 'E') {
      p_ = p;
      out = value;
      return true;
    }
  }
  if (c == '-' || is_digit(c)) {
    NumberForm number;
    if (!read_number(number)) return false;
    if (number.is_u64) {
      out = number.value;
      return true;
    }
    std::string message(what);
    if (number.negative) {
      message += " is negative";
    } else if (number.fractional_or_exponent) {
      message += " is not an integer (fraction or exponent)";
    } else {
      message += " exceeds 2^64-1";
    }
    return fail(type_reason, start, std::move(message));
  }
  if (starts_value(c)) {
    std::string message(what);
    message += " is not an unsigned integer";
    return fail(type_reason, start, std::move(message));
  }
  return fail_syntax(p_, "a JSON value");
}

bool HeaderScanner::skip_value(int depth) {
  // Iterative so that nesting costs no native stack; the depth is capped at
  // serde_json's limit anyway. kinds[i] is true for an object.
  bool kinds[kMaxDepth];
  int open = 0;
  for (;;) {
    // Expecting a value.
    const int c = peek();
    if (c == '{' || c == '[') {
      if (depth + open + 1 >= kMaxDepth) {
        return fail(Reason::kHeaderNotJson, p_,
                    "invalid JSON: nesting deeper than 127 levels (upstream serde_json "
                    "recursion limit)");
      }
      kinds[open++] = (c == '{');
      ++p_;
      skip_whitespace();
      const int close = (c == '{') ? '}' : ']';
      if (peek() == close) {
        ++p_;
        --open;
      } else if (c == '{') {
        if (peek() != '"') return fail_syntax(p_, "a key string or '}'");
        StringValue key;
        if (!read_string(skip_scratch_, key)) return false;
        skip_whitespace();
        if (!expect(':', "':' after an object key")) return false;
        skip_whitespace();
        continue;
      } else {
        continue;  // first array element
      }
    } else if (c == '"') {
      StringValue ignored;
      if (!read_string(skip_scratch_, ignored)) return false;
    } else if (c == '-' || is_digit(c)) {
      const std::uint8_t* start = p_;
      NumberForm number;
      if (!read_number(number)) return false;
      // serde_json reads integers above u64 and all non-integers as f64 and
      // rejects a magnitude that overflows it ("number out of range").
      if (!number.is_u64 && number_overflows_f64(start, p_)) {
        return fail(Reason::kHeaderNotJson, start, "invalid JSON: number out of range for f64");
      }
    } else if (c == 't') {
      if (!read_literal("true")) return false;
    } else if (c == 'f') {
      if (!read_literal("false")) return false;
    } else if (c == 'n') {
      if (!read_literal("null")) return false;
    } else {
      return fail_syntax(p_, "a JSON value");
    }
    // After a value: close containers or move to the next element.
    for (;;) {
      if (open == 0) return true;
      skip_whitespace();
      const bool in_object = kinds[open - 1];
      if (peek() == ',') {
        ++p_;
        skip_whitespace();
        if (in_object) {
          if (peek() != '"') return fail_syntax(p_, "a key string");
          StringValue key;
          if (!read_string(skip_scratch_, key)) return false;
          skip_whitespace();
          if (!expect(':', "':' after an object key")) return false;
          skip_whitespace();
        }
        break;  // next value
      }
      if (peek() == (in_object ? '}' : ']')) {
        ++p_;
        --open;
        continue;
      }
      return fail_syntax(p_, in_object ? "',' or '}'" : "',' or ']'");
    }
  }
}

bool HeaderScanner::check_name(const StringValue& name, const std::uint8_t* at,
                               bool is_metadata_key) {
  if (name.text.size() > options_.limits.max_name_bytes) {
    return fail(Reason::kLimitExceeded, at,
                message(is_metadata_key ? "metadata key" : "tensor name", " of ",
                        std::uint64_t{name.text.size()}, " bytes exceeds max_name_bytes ",
                        options_.limits.max_name_bytes));
  }
  if (strict() && name.has_nul) {
    return fail(Reason::kNameInvalid, at,
                message(is_metadata_key ? "metadata key " : "tensor name ", Quoted{name.text},
                        " contains U+0000 (C-string readers would see a different name)"));
  }
  return true;
}

bool HeaderScanner::scan(ScannedHeader& out) {
  out.header_begin = begin_;
  out.header_end = end_;
  out.file_base = file_base_;
  out_ = &out;
  // The tables come from the thread's spares (recycle.h); only here, since
  // string_at's scanners, made once per name read again, never scan.
  borrow_spare<NameHashPool>(name_hashes_);
  borrow_spare<TensorNameTablePool>(tensor_names_.storage());
  borrow_spare<MetadataKeyTablePool>(metadata_keys_.storage());
  borrowed_spares_ = true;
  // Real entries take 60 to 150 header bytes; reserving for one per 64 bytes
  // avoids most regrowth copies while staying within ~1x the header size.
  const auto header_size = static_cast<std::size_t>(end_ - begin_);
  const std::size_t expected_tensors = header_size / 64;
  if (expected_tensors <= options_.limits.max_tensors) {
    out.tensors.reserve(expected_tensors);
    if (out.keep_details) {
      out.details.reserve(expected_tensors);
      out.dims.reserve(expected_tensors * 2);
    }
    if (!strict()) {
      // The name table is probed at random, so it is sized for typical
      // entries (~128 bytes) rather than the worst case: growing it
      // re-inserts every name, but an oversized table misses the cache on
      // every probe.
      tensor_names_.reserve(header_size / 128);
    }
  }
  const bool scanned = read_document(out);
  if (strict() && !names_ascending_) {
    // A repeated tensor name is a fault at the repeat, so it wins over any
    // fault the scan found later, and over every check after the scan. Every
    // name recorded so far precedes the scan's fault (a name is recorded
    // before its entry is read), so the first repeat among them is the one
    // a check at each name would have stopped at.
    std::string scratch;
    const auto repeat = first_repeated_name(name_hashes_, [&](std::uint32_t i, std::uint32_t j) {
      return out.name(i, compare_scratch_) == out.name(j, scratch);
    });
    if (repeat) {
      const auto [first, second] = *repeat;
      const TensorRecord& t = out.tensors[second];
      return fail(Reason::kDuplicateKey, begin_ + (t.header_offset - file_base_),
                  message("tensor name ", Quoted{out.name(second, scratch)},
                          " appears twice (first at byte ", out.tensors[first].header_offset, ")"));
    }
  }
  return scanned;
}

void HeaderScanner::note_name_for_repeats(std::string_view name, bool decoded) {
  const std::size_t index = out_->tensors.size() - 1;  // the record just added
  if (names_ascending_) {
    if (index == 0 || previous_name_ < name) {
      if (decoded) {
        // Decoded names live in buffers that the next name reuses.
        previous_name_copy_.assign(name);
        previous_name_ = previous_name_copy_;
      } else {
        previous_name_ = name;  // in the header
      }
      return;
    }
    // Out of order: hash every name so far, and from now on each one.
    names_ascending_ = false;
    name_hashes_.reserve(out_->tensors.capacity());
    std::string scratch;
    for (std::size_t i = 0; i < index; ++i) {
      name_hashes_.push_back(static_cast<std::uint32_t>(hash_name(out_->name(i, scratch))));
    }
  }
  name_hashes_.push_back(static_cast<std::uint32_t>(hash_name(name)));
}

std::string_view HeaderScanner::string_at(const std::uint8_t* begin, const std::uint8_t* end,
                                          const std::uint8_t* quote, std::string& scratch) {
  static const ParseOptions kOptions;  // string decoding is the same in every profile
  HeaderScanner scanner(begin, end, 0, kOptions);
  scanner.p_ = quote;
  StringValue value;
  if (!scanner.read_string(scratch, value)) return {};  // not reached for a scanned string
  return value.text;
}

std::string_view ScannedHeader::name(std::size_t index, std::string& scratch) const {
  if (keep_details) {
    const TensorDetail& d = details[index];
    const char* base =
        d.name_in_arena ? name_arena.data() : reinterpret_cast<const char*>(header_begin);
    return {base + d.name_pos, static_cast<std::size_t>(d.name_len)};
  }
  const std::uint8_t* quote = header_begin + (tensors[index].header_offset - file_base);
  return HeaderScanner::string_at(header_begin, header_end, quote, scratch);
}

bool HeaderScanner::read_document(ScannedHeader& out) {
  std::vector<TensorRecord>& tensors = out.tensors;
  if (begin_ == end_) {
    return fail(Reason::kHeaderNotJson, p_, "invalid JSON: the header is empty (N = 0)");
  }
  if (strict()) {
    if (*p_ != '{') {
      return fail(Reason::kHeaderBadStart, p_,
                  "the header must begin with '{' (no leading whitespace or BOM)");
    }
  } else {
    skip_whitespace();
    if (peek() != '{') return fail_syntax(p_, "'{' (the header must be a JSON object)");
  }
  ++p_;
  bool metadata_seen = false;
  skip_whitespace();
  if (peek() == '}') {
    ++p_;
  } else {
    for (;;) {
      if (peek() != '"') return fail_syntax(p_, "a tensor name string");
      const std::uint8_t* key_at = p_;
      StringValue key;
      if (!read_string(key_scratch_, key)) return false;
      skip_whitespace();
      if (!expect(':', "':' after a key")) return false;
      skip_whitespace();
      if (key.text == kMetadataKey) {
        if (metadata_seen) {
          return fail(Reason::kDuplicateKey, key_at, "\"__metadata__\" appears twice");
        }
        metadata_seen = true;
        if (!read_metadata(out.metadata)) return false;
      } else {
        if (!check_name(key, key_at, false)) return false;
        if (tensors.size() >= options_.limits.max_tensors) {
          return fail(Reason::kLimitExceeded, key_at,
                      message("more than max_tensors (", options_.limits.max_tensors, ") tensors"));
        }
        const auto new_index = static_cast<std::uint32_t>(tensors.size());
        TensorRecord& tensor = tensors.emplace_back();
        tensor.header_offset = offset_of(key_at);
        // A stable view of the name for the rest of this entry: in the header,
        // or copied when decoded from escapes (key_scratch_ is reused below).
        std::string_view name = key.text;
        if (out.keep_details) {
          TensorDetail& detail = out.details.emplace_back();
          detail_ = &detail;
          detail.name_len = key.text.size();
          if (key.decoded) {
            detail.name_in_arena = true;
            detail.name_pos = out.name_arena.size();
            out.name_arena.append(key.text);
          } else {
            detail.name_pos = static_cast<std::uint64_t>(
                reinterpret_cast<const std::uint8_t*>(key.text.data()) - begin_);
          }
          name = out.name(new_index, name_scratch_);
        } else if (key.decoded) {
          name_scratch_.assign(key.text);
          name = name_scratch_;
        }
        if (strict()) {
          // Repeated names are found after the scan (see scan()).
          note_name_for_repeats(name, key.decoded);
          if (!read_tensor_entry(tensor, name)) return false;
        } else {
          // The lookup comes after the entry is read so that the prefetched
          // hash slot has arrived by then (see NameIndex).
          const std::uint32_t hash = tensor_names_.hash_and_prefetch(name);
          if (!read_tensor_entry(tensor, name)) return false;
          const std::uint32_t existing = tensor_names_.find_or_insert(
              hash, name, new_index,
              [&out, this](std::uint32_t i) { return out.name(i, compare_scratch_); });
          if (existing != NameIndex::kAbsent) {
            // Upstream collects entries into a HashMap, so the last one wins;
            // the earlier entry had to be well-typed all the same.
            tensors[existing] = tensors.back();
            tensors.pop_back();
            if (out.keep_details) {
              out.details[existing] = out.details.back();
              out.details.pop_back();
            }
          }
        }
        detail_ = nullptr;
      }
      skip_whitespace();
      if (peek() == ',') {
        ++p_;
        skip_whitespace();
        continue;
      }
      if (peek() == '}') {
        ++p_;
        break;
      }
      return fail_syntax(p_, "',' or '}' after a header entry");
    }
  }
  // After the top-level object.
  if (strict()) {
    for (; p_ < end_; ++p_) {
      if (*p_ != ' ') {
        return fail(Reason::kHeaderBadPadding, p_,
                    "only spaces (0x20) may follow the header object as padding");
      }
    }
    return true;
  }
  skip_whitespace();
  if (p_ != end_) {
    return fail(Reason::kHeaderNotJson, p_,
                "invalid JSON: trailing characters after the header object");
  }
  return true;
}

bool HeaderScanner::read_metadata(
    std::optional<std::vector<std::pair<std::string, std::string>>>& metadata) {
  const std::uint8_t* value_at = p_;
  const int c = peek();
  if (c == 'n') {
    if (!read_literal("null")) return false;
    if (strict()) {
      return fail(Reason::kMetadataInvalid, value_at,
                  "\"__metadata__\" is null (must be an object of strings)");
    }
    metadata.reset();  // upstream treats null as absent
    return true;
  }
  if (c != '{') {
    if (!starts_value(c)) return fail_syntax(p_, "a JSON value");
    return fail(Reason::kMetadataInvalid, value_at,
                "\"__metadata__\" must be an object of string values");
  }
  ++p_;  // depth 2; only strings inside, so no nesting check is needed
  auto& pairs = metadata.emplace();
  skip_whitespace();
  if (peek() == '}') {
    ++p_;
    return true;
  }
  // Files carry a handful of metadata entries ("format": "pt" and a few
  // more): room for them in one allocation instead of regrowing at 1, 2, 4.
  pairs.reserve(kUsualMetadataEntries);
  for (;;) {
    if (peek() != '"') return fail_syntax(p_, "a metadata key string");
    const std::uint8_t* key_at = p_;
    StringValue key;
    if (!read_string(key_scratch_, key)) return false;
    if (!check_name(key, key_at, true)) return false;
    // Duplicates are decided at the key, before its value, as for tensor names.
    pairs.emplace_back(std::string(key.text), std::string());
    const auto new_index = static_cast<std::uint32_t>(pairs.size() - 1);
    const std::uint32_t existing = metadata_keys_.find_or_insert(
        pairs.back().first, new_index,
        [&pairs](std::uint32_t i) -> std::string_view { return pairs[i].first; });
    if (existing != NameIndex::kAbsent && strict()) {
      return fail(Reason::kDuplicateKey, key_at,
                  message("metadata key ", Quoted{pairs.back().first}, " appears twice"));
    }
    skip_whitespace();
    if (!expect(':', "':' after a metadata key")) return false;
    skip_whitespace();
    const std::uint8_t* string_at = p_;
    if (peek() != '"') {
      if (!starts_value(peek())) return fail_syntax(p_, "a JSON value");
      return fail(Reason::kMetadataInvalid, string_at,
                  message("metadata value for ", Quoted{pairs.back().first}, " is not a string"));
    }
    StringValue value;
    if (!read_string(value_scratch_, value)) return false;
    if (strict() && value.has_nul) {
      return fail(Reason::kMetadataInvalid, string_at,
                  message("metadata value for ", Quoted{pairs.back().first}, " contains U+0000"));
    }
    pairs.back().second.assign(value.text);
    if (existing != NameIndex::kAbsent) {
      pairs[existing].second = std::move(pairs.back().second);  // reference: last wins
      pairs.pop_back();
    }
    skip_whitespace();
    if (peek() == ',') {
      ++p_;
      skip_whitespace();
      continue;
    }
    if (peek() == '}') {
      ++p_;
      return true;
    }
    return fail_syntax(p_, "',' or '}' in \"__metadata__\"");
  }
}

bool HeaderScanner::read_tensor_entry(TensorRecord& tensor, std::string_view name) {
  const int c = peek();
  if (c == '{') return read_compact_entry(tensor) || read_tensor_object(tensor, name);
  if (c == '[' && !strict()) return read_tensor_array(tensor, name);
  if (!starts_value(c)) return fail_syntax(p_, "a JSON value");
  return fail(Reason::kTensorInvalid, p_,
              message("entry for tensor ", Quoted{name},
                      " must be an object with dtype, shape and data_offsets"));
}

bool HeaderScanner::read_compact_entry(TensorRecord& tensor) {
  // Every load below is checked against the end first; near the end of the
  // header this gives up and the general reader takes over.
  const std::uint8_t* q = p_;  // at '{'
  auto room = [this](const std::uint8_t* at, std::ptrdiff_t n) { return end_ - at >= n; };
  // {"dtype":"NAME" where NAME has no escapes: 2 to 11 bytes before a '"'.
  if (!room(q, 10 + 16) || !matches(q, "{\"dtype\":\"")) return false;
  q += 10;
  const auto name_len = static_cast<std::size_t>(find_string_stop(q, q + 16) - q);
  if (name_len < 2 || name_len > 11 || q[name_len] != '"') return false;
  const std::optional<Dtype> dtype =
      find_dtype(std::string_view(reinterpret_cast<const char*>(q), name_len));
  if (!dtype) return false;
  q += name_len;
  if (!room(q, 11) || !matches(q, "\",\"shape\":[")) return false;
  q += 11;

  std::vector<std::uint64_t>* dims = detail_ != nullptr ? &out_->dims : nullptr;
  const std::size_t dims_before = dims != nullptr ? dims->size() : 0;
  auto give_up = [&] {
    if (dims != nullptr) dims->resize(dims_before);
    return false;
  };
  ElementCount count;
  std::uint64_t rank = 0;
  if (!room(q, 1)) return false;
  if (*q == ']') {
    ++q;
  } else {
    for (;;) {
      // The rank cap is the general reader's to report.
      if (rank >= options_.limits.max_rank || !room(q, 24)) return give_up();
      std::uint64_t dim;
      const std::uint8_t* after = read_plain_u64(q, dim);
      if (after == nullptr) return give_up();
      if (dims != nullptr) dims->push_back(dim);
      ++rank;
      count.add(dim, options_.profile);
      q = after + 1;
      if (*after == ']') break;
      if (*after != ',') return give_up();
    }
  }

  if (!room(q, 17 + 24) || !matches(q, ",\"data_offsets\":") || q[16] != '[') return give_up();
  q += 17;
  std::uint64_t begin;
  const std::uint8_t* after = read_plain_u64(q, begin);
  if (after == nullptr || *after != ',') return give_up();
  q = after + 1;
  std::uint64_t end;
  if (!room(q, 24) || (after = read_plain_u64(q, end)) == nullptr) return give_up();
  if (!room(after, 2) || after[0] != ']' || after[1] != '}') return give_up();

  p_ = after + 2;
  tensor.dtype = *dtype;
  tensor.begin = begin;
  tensor.end = end;
  store_count(count, tensor);
  if (dims != nullptr) {
    detail_->shape_pos = dims_before;
    detail_->rank = rank;
  }
  return true;
}

bool HeaderScanner::read_tensor_object(TensorRecord& tensor, std::string_view name) {
  ++p_;  // '{' at depth 2
  bool have_dtype = false;
  bool have_shape = false;
  bool have_offsets = false;
  skip_whitespace();
  if (peek() != '}') {
    for (;;) {
      if (peek() != '"') return fail_syntax(p_, "a field name string");
      const std::uint8_t* field_at = p_;
      StringValue field;
      // Writers emit the three field names without escapes; match those
      // directly and leave everything else to the general string reader.
      if (!match_plain_key("\"dtype\"", field) && !match_plain_key("\"shape\"", field) &&
          !match_plain_key("\"data_offsets\"", field) && !read_string(key_scratch_, field)) {
        return false;
      }
      skip_whitespace();
      if (!expect(':', "':' after a field name")) return false;
      skip_whitespace();
      bool* seen = nullptr;
      if (field.text == "dtype") {
        seen = &have_dtype;
      } else if (field.text == "shape") {
        seen = &have_shape;
      } else if (field.text == "data_offsets") {
        seen = &have_offsets;
      }
      if (seen != nullptr && *seen) {
        return fail(
            Reason::kDuplicateKey, field_at,
            message("field ", Quoted{field.text}, " appears twice in tensor ", Quoted{name}));
      }
      if (seen == &have_dtype) {
        if (!read_dtype(tensor.dtype)) return false;
      } else if (seen == &have_shape) {
        if (!read_shape(tensor)) return false;
      } else if (seen == &have_offsets) {
        if (!read_offsets(tensor.begin, tensor.end)) return false;
      } else if (strict()) {
        return fail(Reason::kTensorInvalid, field_at,
                    message("unknown field ", Quoted{field.text}, " in tensor ", Quoted{name}));
      } else if (!skip_value(2)) {
        return false;  // upstream ignores unknown fields, but they must be JSON
      }
      if (seen != nullptr) *seen = true;
      skip_whitespace();
      if (peek() == ',') {
        ++p_;
        skip_whitespace();
        continue;
      }
      if (peek() == '}') break;
      return fail_syntax(p_, "',' or '}' in a tensor entry");
    }
  }
  const char* missing = !have_dtype     ? "dtype"
                        : !have_shape   ? "shape"
                        : !have_offsets ? "data_offsets"
                                        : nullptr;
  if (missing != nullptr) {
    return fail(Reason::kTensorInvalid, p_,
                message("tensor ", Quoted{name}, " has no \"", missing, "\" field"));
  }
  ++p_;  // '}'
  return true;
}

// Reference profile only: serde accepts a struct written as a sequence of its
// fields in declaration order, [dtype, shape, data_offsets].
bool HeaderScanner::read_tensor_array(TensorRecord& tensor, std::string_view name) {
  ++p_;  // '[' at depth 2
  auto wrong_length = [&](const char* count) {
    return fail(Reason::kTensorInvalid, p_,
                message("array-form entry for tensor ", Quoted{name}, " has ", count,
                        " elements, needs exactly 3 [dtype, shape, data_offsets]"));
  };
  skip_whitespace();
  if (peek() == ']') return wrong_length("0");
  if (!read_dtype(tensor.dtype)) return false;
  skip_whitespace();
  if (peek() == ']') return wrong_length("1");
  if (!expect(',', "',' or ']' in an array-form tensor entry")) return false;
  skip_whitespace();
  if (!read_shape(tensor)) return false;
  skip_whitespace();
  if (peek() == ']') return wrong_length("2");
  if (!expect(',', "',' or ']' in an array-form tensor entry")) return false;
  skip_whitespace();
  if (!read_offsets(tensor.begin, tensor.end)) return false;
  skip_whitespace();
  if (peek() == ',') {
    if (!comma_before_value()) return false;
    return wrong_length("more than 3");
  }
  return expect(']', "']' closing an array-form tensor entry");
}

// At a ',' inside an array that already holds all the elements it may have:
// a further value is a schema fault, a trailing comma a syntax fault. Leaves
// p_ at the extra value when it returns true.
bool HeaderScanner::comma_before_value() {
  ++p_;
  skip_whitespace();
  return starts_value(peek()) || fail_syntax(p_, "a JSON value");
}

bool HeaderScanner::read_dtype(Dtype& out) {
  const std::uint8_t* at = p_;
  const int c = peek();
  if (c == '"') {
    StringValue name;
    if (!read_string(value_scratch_, name)) return false;
    if (auto d = find_dtype(name.text)) {
      out = *d;
      return true;
    }
    return fail(
        Reason::kDtypeInvalid, at,
        message("unknown dtype ", Quoted{name.text}, " (names are exact and case-sensitive)"));
  }
  if (c == '{' && !strict()) {
    // serde's externally tagged enum: {"F32": null} is the unit variant F32.
    ++p_;  // depth 3
    skip_whitespace();
    if (peek() != '"') {
      if (peek() == '}') {
        return fail(Reason::kDtypeInvalid, at, "dtype map must have exactly one key");
      }
      return fail_syntax(p_, "a key string");
    }
    StringValue name;
    if (!read_string(value_scratch_, name)) return false;
    const auto dtype = find_dtype(name.text);
    if (!dtype)
      return fail(Reason::kDtypeInvalid, at, message("unknown dtype ", Quoted{name.text}));
    skip_whitespace();
    if (!expect(':', "':' after a key")) return false;
    skip_whitespace();
    if (peek() != 'n') {
      if (!starts_value(peek())) return fail_syntax(p_, "a JSON value");
      return fail(Reason::kDtypeInvalid, at, "dtype map value must be null (a unit variant)");
    }
    if (!read_literal("null")) return false;
    skip_whitespace();
    if (peek() == ',') return fail(Reason::kDtypeInvalid, at, "dtype map has more than one key");
    if (!expect('}', "'}' closing the dtype map")) return false;
    out = *dtype;
    return true;
  }
  if (!starts_value(c)) return fail_syntax(p_, "a JSON value");
  return fail(Reason::kDtypeInvalid, at, "dtype must be a string naming one of the 22 dtypes");
}

bool HeaderScanner::read_shape(TensorRecord& tensor) {
  if (peek() != '[') {
    if (!starts_value(peek())) return fail_syntax(p_, "a JSON value");
    return fail(Reason::kShapeInvalid, p_, "shape must be an array of unsigned integers");
  }
  ++p_;
  std::vector<std::uint64_t>* dims = detail_ != nullptr ? &out_->dims : nullptr;
  if (dims != nullptr) {
    detail_->shape_pos = dims->size();
    detail_->rank = 0;
  }
  ElementCount count;
  std::uint64_t rank = 0;
  auto finish = [&] {
    store_count(count, tensor);
    if (dims != nullptr) detail_->rank = rank;
    return true;
  };
  skip_whitespace();
  if (peek() == ']') {
    ++p_;
    return finish();
  }
  for (;;) {
    if (rank >= options_.limits.max_rank) {
      return fail(
          Reason::kLimitExceeded, p_,
          message("shape has more than max_rank (", options_.limits.max_rank, ") dimensions"));
    }
    std::uint64_t dim;
    if (!read_u64_element(Reason::kShapeInvalid, "shape dimension", dim)) return false;
    if (dims != nullptr) dims->push_back(dim);
    ++rank;
    count.add(dim, options_.profile);
    skip_whitespace();
    if (peek() == ',') {
      ++p_;
      skip_whitespace();
      continue;
    }
    if (peek() == ']') {
      ++p_;
      return finish();
    }
    return fail_syntax(p_, "',' or ']' in shape");
  }
}

bool HeaderScanner::read_offsets(std::uint64_t& begin, std::uint64_t& end) {
  const std::uint8_t* at = p_;
  if (peek() != '[') {
    if (!starts_value(peek())) return fail_syntax(p_, "a JSON value");
    return fail(Reason::kOffsetsInvalid, at, "data_offsets must be an array [begin, end]");
  }
  ++p_;
  skip_whitespace();
  if (peek() == ']')
    return fail(Reason::kOffsetsInvalid, p_, "data_offsets is empty, needs [begin, end]");
  std::uint64_t first;
  if (!read_u64_element(Reason::kOffsetsInvalid, "data offset", first)) return false;
  skip_whitespace();
  if (peek() == ']')
    return fail(Reason::kOffsetsInvalid, p_, "data_offsets has 1 element, needs [begin, end]");
  if (!expect(',', "',' in data_offsets")) return false;
  skip_whitespace();
  std::uint64_t second;
  if (!read_u64_element(Reason::kOffsetsInvalid, "data offset", second)) return false;
  skip_whitespace();
  if (peek() == ',') {
    if (!comma_before_value()) return false;
    return fail(Reason::kOffsetsInvalid, p_, "data_offsets has more than 2 elements");
  }
  if (!expect(']', "']' closing data_offsets")) return false;
  begin = first;
  end = second;
  return true;
}

}  // namespace stguard::detail
