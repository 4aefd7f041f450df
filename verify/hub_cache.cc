// verify/hub_cache.cc: the Hugging Face cache: snapshot links read (never followed) and held to
// blobs/, refs, blobs hashed against their names, leftovers, then the ordinary checks on each
// snapshot.
#include "verify/hub_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/hex.h"
#include "base/sandbox.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_content.h"
#include "verify/layout.h"
#include "verify/passes.h"

namespace stguard::verify {
namespace {

// Deeper snapshot folders than this are not walked (diffusers uses one level).
constexpr int kMaxSnapshotDepth = 16;
// refs/ files are 40 hex digits; anything much longer is not a ref.
constexpr std::uint64_t kMaxRefBytes = 4096;
constexpr int kMaxRefDepth = 8;

// The finding for a symlink that is not followed where the cache must hold
// a folder (blobs/, a repository): one finding about the link itself.
Finding unfollowed_folder_link(int dir_fd, const std::string& name, const std::string& file,
                               const std::string& consequence) {
  const std::string target = link_target_at(dir_fd, name);
  Finding f =
      make_finding(FindingKind::kSymlink, Category::kHub, file,
                   "is a symlink to " + in_quotes(target) + "; not followed, so " + consequence);
  f.other = target;
  return f;
}

// One file of a snapshot: the blob it links to, or a regular file (a cache
// written without symlinks, as on Windows).
struct SnapshotFile {
  std::string path;  // relative to the snapshot
  std::string blob;  // empty for a regular file
};

// One snapshot's ordinary checks, kept from the passes that read headers to
// those that read contents: the blobs are hashed in between, each read once
// for its name's hash and for the value scans of the snapshot files it is.
struct SnapshotCheck {
  explicit SnapshotCheck(const VerifyOptions& given) : options(given), v(options) {
    options.follow_symlinks = false;  // links were resolved when walked, by name
  }
  VerifyOptions options;
  Verification v;
  std::map<std::string, std::string> hub_sha256;  // path -> sha256 blob name
};

struct Snapshot {
  std::string commit;
  base::UniqueFd fd;
  std::vector<SnapshotFile> files;
  std::set<std::string> bad_top_level;  // links not used by the ordinary checks
  std::vector<std::string> refs;
  std::unique_ptr<SnapshotCheck> check;  // null when its checks cannot run
};

struct Repository {
  base::UniqueFd fd;
  base::UniqueFd blobs;  // invalid when there is no blobs/
  // Each blob opened once, for every snapshot linking to it and every pass.
  std::unique_ptr<OpenFiles> blob_files;
  std::vector<Snapshot> snapshots;
  std::map<std::string, std::vector<std::string>> refs_of_commit;
  VerifyReport report;
  const VerifyOptions& options;
  // blobs/ is a symlink (reported once): the snapshot links into it are not
  // each called dangling.
  bool blobs_is_link = false;
  // Put before the repository's paths in messages: its folder at the cache
  // root (where file names are relative to the root), else "".
  std::string shown_from;

