// base/owned_dir.h: folders a command fills and later cleans (`corpus build
// --out`, `hunt --out`), and the rule that stguard deletes only what it made.
//
//   stguard::base::Result<stguard::base::OwnedDir> dir =
//       stguard::base::OwnedDir::claim("corpus", "corpus build");
//   if (!dir) die(dir.error().message);   // "corpus: not empty, and not made by ..."
//   dir->write("layout/gap.safetensors", bytes);
//   dir->remove_stale(names_written_this_time);   // what an earlier run made, gone now
//   dir->save();
//
// A folder is claimed when it does not exist yet (it is created), is empty,
// or holds the marker `.stguard-owned.json` that the same command wrote. Any
// other folder is refused: stguard never writes its files among the user's.
// The marker lists every file and directory the command made there, each
// file with the SHA-256 of what it wrote. Writing a file the marker does not
// list, when something else is already at that name, is refused; removing
// (remove_stale) touches only listed files that still hold exactly what was
// written, and listed directories left empty. Files the user put beside them
// are never touched.
//
// A name is added to the marker on disk before its file is written, so a
// command stopped at any point leaves a folder whose files are all either
// listed or untouched. While claimed, the folder is locked (flock), so a
// second command claiming it at the same time is refused.
#ifndef STGUARD_BASE_OWNED_DIR_H_
#define STGUARD_BASE_OWNED_DIR_H_

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "base/file_io.h"

namespace stguard::base {

// The marker's file name, in the claimed folder.
inline constexpr std::string_view kOwnedMarker = ".stguard-owned.json";

class OwnedDir {
 public:
  // Claims `dir` for `command` ("corpus build", "hunt"). Fails when it is
  // taken by something else, cannot be created, or its marker is unreadable
  // or another command's.
  static Result<OwnedDir> claim(const std::filesystem::path& dir, std::string_view command);

  const std::filesystem::path& path() const noexcept { return dir_; }
  // True when the folder was created, or empty, when claimed.
  bool fresh() const noexcept { return fresh_; }

  enum class Wrote { kWritten, kUnchanged };
  // Writes `bytes` to `relative` (a relative name, "/"-separated, no ".."),
  // making the directories it needs. An existing file that already holds
  // exactly `bytes` is left as it is (kUnchanged). Fails when the name is
  // not below the folder, when something stguard did not make is at that
  // name (a file the marker does not list, holding other bytes; a link; a
  // directory), or when the write fails.
  Result<Wrote> write(std::string_view relative, std::string_view bytes);

  // True when the marker lists `relative` as made here.
  bool made(std::string_view relative) const { return files_.count(std::string(relative)) != 0; }
  // The files the marker lists, by name.
  const std::map<std::string, std::string>& files() const noexcept { return files_; }

  struct Stale {
    std::vector<std::string> removed;       // listed, not kept, unchanged: deleted
    std::vector<std::string> kept_changed;  // listed, not kept, but changed: left
  };
  // Removes the listed files that are not in `keep` and still hold what was
  // written, then the listed directories left empty. A listed file that
  // changed since is left in place and no longer listed; one that is gone is
  // no longer listed; one that cannot be removed stays listed (kept_changed,
  // with the reason). Fails when the marker cannot be saved.
  Result<Stale> remove_stale(const std::set<std::string>& keep);

  // Writes the marker as it now stands.
  Result<void> save() const;

 private:
  OwnedDir() = default;
  Result<void> make_parents(const std::string& relative);

  std::filesystem::path dir_;
  std::string command_;
  bool fresh_ = false;
  UniqueFd lock_;                             // the folder, flock'ed while claimed
  std::map<std::string, std::string> files_;  // name -> sha256 hex of what was written
  std::set<std::string> dirs_;                // directories made here
};

}  // namespace stguard::base

#endif  // STGUARD_BASE_OWNED_DIR_H_
