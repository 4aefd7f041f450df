// verify/hub_repository.h (internal to the Hub code of verify/): one
// repository of the Hugging Face cache (models--ORG--NAME) as the Hub
// verifier holds it while checking it, and the steps over it, each in the
// file of its job:
//
//   hub_repository.cc  the order of the checks: refs, snapshots, blobs/;
//                      each snapshot's ordinary checks (passes.h) started,
//                      the blobs hashed, the checks finished
//   hub_snapshots.cc   refs/ read; snapshots/ walked, each link read (never
//                      followed) and held to blobs/
//   hub_blobs.cc       blobs/ looked at for leftovers; the blobs the
//                      snapshots use hashed against their names, feeding
//                      the snapshots' value scans
//
// A repository holds snapshots/<commit>/<path> symlinks to ../../blobs/<hash>,
// refs/<branch> files naming a commit, and blobs/<hash>(.incomplete).
#ifndef STGUARD_VERIFY_HUB_REPOSITORY_H_
#define STGUARD_VERIFY_HUB_REPOSITORY_H_

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "verify/open_files.h"
#include "verify/passes.h"
#include "verify/verify.h"

namespace stguard::verify {

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
  // Blob name -> its entry in report.hub->files: every blob a snapshot links to.
  std::map<std::string, std::size_t> file_of_blob;
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

// A whole repository (`only` empty) or its snapshot `only`, on the open
// repository folder; `shown_from` as in Repository (hub_repository.cc).
VerifyReport verify_repository(base::UniqueFd repo_fd, const std::string& only,
                               const VerifyOptions& options, const std::string& shown_from);

// The finding for a symlink that is not followed where the cache must hold
// a folder (blobs/, a repository): one finding about the link itself
// (hub_repository.cc).
Finding unfollowed_folder_link(int dir_fd, const std::string& name, const std::string& file,
                               const std::string& consequence);

// refs/ (open on `refs_fd`), every file below it a ref: which commit each
// names, into repo.refs_of_commit, with a finding for each that leads to no
// snapshot among `commits` (hub_snapshots.cc).
void read_refs(Repository& repo, int refs_fd, const std::set<std::string>& commits,
               bool whole_repository);

// Collects the files of the snapshot open on snap.fd, at any depth, each
// link resolved by name to its blob; a link that leads elsewhere gets its
// finding and is left out (hub_snapshots.cc).
void walk_snapshot(Repository& repo, Snapshot& snap);

// Registers the blobs `snap` links to in report.hub->files (once each, in
// the order first seen) and file_of_blob, with the snapshot paths and refs
// using them (hub_blobs.cc).
void add_blob_uses(Repository& repo, const Snapshot& snap);

// blobs/: interrupted downloads; for the whole repository also blobs no
// snapshot uses and names there that are no file at all (hub_blobs.cc).
void check_blob_folder(Repository& repo, bool whole_repository);

// Hashes every blob a snapshot uses against its name, once, feeding the
// value scans of every snapshot file that is the blob and leaving its
// digest for their checksum passes; a finding for each that fails
// (hub_blobs.cc).
void hash_blobs(Repository& repo);

// Counts each blob's failure against the checkpoints of the snapshot files
// that are that blob; once the snapshot's checks are finished (hub_blobs.cc).
void count_blob_findings(Repository& repo, Snapshot& snap);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_HUB_REPOSITORY_H_