  Repository(const VerifyOptions& opts, std::string shown)
      : options(opts), shown_from(std::move(shown)) {}
  void add(Finding f) { report.findings.push_back(std::move(f)); }
};

// The target of the link `link_path` (relative to the repository), taken
// lexically: the blob name when it is exactly blobs/<name>, else nullopt.
std::optional<std::string> blob_named_by(const std::string& link_path, const std::string& target) {
  if (target.empty() || target.front() == '/') return std::nullopt;
  std::vector<std::string> parts;
  const std::filesystem::path link(link_path);
  for (const auto& p : link.parent_path()) parts.push_back(p.string());
  std::size_t start = 0;
  while (start <= target.size()) {
    const std::size_t end = std::min(target.find('/', start), target.size());
    const std::string part = target.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  if (parts.size() != 2 || parts[0] != "blobs") return std::nullopt;
  return parts[1];
}

// Reads a snapshot link and checks where it leads; the blob name, or nullopt
// with a finding added.
std::optional<std::string> resolve_link(Repository& repo, int dir_fd, const std::string& name,
                                        const std::string& repo_path) {
  char buffer[4096];
  const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buffer, sizeof buffer);
  const std::string target =
      n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  const std::optional<std::string> blob = blob_named_by(repo_path, target);
  if (!blob) {
    Finding f = make_finding(FindingKind::kSymlinkEscapes, Category::kHub, repo_path,
                             "is a symlink to " + in_quotes(target) +
                                 ", not into this repository's blobs/; not followed");
    f.other = target;
    repo.add(std::move(f));
    return std::nullopt;
  }
  if (repo.blobs_is_link) return std::nullopt;  // the finding about blobs says why
  struct stat st {};
  if (!repo.blobs || ::fstatat(repo.blobs.get(), blob->c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const bool partial = repo.blobs && size_at(repo.blobs.get(), *blob + ".incomplete");
    Finding f =
        make_finding(FindingKind::kHubLinkDangling, Category::kHub, repo_path,
                     "links to " + repo.shown_from + "blobs/" + *blob + ", which is not there" +
                         (partial ? " (" + repo.shown_from + "blobs/" + *blob +
                                        ".incomplete is: the download was interrupted)"
                                  : std::string()));
    f.other = repo.shown_from + "blobs/" + *blob;
    repo.add(std::move(f));
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    Finding f = make_finding(
        S_ISLNK(st.st_mode) ? FindingKind::kSymlinkEscapes : FindingKind::kNotRegularFile,
        Category::kHub, repo_path,
        "links to " + repo.shown_from + "blobs/" + *blob +
            (S_ISLNK(st.st_mode) ? ", which is itself a symlink; not followed"
                                 : ", which is not a regular file"));
    f.other = repo.shown_from + "blobs/" + *blob;
    repo.add(std::move(f));
    return std::nullopt;
  }
  return blob;
}

// Collects the files of one snapshot folder (recursively), links resolved.
void walk_snapshot(Repository& repo, Snapshot& snap, int dir_fd, const std::string& prefix,
                   int depth) {
  for (const std::string& name : sorted_names(dir_fd)) {
    const std::string path = prefix + name;
    const std::string repo_path = "snapshots/" + snap.commit + "/" + path;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      std::optional<std::string> blob = resolve_link(repo, dir_fd, name, repo_path);
      if (blob) {
        snap.files.push_back({path, std::move(*blob)});
      } else if (prefix.empty()) {
        snap.bad_top_level.insert(name);
      }
    } else if (S_ISREG(st.st_mode)) {
      snap.files.push_back({path, ""});
    } else if (S_ISDIR(st.st_mode) && depth < kMaxSnapshotDepth) {
      const base::Opened sub =
          base::open_beneath(dir_fd, name, {.follow_symlinks = false, .directory = true});
      if (sub.fd) walk_snapshot(repo, snap, sub.fd.get(), path + "/", depth + 1);
    }
  }
}

// refs/<name> files (branches, tags, refs/pr/N): which commit each names.
//
// In a whole repository a ref that leads to no snapshot here (it cannot be
// read, holds no commit hash, or names a commit whose snapshot is missing)
// is an error, whatever its name: from_pretrained(revision=NAME) and
// hf_hub_download resolve every revision name through refs/NAME the same
// way, "main" being only the default, and the Hub client writes refs/NAME
// only for a revision it downloaded; so that revision no longer loads from
// this cache (offline). Given one snapshot, the refs are about the other
// revisions too, and stay warnings.
void read_refs(Repository& repo, int dir_fd, const std::string& prefix, int depth,
               const std::set<std::string>& commits, bool whole_repository) {
  for (const std::string& name : sorted_names(dir_fd)) {
    const std::string ref = prefix + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxRefDepth) continue;
      const base::Opened sub =
          base::open_beneath(dir_fd, name, {.follow_symlinks = false, .directory = true});
      if (sub.fd) read_refs(repo, sub.fd.get(), ref + "/", depth + 1, commits, whole_repository);
      continue;
    }
    const base::Opened o = base::open_beneath(dir_fd, name, {.follow_symlinks = false});
    const base::Result<std::string> read =
        o.fd ? base::read_fd(o.fd.get(), kMaxRefBytes)
             : base::Result<std::string>(base::fail(base::open_error_text(o.err)));
    const std::string err = read ? std::string() : read.error().message;
    std::string text = read ? *read : std::string();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
      text.pop_back();
    }
    const Severity severity = whole_repository ? Severity::kError : Severity::kWarning;
    if (!err.empty() || hub_algorithm(text) != kGitBlobAlgorithm) {
      repo.add(make_finding(
          FindingKind::kHubRefInvalid, Category::kHub, "refs/" + ref,
          err.empty() ? "does not hold a commit hash (40 hex digits)" : "cannot be read: " + err,
          severity));
      continue;
    }
    if (whole_repository && commits.count(text) == 0) {
      repo.add(make_finding(FindingKind::kHubRefInvalid, Category::kHub, "refs/" + ref,
                            "names commit " + text + ", which has no snapshot here: revision " +
                                in_quotes(ref) + " cannot be loaded from this cache",
                            severity));
    }
    repo.refs_of_commit[text].push_back(ref);
  }
}

