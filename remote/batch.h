// remote/batch.h: the heads of many remote files, fetched a few at a time.
//
//   std::vector<Result<remote::RemoteHead>> heads =
//       remote::read_heads(urls, parse_options, http_options, {.jobs = 8});
//
// Each thread keeps its own HttpClient, so its requests reuse one
// connection per server. Results are in the order of `urls`.
#ifndef STGUARD_REMOTE_BATCH_H_
#define STGUARD_REMOTE_BATCH_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "remote/head.h"
#include "remote/http.h"
#include "stguard/header.h"
#include "stguard/result.h"

namespace stguard::remote {

struct BatchOptions {
  unsigned jobs = 8;  // requests in flight at once
  // Called on the calling thread about every tick_interval while the batch
  // runs, with the files done and the total (a progress line).
  std::function<void(std::size_t done, std::size_t total)> on_tick{};
  std::chrono::milliseconds tick_interval{250};
};

std::vector<Result<RemoteHead>> read_heads(const std::vector<std::string>& urls,
                                           const ParseOptions& options, const HttpOptions& http,
                                           const BatchOptions& batch = {});

}  // namespace stguard::remote

#endif  // STGUARD_REMOTE_BATCH_H_
