// conformance/mutate/token_mutator.cc: the token-level mutator (token_mutator.h),
// moved unchanged from the fuzz_mutator harness: the same input, seed and
// fallback give the same output.
#include "conformance/mutate/token_mutator.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <random>

#include "conformance/mutate/format_math.h"

namespace stguard::mutate {

namespace {

// SplitMix64: tiny state, no allocation, and unlike minstd_rand its first
// outputs do not follow the seed linearly (libFuzzer's seeds are consecutive
// in places, as are the replay main's).
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

std::size_t pick(Rng& rng, std::size_t n) {  // uniform in [0, n), n > 0
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

struct Buffer {
  std::uint8_t* data;
  std::size_t size;
  std::size_t max_size;
  std::uint64_t n;  // header length; 8 + n <= size

  // Bytes the input may still grow by. libFuzzer's crash minimisation passes
  // a max_size below the input's size (the buffer holds the input and no
  // more): then there is no room, and only shrinking edits apply.
  std::size_t room() const { return size < max_size ? max_size - size : 0; }

  std::uint8_t* header() const { return data + 8; }
  std::size_t header_end() const { return 8 + static_cast<std::size_t>(n); }

  // Replaces data[pos, pos + old_len) with `text`; `pos` and the range are
  // inside the header, whose length follows. False when it would not fit.
  bool replace(std::size_t pos, std::size_t old_len, const void* text, std::size_t new_len) {
    if (new_len > old_len && new_len - old_len > room()) return false;
    std::memmove(data + pos + new_len, data + pos + old_len, size - pos - old_len);
    if (new_len != 0) std::memmove(data + pos, text, new_len);
    size = size + new_len - old_len;
    n = n + new_len - old_len;
    return true;
  }

  void store_length() {
    std::uint64_t v = n;
    for (int i = 0; i < 8; ++i) {
      data[i] = static_cast<std::uint8_t>(v & 0xff);
      v >>= 8;
    }
  }
};

bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }

// Index (absolute) of the first byte of `needle` in the header at or after a
// random start, wrapping once; npos when absent.
constexpr std::size_t kNpos = static_cast<std::size_t>(-1);
std::size_t find_from(const Buffer& b, std::size_t start, const char* needle) {
  const std::size_t len = std::strlen(needle);
  const std::size_t end = b.header_end();
  if (len == 0 || b.n < len) return kNpos;
  const std::size_t last = end - len;  // last possible start
  for (std::size_t k = 0; k <= last - 8; ++k) {
    const std::size_t i = 8 + (start - 8 + k) % (last - 8 + 1);
    if (std::memcmp(b.data + i, needle, len) == 0) return i;
  }
  return kNpos;
}

std::size_t random_header_pos(const Buffer& b, Rng& rng) { return 8 + pick(rng, b.n + 1); }

// End (exclusive) of the JSON value starting at `pos`: strings and brackets
// are matched, scalars run to the next delimiter. Clamped to the header.
std::size_t value_end(const Buffer& b, std::size_t pos) {
  const std::size_t end = b.header_end();
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = pos; i < end; ++i) {
    const std::uint8_t c = b.data[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return i;
      if (--depth == 0) return i + 1;
    } else if (depth == 0 && (c == ',' || c == ' ')) {
      return i;
    }
  }
  return end;
}

// A `"key":value` member starting at a quote; returns its end or npos.
std::size_t member_end(const Buffer& b, std::size_t quote) {
  const std::size_t key_end = value_end(b, quote);
  if (key_end >= b.header_end() || b.data[key_end] != ':') return kNpos;
  return value_end(b, key_end + 1);
}

// A quote that starts a key: previous non-space byte is '{' or ','.
std::size_t find_key(const Buffer& b, Rng& rng) {
  std::size_t at = random_header_pos(b, rng);
  for (int tries = 0; tries < 4; ++tries) {
    const std::size_t q = find_from(b, at, "\"");
    if (q == kNpos) return kNpos;
    std::size_t p = q;
    while (p > 8 && b.data[p - 1] == ' ') --p;
    if (p > 8 && (b.data[p - 1] == '{' || b.data[p - 1] == ',')) return q;
    at = q + 1 < b.header_end() ? q + 1 : 8;
  }
  return kNpos;
}

constexpr const char* kNumbers[] = {"0",
                                    "1",
                                    "2",
                                    "4",
                                    "8",
                                    "255",
                                    "4294967295",
                                    "4294967296",
                                    "9007199254740992",
                                    "9007199254740993",
                                    "9223372036854775807",
                                    "9223372036854775808",
                                    "18446744073709551615",
                                    "18446744073709551616",
                                    "-1",
                                    "-0",
                                    "1.0",
                                    "1e3",
                                    "00"};
constexpr const char* kDtypes[] = {
    "BOOL",    "F4",          "F6_E2M3",     "F6_E3M2", "U8",  "I8",  "F8_E5M2", "F8_E4M3",
    "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16",     "U16", "F16", "BF16",    "I32",
    "U32",     "F32",         "C64",         "F64",     "I64", "U64", "f32",     "F8_E4M3FN"};
constexpr const char* kInserts[] = {" ",
                                    "\t",
                                    "\n",
                                    "\r",
                                    "\xef\xbb\xbf",
                                    "\\u0000",
                                    "\\\"",
                                    "\\ud800",
                                    "\\ud83d\\ude00",
                                    ",",
                                    "\"x\":1,",
                                    "[",
                                    "]",
                                    "{",
                                    "}",
                                    "\"__metadata__\":{},",
                                    "\xc3",
                                    "\x00"};

bool mutate_number(Buffer& b, Rng& rng) {
  std::size_t at = random_header_pos(b, rng);
  const std::size_t end = b.header_end();
  for (std::size_t k = 0; k < b.n; ++k, ++at) {
    if (at >= end) at = 8;
    if (is_digit(b.data[at]) && (at == 8 || !is_digit(b.data[at - 1]))) {
      std::size_t stop = at;
      while (stop < end && is_digit(b.data[stop])) ++stop;
      const char* text = kNumbers[pick(rng, std::size(kNumbers))];
      return b.replace(at, stop - at, text, std::strlen(text));
    }
  }
  return false;
}

bool shift_offsets(Buffer& b, Rng& rng) {
  const std::size_t field = find_from(b, random_header_pos(b, rng), "\"data_offsets\":[");
  if (field == kNpos) return false;
  std::size_t at = field + std::strlen("\"data_offsets\":[");
  if (pick(rng, 2) == 1) {  // the end offset
    while (at < b.header_end() && b.data[at] != ',') ++at;
    ++at;
  }
  std::size_t stop = at;
  std::uint64_t value = 0;
  while (stop < b.header_end() && is_digit(b.data[stop]) && stop - at < 19) {
    value = value * 10 + (b.data[stop] - '0');
    ++stop;
  }
  if (stop == at) return false;
  static constexpr std::int64_t kDeltas[] = {-8, -4, -2, -1, 1, 2, 4, 8};
  value += static_cast<std::uint64_t>(kDeltas[pick(rng, std::size(kDeltas))]);
  char text[24];
  const int len = std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
  return b.replace(at, stop - at, text, static_cast<std::size_t>(len));
}

bool swap_dtype(Buffer& b, Rng& rng) {
  const std::size_t field = find_from(b, random_header_pos(b, rng), "\"dtype\":\"");
  if (field == kNpos) return false;
  const std::size_t at = field + std::strlen("\"dtype\":\"");
  std::size_t stop = at;
  while (stop < b.header_end() && b.data[stop] != '"') ++stop;
  const char* text = kDtypes[pick(rng, std::size(kDtypes))];
  return b.replace(at, stop - at, text, std::strlen(text));
}

bool duplicate_member(Buffer& b, Rng& rng) {
  const std::size_t q = find_key(b, rng);
  if (q == kNpos) return false;
  const std::size_t end = member_end(b, q);
  if (end == kNpos) return false;
  const std::size_t len = end - q;
  if (len + 1 > b.room()) return false;
  // Make room before the member, then copy the (moved) member into it.
  std::memmove(b.data + q + len + 1, b.data + q, b.size - q);
  std::memmove(b.data + q, b.data + q + len + 1, len);
  b.data[q + len] = ',';
  b.size += len + 1;
  b.n += len + 1;
  return true;
}

bool delete_member(Buffer& b, Rng& rng) {
  const std::size_t q = find_key(b, rng);
  if (q == kNpos) return false;
  std::size_t end = member_end(b, q);
  if (end == kNpos) return false;
  // Take one comma along: the following one, else the preceding one, so the
  // result is usually still valid JSON (a trailing comma now and then too).
  std::size_t start = q;
  if (end < b.header_end() && b.data[end] == ',') {
    ++end;
  } else if (pick(rng, 4) != 0) {
    std::size_t p = q;
    while (p > 8 && b.data[p - 1] == ' ') --p;
    if (p > 8 && b.data[p - 1] == ',') start = p - 1;
  }
  return b.replace(start, end - start, "", 0);
}

bool insert_token(Buffer& b, Rng& rng) {
  const char* text = kInserts[pick(rng, std::size(kInserts))];
  const std::size_t len = text[0] == '\0' ? 1 : std::strlen(text);
  return b.replace(random_header_pos(b, rng), 0, text, len);
}

bool resize_data(Buffer& b, Rng& rng) {
  if (pick(rng, 2) == 0 && b.size > b.header_end()) {
    --b.size;
    return true;
  }
  if (b.size < b.max_size) {
    b.data[b.size++] = static_cast<std::uint8_t>(pick(rng, 256));
    return true;
  }
  return false;
}

// The fallback mutation of the whole input when there is one (libFuzzer's
// own), else a byte flip; the prefix is then made to match whatever the
// result holds.
std::size_t generic(std::uint8_t* data, std::size_t size, std::size_t max_size, Rng& rng,
                    FallbackMutator fallback) {
  if (fallback != nullptr) return fallback(data, size, max_size);
  if (size > max_size) return max_size;  // cut to fit
  if (size == 0) return 0;
  data[pick(rng, size)] ^= static_cast<std::uint8_t>(1u << pick(rng, 8));
  return size;
}

// Layout edits (mutate_layout only; the fuzz harness's mutator does not use
// them, so its behaviour for a given input stays as it was).

// A copy of a tensor entry under a new name ("a" -> "a_"), inserted before
// it: the same range claimed twice, with a matching size.
bool alias_member(Buffer& b, Rng& rng) {
  const std::size_t q = find_key(b, rng);
  if (q == kNpos) return false;
  const std::size_t end = member_end(b, q);
  if (end == kNpos) return false;
  const std::size_t key_end = value_end(b, q);  // one past the key's closing quote
  if (key_end < q + 2 || key_end + 1 >= b.header_end() || b.data[key_end - 1] != '"' ||
      b.data[key_end] != ':' || b.data[key_end + 1] != '{') {
    return false;  // not "name":{...}
  }
  const std::size_t len = end - q;
  if (len + 2 > b.room()) return false;
  // Room for the copy, its renaming '_' and a comma, before the member.
  std::memmove(b.data + q + len + 2, b.data + q, b.size - q);
  const std::size_t name_len = key_end - 1 - q;  // the opening quote and the name
  std::memmove(b.data + q, b.data + q + len + 2, name_len);
  b.data[q + name_len] = '_';
  std::memmove(b.data + q + name_len + 1, b.data + q + len + 2 + name_len, len - name_len);
  b.data[q + len + 1] = ',';
  b.size += len + 2;
  b.n += len + 2;
  return true;
}

// Both data offsets of one tensor moved by the same amount: its size still
// matches its dtype and shape, but it now overlaps a neighbour or leaves a gap.
bool shift_range(Buffer& b, Rng& rng) {
  const std::size_t field = find_from(b, random_header_pos(b, rng), "\"data_offsets\":[");
  if (field == kNpos) return false;
  const std::size_t begin_at = field + std::strlen("\"data_offsets\":[");
  std::size_t begin_stop = begin_at;
  std::uint64_t begin = 0;
  while (begin_stop < b.header_end() && is_digit(b.data[begin_stop]) &&
         begin_stop - begin_at < 19) {
    begin = begin * 10 + (b.data[begin_stop] - '0');
    ++begin_stop;
  }
  if (begin_stop == begin_at || begin_stop >= b.header_end() || b.data[begin_stop] != ',') {
    return false;
  }
  const std::size_t end_at = begin_stop + 1;
  std::size_t end_stop = end_at;
  std::uint64_t end = 0;
  while (end_stop < b.header_end() && is_digit(b.data[end_stop]) && end_stop - end_at < 19) {
    end = end * 10 + (b.data[end_stop] - '0');
    ++end_stop;
  }
  if (end_stop == end_at) return false;
  static constexpr std::uint64_t kDeltas[] = {1, 2, 4, 8};
  const std::uint64_t delta = kDeltas[pick(rng, std::size(kDeltas))];
  const bool back = pick(rng, 2) == 0;
  if (back && begin < delta) return false;
  const std::uint64_t new_begin = back ? begin - delta : begin + delta;
  const std::uint64_t new_end = back ? end - delta : end + delta;
  char text[48];
  const int len =
      std::snprintf(text, sizeof text, "%llu,%llu", static_cast<unsigned long long>(new_begin),
                    static_cast<unsigned long long>(new_end));
  return b.replace(begin_at, end_stop - begin_at, text, static_cast<std::size_t>(len));
}

}  // namespace

