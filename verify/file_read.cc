// verify/file_read.cc: one read of a file in DIR, hashed or not.
#include "verify/file_read.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "base/parallel.h"
#include "base/sandbox.h"
#include "verify/verifier.h"

namespace stguard::verify {

std::string FileRead::error_text() const {
  if (open_err != 0) return base::open_error_text(open_err);
  return outcome.error;
}

FileRead read_file_once(const Verification& v, const std::string& name, bool hash,
                        const base::ChunkSink& also, std::atomic<std::uint64_t>* done) {
  FileRead result;
  const HeldFile o = open_listed(v.folder, name, v.options.follow_symlinks);
  if (!o) {
    result.open_err = o.err;
    return result;
  }
  struct stat before {};
  struct stat after {};
  const bool stat_before = ::fstat(o.fd, &before) == 0;
  if (hash) {
    result.outcome = base::sha256_fd(o.fd, v.options.hash, done, also);
  } else {
    base::StreamOutcome streamed = base::stream_fd(o.fd, v.options.hash, done, also);
    result.outcome.bytes = streamed.bytes;
    result.outcome.error = std::move(streamed.error);
  }
  const bool stat_after = ::fstat(o.fd, &after) == 0;
  if (stat_before && stat_after) {
    result.stamp = stamp_of(before);
    result.changed = !(stamp_of(before) == stamp_of(after));
  }
  return result;
}

std::vector<FileRead> read_all(const Verification& v, const std::vector<ReadJob>& jobs, bool hash,
                               ReadStats* stats) {
  std::vector<FileRead> results(jobs.size());
  if (jobs.empty()) return results;
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].size > jobs[b].size; });
  // Files the layout's own checksums already read: their digest is reused
  // (the value scan rode on that read too), not read again.
  if (hash) {
    std::erase_if(order, [&](std::size_t i) {
      const auto it = v.read_by_layout.find(jobs[i].name);
      if (it == v.read_by_layout.end()) return false;
      results[i] = it->second;
      return true;
    });
  }
  std::uint64_t total = 0;
  for (const std::size_t i : order) total += jobs[i].size;

  std::atomic<std::uint64_t> done{0};
  base::ParallelOptions parallel;
  parallel.jobs = v.options.jobs;
  parallel.tick_interval = v.options.progress_interval;
  if (v.options.progress) {
    parallel.on_tick = [&] {
      v.options.progress(done.load(std::memory_order_relaxed), total, false);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  stats->jobs = base::parallel_for_each(order.size(), parallel, [&](std::size_t k) {
    const ReadJob& job = jobs[order[k]];
    results[order[k]] = read_file_once(v, job.name, hash, v.values.claim(job.name), &done);
  });
  if (v.options.progress) v.options.progress(done.load(), total, true);
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats->bytes = done.load();
  return results;
}

bool changed_while_verified(const Verification& v, const std::string& name, const FileRead& read) {
  const auto checked = v.shard_stamps.find(name);
  const bool changed_since_check =
      checked != v.shard_stamps.end() && read.stamp && !(checked->second == *read.stamp);
  return read.changed || changed_since_check;
}

}  // namespace stguard::verify
