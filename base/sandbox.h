// base/sandbox.h: opening files below a directory without ever leaving it.
//
//   stguard::base::UniqueFd dir(::open("/models/llama", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
//   stguard::base::Opened f = stguard::base::open_beneath(dir.get(), "a/b.safetensors",
//                                                         {.follow_symlinks = false});
//   if (!f.fd) std::cerr << stguard::base::open_error_text(f.err);
//
// Everything is opened read-only (O_RDONLY | O_CLOEXEC | O_NOCTTY), with
// openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): an absolute symlink or a
// ".." that would climb out fails with EXDEV, whatever the name says. Without
// follow_symlinks any symlink on the way fails with ELOOP. O_NONBLOCK keeps a
// FIFO named like a data file from blocking the open forever; O_NOATIME is
// used where permitted so that even access times stay as they were. Where
// openat2 is missing (Linux < 5.6, or hidden by a seccomp filter) the path is
// walked one component at a time with O_NOFOLLOW, and following symlinks is
// refused (EXDEV) rather than done unsafely.
#ifndef STGUARD_BASE_SANDBOX_H_
#define STGUARD_BASE_SANDBOX_H_

#include <string>

#include "base/file_io.h"

namespace stguard::base {

struct Opened {
  UniqueFd fd;
  int err = 0;  // errno when !fd
};

struct OpenBeneathOptions {
  bool follow_symlinks = false;  // symlinks that stay below the directory
  bool directory = false;        // O_DIRECTORY
};

// Opens `relative` (a name checked by safe_relative_name, or one read from
// the directory) below the directory open on `dir_fd`.
Opened open_beneath(int dir_fd, const std::string& relative, const OpenBeneathOptions& options);

// A short phrase for an errno of open_beneath: "does not exist", "is a symlink
// or goes through one (not followed)", "resolves outside DIR (not opened)",
// "permission denied", ... (strerror otherwise).
std::string open_error_text(int err);

}  // namespace stguard::base

#endif  // STGUARD_BASE_SANDBOX_H_
