// verify/folder.h (internal to verify/): listing DIR, and what the listing
// alone shows (symlinks, leftovers of interrupted downloads).
//
//   stguard::base::Result<stguard::verify::Listing> folder =
//       stguard::verify::open_folder(dir, open_dir_argument(dir));
//   if (!folder) return fatal(folder.error().message);  // "DIR: no such directory"
//   for (const stguard::verify::Entry& e : folder->entries) if (e.role == Role::kShard) ...
#ifndef STGUARD_VERIFY_FOLDER_H_
#define STGUARD_VERIFY_FOLDER_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/failure.h"
#include "base/file_io.h"
#include "base/sandbox.h"
#include "verify/open_files.h"
#include "verify/verify.h"

namespace stguard::verify {

inline constexpr std::string_view kShardSuffix = ".safetensors";
inline constexpr std::string_view kIndexSuffix = ".safetensors.index.json";  // the usual index
inline constexpr std::string_view kChecksumName = "SHA256SUMS";

enum class EntryType : std::uint8_t { kRegular, kSymlink, kDirectory, kOther };
// What a name in DIR is for verify, by its name alone.
enum class Role : std::uint8_t { kShard, kIndex, kChecksums, kOther };

struct Entry {
  std::string name;
  EntryType type = EntryType::kOther;  // lstat: a symlink is kSymlink, whatever it points to
  Role role = Role::kOther;
  std::string link_target;  // symlinks
};

struct Listing {
  // Sets `dir` and a table of the files opened below it.
  void set_dir(base::UniqueFd dir_fd);

  base::UniqueFd dir;
  // Every file of DIR that a pass opens, opened once (open_listed).
  std::unique_ptr<OpenFiles> files;
  std::vector<Entry> entries;                            // by name
  std::unordered_map<std::string, std::size_t> by_name;  // name -> index into entries
  // A Hub cache snapshot: names whose content is the blob their link names,
  // opened (without following anything) below `blobs` (borrowed, owned by
  // the caller) rather than through the link, which leaves the snapshot;
  // `blob_files` (borrowed) holds them, once for every snapshot.
  int blobs = -1;
  OpenFiles* blob_files = nullptr;
  std::unordered_map<std::string, std::string> blob_of;  // name -> blob name
  // A remote repository (verify_fetched): nothing is opened; each name's
  // fetched bytes (borrowed, owned by the caller) stand for its contents.
  const std::unordered_map<std::string, const FetchedFile*>* fetched = nullptr;
};

// Opens `name` (relative to the listed folder) as the passes do, once for
// all of them (OpenFiles): through blob_of when it is a Hub snapshot's link,
// else base::open_beneath. The descriptor stays open as long as `folder`.
HeldFile open_listed(const Listing& folder, const std::string& name, bool follow_symlinks);

// The names in the directory open on `dir_fd` (which stays open), "." and
// ".." left out, in no order. Fails (an I/O failure) with the system's
// reason when the directory cannot be read.
base::Result<std::vector<std::string>> list_dir(int dir_fd);

// list_dir's names, sorted; none when the directory cannot be read.
std::vector<std::string> sorted_names(int dir_fd);

// What a file is for verify, by its name alone.
Role role_of(std::string_view name);

// `name` in the directory open on `dir_fd`, by lstat, with its role by name.
Entry entry_of(int dir_fd, std::string name);

// What `name` in the directory open on `dir_fd` is, by lstat (never
// following it): a directory, a symlink; the target of a symlink ("" when
// it cannot be read); the size (nullopt when it cannot be examined).
bool is_directory_at(int dir_fd, const std::string& name);
bool is_symlink_at(int dir_fd, const std::string& name);
std::string link_target_at(int dir_fd, const std::string& name);
std::optional<std::uint64_t> size_at(int dir_fd, const std::string& name);

// Lists `dir`, open as `opened` (layout.h open_dir_argument: its top
// level only; walk_subfolders adds the rest). Fails (an I/O failure: "DIR:
// no such directory", "DIR: not a directory", "DIR: cannot list: ...") when
// it could not be opened or cannot be listed.
base::Result<Listing> open_folder(const std::string& dir, base::Opened opened);

// With options.recursive: appends the files of DIR's subfolders to `folder`,
// named relative to DIR ("unet/diffusion_pytorch_model.safetensors"), and
// keeps it sorted. Hidden folders are not entered, symlinked folders never
// followed; past options.max_depth or options.max_tree_names the walk stops
// there with a tree_limit finding, and a subfolder that cannot be listed is
// folder_unreadable (tree.cc).
std::vector<Finding> walk_subfolders(Listing& folder, const VerifyOptions& options);

// Symlinks that are not followed, and leftovers of interrupted downloads and
// copies (warnings), in name order; also unfinished downloads that
// `huggingface-cli download --local-dir` keeps in .cache/huggingface/download.
std::vector<Finding> folder_findings(const Listing& folder, bool follow_symlinks);

// The finding for a symlink in DIR that open_beneath would not follow, by
// its errno: ELOOP a loop (or more links in a row than the kernel follows),
// kSymlinkLoop; anything else (EXDEV) a target outside DIR, kSymlinkEscapes.
Finding unfollowable_symlink_finding(const Entry& entry, int err);

// Enough of a file's identity to notice that it changed between two looks.
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  std::int64_t mtime_nsec = 0;
  std::uint64_t inode = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};
FileStamp stamp_of(const struct stat& st);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_FOLDER_H_
