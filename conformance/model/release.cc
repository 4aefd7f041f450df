// conformance/model/release.cc: release names and their order (release.h).
#include "conformance/model/release.h"

#include <cstdint>

namespace stguard::conformance {
namespace {

constexpr std::size_t kMaxDigits = 9;  // so a component fits in 32 bits

// The next component of `s`, consumed with its dot.
std::uint32_t take_component(std::string_view& s) noexcept {
  std::uint32_t value = 0;
  while (!s.empty() && s.front() != '.') {
    value = value * 10 + static_cast<std::uint32_t>(s.front() - '0');
    s.remove_prefix(1);
  }
  if (!s.empty()) s.remove_prefix(1);
  return value;
}

}  // namespace

bool is_release(std::string_view text) noexcept {
  std::size_t digits = 0;
  for (const char c : text) {
    if (c == '.') {
      if (digits == 0) return false;
      digits = 0;
    } else if (c >= '0' && c <= '9' && digits < kMaxDigits) {
      ++digits;
    } else {
      return false;
    }
  }
  return digits != 0;
}

int compare_releases(std::string_view a, std::string_view b) noexcept {
  while (!a.empty() || !b.empty()) {
    const std::uint32_t x = take_component(a);
    const std::uint32_t y = take_component(b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace stguard::conformance
