// write_safetensors / write_header: canonical output, round trips through the
// strict parser, byte-for-byte reproducibility, and every refusal's reason.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Dtype;
using stguard::MetadataPairs;
using stguard::Reason;
using stguard::TensorToWrite;
using stguard_test::Accepts;
using stguard_test::pattern_bytes;
using stguard_test::Rejects;

std::string HeaderText(const std::vector<std::uint8_t>& file) {
  const std::uint64_t n = stguard_test::load_u64_le(file);
  return std::string(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
}

std::span<const std::uint8_t> DataOf(const std::vector<std::uint8_t>& file,
                                     const stguard::Header& header, const stguard::TensorInfo& t) {
  return std::span<const std::uint8_t>(file).subspan(
      static_cast<std::size_t>(header.data_offset() + t.begin),
      static_cast<std::size_t>(t.byte_size()));
}

bool SameBytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Owns the data of a set of tensors to write.
struct Inputs {
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<TensorToWrite> tensors;

  void Add(std::string name, Dtype dtype, std::vector<std::uint64_t> shape, std::size_t bytes) {
    buffers.reserve(64);  // spans below must stay valid
    buffers.push_back(pattern_bytes(bytes, static_cast<std::uint8_t>(buffers.size() * 7)));
    tensors.push_back({std::move(name), dtype, std::move(shape), buffers.back()});
  }
};

Inputs MixedInputs() {
  Inputs in;
  in.Add("layer.0.weight", Dtype::kF32, {2, 3}, 24);
  in.Add("layer.0.bias", Dtype::kF32, {3}, 12);
  in.Add("embed", Dtype::kBF16, {4, 2}, 16);
  in.Add("step", Dtype::kI64, {}, 8);
  in.Add("mask", Dtype::kBool, {5}, 5);
  in.Add("packed", Dtype::kF4, {2, 3}, 3);
  in.Add("packed6", Dtype::kF6E2M3, {4}, 3);
  in.Add("empty", Dtype::kF16, {0, 7}, 0);
  in.Add("ids", Dtype::kU64, {2}, 16);
  in.Add("scale", Dtype::kF8E8M0, {3}, 3);
  return in;
}

TEST(Writer, RoundTripThroughStrictParser) {
  const Inputs in = MixedInputs();
  const MetadataPairs metadata = {{"format", "pt"}, {"author", "stguard"}};
  const auto file = stguard::write_safetensors(in.tensors, metadata);
  ASSERT_TRUE(Accepts(file));
  const auto header = stguard::parse(*file);
  ASSERT_TRUE(Accepts(header));
  ASSERT_EQ(header->tensors.size(), in.tensors.size());
  for (const TensorToWrite& w : in.tensors) {
    SCOPED_TRACE(w.name);
    const stguard::TensorInfo* t = header->find(w.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->dtype, w.dtype);
    EXPECT_EQ(t->shape, w.shape);
    EXPECT_EQ(t->byte_size(), w.data.size());
    EXPECT_TRUE(SameBytes(DataOf(*file, *header, *t), w.data));
  }
  ASSERT_TRUE(header->metadata.has_value());
  EXPECT_EQ(*header->metadata, (MetadataPairs{{"author", "stguard"}, {"format", "pt"}}));
  // Also readable by the reference profile, identically.
  const auto reference = stguard::parse(*file, stguard_test::Reference());
  ASSERT_TRUE(Accepts(reference));
  EXPECT_EQ(reference->tensors, header->tensors);
}

TEST(Writer, CanonicalTensorOrderAndContiguousOffsets) {
  Inputs in;
  in.Add("b", Dtype::kF32, {1}, 4);
  in.Add("flag", Dtype::kBool, {1}, 1);
  in.Add("a", Dtype::kF32, {1}, 4);
  in.Add("\xc3\xa9", Dtype::kF32, {1}, 4);
  in.Add("B", Dtype::kF32, {1}, 4);
  in.Add("a.b", Dtype::kF32, {1}, 4);
  in.Add("ab", Dtype::kF32, {1}, 4);
  in.Add("z", Dtype::kU64, {1}, 8);
  in.Add("h", Dtype::kF16, {1}, 2);
  in.Add("q", Dtype::kF4, {2}, 1);
  in.Add("i", Dtype::kI64, {1}, 8);
  const auto file = stguard::write_safetensors(in.tensors);
  ASSERT_TRUE(Accepts(file));
  const auto header = stguard::parse(*file);
  ASSERT_TRUE(Accepts(header));
  std::vector<std::string> names;
  for (const auto& t : header->tensors) names.emplace_back(t.name);
  // dtype rank (U64, I64, ..., F32, ..., F16, ..., F4, BOOL), then name bytes.
  EXPECT_EQ(names, (std::vector<std::string>{"z", "i", "B", "a", "a.b", "ab", "b", "\xc3\xa9", "h",
                                             "q", "flag"}));
  std::uint64_t cursor = 0;
  for (const auto& t : header->tensors) {
    EXPECT_EQ(t.begin, cursor) << t.name;
    cursor = t.end;
  }
  EXPECT_EQ(cursor, header->data_len());
}

TEST(Writer, ExactBytesOfASmallFile) {
  Inputs in;
  in.Add("w", Dtype::kF32, {2}, 8);
  in.Add("b", Dtype::kU8, {}, 1);
  const auto file = stguard::write_safetensors(in.tensors, {{"format", "pt"}});
  ASSERT_TRUE(Accepts(file));
  std::string expected =
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"U8","shape":[],"data_offsets":[8,9]}})";
  while (expected.size() % 8 != 0) expected.push_back(' ');
  std::vector<std::uint8_t> bytes = stguard_test::u64_le(expected.size());
  bytes.insert(bytes.end(), expected.begin(), expected.end());
  bytes.insert(bytes.end(), in.buffers[0].begin(), in.buffers[0].end());
  bytes.insert(bytes.end(), in.buffers[1].begin(), in.buffers[1].end());
  EXPECT_EQ(HeaderText(*file), expected);
  EXPECT_EQ(*file, bytes);
}

