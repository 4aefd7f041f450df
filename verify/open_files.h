// verify/open_files.h (internal to verify/): each file below a folder opened
// once per run, and that one descriptor used by every pass that reads it.
//
//   OpenFiles files(dir_fd);
//   const HeldFile shard = files.open("model.safetensors", /*follow_symlinks=*/false);
//   if (!shard) report(base::open_error_text(shard.err));
//   parse_fd(shard.fd);                                  // the header ...
//   const HeldFile again = files.open("model.safetensors", false);
//   sha256_fd(again.fd);                                 // ... later the same descriptor
//
// Why: the passes look at a file more than once (its header, then its hash
// and values; an index read, then hashed as listed in SHA256SUMS). Opened
// again by name, the second look could see another file, renamed over the
// first meanwhile, and the report would describe a file that never existed.
// Through one descriptor every look sees the file that was opened first.
//
// Descriptors are kept until the table goes (Verification owns the tables),
// up to half the soft RLIMIT_NOFILE over all tables of the process (`stguard
// verify` raises the soft limit to the hard one first). Past that budget a
// file is opened for each look and closed after it, and a look that finds
// another file under the name (another inode, size or mtime than the first
// look saw) says so (HeldFile::replaced): never a mix of two files, at worst
// a file_changed. Opens use base::open_beneath.
#ifndef STGUARD_VERIFY_OPEN_FILES_H_
#define STGUARD_VERIFY_OPEN_FILES_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/file_io.h"

namespace stguard::verify {

// A descriptor to read while this object lives, or why the open failed.
struct HeldFile {
  int fd = -1;
  int err = 0;  // errno of base::open_beneath when fd < 0
  // Past the descriptor budget: this open found another file under the name
  // than the first one did (replaced by rename, or modified meanwhile).
  bool replaced = false;
  // Owns fd when the table does not keep it (past the budget).
  std::shared_ptr<const base::UniqueFd> own;
  explicit operator bool() const noexcept { return fd >= 0; }

  // An open that failed with errno `err`.
  static HeldFile failed(int err) {
    HeldFile out;
    out.err = err;
    return out;
  }
};

class OpenFiles {
 public:
  // Files are opened below the directory open on `dir_fd` (borrowed: it must
  // outlive the table).
  explicit OpenFiles(int dir_fd) noexcept : dir_fd_(dir_fd) {}
  OpenFiles(const OpenFiles&) = delete;
  OpenFiles& operator=(const OpenFiles&) = delete;
  ~OpenFiles();

  // The descriptor of `name` (relative to the directory, already checked by
  // base::safe_relative_name or read from the directory): opened on the first
  // call that succeeds, the same one afterwards (within the budget). A name
  // first reached through a symlink (follow_symlinks) is ELOOP for a later
  // call that does not follow symlinks, as base::open_beneath would say.
  // Failed opens are not kept: a later call tries again. Safe from several
  // threads.
  HeldFile open(const std::string& name, bool follow_symlinks);

  // Descriptors kept by every table of the process, and how many they may
  // keep: half the soft RLIMIT_NOFILE (the rest is for everything else).
  static std::size_t held_in_process() noexcept;
  static std::size_t budget() noexcept;

  // How many threads may read files at once: `wanted` (0: one per core),
  // at most what the other half of the soft RLIMIT_NOFILE leaves after a
  // reserve for standard streams, folders and reports, since each reading
  // thread may hold one descriptor of its own (past the budget). At least
  // one. `verify -j16` under `ulimit -n 24` reads with fewer threads rather
  // than failing opens with EMFILE.
  static unsigned reading_threads(unsigned wanted) noexcept;

 private:
  // What a file looked like when first opened, to know it again.
  struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
    std::int64_t size = 0;
    std::int64_t mtime_sec = 0;
    std::int64_t mtime_nsec = 0;
    friend bool operator==(const Identity&, const Identity&) = default;
  };
  struct Held {
    std::shared_ptr<const base::UniqueFd> fd;  // null when past the budget
    bool through_symlink = false;
    Identity identity;
  };
  int dir_fd_;
  std::mutex mutex_;
  std::map<std::string, Held> held_;
  std::size_t kept_ = 0;  // entries of held_ with a descriptor
};

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_OPEN_FILES_H_
