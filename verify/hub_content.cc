// verify/hub_content.cc: hashing contents against Hub checksums on a pool,
// the findings that follow, and SHA256SUMS against those checksums.
#include "verify/hub_content.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>

#include "base/git_blob.h"
#include "base/hex.h"
#include "base/parallel.h"
#include "base/sandbox.h"
#include "base/sha256.h"
#include "verify/findings.h"
#include "verify/open_files.h"

namespace stguard::verify {
namespace {

bool all_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return base::hex_value(c) >= 0; });
}

// Hub checksums are written in lower case; a hand-made etag may not be.
std::string lower_case(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

void hash_one(ContentFile& file, const std::function<HeldFile(const ContentFile&)>& open,
              const VerifyOptions& options, const base::ChunkSink& also,
              std::atomic<std::uint64_t>* done) {
  const HeldFile o = open(file);
  if (!o) {
    file.error = "cannot open: " + base::open_error_text(o.err);
    file.verdict = ContentVerdict::kUnreadable;
    return;
  }
  if (o.replaced) {  // not the file the other passes read (open_files.h): not read
    file.verdict = ContentVerdict::kChanged;
    file.error = changed_message(FileRead{});
    return;
  }
  std::uint64_t bytes = 0;
  std::string actual;
  std::string failed;
  const FileRead watched = watch_read(o.fd, also, [&](const base::ChunkSink& sink) {
    if (file.algorithm == kSha256Algorithm) {
      const base::Sha256Outcome h = base::sha256_fd(o.fd, options.hash, done, sink);
      bytes = h.bytes;
      failed = h.error;
      if (h.ok()) actual = base::to_hex(h.digest);
    } else {
      const base::GitBlobOutcome h = base::git_blob_fd(o.fd, done, sink);
      bytes = h.bytes;
      failed = h.error;
      if (h.ok()) actual = base::to_hex(std::span(h.digest));
    }
  });
  file.size = bytes;
  // Grown or shrunk while hashed: its digest describes no state of the file,
  // however the read went (the checksum pass says the same, file_read.h).
  if (watched.changed) {
    file.verdict = ContentVerdict::kChanged;
    file.error = changed_message(watched);
    file.size = watched.stamp->size;
    return;
  }
  if (!failed.empty()) {
    file.error = failed;
    file.verdict = ContentVerdict::kUnreadable;
    return;
  }
  file.actual = std::move(actual);
  file.verdict = file.actual == lower_case(file.expected) ? ContentVerdict::kVerified
                                                          : ContentVerdict::kMismatch;
}

}  // namespace

std::string hub_algorithm(std::string_view hex) {
  if (!all_hex(hex)) return "";
  if (hex.size() == 64) return std::string(kSha256Algorithm);
  if (hex.size() == 40) return std::string(kGitBlobAlgorithm);
  return "";
}

void hash_contents(std::vector<ContentFile>& files,
                   const std::function<HeldFile(const ContentFile&)>& open,
                   const VerifyOptions& options, HubReport* hub, const ContentSinks& also) {
  std::vector<std::size_t> order;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].algorithm.empty() || files[i].verdict == ContentVerdict::kMissing) continue;
    order.push_back(i);
    total += files[i].size;
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return files[a].size > files[b].size; });
  std::atomic<std::uint64_t> done{0};
  base::ParallelOptions parallel;
  parallel.jobs = OpenFiles::reading_threads(options.jobs);
  parallel.tick_interval = options.progress_interval;
  if (options.progress) {
    parallel.on_tick = [&] {
      options.progress(done.load(std::memory_order_relaxed), total, false);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  base::parallel_for_each(order.size(), parallel, [&](std::size_t k) {
    ContentFile& file = files[order[k]];
    hash_one(file, open, options, also ? also(file) : base::ChunkSink(), &done);
  });
  if (options.progress) options.progress(done.load(), total, true);
  hub->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  hub->bytes_hashed += done.load();
}

std::optional<FileRead> sha256_read_of(const ContentFile& file) {
  if (file.algorithm != kSha256Algorithm) return std::nullopt;
  if (file.verdict == ContentVerdict::kChanged) {
    // Not read again: the checksum pass reports it changed, as it is.
    FileRead read;
    read.changed = true;
    read.outcome.error = file.error;
    return read;
  }
  if (file.verdict != ContentVerdict::kVerified && file.verdict != ContentVerdict::kMismatch) {
    return std::nullopt;
  }
  FileRead read;
  if (!base::from_hex(file.actual, read.outcome.digest)) return std::nullopt;
  read.outcome.bytes = file.size;
  return read;
}

std::optional<Finding> content_finding(const ContentFile& file, std::string_view source,
                                       std::string_view shown_from) {
  std::string users;
  for (const std::string& u : file.used_by) {
    if (!users.empty()) users += ", ";
    users += std::string(shown_from) + u;
  }
  const std::string what = users.empty() || file.used_by == std::vector<std::string>{file.file}
                               ? ""
                               : " (" + users + ")";
  switch (file.verdict) {
    case ContentVerdict::kVerified:
    case ContentVerdict::kMissing:
      return std::nullopt;
    case ContentVerdict::kMismatch: {
      Finding f = make_finding(FindingKind::kHubContentMismatch, Category::kHub, file.file,
                               "content" + what + " does not match its " + std::string(source) +
                                   ": expected " + file.algorithm + " " + file.expected +
                                   ", actual " + file.actual);
      f.other = users;
      if (file.algorithm == kSha256Algorithm) {
        f.expected_sha256 = file.expected;
        f.actual_sha256 = file.actual;
      }
      f.actual_size = file.size;
      return f;
    }
    case ContentVerdict::kChanged: {
      Finding f = make_finding(FindingKind::kFileChanged, Category::kFolder, file.file,
                               "content" + what + " " + file.error);
      f.other = users;
      return f;
    }
    case ContentVerdict::kUnreadable: {
      Finding f = make_finding(FindingKind::kHubContentUnreadable, Category::kHub, file.file,
                               "content" + what + " could not be hashed: " + file.error);
      f.other = users;
      return f;
    }
    case ContentVerdict::kUnverifiable: {
      Finding f = make_finding(FindingKind::kHubBlobUnverifiable, Category::kHub, file.file,
                               "its " + std::string(source) + " " + in_quotes(file.expected) +
                                   " is neither a sha256 (64 hex digits) nor a git blob hash "
                                   "(40); content" +
                                   what + " not verified",
                               Severity::kWarning);
      f.other = users;
      return f;
    }
  }
  return std::nullopt;
}

Finding interrupted_download(FindingKind kind, std::string file, std::uint64_t size) {
  Finding f = make_finding(kind, Category::kHub, std::move(file),
                           "an interrupted download (" + std::to_string(size) +
                               " bytes so far); run the download again to finish it",
                           Severity::kWarning);
  f.actual_size = size;
  return f;
}

}  // namespace stguard::verify
