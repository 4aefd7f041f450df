// base/sigbus_guard.h: reading a mapped file that may shrink, without dying.
//
// Touching a page of a file mapping past the file's current end raises
// SIGBUS, which kills the process unless handled. with_sigbus_guard runs a
// function that reads a mapping and turns such a fault inside that mapping
// into a return value, so the caller can report "the file ended" instead of
// crashing.
//
//   const std::uint8_t* map = ...;  // mmap of `length` bytes
//   std::optional<std::uint64_t> fault =
//       stguard::base::with_sigbus_guard(map, length, [&] { hash.update({map, length}); });
//   if (fault) report("ended at byte " + std::to_string(*fault) + " while being read");
//
// How: the first call installs one process-wide SIGBUS handler (SA_SIGINFO)
// and keeps the handler that was there before. A thread-local record says
// which range the calling thread is reading and where to jump back to
// (sigsetjmp/siglongjmp). A SIGBUS whose address lies in the guarded range of
// the faulting thread jumps back; every other SIGBUS (another thread, another
// address, no guard active) goes to the previous handler, or, when that was
// the default action, is re-raised with the default action restored, so the
// process dies exactly as it would have without the guard.
//
// Preconditions: `read` does not itself install SIGBUS handlers, hold locks
// or allocate memory it cannot leave behind when abandoned half-way (it is
// left by siglongjmp, skipping destructors inside it): hashing a buffer is
// fine. Guards may not nest on one thread. Threads may each hold a guard.
#ifndef STGUARD_BASE_SIGBUS_GUARD_H_
#define STGUARD_BASE_SIGBUS_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace stguard::base {

// Runs `read()`. nullopt when it returned; otherwise the offset from `begin`
// of the access that faulted (in the first page past the file's readable
// end; the caller's fstat tells where the file now ends), `read` having been
// abandoned there.
std::optional<std::uint64_t> with_sigbus_guard(const void* begin, std::size_t length,
                                               const std::function<void()>& read);

}  // namespace stguard::base

#endif  // STGUARD_BASE_SIGBUS_GUARD_H_
