// Advice that large scratch memory be backed by 2 MiB pages.
//
// A fresh buffer is filled by page faults, one per 4 KiB page, and in a
// process that validates one large header (`stguard check` of a 10 MB
// header) those faults and the kernel's accounting of each page are a
// visible share of the whole run (docs/performance.md). Where
// transparent huge pages are "madvise", this asks for them; where they are
// off, the advice does nothing.
#ifndef STGUARD_SRC_HUGE_PAGES_H_
#define STGUARD_SRC_HUGE_PAGES_H_

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace stguard::detail {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Buffers from this size up are worth the advice: below it the 2 MiB pages
// would be mostly memory never touched, zeroed all the same.
inline constexpr std::size_t kHugePagesFrom = std::size_t{4} << 20;

// Advises the whole 2 MiB pages inside [data, data + bytes) (memory the
// caller owns; nothing outside it is affected). Not yet touched pages of
// them then fault in as huge pages.
inline void advise_huge_pages(void* data, std::size_t bytes) noexcept {
  if (bytes < kHugePagesFrom) return;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (start + bytes) / kHugePage * kHugePage;
  if (last <= first) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_HUGE_PAGES_H_