TEST(Writer, MetadataFirstWithSortedKeys) {
  Inputs in;
  in.Add("t", Dtype::kU8, {1}, 1);
  const MetadataPairs metadata = {{"zeta", "1"}, {"Alpha", "2"},    {"alpha", "3"},
                                  {"", "4"},     {"\xc3\xa9", "5"}, {"al", "6"}};
  const auto file = stguard::write_safetensors(in.tensors, metadata);
  ASSERT_TRUE(Accepts(file));
  const std::string text = HeaderText(*file);
  EXPECT_EQ(text.rfind(R"({"__metadata__":{)", 0), 0U) << text;
  const auto header = stguard::parse(*file);
  ASSERT_TRUE(Accepts(header));
  ASSERT_TRUE(header->metadata.has_value());
  EXPECT_EQ(*header->metadata, (MetadataPairs{{"", "4"},
                                              {"Alpha", "2"},
                                              {"al", "6"},
                                              {"alpha", "3"},
                                              {"zeta", "1"},
                                              {"\xc3\xa9", "5"}}));
}

TEST(Writer, PaddingToMultipleOf8WithSpaces) {
  // Names of length 0..15 give every padding amount.
  for (std::size_t len = 0; len < 16; ++len) {
    SCOPED_TRACE("name length " + std::to_string(len));
    Inputs in;
    in.Add(std::string(len, 'n'), Dtype::kU8, {3}, 3);
    const auto file = stguard::write_safetensors(in.tensors);
    ASSERT_TRUE(Accepts(file));
    const std::uint64_t n = stguard_test::load_u64_le(*file);
    EXPECT_EQ(n % 8, 0U);
    EXPECT_EQ(file->size(), 8 + n + 3);
    const std::string text = HeaderText(*file);
    const std::size_t close = text.find_last_of('}');
    ASSERT_NE(close, std::string::npos);
    EXPECT_LT(text.size() - close - 1, 8U) << "more padding than needed";
    EXPECT_EQ(text.find_first_not_of(' ', close + 1), std::string::npos) << "padding not spaces";
    const auto header = stguard::parse(*file);
    ASSERT_TRUE(Accepts(header));
    EXPECT_EQ(header->header_len, n);
  }
}

