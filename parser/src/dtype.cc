#include "stguard/dtype.h"

#include <array>
#include <cstddef>

#include "dtype_table.h"

namespace stguard {
namespace {

constexpr std::array<Dtype, kDtypeCount> make_dtype_list() {
  std::array<Dtype, kDtypeCount> out{};
  for (std::size_t i = 0; i < detail::kDtypeTable.size(); ++i) {
    out[i] = detail::kDtypeTable[i].dtype;
  }
  return out;
}
constexpr std::array<Dtype, kDtypeCount> kDtypeList = make_dtype_list();

}  // namespace

std::span<const Dtype> all_dtypes() noexcept { return kDtypeList; }
std::string_view dtype_name(Dtype dtype) noexcept { return detail::dtype_entry(dtype).name; }
unsigned dtype_bits(Dtype dtype) noexcept { return detail::dtype_entry(dtype).bits; }
int dtype_writer_rank(Dtype dtype) noexcept { return detail::dtype_entry(dtype).writer_rank; }

std::optional<Dtype> dtype_from_name(std::string_view name) noexcept {
  return detail::find_dtype(name);
}

}  // namespace stguard
