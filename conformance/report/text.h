// conformance/report/text.h: the human summary of a conformance run, for the
// terminal (`stguard conform` prints it; --out-dir keeps it as summary.txt).
//
//   std::cout << stguard::conformance::text_summary(runs);
#ifndef STGUARD_CONFORMANCE_REPORT_TEXT_H_
#define STGUARD_CONFORMANCE_REPORT_TEXT_H_

#include <span>
#include <string>

#include "conformance/runner/results.h"

namespace stguard::conformance {

// Per reader one header line
//   NAME VERSION (MODE): TOTAL cases, F failing, X XFAIL, P XPASS
// then the non-zero counts per grade (worst first), then every result that
// fails the run (result_fails_run), worst grade first, then by case id:
//   "  GRADE  case/id  — detail; reader: reader's error" (cut to 160 characters),
// then the XPASS cases (listed as expected failures, but passing). A skipped
// reader is one line "NAME (MODE): SKIPPED: reason". A last line totals the
// results that fail the run. All untrusted text goes through
// base::terminal_safe. Deterministic; never throws but std::bad_alloc.
std::string text_summary(std::span<const ReaderRun> runs);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_TEXT_H_
