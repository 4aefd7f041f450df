// base/owned_dir.cc: OwnedDir (owned_dir.h).
#include "base/owned_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "base/output.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "base/sha256.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

// A marker lists a few thousand names at most; anything far larger is not
// one of ours.
constexpr std::uint64_t kMaxMarkerBytes = std::uint64_t{64} << 20;
// A stale file larger than this is not one stguard wrote (the largest case
// file is a few megabytes): it is left in place unread.
constexpr std::uint64_t kMaxRemovableBytes = std::uint64_t{1} << 30;

std::string made_by(std::string_view command) { return "stguard " + std::string(command); }

// 0 when `dir` holds nothing at all, else the errno or ENOTEMPTY.
int emptiness(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return ec.value();
  return it == fs::directory_iterator() ? 0 : ENOTEMPTY;
}

}  // namespace

Result<OwnedDir> OwnedDir::claim(const fs::path& dir, std::string_view command) {
  const auto refuse = [&](const std::string& why) -> Result<OwnedDir> {
    return fail(dir.string() + ": " + why);
  };
  if (dir.empty()) return fail("an empty folder name");
  OwnedDir owned;
  owned.dir_ = dir;
  owned.command_ = command;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return refuse(errno_text(errno));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return refuse("cannot create it: " + ec.message());
  } else if (!S_ISDIR(st.st_mode)) {
    return refuse("not a directory");
  }
  owned.lock_ = UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!owned.lock_) return refuse(errno_text(errno));
  if (::flock(owned.lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return refuse("in use by another stguard command");
    return refuse("cannot lock it: " + errno_text(errno));
  }
  const fs::path marker = dir / kOwnedMarker;
  struct stat marker_st {};
  if (::lstat(marker.c_str(), &marker_st) != 0) {
    if (errno != ENOENT) return refuse(errno_text(errno));
    if (const int err = emptiness(dir); err != 0) {
      if (err != ENOTEMPTY) return refuse(errno_text(err));
      return refuse("not empty, and not made by `" + made_by(command) + "` (it has no " +
                    std::string(kOwnedMarker) +
                    "); stguard writes only into a new or empty folder or one it made, so "
                    "that it never overwrites or deletes files it did not make: give another "
                    "folder");
    }
    owned.fresh_ = true;
    if (Result<void> saved = owned.save(); !saved) return saved.error();
    return owned;
  }
  if (!S_ISREG(marker_st.st_mode)) {
    return refuse(std::string(kOwnedMarker) +
                  " is not a file stguard wrote; leaving the folder alone");
  }
  const Result<std::string> text = read_file(marker, kMaxMarkerBytes);
  if (!text) return text.error().in(dir.string());
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  const auto malformed = [&] {
    return refuse(std::string(kOwnedMarker) +
                  " is not a marker stguard wrote; leaving the folder alone");
  };
  if (!json.is_object() || !json.contains("made_by") || !json["made_by"].is_string() ||
      !json.contains("files") || !json["files"].is_object()) {
    return malformed();
  }
  const std::string owner = json["made_by"].get<std::string>();
  if (owner != made_by(command)) {
    return refuse("made by `" + owner + "`, not `" + made_by(command) + "`: give another folder");
  }
  for (const auto& [name, digest] : json["files"].items()) {
    if (!digest.is_string() || !safe_relative_name(name)) return malformed();
    owned.files_[name] = digest.get<std::string>();
  }
  if (json.contains("dirs")) {
    if (!json["dirs"].is_array()) return malformed();
    for (const auto& name : json["dirs"]) {
      if (!name.is_string() || !safe_relative_name(name.get<std::string>())) return malformed();
      owned.dirs_.insert(name.get<std::string>());
    }
  }
  owned.fresh_ = owned.files_.empty() && emptiness(dir) == 0;
  return owned;
}

