// tests/hunt/mutate_test.cc: the generator and mutator shared by the fuzz
// harnesses and the hunt (conformance/mutate/): deterministic, and they keep the length
// prefix in step with the header.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "conformance/mutate/structured.h"
#include "conformance/mutate/token_mutator.h"
#include "stguard/stguard.h"
#include "tests/support/file_builder.h"

namespace {

std::vector<std::uint8_t> choices(std::uint8_t seed, std::size_t size) {
  std::vector<std::uint8_t> out(size);
  std::uint32_t x = seed * 2654435761u + 1;
  for (std::uint8_t& b : out) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

TEST(HuntMutate, StructuredFilesAreDeterministicAndConsistent) {
  int fault_free = 0;
  for (std::uint8_t seed = 0; seed < 64; ++seed) {
    const std::vector<std::uint8_t> input = choices(seed, 300);
    const stguard::mutate::StructuredFile a = stguard::mutate::generate_structured(input);
    const stguard::mutate::StructuredFile b = stguard::mutate::generate_structured(input);
    EXPECT_EQ(a.bytes, b.bytes);
    ASSERT_GE(a.bytes.size(), 8u);
    EXPECT_EQ(stguard_test::load_u64_le(a.bytes), a.header_json.size());
    EXPECT_EQ(a.bytes.size(), 8 + a.header_json.size() + a.data_len);
    if (a.plan.strict_fault || a.plan.reference_fault || a.plan.unknown) continue;
    ++fault_free;
    const stguard::Result<stguard::Header> parsed = stguard::parse(a.bytes);
    ASSERT_TRUE(parsed) << a.header_json;
    EXPECT_EQ(parsed->tensors.size(), a.tensors.size());
  }
  EXPECT_GT(fault_free, 0);
}

TEST(HuntMutate, TokenMutationsAreDeterministicAndKeepThePrefixInStep) {
  const std::vector<std::uint8_t> file =
      stguard_test::FileBuilder(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})")
          .data_size(12)
          .build();
  int changed = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    const std::vector<std::uint8_t> a = stguard::mutate::mutate_copy(file, seed);
    EXPECT_EQ(a, stguard::mutate::mutate_copy(file, seed));
    ASSERT_GE(a.size(), 8u);
    EXPECT_LE(stguard_test::load_u64_le(a), a.size() - 8);
    EXPECT_LE(a.size(), file.size() + 64);
    if (a != file) ++changed;
  }
  EXPECT_GT(changed, 150);
}

TEST(HuntMutate, LayoutEditsMakeOverlapsWithMatchingSizes) {
  const std::vector<std::uint8_t> file =
      stguard_test::FileBuilder(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})")
          .data_size(12)
          .build();
  int overlaps = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    const std::vector<std::uint8_t> a = stguard::mutate::mutate_layout(file, seed);
    EXPECT_EQ(a, stguard::mutate::mutate_layout(file, seed));
    ASSERT_GE(a.size(), 8u);
    EXPECT_EQ(stguard_test::load_u64_le(a), a.size() - 8 - 12);
    const stguard::Result<stguard::Header> r = stguard::parse(a);
    if (!r && r.error().reason == stguard::Reason::kOffsetOverlap) ++overlaps;
  }
  EXPECT_GT(overlaps, 20);
}

}  // namespace
