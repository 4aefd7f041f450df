// tests/parser/layout_sort_test.cc: the layout check of a header out of
// offset order (its proof without a sort, its packed sort, or std::sort of
// its spans) agrees with the same tensors listed in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "stguard/header.h"

namespace {

// A header of U8 tensors with the given spans, listed in `order` (an index
// into `spans` each), and data_len bytes of data. Returns the bytes (prefix
// and header) and the file size.
std::pair<std::vector<std::uint8_t>, std::uint64_t> u8_spans_header(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans,
    const std::vector<std::size_t>& order, std::uint64_t data_len) {
  std::string json = "{";
  for (const std::size_t i : order) {
    const auto [begin, end] = spans[i];
    if (json.size() > 1) json += ',';
    json += "\"t" + std::to_string(i) + R"(":{"dtype":"U8","shape":[)" +
            std::to_string(end - begin) + R"(],"data_offsets":[)" + std::to_string(begin) + "," +
            std::to_string(end) + "]}";
  }
  json += '}';
  std::vector<std::uint8_t> bytes(8);
  for (std::size_t b = 0; b < 8; ++b) bytes[b] = static_cast<std::uint8_t>(json.size() >> (8 * b));
  bytes.insert(bytes.end(), json.begin(), json.end());
  return {bytes, bytes.size() + data_len};
}

// A header of U8 tensors listed in `order`, data laid out in index order
// with the given sizes; `shift` moves tensor `moved`'s offsets (a gap or an
// overlap). Returns the bytes (prefix and header) and the file size.
std::pair<std::vector<std::uint8_t>, std::uint64_t> u8_header(
    const std::vector<std::uint64_t>& sizes, const std::vector<std::size_t>& order,
    std::size_t moved, std::int64_t shift) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans(sizes.size());
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t begin = offset + static_cast<std::uint64_t>(i == moved ? shift : 0);
    spans[i] = {begin, begin + sizes[i]};
    offset += sizes[i];
  }
  return u8_spans_header(spans, order, offset);
}

