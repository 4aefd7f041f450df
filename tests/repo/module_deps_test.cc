// tests/repo/module_deps_test.cc: the module table of docs/design.md is the
// law of the source tree. Every source file belongs to a module row; a file
// includes only its own module and the modules its row lists under "uses";
// the parser's private code (parser/src/) is reached only by the parser, its
// white-box tests and the fuzz harnesses.
//
// The table is read from the document itself, so a new dependency is made by
// writing it into docs/design.md first, where a reader of the design sees it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/repo/source_tree.h"
#include "tests/support/files.h"

namespace {

namespace fs = std::filesystem;

using stguard_repo_test::kSourceDir;

// One row of the table: a folder ("conformance/runner/") and the folders its
// files may include besides their own.
struct ModuleRow {
  std::string dir;
  std::set<std::string> uses;
};

using stguard_test::read_text;

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {  // line[0] is the leading '|'
    if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The `folder/` names written in backticks in a cell.
std::set<std::string> folders_in(const std::string& cell) {
  std::set<std::string> folders;
  static const std::regex kFolder("`([a-z_]+(?:/[a-z_]+)*/)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), kFolder);
       it != std::sregex_iterator(); ++it) {
    folders.insert((*it)[1]);
  }
  return folders;
}

// The rows of the table under "## Modules" whose first cell names a folder
// and whose header has a "uses" column.
std::vector<ModuleRow> module_table() {
  std::istringstream doc(read_text(kSourceDir / "docs" / "design.md"));
  std::vector<ModuleRow> rows;
  bool in_section = false;
  std::size_t uses_column = 0;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Modules";
    if (!in_section || line.empty() || line[0] != '|') continue;
    const std::vector<std::string> cells = split_cells(line);
    if (cells.empty()) continue;
    if (uses_column == 0) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].find("uses") != std::string::npos) uses_column = i;
      }
      continue;
    }
    const std::set<std::string> named = folders_in(cells[0]);
    if (named.size() != 1 || uses_column >= cells.size()) continue;
    rows.push_back({*named.begin(), folders_in(cells[uses_column])});
  }
  return rows;
}

// The row whose folder is the longest prefix of `path`; nullptr when none.
const ModuleRow* owner_of(const std::vector<ModuleRow>& rows, const std::string& path) {
  const ModuleRow* best = nullptr;
  for (const ModuleRow& row : rows) {
    if (path.rfind(row.dir, 0) == 0 && (best == nullptr || row.dir.size() > best->dir.size())) {
      best = &row;
    }
  }
  return best;
}

// The project's source files, relative to the source tree ("verify/index.cc").
std::vector<std::string> source_files() {
  return stguard_repo_test::project_files({".cc", ".h", ".c"});
}

TEST(ModuleDependencies, TheDesignDocumentListsTheModules) {
  const std::vector<ModuleRow> rows = module_table();
  ASSERT_GE(rows.size(), 8u) << "docs/design.md: no module table under \"## Modules\"";
  for (const ModuleRow& row : rows) {
    EXPECT_TRUE(fs::is_directory(kSourceDir / row.dir))
        << "docs/design.md lists " << row.dir << ", which is not a folder";
  }
}

TEST(ModuleDependencies, EverySourceFileIsInAModuleOfTheTable) {
  const std::vector<ModuleRow> rows = module_table();
  for (const std::string& file : source_files()) {
    EXPECT_NE(owner_of(rows, file), nullptr)
        << file << " is in no module of docs/design.md's table: add its folder there";
  }
}

TEST(ModuleDependencies, EachModuleIncludesOnlyWhatItsRowLists) {
  const std::vector<ModuleRow> rows = module_table();
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  for (const std::string& file : source_files()) {
    const ModuleRow* module = owner_of(rows, file);
    if (module == nullptr) continue;  // the test above says so
    std::istringstream text(read_text(kSourceDir / file));
    int line_number = 0;
    for (std::string line; std::getline(text, line);) {
      ++line_number;
      std::smatch match;
      if (!std::regex_search(line, match, kInclude)) continue;
      std::string target = match[2];
      // The parser's public headers, in their installed form.
      if (target.rfind("stguard/", 0) == 0) target = "parser/include/" + target;
      const ModuleRow* used = owner_of(rows, target);
      if (used == nullptr || !fs::exists(kSourceDir / target)) continue;  // system or library
      const std::string where = file + ":" + std::to_string(line_number) + " includes " + target;
      if (used == module) continue;
      EXPECT_TRUE(module->uses.count(used->dir) != 0)
          << where << ", but the row of " << module->dir << " in docs/design.md does not list "
          << used->dir;
      // The benchmarks see the fast paths' switches (layers.h), made for
      // them, the fuzzers and the tests, and nothing else of the inside.
      const bool white_box = module->dir == "tests/parser/" || module->dir == "fuzz/" ||
                             (module->dir == "bench/" && target == "parser/src/layers.h");
      EXPECT_TRUE(target.rfind("parser/src/", 0) != 0 || white_box)
          << where
          << ": only the parser, its tests and the fuzz harnesses reach into parser/src/ (and "
             "the benchmarks into parser/src/layers.h)";
    }
  }
}

}  // namespace
