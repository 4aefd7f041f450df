// verify/folder.cc: listing DIR, symlinks and stray files.
#include "verify/folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "base/sandbox.h"
#include "verify/checkpoints.h"
#include "verify/findings.h"

namespace stguard::verify {

base::Result<std::vector<std::string>> list_dir(int dir_fd) {
  // fdopendir takes ownership of its descriptor: give it a second one.
  const int dup = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return base::io_failure(base::errno_text(errno));
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    const int err = errno;
    ::close(dup);
    return base::io_failure(base::errno_text(err));
  }
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    const dirent* ent = ::readdir(d);
    if (ent == nullptr) {
      if (errno != 0) {
        const int err = errno;
        ::closedir(d);
        return base::io_failure(base::errno_text(err));
      }
      break;
    }
    const std::string_view name = ent->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(d);
  return names;
}

std::vector<std::string> sorted_names(int dir_fd) {
  base::Result<std::vector<std::string>> listed = list_dir(dir_fd);
  if (!listed) return {};
  std::vector<std::string> names = std::move(*listed);
  std::sort(names.begin(), names.end());
  return names;
}

Entry entry_of(int dir_fd, std::string name) {
  Entry e;
  e.name = std::move(name);
  struct stat st {};
  if (::fstatat(dir_fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    e.type = EntryType::kOther;
  } else if (S_ISREG(st.st_mode)) {
    e.type = EntryType::kRegular;
  } else if (S_ISLNK(st.st_mode)) {
    e.type = EntryType::kSymlink;
    e.link_target = link_target_at(dir_fd, e.name);
  } else if (S_ISDIR(st.st_mode)) {
    e.type = EntryType::kDirectory;
  }
  e.role = role_of(e.name);
  return e;
}

Role role_of(std::string_view name) {
  if (is_index_name(name)) return Role::kIndex;
  if (name.ends_with(kShardSuffix)) return Role::kShard;
  if (name == kChecksumName) return Role::kChecksums;
  return Role::kOther;
}

bool is_directory_at(int dir_fd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

bool is_symlink_at(int dir_fd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

std::string link_target_at(int dir_fd, const std::string& name) {
  char buffer[4096];
  const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

std::optional<std::uint64_t> size_at(int dir_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

namespace {

// Why `name` looks like the leftover of an interrupted download or copy.
std::optional<std::string> stray_reason(std::string_view name) {
  struct Suffix {
    std::string_view suffix;
    std::string_view why;
  };
  static constexpr Suffix kSuffixes[] = {
      {".incomplete", "an unfinished Hugging Face download (.incomplete)"},
      {".part", "an unfinished download (.part)"},
      {".partial", "an unfinished download (.partial)"},
      {".crdownload", "an unfinished Chrome download (.crdownload)"},
      {".download", "an unfinished Safari download (.download)"},
      {".aria2", "the control file of an unfinished aria2 download (.aria2)"},
      {".filepart", "an unfinished WinSCP transfer (.filepart)"},
      {".tmp", "a temporary file left by an interrupted download or copy (.tmp)"},
      {".temp", "a temporary file left by an interrupted download or copy (.temp)"},
  };
  for (const Suffix& s : kSuffixes) {
    if (name.ends_with(s.suffix) && name.size() > s.suffix.size()) return std::string(s.why);
  }
  if (name.find(kShardSuffix) != std::string_view::npos && !name.ends_with(kShardSuffix) &&
      !is_index_name(name)) {
    if (name.starts_with(".")) {
      return std::string("a hidden copy of a shard (the temporary file of an interrupted rsync?)");
    }
    return std::string(
        "a partial, backup or duplicate copy of a shard (e.g. wget's .1 suffix); "
        "not checked as a shard");
  }
  return std::nullopt;
}

}  // namespace

void Listing::set_dir(base::UniqueFd dir_fd) {
  dir = std::move(dir_fd);
  files = std::make_unique<OpenFiles>(dir.get());
}

base::Result<Listing> open_folder(const std::string& dir, base::Opened opened) {
  Listing out;
  out.set_dir(std::move(opened.fd));
  if (!out.dir) {
    const int err = opened.err;
    if (err == ENOENT) return base::io_failure(dir + ": no such directory");
    if (err == ENOTDIR) return base::io_failure(dir + ": not a directory");
    return base::io_failure(dir + ": cannot open: " + base::errno_text(err));
  }
  base::Result<std::vector<std::string>> names = list_dir(out.dir.get());
  if (!names) return base::io_failure(dir + ": cannot list: " + names.error().message);
  for (std::string& name : *names) out.entries.push_back(entry_of(out.dir.get(), std::move(name)));
  std::sort(out.entries.begin(), out.entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < out.entries.size(); ++i) out.by_name[out.entries[i].name] = i;
  return out;
}

std::vector<Finding> folder_findings(const Listing& folder, bool follow_symlinks) {
  std::vector<Finding> out;
  for (const Entry& e : folder.entries) {
    if (e.type == EntryType::kSymlink && !follow_symlinks) {
      Finding f =
          make_finding(FindingKind::kSymlink, Category::kFolder, e.name,
                       "is a symlink to " + in_quotes(e.link_target) +
                           "; not followed (--follow-symlinks follows links that stay inside DIR)",
                       e.role != Role::kOther ? Severity::kError : Severity::kWarning);
      f.other = e.link_target;
      out.push_back(std::move(f));
    }
    if (e.role == Role::kOther) {
      // By the last component: with --recursive names carry their folder.
      const std::size_t slash = e.name.rfind('/');
      const std::string_view base = slash == std::string::npos
                                        ? std::string_view(e.name)
                                        : std::string_view(e.name).substr(slash + 1);
      if (std::optional<std::string> why = stray_reason(base)) {
        out.push_back(make_finding(FindingKind::kStrayFile, Category::kFolder, e.name,
                                   "looks like " + *why, Severity::kWarning));
      }
    }
  }
  const base::Opened cache = base::open_beneath(folder.dir.get(), ".cache/huggingface/download",
                                                {.follow_symlinks = false, .directory = true});
  if (cache.fd) {
    for (const std::string& name : sorted_names(cache.fd.get())) {
      if (!name.ends_with(".incomplete")) continue;
      out.push_back(make_finding(
          FindingKind::kStrayFile, Category::kFolder, ".cache/huggingface/download/" + name,
          "looks like an unfinished Hugging Face download (.incomplete)", Severity::kWarning));
    }
  }
  return out;
}

HeldFile open_listed(const Listing& folder, const std::string& name, bool follow_symlinks) {
  const auto it = folder.blob_of.find(name);
  if (it != folder.blob_of.end()) {
    if (folder.blob_files == nullptr) return HeldFile::failed(ENOENT);
    return folder.blob_files->open(it->second, /*follow_symlinks=*/false);
  }
  return folder.files->open(name, follow_symlinks);
}

Finding unfollowable_symlink_finding(const Entry& entry, int err) {
  const bool loop = err == ELOOP;
  Finding f = make_finding(loop ? FindingKind::kSymlinkLoop : FindingKind::kSymlinkEscapes,
                           Category::kFolder, entry.name,
                           "is a symlink to " + in_quotes(entry.link_target) +
                               (loop ? " which loops (symlink loop, or too many links in a row); "
                                       "not followed"
                                     : " which resolves outside DIR; not followed"));
  f.other = entry.link_target;
  return f;
}

FileStamp stamp_of(const struct stat& st) {
  return FileStamp{
      static_cast<std::uint64_t>(st.st_size), static_cast<std::int64_t>(st.st_mtim.tv_sec),
      static_cast<std::int64_t>(st.st_mtim.tv_nsec), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace stguard::verify
