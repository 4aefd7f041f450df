// Checks that need the whole header: each tensor's byte size against its
// dtype and shape, then the layout of all tensors in the data buffer.
#ifndef STGUARD_SRC_LAYOUT_H_
#define STGUARD_SRC_LAYOUT_H_

#include <cstdint>
#include <optional>

#include "scanned_header.h"
#include "stguard/error.h"
#include "stguard/header.h"

namespace stguard::detail {

// Per tensor, in document order: begin <= end, element and bit counts fit in
// u64, whole bytes, end - begin equals the implied size. Then, sorted by
// (begin, end, document order): no tensor past the buffer, no hole, no
// overlap, no trailing bytes. Returns the first fault, or nullopt. (The
// profiles differ only in how the scan folds the element count.) Its tables
// are `scratch`'s.
std::optional<Error> check_sizes_and_layout(const ScannedHeader& header, std::uint64_t header_len,
                                            std::uint64_t file_size, Scratch& scratch);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_LAYOUT_H_