TEST(Writer, EmptyFile) {
  const auto file = stguard::write_safetensors({});
  ASSERT_TRUE(Accepts(file));
  EXPECT_EQ(HeaderText(*file), "{}      ");
  EXPECT_EQ(file->size(), 16U);
  const auto header = stguard::parse(*file);
  ASSERT_TRUE(Accepts(header));
  EXPECT_TRUE(header->tensors.empty());
  EXPECT_FALSE(header->metadata.has_value());
}

TEST(Writer, ReproducibleByteForByte) {
  const Inputs in = MixedInputs();
  const MetadataPairs metadata = {{"b", "2"}, {"a", "1"}, {"c", "3"}};
  const auto first = stguard::write_safetensors(in.tensors, metadata);
  const auto second = stguard::write_safetensors(in.tensors, metadata);
  ASSERT_TRUE(Accepts(first));
  ASSERT_TRUE(Accepts(second));
  EXPECT_EQ(*first, *second);

  // Input order of tensors and metadata does not matter either.
  std::vector<TensorToWrite> reversed(in.tensors.rbegin(), in.tensors.rend());
  MetadataPairs metadata_reversed(metadata.rbegin(), metadata.rend());
  const auto third = stguard::write_safetensors(reversed, metadata_reversed);
  ASSERT_TRUE(Accepts(third));
  EXPECT_EQ(*first, *third);
}

TEST(Writer, WriteHeaderMatchesWholeFile) {
  const Inputs in = MixedInputs();
  const auto whole = stguard::write_safetensors(in.tensors, {{"k", "v"}});
  const auto head = stguard::write_header(in.tensors, {{"k", "v"}});
  ASSERT_TRUE(Accepts(whole));
  ASSERT_TRUE(Accepts(head));
  ASSERT_EQ(head->layout.size(), in.tensors.size());
  // Layout is per input tensor; placing each input's bytes there rebuilds the file.
  std::uint64_t data_len = 0;
  for (const auto& [b, e] : head->layout) data_len = std::max(data_len, e);
  std::vector<std::uint8_t> rebuilt = head->prefix_and_header;
  rebuilt.resize(rebuilt.size() + static_cast<std::size_t>(data_len));
  for (std::size_t i = 0; i < in.tensors.size(); ++i) {
    const auto [b, e] = head->layout[i];
    ASSERT_EQ(e - b, in.tensors[i].data.size()) << in.tensors[i].name;
    std::copy(in.tensors[i].data.begin(), in.tensors[i].data.end(),
              rebuilt.begin() + static_cast<std::ptrdiff_t>(head->prefix_and_header.size() + b));
  }
  EXPECT_EQ(rebuilt, *whole);
  const auto parsed = stguard::parse(*whole);
  ASSERT_TRUE(Accepts(parsed));
  for (std::size_t i = 0; i < in.tensors.size(); ++i) {
    const stguard::TensorInfo* t = parsed->find(in.tensors[i].name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->begin, head->layout[i].first);
    EXPECT_EQ(t->end, head->layout[i].second);
  }
}

TEST(Writer, NamesThatNeedEscaping) {
  const std::vector<std::string> names = {
      "quote\"",      "back\\slash", "new\nline",        "tab\t", std::string("ctl\x01\x1f"),
      "del\x7f",      "slash/",      "\xf0\x9f\x98\x80", "",      "__Metadata__",
      " __metadata__"};
  Inputs in;
  for (const std::string& n : names) in.Add(n, Dtype::kU8, {1}, 1);
  const auto file = stguard::write_safetensors(in.tensors, {{"va\"l\n", "x\\y\x02"}});
  ASSERT_TRUE(Accepts(file));
  const std::string text = HeaderText(*file);
  for (char c : text) {
    EXPECT_GE(static_cast<unsigned char>(c), 0x20) << "raw control character in header";
  }
  const auto header = stguard::parse(*file);
  ASSERT_TRUE(Accepts(header));
  for (const std::string& n : names) EXPECT_NE(header->find(n), nullptr) << n;
  ASSERT_TRUE(header->metadata.has_value());
  EXPECT_EQ(*header->metadata, (MetadataPairs{{"va\"l\n", "x\\y\x02"}}));
}

void ExpectRefused(const std::vector<TensorToWrite>& tensors, const MetadataPairs& metadata,
                   Reason reason, const stguard::Limits& limits = {}) {
  EXPECT_TRUE(Rejects(stguard::write_safetensors(tensors, metadata, limits), reason, 0));
  EXPECT_TRUE(Rejects(stguard::write_header(tensors, metadata, limits), reason, 0));
}

