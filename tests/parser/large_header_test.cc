// Headers with thousands of tensors, large enough to take the parser's bulk
// paths: the duplicate-name check that runs after the scan (one table of
// thousands of names) and the fast path for compact tensor entries, which needs
// some bytes after an entry and so is rarely taken in small headers, with its
// fallback to the general reader. Each expectation holds for parse_header and
// validate_header alike; offsets are found in the header text.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parser/src/kernels/kernels.h"
#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Dtype;
using stguard::Profile;
using stguard::Reason;
using stguard_test::header_at;
using stguard_test::Rejects;

constexpr std::size_t kCount = 5000;

std::string name_of(std::size_t i) { return "model.layers." + std::to_string(i) + ".weight"; }

// One entry: the name as JSON string text, and its value as text in which
// {B} and {E} stand for the data offsets the builder assigns (`bytes` long).
struct Entry {
  std::string name;
  std::string value = R"({"dtype":"U8","shape":[1],"data_offsets":[{B},{E}]})";
  std::uint64_t bytes = 1;
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
}

// kCount one-byte U8 tensors, tiled in document order.
struct LargeHeader {
  std::vector<Entry> entries;

  explicit LargeHeader(std::size_t count = kCount) {
    for (std::size_t i = 0; i < count; ++i) entries.push_back(Entry{name_of(i)});
  }

  std::string text() const {
    std::string h = "{";
    std::uint64_t offset = 0;
    for (const Entry& e : entries) {
      if (h.size() > 1) h += ',';
      std::string value = e.value;
      replace_all(value, "{B}", std::to_string(offset));
      replace_all(value, "{E}", std::to_string(offset + e.bytes));
      offset += e.bytes;
      h += "\"" + e.name + "\":" + value;
    }
    return h + "}";
  }
  std::uint64_t data_len() const {
    std::uint64_t total = 0;
    for (const Entry& e : entries) total += e.bytes;
    return total;
  }
};

// The header part of a file whose data part (never read) is `data_len` bytes.
struct HeaderBytes {
  std::vector<std::uint8_t> bytes;
  std::uint64_t size;
};

HeaderBytes file_of(const std::string& header, std::uint64_t data_len) {
  std::vector<std::uint8_t> bytes = stguard_test::FileBuilder(header).build();
  const std::uint64_t size = bytes.size() + data_len;
  return {std::move(bytes), size};
}
HeaderBytes file_of(const LargeHeader& h) { return file_of(h.text(), h.data_len()); }

stguard::ParseOptions options_for(Profile profile, std::uint64_t max_rank = 1024) {
  stguard::ParseOptions options = stguard_test::WithProfile(profile);
  options.limits.max_rank = max_rank;
  return options;
}

// Both entry points, one profile: the same verdict, reason and offset.
void ExpectRejects(const HeaderBytes& file, const stguard::ParseOptions& options, Reason reason,
                   std::uint64_t offset) {
  EXPECT_TRUE(Rejects(stguard::parse_header(file.bytes, file.size, options), reason, offset))
      << "parse_header, " << stguard::profile_name(options.profile);
  EXPECT_TRUE(Rejects(stguard::validate_header(file.bytes, file.size, options), reason, offset))
      << "validate_header, " << stguard::profile_name(options.profile);
}
void ExpectRejects(const HeaderBytes& file, Profile profile, Reason reason, std::uint64_t offset) {
  ExpectRejects(file, options_for(profile), reason, offset);
}

std::optional<stguard::Header> ExpectAccepts(const HeaderBytes& file,
                                             const stguard::ParseOptions& options) {
  auto summary = stguard::validate_header(file.bytes, file.size, options);
  EXPECT_TRUE(stguard_test::Accepts(summary))
      << "validate_header, " << stguard::profile_name(options.profile);
  auto parsed = stguard::parse_header(file.bytes, file.size, options);
  EXPECT_TRUE(stguard_test::Accepts(parsed))
      << "parse_header, " << stguard::profile_name(options.profile);
  if (!summary || !parsed) return std::nullopt;
  EXPECT_EQ(summary->tensor_count, parsed->tensors.size());
  return std::move(parsed).value();
}
std::optional<stguard::Header> ExpectAccepts(const HeaderBytes& file, Profile profile) {
  return ExpectAccepts(file, options_for(profile));
}

constexpr Profile kBoth[] = {Profile::kStrict, Profile::kReference};

