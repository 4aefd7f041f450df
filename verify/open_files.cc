// verify/open_files.cc: one open per file below a folder, within a budget
// of descriptors.
#include "verify/open_files.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <limits>
#include <utility>

#include "base/parallel.h"
#include "base/sandbox.h"

namespace stguard::verify {
namespace {

std::atomic<std::size_t> g_held{0};

}  // namespace

std::size_t OpenFiles::held_in_process() noexcept { return g_held.load(); }

std::size_t OpenFiles::budget() noexcept {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur / 2 > std::numeric_limits<std::size_t>::max()) {
    return std::numeric_limits<std::size_t>::max();
  }
  return static_cast<std::size_t>(limit.rlim_cur / 2);
}

unsigned OpenFiles::reading_threads(unsigned wanted) noexcept {
  // Standard streams, the folder and the subfolders being listed, a report
  // being written, and a margin.
  constexpr std::size_t kReserved = 12;
  const unsigned threads = base::effective_jobs(wanted, std::numeric_limits<std::size_t>::max());
  const std::size_t held = budget();
  if (held == std::numeric_limits<std::size_t>::max()) return threads;
  const std::size_t spare = held > kReserved ? held - kReserved : 1;
  return static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(spare, 1)));
}

OpenFiles::~OpenFiles() { g_held.fetch_sub(kept_); }

HeldFile OpenFiles::open(const std::string& name, bool follow_symlinks) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto known = held_.find(name);
  if (known != held_.end()) {
    if (known->second.through_symlink && !follow_symlinks) return HeldFile::failed(ELOOP);
    if (known->second.fd) return HeldFile{known->second.fd->get(), 0, false, known->second.fd};
  }
  // Without following first, so that a name that is no symlink is known to
  // be one for the callers that never follow any.
  base::Opened opened = base::open_beneath(dir_fd_, name, {.follow_symlinks = false});
  bool through_symlink = false;
  if (!opened.fd && opened.err == ELOOP && follow_symlinks) {
    opened = base::open_beneath(dir_fd_, name, {.follow_symlinks = true});
    through_symlink = true;
  }
  if (!opened.fd) return HeldFile::failed(opened.err);
  Identity identity;
  struct stat st {};
  if (::fstat(opened.fd.get(), &st) == 0) {
    identity = Identity{st.st_dev, st.st_ino, static_cast<std::int64_t>(st.st_size),
                        static_cast<std::int64_t>(st.st_mtim.tv_sec),
                        static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
  }
  auto fd = std::make_shared<const base::UniqueFd>(std::move(opened.fd));
  HeldFile out{fd->get(), 0, false, fd};
  if (known != held_.end()) {
    // Opened again past the budget: the same file, or say it is not.
    out.replaced = !(identity == known->second.identity);
    return out;
  }
  Held held{nullptr, through_symlink, identity};
  if (g_held.load() < budget()) {
    held.fd = fd;
    ++kept_;
    g_held.fetch_add(1);
  }
  held_.emplace(name, std::move(held));
  return out;
}

}  // namespace stguard::verify
