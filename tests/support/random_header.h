// tests/support/random_header.h: deterministic pseudo-random safetensors
// files, mostly valid, with random faults (duplicate keys, odd number forms,
// U+0000, padding, array-form entries, holes and overlaps, byte edits,
// truncation), for property tests that must hold for every one of them.
//
//   stguard_test::Rng rng(stguard_test::Seed());
//   stguard_test::HeaderGenerator gen(rng);
//   for (int i = 0; i < stguard_test::Iterations(); ++i) check(gen.Generate());
//
// The sequence depends only on the seed (mt19937_64 is fully specified), so
// two tests with the same seed see the same files.
#ifndef STGUARD_TESTS_SUPPORT_RANDOM_HEADER_H_
#define STGUARD_TESTS_SUPPORT_RANDOM_HEADER_H_

#include <stguard/stguard.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/byte_edits.h"
#include "tests/support/file_builder.h"

namespace stguard_test {

inline constexpr int kIterations = 4000;
inline constexpr std::uint64_t kSeed = 0x5eed'57a6'0a7dULL;

// STGUARD_PROPERTY_ITERATIONS / STGUARD_PROPERTY_SEED override the defaults
// for a longer local run; the suite itself stays fixed and fast.
inline std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strtoull(value, nullptr, 0);
}

// The run's iteration count and generator seed (the defaults, or the
// environment's).
inline int Iterations() {
  return static_cast<int>(EnvOr("STGUARD_PROPERTY_ITERATIONS", kIterations));
}
inline std::uint64_t Seed() { return EnvOr("STGUARD_PROPERTY_SEED", kSeed); }

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  // Uniform enough in [0, n); mt19937_64 itself is fully specified, so the
  // sequence is the same with every standard library.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::mt19937_64 engine_;
};

// A name or string: the decoded bytes and one JSON spelling of them.
struct JsonString {
  std::string decoded;
  std::string json;  // without the surrounding quotes
};