// Both profiles accept `file`, with kCount tensors; `check(i, tensor)` looks
// at each with EXPECT_*, up to the first tensor that fails one.
template <typename Check>
void ExpectEveryTensor(const HeaderBytes& file, Check check) {
  for (const Profile profile : kBoth) {
    SCOPED_TRACE(stguard::profile_name(profile));
    const auto header = ExpectAccepts(file, profile);
    ASSERT_TRUE(header.has_value());
    ASSERT_EQ(header->tensors.size(), kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
      SCOPED_TRACE("tensor " + std::to_string(i));
      check(i, header->tensors[i]);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(LargeHeader, AcceptedInBothProfiles) {
  ExpectEveryTensor(file_of(LargeHeader()), [](std::size_t i, const stguard::TensorInfo& t) {
    EXPECT_EQ(t.name, name_of(i));
    EXPECT_EQ(t.dtype, Dtype::kU8);
    EXPECT_EQ(t.begin, i);
    EXPECT_EQ(t.end, i + 1);
    EXPECT_EQ(t.shape, std::vector<std::uint64_t>{1});
  });
}

// Numbers of every length the fast path reads in whole words (1 to 19
// digits, across the 8- and 16-digit word boundaries) and one beyond it
// (u64 max, 20 digits), as dimensions and as data offsets.
TEST(LargeHeader, NumbersOfEveryLength) {
  const std::vector<std::uint64_t> dims = {
      0,
      1,
      9,
      10,
      4096,
      9'999'999,
      10'000'000,
      99'999'999,
      100'000'000,
      123'456'789,
      9'999'999'999'999'999,
      12'345'678'901'234'567,
      123'456'789'012'345'678,
      1'234'567'890'123'456'789,
      9'999'999'999'999'999'999ULL,
      18'446'744'073'709'551'615ULL,
  };
  LargeHeader h;
  // [1, d, 0] has no elements in either profile, whatever d.
  for (std::size_t k = 0; k < dims.size(); ++k) {
    Entry& e = h.entries[100 + 7 * k];
    e.value = R"({"dtype":"U8","shape":[1,)" + std::to_string(dims[k]) +
              R"(,0],"data_offsets":[{B},{E}]})";
    e.bytes = 0;
  }
  // Offsets of 19 digits from here on (2^61 - 1 elements of U8 still fit).
  const std::uint64_t big = 2'000'000'000'000'000'000ULL;
  h.entries[1000].value =
      R"({"dtype":"U8","shape":[)" + std::to_string(big) + R"(],"data_offsets":[{B},{E}]})";
  h.entries[1000].bytes = big;
  const HeaderBytes file = file_of(h);
  for (const Profile profile : kBoth) {
    const auto header = ExpectAccepts(file, profile);
    ASSERT_TRUE(header.has_value());
    ASSERT_EQ(header->tensors.size(), kCount);
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < kCount; ++i) {
      const stguard::TensorInfo& t = header->tensors[i];
      ASSERT_EQ(t.begin, offset) << i;
      offset += h.entries[i].bytes;
      ASSERT_EQ(t.end, offset) << i;
    }
    for (std::size_t k = 0; k < dims.size(); ++k) {
      EXPECT_EQ(header->tensors[100 + 7 * k].shape, (std::vector<std::uint64_t>{1, dims[k], 0}));
    }
    EXPECT_EQ(header->tensors[1000].shape, std::vector<std::uint64_t>{big});
  }
}

// Entries that differ from the compact form a writer emits, in the middle of
// a large header: the general reader takes them and decides as it always does.
TEST(LargeHeader, EntriesOffTheFastPath) {
  struct Variant {
    std::string value;
    std::optional<Dtype> dtype;  // accepted with this dtype (shape [1])...
    Reason reason{};             // ...or rejected for this reason,
    std::string needle;          // at this text
    std::uint64_t delta = 0;     // plus this many bytes
    bool reference_accepts = false;
  };
  auto accept = [](std::string value, Dtype dtype) {
    return Variant{std::move(value), dtype, Reason{}, "", 0, false};
  };
  auto reject = [](std::string value, Reason reason, std::string needle, std::uint64_t delta = 0,
                   bool reference_accepts = false) {
    return Variant{std::move(value),  std::nullopt, reason,
                   std::move(needle), delta,        reference_accepts};
  };
  const std::vector<Variant> variants = {
      accept(R"({"dtype": "U8", "shape": [1], "data_offsets": [{B}, {E}]})", Dtype::kU8),
      accept(R"({"dtype":"U8","shape":[ 1 ],"data_offsets":[{B},{E}]})", Dtype::kU8),
      accept(R"({"dtype":"U8","shape":[1],"data_offsets":[{B},{E}] })", Dtype::kU8),
      accept(R"({"shape":[1],"dtype":"I8","data_offsets":[{B},{E}]})", Dtype::kI8),
      accept(R"({"data_offsets":[{B},{E}],"shape":[1],"dtype":"BOOL"})", Dtype::kBool),
      accept(R"({"dtype":"\u0055\u0038","shape":[1],"data_offsets":[{B},{E}]})", Dtype::kU8),
      accept(R"({"dtype":"F8_E4M3FNUZ","shape":[1],"data_offsets":[{B},{E}]})", Dtype::kF8E4M3Fnuz),
      reject(R"({"dtype":"\u0042F16","shape":[],"data_offsets":[{B},{E}]})", Reason::kSizeMismatch,
             "\"v\""),
      reject(R"({"dtype":"F8_E4M3FNUZZ","shape":[1],"data_offsets":[{B},{E}]})",
             Reason::kDtypeInvalid, "\"F8_E4M3FNUZZ\""),
      reject(R"({"dtype":"BF16 ","shape":[1],"data_offsets":[{B},{E}]})", Reason::kDtypeInvalid,
             "\"BF16 \""),
      reject(R"({"dtype":"u8","shape":[1],"data_offsets":[{B},{E}]})", Reason::kDtypeInvalid,
             "\"u8\""),
      reject(R"({"dtype":"U8","shape":[01],"data_offsets":[{B},{E}]})", Reason::kHeaderNotJson,
             "[01]", 1),
      reject(R"({"dtype":"U8","shape":[1.0],"data_offsets":[{B},{E}]})", Reason::kShapeInvalid,
             "[1.0]", 1),
      reject(R"({"dtype":"U8","shape":[1e0],"data_offsets":[{B},{E}]})", Reason::kShapeInvalid,
             "[1e0]", 1),
      reject(R"({"dtype":"U8","shape":[-1],"data_offsets":[{B},{E}]})", Reason::kShapeInvalid,
             "[-1]", 1),
      reject(R"({"dtype":"U8","shape":[18446744073709551616],"data_offsets":[{B},{E}]})",
             Reason::kShapeInvalid, "18446744073709551616"),
      reject(R"({"dtype":"U8","shape":[00000000000000000001],"data_offsets":[{B},{E}]})",
             Reason::kHeaderNotJson, "[0000", 1),
      reject(R"({"dtype":"U8","shape":[1,],"data_offsets":[{B},{E}]})", Reason::kHeaderNotJson,
             "[1,]", 3),
      reject(R"({"dtype":"U8","shape":[1],"data_offsets":[{B},{E},]})", Reason::kHeaderNotJson,
             ",2001,]", 6),
      reject(R"({"dtype":"U8","shape":[1],"data_offsets":[{B}]})", Reason::kOffsetsInvalid,
             "[2000]", 5),
      reject(R"({"dtype":"U8","shape":[1],"data_offsets":[{B},{E}],"x":1})", Reason::kTensorInvalid,
             "\"x\"", 0, true),
      reject(R"({"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[{B},{E}]})",
             Reason::kDuplicateKey, "\"dtype\":\"U8\",\"dtype\"", 13),
      reject(R"({"dtype":"U8","shape":[1],"data_offsets":[{E},{B}]})", Reason::kOffsetsInvalid,
             "\"v\""),
      // Text that the entry before repeats but for its last byte, read again:
      // the dtype and shape text (up to '['), the shape, the begin offset.
      reject(R"({"dtype":"U8","shape":{1],"data_offsets":[{B},{E}]})", Reason::kHeaderNotJson,
             "{1]", 1),
      reject(R"({"dtype":"U8","shape":[1},"data_offsets":[{B},{E}]})", Reason::kHeaderNotJson,
             "[1}", 2),
      reject(R"({"dtype":"U8","shape":[1],"data_offsets":[{B}97]})", Reason::kOffsetsInvalid,
             "[200097]", 7),
  };
  for (const Variant& variant : variants) {
    SCOPED_TRACE(variant.value);
    LargeHeader h;
    h.entries[2000] = Entry{"v", variant.value};
    const std::string text = h.text();
    const HeaderBytes file = file_of(h);
    for (const Profile profile : kBoth) {
      SCOPED_TRACE(stguard::profile_name(profile));
      if (variant.dtype || (profile == Profile::kReference && variant.reference_accepts)) {
        const auto header = ExpectAccepts(file, profile);
        ASSERT_TRUE(header.has_value());
        ASSERT_EQ(header->tensors.size(), kCount);
        const stguard::TensorInfo& t = header->tensors[2000];
        EXPECT_EQ(t.name, "v");
        EXPECT_EQ(t.dtype, variant.dtype.value_or(Dtype::kU8));
        EXPECT_EQ(t.shape, std::vector<std::uint64_t>{1});
        EXPECT_EQ(t.begin, 2000u);
        EXPECT_EQ(t.end, 2001u);
      } else {
        ExpectRejects(file, profile, variant.reason,
                      header_at(text, variant.needle) + variant.delta);
      }
    }
  }
}

