// conformance/runner/expectations.cc: expectation files (see expectations.h).
#include "conformance/runner/expectations.h"

#include <fnmatch.h>

#include <algorithm>

#include "base/file_io.h"

namespace stguard::conformance {
namespace {

std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

}  // namespace

base::Result<Expectations> Expectations::parse(std::string_view text) {
  Expectations expectations;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string> words = words_of(line);
    if (words.empty()) continue;
    if (words.size() > 3) {
      return base::fail("line " + std::to_string(line_number) +
                        ": expected [READER] CASE_GLOB GRADE[,GRADE...]");
    }
    if (words.size() < 2) {
      return base::fail("line " + std::to_string(line_number) + ": no grade after \"" + words[0] +
                        "\"");
    }
    Entry entry;
    if (words.size() == 3) entry.reader = words[0];
    entry.case_glob = words[words.size() - 2];
    std::string_view grades = words.back();
    while (!grades.empty()) {
      std::size_t comma = grades.find(',');
      std::string_view name = grades.substr(0, comma);
      grades.remove_prefix(comma == std::string_view::npos ? grades.size() : comma + 1);
      std::optional<Grade> grade = grade_from_name(name);
      if (!grade) {
        return base::fail("line " + std::to_string(line_number) + ": unknown grade \"" +
                          std::string(name) + "\"");
      }
      if (grade_passes(*grade)) {
        return base::fail("line " + std::to_string(line_number) + ": " + std::string(name) +
                          " is a passing grade, not a failure to expect");
      }
      entry.grades.push_back(*grade);
    }
    expectations.entries_.push_back(std::move(entry));
  }
  return expectations;
}

base::Result<Expectations> Expectations::load(const std::filesystem::path& path) {
  const base::Result<std::string> text = base::read_file(path);
  if (!text) return text.error();
  base::Result<Expectations> parsed = parse(*text);
  if (!parsed) return parsed.error().in(path.string());
  return parsed;
}

void Expectations::apply(std::string_view reader, CaseResult& result) const {
  bool listed = false;
  bool grade_listed = false;
  for (const Entry& entry : entries_) {
    if (!entry.reader.empty() && entry.reader != reader) continue;
    if (::fnmatch(entry.case_glob.c_str(), result.case_id.c_str(), 0) != 0) continue;
    listed = true;
    if (std::find(entry.grades.begin(), entry.grades.end(), result.grade) != entry.grades.end()) {
      grade_listed = true;
    }
  }
  if (!listed) {
    result.expectation = Expectation::kNone;
  } else if (grade_passes(result.grade)) {
    result.expectation = Expectation::kUnexpectedPass;
  } else if (grade_listed) {
    result.expectation = Expectation::kExpectedFailure;
  } else {
    result.expectation = Expectation::kOtherFailure;
  }
}

std::string expectations_text(std::span<const ReaderRun> runs) {
  std::vector<std::string> lines;
  std::size_t active_readers = 0;
  for (const ReaderRun& run : runs) active_readers += run.skipped ? 0 : 1;
  for (const ReaderRun& run : runs) {
    for (const CaseResult& result : run.results) {
      if (grade_passes(result.grade)) continue;
      std::string line = active_readers > 1 ? run.name + " " : "";
      line += result.case_id + " " + std::string(grade_name(result.grade));
      lines.push_back(std::move(line));
    }
  }
  std::sort(lines.begin(), lines.end());
  std::string out =
      "# stguard conform expectations: known failures (written by --write-expectations).\n"
      "# [READER] CASE_GLOB GRADE[,GRADE...]\n";
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace stguard::conformance
