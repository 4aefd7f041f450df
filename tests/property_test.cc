// Deterministic pseudo-random headers (mostly valid, with random faults) and
// the properties that must hold for every one of them:
//   1. strict accepts => reference accepts, with identical tensors and metadata;
//   2. an accepted header's tensors tile [0, data_len) exactly;
//   3. nlohmann::json (an independent parser) rejects the header text => both
//      profiles reject; when a profile accepts, nlohmann's reading of the same
//      text agrees on every tensor and metadata pair;
//   4. error offsets lie where their reason class says (length prefix, header
//      text, or data buffer), and parsing is deterministic;
//   5. a strict-accepted file rewritten by the writer parses back the same.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "file_builder.h"
#include "test_util.h"

namespace {

using stguard::Dtype;
using stguard::Header;
using stguard::Profile;
using stguard::Reason;

constexpr int kIterations = 4000;
constexpr std::uint64_t kSeed = 0x5eed'57a6'0a7dULL;

// STGUARD_PROPERTY_ITERATIONS / STGUARD_PROPERTY_SEED override the defaults
// for a longer local run; the suite itself stays fixed and fast.
std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strtoull(value, nullptr, 0);
}

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

JsonString RandomString(Rng& rng, std::size_t max_pieces) {
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

std::string Quote(const std::string& json) { return "\"" + json + "\""; }

bool IsSmallNumber(const std::string& text) {
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
      const Dtype dtype = stguard::all_dtypes()[rng_.below(stguard::all_dtypes().size())];
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

    if (mutate_bytes && !text.empty()) {
      static const std::string kChars = "{}[],:\"\\ 0123456789-+.eEnul\t\x01\x80\xc3";
      const std::size_t edits = rng_.below(3) + 1;
      for (std::size_t e = 0; e < edits; ++e) {
        const std::size_t pos = rng_.below(text.size());
        const char c = kChars[rng_.below(kChars.size())];
        switch (rng_.below(3)) {
          case 0:
            text[pos] = c;
            break;
          case 1:
            text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), c);
            break;
          default:
            text.erase(pos, 1);
            break;
        }
        if (text.empty()) break;
      }
    }
    if (truncate && !text.empty()) text.resize(rng_.below(text.size()));

    stguard_test::FileBuilder builder(text);
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
    return stguard_test::entry(name, dtype, shape, b, e);
  }

  Rng& rng_;
};

// What nlohmann makes of the header text.
struct Oracle {
  bool syntax_ok = false;
  bool number_overflow = false;  // valid JSON nlohmann refuses (1e400): no verdict
  nlohmann::json value;
};

Oracle ReadWithNlohmann(const std::string& text) {
  Oracle o;
  try {
    o.value = nlohmann::json::parse(text);
    o.syntax_ok = true;
  } catch (const nlohmann::json::exception& e) {
    // 406 (thrown as out_of_range): a number too large for a double.
    o.number_overflow = e.id == 406;
  }
  return o;
}

std::optional<Dtype> OracleDtype(const nlohmann::json& v) {
  if (v.is_string()) return stguard::dtype_from_name(v.get<std::string>());
  if (v.is_object() && v.size() == 1 && v.begin().value().is_null()) {
    return stguard::dtype_from_name(v.begin().key());
  }
  return std::nullopt;
}

