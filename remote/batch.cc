#include "remote/batch.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include "base/parallel.h"

namespace stguard::remote {

std::vector<Result<RemoteHead>> read_heads(const std::vector<std::string>& urls,
                                           const ParseOptions& options, const HttpOptions& http,
                                           const BatchOptions& batch) {
  std::vector<Result<RemoteHead>> heads(urls.size(), Error{Reason::kIoError, 0, "not fetched"});
  // A client per thread, lent to whichever index the thread takes next.
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<HttpClient>> pool;
  const auto borrow = [&] {
    const std::lock_guard<std::mutex> lock(pool_mutex);
    if (pool.empty()) return std::make_unique<HttpClient>(http);
    std::unique_ptr<HttpClient> client = std::move(pool.back());
    pool.pop_back();
    return client;
  };
  std::atomic<std::size_t> done{0};
  base::ParallelOptions parallel;
  parallel.jobs = batch.jobs;
  if (batch.on_tick) {
    parallel.tick_interval = batch.tick_interval;
    parallel.on_tick = [&] { batch.on_tick(done.load(), urls.size()); };
  }
  base::parallel_for_each(urls.size(), parallel, [&](std::size_t i) {
    std::unique_ptr<HttpClient> client = borrow();
    heads[i] = read_head(*client, urls[i], options);
    {
      const std::lock_guard<std::mutex> lock(pool_mutex);
      pool.push_back(std::move(client));
    }
    ++done;
  });
  return heads;
}

}  // namespace stguard::remote
