// The size rules of a tensor, in one place: how many elements its shape
// holds (by profile), and how many bits and whole bytes that makes for its
// dtype. The scanner folds the element count as it reads a shape, the size
// check (layout.cc) compares the implied bytes with the data_offsets, and the
// writer refuses what the strict parser would reject, all with these rules.
#ifndef STGUARD_SRC_SIZES_H_
#define STGUARD_SRC_SIZES_H_

#include <cstdint>
#include <span>

#include "stguard/header.h"

namespace stguard::detail {

// The element count of a shape, folded as the dimensions arrive.
//   Reference: upstream folds left to right with checked multiplication, so a
//     zero dimension early on hides any overflow after it ([0, 2^64-1, 2] is
//     0 elements), while an overflow before a zero stays an overflow.
//   Strict: the product of the non-zero dimensions must fit in u64 as well,
//     and a zero dimension makes 0 elements wherever it is. So a zero cannot
//     hide an overflow from readers that multiply in another order or compute
//     strides ([0, 2^64-1, 2^64-1] is rejected).
// An empty shape (a scalar) holds one element.
struct ElementCount {
  std::uint64_t product = 1;  // of the dimensions folded (strict: the non-zero ones)
  bool overflow = false;      // the fold left u64
  bool has_zero = false;      // strict: a zero dimension was seen

  void add(std::uint64_t dim, Profile profile) noexcept {
    if (profile == Profile::kStrict && dim == 0) {
      has_zero = true;
    } else if (!overflow) {
      overflow = __builtin_mul_overflow(product, dim, &product);
    }
  }
  // The count; meaningless when `overflow` is set.
  std::uint64_t elements() const noexcept { return has_zero ? 0 : product; }
};

inline ElementCount count_elements(std::span<const std::uint64_t> shape, Profile profile) noexcept {
  ElementCount count;
  for (const std::uint64_t dim : shape) count.add(dim, profile);
  return count;
}

enum class SizeFault : std::uint8_t {
  kNone = 0,
  kOverflow,    // the element count or elements x bits does not fit in u64
  kMisaligned,  // elements x bits is not a multiple of 8 (sub-byte dtypes)
};

struct ImpliedSize {
  SizeFault fault = SizeFault::kNone;
  std::uint64_t bits = 0;   // elements x bits per element, unless kOverflow
  std::uint64_t bytes = 0;  // bits / 8, when kNone
};

// The bytes `elements` elements of `bits_per_element` bits take, checked in
// that order: a count that overflowed (`elements_overflow`, from
// ElementCount::overflow), then the bit count, then whole bytes.
inline ImpliedSize implied_size(std::uint64_t elements, bool elements_overflow,
                                std::uint64_t bits_per_element) noexcept {
  ImpliedSize size;
  if (elements_overflow || __builtin_mul_overflow(elements, bits_per_element, &size.bits)) {
    size.fault = SizeFault::kOverflow;
  } else if (size.bits % 8 != 0) {
    size.fault = SizeFault::kMisaligned;
  } else {
    size.bytes = size.bits / 8;
  }
  return size;
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_SIZES_H_