// What a directory entry that is not a regular file is, for messages.
std::string not_a_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

// blobs/: interrupted downloads, and (for the whole repository) blobs no
// snapshot uses, and names there that are no file at all (a directory, a
// FIFO, a symlink), which no snapshot can use either but are not blobs.
void check_blob_folder(Repository& repo, const std::set<std::string>& used, bool whole_repository) {
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
    } else if (whole_repository && used.count(name) == 0) {
      Finding f = make_finding(FindingKind::kHubBlobUnused, Category::kHub, "blobs/" + name,
                               "no snapshot links to this blob (" + std::to_string(size) +
                                   " bytes; an older revision's file?)",
                               Severity::kWarning);
      f.actual_size = size;
      repo.add(std::move(f));
    }
  }
}

void prefix_name(std::string& name, const std::string& prefix) {
  name = name.empty() ? prefix.substr(0, prefix.size() - 1) : prefix + name;
}

// Adds one snapshot's value scan to the repository's.
void merge_values(std::optional<ValuesReport>& into, ValuesReport&& from,
                  const std::string& prefix) {
  if (!into) into.emplace();
  ValuesReport& v = *into;
  v.shards += from.shards;
  v.shards_incomplete += from.shards_incomplete;
  v.tensors += from.tensors;
  v.tensor_bytes += from.tensor_bytes;
  v.tensors_nan += from.tensors_nan;
  v.tensors_inf += from.tensors_inf;
  v.tensors_all_zero += from.tensors_all_zero;
  v.nan += from.nan;
  v.pos_inf += from.pos_inf;
  v.neg_inf += from.neg_inf;
  v.bytes_read += from.bytes_read;
  v.seconds += from.seconds;
  for (ScannedTensor& t : from.noteworthy) {
    prefix_name(t.file, prefix);
    v.noteworthy.push_back(std::move(t));
  }
}

