// Deterministic pseudo-random headers (mostly valid, with random faults) and
// the properties that must hold for every one of them:
//   1. strict accepts => reference accepts, with identical tensors and metadata;
//   2. an accepted header's tensors tile [0, data_len) exactly;
//   3. error offsets lie where their reason class says (length prefix, header
//      text, or data buffer), and parsing is deterministic;
//   4. a strict-accepted file rewritten by the writer parses back the same.
// The files come from tests/support/random_header.h. The same files checked
// against an independent JSON parser: tests/json_oracle_test.cc.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/random_header.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Header;
using stguard::Profile;
using stguard::Reason;

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
  const int iterations = stguard_test::Iterations();
  stguard_test::Rng rng(stguard_test::Seed());
  stguard_test::HeaderGenerator gen(rng);
  int strict_accepts = 0, reference_only = 0, both_reject = 0;
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

    // 3. determinism and offsets.
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

    // 4. writer round trip of strict-accepted files.
    if (strict) {
      std::vector<stguard::TensorToWrite> to_write;
      for (const auto& t : strict->tensors) {
        to_write.push_back({std::string(t.name), t.dtype, t.shape.to_vector(),
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
  std::printf("strict accepts %d, reference-only accepts %d, both reject %d\n", strict_accepts,
              reference_only, both_reject);
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
