// stguard::File (open by path, mmap, tensor bytes) and parse_file on real
// temporary files.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Dtype;
using stguard::File;
using stguard::Reason;
using stguard_test::Accepts;
using stguard_test::entry;
using stguard_test::make_file;
using stguard_test::Rejects;
using stguard_test::TempDir;

bool SameBytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Two tensors, listed out of layout order, with distinct data.
std::vector<std::uint8_t> TwoTensorFile() {
  return make_file("{\"__metadata__\":{\"format\":\"pt\"}," + entry("b", "F32", "2", 4, 12) + "," +
                       entry("a", "U8", "4", 0, 4) + "}",
                   12);
}

TEST(File, OpenListsTensorsAndData) {
  TempDir dir;
  const std::vector<std::uint8_t> bytes = TwoTensorFile();
  const std::string path = dir.write("two.safetensors", bytes);
  auto file = File::open(path);
  ASSERT_TRUE(Accepts(file));
  const stguard::Header& h = file->header();
  ASSERT_EQ(h.tensors.size(), 2U);
  EXPECT_EQ(h.tensors[0].name, "b");  // document order
  EXPECT_EQ(h.tensors[1].name, "a");
  EXPECT_EQ(h.file_size, bytes.size());
  ASSERT_TRUE(h.metadata.has_value());
  EXPECT_EQ(*h.metadata, (stguard::MetadataPairs{{"format", "pt"}}));

  EXPECT_TRUE(SameBytes(file->bytes(), bytes));
  const std::size_t data = static_cast<std::size_t>(h.data_offset());
  const auto b = file->tensor_data(h.tensors[0]);
  EXPECT_EQ(b.size(), 8U);
  EXPECT_EQ(b.data(), file->bytes().data() + data + 4);
  EXPECT_TRUE(SameBytes(b, std::span<const std::uint8_t>(bytes).subspan(data + 4, 8)));
  const auto a = file->tensor_data(h.tensors[1]);
  EXPECT_TRUE(SameBytes(a, std::span<const std::uint8_t>(bytes).subspan(data, 4)));
}

TEST(File, TensorDataByName) {
  TempDir dir;
  const std::vector<std::uint8_t> bytes = TwoTensorFile();
  auto file = File::open(dir.write("two.safetensors", bytes));
  ASSERT_TRUE(Accepts(file));
  const auto b = file->tensor_data("b");
  ASSERT_TRUE(Accepts(b));
  EXPECT_EQ(b->size(), 8U);
  EXPECT_TRUE(SameBytes(*b, file->tensor_data(*file->header().find("b"))));
  EXPECT_TRUE(Rejects(file->tensor_data("missing"), Reason::kTensorInvalid, 0));
  EXPECT_TRUE(Rejects(file->tensor_data(""), Reason::kTensorInvalid, 0));
  EXPECT_TRUE(Rejects(file->tensor_data("__metadata__"), Reason::kTensorInvalid, 0));
}

TEST(File, ZeroSizeTensorHasEmptyData) {
  TempDir dir;
  auto file =
      File::open(dir.write("z.safetensors", make_file("{" + entry("z", "F32", "0,4", 0, 0) + "}")));
  ASSERT_TRUE(Accepts(file));
  const auto z = file->tensor_data("z");
  ASSERT_TRUE(Accepts(z));
  EXPECT_TRUE(z->empty());
}

TEST(File, MoveConstructAndAssign) {
  TempDir dir;
  const std::vector<std::uint8_t> bytes = TwoTensorFile();
  auto opened = File::open(dir.write("two.safetensors", bytes));
  ASSERT_TRUE(Accepts(opened));
  File first = std::move(*opened);
  EXPECT_EQ(first.header().tensors.size(), 2U);
  EXPECT_TRUE(SameBytes(first.bytes(), bytes));

  File second(std::move(first));
  EXPECT_TRUE(SameBytes(second.bytes(), bytes));
  const auto a = second.tensor_data("a");
  ASSERT_TRUE(Accepts(a));
  EXPECT_EQ(a->size(), 4U);

  // Assign over a File that holds another mapping: the old one is released,
  // the new one stays valid.
  const std::vector<std::uint8_t> other = make_file("{" + entry("x", "I8", "3", 0, 3) + "}", 3);
  auto third = File::open(dir.write("other.safetensors", other));
  ASSERT_TRUE(Accepts(third));
  *third = std::move(second);
  EXPECT_TRUE(SameBytes(third->bytes(), bytes));
  EXPECT_NE(third->header().find("a"), nullptr);
  EXPECT_EQ(third->header().find("x"), nullptr);

  // Self-move leaves a usable object (no double unmap on destruction).
  File& self = *third;
  *third = std::move(self);
}

