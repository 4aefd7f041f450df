// Marks for AddressSanitizer on memory it does not know the bounds of
// (file.cc's anonymous mappings, a header window's bytes not yet read in):
// bytes marked unreadable are reported when read, as a read past a new[]
// allocation is. Without AddressSanitizer the marks do nothing.
#ifndef STGUARD_SRC_ASAN_MARKS_H_
#define STGUARD_SRC_ASAN_MARKS_H_

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STGUARD_ASAN 1
#endif
#endif
#if !defined(STGUARD_ASAN) && defined(__SANITIZE_ADDRESS__)
#define STGUARD_ASAN 1
#endif
#ifndef STGUARD_ASAN
#define STGUARD_ASAN 0
#endif
#if STGUARD_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace stguard::detail {

inline void mark_unreadable([[maybe_unused]] const void* data,
                            [[maybe_unused]] std::size_t bytes) noexcept {
#if STGUARD_ASAN
  __asan_poison_memory_region(data, bytes);
#endif
}

inline void mark_readable([[maybe_unused]] const void* data,
                          [[maybe_unused]] std::size_t bytes) noexcept {
#if STGUARD_ASAN
  __asan_unpoison_memory_region(data, bytes);
#endif
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_ASAN_MARKS_H_
