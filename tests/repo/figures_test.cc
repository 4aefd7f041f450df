// Measured figures live in docs/performance.md, dated and reproducible, not in
// code comments, where they go stale without anyone noticing; and that
// document holds the current figures, not a diary of every sitting.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/repo/source_tree.h"

namespace stguard_repo_test {
namespace {

std::string read_whole(const std::string& relative) {
  std::ifstream in(kSourceDir / relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A timing (a number and ms, us or ns), a speed-up (a number, then "x" or
// "times", then faster or slower) or a share of a run (a percentage, then
// "of", "to", faster, slower, less or more) in a `//` comment.
// Sizes, counts and limits ("256 KiB", "64 bytes") are facts of the code,
// not measurements, and pass.
const std::regex kMeasuredFigure(
    R"(//.*(\b[0-9]+(\.[0-9]+)? ?(ms|us|µs|ns)\b|\b[0-9.]+ ?(x|times) (faster|slower)\b|\b[0-9.]+% (to|of|faster|slower|less|more)\b))");

TEST(Figures, NoCodeCommentCarriesAMeasuredFigure) {
  for (const std::string& file : project_files({".h", ".cc"})) {
    // The benchmarks print and describe timings; that is their job.
    if (file.rfind("bench/", 0) == 0) continue;
    std::istringstream lines(read_whole(file));
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
      EXPECT_FALSE(std::regex_search(line, kMeasuredFigure))
          << file << ":" << number << ": a measured figure in a comment belongs in "
          << "docs/performance.md (say why here, and point there): " << line;
    }
  }
}

TEST(Figures, ThePerformanceDocumentHoldsCurrentFiguresOnly) {
  const std::string text = read_whole("docs/performance.md");
  ASSERT_FALSE(text.empty());
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  EXPECT_LE(lines, 300U) << "docs/performance.md has " << lines
                         << " lines: keep one current figure per measured thing (earlier "
                         << "sittings are in git history)";
}

}  // namespace
}  // namespace stguard_repo_test
