// base/parallel.h: run a body over indices on a few threads.
//
//   stguard::base::parallel_for_each(files.size(), jobs, [&](std::size_t i) {
//     results[i] = check(files[i]);
//   });
//
// Indices are handed out one at a time in increasing order (callers that want
// the largest work first sort their indices). The calling thread works too, so
// the loop always finishes even when no thread can be started (a container's
// thread limit): then it simply runs with fewer threads. Returns the number
// of threads that ran the body (at least 1 when count > 0).
#ifndef STGUARD_BASE_PARALLEL_H_
#define STGUARD_BASE_PARALLEL_H_

#include <chrono>
#include <cstddef>
#include <functional>

namespace stguard::base {

struct ParallelOptions {
  // Threads to use, the caller's included; 0 = one per core.
  unsigned jobs = 0;
  // Called on the calling thread about every `tick_interval` while the loop
  // runs (progress displays), never concurrently with itself.
  std::function<void()> on_tick{};
  std::chrono::milliseconds tick_interval{100};
};

unsigned parallel_for_each(std::size_t count, const ParallelOptions& options,
                           const std::function<void(std::size_t)>& body);

// The number of threads `jobs` means: itself, or one per core for 0, never
// more than `count` and never less than 1.
unsigned effective_jobs(unsigned jobs, std::size_t count) noexcept;

}  // namespace stguard::base

#endif  // STGUARD_BASE_PARALLEL_H_
