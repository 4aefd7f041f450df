// tests/repo/docs_links_test.cc: every relative link in the project's
// Markdown leads somewhere. A moved section or renamed file once left the
// README pointing at headings that no longer existed; here a link to a
// missing file, or to an anchor that no heading of its page makes, fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/repo/source_tree.h"

namespace {

namespace fs = std::filesystem;

using stguard_repo_test::kSourceDir;

// The lines of a Markdown file outside fenced code blocks, with their numbers.
std::vector<std::pair<int, std::string>> prose_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::pair<int, std::string>> lines;
  bool in_code = false;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      in_code = !in_code;
      continue;
    }
    if (!in_code) lines.emplace_back(number, line);
  }
  return lines;
}

// A heading's anchor as GitHub makes it: lower case, punctuation other than
// '-' and '_' dropped, spaces to '-'.
std::string slug(const std::string& heading) {
  std::string out;
  for (const char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || u >= 0x80) {
      out += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

// The anchors of a page: one per heading (repeats numbered -1, -2, ...), and
// explicit <a id="..."> / <a name="...">.
std::set<std::string> anchors_of(const fs::path& page) {
  static std::map<fs::path, std::set<std::string>> cache;
  if (const auto it = cache.find(page); it != cache.end()) return it->second;
  static const std::regex kHeading(R"(^#{1,6}\s+(.*?)\s*#*\s*$)");
  static const std::regex kExplicit(R"re(<a\s+(?:id|name)="([^"]+)")re");
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  for (const auto& [number, line] : prose_lines(page)) {
    std::smatch match;
    if (std::regex_match(line, match, kHeading)) {
      const std::string base = slug(match[1]);
      const int n = seen[base]++;
      anchors.insert(n == 0 ? base : base + "-" + std::to_string(n));
    }
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kExplicit);
         it != std::sregex_iterator(); ++it) {
      anchors.insert((*it)[1]);
    }
  }
  return cache[page] = anchors;
}

// The project's Markdown files: README, CHANGELOG, docs/, and those beside
// the code (conformance/, fuzz/, ...).
std::vector<fs::path> markdown_files() {
  std::vector<fs::path> files;
  for (const std::string& name : stguard_repo_test::project_files({".md"})) {
    files.push_back(kSourceDir / name);
  }
  return files;
}

TEST(DocsLinks, EveryRelativeLinkFindsItsFileAndAnchor) {
  static const std::regex kLink(R"re(\]\(([^)\s]+)(?:\s+"[^"]*")?\))re");
  static const std::regex kScheme("^[a-z]+:");
  const std::vector<fs::path> files = markdown_files();
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& file : files) {
    const std::string shown = fs::relative(file, kSourceDir).generic_string();
    for (const auto& [number, line] : prose_lines(file)) {
      for (auto it = std::sregex_iterator(line.begin(), line.end(), kLink);
           it != std::sregex_iterator(); ++it) {
        const std::string target = (*it)[1];
        if (std::regex_search(target, kScheme)) continue;  // https:, mailto:
        const std::size_t hash = target.find('#');
        const std::string path_part = target.substr(0, hash);
        const fs::path linked =
            path_part.empty() ? file : (file.parent_path() / path_part).lexically_normal();
        const std::string where = shown + ":" + std::to_string(number) + ": " + target;
        if (!fs::exists(linked)) {
          ADD_FAILURE() << where << ": no such file";
          continue;
        }
        if (hash == std::string::npos) continue;
        const std::string anchor = target.substr(hash + 1);
        EXPECT_TRUE(linked.extension() == ".md" && anchors_of(linked).count(anchor) != 0)
            << where << ": no heading makes that anchor";
      }
    }
  }
}

// A source file named in backticks (`tests/parser/reason_test.cc`) exists:
// design.md once cited a test file that had moved. Only names under one of
// the repository's own top-level folders are held to this.
TEST(DocsLinks, EverySourceFileNamedInBackticksExists) {
  static const std::regex kFileName(
      R"(`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:cc|h|c|sh|cmake))`)");
  for (const fs::path& file : markdown_files()) {
    const std::string shown = fs::relative(file, kSourceDir).generic_string();
    for (const auto& [number, line] : prose_lines(file)) {
      for (auto it = std::sregex_iterator(line.begin(), line.end(), kFileName);
           it != std::sregex_iterator(); ++it) {
        const std::string named = (*it)[1];
        const std::string top = named.substr(0, named.find('/'));
        if (!fs::is_directory(kSourceDir / top)) continue;  // a system header, say
        EXPECT_TRUE(fs::exists(kSourceDir / named) || fs::exists(file.parent_path() / named))
            << shown << ":" << number << " names " << named << ", which does not exist";
      }
    }
  }
}

}  // namespace
