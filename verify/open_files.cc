// verify/open_files.cc: one open per file below a folder.
#include "verify/open_files.h"

#include <cerrno>
#include <utility>

#include "base/sandbox.h"

namespace stguard::verify {

HeldFile OpenFiles::open(const std::string& name, bool follow_symlinks) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = held_.find(name); it != held_.end()) {
    if (it->second.through_symlink && !follow_symlinks) return HeldFile{-1, ELOOP};
    return HeldFile{it->second.fd.get(), 0};
  }
  // Without following first, so that a name that is no symlink is known to
  // be one for the callers that never follow any.
  base::Opened opened = base::open_beneath(dir_fd_, name, {.follow_symlinks = false});
  bool through_symlink = false;
  if (!opened.fd && opened.err == ELOOP && follow_symlinks) {
    opened = base::open_beneath(dir_fd_, name, {.follow_symlinks = true});
    through_symlink = true;
  }
  if (!opened.fd) return HeldFile{-1, opened.err};
  const int fd = opened.fd.get();
  held_.emplace(name, Held{std::move(opened.fd), through_symlink});
  return HeldFile{fd, 0};
}

}  // namespace stguard::verify
