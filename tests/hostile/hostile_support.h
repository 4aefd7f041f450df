// tests/hostile/hostile_support.h: what the hostile tests share: files put
// in place, a folder's names and whole state, a folder an unprivileged
// command may write in, a short conform run.
#ifndef STGUARD_TESTS_HOSTILE_HOSTILE_SUPPORT_H_
#define STGUARD_TESTS_HOSTILE_HOSTILE_SUPPORT_H_

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace stguard_hostile {

namespace fs = std::filesystem;
using stguard_test::read_text;
using stguard_test::TempDir;

// A reader with a planted bug (tests/conformance/fake_reader.cc), graded by
// its exit status.
inline const std::string kPlantedBug =
    std::string("'") + STGUARD_FAKE_READER_PATH + "' plain-no-overlap-check";

inline void put(const fs::path& path, std::string_view text, fs::perms perms = fs::perms::unknown) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  if (perms != fs::perms::unknown) fs::permissions(path, perms);
}

inline std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// Every regular file below `dir` with its content: a folder's whole state.
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = read_text(entry.path());
    }
  }
  return files;
}

// A scratch folder an unprivileged command may write in.
struct SharedDir {
  SharedDir() { fs::permissions(dir.path(), fs::perms::all); }
  const fs::path& path() const { return dir.path(); }
  TempDir dir;
};

// `stguard conform` of the strict profile over layout/gap*, quietly, with `extra`.
inline std::vector<std::string> conform_gap(std::vector<std::string> extra) {
  std::vector<std::string> args = {"conform", "--reader", "stguard-strict",
                                   "-q",      "--case",   "layout/gap*"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace stguard_hostile

#endif  // STGUARD_TESTS_HOSTILE_HOSTILE_SUPPORT_H_
