#include "name_index.h"

#include <chrono>
#include <cstring>
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

std::uint64_t make_secret() noexcept {
  std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  seed ^= reinterpret_cast<std::uintptr_t>(&seed);  // ASLR adds entropy
  try {
    std::random_device device;
    seed ^= (static_cast<std::uint64_t>(device()) << 32) ^ device();
  } catch (...) {
    // No entropy source: the clock and address above still vary per process.
  }
  return mix(seed) | 1;
}

const std::uint64_t kSecret = make_secret();

}  // namespace

std::uint64_t hash_name(std::string_view name) noexcept {
  // One multiply per 8 bytes, seeded with the secret, then a full mix.
  std::uint64_t h = kSecret ^ name.size();
  const char* p = name.data();
  std::size_t n = name.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (((h << 23) | (h >> 41)) ^ w) * 0x9E3779B97F4A7C15ULL;
    p += 8;
    n -= 8;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return mix(h ^ tail);
}

}  // namespace stguard::detail
