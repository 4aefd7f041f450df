// tests/support/recipe_subset.h: a conformance folder with a few groups of
// the source tree's cases, for tests that build or promote into a corpus of
// their own without paying for all of it.
//
//   stguard_test::write_recipe_subset(STGUARD_RECIPES_DIR, dir / "conformance", {"layout"});
#ifndef STGUARD_TESTS_SUPPORT_RECIPE_SUBSET_H_
#define STGUARD_TESTS_SUPPORT_RECIPE_SUBSET_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace stguard_test {

// Writes into `to` the vocabulary, the README template and cases/GROUP.txt of
// each of `groups` from the conformance folder `from`. The vocabulary keeps
// its rules and releases, and of its ref:, bug: and proposed: tags (each of
// which some case must carry, or `corpus build` fails) those the groups
// carry. False when a file cannot be read or written.
inline bool write_recipe_subset(const std::filesystem::path& from, const std::filesystem::path& to,
                                const std::vector<std::string>& groups) {
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  std::error_code ec;
  std::filesystem::create_directories(to / "cases", ec);
  std::string cases;
  for (const std::string& group : groups) {
    const std::string text = read(from / "cases" / (group + ".txt"));
    if (text.empty()) return false;
    std::ofstream(to / "cases" / (group + ".txt"), std::ios::binary) << text;
    cases += text;
  }
  std::istringstream vocabulary(read(from / "vocabulary.txt"));
  std::ofstream out(to / "vocabulary.txt", std::ios::binary);
  for (std::string line; std::getline(vocabulary, line);) {
    const std::string id = line.substr(0, line.find_first_of(" \t"));
    const bool tag =
        id.rfind("ref:", 0) == 0 || id.rfind("bug:", 0) == 0 || id.rfind("proposed:", 0) == 0;
    if (!tag || cases.find(id) != std::string::npos) out << line << "\n";
  }
  std::ofstream(to / "corpus_readme.md.in", std::ios::binary) << read(from / "corpus_readme.md.in");
  return static_cast<bool>(out);
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_RECIPE_SUBSET_H_
