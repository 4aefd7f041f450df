// conformance/runner/report.h: the reports of `stguard conform`, written
// from the ReaderRun values of a run (results.h), and JSON lines read back so
// that separate runs (one per reader, one per machine) combine into one
// matrix.
//
//   std::vector<ReaderRun> runs = ...;               // from the runner
//   std::cout << text_summary(runs);                 // terminal
//   write("conform.jsonl", json_lines(runs));        // every case, passes too
//   write("junit.xml", junit_xml(runs));             // CI test report
//   MatrixInfo info{.corpus_version = "1", .corpus_cases = 437,
//                   .generated_by = "stguard 0.1.0"};
//   write("matrix.html", html_matrix(runs, info));   // one self-contained page
//   write("RESULTS.md", markdown_matrix(runs, info));
//
//   std::string error;
//   auto again = read_json_lines(jsonl_a + jsonl_b, &error);  // nullopt: error
//
// Everything a reader produced (its name, version, error messages; and the
// case descriptions, which arrive through JSON lines too) is untrusted text:
// each writer escapes it for its own medium, replaces invalid UTF-8, and
// never lets it change the structure of the output. All writers are
// deterministic: readers in the order given, cases by group and id, failures
// worst grade first. None of them throws on odd text (only std::bad_alloc).
#ifndef STGUARD_CONFORMANCE_RUNNER_REPORT_H_
#define STGUARD_CONFORMANCE_RUNNER_REPORT_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runner/results.h"

namespace stguard::conform {

// What the matrices say about the run besides the results.
struct MatrixInfo {
  std::string title = "stguard conformance matrix";
  std::string corpus_version;    // manifest "version"; "" leaves it out
  std::size_t corpus_cases = 0;  // cases in the manifest; 0 leaves it out
  std::string generated_by;      // "stguard 0.1.0"; "" leaves it out
};

// The short code of a grade used in matrix cells: PASS, ACC (IMPL_ACCEPT),
// REJ (IMPL_REJECT), WRONG, SHOULD-REJ, SHOULD-ACC, CRASH, TIME, PROTO.
std::string_view grade_code(Grade grade) noexcept;

// `text` made safe to print on a terminal, on one line: C0/C1 control
// characters, DEL, ESC and the bidirectional-override/isolate marks become
// visible escapes (\n, \x1B, \u202E), invalid UTF-8 bytes become \xNN. Cut
// to at most `max_chars` characters (code points) with a trailing "…" when
// longer; 0 means no limit.
std::string terminal_safe(std::string_view text, std::size_t max_chars = 0);

// The human summary for the terminal. Per reader one header line
//   NAME VERSION (MODE): TOTAL cases, F failing, X XFAIL, P XPASS
// then the non-zero counts per grade (worst first), then every result that
// fails the run (result_fails_run), worst grade first, then by case id:
//   "  GRADE  case/id  — detail: reader's error" (cut to ~160 characters),
// then the XPASS cases (listed as expected failures, but passing). A skipped
// reader is one line "NAME (MODE): SKIPPED: reason". A last line totals the
// results that fail the run. All untrusted text goes through terminal_safe.
std::string text_summary(std::span<const ReaderRun> runs);

// One JSON object per line for each (reader, case), passes included, in
// reader order then case order:
//   {"reader", "reader_version", "mode", "case", "group", "expected", "grade",
//    "verdict" (null if none), "error" (null if empty), "detail" (null if
//    empty), "expectation": "XFAIL"|"XPASS"|"OTHER_FAILURE"|null,
//    "duration_ms", "tags", "description"}
// A skipped reader is one line {"reader", "reader_version", "mode",
// "skipped": true, "skip_reason"}. Invalid UTF-8 is replaced by U+FFFD.
// ReaderRun::command is not written; a reader that is not skipped and has no
// results writes no line at all.
std::string json_lines(std::span<const ReaderRun> runs);

// The inverse of json_lines. `text` may be several json_lines outputs
// concatenated (each ends with a newline); blank lines are ignored, "\r\n"
// is accepted, unknown fields are ignored. Lines are grouped by reader name
// in first-seen order; each reader's results are sorted by case id. Returns
// nullopt and sets *error (when `error` is not null) to "line N: why" for:
// a line that is not a JSON object, a missing field or one of the wrong
// type, an unknown grade/verdict/expectation, nesting deeper than 32, the
// same reader with a different version or mode, a reader both skipped and
// with results, or the same (reader, case) twice. Never throws (running out
// of memory is reported as an error too).
std::optional<std::vector<ReaderRun>> read_json_lines(std::string_view text, std::string* error);

// JUnit XML: <testsuites> with one <testsuite name=READER tests failures
// skipped> per reader and a <testcase classname=GROUP name=CASE_ID time=S>
// per result. A result that fails the run has <failure type=GRADE
// message=...> with the runner's detail and the reader's error as text; an
// expected failure (XFAIL) is <skipped message="expected failure: GRADE"/>.
// A skipped reader is a testsuite with one skipped testcase. Text is escaped
// for XML, and characters XML 1.0 forbids are replaced (control characters
// other than tab/LF/CR as "\xNN", U+FFFE/U+FFFF and invalid UTF-8 as U+FFFD).
std::string junit_xml(std::span<const ReaderRun> runs);

// One self-contained HTML page (inline CSS and JavaScript, no external
// resources, a Content-Security-Policy that forbids loading any): a summary
// table (per reader, counts per grade), a legend, and the matrix of cases
// (rows, grouped by case group, collapsible) by readers (columns), one colour
// and a short code (grade_code) per grade, expected failures hatched. Hover
// or click a cell for the reader's error, the runner's detail, the expected
// verdict, the case description and tags. Filters: grades, reader columns,
// "some reader fails / fails unexpectedly / readers disagree", case id or
// description text, group. The results are embedded as JSON in a
// <script type="application/json"> block with <, >, &, U+2028 and U+2029
// escaped, and the page builds its DOM with textContent only. Reader
// messages are cut to 600 characters.
std::string html_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info);

// conformance/RESULTS.md: deterministic (no durations, timestamps or paths,
// so that it changes only when results change). A title, a "generated by
// `stguard conform report --markdown`, do not edit" line, the corpus version
// and case count, a table of readers (name, version, mode, counts per grade;
// skipped readers with their reason), per reader a table of its non-passing
// results (grade, case id, reader's error cut to ~120 characters, expected
// failures marked), then the full matrix: one table per group with case id,
// expected verdict and one column per (non-skipped) reader holding
// grade_code. Untrusted text is escaped for Markdown table cells.
std::string markdown_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info);

}  // namespace stguard::conform

#endif  // STGUARD_CONFORMANCE_RUNNER_REPORT_H_
