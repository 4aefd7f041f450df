// stguard/dtype.h: the 22 safetensors element types and their bit sizes.
//
//   std::optional<stguard::Dtype> d = stguard::dtype_from_name("BF16");
//   stguard::dtype_bits(*d);   // 16
//   stguard::dtype_name(*d);   // "BF16"
//
// Names are case-sensitive and exact; nothing else is a dtype.
#ifndef STGUARD_DTYPE_H_
#define STGUARD_DTYPE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stguard {

// Numeric values are stable and never reused.
enum class Dtype : std::uint8_t {
  kBool = 0,
  kF4 = 1,
  kF6E2M3 = 2,
  kF6E3M2 = 3,
  kU8 = 4,
  kI8 = 5,
  kF8E5M2 = 6,
  kF8E4M3 = 7,
  kF8E8M0 = 8,
  kF8E4M3Fnuz = 9,
  kF8E5M2Fnuz = 10,
  kI16 = 11,
  kU16 = 12,
  kF16 = 13,
  kBF16 = 14,
  kI32 = 15,
  kU32 = 16,
  kF32 = 17,
  kC64 = 18,
  kF64 = 19,
  kI64 = 20,
  kU64 = 21,
};

inline constexpr int kDtypeCount = 22;

// All dtypes in numeric order.
std::span<const Dtype> all_dtypes() noexcept;

// The on-disk name, e.g. "F8_E4M3FNUZ".
std::string_view dtype_name(Dtype dtype) noexcept;

// Bits per element: 4 (F4), 6 (F6_*), 8, 16, 32 or 64.
unsigned dtype_bits(Dtype dtype) noexcept;

// Exact, case-sensitive lookup of an on-disk name; nullopt when unknown.
std::optional<Dtype> dtype_from_name(std::string_view name) noexcept;

// Position in the upstream writer's tensor order (0 = written first: U64,
// I64, F64, C64, F32, ... , F4, BOOL). The canonical writer sorts by this rank,
// then by name.
int dtype_writer_rank(Dtype dtype) noexcept;

}  // namespace stguard

#endif  // STGUARD_DTYPE_H_