TEST(LargeHeader, RankCap) {
  LargeHeader h;
  h.entries[3000].value = R"({"dtype":"U8","shape":[1,1,1],"data_offsets":[{B},{E}]})";
  const HeaderBytes file = file_of(h);
  for (const Profile profile : kBoth) {
    EXPECT_TRUE(ExpectAccepts(file, options_for(profile, 3)).has_value());
  }
  h.entries[3000].value = R"({"dtype":"U8","shape":[1,1,1,1],"data_offsets":[{B},{E}]})";
  const std::string text = h.text();
  for (const Profile profile : kBoth) {
    ExpectRejects(file_of(h), options_for(profile, 3), Reason::kLimitExceeded,
                  header_at(text, "[1,1,1,1]") + 7);
  }
}

TEST(LargeHeader, EarliestRepeatIsReported) {
  LargeHeader h;
  // Forty names repeated late, each long after its first use...
  for (std::size_t k = 0; k < 40; ++k) h.entries[4900 - k * 50].name = name_of(k);
  // ...and one repeated at once, sooner in the text than all of them.
  h.entries[2500].name = name_of(2499);
  const std::string text = h.text();
  ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(2499) + "\"", 1));
}

TEST(LargeHeader, RepeatComesBeforeLaterFaults) {
  LargeHeader h;
  h.entries[100].name = name_of(7);
  h.entries[4000].value = R"({"dtype":"X","shape":[1],"data_offsets":[{B},{E}]})";
  h.entries[20].value = R"({"dtype":"U8","shape":[2],"data_offsets":[{B},{E}]})";  // size
  const std::string text = h.text();
  const std::uint64_t repeat = header_at(text, "\"" + name_of(7) + "\"", 1);
  ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey, repeat);
  // Cut inside the last entry: a syntax error wins over the repeat before it
  // (docs/reasons.md); it is at the end of the cut header.
  ExpectRejects(file_of(text.substr(0, text.size() - 10), h.data_len()), Profile::kStrict,
                Reason::kHeaderNotJson, 8 + text.size() - 10);
}

