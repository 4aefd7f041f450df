#include "utf8.h"

#include "kernels/kernels.h"

namespace stguard::detail {

std::size_t find_invalid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
  return kernels_for(SimdPath::kAuto).find_invalid_utf8(data, size);
}

}  // namespace stguard::detail