// Checks an accepted header against nlohmann's reading of the same text
// (duplicate keys: last one wins there too, as upstream).
void ExpectMatchesOracle(const Header& header, const nlohmann::json& doc, Profile profile,
                         const std::string& text) {
  ASSERT_TRUE(doc.is_object()) << text;
  std::size_t tensor_keys = 0;
  for (const auto& [key, value] : doc.items()) {
    if (key == "__metadata__") {
      if (value.is_null()) {
        EXPECT_EQ(profile, Profile::kReference) << "strict accepted null metadata: " << text;
        EXPECT_FALSE(header.metadata.has_value()) << text;
        continue;
      }
      ASSERT_TRUE(header.metadata.has_value()) << text;
      std::map<std::string, std::string> expected;
      for (const auto& [k, v] : value.items()) expected[k] = v.get<std::string>();
      std::map<std::string, std::string> got(header.metadata->begin(), header.metadata->end());
      EXPECT_EQ(got, expected) << text;
      EXPECT_EQ(header.metadata->size(), got.size()) << "metadata key listed twice: " << text;
      continue;
    }
    ++tensor_keys;
    const stguard::TensorInfo* t = header.find(key);
    ASSERT_NE(t, nullptr) << "missing tensor " << key << " in " << text;
    const nlohmann::json* dtype = nullptr;
    const nlohmann::json* shape = nullptr;
    const nlohmann::json* offsets = nullptr;
    if (value.is_array()) {
      EXPECT_EQ(profile, Profile::kReference) << text;
      ASSERT_EQ(value.size(), 3U) << text;
      dtype = &value[0];
      shape = &value[1];
      offsets = &value[2];
    } else {
      ASSERT_TRUE(value.is_object()) << text;
      dtype = &value.at("dtype");
      shape = &value.at("shape");
      offsets = &value.at("data_offsets");
    }
    EXPECT_EQ(OracleDtype(*dtype), t->dtype) << key << " in " << text;
    std::vector<std::uint64_t> expected_shape;
    for (const auto& d : *shape) {
      ASSERT_TRUE(d.is_number_unsigned() || (d.is_number_integer() && d.get<std::int64_t>() >= 0))
          << text;
      expected_shape.push_back(d.get<std::uint64_t>());
    }
    EXPECT_EQ(t->shape, expected_shape) << key << " in " << text;
    ASSERT_EQ(offsets->size(), 2U) << text;
    EXPECT_EQ(t->begin, (*offsets)[0].get<std::uint64_t>()) << text;
    EXPECT_EQ(t->end, (*offsets)[1].get<std::uint64_t>()) << text;
  }
  EXPECT_EQ(header.tensors.size(), tensor_keys) << text;
  if (!doc.contains("__metadata__")) {
    EXPECT_FALSE(header.metadata.has_value()) << text;
  }
}

void ExpectTiles(const Header& header) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& t : header.tensors) ranges.emplace_back(t.begin, t.end);
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t prev_end = 0;
  for (const auto& [b, e] : ranges) {
    ASSERT_EQ(b, prev_end);
    ASSERT_LE(b, e);
    prev_end = e;
  }
  EXPECT_EQ(prev_end, header.data_len());
}

bool IsLengthReason(Reason r) {
  return r == Reason::kHeaderTooSmall || r == Reason::kHeaderTooLarge ||
         r == Reason::kHeaderLengthExceedsFile;
}
bool IsLayoutReason(Reason r) {
  return r == Reason::kOffsetOutOfBounds || r == Reason::kOffsetGap ||
         r == Reason::kOffsetOverlap || r == Reason::kTrailingData;
}

void ExpectOffsetInItsRegion(const stguard::Error& error, const std::vector<std::uint8_t>& file) {
  if (IsLengthReason(error.reason)) {
    EXPECT_EQ(error.offset, 0U) << error.to_string();
    return;
  }
  ASSERT_GE(file.size(), 8U);
  const std::uint64_t n = stguard_test::load_u64_le(file);
  ASSERT_LE(8 + n, file.size());
  ASSERT_NE(error.reason, Reason::kIoError) << error.to_string();
  if (IsLayoutReason(error.reason)) {
    EXPECT_GE(error.offset, 8 + n) << error.to_string();
    EXPECT_LE(error.offset, file.size()) << error.to_string();
  } else {
    EXPECT_GE(error.offset, 8U) << error.to_string();
    EXPECT_LE(error.offset, 8 + n) << error.to_string();
  }
}