// The layout check gives the same verdict, reason, offset and message for a
// header listed out of offset order as for the same tensors listed in it,
// whether the sort packs begin and index into one word (offsets that differ
// in few bits) or cannot (a first tensor of one byte makes every bit of
// offsets near 2^62 differ).
TEST(LayoutSort, OutOfOrderHeadersAgreeWithTheirSortedListing) {
  for (const bool packable : {true, false}) {
    std::vector<std::uint64_t> sizes;
    if (!packable) sizes.push_back(1);
    std::mt19937_64 rng(packable ? 1 : 2);
    while (sizes.size() < 3000) {
      // Some empty tensors: runs of equal begins.
      sizes.push_back(rng() % 10 == 0 ? 0 : std::uint64_t{1} << 51);
    }
    std::vector<std::size_t> sorted(sizes.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
    std::vector<std::size_t> shuffled = sorted;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    // Moved by half a tensor, offsets stay multiples of 2^50 (packable), and
    // no two spans are equal (equal spans are ordered by their listing).
    const std::int64_t step = packable ? std::int64_t{1} << 50 : 1;
    for (const std::int64_t shift : {std::int64_t{0}, step, -step}) {
      SCOPED_TRACE(testing::Message()
                   << (packable ? "packable" : "not packable") << ", shift " << shift);
      const auto in_order = u8_header(sizes, sorted, 1500, shift);
      const auto out_of_order = u8_header(sizes, shuffled, 1500, shift);
      const auto expected = stguard::validate_header(in_order.first, in_order.second);
      const auto got = stguard::validate_header(out_of_order.first, out_of_order.second);
      ASSERT_EQ(got.has_value(), expected.has_value());
      if (shift == 0) {
        EXPECT_TRUE(got.has_value()) << got.error().to_string();
      } else {
        EXPECT_EQ(got.error().reason, expected.error().reason);
        EXPECT_EQ(got.error().offset, expected.error().offset);
        EXPECT_EQ(got.error().message, expected.error().message);
      }
    }
  }
}

// Tensors out of offset order are accepted without a sort when a table of
// their begins proves the layout exact (layout.cc, tiles_exactly). That
// proof must accept exactly what the walk in sorted order accepts: every
// near miss below (a repeated span, a tensor moved by a byte, two tensors
// ending at the same byte or at the end, an empty tensor inside another or
// at the end, data one byte longer or shorter, only empty tensors) gives the
// same verdict, reason, offset and message listed at random as listed in
// offset order.
TEST(LayoutSort, ProofWithoutASortAgreesWithTheWalkOnNearMisses) {
  std::mt19937_64 rng(37);
  enum Change {
    kNone,
    kRepeatASpan,
    kMoveByAByte,
    kStretchToTheNextEnd,
    kEmptyInsideATensor,
    kEmptyAtTheEnd,
    kOneByteMore,
    kOneByteLess,
    kTwoEndAtTheEnd,
    kAllEmpty,
    kChanges
  };
  int accepted = 0;
  int rejected = 0;
  for (int round = 0; round < 4000; ++round) {
    const auto change = static_cast<Change>(round % kChanges);
    const std::size_t non_empty = 1 + rng() % (round % 50 == 0 ? 3000 : 40);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    std::uint64_t data_len = 0;
    for (std::size_t i = 0; i < non_empty; ++i) {
      if (rng() % 6 == 0) spans.emplace_back(data_len, data_len);  // empty, at a boundary
      const std::uint64_t size = change == kAllEmpty ? 0 : 1 + rng() % 5;
      spans.emplace_back(data_len, data_len + size);
      data_len += size;
    }
    const std::size_t pick = rng() % spans.size();
    switch (change) {
      case kNone:
        break;
      case kAllEmpty:
        // Empty tensors at 0 and 1 only, with 0 or 1 bytes of data.
        data_len = static_cast<std::uint64_t>(round % 2);
        for (auto& span : spans) span.first = span.second = rng() % 2;
        break;
      case kRepeatASpan:
        spans.push_back(spans[pick]);
        break;
      case kMoveByAByte:
        spans[pick] = {spans[pick].first + 1, spans[pick].second + 1};
        break;
      case kStretchToTheNextEnd:
        if (pick + 1 < spans.size()) spans[pick].second = spans[pick + 1].second;
        break;
      case kEmptyInsideATensor:
        if (spans[pick].second - spans[pick].first >= 2) {
          spans.emplace_back(spans[pick].first + 1, spans[pick].first + 1);
        }
        break;
      case kEmptyAtTheEnd:
        spans.emplace_back(data_len, data_len);
        break;
      case kOneByteMore:
        ++data_len;
        break;
      case kOneByteLess:
        if (data_len > 0) --data_len;
        break;
      case kTwoEndAtTheEnd:
        if (data_len >= 2) spans.emplace_back(data_len - 1, data_len);
        break;
      case kChanges:
        break;
    }
    std::vector<std::size_t> sorted(spans.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
    std::sort(sorted.begin(), sorted.end(),
              [&](std::size_t a, std::size_t b) { return spans[a] < spans[b]; });
    std::vector<std::size_t> shuffled = sorted;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    SCOPED_TRACE(testing::Message() << "round " << round << ", change " << change << ", "
                                    << spans.size() << " tensors, " << data_len << " bytes");
    const auto in_order = u8_spans_header(spans, sorted, data_len);
    const auto out_of_order = u8_spans_header(spans, shuffled, data_len);
    const auto expected = stguard::validate_header(in_order.first, in_order.second);
    const auto got = stguard::validate_header(out_of_order.first, out_of_order.second);
    ASSERT_EQ(got.has_value(), expected.has_value())
        << (expected ? got.error().to_string() : expected.error().to_string());
    if (expected) {
      ++accepted;
      continue;
    }
    ++rejected;
    EXPECT_EQ(got.error().reason, expected.error().reason);
    EXPECT_EQ(got.error().offset, expected.error().offset);
    // Of two equal spans, the message names the one listed second.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> distinct = spans;
    std::sort(distinct.begin(), distinct.end());
    if (std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end()) {
      EXPECT_EQ(got.error().message, expected.error().message);
    }
  }
  // Both verdicts were met often, so neither side of the proof went untried.
  EXPECT_GT(accepted, 800);
  EXPECT_GT(rejected, 2000);
}

}  // namespace