TEST(LargeHeader, FaultBeforeRepeatIsReported) {
  LargeHeader h;
  h.entries[50].value = R"({"dtype":"X","shape":[1],"data_offsets":[{B},{E}]})";
  h.entries[100].name = name_of(7);
  const std::string text = h.text();
  for (const Profile profile : kBoth) {
    ExpectRejects(file_of(h), profile, Reason::kDtypeInvalid, header_at(text, "\"X\""));
  }
}

TEST(LargeHeader, RepeatWithFaultyValue) {
  LargeHeader h;
  h.entries[4000] = Entry{name_of(3), "null", 0};
  const std::string text = h.text();
  ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(3) + "\"", 1));
  ExpectRejects(file_of(h), Profile::kReference, Reason::kTensorInvalid, header_at(text, "null"));
}

TEST(LargeHeader, RepeatAfterUnescaping) {
  LargeHeader h;
  // "model.layers.20.weight" with its first letter and a dot escaped.
  h.entries[4500].name = "\\u006dodel\\u002elayers.20.weight";
  const std::string text = h.text();
  ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"\\u006dodel"));
  // Reference: the repeat's content replaces the first's, leaving a hole.
  ExpectRejects(file_of(h), Profile::kReference, Reason::kOffsetGap, 8 + text.size() + 20);
}

// Names in ascending order, as writers sort them: a repeat is the first name
// not greater than the one before, wherever it lies.
TEST(LargeHeader, RepeatAmongSortedNames) {
  auto sorted_name = [](std::size_t i) {
    std::string digits = std::to_string(i);
    return "w." + std::string(5 - digits.size(), '0') + digits;
  };
  LargeHeader h;
  for (std::size_t i = 0; i < kCount; ++i) h.entries[i].name = sorted_name(i);
  for (const Profile profile : kBoth) EXPECT_TRUE(ExpectAccepts(file_of(h), profile).has_value());
  // Out of order at the very end, no repeat.
  std::swap(h.entries[kCount - 2].name, h.entries[kCount - 1].name);
  for (const Profile profile : kBoth) EXPECT_TRUE(ExpectAccepts(file_of(h), profile).has_value());
  std::swap(h.entries[kCount - 2].name, h.entries[kCount - 1].name);

  for (const std::size_t at : {std::size_t{1}, std::size_t{2500}, kCount - 1}) {
    SCOPED_TRACE(at);
    LargeHeader r = h;
    r.entries[at].name = sorted_name(at - 1);  // equal to its neighbour
    std::string text = r.text();
    ExpectRejects(file_of(r), Profile::kStrict, Reason::kDuplicateKey,
                  header_at(text, "\"" + sorted_name(at - 1) + "\"", 1));
    r.entries[at].name = sorted_name(0);  // equal to the first, smaller than its neighbour
    text = r.text();
    ExpectRejects(file_of(r), Profile::kStrict, Reason::kDuplicateKey,
                  header_at(text, "\"" + sorted_name(0) + "\"", 1));
  }
  // Escaped names keep their order once decoded: "w.\u0030..." is "w.0...".
  LargeHeader e = h;
  e.entries[3000].name = "w.\\u00303000";
  e.entries[3001].name = "w.\\u00303000";
  const std::string text = e.text();
  ExpectRejects(file_of(e), Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"w.\\u00303000\"", 1));
  e.entries[3001].name = "w.03000";
  const std::string plain = e.text();
  ExpectRejects(file_of(e), Profile::kStrict, Reason::kDuplicateKey,
                header_at(plain, "\"w.03000\""));
}

