// conformance/report/junit.h: a conformance run as a JUnit XML test report,
// for CI systems that show test results.
//
//   write("junit.xml", stguard::conformance::junit_xml(runs));
#ifndef STGUARD_CONFORMANCE_REPORT_JUNIT_H_
#define STGUARD_CONFORMANCE_REPORT_JUNIT_H_

#include <span>
#include <string>

#include "conformance/runner/results.h"

namespace stguard::conformance {

// <testsuites> with one <testsuite name=READER tests failures skipped> per
// reader and a <testcase classname=GROUP name=CASE_ID time=S> per result. A
// result that fails the run has <failure type=GRADE message=...> with the
// runner's detail and the reader's error as text; an expected failure
// (XFAIL) is <skipped message="expected failure: GRADE"/>. A skipped reader
// is a testsuite with one skipped testcase. Untrusted text goes through
// xml_text (escape.h): the display policy, then XML's escapes, so the
// output is well-formed XML 1.0 whatever a reader printed.
std::string junit_xml(std::span<const ReaderRun> runs);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_JUNIT_H_
