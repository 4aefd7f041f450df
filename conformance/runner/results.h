// conformance/runner/results.h: what a conformance run produces. One
// ReaderRun per reader (adapter), holding one CaseResult per corpus case.
// The runner (runner.h) fills these in; the report writers (conformance/
// report/) turn them into the text summary, JSON lines, JUnit XML, the HTML
// matrix and the Markdown matrix of conformance/RESULTS.md, and read JSON
// lines back so that separate runs combine into one matrix.
#ifndef STGUARD_CONFORMANCE_RUNNER_RESULTS_H_
#define STGUARD_CONFORMANCE_RUNNER_RESULTS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/model/verdict.h"

namespace stguard::conformance {

// The grades of docs/adapter-protocol.md ("Grades"). Order is severity for
// display: the worst grades first.
enum class Grade {
  kCrash,             // exit status other than 0 (1 too, in JSON mode), or a signal
  kTimeout,           // still running when the timeout expired (killed)
  kFailShouldReject,  // accepted a case whose verdict is "reject"
  kFailWrongContent,  // accepted, but a tensor's name/dtype/shape/range/bytes differ
  kFailShouldAccept,  // rejected a case whose verdict is "accept"
  // Writers (conformance/writers/, docs/writer-protocol.md):
  kFailInvalidOutput,  // wrote a file the strict or the reference profile rejects
  kFailShouldRefuse,   // wrote a spec that must be refused
  kFailShouldWrite,    // refused a spec that must be written
  kProtocolError,      // exit 0 but stdout is not one valid protocol object
  kImplAccept,         // accepted an "either" case (with the expected tensors)
  kImplReject,         // rejected an "either" case
  // The case pins behaviour of an upstream release newer than the one the
  // reader implements (`implements`, --implements): run, but not graded.
  kNotApplicable,
  kPass,  // the expected verdict (and, when accepted, the expected tensors)
};

inline constexpr Grade kAllGrades[] = {Grade::kCrash,
                                       Grade::kTimeout,
                                       Grade::kFailShouldReject,
                                       Grade::kFailWrongContent,
                                       Grade::kFailShouldAccept,
                                       Grade::kFailInvalidOutput,
                                       Grade::kFailShouldRefuse,
                                       Grade::kFailShouldWrite,
                                       Grade::kProtocolError,
                                       Grade::kImplAccept,
                                       Grade::kImplReject,
                                       Grade::kNotApplicable,
                                       Grade::kPass};

// "CRASH", "TIMEOUT", "FAIL_SHOULD_REJECT", "FAIL_WRONG_CONTENT",
// "FAIL_SHOULD_ACCEPT", "FAIL_INVALID_OUTPUT", "FAIL_SHOULD_REFUSE",
// "FAIL_SHOULD_WRITE", "PROTOCOL_ERROR", "IMPL_ACCEPT", "IMPL_REJECT",
// "NOT_APPLICABLE", "PASS".
std::string_view grade_name(Grade grade) noexcept;
std::optional<Grade> grade_from_name(std::string_view name) noexcept;

// PASS, IMPL_ACCEPT and IMPL_REJECT are passing grades, NOT_APPLICABLE
// neither passes nor fails (never fails a run); all others fail.
constexpr bool grade_passes(Grade grade) noexcept {
  return grade == Grade::kPass || grade == Grade::kImplAccept || grade == Grade::kImplReject ||
         grade == Grade::kNotApplicable;
}

// How a result relates to the run's expectation file (expectations.h).
enum class Expectation {
  kNone,             // no expectation listed for this case
  kExpectedFailure,  // listed with this exact failing grade: XFAIL, does not fail the run
  kUnexpectedPass,   // listed, but the case passed: XPASS (reported, does not fail the run)
  kOtherFailure,     // listed with another grade, and failed differently: fails the run
};

struct CaseResult {
  // From the manifest.
  std::string case_id;  // "layout/gap"
  std::string group;    // "layout" (the id up to its first '/')
  Verdict expected_verdict = Verdict::kReject;
  std::string description;
  std::vector<std::string> tags;
  std::vector<std::string> rules;  // docs/spec.md's rules the case tests (none for writers)

  Grade grade = Grade::kPass;
  // The reader's: kAccept or kReject; nullopt when it gave none (crash,
  // timeout, protocol error).
  std::optional<Verdict> verdict;
  std::string reader_error;  // the adapter's "error" field; for crashes, timeouts and plain
                             // mode, the head and tail of stderr (stderr_excerpt)
  std::string detail;        // the runner's explanation: "killed by signal 11 (SIGSEGV)",
                             // "tensor \"t\": sha256 differs", "no output within 10 s", ...
  Expectation expectation = Expectation::kNone;
  double duration_ms = 0;  // wall time of the adapter process; not written to RESULTS.md
  // Processes the adapter left running after it exited (killed by the
  // runner; the grade is still the answer's). 0 for a clean adapter.
  std::size_t leftover_processes = 0;
};

// The mode of a writer's run (`conform --writer`): the reports show writers
// beside readers, in their own tables and with their own grades.
inline constexpr std::string_view kWriterMode = "writer";

struct ReaderRun {
  std::string name;      // "huggingface-hub", "stguard-strict"
  std::string version;   // what the reader's version command printed (first line), "" if unknown
  std::string command;   // the adapter command as the user would type it
  std::string mode;      // "json" (adapter protocol), "plain" (exit status only) or kWriterMode
  bool skipped = false;  // the reader is not installed / its version command failed
  std::string skip_reason;
  std::vector<CaseResult> results;  // sorted by case_id
  // Stopped by a signal (SIGINT, SIGTERM, SIGHUP): `results` holds only the
  // cases that finished, out of `cases_planned`; every report says so.
  bool interrupted = false;
  std::size_t cases_planned = 0;  // cases the run was given; results.size() when complete
  // Answered by persistent adapters (persistent.h); `command` is then the
  // persistent command, and adapter_starts counts the processes started
  // (one per job, plus one per restart after a crash, hang or bad answer).
  bool persistent = false;
  std::size_t adapter_starts = 0;
};

// A run fails (exit 1) when any result fails and is not an expected failure.
constexpr bool result_fails_run(const CaseResult& result) noexcept {
  return !grade_passes(result.grade) && result.expectation != Expectation::kExpectedFailure;
}

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_RESULTS_H_