// Reference: repeats are merged as upstream's map does, each name in the place
// of its first entry with the content of its last, whether the merge happens
// after the scan (no tensor cap) or while scanning (from the point where the
// entries outnumber the cap, which counts merged tensors). Names out of order
// from the eleventh on ("model.layers.10" < "model.layers.2").
TEST(LargeHeader, ReferenceMergesRepeatsInPlaceOfTheFirst) {
  LargeHeader h;
  // Three repeats, the last of them after the point where a cap of 4,997
  // merged tensors makes the scan merge as it goes. The first entries of the
  // three names are empty, so the merged layout still tiles.
  const std::pair<std::size_t, std::size_t> repeats[] = {{10, 50}, {30, 2000}, {40, kCount - 1}};
  for (const auto& [first, repeat] : repeats) {
    h.entries[first].bytes = 0;
    h.entries[repeat].name = name_of(first);
  }
  const std::string text = h.text();
  const HeaderBytes file = file_of(h);
  ExpectRejects(file, Profile::kStrict, Reason::kDuplicateKey,
                header_at(text, "\"" + name_of(10) + "\"", 1));

  // Where each entry's data lies, in document order.
  std::vector<std::uint64_t> begins;
  std::uint64_t offset = 0;
  for (const Entry& e : h.entries) {
    begins.push_back(offset);
    offset += e.bytes;
  }
  auto expect_merged = [&](const stguard::ParseOptions& options) {
    const auto header = ExpectAccepts(file, options);
    ASSERT_TRUE(header.has_value());
    ASSERT_EQ(header->tensors.size(), kCount - 3);
    std::size_t next = 0;  // the merged tensor each entry that keeps its place becomes
    for (std::size_t i = 0; i < kCount; ++i) {
      if (i == 50 || i == 2000 || i == kCount - 1) continue;
      SCOPED_TRACE("entry " + std::to_string(i));
      const stguard::TensorInfo& t = header->tensors[next++];
      EXPECT_EQ(t.name, name_of(i));
      std::size_t last = i;  // the entry whose content the tensor has
      for (const auto& [first, repeat] : repeats) {
        if (first == i) last = repeat;
      }
      EXPECT_EQ(t.begin, begins[last]);
      EXPECT_EQ(t.header_offset, header_at(text, "\"" + name_of(i) + "\"", last == i ? 0 : 1));
      if (::testing::Test::HasFailure()) return;
    }
  };
  {
    SCOPED_TRACE("no cap: merged after the scan");
    expect_merged(options_for(Profile::kReference));
  }
  stguard::ParseOptions capped = options_for(Profile::kReference);
  capped.limits.max_tensors = kCount - 3;
  {
    SCOPED_TRACE("a cap of exactly the merged count: merged while scanning");
    expect_merged(capped);
  }
  // One fewer: the last new name (the last entry is a repeat) is one too many.
  capped.limits.max_tensors = kCount - 4;
  ExpectRejects(file, capped, Reason::kLimitExceeded,
                header_at(text, "\"" + name_of(kCount - 2) + "\""));
}

TEST(LargeHeader, EveryNameTheSame) {
  LargeHeader h;
  for (Entry& e : h.entries) e.name = "a";
  const std::string text = h.text();
  ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey, header_at(text, "\"a\"", 1));
}

TEST(LargeHeader, EscapedNamesWithoutRepeats) {
  LargeHeader h;
  for (std::size_t i = 0; i < kCount; i += 3) h.entries[i].name = "\\u0041" + name_of(i);
  const HeaderBytes file = file_of(h);
  for (const Profile profile : kBoth) {
    const auto header = ExpectAccepts(file, profile);
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(header->tensors[3].name, "A" + name_of(3));
    EXPECT_EQ(header->tensors[4].name, name_of(4));
  }
}

TEST(LargeHeader, NonAsciiNames) {
  LargeHeader h;
  // Two-, three- and four-byte sequences, one after another and apart.
  for (std::size_t i = 0; i < kCount; i += 5) {
    h.entries[i].name = "\xC3\xA9t\xC3\xA9." + name_of(i) + ".\xE2\x82\xAC\xF0\x9F\x98\x80";
  }
  const HeaderBytes file = file_of(h);
  for (const Profile profile : kBoth) {
    const auto header = ExpectAccepts(file, profile);
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(header->tensors[10].name,
              "\xC3\xA9t\xC3\xA9." + name_of(10) + ".\xE2\x82\xAC\xF0\x9F\x98\x80");
  }
}

// The header's UTF-8 is checked before the scan, so to the scan non-ASCII
// bytes are plain string content: after a run of them the closing quote, an
// escape or a control byte is still found, at every position of the 16- and
// 8-byte blocks and of the byte loop that ends the string search.
TEST(LargeHeader, StringStopsAfterNonAscii) {
  for (std::size_t run = 0; run <= 40; ++run) {
    std::string text;  // two- and three-byte characters, ASCII only to fill up to `run`
    for (std::size_t i = 0; text.size() < run; ++i) {
      const std::string unit = i % 2 == 0 ? "\xC3\xA9" : "\xE2\x82\xAC";
      text += text.size() + unit.size() <= run ? unit : std::string(run - text.size(), 'x');
    }
    SCOPED_TRACE("run of " + std::to_string(run) + " bytes");

    LargeHeader h(3);
    h.entries[1].name = text;
    for (const Profile profile : kBoth) {
      const auto header = ExpectAccepts(file_of(h), profile);
      ASSERT_TRUE(header.has_value());
      EXPECT_EQ(header->tensors[1].name, text);
    }

    h.entries[1].name = text + "\\\"q";
    for (const Profile profile : kBoth) {
      const auto header = ExpectAccepts(file_of(h), profile);
      ASSERT_TRUE(header.has_value());
      EXPECT_EQ(header->tensors[1].name, text + "\"q");
    }

    h.entries[1].name = text + "\x01q";
    const std::string faulty = h.text();
    for (const Profile profile : kBoth) {
      ExpectRejects(file_of(h), profile, Reason::kHeaderNotJson,
                    header_at(faulty, "\"" + text + "\x01") + 1 + run);
    }

    // At the end of the header, where the search ends byte by byte.
    for (const Profile profile : kBoth) {
      ExpectRejects(file_of("{\"" + text, 0), profile, Reason::kHeaderNotJson, 8 + 2 + run);
      ExpectRejects(file_of("{\"" + text + "\x01", 0), profile, Reason::kHeaderNotJson,
                    8 + 2 + run);
    }
  }
}

