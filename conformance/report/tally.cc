// conformance/report/tally.cc: counts, orders and the matrix (tally.h).
#include "conformance/report/tally.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

namespace stguard::conformance {

std::string_view grade_code(Grade grade) noexcept {
  switch (grade) {
    case Grade::kCrash:
      return "CRASH";
    case Grade::kTimeout:
      return "TIME";
    case Grade::kFailShouldReject:
      return "SHOULD-REJ";
    case Grade::kFailWrongContent:
      return "WRONG";
    case Grade::kFailShouldAccept:
      return "SHOULD-ACC";
    case Grade::kFailInvalidOutput:
      return "INVALID";
    case Grade::kFailShouldRefuse:
      return "SHOULD-REF";
    case Grade::kFailShouldWrite:
      return "SHOULD-WRI";
    case Grade::kProtocolError:
      return "PROTO";
    case Grade::kImplAccept:
      return "ACC";
    case Grade::kImplReject:
      return "REJ";
    case Grade::kNotApplicable:
      return "N/A";
    case Grade::kPass:
      return "PASS";
  }
  return "PROTO";
}

std::size_t grade_index(Grade grade) noexcept {
  for (std::size_t i = 0; i < kGradeCount; ++i) {
    if (kAllGrades[i] == grade) return i;
  }
  return 0;
}

Counts count_results(const ReaderRun& run) {
  Counts counts;
  for (const CaseResult& result : run.results) {
    ++counts.per_grade[grade_index(result.grade)];
    ++counts.total;
    if (result_fails_run(result)) ++counts.failing;
    if (result.expectation == Expectation::kExpectedFailure) ++counts.xfail;
    if (result.expectation == Expectation::kUnexpectedPass) ++counts.xpass;
  }
  return counts;
}

namespace {

// "ST-HDR-10" after "ST-HDR-2": the prefix as text, the number as a number.
bool rule_before(const std::string& a, const std::string& b) {
  const std::size_t da = a.find_last_of('-');
  const std::size_t db = b.find_last_of('-');
  const std::string_view pa(a.data(), da == std::string::npos ? a.size() : da);
  const std::string_view pb(b.data(), db == std::string::npos ? b.size() : db);
  if (pa != pb) return pa < pb;
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

}  // namespace

std::vector<BrokenRule> broken_rules(const ReaderRun& run) {
  std::vector<BrokenRule> out;
  for (const CaseResult& result : run.results) {
    if (!result_fails_run(result)) continue;
    for (const std::string& rule : result.rules) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&rule](const BrokenRule& b) { return b.rule == rule; });
      if (it == out.end()) it = out.insert(out.end(), BrokenRule{rule, {}});
      it->failures.push_back(&result);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const BrokenRule& a, const BrokenRule& b) { return rule_before(a.rule, b.rule); });
  for (BrokenRule& b : out) {
    std::sort(b.failures.begin(), b.failures.end(),
              [](const CaseResult* x, const CaseResult* y) { return x->case_id < y->case_id; });
  }
  return out;
}

std::string incomplete_note(const ReaderRun& run) {
  if (!run.interrupted) return "";
  return "stopped after " + std::to_string(run.results.size()) + " of " +
         std::to_string(std::max(run.cases_planned, run.results.size())) +
         " cases (the others did not run)";
}

std::string_view stderr_line_of_interest(std::string_view stderr_text) {
  constexpr std::string_view kMarkers[] = {"Sanitizer: ",   "runtime error: ",   "panicked at ",
                                           "FATAL ERROR: ", "terminate called ", "' failed."};
  while (!stderr_text.empty()) {
    const std::size_t newline = stderr_text.find('\n');
    std::string_view line = stderr_text.substr(0, newline);
    const bool sanitizer = line.find("ERROR: ") != std::string_view::npos ||
                           line.find("WARNING: ") != std::string_view::npos;
    for (const std::string_view marker : kMarkers) {
      if (line.find(marker) == std::string_view::npos) continue;
      // A sanitizer's SUMMARY line repeats the report's first line, later.
      if (marker == kMarkers[0] && !sanitizer) continue;
      if (marker == kMarkers[5] && line.find("Assertion") == std::string_view::npos) continue;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      return line;
    }
    if (newline == std::string_view::npos) break;
    stderr_text.remove_prefix(newline + 1);
  }
  return {};
}

std::string_view shown_reader_error(const CaseResult& result) {
  if (result.grade == Grade::kCrash || result.grade == Grade::kTimeout) {
    const std::string_view line = stderr_line_of_interest(result.reader_error);
    if (!line.empty()) return line;
  }
  return result.reader_error;
}

std::string failure_message(const CaseResult& result, bool writer) {
  const std::string_view message = shown_reader_error(result);
  if (!result.detail.empty() && !message.empty()) {
    return result.detail + (writer ? "; writer: " : "; reader: ") + std::string(message);
  }
  if (!result.detail.empty()) return result.detail;
  if (!message.empty()) return std::string(message);
  return "(no message)";
}

std::vector<MatrixGroup> build_matrix(std::span<const ReaderRun> runs) {
  std::map<std::string, MatrixCase, std::less<>> by_id;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (const CaseResult& result : runs[r].results) {
      auto [it, inserted] = by_id.try_emplace(result.case_id);
      if (inserted) {
        it->second.info = &result;
        it->second.writer_case = is_writer_run(runs[r]);
        it->second.cells.assign(runs.size(), nullptr);
      }
      it->second.cells[r] = &result;
    }
  }
  std::map<std::string, std::vector<MatrixCase>, std::less<>> by_group;
  for (auto& [id, matrix_case] : by_id) {
    by_group[matrix_case.info->group].push_back(std::move(matrix_case));
  }
  std::vector<MatrixGroup> groups;
  for (auto& [name, cases] : by_group) {
    MatrixGroup group{name, std::move(cases), {}};
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (std::any_of(group.cases.begin(), group.cases.end(),
                      [r](const MatrixCase& c) { return c.cells[r] != nullptr; })) {
        group.columns.push_back(r);
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::string case_counts_text(const MatrixInfo& info) {
  std::string out;
  if (info.reader_cases != 0) out = std::to_string(info.reader_cases) + " reader cases";
  if (info.writer_cases != 0) {
    out += (out.empty() ? "" : ", ") + std::to_string(info.writer_cases) + " writer cases";
  }
  return out;
}

bool is_writer_run(const ReaderRun& run) noexcept { return run.mode == kWriterMode; }

std::string runs_noun(std::span<const ReaderRun> runs) {
  const auto writers =
      static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), is_writer_run));
  const std::size_t readers = runs.size() - writers;
  const auto counted = [](std::size_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  if (writers == 0) return counted(readers, "reader");
  if (readers == 0) return counted(writers, "writer");
  return counted(readers, "reader") + " and " + counted(writers, "writer");
}

std::string_view expected_name(Verdict expected, bool writer_case) noexcept {
  if (!writer_case) return verdict_name(expected);
  return expected == Verdict::kAccept ? "write" : "refuse";
}

std::string_view answer_name(Verdict answer, bool writer) noexcept {
  if (!writer) return verdict_name(answer);
  return answer == Verdict::kAccept ? "written" : "refused";
}

}  // namespace stguard::conformance