Result<void> OwnedDir::make_parents(const std::string& relative) {
  bool added = false;
  std::string prefix;
  for (std::size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    prefix = relative.substr(0, slash);
    const fs::path full = dir_ / prefix;
    struct stat st {};
    if (::lstat(full.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return fail(full.string() + ": not a directory stguard made");
      continue;
    }
    if (::mkdir(full.c_str(), 0777) != 0) {
      return fail("cannot create " + full.string() + ": " + errno_text(errno));
    }
    added |= dirs_.insert(prefix).second;
  }
  if (!added) return {};
  return save();
}

Result<OwnedDir::Wrote> OwnedDir::write(std::string_view relative, std::string_view bytes) {
  const Result<std::string> name = safe_relative_name(relative);
  if (!name) return name.error().in("not a name below " + dir_.string());
  const fs::path full = dir_ / *name;
  const std::string digest = sha256_hex(bytes);
  // The folders on the way first, so that the file looked at below is never
  // one behind a link that replaced a folder.
  if (Result<void> parents = make_parents(*name); !parents) return parents.error();
  struct stat st {};
  if (::lstat(full.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return fail(full.string() + ": not a file stguard made (" +
                  (S_ISLNK(st.st_mode)   ? "a symbolic link"
                   : S_ISDIR(st.st_mode) ? "a directory"
                                         : "not a file") +
                  "); leaving it alone");
    }
    const Result<std::string> old = read_file(full, bytes.size());
    if (old && *old == bytes) {
      // Adopted when it was not listed: it holds exactly what would be written.
      const bool added = files_.insert_or_assign(*name, digest).second;
      if (added) {
        if (Result<void> saved = save(); !saved) return saved.error();
      }
      return Wrote::kUnchanged;
    }
    if (!made(*name)) {
      return fail(full.string() + ": stguard did not make this file; not overwriting it");
    }
  }
  // Listed on disk before it exists, so an interrupted command leaves it
  // listed (never deleted unless it holds what the marker says).
  const bool listed = made(*name);
  files_[*name] = digest;
  if (!listed) {
    if (Result<void> saved = save(); !saved) return saved.error();
  }
  if (Result<void> wrote = write_file(full, bytes); !wrote) return wrote.error();
  return Wrote::kWritten;
}

Result<OwnedDir::Stale> OwnedDir::remove_stale(const std::set<std::string>& keep) {
  // Everything below is done relative to the claimed folder's descriptor,
  // never following a link at any depth: a folder of ours that someone
  // replaced by a link to theirs (`cb/utf8 -> ~/data`) must not have its
  // target cleaned.
  Stale stale;
  for (auto it = files_.begin(); it != files_.end();) {
    const std::string& name = it->first;
    if (keep.count(name) != 0) {
      ++it;
      continue;
    }
    const std::size_t slash = name.rfind('/');
    const std::string parent = slash == std::string::npos ? std::string() : name.substr(0, slash);
    const std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
    Opened parent_dir;
    if (parent.empty()) {
      parent_dir.fd = UniqueFd(::fcntl(lock_.get(), F_DUPFD_CLOEXEC, 0));
      if (!parent_dir.fd) parent_dir.err = errno;
    } else {
      parent_dir = open_beneath(lock_.get(), parent, {.follow_symlinks = false, .directory = true});
    }
    if (!parent_dir.fd && parent_dir.err == ENOENT) {
      it = files_.erase(it);
      continue;
    }
    if (!parent_dir.fd) {
      // A link (or something else) where stguard made a folder: what is
      // behind it is not ours.
      stale.kept_changed.push_back(name + " (" + parent + " " + open_error_text(parent_dir.err) +
                                   ")");
      it = files_.erase(it);
      continue;
    }
    const int dir_fd = parent_dir.fd.get();
    struct stat st {};
    if (::fstatat(dir_fd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
      it = files_.erase(it);
      continue;
    }
    const bool unchanged = S_ISREG(st.st_mode) && [&] {
      const Opened file = open_beneath(dir_fd, leaf, {.follow_symlinks = false});
      if (!file.fd) return false;
      const Result<std::string> bytes = read_fd(file.fd.get(), kMaxRemovableBytes);
      return bytes && sha256_hex(*bytes) == it->second;
    }();
    if (!unchanged) {
      stale.kept_changed.push_back(name);
      it = files_.erase(it);
      continue;
    }
    if (::unlinkat(dir_fd, leaf.c_str(), 0) != 0) {
      stale.kept_changed.push_back(name + " (" + errno_text(errno) + ")");
      ++it;
      continue;
    }
    stale.removed.push_back(name);
    it = files_.erase(it);
  }
  // Deepest first, so that a parent emptied by its child's removal goes too.
  std::vector<std::string> dirs(dirs_.begin(), dirs_.end());
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  for (const std::string& name : dirs) {
    const std::size_t slash = name.rfind('/');
    const std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
    const Opened parent_dir = slash == std::string::npos
                                  ? Opened{UniqueFd(::fcntl(lock_.get(), F_DUPFD_CLOEXEC, 0)), 0}
                                  : open_beneath(lock_.get(), name.substr(0, slash),
                                                 {.follow_symlinks = false, .directory = true});
    struct stat st {};
    if (!parent_dir.fd ||
        ::fstatat(parent_dir.fd.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      dirs_.erase(name);
    } else if (!S_ISDIR(st.st_mode)) {
      dirs_.erase(name);  // a link or a file where it was: no longer ours
    } else if (::unlinkat(parent_dir.fd.get(), leaf.c_str(), AT_REMOVEDIR) == 0) {
      dirs_.erase(name);  // empty, so removed (a folder with files in it stays)
    }
  }
  if (Result<void> saved = save(); !saved) return saved.error();
  return stale;
}

Result<void> OwnedDir::save() const {
  nlohmann::ordered_json json;
  json["made_by"] = made_by(command_);
  json["about"] =
      "stguard made this folder. It overwrites and deletes only the files listed here, and "
      "deletes one only while it holds what stguard wrote (this SHA-256).";
  json["dirs"] = nlohmann::ordered_json::array();
  for (const std::string& name : dirs_) json["dirs"].push_back(name);
  json["files"] = nlohmann::ordered_json::object();
  for (const auto& [name, digest] : files_) json["files"][name] = digest;
  return write_file(
      dir_ / kOwnedMarker,
      json.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace stguard::base