// The UTF-8 check skips ASCII in blocks of 64 and 8 bytes: an invalid byte is
// found at every position within them and in the bytes after the last block,
// after ASCII only or after a valid character, whatever follows it. The last
// header is long enough that the scan runs before the check (kernels.h).
TEST(LargeHeader, InvalidUtf8AtEveryPosition) {
  const std::string long_tail(stguard::detail::kUtf8CheckFirstBelow, ' ');
  for (const std::string before : {"", "\xC3\xA9", "\xF0\x9F\x98\x80"}) {
    for (std::size_t k = 0; k <= 140; ++k) {
      for (const std::string bad : {"\xFF", "\xC3"}) {
        const std::string prefix = "{\"" + before + std::string(k, 'a');
        SCOPED_TRACE(std::to_string(k) + " bytes of ASCII after " + std::to_string(before.size()));
        for (const std::string& header :
             {prefix + bad, prefix + bad + "\":1}" + std::string(70, ' '),
              prefix + bad + "\":1}" + long_tail}) {
          for (const Profile profile : kBoth) {
            ExpectRejects(file_of(header, 0), profile, Reason::kHeaderNotUtf8, 8 + prefix.size());
          }
        }
      }
    }
  }
}

// Invalid UTF-8 anywhere outranks every other fault of the header text, even
// one found earlier in the text.
TEST(LargeHeader, InvalidUtf8OutranksEarlierFaults) {
  for (const std::string bad : {"\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF"}) {
    LargeHeader h;
    h.entries[4000].name = "bad" + bad + "name";
    const std::string text = h.text();
    const std::uint64_t at = header_at(text, "\"bad") + 4;
    for (const Profile profile : kBoth) {
      ExpectRejects(file_of(h), profile, Reason::kHeaderNotUtf8, at);
    }
    // A syntax fault and a repeated name before it.
    h.entries[100].value = R"({"dtype":"U8","shape":[1],"data_offsets":[{B},{E}],})";
    h.entries[200].name = name_of(7);
    const std::string faulty = h.text();
    for (const Profile profile : kBoth) {
      ExpectRejects(file_of(h), profile, Reason::kHeaderNotUtf8, header_at(faulty, "\"bad") + 4);
    }
  }
}

// parse_header keeps every shape: of each rank up to past the compact
// reader's 8 dimensions (more go to the general reader), in entries of each
// form, among names of a large header.
TEST(LargeHeader, ShapesOfEveryRankReadBack) {
  LargeHeader h;
  std::vector<std::vector<std::uint64_t>> shapes;
  for (std::size_t i = 0; i < h.entries.size(); ++i) {
    const std::size_t rank = i % 13;
    std::vector<std::uint64_t> shape;
    std::string text;
    std::uint64_t elements = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      shape.push_back(1 + (i + d) % 3);
      elements *= shape.back();
      text += (d == 0 ? "" : ",") + std::to_string(shape.back());
    }
    // Every fourth entry with a space, which the compact reader leaves to
    // the general one.
    const std::string space = i % 4 == 0 ? " " : "";
    h.entries[i].value =
        R"({"dtype":"U8","shape":[)" + text + "]," + space + R"("data_offsets":[{B},{E}]})";
    h.entries[i].bytes = elements;
    shapes.push_back(std::move(shape));
  }
  const HeaderBytes file = file_of(h);
  for (const Profile profile : kBoth) {
    const auto header = ExpectAccepts(file, profile);
    ASSERT_TRUE(header.has_value());
    ASSERT_EQ(header->tensors.size(), shapes.size());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      ASSERT_EQ(header->tensors[i].shape, shapes[i]) << "tensor " << i;
      ASSERT_EQ(header->tensors[i].name, name_of(i)) << "tensor " << i;
    }
  }
}

// A tensor a test writes into a header and expects to read back.
struct Written {
  Dtype dtype;
  const std::vector<std::uint64_t>* shape;
  std::uint64_t bytes;
  std::uint64_t begin = 0;
  bool spaced = false;  // a space after "dtype":
};

// Lays the tensors' data out one after another in `order` (indices into
// `tensors`), setting each begin; returns the data's length.
std::uint64_t lay_out(std::vector<Written>& tensors, const std::vector<std::size_t>& order) {
  std::uint64_t offset = 0;
  for (const std::size_t i : order) {
    tensors[i].begin = offset;
    offset += tensors[i].bytes;
  }
  return offset;
}

