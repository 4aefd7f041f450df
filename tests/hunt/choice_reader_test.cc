// tests/hunt/choice_reader_test.cc: how ChoiceReader
// (conformance/mutate/choice_reader.h) reads choices, on worked examples.
// choice_reader_fdp_test.cc checks it against libFuzzer's FuzzedDataProvider
// itself where that header is installed.
#include "conformance/mutate/choice_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

using stguard::mutate::ChoiceReader;

TEST(ChoiceReader, IntegersComeFromTheEndAsManyBytesAsTheRangeNeeds) {
  const std::vector<std::uint8_t> bytes = {0x10, 0x01, 0x02, 0x03};
  ChoiceReader choices(bytes);
  // Range 1000 needs two bytes: 0x03 then 0x02, the first read the most
  // significant: 0x0302 = 770, and 770 % 1001 = 770.
  EXPECT_EQ(choices.integer_in_range<int>(0, 1000), 770);
  // Range 5 needs one byte: 0x01 % 6 = 1, shifted by the minimum.
  EXPECT_EQ(choices.integer_in_range<int>(-3, 2), -2);
  EXPECT_EQ(choices.remaining(), 1u);
  // An empty range reads nothing.
  EXPECT_EQ(choices.integer_in_range<int>(7, 7), 7);
  EXPECT_EQ(choices.remaining(), 1u);
  EXPECT_EQ(choices.integer_in_range<std::uint64_t>(0, 9), 0x10u % 10);
  // With nothing left an integer is the minimum.
  EXPECT_EQ(choices.integer_in_range<int>(4, 9), 4);
  EXPECT_FALSE(choices.boolean());
}

TEST(ChoiceReader, TheWhole64BitRangeIsTakenAsRead) {
  const std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  ChoiceReader choices(bytes);
  EXPECT_EQ(choices.integer<std::uint64_t>(), 0x0908070605040302u);
  EXPECT_EQ(choices.remaining(), 1u);
  // A boolean is the low bit of one byte.
  EXPECT_TRUE(choices.boolean());
}

TEST(ChoiceReader, StringsEndAtABackslashAndAnotherByte) {
  const std::vector<std::uint8_t> bytes = {'a', '\\', '\\', 'b', '\\', 'x', 'c', 'd', 'e', 0xff};
  ChoiceReader choices(bytes);
  EXPECT_EQ(choices.string_up_to(20), "a\\b");  // "\\\\" is one backslash; "\\x" ends it
  EXPECT_EQ(choices.string_up_to(2), "cd");     // at most max_length characters
  EXPECT_EQ(choices.integer<std::uint8_t>(), 0xff);
  EXPECT_EQ(choices.rest(), (std::vector<std::uint8_t>{'e'}));
  EXPECT_EQ(choices.remaining(), 0u);
  EXPECT_EQ(choices.string_up_to(5), "");
}

TEST(ChoiceReader, ALoneBackslashAtTheEndIsKept) {
  const std::vector<std::uint8_t> bytes = {'z', '\\'};
  ChoiceReader choices(bytes);
  EXPECT_EQ(choices.string_up_to(5), "z\\");
}

}  // namespace
