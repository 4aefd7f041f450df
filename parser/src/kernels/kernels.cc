// Choosing the kernels: what the CPU has, what STGUARD_SIMD asks for, and
// the public face of both (stguard/simd.h).
#include "kernels/kernels.h"

#include <array>
#include <cstdlib>

namespace stguard {
namespace {

using detail::Kernels;

constexpr Kernels kBaselineKernels{SimdPath::kBaseline, detail::find_invalid_utf8_baseline, nullptr,
                                   nullptr};
#if defined(STGUARD_HAVE_AVX_KERNELS)
constexpr Kernels kAvx2Kernels{SimdPath::kAvx2, detail::find_invalid_utf8_avx2,
                               detail::find_string_stop_avx2, detail::find_ascii_string_stop_avx2};
constexpr Kernels kAvx512Kernels{SimdPath::kAvx512, detail::find_invalid_utf8_avx512,
                                 detail::find_string_stop_avx512,
                                 detail::find_ascii_string_stop_avx512};
#endif

// The paths this CPU can run, best last. __builtin_cpu_supports also asks
// whether the operating system saves the wide registers (XGETBV).
struct CpuPaths {
  std::array<SimdPath, 3> paths{};
  std::size_t count = 0;
};

CpuPaths detect_paths() noexcept {
  CpuPaths found;
  found.paths[found.count++] = SimdPath::kBaseline;
#if defined(STGUARD_HAVE_AVX_KERNELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    found.paths[found.count++] = SimdPath::kAvx2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
      found.paths[found.count++] = SimdPath::kAvx512;
    }
  }
#endif
  return found;
}

const CpuPaths& cpu_paths() noexcept {
  static const CpuPaths paths = detect_paths();
  return paths;
}

SimdPath best_supported_at_most(SimdPath wanted) noexcept {
  SimdPath best = SimdPath::kBaseline;
  for (SimdPath path : supported_simd_paths()) {
    if (path <= wanted) best = path;
  }
  return best;
}

// kAuto resolved: STGUARD_SIMD when it names a path, else the best one.
SimdPath automatic_path() noexcept {
  static const SimdPath path = [] {
    const char* env = std::getenv("STGUARD_SIMD");
    const std::optional<SimdPath> named = env != nullptr ? simd_path_from_name(env) : std::nullopt;
    const bool chosen = named.has_value() && *named != SimdPath::kAuto;
    return best_supported_at_most(chosen ? *named : SimdPath::kAvx512);
  }();
  return path;
}

}  // namespace

std::string_view simd_path_name(SimdPath path) noexcept {
  switch (path) {
    case SimdPath::kAuto:
      return "auto";
    case SimdPath::kBaseline:
      return "baseline";
    case SimdPath::kAvx2:
      return "avx2";
    case SimdPath::kAvx512:
      return "avx512";
  }
  return "unknown";
}

std::optional<SimdPath> simd_path_from_name(std::string_view name) noexcept {
  for (SimdPath path : {SimdPath::kAuto, SimdPath::kBaseline, SimdPath::kAvx2, SimdPath::kAvx512}) {
    if (name == simd_path_name(path)) return path;
  }
  return std::nullopt;
}

std::span<const SimdPath> supported_simd_paths() noexcept {
  const CpuPaths& found = cpu_paths();
  return {found.paths.data(), found.count};
}

bool simd_path_supported(SimdPath path) noexcept {
  if (path == SimdPath::kAuto) return true;
  return best_supported_at_most(path) == path;
}

SimdPath simd_path_in_use(SimdPath requested) noexcept {
  return requested == SimdPath::kAuto ? automatic_path() : best_supported_at_most(requested);
}

namespace detail {
namespace {

const Kernels& kernels_of(SimdPath path) noexcept {
  switch (path) {
#if defined(STGUARD_HAVE_AVX_KERNELS)
    case SimdPath::kAvx2:
      return kAvx2Kernels;
    case SimdPath::kAvx512:
      return kAvx512Kernels;
#endif
    default:
      return kBaselineKernels;
  }
}

}  // namespace

const Kernels& kernels_for(SimdPath requested) noexcept {
  // Every parse asks, twice; the usual answer is looked up once.
  static const Kernels& automatic = kernels_of(automatic_path());
  if (requested == SimdPath::kAuto) return automatic;
  return kernels_of(best_supported_at_most(requested));
}

}  // namespace detail
}  // namespace stguard
