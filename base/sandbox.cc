#include "base/sandbox.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace stguard::base {
namespace {

int raw_openat2(int dir_fd, const char* path, std::uint64_t flags, std::uint64_t resolve) {
  open_how how{};
  how.flags = flags;
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dir_fd, path, &how, sizeof how));
}

// Without openat2: walk the components one by one, none of them allowed to
// be a symlink.
Opened open_beneath_fallback(int dir_fd, const std::string& relative, std::uint64_t final_flags) {
  Opened out;
  UniqueFd held;
  int current = dir_fd;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = relative.find('/', start);
    const std::string part =
        relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (slash == std::string::npos) {
      const int fd = ::openat(current, part.c_str(), static_cast<int>(final_flags) | O_NOFOLLOW);
      if (fd < 0) {
        out.err = errno;
      } else {
        out.fd = UniqueFd(fd);
      }
      return out;
    }
    const int fd = ::openat(current, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      out.err = errno;
      return out;
    }
    held = UniqueFd(fd);
    current = held.get();
    start = slash + 1;
  }
}

}  // namespace

Opened open_beneath(int dir_fd, const std::string& relative, const OpenBeneathOptions& options) {
  std::uint64_t flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (!options.follow_symlinks) flags |= O_NOFOLLOW;
  if (options.directory) flags |= O_DIRECTORY;
  std::uint64_t resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  if (!options.follow_symlinks) resolve |= RESOLVE_NO_SYMLINKS;
  int fd = raw_openat2(dir_fd, relative.c_str(), flags | O_NOATIME, resolve);
  if (fd < 0 && errno == EPERM) fd = raw_openat2(dir_fd, relative.c_str(), flags, resolve);
  if (fd < 0 && errno == ENOSYS) {
    Opened walked = open_beneath_fallback(dir_fd, relative, flags);
    // Following safely needs RESOLVE_BENEATH; refuse rather than guess.
    if (options.follow_symlinks && !walked.fd && walked.err == ELOOP) walked.err = EXDEV;
    return walked;
  }
  Opened out;
  if (fd < 0) {
    out.err = errno;
  } else {
    out.fd = UniqueFd(fd);
  }
  return out;
}

std::string open_error_text(int err) {
  switch (err) {
    case ENOENT:
      return "does not exist";
    case ELOOP:
      return "is a symlink or goes through one (not followed)";
    case EXDEV:
      return "resolves outside DIR (not opened)";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ENOTDIR:
      return "a component of the path is not a directory";
    default:
      return std::strerror(err);
  }
}

}  // namespace stguard::base
