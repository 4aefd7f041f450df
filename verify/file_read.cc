// verify/file_read.cc: one read of a file in DIR, hashed or not.
#include "verify/file_read.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "base/parallel.h"
#include "base/sandbox.h"
#include "verify/open_files.h"

namespace stguard::verify {

std::function<void(int fd)> g_test_during_read;

std::string FileRead::error_text() const {
  if (open_err != 0) return base::open_error_text(open_err);
  return outcome.error;
}

FileRead watch_read(int fd, const base::ChunkSink& also,
                    const std::function<void(const base::ChunkSink&)>& read) {
  FileRead result;
  struct stat before {};
  struct stat after {};
  const bool stat_before = ::fstat(fd, &before) == 0;
  // Counted after the chunk was handed on: with --hash-io mmap a page that
  // is gone faults inside the chunk's hashing, and that chunk was not read.
  std::uint64_t read_to = 0;
  read([&](std::span<const std::uint8_t> chunk) {
    if (also) also(chunk);
    const bool first = read_to == 0;
    read_to += chunk.size();
    if (first && g_test_during_read) g_test_during_read(fd);
  });
  result.read_to = read_to;
  const bool stat_after = ::fstat(fd, &after) == 0;
  if (stat_before && stat_after) {
    result.stamp = stamp_of(before);
    result.stamp_after = stamp_of(after);
    result.changed = !(*result.stamp == *result.stamp_after);
  }
  return result;
}

FileRead read_file_once(const ReadContext& reads, const std::string& name, bool hash,
                        const base::ChunkSink& also, std::atomic<std::uint64_t>* done) {
  const HeldFile o = open_listed(reads.folder, name, reads.options.follow_symlinks);
  if (!o) {
    FileRead result;
    result.open_err = o.err;
    return result;
  }
  if (o.replaced) {
    // Another file than the one whose header was read (open_files.h): not
    // read at all, so that nothing of it is taken for the first one's.
    FileRead result;
    result.changed = true;
    return result;
  }
  base::Sha256Outcome outcome;
  FileRead result = watch_read(o.fd, also, [&](const base::ChunkSink& sink) {
    if (hash) {
      outcome = base::sha256_fd(o.fd, reads.options.hash, done, sink);
    } else {
      base::StreamOutcome streamed = base::stream_fd(o.fd, reads.options.hash, done, sink);
      outcome.bytes = streamed.bytes;
      outcome.error = std::move(streamed.error);
    }
  });
  result.outcome = std::move(outcome);
  return result;
}

std::string changed_message(const FileRead& read) {
  std::string message = "changed while being verified (still being written or copied?): ";
  if (read.stamp && read.stamp_after && read.stamp->size != read.stamp_after->size) {
    message += "it had " + std::to_string(read.stamp->size) + " bytes when its read began, " +
               "the read ended at byte " + std::to_string(read.read_to) + ", and it has " +
               std::to_string(read.stamp_after->size) + " now; ";
  }
  return message + "check again once the transfer has finished";
}

std::vector<FileRead> read_all(const ReadContext& reads, const std::vector<ReadJob>& jobs,
                               bool hash, ReadStats* stats) {
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
      const auto it = reads.read_by_layout.find(jobs[i].name);
      if (it == reads.read_by_layout.end()) return false;
      results[i] = it->second;
      return true;
    });
  }
  std::uint64_t total = 0;
  for (const std::size_t i : order) total += jobs[i].size;

  std::atomic<std::uint64_t> done{0};
  base::ParallelOptions parallel;
  parallel.jobs = OpenFiles::reading_threads(reads.options.jobs);
  parallel.tick_interval = reads.options.progress_interval;
  if (reads.options.progress) {
    parallel.on_tick = [&] {
      reads.options.progress(done.load(std::memory_order_relaxed), total, false);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  stats->jobs = base::parallel_for_each(order.size(), parallel, [&](std::size_t k) {
    const ReadJob& job = jobs[order[k]];
    results[order[k]] = read_file_once(reads, job.name, hash, reads.values.claim(job.name), &done);
  });
  if (reads.options.progress) reads.options.progress(done.load(), total, true);
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats->bytes = done.load();
  return results;
}

bool changed_while_verified(const ReadContext& reads, const std::string& name,
                            const FileRead& read) {
  const auto checked = reads.shard_stamps.find(name);
  const bool changed_since_check =
      checked != reads.shard_stamps.end() && read.stamp && !(checked->second == *read.stamp);
  return read.changed || changed_since_check;
}

}  // namespace stguard::verify