// Appends `from` to `into` with every file name prefixed (totals are
// counted once, at the end, over everything): shards, indexes, checkpoints,
// checksums, the value scan, findings and the Hub's own parts.
void merge_report(VerifyReport& into, VerifyReport&& from, const std::string& prefix) {
  for (ShardReport& s : from.shards) {
    prefix_name(s.file, prefix);
    into.shards.push_back(std::move(s));
  }
  for (IndexReport& i : from.indexes) {
    prefix_name(i.file, prefix);
    into.indexes.push_back(std::move(i));
  }
  if (from.checksums) {
    if (!into.checksums) {
      into.checksums = std::move(from.checksums);
      if (!into.checksums->from_option) prefix_name(into.checksums->file, prefix);
    } else {
      ChecksumReport& c = *into.checksums;
      c.entries += from.checksums->entries;
      c.verified += from.checksums->verified;
      c.failed += from.checksums->failed;
      c.bytes_hashed += from.checksums->bytes_hashed;
      c.seconds += from.checksums->seconds;
    }
  }
  for (CheckpointReport& c : from.checkpoints) {
    prefix_name(c.name, prefix);
    prefix_name(c.folder, prefix);
    for (std::string& shard : c.shards) prefix_name(shard, prefix);
    into.checkpoints.push_back(std::move(c));
  }
  if (from.values) merge_values(into.values, std::move(*from.values), prefix);
  for (Finding& f : from.findings) {
    prefix_name(f.file, prefix);
    if (!f.shard.empty()) prefix_name(f.shard, prefix);
    if (!f.checkpoint.empty()) prefix_name(f.checkpoint, prefix);
    into.findings.push_back(std::move(f));
  }
  for (std::string& source : from.checksum_sources) {
    if (std::find(into.checksum_sources.begin(), into.checksum_sources.end(), source) ==
        into.checksum_sources.end()) {
      into.checksum_sources.push_back(std::move(source));
    }
  }
  if (from.hub) {
    if (!into.hub) into.hub.emplace();
    for (SnapshotReport& s : from.hub->snapshots) into.hub->snapshots.push_back(std::move(s));
    for (ContentFile& f : from.hub->files) {
      prefix_name(f.file, prefix);
      for (std::string& u : f.used_by) prefix_name(u, prefix);
      into.hub->files.push_back(std::move(f));
    }
    into.hub->bytes_hashed += from.hub->bytes_hashed;
    into.hub->seconds += from.hub->seconds;
  }
}

// The ordinary checks on a snapshot (its subfolders too with --recursive), its links read as the
// blobs they name: the passes that read headers (the blobs are hashed
// next, feeding the value scans set up here).
void start_snapshot_check(Repository& repo, Snapshot& snap) {
  auto check = std::make_unique<SnapshotCheck>(repo.options);
  Verification& v = check->v;
  v.report.dir = "snapshots/" + snap.commit;
  v.folder.set_dir(std::move(snap.fd));
  v.folder.blobs = repo.blobs.get();
  v.folder.blob_files = repo.blob_files.get();
  // Every link that names a blob, at any depth: --recursive lists the
  // subfolders' links too (diffusers' unet/, vae/...), and the folder passes
  // read each as its blob (read_links_as_blobs, passes.cc).
  for (const SnapshotFile& f : snap.files) {
    if (f.blob.empty()) continue;
    v.folder.blob_of[f.path] = f.blob;
    if (hub_algorithm(f.blob) == kSha256Algorithm) check->hub_sha256[f.path] = f.blob;
  }
  for (const std::string& name : sorted_names(v.folder.dir.get())) {
    if (snap.bad_top_level.count(name) != 0) continue;  // reported as a Hub finding
    Entry e = entry_of(v.folder.dir.get(), name);
    if (v.folder.blob_of.count(name) != 0) e.type = EntryType::kRegular;
    v.folder.by_name[e.name] = v.folder.entries.size();
    v.folder.entries.push_back(std::move(e));
  }
  if (!load_checksum_option(v)) {
    repo.add(
        make_finding(FindingKind::kChecksumUnreadable, Category::kChecksum, "", v.report.fatal));
    return;
  }
  run_structure_passes(v);
  snap.check = std::move(check);
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
      const std::string first = count_against_checkpoints(snap.check->v, file.path, f.severity);
      if (f.checkpoint.empty() && !first.empty()) {
        f.checkpoint = "snapshots/" + snap.commit + "/" + first;
      }
    }
  }
}

