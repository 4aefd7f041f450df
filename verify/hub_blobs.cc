// verify/hub_blobs.cc: a cache repository's blobs: blobs/ looked at for
// leftovers (interrupted downloads, unused blobs, names that are no file),
// and every blob a snapshot links to hashed once against its name, the read
// also feeding the value scans of the snapshot files that are that blob.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "verify/file_read.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_content.h"
#include "verify/hub_repository.h"

namespace stguard::verify {
namespace {

// What a directory entry that is not a regular file is, for messages.
std::string not_a_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

// The sinks that hashing a blob feeds: the value scans of every snapshot
// file that is this blob (a blob two revisions share is read once, and each
// snapshot's scan gets its bytes).
class BlobSinks {
 public:
  explicit BlobSinks(std::vector<Snapshot>& snapshots) {
    for (Snapshot& snap : snapshots) {
      if (!snap.check) continue;
      for (const SnapshotFile& f : snap.files) {
        if (!f.blob.empty()) uses_[f.blob].emplace_back(&snap.check->v, f.path);
      }
    }
  }

  // Safe from several threads: the map is only read, claims are atomic.
  base::ChunkSink operator()(const ContentFile& blob) const {
    const auto it = uses_.find(blob.expected);
    if (it == uses_.end()) return {};
    std::vector<base::ChunkSink> sinks;
    for (const auto& [v, path] : it->second) {
      if (base::ChunkSink sink = v->shards.values.claim(path)) sinks.push_back(std::move(sink));
    }
    if (sinks.empty()) return {};
    if (sinks.size() == 1) return std::move(sinks.front());
    return [sinks = std::move(sinks)](std::span<const std::uint8_t> chunk) {
      for (const base::ChunkSink& sink : sinks) sink(chunk);
    };
  }

  // The sha256 of each snapshot file whose blob was hashed with it, for the
  // checksum pass to reuse.
  void share_digests(const std::vector<ContentFile>& files) const {
    for (const ContentFile& f : files) {
      const std::optional<FileRead> read = sha256_read_of(f);
      const auto it = uses_.find(f.expected);
      if (!read || it == uses_.end()) continue;
      for (const auto& [v, path] : it->second) v->read_by_layout[path] = *read;
    }
  }

 private:
  std::map<std::string, std::vector<std::pair<Verification*, std::string>>> uses_;
};

}  // namespace

void add_blob_uses(Repository& repo, const Snapshot& snap) {
  std::vector<ContentFile>& files = repo.report.hub->files;
  for (const SnapshotFile& f : snap.files) {
    if (f.blob.empty()) continue;
    auto [it, inserted] = repo.file_of_blob.emplace(f.blob, files.size());
    if (inserted) {
      ContentFile c;
      c.file = "blobs/" + f.blob;
      c.expected = f.blob;
      c.algorithm = hub_algorithm(f.blob);
      c.size = size_at(repo.blobs.get(), f.blob).value_or(0);
      files.push_back(std::move(c));
    }
    ContentFile& c = files[it->second];
    c.used_by.push_back("snapshots/" + snap.commit + "/" + f.path);
    for (const std::string& ref : snap.refs) {
      if (std::find(c.refs.begin(), c.refs.end(), ref) == c.refs.end()) c.refs.push_back(ref);
    }
  }
}

// Names in blobs/ that are no file at all (a directory, a FIFO, a symlink)
// are reported too: no snapshot can use them either, but they are not blobs.
void check_blob_folder(Repository& repo, bool whole_repository) {
  if (!repo.blobs) return;
  for (const std::string& name : sorted_names(repo.blobs.get())) {
    struct stat st {};
    const bool examined = ::fstatat(repo.blobs.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    const std::uint64_t size = examined ? static_cast<std::uint64_t>(st.st_size) : 0;
    if (whole_repository && examined && !S_ISREG(st.st_mode) && !name.ends_with(".incomplete")) {
      // A snapshot link to it has its own finding (resolve_link).
      Finding f = make_finding(
          S_ISLNK(st.st_mode) ? FindingKind::kSymlink : FindingKind::kNotRegularFile,
          Category::kHub, "blobs/" + name,
          "is " + not_a_file(st.st_mode) + ", not a blob file; not read (no snapshot can use it)",
          Severity::kWarning);
      if (S_ISLNK(st.st_mode)) f.other = link_target_at(repo.blobs.get(), name);
      repo.add(std::move(f));
      continue;
    }
    if (name.ends_with(".incomplete")) {
      repo.add(interrupted_download(FindingKind::kHubBlobIncomplete, "blobs/" + name, size));
    } else if (whole_repository && repo.file_of_blob.count(name) == 0) {
      Finding f = make_finding(FindingKind::kHubBlobUnused, Category::kHub, "blobs/" + name,
                               "no snapshot links to this blob (" + std::to_string(size) +
                                   " bytes; an older revision's file?)",
                               Severity::kWarning);
      f.actual_size = size;
      repo.add(std::move(f));
    }
  }
}

void hash_blobs(Repository& repo) {
  std::vector<ContentFile>& files = repo.report.hub->files;
  OpenFiles* blob_files = repo.blob_files.get();
  const BlobSinks sinks(repo.snapshots);
  hash_contents(
      files,
      [blob_files](const ContentFile& f) {
        if (blob_files == nullptr) return HeldFile::failed(ENOENT);
        return blob_files->open(f.expected, /*follow_symlinks=*/false);
      },
      repo.options, &*repo.report.hub, std::cref(sinks));
  sinks.share_digests(files);
  for (const ContentFile& f : files) {
    if (std::optional<Finding> finding = content_finding(f, "blob name", repo.shown_from)) {
      repo.add(std::move(*finding));
    }
  }
  if (!files.empty()) repo.report.checksum_sources.push_back("hub-blob-names");
}

// A blob that fails its name (or cannot be hashed) fails the checkpoints
// of every snapshot file that is that blob: the finding, kept once in the
// repository's report, is counted against each, and names the first.
void count_blob_findings(Repository& repo, Snapshot& snap) {
  std::map<std::string, std::vector<std::size_t>> findings_of_blob;
  for (std::size_t i = 0; i < repo.report.findings.size(); ++i) {
    const Finding& f = repo.report.findings[i];
    if ((f.kind == FindingKind::kHubContentMismatch ||
         f.kind == FindingKind::kHubContentUnreadable ||
         f.kind == FindingKind::kHubBlobUnverifiable || f.kind == FindingKind::kFileChanged) &&
        f.file.starts_with("blobs/")) {
      findings_of_blob[f.file.substr(6)].push_back(i);
    }
  }
  if (findings_of_blob.empty()) return;
  for (const SnapshotFile& file : snap.files) {
    const auto it = findings_of_blob.find(file.blob);
    if (file.blob.empty() || it == findings_of_blob.end()) continue;
    for (const std::size_t i : it->second) {
      Finding& f = repo.report.findings[i];
      Verification& v = snap.check->v;
      const std::string first =
          count_against_checkpoints(v.shards, v.checkpoints, file.path, f.severity);
      if (f.checkpoint.empty() && !first.empty()) {
        f.checkpoint = "snapshots/" + snap.commit + "/" + first;
      }
    }
  }
}

}  // namespace stguard::verify