std::size_t mutate_tokens(std::uint8_t* data, std::size_t size, std::size_t max_size,
                          unsigned int seed, FallbackMutator fallback) {
  Rng rng(seed);
  if (size < 8 || max_size < 8) return generic(data, size, max_size, rng, fallback);
  Buffer b{data, size, max_size, load_le64(data)};
  if (b.n > size - 8) {
    // Inconsistent prefix: usually repair it so the header gets read.
    if (pick(rng, 4) == 0) return generic(data, size, max_size, rng, fallback);
    b.n = size - 8;
    b.store_length();
    return size <= max_size ? size : generic(data, size, max_size, rng, fallback);
  }
  bool done = false;
  // Until an edit applies and the result fits (when minimising, edits that
  // do not shrink the input enough are stacked with further ones).
  for (int attempt = 0; attempt < 4 && !(done && b.size <= max_size); ++attempt) {
    switch (pick(rng, 9)) {
      case 0:
      case 1:
        done = mutate_number(b, rng);
        break;
      case 2:
        done = shift_offsets(b, rng);
        break;
      case 3:
        done = swap_dtype(b, rng);
        break;
      case 4:
        done = duplicate_member(b, rng);
        break;
      case 5:
        done = delete_member(b, rng);
        break;
      case 6:
        done = insert_token(b, rng);
        break;
      case 7:
        done = resize_data(b, rng);
        break;
      default: {
        // libFuzzer's mutation of the header bytes alone, when the data part
        // is empty (so a length change cannot clobber it).
        if (b.size != b.header_end() || fallback == nullptr) break;
        const std::size_t new_n = fallback(data + 8, b.size - 8, max_size - 8);
        b.size = 8 + new_n;
        b.n = new_n;
        done = true;
        break;
      }
    }
  }
  if (!done) return generic(data, size, max_size, rng, fallback);
  b.store_length();
  if (b.size > max_size) return generic(data, b.size, max_size, rng, fallback);
  return b.size;
}

std::vector<std::uint8_t> mutate_copy(std::span<const std::uint8_t> input, unsigned int seed,
                                      std::size_t room) {
  std::vector<std::uint8_t> buffer(input.size() + room, 0);
  std::copy(input.begin(), input.end(), buffer.begin());
  const std::size_t size = mutate_tokens(buffer.data(), input.size(), buffer.size(), seed, nullptr);
  buffer.resize(size);
  return buffer;
}

std::vector<std::uint8_t> mutate_layout(std::span<const std::uint8_t> input, unsigned int seed) {
  Rng rng(seed);
  std::vector<std::uint8_t> buffer(input.begin(), input.end());
  if (buffer.size() < 8) return buffer;
  const std::uint64_t n = load_le64(buffer.data());
  if (n > buffer.size() - 8) return buffer;
  const std::size_t room = static_cast<std::size_t>(n) + 64;
  buffer.resize(buffer.size() + room);
  Buffer b{buffer.data(), input.size(), buffer.size(), n};
  const bool done = pick(rng, 2) == 0 ? alias_member(b, rng) : shift_range(b, rng);
  if (done) b.store_length();
  buffer.resize(b.size);
  return buffer;
}

}  // namespace stguard::mutate
