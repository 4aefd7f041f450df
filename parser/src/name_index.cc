#include "name_index.h"

#include <sys/random.h>
#include <sys/types.h>

#include <chrono>
#include <random>

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

HashSecrets make_secrets() noexcept {
  const std::uint64_t seed = make_seed();
  return {{mix(seed) | 1, mix(seed ^ 0x9E3779B97F4A7C15ULL) | 1, mix(seed + 2) | 1}};
}

}  // namespace

const HashSecrets kHashSecrets = make_secrets();

}  // namespace stguard::detail