TEST(Property, RandomHeaders) {
  const int iterations = static_cast<int>(EnvOr("STGUARD_PROPERTY_ITERATIONS", kIterations));
  Rng rng(EnvOr("STGUARD_PROPERTY_SEED", kSeed));
  HeaderGenerator gen(rng);
  int strict_accepts = 0, reference_only = 0, both_reject = 0, oracle_rejects = 0;
  for (int i = 0; i < iterations; ++i) {
    const std::vector<std::uint8_t> file = gen.Generate();
    const std::uint64_t n = stguard_test::load_u64_le(file);
    const bool length_ok = file.size() >= 8 && n <= file.size() - 8;
    const std::string text =
        length_ok ? std::string(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n))
                  : std::string();
    SCOPED_TRACE("iteration " + std::to_string(i) + ", header: " + text);

    const auto strict = stguard::parse(file, stguard_test::Strict());
    const auto reference = stguard::parse(file, stguard_test::Reference());

    // 4. determinism and offsets.
    const auto strict_again = stguard::parse(file, stguard_test::Strict());
    ASSERT_EQ(strict.has_value(), strict_again.has_value());
    if (strict) {
      EXPECT_EQ(strict->tensors, strict_again->tensors);
    } else {
      EXPECT_EQ(strict.error().reason, strict_again.error().reason);
      EXPECT_EQ(strict.error().offset, strict_again.error().offset);
      ExpectOffsetInItsRegion(strict.error(), file);
    }
    if (!reference) ExpectOffsetInItsRegion(reference.error(), file);

    // 1. strict accepts => reference accepts the same.
    if (strict) {
      ++strict_accepts;
      ASSERT_TRUE(stguard_test::Accepts(reference));
      EXPECT_EQ(strict->tensors, reference->tensors);
      EXPECT_EQ(strict->metadata, reference->metadata);
      EXPECT_EQ(strict->header_len, reference->header_len);
    } else if (reference) {
      ++reference_only;
    } else {
      ++both_reject;
    }

    // 2. exact tiling.
    if (strict) ExpectTiles(*strict);
    if (reference) ExpectTiles(*reference);

    // 3. the independent JSON oracle.
    if (length_ok) {
      const Oracle oracle = ReadWithNlohmann(text);
      if (!oracle.syntax_ok && !oracle.number_overflow) {
        ++oracle_rejects;
        EXPECT_FALSE(strict.has_value()) << "strict accepted JSON that nlohmann rejects";
        EXPECT_FALSE(reference.has_value()) << "reference accepted JSON that nlohmann rejects";
      }
      if (oracle.syntax_ok) {
        if (strict) ExpectMatchesOracle(*strict, oracle.value, Profile::kStrict, text);
        if (reference) ExpectMatchesOracle(*reference, oracle.value, Profile::kReference, text);
      }
    }

    // 5. writer round trip of strict-accepted files.
    if (strict) {
      std::vector<stguard::TensorToWrite> to_write;
      for (const auto& t : strict->tensors) {
        to_write.push_back({t.name, t.dtype, t.shape,
                            std::span<const std::uint8_t>(file).subspan(
                                static_cast<std::size_t>(strict->data_offset() + t.begin),
                                static_cast<std::size_t>(t.byte_size()))});
      }
      const auto written =
          stguard::write_safetensors(to_write, strict->metadata.value_or(stguard::MetadataPairs{}));
      ASSERT_TRUE(stguard_test::Accepts(written));
      const auto reparsed = stguard::parse(*written);
      ASSERT_TRUE(stguard_test::Accepts(reparsed));
      ASSERT_EQ(reparsed->tensors.size(), strict->tensors.size());
      for (const auto& t : strict->tensors) {
        const stguard::TensorInfo* r = reparsed->find(t.name);
        ASSERT_NE(r, nullptr) << t.name;
        EXPECT_EQ(r->dtype, t.dtype);
        EXPECT_EQ(r->shape, t.shape);
        EXPECT_TRUE(std::equal(
            written->begin() + static_cast<std::ptrdiff_t>(reparsed->data_offset() + r->begin),
            written->begin() + static_cast<std::ptrdiff_t>(reparsed->data_offset() + r->end),
            file.begin() + static_cast<std::ptrdiff_t>(strict->data_offset() + t.begin),
            file.begin() + static_cast<std::ptrdiff_t>(strict->data_offset() + t.end)));
      }
    }
    if (HasFatalFailure()) return;
  }
  // The generator must exercise every outcome, or the properties prove little.
  EXPECT_GT(strict_accepts, iterations / 10);
  EXPECT_GT(reference_only, iterations / 50);
  EXPECT_GT(both_reject, iterations / 5);
  EXPECT_GT(oracle_rejects, iterations / 20);
  std::printf("strict accepts %d, reference-only accepts %d, both reject %d, nlohmann rejects %d\n",
              strict_accepts, reference_only, both_reject, oracle_rejects);
}

// Prefixes of a valid file: every cut must be rejected cleanly (never a read
// past the span), and parse_header on exactly 8 + N bytes never needs the data.
TEST(Property, EveryTruncationIsRejectedCleanly) {
  const std::string header =
      R"({"__metadata__":{"a":"b"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::vector<std::uint8_t> file = stguard_test::make_file(header, 8);
  for (std::size_t cut = 0; cut < file.size(); ++cut) {
    // An exact-size heap copy so ASan sees any over-read.
    const std::vector<std::uint8_t> prefix(file.begin(),
                                           file.begin() + static_cast<std::ptrdiff_t>(cut));
    for (Profile p : {Profile::kStrict, Profile::kReference}) {
      const auto r = stguard::parse(prefix, stguard_test::WithProfile(p));
      ASSERT_FALSE(r.has_value()) << "cut " << cut;
      ExpectOffsetInItsRegion(r.error(), prefix);
    }
  }
  const std::vector<std::uint8_t> head(
      file.begin(), file.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
  EXPECT_TRUE(stguard_test::Accepts(stguard::parse_header(head, file.size())));
}

}  // namespace
