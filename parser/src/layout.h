// Checks that need the whole header: each tensor's byte size against its
// dtype and shape, then the layout of all tensors in the data buffer.
#ifndef STGUARD_SRC_LAYOUT_H_
#define STGUARD_SRC_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "scanned_header.h"
#include "stguard/error.h"
#include "stguard/header.h"

namespace stguard::detail {

// A tensor's data range and its place in the document, for the layout walk.
struct Span {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint32_t index;  // document order, the tie-breaker
  friend bool operator<(const Span& a, const Span& b) noexcept {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  }
};

// Per tensor, in document order: begin <= end, element and bit counts fit in
// u64, whole bytes, end - begin equals the implied size. Then, sorted by
// (begin, end, document order): no tensor past the buffer, no hole, no
// overlap, no trailing bytes. Returns the first fault, or nullopt. (The
// profiles differ only in how the scan folds the element count.)
std::optional<Error> check_sizes_and_layout(const ScannedHeader& header, std::uint64_t header_len,
                                            std::uint64_t file_size);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_LAYOUT_H_