// The rest of a snapshot's checks, once the blobs were hashed: SHA256SUMS
// (taking the digests of the blobs' reads), values, then the report merged
// into the repository's.
void finish_snapshot_check(Repository& repo, Snapshot& snap) {
  if (!snap.check) return;
  Verification& v = snap.check->v;
  run_content_passes(v);
  compare_checksum_sources(v, snap.check->hub_sha256, "Hub blob name");
  finish_checkpoints(v);
  count_blob_findings(repo, snap);
  merge_report(repo.report, std::move(v.report), "snapshots/" + snap.commit + "/");
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
      if (base::ChunkSink sink = v->values.claim(path)) sinks.push_back(std::move(sink));
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

// A whole repository (`only` empty) or one snapshot of it, on the open
// repository folder; `shown_from` as in Repository.
VerifyReport verify_repository(base::UniqueFd repo_fd, const std::string& only,
                               const VerifyOptions& options, const std::string& shown_from) {
  Repository repo(options, shown_from);
  repo.fd = std::move(repo_fd);
  repo.report.ran = true;
  repo.report.hub.emplace();
  const bool whole = only.empty();
  base::Opened blobs =
      base::open_beneath(repo.fd.get(), "blobs", {.follow_symlinks = false, .directory = true});
  repo.blobs = std::move(blobs.fd);
  if (repo.blobs) repo.blob_files = std::make_unique<OpenFiles>(repo.blobs.get());
  if (!repo.blobs && is_symlink_at(repo.fd.get(), "blobs")) {
    repo.blobs_is_link = true;
    repo.add(unfollowed_folder_link(repo.fd.get(), "blobs", "blobs",
                                    "no snapshot link into it can be checked"));
  }

  std::vector<std::string> commits;
  const base::Opened snaps =
      base::open_beneath(repo.fd.get(), "snapshots", {.follow_symlinks = false, .directory = true});
  if (snaps.fd) {
    for (const std::string& name : sorted_names(snaps.fd.get())) {
      if ((whole || name == only) && is_directory_at(snaps.fd.get(), name)) {
        commits.push_back(name);
      }
    }
  }
  if (commits.empty()) {
    repo.add(make_finding(FindingKind::kHubNoSnapshots, Category::kHub, "snapshots",
                          whole ? "no snapshot in this repository (nothing was downloaded?)"
                                : "snapshot " + in_quotes(only) + " is not there"));
  }
  const base::Opened refs =
      base::open_beneath(repo.fd.get(), "refs", {.follow_symlinks = false, .directory = true});
  if (refs.fd) {
    read_refs(repo, refs.fd.get(), "", 0, std::set<std::string>(commits.begin(), commits.end()),
              whole);
  }

  std::set<std::string> used;
  std::map<std::string, std::size_t> file_of_blob;  // blob -> index in hub->files
  std::vector<ContentFile>& files = repo.report.hub->files;
  for (const std::string& commit : commits) {
    Snapshot snap;
    snap.commit = commit;
    const auto r = repo.refs_of_commit.find(commit);
    if (r != repo.refs_of_commit.end()) snap.refs = r->second;
    snap.fd =
        base::open_beneath(snaps.fd.get(), commit, {.follow_symlinks = false, .directory = true})
            .fd;
    if (!snap.fd) continue;
    walk_snapshot(repo, snap, snap.fd.get(), "", 0);
    for (const SnapshotFile& f : snap.files) {
      if (f.blob.empty()) continue;
      used.insert(f.blob);
      auto [it, inserted] = file_of_blob.emplace(f.blob, files.size());
      if (inserted) {
        ContentFile c;
        c.file = "blobs/" + f.blob;
        c.expected = f.blob;
        c.algorithm = hub_algorithm(f.blob);
        c.size = size_at(repo.blobs.get(), f.blob).value_or(0);
        files.push_back(std::move(c));
      }
      ContentFile& c = files[it->second];
      c.used_by.push_back("snapshots/" + commit + "/" + f.path);
      for (const std::string& ref : snap.refs) {
        if (std::find(c.refs.begin(), c.refs.end(), ref) == c.refs.end()) c.refs.push_back(ref);
      }
    }
    repo.snapshots.push_back(std::move(snap));
  }
  check_blob_folder(repo, used, whole);
  for (Snapshot& snap : repo.snapshots) start_snapshot_check(repo, snap);
  if (g_test_between_passes) g_test_between_passes();

  OpenFiles* blob_files = repo.blob_files.get();
  const BlobSinks sinks(repo.snapshots);
  hash_contents(
      files,
      [blob_files](const ContentFile& f) {
        if (blob_files == nullptr) return HeldFile::failed(ENOENT);
        return blob_files->open(f.expected, /*follow_symlinks=*/false);
      },
      options, &*repo.report.hub, std::cref(sinks));
  sinks.share_digests(files);
  for (const ContentFile& f : files) {
    if (std::optional<Finding> finding = content_finding(f, "blob name", repo.shown_from)) {
      repo.add(std::move(*finding));
    }
  }
  if (!files.empty()) repo.report.checksum_sources.push_back("hub-blob-names");

  for (Snapshot& snap : repo.snapshots) {
    SnapshotReport s;
    s.commit = snap.commit;
    s.refs = snap.refs;
    s.files = snap.files.size();
    for (const SnapshotFile& f : snap.files) {
      if (f.blob.empty()) continue;
      if (files[file_of_blob[f.blob]].verdict == ContentVerdict::kVerified) ++s.verified;
    }
    repo.report.hub->snapshots.push_back(std::move(s));
    finish_snapshot_check(repo, snap);
  }
  return std::move(repo.report);
}

// Fails (an I/O failure) with "PATH: cannot open: why".
base::Result<base::UniqueFd> open_directory(const std::string& path) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return base::io_failure(path + ": cannot open: " + base::errno_text(errno));
  return fd;
}

}  // namespace

