// The SIMD kernels (parser/src/kernels/) against plain byte-at-a-time
// definitions, on every path this CPU has: each planted byte at every
// position of buffers of every length up to a few vectors, at every
// alignment, and buffers that end at an unreadable page, so that a kernel
// reading one byte too far faults. The path choice (stguard/simd.h) is
// checked too. A path the CPU lacks is skipped, never run.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "parser/src/json_lexer.h"
#include "parser/src/kernels/kernels.h"
#include "stguard/simd.h"

namespace {

using stguard::SimdPath;
using stguard::detail::Kernels;
using stguard::detail::kernels_for;

// The definitions the kernels must agree with, byte by byte.
std::size_t naive_invalid_utf8(const std::uint8_t* data, std::size_t size) {
  std::size_t i = 0;
  while (i < size) {
    const std::uint8_t lead = data[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t need = 0;
    std::uint32_t min = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      need = 1, min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      need = 2, min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      need = 3, min = 0x10000;
    } else {
      return i;
    }
    if (size - i <= need) return i;
    std::uint32_t cp = lead & (0x3F >> need);
    for (std::size_t k = 1; k <= need; ++k) {
      if ((data[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (data[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += need + 1;
  }
  return size;
}

std::size_t naive_string_stop(const std::uint8_t* p, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    if (p[i] == '"' || p[i] == '\\' || p[i] < 0x20) return i;
  }
  return size;
}

std::size_t naive_ascii_string_stop(const std::uint8_t* p, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    if (p[i] == '"' || p[i] == '\\' || p[i] < 0x20 || p[i] >= 0x80) return i;
  }
  return size;
}

std::size_t string_stop(const Kernels& k, const std::uint8_t* p, std::size_t size) {
  const std::uint8_t* stop = k.find_string_stop != nullptr
                                 ? k.find_string_stop(p, p + size)
                                 : stguard::detail::find_string_stop_baseline(p, p + size);
  return static_cast<std::size_t>(stop - p);
}

std::size_t ascii_string_stop(const Kernels& k, const std::uint8_t* p, std::size_t size) {
  const std::uint8_t* stop = k.find_ascii_string_stop != nullptr
                                 ? k.find_ascii_string_stop(p, p + size)
                                 : stguard::detail::find_ascii_string_stop_baseline(p, p + size);
  return static_cast<std::size_t>(stop - p);
}

// Every supported path, with the kernels it runs.
std::vector<const Kernels*> every_path() {
  std::vector<const Kernels*> out;
  for (SimdPath path : stguard::supported_simd_paths()) out.push_back(&kernels_for(path));
  return out;
}

// Byte sequences to plant in ASCII filler: valid and invalid UTF-8, stops
// and bytes next to the stop boundaries.
const std::vector<std::vector<std::uint8_t>>& plants() {
  static const std::vector<std::vector<std::uint8_t>> kPlants = {{0x80},
                                                                 {0xFF},
                                                                 {0xC0, 0x80},
                                                                 {0xC2, 0x80},
                                                                 {0xDF, 0xBF},
                                                                 {0xE0, 0x9F, 0x80},
                                                                 {0xE0, 0xA0, 0x80},
                                                                 {0xED, 0xA0, 0x80},
                                                                 {0xED, 0x9F, 0xBF},
                                                                 {0xEF, 0xBF, 0xBF},
                                                                 {0xF0, 0x8F, 0xBF, 0xBF},
                                                                 {0xF0, 0x90, 0x80, 0x80},
                                                                 {0xF4, 0x8F, 0xBF, 0xBF},
                                                                 {0xF4, 0x90, 0x80, 0x80},
                                                                 {0xF5, 0x80, 0x80, 0x80},
                                                                 {0xE2, 0x82},
                                                                 {'"'},
                                                                 {'\\'},
                                                                 {0x00},
                                                                 {0x1F},
                                                                 {0x20},
                                                                 {0x7F},
                                                                 {'!'}};
  return kPlants;
}

// Every size up to two 64-byte vectors, and sizes around the block lengths
// of each path (the 128- and 256-byte blocks of the ASCII skip).
std::vector<std::size_t> sizes_to_try() {
  std::vector<std::size_t> sizes;
  for (std::size_t size = 0; size <= 130; ++size) sizes.push_back(size);
  for (std::size_t size :
       {191U, 192U, 193U, 255U, 256U, 257U, 319U, 320U, 321U, 511U, 512U, 513U, 600U}) {
    sizes.push_back(size);
  }
  return sizes;
}

TEST(SimdKernels, EveryPathAgreesWithTheDefinitionsOnPlantedBytes) {
  const std::vector<const Kernels*> paths = every_path();
  std::vector<std::uint8_t> buffer(600 + 64);
  for (std::size_t size : sizes_to_try()) {
    for (std::size_t align : {0U, 1U, 35U}) {  // the vectors' loads need no alignment
      std::uint8_t* data = buffer.data() + align;
      for (const auto& plant : plants()) {
        for (std::size_t at = 0; at < size; ++at) {
          // Every position in short buffers; in long ones every third and
          // the last few (where the tails are).
          if (size > 70 && at % 3 != 0 && at + 8 < size) continue;
          std::memset(data, 'a', size);
          std::memcpy(data + at, plant.data(), std::min(plant.size(), size - at));
          const std::size_t want_utf8 = naive_invalid_utf8(data, size);
          const std::size_t want_stop = naive_string_stop(data, size);
          const std::size_t want_ascii_stop = naive_ascii_string_stop(data, size);
          for (const Kernels* k : paths) {
            ASSERT_EQ(k->find_invalid_utf8(data, size), want_utf8)
                << simd_path_name(k->path) << " size " << size << " at " << at << " plant "
                << int{plant[0]};
            ASSERT_EQ(string_stop(*k, data, size), want_stop)
                << simd_path_name(k->path) << " size " << size << " at " << at << " plant "
                << int{plant[0]};
            ASSERT_EQ(ascii_string_stop(*k, data, size), want_ascii_stop)
                << simd_path_name(k->path) << " size " << size << " at " << at << " plant "
                << int{plant[0]};
          }
        }
      }
    }
  }
}

TEST(SimdKernels, EveryPathAgreesOnRandomBytes) {
  const std::vector<const Kernels*> paths = every_path();
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  std::vector<std::uint8_t> data(2048);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t size = next() % data.size();
    // Mostly ASCII, as headers are, with a few high and control bytes.
    for (std::size_t i = 0; i < size; ++i) {
      const std::uint64_t r = next();
      data[i] = static_cast<std::uint8_t>(r % 64 == 0 ? r >> 8 : 'a' + r % 26);
    }
    for (const Kernels* k : paths) {
      ASSERT_EQ(k->find_invalid_utf8(data.data(), size), naive_invalid_utf8(data.data(), size))
          << simd_path_name(k->path) << " round " << round;
      ASSERT_EQ(string_stop(*k, data.data(), size), naive_string_stop(data.data(), size))
          << simd_path_name(k->path) << " round " << round;
      ASSERT_EQ(ascii_string_stop(*k, data.data(), size),
                naive_ascii_string_stop(data.data(), size))
          << simd_path_name(k->path) << " round " << round;
    }
  }
}

// Buffers whose last byte is the last readable byte of a page: a kernel that
// loads past the end of its input faults here.
TEST(SimdKernels, NoPathReadsPastTheEnd) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapped =
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* base = static_cast<std::uint8_t*>(mapped);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  std::memset(base, 'a', page);
  std::uint8_t* const end = base + page;
  for (const Kernels* k : every_path()) {
    for (std::size_t size = 0; size <= 300; ++size) {
      EXPECT_EQ(k->find_invalid_utf8(end - size, size), size) << simd_path_name(k->path);
      EXPECT_EQ(string_stop(*k, end - size, size), size) << simd_path_name(k->path);
      EXPECT_EQ(ascii_string_stop(*k, end - size, size), size) << simd_path_name(k->path);
    }
  }
  munmap(mapped, 2 * page);
}

TEST(SimdPaths, ForcingAPathRunsThatPath) {
  EXPECT_EQ(stguard::simd_path_in_use(SimdPath::kBaseline), SimdPath::kBaseline);
  EXPECT_EQ(kernels_for(SimdPath::kBaseline).path, SimdPath::kBaseline);
  ASSERT_FALSE(stguard::supported_simd_paths().empty());
  EXPECT_EQ(stguard::supported_simd_paths().front(), SimdPath::kBaseline);
  for (SimdPath path : stguard::supported_simd_paths()) {
    EXPECT_TRUE(stguard::simd_path_supported(path));
    EXPECT_EQ(stguard::simd_path_in_use(path), path);
    EXPECT_EQ(kernels_for(path).path, path);
  }
  // A path the CPU lacks runs the best one below it.
  for (SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512}) {
    if (stguard::simd_path_supported(path)) continue;
    EXPECT_LT(stguard::simd_path_in_use(path), path);
  }
  EXPECT_NE(stguard::simd_path_in_use(SimdPath::kAuto), SimdPath::kAuto);
}

TEST(SimdPaths, NamesRoundTrip) {
  for (SimdPath path : {SimdPath::kAuto, SimdPath::kBaseline, SimdPath::kAvx2, SimdPath::kAvx512}) {
    EXPECT_EQ(stguard::simd_path_from_name(stguard::simd_path_name(path)), path);
  }
  EXPECT_EQ(stguard::simd_path_from_name("sse2"), std::nullopt);
  EXPECT_EQ(stguard::simd_path_from_name("AVX2"), std::nullopt);
  EXPECT_EQ(stguard::simd_path_from_name(""), std::nullopt);
}

// The compact-entry reader's compare of an entry's text with the previous
// entry's (json_lexer.h): every length it takes, with one differing byte at
// every position or none.
TEST(InlineHelpers, SameLeadingBytesIsMemcmp) {
  std::uint8_t a[32];
  for (std::size_t i = 0; i < sizeof a; ++i) a[i] = static_cast<std::uint8_t>('0' + i);
  for (std::size_t differs = 0; differs <= sizeof a; ++differs) {  // sizeof a: none
    std::uint8_t b[32];
    std::memcpy(b, a, sizeof b);
    if (differs < sizeof b) b[differs] ^= 0x01;
    for (std::size_t n = 0; n <= 32; ++n) {
      EXPECT_EQ(stguard::detail::same_leading_bytes(a, b, n), std::memcmp(a, b, n) == 0)
          << "n " << n << ", byte " << differs << " differs";
    }
  }
}

// The compact-entry reader's read of `begin,end]` (json_lexer.h) against
// two read_plain_u64 reads, its definition: on pairs of every length from 0
// to 20 digits, with leading zeros, other separators and closers, any byte
// put in their place, and random bytes after, it gives their values and
// their ']' when both numbers have at most 16 digits and the ']' is among
// the 32 bytes it looks at, and declines everything else.
TEST(InlineHelpers, OffsetPairAgreesWithTwoPlainReads) {
#if !defined(__SSE2__)
  GTEST_SKIP() << "without SSE2 read_offset_pair declines every pair";
#endif
  std::mt19937_64 random(20261207);
  const char separators[] = {',', ',', ',', ']', ' ', '.', 'e', '-'};
  const char closers[] = {']', ']', ']', ',', '}', ' ', '0'};
  int accepted = 0;
  for (int round = 0; round < 200'000; ++round) {
    // 16 bytes before the text, which read_offset_pair may read: random,
    // digits among them, which must not count.
    std::vector<std::uint8_t> buffer(16 + stguard::detail::kOffsetPairBytes + 24);
    for (std::uint8_t& b : buffer) b = static_cast<std::uint8_t>(random());
    if (random() % 2 == 0) {
      for (std::size_t i = 0; i < 16; ++i)
        buffer[i] = static_cast<std::uint8_t>('0' + random() % 10);
    }
    const std::span<std::uint8_t> bytes = std::span(buffer).subspan(16);
    auto digits = [&](std::size_t at, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) {
        bytes[at + i] = static_cast<std::uint8_t>('0' + random() % 10);
      }
      if (count > 0 && random() % 4 == 0) bytes[at] = static_cast<std::uint8_t>('1' + random() % 9);
    };
    const std::size_t first_len = random() % 21;
    const std::size_t second_len = random() % 21;
    if (first_len + second_len + 2 > 32) continue;  // the pair reads 32 bytes
    digits(0, first_len);
    bytes[first_len] = static_cast<std::uint8_t>(separators[random() % sizeof separators]);
    digits(first_len + 1, second_len);
    bytes[first_len + 1 + second_len] =
        static_cast<std::uint8_t>(closers[random() % sizeof closers]);
    // One byte in four texts replaced by any byte, digits included.
    if (random() % 4 == 0) {
      bytes[random() % (first_len + second_len + 2)] = static_cast<std::uint8_t>(random());
    }

    std::uint64_t first_expected = 0;
    std::uint64_t second_expected = 0;
    const std::uint8_t* p = bytes.data();
    const std::uint8_t* comma = stguard::detail::read_plain_u64(p, first_expected);
    const std::uint8_t* close = nullptr;
    if (comma != nullptr && *comma == ',') {
      close = stguard::detail::read_plain_u64(comma + 1, second_expected);
    }
    // (The pair looks at 32 bytes: a ']' past them, after a closer that
    // happened to be a digit, is read_plain_u64's to find.)
    const bool expected = close != nullptr && *close == ']' && comma - p <= 16 &&
                          close - (comma + 1) <= 16 && close - p < 32;

    std::uint64_t first = 0;
    std::uint64_t second = 0;
    const std::uint8_t* second_at = nullptr;
    const std::uint8_t* got = stguard::detail::read_offset_pair(p, first, second, second_at);
    const std::string text(reinterpret_cast<const char*>(p), first_len + second_len + 2);
    if (!expected) {
      EXPECT_EQ(got, nullptr) << text;
      continue;
    }
    ++accepted;
    ASSERT_EQ(got, close) << text;
    EXPECT_EQ(first, first_expected) << text;
    EXPECT_EQ(second, second_expected) << text;
    EXPECT_EQ(second_at, comma + 1) << text;
  }
  EXPECT_GT(accepted, 10'000);  // the common form was met, not only refusals
}

}  // namespace
