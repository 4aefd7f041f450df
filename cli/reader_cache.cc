#include "reader_cache.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include "base/file_io.h"
#include "data_dir.h"

namespace stguard::cli {
namespace {

namespace fs = std::filesystem;

// The cache root, $XDG_CACHE_HOME/stguard/readers, as the XDG base
// directory specification has it (a relative XDG_CACHE_HOME is ignored).
base::Result<fs::path> cache_root() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && fs::path(xdg).is_absolute()) return fs::path(xdg) / "stguard" / "readers";
  const char* home = std::getenv("HOME");
  if (home != nullptr && fs::path(home).is_absolute()) {
    return fs::path(home) / ".cache" / "stguard" / "readers";
  }
  return base::fail(
      "neither XDG_CACHE_HOME nor HOME is set to an absolute path: nowhere to set "
      "up the installed readers");
}

// The reader's own files, relative to `dir`: everything but node_modules
// (what its setup installs).
std::vector<fs::path> own_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "node_modules") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(fs::relative(it->path(), dir, ec));
  }
  return files;
}

bool same_contents(const fs::path& a, const fs::path& b) {
  const base::Result<std::string> left = base::read_file(a);
  const base::Result<std::string> right = base::read_file(b);
  return left && right && *left == *right;
}

}  // namespace

bool is_installed_reader(const fs::path& dir) {
  std::error_code ec;
  const fs::path installed = fs::weakly_canonical(installed_data_dir(), ec);
  if (ec) return false;
  const fs::path reader = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  const auto mismatch =
      std::mismatch(installed.begin(), installed.end(), reader.begin(), reader.end());
  return mismatch.first == installed.end();
}

base::Result<fs::path> refresh_cache_copy(const fs::path& dir) {
  const base::Result<fs::path> root = cache_root();
  if (!root) return root.error();
  const fs::path copy = *root / dir.filename();
  for (const fs::path& file : own_files(dir)) {
    std::error_code ec;
    fs::create_directories((copy / file).parent_path(), ec);
    if (!ec) fs::copy_file(dir / file, copy / file, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return base::fail("cannot copy the reader " + dir.filename().string() + " into " +
                        copy.string() + ": " + ec.message());
    }
  }
  return copy;
}

std::optional<fs::path> current_cache_copy(const fs::path& dir) {
  const base::Result<fs::path> root = cache_root();
  if (!root) return std::nullopt;
  const fs::path copy = *root / dir.filename();
  const std::vector<fs::path> files = own_files(dir);
  if (files.empty()) return std::nullopt;
  for (const fs::path& file : files) {
    if (!same_contents(dir / file, copy / file)) return std::nullopt;
  }
  return copy;
}

}  // namespace stguard::cli