TEST(WriterRefuses, DuplicateTensorNames) {
  Inputs in;
  in.Add("a", Dtype::kU8, {1}, 1);
  in.Add("b", Dtype::kU8, {1}, 1);
  in.Add("a", Dtype::kF32, {1}, 4);
  ExpectRefused(in.tensors, {}, Reason::kDuplicateKey);
}

TEST(WriterRefuses, DuplicateMetadataKeys) {
  Inputs in;
  in.Add("a", Dtype::kU8, {1}, 1);
  ExpectRefused(in.tensors, {{"k", "1"}, {"j", "2"}, {"k", "1"}}, Reason::kDuplicateKey);
}

TEST(WriterRefuses, ReservedName) {
  Inputs in;
  in.Add("__metadata__", Dtype::kU8, {1}, 1);
  ExpectRefused(in.tensors, {}, Reason::kNameInvalid);
}

TEST(WriterRefuses, NulInName) {
  Inputs in;
  in.Add(std::string("a\0b", 3), Dtype::kU8, {1}, 1);
  ExpectRefused(in.tensors, {}, Reason::kNameInvalid);
}

TEST(WriterRefuses, NulInMetadataKey) {
  ExpectRefused({}, {{std::string("k\0", 2), "v"}}, Reason::kNameInvalid);
}

TEST(WriterRefuses, NulInMetadataValue) {
  ExpectRefused({}, {{"k", std::string("v\0", 2)}}, Reason::kMetadataInvalid);
}

TEST(WriterRefuses, NameNotUtf8) {
  for (const std::string& bad : {std::string("a\xff"), std::string("\xc0\xaf"),
                                 std::string("\xed\xa0\x80"), std::string("x\xe2\x82")}) {
    Inputs in;
    in.Add(bad, Dtype::kU8, {1}, 1);
    ExpectRefused(in.tensors, {}, Reason::kNameInvalid);
  }
}

TEST(WriterRefuses, MetadataNotUtf8) {
  ExpectRefused({}, {{"k", "\xff"}}, Reason::kMetadataInvalid);
  ExpectRefused({}, {{"\xff", "v"}}, Reason::kNameInvalid);
}

TEST(WriterRefuses, SizeMismatch) {
  Inputs in;
  in.Add("a", Dtype::kF32, {2}, 7);
  ExpectRefused(in.tensors, {}, Reason::kSizeMismatch);
  Inputs in2;
  in2.Add("a", Dtype::kF32, {2}, 9);
  ExpectRefused(in2.tensors, {}, Reason::kSizeMismatch);
}

TEST(WriterRefuses, SubbyteMisaligned) {
  Inputs in;
  in.Add("a", Dtype::kF4, {3}, 2);
  ExpectRefused(in.tensors, {}, Reason::kSubbyteMisaligned);
  Inputs in2;
  in2.Add("a", Dtype::kF6E3M2, {2}, 2);
  ExpectRefused(in2.tensors, {}, Reason::kSubbyteMisaligned);
}

TEST(WriterRefuses, SizeOverflow) {
  Inputs in;
  in.Add("a", Dtype::kU8, {UINT64_MAX, 2}, 0);
  ExpectRefused(in.tensors, {}, Reason::kSizeOverflow);
  // The strict reading: a zero dimension does not excuse the overflow of the others.
  Inputs in2;
  in2.Add("a", Dtype::kU8, {0, UINT64_MAX, UINT64_MAX}, 0);
  ExpectRefused(in2.tensors, {}, Reason::kSizeOverflow);
}

TEST(WriterRefuses, HeaderTooLarge) {
  Inputs in;
  in.Add(std::string(100, 'x'), Dtype::kU8, {1}, 1);
  stguard::Limits limits;
  limits.max_header_bytes = 64;
  ExpectRefused(in.tensors, {}, Reason::kHeaderTooLarge, limits);
}

TEST(WriterRefuses, OneBadTensorAmongGoodOnes) {
  Inputs in = MixedInputs();
  in.Add("bad", Dtype::kI32, {3}, 11);
  ExpectRefused(in.tensors, {{"format", "pt"}}, Reason::kSizeMismatch);
}

}  // namespace
