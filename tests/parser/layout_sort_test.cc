// tests/parser/layout_sort_test.cc: the layout walk's sort (parser/src/layout.h,
// sort_spans) gives exactly std::sort's order on every kind of input it can
// meet: above and below the size where it switches to radix passes, offsets
// near 2^64, many equal begins (empty tensors, overlaps), and the document
// order as the last tie-breaker.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "parser/src/layout.h"

namespace {

using stguard::detail::Span;

std::vector<Span> random_spans(std::size_t count, std::uint64_t begin_range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Span> spans;
  spans.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t begin = begin_range == 0 ? rng() : rng() % begin_range;
    const std::uint64_t end = rng() % 4 == 0 ? begin : begin + rng() % 1000;
    spans.push_back(Span{begin, end, static_cast<std::uint32_t>(i)});
  }
  return spans;
}

void expect_std_sort_order(std::vector<Span> spans) {
  std::vector<Span> expected = spans;
  std::sort(expected.begin(), expected.end());
  stguard::detail::sort_spans(spans);
  ASSERT_EQ(spans.size(), expected.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    ASSERT_EQ(spans[i].begin, expected[i].begin) << "at " << i;
    ASSERT_EQ(spans[i].end, expected[i].end) << "at " << i;
    ASSERT_EQ(spans[i].index, expected[i].index) << "at " << i;
  }
}

TEST(LayoutSort, MatchesStdSortOnEveryShapeOfInput) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2047},
                                  std::size_t{2048}, std::size_t{5000}, std::size_t{70000}}) {
    for (const std::uint64_t range : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7},
                                      std::uint64_t{4096}, std::uint64_t{1} << 40}) {
      SCOPED_TRACE(testing::Message() << count << " spans, begins below " << range);
      expect_std_sort_order(random_spans(count, range, count * 31 + range));
    }
  }
}

TEST(LayoutSort, OffsetsAtTheTopOfTheRange) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::vector<Span> spans;
  for (std::uint32_t i = 0; i < 4000; ++i) {
    const std::uint64_t begin = kMax - (i * 2654435761u) % 3000;
    spans.push_back(Span{begin, kMax - (i % 5), i});
  }
  expect_std_sort_order(spans);
}

// Begins that share their low and high bits, as real offsets do: the radix
// passes cover only the bits between, and must still give std::sort's order.
TEST(LayoutSort, BeginsSharingTheirLowAndHighBits) {
  for (const unsigned low : {0u, 1u, 13u, 20u, 40u}) {
    std::mt19937_64 rng(low);
    std::vector<Span> spans;
    for (std::uint32_t i = 0; i < 6000; ++i) {
      const std::uint64_t begin = (std::uint64_t{1} << 62) | ((rng() % 50000) << low);
      spans.push_back(Span{begin, begin + (rng() % 3), i});
    }
    SCOPED_TRACE(testing::Message() << "begins multiples of 2^" << low);
    expect_std_sort_order(spans);
  }
}

TEST(LayoutSort, ContiguousTensorsListedInReverse) {
  std::vector<Span> spans;
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const std::uint64_t begin = std::uint64_t{10000 - 1 - i} * 16;
    spans.push_back(Span{begin, begin + 16, i});
  }
  expect_std_sort_order(spans);
}

}  // namespace
