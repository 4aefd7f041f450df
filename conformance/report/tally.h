// conformance/report/tally.h: what every report format computes from the
// runs the same way: grade codes and orders, counts per reader, failures
// worst first, the case-by-reader matrix, and the facts a matrix names.
//
//   Counts counts = count_results(run);              // per grade, failing, XFAIL, XPASS
//   for (const MatrixGroup& group : build_matrix(runs)) ...
#ifndef STGUARD_CONFORMANCE_REPORT_TALLY_H_
#define STGUARD_CONFORMANCE_REPORT_TALLY_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/runner/results.h"

namespace stguard::conformance {

// What the matrices (HTML, Markdown) say about the run besides the results.
struct MatrixInfo {
  std::string title = "stguard conformance matrix";
  std::string corpus_version;    // manifest "corpus_version" (else "version"); "" leaves it out
  std::size_t reader_cases = 0;  // reader cases run (or in the manifest); 0 leaves it out
  std::size_t writer_cases = 0;  // writer cases run; 0 leaves it out
  std::string generated_by;      // "stguard 0.1.0"; "" leaves it out
};

// "443 reader cases, 76 writer cases" (the parts that are not 0), or "".
std::string case_counts_text(const MatrixInfo& info);

// A run of a writer (mode kWriterMode) rather than a reader.
bool is_writer_run(const ReaderRun& run) noexcept;

// The runs counted by kind: "4 readers and 1 writer", "1 reader",
// "2 writers"; "0 readers" for none.
std::string runs_noun(std::span<const ReaderRun> runs);

// A case's expected outcome as the reports show it: accept, reject or
// either for a reader case; write or refuse for a writer case.
std::string_view expected_name(Verdict expected, bool writer_case) noexcept;

// An answer as the reports show it: accept or reject from a reader; written
// or refused from a writer.
std::string_view answer_name(Verdict answer, bool writer) noexcept;

// The short code of a grade used in matrix cells: PASS, ACC (IMPL_ACCEPT),
// REJ (IMPL_REJECT), N/A (NOT_APPLICABLE), WRONG, SHOULD-REJ, SHOULD-ACC, CRASH, TIME, PROTO, and
// for writers INVALID (FAIL_INVALID_OUTPUT), SHOULD-REF, SHOULD-WRI.
std::string_view grade_code(Grade grade) noexcept;

inline constexpr std::size_t kGradeCount = std::size(kAllGrades);

// Position in kAllGrades (worst first): the index used in arrays, in the
// HTML page's data and in its CSS classes (.g0 .. .g12).
std::size_t grade_index(Grade grade) noexcept;

// Summary tables list grades best first: the passing ones, then the verdict
// failures, then the breakdowns.
inline constexpr Grade kBestFirst[] = {Grade::kPass,
                                       Grade::kImplAccept,
                                       Grade::kImplReject,
                                       Grade::kNotApplicable,
                                       Grade::kFailShouldAccept,
                                       Grade::kFailShouldReject,
                                       Grade::kFailShouldWrite,
                                       Grade::kFailShouldRefuse,
                                       Grade::kFailInvalidOutput,
                                       Grade::kFailWrongContent,
                                       Grade::kProtocolError,
                                       Grade::kTimeout,
                                       Grade::kCrash};
static_assert(std::size(kBestFirst) == kGradeCount);

// The grades a reader's run can have, and a writer's, best first: the
// columns of each kind's summary table.
inline constexpr Grade kReaderGradesBestFirst[] = {Grade::kPass,
                                                   Grade::kImplAccept,
                                                   Grade::kImplReject,
                                                   Grade::kNotApplicable,
                                                   Grade::kFailShouldAccept,
                                                   Grade::kFailShouldReject,
                                                   Grade::kFailWrongContent,
                                                   Grade::kProtocolError,
                                                   Grade::kTimeout,
                                                   Grade::kCrash};
inline constexpr Grade kWriterGradesBestFirst[] = {Grade::kPass,
                                                   Grade::kFailShouldWrite,
                                                   Grade::kFailShouldRefuse,
                                                   Grade::kFailInvalidOutput,
                                                   Grade::kFailWrongContent,
                                                   Grade::kProtocolError,
                                                   Grade::kTimeout,
                                                   Grade::kCrash};

struct Counts {
  std::array<std::size_t, kGradeCount> per_grade{};  // by grade_index
  std::size_t total = 0;
  std::size_t failing = 0;  // result_fails_run
  std::size_t xfail = 0;
  std::size_t xpass = 0;
};

Counts count_results(const ReaderRun& run);

// A rule of docs/spec.md a reader breaks: the failing results (result_fails_run)
// of the cases that test it, by case id.
struct BrokenRule {
  std::string rule;  // "ST-LAY-2"
  std::vector<const CaseResult*> failures;
};

// Every rule a failing result of `run` names, in rule order (ST-HDR-2 before
// ST-HDR-10); empty when nothing fails or the results carry no rules.
std::vector<BrokenRule> broken_rules(const ReaderRun& run);

// For a run stopped by a signal: "stopped after 12 of 440 cases (the
// others did not run)"; "" for a complete run. Every report format shows it.
std::string incomplete_note(const ReaderRun& run);

// The first line of a crashed adapter's stderr that says what went wrong,
// as sanitizers and runtimes word it ("==7==ERROR: AddressSanitizer: ...",
// "x.cc:3:5: runtime error: ...", "WARNING: MemorySanitizer: ...",
// "thread 'main' panicked at ...", "FATAL ERROR: ...", "terminate called
// ...", "...: Assertion `...' failed."), without its line end; "" when none.
std::string_view stderr_line_of_interest(std::string_view stderr_text);

// The message a report shows of a result: for a crash or timeout, whose
// reader_error is stderr, its line of interest when it has one (the first
// line of a sanitizer report may sit kilobytes into stderr); else the
// reader_error itself.
std::string_view shown_reader_error(const CaseResult& result);

// The runner's detail and the adapter's own message in one line of prose:
// "DETAIL; reader: MESSAGE", "writer:" for a writer's result.
std::string failure_message(const CaseResult& result, bool writer);

// Results of one reader matching `keep`, worst grade first, then by case id.
template <typename Keep>
std::vector<const CaseResult*> worst_first(const ReaderRun& run, Keep keep) {
  std::vector<const CaseResult*> out;
  for (const CaseResult& result : run.results) {
    if (keep(result)) out.push_back(&result);
  }
  std::sort(out.begin(), out.end(), [](const CaseResult* a, const CaseResult* b) {
    const std::size_t ga = grade_index(a->grade);
    const std::size_t gb = grade_index(b->grade);
    return ga != gb ? ga < gb : a->case_id < b->case_id;
  });
  return out;
}

// The matrix: every case id any reader or writer has, grouped by case group
// (groups and ids in sorted order), with each run's result or null.
struct MatrixCase {
  const CaseResult* info = nullptr;      // the first run's result: id, description, tags
  bool writer_case = false;              // `info` comes from a writer's run
  std::vector<const CaseResult*> cells;  // one per run, null where it has none
};

struct MatrixGroup {
  std::string name;
  std::vector<MatrixCase> cases;
  // The runs (indexes into `runs`) with a result in this group, in run
  // order: the group's columns, so that reader groups show readers and
  // writer groups writers.
  std::vector<std::size_t> columns;
};

// Pointers into `runs`, which must outlive the result.
std::vector<MatrixGroup> build_matrix(std::span<const ReaderRun> runs);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_TALLY_H_
