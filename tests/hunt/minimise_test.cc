// tests/hunt/minimise_test.cc: delta debugging (conformance/hunt/minimise.h), with
// stguard itself as the test: deterministic, budgeted, and small results.
#include "conformance/hunt/minimise.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stguard/stguard.h"
#include "tests/support/file_builder.h"

namespace {

using stguard_test::FileBuilder;

// Strict rejects with `reason`.
stguard::hunt::StillHolds rejected_for(stguard::Reason reason, std::size_t* calls) {
  return [reason, calls](std::span<const std::uint8_t> bytes) {
    ++*calls;
    const stguard::Result<stguard::Header> r = stguard::parse(bytes);
    return !r && r.error().reason == reason;
  };
}

// Four tensors, metadata, padding, and an overlap between a and b, which
// the sorted walk meets before anything that dropping c or d leaves behind.
// (Deletion alone cannot renumber offsets: with the overlap after other
// tensors, dropping them would open a gap first, a different signature.)
std::vector<std::uint8_t> overlapping_file() {
  return FileBuilder(R"({"__metadata__":{"format":"pt","note":"a longer value to drop"},)"
                     R"("c":{"dtype":"I32","shape":[4],"data_offsets":[8,24]},)"
                     R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                     R"("d":{"dtype":"U8","shape":[16],"data_offsets":[24,40]},)"
                     R"("b":{"dtype":"I16","shape":[2],"data_offsets":[4,8]}}    )")
      .data_size(40)
      .build();
}

TEST(HuntMinimise, TokensGiveTheHeaderBack) {
  const std::string header = R"( {"a" :{"s\"q":[1, 2e3,true]},"u":"unterminated)";
  const std::vector<std::string> tokens = stguard::hunt::header_tokens(header);
  std::string joined;
  for (const std::string& t : tokens) joined += t;
  EXPECT_EQ(joined, header);
  EXPECT_EQ(tokens[0], " ");
  EXPECT_EQ(tokens[1], "{");
  EXPECT_EQ(tokens[2], "\"a\"");
  EXPECT_EQ(tokens[3], " ");
  EXPECT_EQ(tokens[5], "{");
  EXPECT_EQ(tokens[6], "\"s\\\"q\"");
  EXPECT_EQ(tokens.back(), "\"unterminated");
}

TEST(HuntMinimise, ShrinksAnOverlapToTheTwoTensorsThatOverlap) {
  const std::vector<std::uint8_t> file = overlapping_file();
  std::size_t calls = 0;
  std::size_t tests = 0;
  const std::vector<std::uint8_t> small = stguard::hunt::minimise(
      file, rejected_for(stguard::Reason::kOffsetOverlap, &calls), {.max_tests = 2000}, &tests);
  EXPECT_EQ(calls, tests);
  const stguard::Result<stguard::Header> r = stguard::parse(small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, stguard::Reason::kOffsetOverlap);
  EXPECT_LT(small.size(), file.size() / 2);
  const std::string header(
      small.begin() + 8,
      small.begin() + 8 + static_cast<std::ptrdiff_t>(stguard_test::load_u64_le(small)));
  EXPECT_EQ(header.find("__metadata__"), std::string::npos) << header;
  EXPECT_EQ(header.find("\"c\""), std::string::npos) << header;
  EXPECT_EQ(header.find("\"d\""), std::string::npos) << header;
  EXPECT_EQ(header.find("    "), std::string::npos) << header;
}

TEST(HuntMinimise, IsDeterministic) {
  const std::vector<std::uint8_t> file = overlapping_file();
  std::size_t calls = 0;
  const auto holds = rejected_for(stguard::Reason::kOffsetOverlap, &calls);
  EXPECT_EQ(stguard::hunt::minimise(file, holds, {}), stguard::hunt::minimise(file, holds, {}));
}

TEST(HuntMinimise, StaysWithinItsBudget) {
  const std::vector<std::uint8_t> file = overlapping_file();
  std::size_t calls = 0;
  std::size_t tests = 0;
  const std::vector<std::uint8_t> small = stguard::hunt::minimise(
      file, rejected_for(stguard::Reason::kOffsetOverlap, &calls), {.max_tests = 5}, &tests);
  EXPECT_EQ(calls, 5u);
  EXPECT_EQ(tests, 5u);
  const stguard::Result<stguard::Header> r = stguard::parse(small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, stguard::Reason::kOffsetOverlap);
}

TEST(HuntMinimise, NeverKeepsAnEditTheTestRefuses) {
  const std::vector<std::uint8_t> file = overlapping_file();
  const std::vector<std::uint8_t> same =
      stguard::hunt::minimise(file, [](std::span<const std::uint8_t>) { return false; }, {});
  EXPECT_EQ(same, file);
}

TEST(HuntMinimise, AFileWithABadPrefixShrinksByteWise) {
  // 8 + N past the end: no header to take apart.
  std::vector<std::uint8_t> file = stguard_test::u64_le(1000);
  file.resize(64, 'x');
  std::size_t calls = 0;
  const std::vector<std::uint8_t> small = stguard::hunt::minimise(
      file, rejected_for(stguard::Reason::kHeaderLengthExceedsFile, &calls), {});
  EXPECT_LE(small.size(), 9u);
  const stguard::Result<stguard::Header> r = stguard::parse(small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, stguard::Reason::kHeaderLengthExceedsFile);
}

}  // namespace
