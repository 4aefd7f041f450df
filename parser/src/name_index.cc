#include "name_index.h"

#include <sys/random.h>
#include <sys/types.h>

#include <chrono>
#include <random>

#include "little_endian.h"

namespace stguard::detail {
namespace {

std::uint64_t mix(std::uint64_t x) noexcept {
  // The 64-bit finaliser of MurmurHash3 (a public-domain constant set).
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t make_seed() noexcept {
  std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  seed ^= reinterpret_cast<std::uintptr_t>(&seed);  // ASLR adds entropy
  // One getrandom call: std::random_device's set-up (probing the CPU for
  // its entropy instructions, parsing its token) ran in every process at
  // start, a few hundredths of a millisecond of each `stguard check`.
  std::uint64_t random = 0;
  if (::getrandom(&random, sizeof random, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof random)) {
    return seed ^ random;
  }
  try {
    std::random_device device;
    seed ^= (static_cast<std::uint64_t>(device()) << 32) ^ device();
  } catch (...) {
    // No entropy source: the clock and address above still vary per process.
  }
  return seed;
}

struct Secrets {
  std::uint64_t words[3];
};

Secrets make_secrets() noexcept {
  const std::uint64_t seed = make_seed();
  return {{mix(seed) | 1, mix(seed ^ 0x9E3779B97F4A7C15ULL) | 1, mix(seed + 2) | 1}};
}

const Secrets kSecrets = make_secrets();

__extension__ typedef unsigned __int128 U128;  // NOLINT: a GCC/Clang extension, on purpose

// The 128-bit product of a and b, folded to 64 bits.
std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) noexcept {
  const U128 product = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

}  // namespace

std::uint64_t hash_name(std::string_view name) noexcept {
  // Every load lies inside the name: short names are read as two
  // overlapping words (which together cover every byte), longer ones 16 bytes
  // per step and then their last 16 bytes. The length is mixed in, so names
  // of different lengths read the same way still differ.
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  std::uint64_t h = kSecrets.words[0] ^ n;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n > 16) {
    const unsigned char* last = p + n - 16;
    for (; p < last; p += 16) {
      h = fold_multiply(load_le<8>(p) ^ kSecrets.words[1], load_le<8>(p + 8) ^ h);
    }
    a = load_le<8>(last);
    b = load_le<8>(last + 8);
  } else if (n >= 8) {
    a = load_le<8>(p);
    b = load_le<8>(p + n - 8);
  } else if (n >= 4) {
    a = load_le<4>(p);
    b = load_le<4>(p + n - 4);
  } else if (n > 0) {
    a = (std::uint64_t{p[0]} << 16) | (std::uint64_t{p[n / 2]} << 8) | p[n - 1];
  }
  h = fold_multiply(a ^ kSecrets.words[1], b ^ h);
  return fold_multiply(h ^ kSecrets.words[2], n ^ kSecrets.words[0]);
}

}  // namespace stguard::detail
