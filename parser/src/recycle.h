// Scratch vectors reused between parses on the same thread.
//
// Parsing a small header needs a few short vectors (scanned tensors, their
// shapes, name tables). The parse itself then takes well under a microsecond,
// so allocating them afresh dominates: by 10x and more under AddressSanitizer,
// whose allocator records a stack and quarantines every block, which is how
// the fuzzers and the test suite run. Each user borrows the thread's spare
// vector of its pool (its capacity, emptied) and gives it back when done. A
// vector that grew past kKeepBytes is freed instead, so a thread never holds
// more than a few hundred KiB, whatever it has parsed.
//
// Borrowing is a swap, so nesting is safe: an inner borrower of the same pool
// just gets an empty vector, and whichever returns last keeps the spare.
#ifndef STGUARD_SRC_RECYCLE_H_
#define STGUARD_SRC_RECYCLE_H_

#include <cstddef>
#include <vector>

namespace stguard::detail {

inline constexpr std::size_t kKeepBytes = 64 * 1024;

// One spare per pool. A pool is a tag type that says what its vectors hold
// and names their element type, declared next to the vectors it serves:
//
//   // The dimensions of every shape in a scanned header, back to back.
//   struct ShapeDimsPool {
//     using Element = std::uint64_t;
//   };
//   borrow_spare<ShapeDimsPool>(dims);  // dims: std::vector<std::uint64_t>
//
// Two vectors used at once need two pools, even of one element type, or they
// would share one spare. A thread holds at most one spare per pool.
template <class Pool>
std::vector<typename Pool::Element>& spare_vector() noexcept {
  thread_local std::vector<typename Pool::Element> spare;
  return spare;
}

// `v` must be empty; it takes the spare's capacity.
template <class Pool>
void borrow_spare(std::vector<typename Pool::Element>& v) noexcept {
  v.swap(spare_vector<Pool>());
}

// Empties `v` and, unless it grew past kKeepBytes, makes it the spare.
template <class Pool>
void return_spare(std::vector<typename Pool::Element>& v) noexcept {
  if (v.capacity() > kKeepBytes / sizeof(typename Pool::Element)) return;  // freed with `v`
  v.clear();
  v.swap(spare_vector<Pool>());
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_RECYCLE_H_
