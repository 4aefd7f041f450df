// tests/repo/source_tree.h: the project's own files, for the checks on the
// repository. The build folders, npm packages, the generated corpus and
// hidden folders (.git, .github) are not the project's text.
#ifndef STGUARD_TESTS_REPO_SOURCE_TREE_H_
#define STGUARD_TESTS_REPO_SOURCE_TREE_H_

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace stguard_repo_test {

inline const std::filesystem::path kSourceDir = STGUARD_SOURCE_DIR;

// The files below the source tree whose extension is one of `extensions`
// (".md"), relative to it ("docs/cli.md"), sorted.
inline std::vector<std::string> project_files(const std::set<std::string>& extensions) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(kSourceDir); it != fs::end(it); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (name == "build" || name == "node_modules" || name == "corpus" || name[0] == '.')) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && extensions.count(it->path().extension().string()) != 0) {
      files.push_back(fs::relative(it->path(), kSourceDir).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace stguard_repo_test

#endif  // STGUARD_TESTS_REPO_SOURCE_TREE_H_