TEST(File, ManyOpenFilesAreIndependent) {
  TempDir dir;
  std::vector<File> files;
  for (int i = 0; i < 16; ++i) {
    const std::vector<std::uint8_t> bytes =
        make_file("{" +
                      entry("t" + std::to_string(i), "U8", std::to_string(i + 1), 0,
                            static_cast<std::uint64_t>(i + 1)) +
                      "}",
                  static_cast<std::size_t>(i + 1));
    auto f = File::open(dir.write("f" + std::to_string(i), bytes));
    ASSERT_TRUE(Accepts(f));
    files.push_back(std::move(*f));  // vector growth moves the earlier Files
  }
  for (int i = 0; i < 16; ++i) {
    const auto t = files[static_cast<std::size_t>(i)].tensor_data("t" + std::to_string(i));
    ASSERT_TRUE(Accepts(t));
    EXPECT_EQ(t->size(), static_cast<std::size_t>(i + 1));
  }
}

TEST(File, OptionsSelectTheProfile) {
  TempDir dir;
  const std::string path =
      dir.write("lead.safetensors", make_file(" {" + entry("t", "U8", "2", 0, 2) + "}", 2));
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderBadStart, 8));
  EXPECT_TRUE(Rejects(stguard::parse_file(path), Reason::kHeaderBadStart, 8));
  auto file = File::open(path, stguard_test::Reference());
  ASSERT_TRUE(Accepts(file));
  const auto t = file->tensor_data("t");
  ASSERT_TRUE(Accepts(t));
  EXPECT_EQ(t->size(), 2U);
  EXPECT_TRUE(Accepts(stguard::parse_file(path, stguard_test::Reference())));
}

