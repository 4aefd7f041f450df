// conformance/report/jsonl.h: the JSON-lines results of a conformance run,
// written and read back, so that separate runs (one per reader, one per
// machine) combine into one set of reports (`stguard conform report`).
//
//   std::string text = stguard::conformance::json_lines(runs);   // every case, passes too
//   std::string error;
//   auto again = stguard::conformance::read_json_lines(jsonl_a + jsonl_b);  // base::Result
//   if (!again) die(error);                                       // "line 7: ..."
#ifndef STGUARD_CONFORMANCE_REPORT_JSONL_H_
#define STGUARD_CONFORMANCE_REPORT_JSONL_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

// One JSON object per line for each (reader, case), passes included, in
// reader order then case order:
//   {"reader", "reader_version", "mode", "case", "group", "expected", "grade",
//    "verdict" (null if none), "error" (null if empty), "detail" (null if
//    empty), "expectation": "XFAIL"|"XPASS"|"OTHER_FAILURE"|null,
//    "duration_ms", "tags", "description"}
// A skipped reader is one line {"reader", "reader_version", "mode",
// "skipped": true, "skip_reason"}. A run stopped by a signal (its results
// are the cases that finished) ends with one line {"reader",
// "reader_version", "mode", "interrupted": true, "cases_planned"}. Text is written as it is (this
// is data, not display), except that invalid UTF-8 is replaced by U+FFFD (base::json_line).
// ReaderRun::command is not written; a reader that is not skipped and has no results writes no line
// at all.
std::string json_lines(std::span<const ReaderRun> runs);

// The inverse of json_lines. `text` may be several json_lines outputs
// concatenated (each ends with a newline); blank lines are ignored, "\r\n"
// is accepted, unknown fields are ignored. Lines are grouped by reader name
// in first-seen order; each reader's results are sorted by case id. Fails
// with "line N: why" for:
// a line that is not a JSON object, a missing field or one of the wrong
// type, an unknown grade/verdict/expectation, nesting deeper than 32, the
// same reader with a different version or mode, a reader both skipped and
// with results or stopped, two stops of one reader with different
// "cases_planned", or the same (reader, case) twice. Never throws (running out
// of memory is reported as an error too).
base::Result<std::vector<ReaderRun>> read_json_lines(std::string_view text);

// Several files read as one (`conform report a.jsonl b.jsonl`): the same,
// with each line named by its file ("b.jsonl line 3: ...", "... already on
// a.jsonl line 1").
struct NamedText {
  std::string name;
  std::string_view text;
};
base::Result<std::vector<ReaderRun>> read_json_lines(std::span<const NamedText> texts);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_JSONL_H_