inline JsonString RandomString(Rng& rng, std::size_t max_pieces) {
  struct Piece {
    const char* decoded;
    const char* raw;
    const char* escaped;
  };
  static const std::vector<Piece> kPieces = {
      {"a", "a", "\\u0061"},
      {"b", "b", "\\u0062"},
      {"c", "c", "\\u0063"},
      {".", ".", "\\u002e"},
      {"_", "_", "\\u005f"},
      {"0", "0", "\\u0030"},
      {"/", "/", "\\/"},
      {"\"", "\\\"", "\\u0022"},
      {"\\", "\\\\", "\\u005c"},
      {"\n", "\\n", "\\u000a"},
      {"\xc3\xa9", "\xc3\xa9", "\\u00e9"},
      {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\\ud83d\\ude00"},
  };
  JsonString out;
  const std::size_t pieces = rng.below(max_pieces + 1);
  for (std::size_t i = 0; i < pieces; ++i) {
    const Piece& p = rng.pick(kPieces);
    out.decoded += p.decoded;
    out.json += rng.chance(20) ? p.escaped : p.raw;
  }
  return out;
}

inline std::string Quote(const std::string& json) { return "\"" + json + "\""; }

inline bool IsSmallNumber(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct GenTensor {
  JsonString name;
  std::string dtype_json;  // the dtype value as written
  std::vector<std::string> shape_json;
  std::string begin_json;
  std::string end_json;
  std::vector<std::string> extra_fields;  // "\"key\":value", unknown or repeated fields
  std::vector<int> field_order = {0, 1, 2};
  bool drop_field[3] = {false, false, false};
  bool array_form = false;
  int array_len = 3;
};

struct GenHeader {
  std::vector<std::string> members;  // top-level "key":value texts, in order
  std::string leading;
  std::string trailing;
  std::uint64_t data_len = 0;
  std::optional<std::int64_t> prefix_delta;
};

class HeaderGenerator {
 public:
  explicit HeaderGenerator(Rng& rng) : rng_(rng) {}

  std::string Ws() {
    if (!rng_.chance(10)) return "";
    static const std::vector<std::string> kWs = {" ", "\t", "\n", "\r\n", "  "};
    return rng_.pick(kWs);
  }

  std::string EntryText(const GenTensor& t) {
    if (t.array_form) {
      std::vector<std::string> parts = {t.dtype_json, ShapeText(t), OffsetsText(t), "1"};
      std::string out = "[";
      for (int i = 0; i < t.array_len; ++i) {
        if (i > 0) out += "," + Ws();
        out += parts[static_cast<std::size_t>(i)];
      }
      return out + "]";
    }
    std::vector<std::string> fields;
    const std::string texts[3] = {"\"dtype\":" + Ws() + t.dtype_json, "\"shape\":" + ShapeText(t),
                                  "\"data_offsets\":" + OffsetsText(t)};
    for (int f : t.field_order) {
      if (!t.drop_field[f]) fields.push_back(texts[f]);
    }
    for (const std::string& extra : t.extra_fields) {
      fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(rng_.below(fields.size() + 1)),
                    extra);
    }
    std::string out = "{" + Ws();
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += Ws() + "," + Ws();
      out += fields[i];
    }
    return out + Ws() + "}";
  }

  std::string ShapeText(const GenTensor& t) {
    std::string out = "[";
    for (std::size_t i = 0; i < t.shape_json.size(); ++i) {
      if (i > 0) out += ",";
      out += t.shape_json[i];
    }
    return out + "]";
  }
  std::string OffsetsText(const GenTensor& t) {
    return "[" + t.begin_json + "," + Ws() + t.end_json + "]";
  }

  std::string RandomJsonValue(int depth = 0) {
    switch (rng_.below(depth > 2 ? 6 : 8)) {
      case 0:
        return "null";
      case 1:
        return "true";
      case 2:
        return "-12.5e-3";
      case 3:
        return "\"s\"";
      case 4:
        return "18446744073709551616";
      case 5:
        return "{}";
      case 6:
        return "[" + RandomJsonValue(depth + 1) + "," + RandomJsonValue(depth + 1) + "]";
      default:
        return "{\"k\":" + RandomJsonValue(depth + 1) + "}";
    }
  }

  std::vector<std::uint8_t> Generate() {
    // --- a valid header ---
    std::vector<GenTensor> tensors;
    std::set<std::string> used_names;
    const std::size_t count = rng_.below(6);
    std::vector<std::uint64_t> sizes;
    for (std::size_t i = 0; i < count; ++i) {
      GenTensor t;
      for (int attempt = 0;; ++attempt) {
        t.name = RandomString(rng_, 4);
        if (attempt > 5) {
          t.name.decoded += std::to_string(i);
          t.name.json += std::to_string(i);
        }
        if (t.name.decoded != "__metadata__" && used_names.insert(t.name.decoded).second) break;
      }
      const stguard::Dtype dtype = stguard::all_dtypes()[rng_.below(stguard::all_dtypes().size())];
      t.dtype_json = Quote(std::string(stguard::dtype_name(dtype)));
      std::vector<std::uint64_t> shape;
      const std::size_t rank = rng_.below(4);
      for (std::size_t d = 0; d < rank; ++d)
        shape.push_back(rng_.chance(8) ? 0 : rng_.below(4) + 1);
      std::uint64_t elements = 1;
      for (std::uint64_t d : shape) elements *= d;
      if ((elements * stguard::dtype_bits(dtype)) % 8 != 0) {
        shape.push_back(8);
        elements *= 8;
      }
      for (std::uint64_t d : shape) t.shape_json.push_back(std::to_string(d));
      sizes.push_back(elements * stguard::dtype_bits(dtype) / 8);
      std::shuffle(t.field_order.begin(), t.field_order.end(),
                   std::mt19937(static_cast<unsigned>(rng_.below(1000))));
      tensors.push_back(std::move(t));
    }
    // Contiguous layout in a random order.
    std::vector<std::size_t> layout(count);
    for (std::size_t i = 0; i < count; ++i) layout[i] = i;
    for (std::size_t i = count; i > 1; --i) std::swap(layout[i - 1], layout[rng_.below(i)]);
    std::uint64_t cursor = 0;
    for (std::size_t i : layout) {
      tensors[i].begin_json = std::to_string(cursor);
      cursor += sizes[i];
      tensors[i].end_json = std::to_string(cursor);
    }
    GenHeader h;
    h.data_len = cursor;

    std::optional<std::string> metadata;
    if (rng_.chance(40)) {
      std::vector<std::string> pairs;
      std::set<std::string> keys;
      const std::size_t n = rng_.below(4);
      for (std::size_t i = 0; i < n; ++i) {
        JsonString k = RandomString(rng_, 3);
        if (!keys.insert(k.decoded).second) continue;
        pairs.push_back(Quote(k.json) + ":" + Quote(RandomString(rng_, 3).json));
      }
      std::string text = "{";
      for (std::size_t i = 0; i < pairs.size(); ++i) text += (i ? "," : "") + pairs[i];
      metadata = text + "}";
    }

    // --- faults ---
    const std::size_t faults = rng_.chance(25) ? 0 : rng_.below(2) + 1;
    std::vector<std::string> extra_members;
    bool mutate_bytes = false;
    bool truncate = false;
    for (std::size_t f = 0; f < faults; ++f) {
      GenTensor* t = tensors.empty() ? nullptr : &tensors[rng_.below(tensors.size())];
      switch (rng_.below(22)) {
        case 0:  // duplicate name, same or shifted content
          if (t) {
            GenTensor copy = *t;
            if (rng_.chance(50)) copy.dtype_json = "\"U8\"";
            extra_members.push_back(Quote(copy.name.json) + ":" + EntryText(copy));
          }
          break;
        case 1:  // unknown field, sometimes nested near the depth limit
          if (t) {
            std::string value = RandomJsonValue();
            if (rng_.chance(15)) {
              const std::size_t depth = 123 + rng_.below(6);
              value = std::string(depth, '[') + std::string(depth, ']');
            }
            t->extra_fields.push_back(Quote(rng_.chance(50) ? "x" : "__metadata__") + ":" + value);
          }
          break;
        case 2:
          metadata = "null";
          break;
        case 3:  // duplicate metadata key / non-string value
          metadata = rng_.chance(50) ? R"({"k":"1","k":"2"})" : R"({"k":1})";
          break;
        case 4:
          extra_members.push_back(R"("__metadata__":{})");
          break;
        case 5: {
          static const std::vector<std::string> kLead = {" ",  "\t",           "\n",
                                                         "\r", "\xef\xbb\xbf", "x"};
          h.leading = rng_.pick(kLead);
          break;
        }
        case 6: {
          static const std::vector<std::string> kTrail = {
              " ", "\t", "\n", "\r", std::string(1, '\0'), "x", "\f", "{}"};
          h.trailing = rng_.pick(kTrail) + (rng_.chance(50) ? " " : "");
          break;
        }
        case 7:
          if (t) {
            t->array_form = true;
            t->array_len = rng_.chance(80) ? 3 : static_cast<int>(rng_.below(5));
          }
          break;
        case 8:
          if (t) {
            static const std::vector<std::string> kMaps = {"{\"X\":null}", "{\"U8\":{}}", "{}",
                                                           "{\"U8\":null,\"I8\":null}"};
            t->dtype_json = rng_.chance(70) ? "{" + Ws() + t->dtype_json + ":" + Ws() + "null}"
                                            : rng_.pick(kMaps);
          }
          break;
        case 9:  // a hole, trailing bytes or missing bytes
          h.data_len = rng_.chance(50) ? h.data_len + 1 + rng_.below(3)
                                       : (h.data_len > 0 ? h.data_len - 1 : 0);
          if (t && rng_.chance(50) && IsSmallNumber(t->begin_json) && IsSmallNumber(t->end_json)) {
            t->begin_json = std::to_string(std::stoull(t->begin_json) + 1);
            t->end_json = std::to_string(std::stoull(t->end_json) + 1);
          }
          break;
        case 10:  // alias another tensor's range
          if (t) {
            const GenTensor& other = tensors[rng_.below(tensors.size())];
            t->begin_json = other.begin_json;
            t->end_json = other.end_json;
          }
          break;
        case 11: {  // U+0000
          const int where = static_cast<int>(rng_.below(3));
          if (where == 0 && t) {
            t->name.json += "\\u0000";
            t->name.decoded.push_back('\0');
          } else if (where == 1) {
            metadata = R"({"a\u0000":"b"})";
          } else {
            metadata = R"({"a":"\u0000b"})";
          }
          break;
        }
        case 12:
          if (t) {
            static const std::vector<std::string> kForms = {"-0",
                                                            "1.0",
                                                            "1e0",
                                                            "01",
                                                            "+1",
                                                            "-1",
                                                            "\"1\"",
                                                            "null",
                                                            "true",
                                                            "18446744073709551615",
                                                            "18446744073709551616",
                                                            "0"};
            const std::string& form = rng_.pick(kForms);
            if (!t->shape_json.empty() && rng_.chance(50)) {
              t->shape_json[rng_.below(t->shape_json.size())] = form;
            } else if (rng_.chance(50)) {
              t->begin_json = form;
            } else {
              t->end_json = form;
            }
          }
          break;
        case 13:
          mutate_bytes = true;
          break;
        case 14:
          truncate = true;
          break;
        case 15:
          if (t) {
            static const std::vector<std::string> kBad = {"\"f32\"", "\"F128\"", "\"I4\"",
                                                          "4",       "null",     "\"F32 \""};
            t->dtype_json = rng_.pick(kBad);
          }
          break;
        case 16:
          if (t) t->drop_field[rng_.below(3)] = true;
          break;
        case 17:
          if (t) {
            static const std::vector<std::string> kDup = {"\"dtype\":\"U8\"", "\"shape\":[]",
                                                          "\"data_offsets\":[0,0]"};
            t->extra_fields.push_back(rng_.pick(kDup));
          }
          break;
        case 18:
          h.prefix_delta = rng_.chance(50) ? 1 : -1;
          break;
        case 19: {  // a zero-size tensor anywhere
          const std::uint64_t at = rng_.below(static_cast<std::size_t>(h.data_len) + 3);
          extra_members.push_back(entry_text("z" + std::to_string(f), "F32", "0", at, at));
          break;
        }
        case 20:
          if (t) {
            // Big dims: overflow, or zero-first folds.
            t->shape_json = rng_.chance(50)
                                ? std::vector<std::string>{"0", "18446744073709551615", "2"}
                                : std::vector<std::string>{"4294967296", "4294967296"};
          }
          break;
        default:  // a tensor entry named __metadata__
          extra_members.push_back(
              "\"__metadata__\":{\"dtype\":\"U8\",\"shape\":[0],"
              "\"data_offsets\":[0,0]}");
          break;
      }
    }

    // --- serialise ---
    for (const GenTensor& t : tensors)
      h.members.push_back(Quote(t.name.json) + ":" + Ws() + EntryText(t));
    if (metadata) {
      h.members.insert(
          h.members.begin() + static_cast<std::ptrdiff_t>(rng_.below(h.members.size() + 1)),
          "\"__metadata__\":" + *metadata);
    }
    for (const std::string& m : extra_members) {
      h.members.insert(
          h.members.begin() + static_cast<std::ptrdiff_t>(rng_.below(h.members.size() + 1)), m);
    }
    std::string text = h.leading + "{" + Ws();
    for (std::size_t i = 0; i < h.members.size(); ++i) {
      if (i > 0) text += Ws() + "," + Ws();
      text += h.members[i];
    }
    text += Ws() + "}" + h.trailing;
    if (rng_.chance(30)) text.append(rng_.below(8), ' ');

    if (mutate_bytes) {
      EditRandomBytes(text, "{}[],:\"\\ 0123456789-+.eEnul\t\x01\x80\xc3",
                      [&](std::size_t n) { return rng_.below(n); });
    }
    if (truncate && !text.empty()) text.resize(rng_.below(text.size()));

    FileBuilder builder(text);
    builder.data_size(static_cast<std::size_t>(h.data_len));
    if (h.prefix_delta) {
      builder.length_prefix(
          static_cast<std::uint64_t>(static_cast<std::int64_t>(text.size()) + *h.prefix_delta));
    }
    return builder.build();
  }

 private:
  static std::string entry_text(const std::string& name, const std::string& dtype,
                                const std::string& shape, std::uint64_t b, std::uint64_t e) {
    return entry(name, dtype, shape, b, e);
  }

  Rng& rng_;
};

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_RANDOM_HEADER_H_
