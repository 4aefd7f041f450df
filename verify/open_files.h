// verify/open_files.h (internal to verify/): each file below a folder opened
// once per run, and that one descriptor used by every pass that reads it.
//
//   OpenFiles files(dir_fd);
//   HeldFile shard = files.open("model.safetensors", /*follow_symlinks=*/false);
//   if (!shard) report(base::open_error_text(shard.err));
//   parse_fd(shard.fd);                                  // the header ...
//   files.open("model.safetensors", false);              // ... later: the same descriptor,
//   sha256_fd(shard.fd);                                 // so the same file, hashed
//
// Why: the passes look at a file more than once (its header, then its hash
// and values; an index read, then hashed as listed in SHA256SUMS). Opened
// again by name, the second look could see another file, renamed over the
// first meanwhile, and the report would describe a file that never existed.
// Through one descriptor every look sees the file that was opened first.
//
// A run holds one descriptor per file it read until it ends (Verification
// owns the tables); `stguard verify` raises its soft RLIMIT_NOFILE to the
// hard limit for folders of many files. Opens use base::open_beneath.
#ifndef STGUARD_VERIFY_OPEN_FILES_H_
#define STGUARD_VERIFY_OPEN_FILES_H_

#include <map>
#include <mutex>
#include <string>

#include "base/file_io.h"

namespace stguard::verify {

// A descriptor the table owns (valid as long as the table lives), or why the
// open failed.
struct HeldFile {
  int fd = -1;
  int err = 0;  // errno of base::open_beneath when fd < 0
  explicit operator bool() const noexcept { return fd >= 0; }
};

class OpenFiles {
 public:
  // Files are opened below the directory open on `dir_fd` (borrowed: it must
  // outlive the table).
  explicit OpenFiles(int dir_fd) noexcept : dir_fd_(dir_fd) {}
  OpenFiles(const OpenFiles&) = delete;
  OpenFiles& operator=(const OpenFiles&) = delete;

  // The descriptor of `name` (relative to the directory, already checked by
  // base::safe_relative_name or read from the directory): opened on the first
  // call that succeeds, the same one afterwards. A name first reached through
  // a symlink (follow_symlinks) is ELOOP for a later call that does not follow
  // symlinks, as base::open_beneath would say. Failed opens are not kept: a
  // later call tries again. Safe from several threads.
  HeldFile open(const std::string& name, bool follow_symlinks);

 private:
  struct Held {
    base::UniqueFd fd;
    bool through_symlink = false;
  };
  int dir_fd_;
  std::mutex mutex_;
  std::map<std::string, Held> held_;
};

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_OPEN_FILES_H_
