// verify/layout.cc: DIR opened once, and its layout told from its path and
// its top-level names.
#include "verify/layout.h"

#include <fcntl.h>

#include <cerrno>

#include "verify/folder.h"

namespace stguard::verify {

base::Opened open_dir_argument(const std::string& dir) {
  base::Opened out;
  out.fd = base::UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
  if (!out.fd) out.err = errno;
  return out;
}

std::filesystem::path normal_path(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (p.is_relative()) {
    std::error_code ec;
    const std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (!ec) p = (cwd / p).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
  }
  return p;
}

bool is_hub_repo_name(std::string_view name) {
  for (const std::string_view kind : {"models--", "datasets--", "spaces--"}) {
    if (name.starts_with(kind) && name.size() > kind.size()) return true;
  }
  return false;
}

bool is_hub_layout(Layout layout) {
  return layout == Layout::kHubRepo || layout == Layout::kHubSnapshot ||
         layout == Layout::kHubCache;
}

Layout detect_layout(const std::string& dir, int dir_fd) {
  const std::filesystem::path p = normal_path(dir);
  if (p.parent_path().filename() == "snapshots" &&
      is_hub_repo_name(p.parent_path().parent_path().filename().string())) {
    return Layout::kHubSnapshot;
  }
  if (dir_fd < 0) return Layout::kFolder;  // the folder checks say why it cannot be opened
  if (is_hub_repo_name(p.filename().string()) &&
      (is_directory_at(dir_fd, "snapshots") || is_directory_at(dir_fd, "blobs"))) {
    return Layout::kHubRepo;
  }
  // A symlinked repository counts: the cache root's checks report it.
  for (const std::string& name : sorted_names(dir_fd)) {
    if (is_hub_repo_name(name) && (is_directory_at(dir_fd, name) || is_symlink_at(dir_fd, name))) {
      return Layout::kHubCache;
    }
  }
  const base::Opened cache = base::open_beneath(dir_fd, ".cache/huggingface/download",
                                                {.follow_symlinks = false, .directory = true});
  if (cache.fd) return Layout::kLocalDir;
  return Layout::kFolder;
}

Layout resolve_layout(const std::string& dir, int dir_fd, Layout requested) {
  if (requested == Layout::kAuto) return detect_layout(dir, dir_fd);
  if (!is_hub_layout(requested)) return requested;
  const Layout detected = detect_layout(dir, dir_fd);
  return is_hub_layout(detected) ? detected : requested;
}

}  // namespace stguard::verify
