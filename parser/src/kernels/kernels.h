// The parser's hot loops, one version per instruction set (stguard/simd.h),
// and the table that picks one at run time.
//
// Each kernel is a plain function compiled for its instruction set with a
// target attribute (never a per-file -m flag, so no inline function or
// template shared with other files can come out with instructions the CPU
// may lack). Every version gives exactly the baseline's answer; tests hold
// them to it (tests/parser/simd_kernels_test.cc) and the whole parse to the
// baseline's verdicts (tests/parser/simd_paths_test.cc).
#ifndef STGUARD_SRC_KERNELS_KERNELS_H_
#define STGUARD_SRC_KERNELS_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "stguard/simd.h"

namespace stguard::detail {

struct Kernels {
  SimdPath path;  // never kAuto
  // The index of the first byte of the first invalid UTF-8 sequence in
  // [data, data + size), or size when there is none (utf8.h).
  std::size_t (*find_invalid_utf8)(const std::uint8_t* data, std::size_t size) noexcept;
  // The first byte in [p, end) that ends a run of plain string content: '"',
  // '\\' or a control byte (< 0x20); or end. Non-ASCII bytes are content.
  // nullptr on the baseline path, whose loop the lexer inlines
  // (json_lexer.h's find_string_stop): a call costs more than short strings.
  const std::uint8_t* (*find_string_stop)(const std::uint8_t* p, const std::uint8_t* end) noexcept;
  // The same, stopping at non-ASCII bytes (>= 0x80) too: the scan's search
  // until the header's first non-ASCII byte (json_lexer.h). nullptr on the
  // baseline path, as above.
  const std::uint8_t* (*find_ascii_string_stop)(const std::uint8_t* p,
                                                const std::uint8_t* end) noexcept;
};

// Headers shorter than this get the UTF-8 check before the scan; in longer
// ones the scan looks for non-ASCII bytes and the check runs only after a
// fault or one of them (header.cc).
inline constexpr std::size_t kUtf8CheckFirstBelow = 4096;

// The kernels of simd_path_in_use(requested). Chosen in constant time: the
// CPU and STGUARD_SIMD are looked at once per process.
const Kernels& kernels_for(SimdPath requested) noexcept;

// The versions, for kernels.cc's table and the kernel tests. The AVX ones
// exist on x86-64 builds only and must run only where the CPU has them.
std::size_t find_invalid_utf8_baseline(const std::uint8_t* data, std::size_t size) noexcept;
const std::uint8_t* find_string_stop_baseline(const std::uint8_t* p,
                                              const std::uint8_t* end) noexcept;
const std::uint8_t* find_ascii_string_stop_baseline(const std::uint8_t* p,
                                                    const std::uint8_t* end) noexcept;
#if defined(__x86_64__)
#define STGUARD_HAVE_AVX_KERNELS 1
std::size_t find_invalid_utf8_avx2(const std::uint8_t* data, std::size_t size) noexcept;
const std::uint8_t* find_string_stop_avx2(const std::uint8_t* p, const std::uint8_t* end) noexcept;
const std::uint8_t* find_ascii_string_stop_avx2(const std::uint8_t* p,
                                                const std::uint8_t* end) noexcept;
std::size_t find_invalid_utf8_avx512(const std::uint8_t* data, std::size_t size) noexcept;
const std::uint8_t* find_string_stop_avx512(const std::uint8_t* p,
                                            const std::uint8_t* end) noexcept;
const std::uint8_t* find_ascii_string_stop_avx512(const std::uint8_t* p,
                                                  const std::uint8_t* end) noexcept;
#endif

}  // namespace stguard::detail

#endif  // STGUARD_SRC_KERNELS_KERNELS_H_
