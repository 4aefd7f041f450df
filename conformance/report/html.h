// conformance/report/html.h: the conformance matrix as one self-contained
// HTML page (`stguard conform --html FILE`, matrix.html of --out-dir).
//
//   MatrixInfo info{.corpus_version = "1", .reader_cases = 443,
//                   .generated_by = "stguard 0.1.0"};
//   write("matrix.html", stguard::conformance::html_matrix(runs, info));
//
// The page is data rendered by a template: the skeleton, style and script
// are the files assets/matrix.html, matrix.css and matrix.js (assets.h);
// this writer fills in the summary tables and the results as JSON.
#ifndef STGUARD_CONFORMANCE_REPORT_HTML_H_
#define STGUARD_CONFORMANCE_REPORT_HTML_H_

#include <span>
#include <string>

#include "conformance/report/tally.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

// Inline CSS and JavaScript, no external resources, and a
// Content-Security-Policy that forbids loading any (so that even an escaping
// mistake cannot fetch anything). A summary table (per reader, counts per
// grade) that reads without JavaScript, a legend, and the matrix of cases
// (rows, grouped by case group, collapsible) by readers (columns), one colour
// and a short code (grade_code) per grade, expected failures hatched. Hover
// or click a cell for the reader's error, the runner's detail, the expected
// verdict, the case description and tags. Filters: grades, reader columns,
// "some reader fails / fails unexpectedly / readers disagree", case id or
// description text, group. The results are embedded as JSON in a
// <script type="application/json"> block (script_safe_json, escape.h), the
// page builds its DOM with textContent only, and every untrusted string in
// it has been through the display policy (base::terminal_safe). Reader
// messages are cut to 600 characters.
std::string html_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_HTML_H_
