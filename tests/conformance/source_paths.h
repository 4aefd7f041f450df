// tests/conformance/source_paths.h: the source tree's corpus and recipes, as
// tests/conformance/CMakeLists.txt defines them for the conformance tests.
//
//   const fs::path manifest = conformance_test::kCorpusDir / "manifest.json";
#ifndef STGUARD_TESTS_CONFORMANCE_SOURCE_PATHS_H_
#define STGUARD_TESTS_CONFORMANCE_SOURCE_PATHS_H_

#include <filesystem>

namespace conformance_test {

inline const std::filesystem::path kCorpusDir = STGUARD_CORPUS_DIR;
inline const std::filesystem::path kRecipesDir = STGUARD_RECIPES_DIR;

}  // namespace conformance_test

#endif  // STGUARD_TESTS_CONFORMANCE_SOURCE_PATHS_H_