TEST(File, OptionsCarryLimits) {
  TempDir dir;
  const std::string path = dir.write(
      "two.safetensors",
      make_file("{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "1", 1, 2) + "}", 2));
  stguard::ParseOptions options;
  options.limits.max_tensors = 1;
  EXPECT_TRUE(Rejects(File::open(path, options), Reason::kLimitExceeded, std::nullopt));
  options.limits.max_tensors = 2;
  EXPECT_TRUE(Accepts(File::open(path, options)));
}

TEST(File, RejectionsCarryReasonAndOffset) {
  TempDir dir;
  const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
  const std::string path = dir.write("trailing.safetensors", make_file(h, 6));
  EXPECT_TRUE(Rejects(File::open(path), Reason::kTrailingData, 8 + h.size() + 4));
  EXPECT_TRUE(Rejects(stguard::parse_file(path), Reason::kTrailingData, 8 + h.size() + 4));
}

// File::Access::kRead: the same header and bytes as a mapping, in memory the
// File owns (moves keep it; nothing is unmapped).
TEST(FileRead, SameHeaderAndBytesAsAMapping) {
  TempDir dir;
  const std::vector<std::uint8_t> bytes = TwoTensorFile();
  const std::string path = dir.write("two.safetensors", bytes);
  auto mapped = File::open(path);
  auto read = File::open(path, {}, File::Access::kRead);
  ASSERT_TRUE(Accepts(mapped));
  ASSERT_TRUE(Accepts(read));
  EXPECT_EQ(read->header().tensors, mapped->header().tensors);
  EXPECT_TRUE(SameBytes(read->bytes(), bytes));
  for (const stguard::TensorInfo& t : read->header().tensors) {
    EXPECT_TRUE(SameBytes(read->tensor_data(t), mapped->tensor_data(t)));
  }
  File moved = std::move(*read);
  EXPECT_TRUE(SameBytes(moved.bytes(), bytes));
  *mapped = std::move(moved);  // a mapping replaced by owned bytes
  EXPECT_TRUE(SameBytes(mapped->bytes(), bytes));
  auto a = mapped->tensor_data("a");
  ASSERT_TRUE(Accepts(a));
  EXPECT_EQ(a->size(), 4U);
}

TEST(FileRead, RejectionsAndIoErrorsAsForAMapping) {
  TempDir dir;
  const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
  const std::string trailing = dir.write("trailing.safetensors", make_file(h, 6));
  EXPECT_TRUE(Rejects(File::open(trailing, {}, File::Access::kRead), Reason::kTrailingData,
                      8 + h.size() + 4));
  EXPECT_TRUE(Rejects(
      File::open(dir.write("short", std::vector<std::uint8_t>{1, 2, 3}), {}, File::Access::kRead),
      Reason::kHeaderTooSmall, std::nullopt));
  EXPECT_TRUE(
      Rejects(File::open(dir.write("empty", std::vector<std::uint8_t>{}), {}, File::Access::kRead),
              Reason::kHeaderTooSmall, std::nullopt));
  EXPECT_TRUE(
      Rejects(File::open(dir.file("missing"), {}, File::Access::kRead), Reason::kIoError, 0));
  EXPECT_TRUE(
      Rejects(File::open(dir.path().string(), {}, File::Access::kRead), Reason::kIoError, 0));
}

// A file truncated by another thread while kRead reads it: the open either
// finishes first (accept, the old bytes), sees the shorter file (a reject),
// or meets the new end mid-read: kIoError at the byte where the file ended,
// naming it. Never a crash. Which of these happens varies from run to run.
TEST(FileRead, FileTruncatedWhileBeingReadIsAnIoErrorNotACrash) {
  TempDir dir;
  const std::size_t data = std::size_t{32} << 20;
  const std::string path =
      dir.write("big.safetensors",
                make_file("{" + entry("t", "U8", std::to_string(data), 0, data) + "}", data));
  const std::uintmax_t full = std::filesystem::file_size(path);
  for (int round = 0; round < 8; ++round) {
    std::filesystem::resize_file(path, full);  // back to full length (zeros after a cut)
    const auto cut = static_cast<std::uintmax_t>(data / 8 * static_cast<std::size_t>(round));
    std::thread cutter([&] { std::filesystem::resize_file(path, cut); });
    const auto file = File::open(path, {}, File::Access::kRead);
    cutter.join();
    if (!file && file.error().reason == Reason::kIoError) {
      EXPECT_NE(file.error().message.find(path), std::string::npos) << file.error().message;
      EXPECT_NE(file.error().message.find("ended at byte " + std::to_string(file.error().offset)),
                std::string::npos)
          << file.error().message;
    }
  }
}

TEST(CheckFile, ReturnsTheHeader) {
  TempDir dir;
  const std::vector<std::uint8_t> bytes = TwoTensorFile();
  const std::string path = dir.write("two.safetensors", bytes);
  const auto header = stguard::parse_file(path);
  ASSERT_TRUE(Accepts(header));
  const auto in_memory = stguard::parse(bytes);
  ASSERT_TRUE(Accepts(in_memory));
  EXPECT_EQ(header->tensors, in_memory->tensors);
  EXPECT_EQ(header->metadata, in_memory->metadata);
  EXPECT_EQ(header->header_len, in_memory->header_len);
  EXPECT_EQ(header->file_size, bytes.size());
}

TEST(CheckFile, WriterOutputOnDisk) {
  TempDir dir;
  const std::vector<std::uint8_t> data(24, 7);
  const std::vector<stguard::TensorToWrite> tensors = {{"w", Dtype::kF64, {3}, data}};
  const auto bytes = stguard::write_safetensors(tensors, {{"k", "v"}});
  ASSERT_TRUE(Accepts(bytes));
  const std::string path = dir.write("w.safetensors", *bytes);
  EXPECT_TRUE(Accepts(stguard::parse_file(path)));
  auto file = File::open(path);
  ASSERT_TRUE(Accepts(file));
  const auto w = file->tensor_data("w");
  ASSERT_TRUE(Accepts(w));
  EXPECT_TRUE(SameBytes(*w, data));
}

TEST(Header, FindByName) {
  const auto header = stguard::parse(TwoTensorFile());
  ASSERT_TRUE(Accepts(header));
  ASSERT_NE(header->find("a"), nullptr);
  EXPECT_EQ(header->find("a")->dtype, Dtype::kU8);
  EXPECT_EQ(header->find("b")->byte_size(), 8U);
  EXPECT_EQ(header->find("c"), nullptr);
  EXPECT_EQ(header->find("__metadata__"), nullptr);
  EXPECT_EQ(header->find(""), nullptr);
}

TEST(Header, TensorInfoOffsets) {
  const std::string h =
      "{" + entry("first", "U8", "1", 0, 1) + "," + entry("second", "U8", "1", 1, 2) + "}";
  const auto header = stguard::parse(make_file(h, 2));
  ASSERT_TRUE(Accepts(header));
  EXPECT_EQ(header->find("first")->header_offset, stguard_test::header_at(h, "\"first\""));
  EXPECT_EQ(header->find("second")->header_offset, stguard_test::header_at(h, "\"second\""));
  EXPECT_EQ(header->data_offset(), 8 + h.size());
  EXPECT_EQ(header->data_len(), 2U);
}

TEST(HeaderLength, ParseHeaderLength) {
  const std::vector<std::uint8_t> file = make_file("{}", 0);
  const auto n = stguard::parse_header_length(file, file.size());
  ASSERT_TRUE(Accepts(n));
  EXPECT_EQ(*n, 2U);
  // Only the first 8 bytes are needed.
  const std::vector<std::uint8_t> prefix(file.begin(), file.begin() + 8);
  EXPECT_TRUE(Accepts(stguard::parse_header_length(prefix, 10)));
  EXPECT_TRUE(
      Rejects(stguard::parse_header_length(prefix, 9), Reason::kHeaderLengthExceedsFile, 0));
  const std::vector<std::uint8_t> short_file(file.begin(), file.begin() + 5);
  EXPECT_TRUE(Rejects(stguard::parse_header_length(short_file, 5), Reason::kHeaderTooSmall, 0));
  const auto big = stguard_test::u64_le(100'000'001);
  EXPECT_TRUE(Rejects(stguard::parse_header_length(big, 1ULL << 40), Reason::kHeaderTooLarge, 0));
  stguard::Limits limits;
  limits.max_header_bytes = 200'000'000;
  const auto raised = stguard::parse_header_length(big, 1ULL << 40, limits);
  ASSERT_TRUE(Accepts(raised));
  EXPECT_EQ(*raised, 100'000'001U);
}

TEST(HeaderLength, ParseHeaderNeedsOnlyTheHeaderBytes) {
  const std::string h = "{" + entry("a", "U8", "1000", 0, 1000) + "}";
  const std::vector<std::uint8_t> file = make_file(h, 1000);
  // Exactly 8 + N bytes, in an exact-size buffer: the data part is never read.
  const std::vector<std::uint8_t> head(file.begin(),
                                       file.begin() + 8 + static_cast<std::ptrdiff_t>(h.size()));
  const auto header = stguard::parse_header(head, file.size());
  ASSERT_TRUE(Accepts(header));
  EXPECT_EQ(header->file_size, file.size());
  EXPECT_EQ(header->data_len(), 1000U);
  // A span shorter than the header it claims, though file_size says the bytes
  // exist: a caller bug, reported as IO_ERROR rather than read out of bounds.
  const std::vector<std::uint8_t> cut(file.begin(), file.begin() + 20);
  EXPECT_TRUE(Rejects(stguard::parse_header(cut, file.size()), Reason::kIoError, std::nullopt));
}

}  // namespace