VerifyReport verify_hub(const std::string& dir, base::Opened opened, Layout layout,
                        const VerifyOptions& options) {
  VerifyReport report;
  report.dir = dir;
  report.layout = layout;
  if (layout == Layout::kHubSnapshot) {
    const std::filesystem::path p = normal_path(dir);
    base::Result<base::UniqueFd> repo = open_directory(p.parent_path().parent_path().string());
    if (!repo) {
      report.fatal = repo.error().message;
      return report;
    }
    merge_report(report, verify_repository(std::move(*repo), p.filename().string(), options, ""),
                 "");
  } else {
    base::UniqueFd root = std::move(opened.fd);
    if (!root) {
      report.fatal = dir + ": cannot open: " + base::errno_text(opened.err);
      return report;
    }
    if (layout == Layout::kHubRepo) {
      merge_report(report, verify_repository(std::move(root), "", options, ""), "");
    } else {
      report.hub.emplace();
      bool linked_repositories = false;
      for (const std::string& name : sorted_names(root.get())) {
        if (is_hub_repo_name(name) && is_symlink_at(root.get(), name)) {
          // Never followed, as no symlinked folder is: said, not skipped.
          report.findings.push_back(
              unfollowed_folder_link(root.get(), name, name, "this repository is not verified"));
          linked_repositories = true;
          continue;
        }
        if (!is_hub_repo_name(name) || !is_directory_at(root.get(), name)) continue;
        base::Opened repo =
            base::open_beneath(root.get(), name, {.follow_symlinks = false, .directory = true});
        if (!repo.fd) continue;
        VerifyReport sub = verify_repository(std::move(repo.fd), "", options, name + "/");
        count_totals(sub);
        RepositorySummary summary;
        summary.name = name;
        summary.exit_code = sub.exit_code();
        summary.errors = sub.errors;
        summary.warnings = sub.warnings;
        if (sub.hub) {
          summary.snapshots = sub.hub->snapshots.size();
          summary.files = sub.hub->files.size();
          for (const ContentFile& f : sub.hub->files) {
            if (f.verdict == ContentVerdict::kVerified) ++summary.files_verified;
          }
        }
        report.hub->repositories.push_back(summary);
        merge_report(report, std::move(sub), name + "/");
      }
      if (report.hub->repositories.empty() && !linked_repositories) {
        report.findings.push_back(make_finding(FindingKind::kHubNoSnapshots, Category::kHub, "",
                                               "no models--*, datasets--* or spaces--* "
                                               "repository in this cache folder"));
      }
    }
  }
  report.ran = true;
  count_totals(report);
  return report;
}

}  // namespace stguard::verify
