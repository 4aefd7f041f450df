// stguard/simd.h: which vector instructions the header parser uses.
//
// The parser's hot loops (the header's UTF-8 check, and the search for the
// end of each JSON string) come in one version per instruction set, and one
// is chosen at run time from what the CPU offers. Every path gives the same
// verdicts, reasons, offsets and messages; only the speed differs.
//
//   stguard::ParseOptions options;
//   options.simd = stguard::SimdPath::kBaseline;   // force the baseline path
//   std::cout << stguard::simd_path_name(stguard::simd_path_in_use(options.simd));
//
// Without a choice in ParseOptions (kAuto), the environment variable
// STGUARD_SIMD picks the path (baseline, avx2, avx512 or auto), read once per
// process; an unknown value counts as auto. A path the CPU (or the build)
// does not have falls back to the best one below it that it has.
#ifndef STGUARD_SIMD_H_
#define STGUARD_SIMD_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stguard {

enum class SimdPath : std::uint8_t {
  kAuto,      // STGUARD_SIMD if set, else the best path the CPU has
  kBaseline,  // SSE2 on x86-64 (part of the architecture); 8-byte words elsewhere
  kAvx2,      // 32-byte vectors (x86-64 with AVX2)
  kAvx512,    // 64-byte vectors and mask registers (x86-64 with AVX-512 F and BW)
};

// "auto", "baseline", "avx2", "avx512".
std::string_view simd_path_name(SimdPath path) noexcept;
// The inverse of simd_path_name, or nullopt for any other text.
std::optional<SimdPath> simd_path_from_name(std::string_view name) noexcept;

// Whether this build and this CPU can run `path` (kAuto and kBaseline always).
bool simd_path_supported(SimdPath path) noexcept;
// The path a parse with ParseOptions::simd == `requested` runs: kAuto
// resolved through STGUARD_SIMD and the CPU, and an unsupported path lowered
// to the best supported one below it. Never kAuto.
SimdPath simd_path_in_use(SimdPath requested = SimdPath::kAuto) noexcept;
// Every path this build and CPU can run, baseline first (never kAuto).
std::span<const SimdPath> supported_simd_paths() noexcept;

}  // namespace stguard

#endif  // STGUARD_SIMD_H_
