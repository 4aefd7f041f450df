#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace stguard::base {

unsigned effective_jobs(unsigned jobs, std::size_t count) noexcept {
  unsigned n = jobs != 0 ? jobs : std::thread::hardware_concurrency();
  if (n == 0) n = 1;
  if (count < n) n = static_cast<unsigned>(std::max<std::size_t>(count, 1));
  return n;
}

unsigned parallel_for_each(std::size_t count, const ParallelOptions& options,
                           const std::function<void(std::size_t)>& body) {
  if (count == 0) return 0;
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::size_t finished = 0;
  std::exception_ptr failure;
  // The first exception stops the hand-out of further indices and is
  // rethrown on the calling thread once every thread has stopped.
  const auto work = [&] {
    try {
      for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i);
    } catch (...) {
      next.store(count);
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  const auto worker = [&] {
    work();
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ++finished;
    }
    finished_cv.notify_all();
  };

  // A caller with a tick to run only waits; otherwise it takes a share.
  const bool caller_ticks = static_cast<bool>(options.on_tick);
  const unsigned jobs = effective_jobs(options.jobs, count);
  const unsigned to_start = caller_ticks ? jobs : jobs - 1;
  std::vector<std::thread> pool;
  pool.reserve(to_start);
  for (unsigned i = 0; i < to_start; ++i) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer threads than asked: those running share the work
    }
  }
  bool caller_worked = false;
  if (caller_ticks && !pool.empty()) {
    std::unique_lock<std::mutex> lock(mutex);
    const auto all_done = [&] { return finished == pool.size(); };
    while (!finished_cv.wait_for(lock, options.tick_interval, all_done)) {
      lock.unlock();
      options.on_tick();
      lock.lock();
    }
  } else {
    work();
    caller_worked = true;
  }
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
  return static_cast<unsigned>(pool.size()) + (caller_worked ? 1u : 0u);
}

}  // namespace stguard::base
