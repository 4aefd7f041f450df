// Scratch vectors reused between parses on the same thread.
//
// Parsing a small header needs a few short vectors (scanned tensors, their
// shapes, name tables). The parse itself then takes well under a microsecond,
// so allocating them afresh dominates: by 10x and more under AddressSanitizer,
// whose allocator records a stack and quarantines every block, which is how
// the fuzzers and the test suite run. Each user borrows the thread's spare
// vector of its kind (its capacity, emptied) and gives it back when done. A
// vector that grew past kKeepBytes is freed instead, so a thread never holds
// more than a few hundred KiB, whatever it has parsed.
//
// Borrowing is a swap, so nesting is safe: an inner borrower of the same kind
// just gets an empty vector, and whichever returns last keeps the spare.
#ifndef STGUARD_SRC_RECYCLE_H_
#define STGUARD_SRC_RECYCLE_H_

#include <cstddef>
#include <vector>

namespace stguard::detail {

inline constexpr std::size_t kKeepBytes = 64 * 1024;

// One spare per element type and Kind (a tag: two vectors of one element
// type in the same parse need two kinds, or they would share one spare).
template <class T, class Kind>
std::vector<T>& spare_vector() noexcept {
  thread_local std::vector<T> spare;
  return spare;
}

// `v` must be empty; it takes the spare's capacity.
template <class Kind, class T>
void borrow_spare(std::vector<T>& v) noexcept {
  v.swap(spare_vector<T, Kind>());
}

// Empties `v` and, unless it grew past kKeepBytes, makes it the spare.
template <class Kind, class T>
void return_spare(std::vector<T>& v) noexcept {
  if (v.capacity() > kKeepBytes / sizeof(T)) return;  // freed with `v`
  v.clear();
  v.swap(spare_vector<T, Kind>());
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_RECYCLE_H_
