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
  std::string corpus_version;    // manifest "version"; "" leaves it out
  std::size_t corpus_cases = 0;  // cases in the manifest; 0 leaves it out
  std::string generated_by;      // "stguard 0.1.0"; "" leaves it out
};

// The short code of a grade used in matrix cells: PASS, ACC (IMPL_ACCEPT),
// REJ (IMPL_REJECT), WRONG, SHOULD-REJ, SHOULD-ACC, CRASH, TIME, PROTO, and
// for writers INVALID (FAIL_INVALID_OUTPUT), SHOULD-REF, SHOULD-WRI.
std::string_view grade_code(Grade grade) noexcept;

inline constexpr std::size_t kGradeCount = std::size(kAllGrades);

// Position in kAllGrades (worst first): the index used in arrays, in the
// HTML page's data and in its CSS classes (.g0 .. .g11).
std::size_t grade_index(Grade grade) noexcept;

// Summary tables list grades best first: the passing ones, then the verdict
// failures, then the breakdowns.
inline constexpr Grade kBestFirst[] = {Grade::kPass,
                                       Grade::kImplAccept,
                                       Grade::kImplReject,
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

struct Counts {
  std::array<std::size_t, kGradeCount> per_grade{};  // by grade_index
  std::size_t total = 0;
  std::size_t failing = 0;  // result_fails_run
  std::size_t xfail = 0;
  std::size_t xpass = 0;
};

Counts count_results(const ReaderRun& run);

// For a run stopped by a signal: "stopped after 12 of 440 cases (the
// others did not run)"; "" for a complete run. Every report format shows it.
std::string incomplete_note(const ReaderRun& run);

// The runner's detail and the reader's own message in one line of prose.
std::string failure_message(const CaseResult& result);

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

// The matrix: every case id any reader has, grouped by case group (groups
// and ids in sorted order), with each reader's result or null.
struct MatrixCase {
  const CaseResult* info = nullptr;      // the first reader's result: id, description, tags
  std::vector<const CaseResult*> cells;  // one per run, null where it has none
};

struct MatrixGroup {
  std::string name;
  std::vector<MatrixCase> cases;
};

// Pointers into `runs`, which must outlive the result.
std::vector<MatrixGroup> build_matrix(std::span<const ReaderRun> runs);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_TALLY_H_