// The header of `tensors`, tensor i named name_of(i); the dtype of tensor
// `odd_one`, if there is one, written as `odd_dtype` instead.
std::string header_of(const std::vector<Written>& tensors, std::size_t odd_one = SIZE_MAX,
                      const std::string& odd_dtype = "") {
  std::string text = "{";
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Written& t = tensors[i];
    std::string dims;
    for (const std::uint64_t d : *t.shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    const std::string dtype = i == odd_one ? odd_dtype : std::string(stguard::dtype_name(t.dtype));
    text += (i == 0 ? "\"" : ",\"") + name_of(i) + R"(":{"dtype":)" + (t.spaced ? " " : "") + "\"" +
            dtype + R"(","shape":[)" + dims + R"(],"data_offsets":[)" + std::to_string(t.begin) +
            "," + std::to_string(t.begin + t.bytes) + "]}";
  }
  return text + "}";
}

// Both profiles read every one of kCount `tensors` back as written.
void ExpectReadBack(const HeaderBytes& file, const std::vector<Written>& tensors) {
  ExpectEveryTensor(file, [&](std::size_t i, const stguard::TensorInfo& t) {
    EXPECT_EQ(t.dtype, tensors[i].dtype);
    EXPECT_EQ(t.shape, *tensors[i].shape);
    EXPECT_EQ(t.begin, tensors[i].begin);
    EXPECT_EQ(t.end, tensors[i].begin + tensors[i].bytes);
  });
}

// The compact reader compares an entry's dtype text, its shape text and its
// begin offset with the previous entry's, and reuses what that one read when
// the bytes are the same. Entries drawn from near-identical texts (dtype
// names and shapes that differ in their last byte, past 16 bytes, or by one
// more digit; offsets of 1 to 19 digits, laid out mostly but not always in
// document order) all read back as written, in both profiles.
TEST(LargeHeader, RepeatedAndNearlyRepeatedTextReadsBack) {
  struct Kind {
    Dtype dtype;
    std::uint64_t bytes_per_element;
  };
  // Names of one length that differ late, and names one byte longer.
  const Kind kinds[] = {
      {Dtype::kF8E4M3, 1}, {Dtype::kF8E5M2, 1}, {Dtype::kF8E4M3Fnuz, 1}, {Dtype::kF8E5M2Fnuz, 1},
      {Dtype::kF16, 2},    {Dtype::kBF16, 2},   {Dtype::kI16, 2},        {Dtype::kF32, 4},
  };
  const std::vector<std::vector<std::uint64_t>> shapes = {
      {4096, 11008},
      {4096, 11009},
      {4096},
      {409, 6},
      {40, 96},
      {},
      {0},
      {2, 3, 4, 5, 6, 7, 8, 1},
      {2, 3, 4, 5, 6, 7, 8, 10},
      {10'000'000, 10'000'000, 3},
      {10'000'000, 10'000'000, 4},
      {1, 1, 1, 1, 1, 1, 1, 1, 2},  // rank 9: not compact when shapes are kept
  };
  std::mt19937_64 random(20261204);
  std::vector<Written> expected;
  // Runs of one kind and one shape, as writers emit them, with changes.
  std::size_t kind = 0;
  std::size_t shape = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    if (random() % 3 == 0) kind = random() % std::size(kinds);
    if (random() % 2 == 0) shape = random() % shapes.size();
    std::uint64_t elements = 1;
    for (const std::uint64_t d : shapes[shape]) elements *= d;
    expected.push_back(
        {kinds[kind].dtype, &shapes[shape], elements * kinds[kind].bytes_per_element});
  }
  // The middle tensor holds 10^18 bytes, so offsets after it have 19 digits.
  static const std::vector<std::uint64_t> huge = {1'000'000'000'000'000'000ULL};
  expected[kCount / 2] = {Dtype::kU8, &huge, huge[0]};
  // Data in document order but for one pair in ten, swapped.
  std::vector<std::size_t> order(kCount);
  for (std::size_t i = 0; i < kCount; ++i) order[i] = i;
  for (std::size_t i = 0; i + 1 < kCount; ++i) {
    if (random() % 10 == 0) std::swap(order[i], order[i + 1]);
  }
  const std::uint64_t data_len = lay_out(expected, order);
  ExpectReadBack(file_of(header_of(expected), data_len), expected);
}

// Entries whose dtypes alternate at random, as in a shuffled checkpoint: once
// half the entries' openings are not the previous entry's, the compact
// reader finds an opening from its own bytes and its slot alone (its slots,
// fewer than the dtypes here, are shared by names of one length that differ
// late). Every dtype, a space in some openings, data in a shuffled order:
// every tensor reads back as written, in both profiles. Faults placed after
// the switch are found where they are.
TEST(LargeHeader, AlternatingDtypesReadBack) {
  const std::vector<std::vector<std::uint64_t>> shapes = {{8}, {16, 4}, {64}, {8, 8, 8}, {24}};
  std::mt19937_64 random(20261207);
  const auto dtypes = stguard::all_dtypes();
  std::vector<Written> expected;
  for (std::size_t i = 0; i < kCount; ++i) {
    const Dtype dtype = dtypes[random() % dtypes.size()];
    const auto& shape = shapes[random() % shapes.size()];
    std::uint64_t elements = 1;
    for (const std::uint64_t d : shape) elements *= d;
    // Every shape's count is a multiple of 8: whole bytes for every dtype.
    expected.push_back(
        {dtype, &shape, elements * stguard::dtype_bits(dtype) / 8, 0, random() % 50 == 0});
  }
  std::vector<std::size_t> order(kCount);
  for (std::size_t i = 0; i < kCount; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), random);
  const std::uint64_t data_len = lay_out(expected, order);
  ExpectReadBack(file_of(header_of(expected), data_len), expected);
  // A name unknown, one byte off a known one, and one too long to end in the
  // 16 bytes the opening's length is looked for in.
  for (const std::string bad : {"BF17", "F8_E4M3FNUY", "F8_E4M3_FNUZ_LONGER"}) {
    SCOPED_TRACE(bad);
    const std::string text = header_of(expected, 4000, bad);
    ExpectRejects(file_of(text, data_len), Profile::kStrict, Reason::kDtypeInvalid,
                  header_at(text, "\"" + bad + "\""));
  }
}

