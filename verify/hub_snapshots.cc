// verify/hub_snapshots.cc: a cache repository's refs and snapshots: refs/
// read (which commit each names), and each snapshot folder walked with its
// links read, never followed: a link counts only when its target, taken
// lexically, is exactly blobs/<name> of the same repository, and that blob
// is a regular file there.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/sandbox.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_content.h"
#include "verify/hub_repository.h"

namespace stguard::verify {
namespace {

// Deeper snapshot folders than this are not walked (diffusers uses one level).
constexpr int kMaxSnapshotDepth = 16;
// refs/ files are 40 hex digits; anything much longer is not a ref.
constexpr std::uint64_t kMaxRefBytes = 4096;
constexpr int kMaxRefDepth = 8;

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
  const std::string target = link_target_at(dir_fd, name);
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
void walk_snapshot_folder(Repository& repo, Snapshot& snap, int dir_fd, const std::string& prefix,
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
      if (sub.fd) walk_snapshot_folder(repo, snap, sub.fd.get(), path + "/", depth + 1);
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
void read_refs_below(Repository& repo, int dir_fd, const std::string& prefix, int depth,
                     const std::set<std::string>& commits, bool whole_repository) {
  for (const std::string& name : sorted_names(dir_fd)) {
    const std::string ref = prefix + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxRefDepth) continue;
      const base::Opened sub =
          base::open_beneath(dir_fd, name, {.follow_symlinks = false, .directory = true});
      if (sub.fd)
        read_refs_below(repo, sub.fd.get(), ref + "/", depth + 1, commits, whole_repository);
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

}  // namespace

void read_refs(Repository& repo, int refs_fd, const std::set<std::string>& commits,
               bool whole_repository) {
  read_refs_below(repo, refs_fd, "", 0, commits, whole_repository);
}

void walk_snapshot(Repository& repo, Snapshot& snap) {
  walk_snapshot_folder(repo, snap, snap.fd.get(), "", 0);
}

}  // namespace stguard::verify
