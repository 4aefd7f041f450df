#include "stguard/dtype.h"

#include <array>

namespace stguard {
namespace {

struct DtypeEntry {
  Dtype dtype;
  std::string_view name;
  unsigned bits;
  int writer_rank;  // upstream writer order: larger element types first
};

// Indexed by the enumerator's value.
constexpr std::array<DtypeEntry, kDtypeCount> kDtypes = {{
    {Dtype::kBool, "BOOL", 8, 21},
    {Dtype::kF4, "F4", 4, 20},
    {Dtype::kF6E2M3, "F6_E2M3", 6, 19},
    {Dtype::kF6E3M2, "F6_E3M2", 6, 18},
    {Dtype::kU8, "U8", 8, 17},
    {Dtype::kI8, "I8", 8, 16},
    {Dtype::kF8E5M2, "F8_E5M2", 8, 15},
    {Dtype::kF8E4M3, "F8_E4M3", 8, 14},
    {Dtype::kF8E8M0, "F8_E8M0", 8, 13},
    {Dtype::kF8E4M3Fnuz, "F8_E4M3FNUZ", 8, 12},
    {Dtype::kF8E5M2Fnuz, "F8_E5M2FNUZ", 8, 11},
    {Dtype::kI16, "I16", 16, 10},
    {Dtype::kU16, "U16", 16, 9},
    {Dtype::kF16, "F16", 16, 8},
    {Dtype::kBF16, "BF16", 16, 7},
    {Dtype::kI32, "I32", 32, 6},
    {Dtype::kU32, "U32", 32, 5},
    {Dtype::kF32, "F32", 32, 4},
    {Dtype::kC64, "C64", 64, 3},
    {Dtype::kF64, "F64", 64, 2},
    {Dtype::kI64, "I64", 64, 1},
    {Dtype::kU64, "U64", 64, 0},
}};

constexpr std::array<Dtype, kDtypeCount> make_dtype_list() {
  std::array<Dtype, kDtypeCount> out{};
  for (std::size_t i = 0; i < kDtypes.size(); ++i) out[i] = kDtypes[i].dtype;
  return out;
}
constexpr std::array<Dtype, kDtypeCount> kDtypeList = make_dtype_list();

const DtypeEntry& entry(Dtype dtype) noexcept {
  const auto index = static_cast<std::size_t>(dtype);
  // Out-of-range values can only come from a cast by the caller; map them to
  // U8 rather than read outside the table.
  return index < kDtypes.size() ? kDtypes[index] : kDtypes[4];
}

}  // namespace

std::span<const Dtype> all_dtypes() noexcept { return kDtypeList; }
std::string_view dtype_name(Dtype dtype) noexcept { return entry(dtype).name; }
unsigned dtype_bits(Dtype dtype) noexcept { return entry(dtype).bits; }
int dtype_writer_rank(Dtype dtype) noexcept { return entry(dtype).writer_rank; }

std::optional<Dtype> dtype_from_name(std::string_view name) noexcept {
  // 22 short names: a length filter first keeps this a handful of compares.
  if (name.size() < 2 || name.size() > 11) return std::nullopt;
  for (const DtypeEntry& e : kDtypes) {
    if (e.name.size() == name.size() && e.name == name) return e.dtype;
  }
  return std::nullopt;
}

}  // namespace stguard
