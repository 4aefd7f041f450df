// A Parser kept from call to call (stguard/parser.h) answers every input
// exactly as a one-shot call does, whatever it read before: its scratch
// memory carries nothing from one call to the next. The inputs alternate
// large headers (whose records, tables and arrays fill the scratch) with the
// corpus, the fuzz regressions and mutated files, in both profiles, through
// validate and parse, from memory and from files (whose large headers are
// read a window at a time).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "stguard/file.h"
#include "stguard/parser.h"
#include "tests/parser/path_inputs.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard::Profile;
using stguard_test::Order;

std::string one_shot(const std::vector<std::uint8_t>& file, const stguard::ParseOptions& options) {
  const std::span<const std::uint8_t> bytes(file);
  return stguard_test::describe(stguard::validate_header(bytes, file.size(), options)) + "\n--\n" +
         stguard_test::describe(stguard::parse_header(bytes, file.size(), options));
}

std::string kept(stguard::Parser& parser, const std::vector<std::uint8_t>& file,
                 const stguard::ParseOptions& options) {
  const std::span<const std::uint8_t> bytes(file);
  return stguard_test::describe(parser.validate_header(bytes, file.size(), options)) + "\n--\n" +
         stguard_test::describe(parser.parse_header(bytes, file.size(), options));
}

// Large headers, in and out of offset order, valid and with a fault late:
// the scratch's vectors and tables filled before each small input.
std::vector<std::vector<std::uint8_t>> large_headers() {
  std::vector<std::vector<std::uint8_t>> out;
  for (const Order order : {Order::kWriter, Order::kShuffled}) {
    std::vector<stguard_test::CheckpointTensor> tensors = stguard_test::tensors_of(3000, order);
    out.push_back(stguard_test::file_of(tensors));
    tensors[2500].begin += 8;  // an overlap late
    out.push_back(stguard_test::file_of(tensors));
    tensors[2500].name = tensors[10].name;  // a repeated name late
    out.push_back(stguard_test::file_of(tensors));
  }
  return out;
}

TEST(KeptParser, EveryPathInputReadsAsOneShot) {
  const std::vector<stguard_test::PathInput> inputs = stguard_test::every_path_input();
  const std::vector<std::vector<std::uint8_t>> large = large_headers();
  stguard::Parser parser;
  std::size_t compared = 0;
  int failures = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Profile profile = i % 2 == 0 ? Profile::kStrict : Profile::kReference;
    stguard::ParseOptions options;
    options.profile = profile;
    // Every 16th input comes after a large header, in the other profile.
    if (i % 16 == 0) {
      stguard::ParseOptions other;
      other.profile = profile == Profile::kStrict ? Profile::kReference : Profile::kStrict;
      const std::vector<std::uint8_t>& file = large[(i / 16) % large.size()];
      ASSERT_EQ(kept(parser, file, other), one_shot(file, other));
    }
    const std::string want = one_shot(inputs[i].bytes, options);
    const std::string got = kept(parser, inputs[i].bytes, options);
    ++compared;
    if (got == want) continue;
    ADD_FAILURE() << inputs[i].label << ", " << stguard::profile_name(profile)
                  << ", a kept Parser:\n"
                  << got.substr(0, 2000) << "\none-shot:\n"
                  << want.substr(0, 2000);
    if (++failures == 10) return;
  }
  std::cout << compared << " inputs through one kept Parser\n";
  EXPECT_GT(compared, 10000u);
}

TEST(KeptParser, FilesReadAsOneShot) {
  const stguard_test::TempDir dir;
  // 20,000 tensors: a header past 1 MiB, read a window at a time.
  std::vector<stguard_test::CheckpointTensor> tensors =
      stguard_test::tensors_of(20000, Order::kShuffled);
  const std::string valid = dir.write("valid.safetensors", stguard_test::file_of(tensors));
  tensors[19000].begin += 8;
  const std::string overlap = dir.write("overlap.safetensors", stguard_test::file_of(tensors));
  const std::string small =
      dir.write("small.safetensors", stguard_test::checkpoint(20, Order::kWriter));
  stguard::Parser parser;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& path : {valid, small, overlap, small, valid}) {
      for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
        stguard::ParseOptions options;
        options.profile = profile;
        EXPECT_EQ(stguard_test::describe(parser.validate_file(path, options)),
                  stguard_test::describe(stguard::validate_file(path, options)))
            << path;
        EXPECT_EQ(stguard_test::describe(parser.parse_file(path, options)),
                  stguard_test::describe(stguard::parse_file(path, options)))
            << path;
      }
    }
  }
}

TEST(KeptParser, HoldsScratchUntilReleasedOrMoved) {
  const std::vector<std::uint8_t> file = stguard_test::checkpoint(3000, Order::kShuffled);
  const std::span<const std::uint8_t> bytes(file);
  stguard::Parser parser;
  EXPECT_EQ(parser.scratch_bytes(), 0u);
  ASSERT_TRUE(parser.validate_header(bytes, file.size()));
  // At least a 40-byte record per tensor is kept.
  EXPECT_GE(parser.scratch_bytes(), 3000u * 40u);
  parser.release();
  EXPECT_EQ(parser.scratch_bytes(), 0u);
  const std::string want = one_shot(file, {});
  EXPECT_EQ(kept(parser, file, {}), want);
  stguard::Parser moved = std::move(parser);
  EXPECT_GT(moved.scratch_bytes(), 0u);
  EXPECT_EQ(kept(moved, file, {}), want);
  EXPECT_EQ(kept(parser, file, {}), want);  // NOLINT(bugprone-use-after-move): usable again
}

}  // namespace
