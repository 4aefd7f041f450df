// verify/hub_repository.cc: one cache repository, or one snapshot of it,
// checked in order: refs read, snapshots walked, blobs/ looked at, each
// snapshot's ordinary checks (passes.h) started on its files (links read as
// the blobs they name), the blobs hashed once for all snapshots, then each
// snapshot's checks finished and its report merged into the repository's.
#include "verify/hub_repository.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/sandbox.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_content.h"
#include "verify/report_merge.h"

namespace stguard::verify {
namespace {

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
  if (v.options.sha256_file) {
    base::Result<std::string> list = read_checksum_option(v.options);
    if (!list) {
      repo.add(make_finding(FindingKind::kChecksumUnreadable, Category::kChecksum, "",
                            list.error().message));
      return;
    }
    v.checksum_text = std::move(*list);
  }
  run_structure_passes(v);
  snap.check = std::move(check);
}

// The rest of a snapshot's checks, once the blobs were hashed: SHA256SUMS
// (taking the digests of the blobs' reads), values, then the report merged
// into the repository's.
void finish_snapshot_check(Repository& repo, Snapshot& snap) {
  if (!snap.check) return;
  Verification& v = snap.check->v;
  run_content_passes(v);
  for (Finding& f : compare_checksum_sources(v.checksum_text, v.report.checksums,
                                             snap.check->hub_sha256, "Hub blob name")) {
    v.add(std::move(f));
  }
  finish_checkpoints(v);
  count_blob_findings(repo, snap);
  merge_report(repo.report, take_report(v), "snapshots/" + snap.commit + "/");
}

// The snapshot's line in report.hub: its files, and how many of them are a
// blob whose content matched its name.
SnapshotReport snapshot_report(const Repository& repo, const Snapshot& snap) {
  SnapshotReport s;
  s.commit = snap.commit;
  s.refs = snap.refs;
  s.files = snap.files.size();
  for (const SnapshotFile& f : snap.files) {
    if (f.blob.empty()) continue;
    const ContentFile& blob = repo.report.hub->files[repo.file_of_blob.at(f.blob)];
    if (blob.verdict == ContentVerdict::kVerified) ++s.verified;
  }
  return s;
}

}  // namespace

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
    read_refs(repo, refs.fd.get(), std::set<std::string>(commits.begin(), commits.end()), whole);
  }

  for (const std::string& commit : commits) {
    Snapshot snap;
    snap.commit = commit;
    const auto r = repo.refs_of_commit.find(commit);
    if (r != repo.refs_of_commit.end()) snap.refs = r->second;
    snap.fd =
        base::open_beneath(snaps.fd.get(), commit, {.follow_symlinks = false, .directory = true})
            .fd;
    if (!snap.fd) continue;
    walk_snapshot(repo, snap);
    add_blob_uses(repo, snap);
    repo.snapshots.push_back(std::move(snap));
  }
  check_blob_folder(repo, whole);
  for (Snapshot& snap : repo.snapshots) start_snapshot_check(repo, snap);
  if (g_test_between_passes) g_test_between_passes();
  hash_blobs(repo);
  for (Snapshot& snap : repo.snapshots) {
    repo.report.hub->snapshots.push_back(snapshot_report(repo, snap));
    finish_snapshot_check(repo, snap);
  }
  return std::move(repo.report);
}

}  // namespace stguard::verify