// The scan stops at the header's first non-ASCII byte and from then on takes
// them as string content; the full UTF-8 check then runs over the header.
// Valid non-ASCII names, short and long, are read back unchanged, and an
// invalid sequence after the first non-ASCII byte is still found, on every
// SIMD path.
TEST(LargeHeader, NonAsciiAfterTheFirstIsContentAndStillChecked) {
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "\xE5\x90\x8D";  // U+540D, 120 bytes in all
  for (const stguard::SimdPath path : stguard::supported_simd_paths()) {
    SCOPED_TRACE(std::string(stguard::simd_path_name(path)));
    LargeHeader h;
    h.entries[10].name = "caf\xC3\xA9." + name_of(10);
    h.entries[3000].name = name_of(3000) + long_text;
    const HeaderBytes file = file_of(h);
    for (const Profile profile : kBoth) {
      stguard::ParseOptions options = options_for(profile);
      options.simd = path;
      const auto header = ExpectAccepts(file, options);
      ASSERT_TRUE(header.has_value());
      EXPECT_EQ(header->tensors[10].name, h.entries[10].name);
      EXPECT_EQ(header->tensors[3000].name, h.entries[3000].name);
    }
    h.entries[4000].name = name_of(4000) + long_text + "\xC3(";  // a lead byte, then ASCII
    const std::string text = h.text();
    const HeaderBytes bad = file_of(h);
    for (const Profile profile : kBoth) {
      stguard::ParseOptions options = options_for(profile);
      options.simd = path;
      ExpectRejects(bad, options, Reason::kHeaderNotUtf8, header_at(text, "\xC3("));
    }
  }
}

// Few names (16 or fewer are compared pairwise, more go through the hash
// partitions): out of order so that strict has to look for repeats, with the
// repeat at every position; the second occurrence is reported, and of two
// repeats the one that comes first in the text.
TEST(LargeHeader, RepeatAmongFewNames) {
  for (std::size_t count = 2; count <= 20; ++count) {
    for (std::size_t repeat = 1; repeat < count; ++repeat) {
      for (std::size_t original = 0; original < repeat; ++original) {
        LargeHeader h(count);
        for (std::size_t i = 0; i < count; ++i) h.entries[i].name = name_of(count - i);
        h.entries[repeat].name = h.entries[original].name;
        const std::string text = h.text();
        const std::string quoted = "\"" + h.entries[repeat].name + "\"";
        ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey,
                      header_at(text, quoted, 1));
        if (repeat + 1 < count) {
          // A second repeat after the first: the first is still the one.
          h.entries[count - 1].name = h.entries[0].name;
          ExpectRejects(file_of(h), Profile::kStrict, Reason::kDuplicateKey,
                        header_at(h.text(), quoted, 1));
        }
      }
    }
  }
}

// The scan's scratch vectors are reused between parses on a thread (kept
// while small, freed when large): whatever came before, a parse sees only its
// own header.
TEST(LargeHeader, ParsesDoNotSeeEachOther) {
  LargeHeader small(3);
  LargeHeader medium(1000);  // about 40 KiB of scanned records: kept for reuse
  LargeHeader large;         // about 200 KiB: freed after the parse
  for (const Profile profile : kBoth) {
    for (const LargeHeader* before : {&large, &medium, &small, &medium, &large}) {
      ASSERT_TRUE(ExpectAccepts(file_of(*before), profile).has_value());
      const auto header = ExpectAccepts(file_of(small), profile);
      ASSERT_TRUE(header.has_value());
      ASSERT_EQ(header->tensors.size(), 3u);
      for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(header->tensors[i].name, name_of(i));
        EXPECT_EQ(header->tensors[i].shape, std::vector<std::uint64_t>{1});
        EXPECT_EQ(header->tensors[i].begin, i);
      }
      // A rejected parse in between leaves nothing behind either.
      LargeHeader faulty = medium;
      faulty.entries[500].name = name_of(20);
      const HeaderBytes faulty_file = file_of(faulty);
      if (profile == Profile::kStrict) {
        ExpectRejects(faulty_file, profile, Reason::kDuplicateKey,
                      header_at(faulty.text(), "\"" + name_of(20) + "\"", 1));
      } else {  // the later entry wins and leaves a gap where the first one was
        EXPECT_FALSE(
            stguard::parse_header(faulty_file.bytes, faulty_file.size, options_for(profile))
                .has_value());
      }
    }
  }
}

}  // namespace
