// tests/hunt/choice_reader_fdp_test.cc: ChoiceReader
// (conformance/mutate/choice_reader.h) reads any byte string exactly as
// libFuzzer's FuzzedDataProvider does, call for call, for every call the
// generator makes: fuzz inputs, fuzz regressions and `stguard hunt` seeds
// were all written for FuzzedDataProvider's reading, and must keep making
// the same files. Built only where fuzzer/FuzzedDataProvider.h is installed
// (tests/hunt/CMakeLists.txt); the generator itself never needs it.
#include <fuzzer/FuzzedDataProvider.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "conformance/mutate/choice_reader.h"

namespace {

using stguard::mutate::ChoiceReader;

// A range bound of any width, so that ranges needing 0 to 8 bytes all occur.
std::uint64_t any_width(std::mt19937_64& rng) { return rng() >> (rng() % 64); }

// Byte strings rich in backslashes, which is where strings end.
std::vector<std::uint8_t> random_choices(std::mt19937_64& rng) {
  std::vector<std::uint8_t> bytes(rng() % 400);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? '\\' : rng());
  return bytes;
}

// One call of a random kind on both readers, with the same arguments; a
// failure names the string and the call.
void same_call(std::mt19937_64& rng, FuzzedDataProvider& fdp, ChoiceReader& choices) {
  switch (rng() % 11) {
    case 0: {
      const int min = -static_cast<int>(rng() % 1000);
      const int max = min + static_cast<int>(rng() % 2000);
      ASSERT_EQ(fdp.ConsumeIntegralInRange<int>(min, max), choices.integer_in_range(min, max));
      return;
    }
    case 1: {
      const int max = static_cast<int>(rng() % 48);
      ASSERT_EQ(fdp.ConsumeIntegralInRange<int>(0, max), choices.integer_in_range(0, max));
      return;
    }
    case 2: {
      const std::size_t max = static_cast<std::size_t>(any_width(rng));
      ASSERT_EQ(fdp.ConsumeIntegralInRange<std::size_t>(0, max),
                choices.integer_in_range<std::size_t>(0, max));
      return;
    }
    case 3: {
      std::uint64_t a = any_width(rng);
      std::uint64_t b = any_width(rng);
      if (a > b) std::swap(a, b);
      ASSERT_EQ(fdp.ConsumeIntegralInRange<std::uint64_t>(a, b), choices.integer_in_range(a, b));
      return;
    }
    case 4:
      ASSERT_EQ(fdp.ConsumeIntegral<std::uint64_t>(), choices.integer<std::uint64_t>());
      return;
    case 5:
      ASSERT_EQ(fdp.ConsumeIntegral<std::int64_t>(), choices.integer<std::int64_t>());
      return;
    case 6:
      ASSERT_EQ(fdp.ConsumeIntegral<int>(), choices.integer<int>());
      return;
    case 7:
      ASSERT_EQ(fdp.ConsumeIntegral<std::uint8_t>(), choices.integer<std::uint8_t>());
      return;
    case 8:
      ASSERT_EQ(fdp.ConsumeBool(), choices.boolean());
      return;
    default: {
      const std::size_t max = rng() % 24;
      ASSERT_EQ(fdp.ConsumeRandomLengthString(max), choices.string_up_to(max));
      return;
    }
  }
}

TEST(ChoiceReader, ReadsEveryByteStringAsFuzzedDataProviderDoes) {
  std::mt19937_64 rng(20260601);
  std::size_t calls = 0;
  for (int round = 0; round < 5000; ++round) {
    const std::vector<std::uint8_t> bytes = random_choices(rng);
    FuzzedDataProvider fdp(bytes.data(), bytes.size());
    ChoiceReader choices(bytes);
    // Past the end too: both must then give the minimum and empty strings.
    const int count = static_cast<int>(rng() % 120);
    for (int call = 0; call < count; ++call, ++calls) {
      SCOPED_TRACE("round " + std::to_string(round) + ", call " + std::to_string(call));
      same_call(rng, fdp, choices);
      if (HasFatalFailure()) return;
      ASSERT_EQ(fdp.remaining_bytes(), choices.remaining());
    }
    ASSERT_EQ(fdp.ConsumeRemainingBytes<std::uint8_t>(), choices.rest()) << "round " << round;
    ASSERT_EQ(choices.remaining(), 0u);
  }
  EXPECT_GT(calls, 200'000u);
}

}  // namespace
