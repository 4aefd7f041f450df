// conformance/report/text.cc: the terminal summary (text.h).
#include "conformance/report/text.h"

#include <algorithm>

#include "base/text.h"
#include "conformance/report/escape.h"
#include "conformance/report/tally.h"

namespace stguard::conformance {
namespace {

std::string pad_right(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string text_summary(std::span<const ReaderRun> runs) {
  std::string out;
  std::size_t failing_total = 0;
  std::size_t skipped_total = 0;
  std::size_t incomplete_total = 0;
  std::size_t grade_width = 0;
  for (Grade grade : kAllGrades) grade_width = std::max(grade_width, grade_name(grade).size());
  for (const ReaderRun& run : runs) {
    if (!out.empty()) out += '\n';
    std::string head = display_text(run.name, 80);
    if (!run.version.empty()) head += " " + display_text(run.version, 60);
    head += " (" + display_text(run.mode, 20) + ")";
    if (run.skipped) {
      ++skipped_total;
      out += head + ": SKIPPED: " + display_text(run.skip_reason, 200) + "\n";
      continue;
    }
    const Counts counts = count_results(run);
    failing_total += counts.failing;
    out += head + ": " + std::to_string(counts.total) + " cases, " +
           std::to_string(counts.failing) + " failing, " + std::to_string(counts.xfail) +
           " XFAIL, " + std::to_string(counts.xpass) + " XPASS\n";
    std::string grades;
    for (Grade grade : kAllGrades) {
      const std::size_t n = counts.per_grade[grade_index(grade)];
      if (n == 0) continue;
      grades += grades.empty() ? "  " : ", ";
      grades += std::string(grade_name(grade)) + " " + std::to_string(n);
    }
    if (!grades.empty()) out += grades + "\n";
    if (run.interrupted) {
      ++incomplete_total;
      out += "  incomplete: " + incomplete_note(run) + "\n";
    }
    // Passing or not, an adapter that left processes running is worth a line.
    std::size_t leaving = 0;
    std::string left;
    for (const CaseResult& result : run.results) {
      if (result.leftover_processes == 0) continue;
      if (++leaving <= 5) {
        left += (left.empty() ? "" : ", ") + display_text(result.case_id, 100) + " (" +
                std::to_string(result.leftover_processes) + ")";
      }
    }
    if (leaving != 0) {
      out += "  " + std::to_string(leaving) + (leaving == 1 ? " case" : " cases") +
             " left processes running after the adapter exited (killed): " + left +
             (leaving > 5 ? ", ..." : "") + "\n";
    }
    for (const CaseResult* result : worst_first(run, result_fails_run)) {
      out += "  " + pad_right(std::string(grade_name(result->grade)), grade_width) + "  " +
             display_text(result->case_id, 100) + "  \xE2\x80\x94 " +
             display_text(failure_message(*result, is_writer_run(run)), 160);
      if (result->expectation == Expectation::kOtherFailure) {
        out += " [expected failure listed with another grade]";
      }
      out += '\n';
    }
    // The report card: each rule of docs/spec.md the reader breaks, with the
    // failing cases that test it.
    const std::vector<BrokenRule> broken = broken_rules(run);
    if (!broken.empty()) {
      out += "  rules broken (docs/spec.md): " + std::to_string(broken.size()) + "\n";
      for (const BrokenRule& rule : broken) {
        std::string ids;
        for (std::size_t i = 0; i < rule.failures.size() && i < 4; ++i) {
          ids += (i == 0 ? "" : ", ") + display_text(rule.failures[i]->case_id, 100);
        }
        if (rule.failures.size() > 4) ids += ", ...";
        out += "    " + pad_right(display_text(rule.rule, 20), 11) + " " +
               std::to_string(rule.failures.size()) +
               (rule.failures.size() == 1 ? " case: " : " cases: ") + ids + "\n";
      }
    }
    for (const CaseResult* result : worst_first(run, [](const CaseResult& r) {
           return r.expectation == Expectation::kUnexpectedPass;
         })) {
      out += "  " + pad_right("XPASS", grade_width) + "  " + display_text(result->case_id, 100) +
             "  \xE2\x80\x94 listed as an expected failure, but passes (" +
             std::string(grade_name(result->grade)) + ")\n";
    }
  }
  if (!out.empty()) out += '\n';
  out += runs_noun(runs);
  if (skipped_total != 0) out += " (" + std::to_string(skipped_total) + " skipped)";
  out += ", " + std::to_string(failing_total) +
         (failing_total == 1 ? " result fails" : " results fail") + " the run\n";
  if (incomplete_total != 0) {
    out += "the run is incomplete: it was stopped by a signal before every case had run\n";
  }
  return out;
}

}  // namespace stguard::conformance
