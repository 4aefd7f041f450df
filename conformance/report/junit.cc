// conformance/report/junit.cc: JUnit XML (junit.h).
#include "conformance/report/junit.h"

#include <cmath>
#include <cstdint>

#include "conformance/report/escape.h"
#include "conformance/report/tally.h"

namespace stguard::conformance {
namespace {

// "0.012": JUnit wants seconds.
std::string seconds_text(double milliseconds) {
  if (!std::isfinite(milliseconds) || milliseconds < 0 || milliseconds > 1e12) {
    milliseconds = 0;
  }
  const auto total = static_cast<std::uint64_t>(std::llround(milliseconds));
  std::string fraction = std::to_string(total % 1000);
  fraction.insert(0, 3 - fraction.size(), '0');
  return std::to_string(total / 1000) + "." + fraction;
}

}  // namespace

std::string junit_xml(std::span<const ReaderRun> runs) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  std::size_t skipped = 0;
  std::string suites;
  for (const ReaderRun& run : runs) {
    const std::string name = xml_text(run.name, true, 200);
    std::string properties = "    <properties>\n      <property name=\"reader_version\" value=\"" +
                             xml_text(run.version, true, 200) +
                             "\"/>\n      <property name=\"mode\" value=\"" +
                             xml_text(run.mode, true, 40) + "\"/>\n";
    if (run.skipped) {
      properties += "    </properties>\n";
      ++tests;
      ++skipped;
      suites += "  <testsuite name=\"" + name +
                "\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n" + properties +
                "    <testcase classname=\"" + name +
                "\" name=\"reader skipped\">\n      <skipped message=\"" +
                xml_text("reader skipped: " + run.skip_reason, true, 1000) +
                "\"/>\n    </testcase>\n  </testsuite>\n";
      continue;
    }
    properties += "    </properties>\n";
    const Counts counts = count_results(run);
    tests += counts.total;
    failures += counts.failing;
    const std::size_t not_applicable = counts.per_grade[grade_index(Grade::kNotApplicable)];
    skipped += counts.xfail + not_applicable;
    double total_ms = 0;
    std::string cases;
    for (const CaseResult& result : run.results) {
      if (std::isfinite(result.duration_ms) && result.duration_ms > 0) {
        total_ms += result.duration_ms;
      }
      cases += "    <testcase classname=\"" + xml_text(result.group, true, 200) + "\" name=\"" +
               xml_text(result.case_id, true, 200) + "\" time=\"" +
               seconds_text(result.duration_ms) + "\"";
      const std::string_view grade = grade_name(result.grade);
      if (result_fails_run(result)) {
        std::string body = "grade: " + std::string(grade) + "\nexpected verdict: " +
                           std::string(verdict_name(result.expected_verdict)) +
                           "\nreader verdict: " +
                           std::string(result.verdict ? verdict_name(*result.verdict) : "none");
        if (result.expectation == Expectation::kOtherFailure) {
          body += "\nexpectation file: listed with another grade";
        }
        if (!result.detail.empty()) body += "\ndetail: " + result.detail;
        if (!result.reader_error.empty()) {
          body +=
              (is_writer_run(run) ? "\nwriter error: " : "\nreader error: ") + result.reader_error;
        }
        if (!result.description.empty()) body += "\ncase: " + result.description;
        cases += ">\n      <failure type=\"" + std::string(grade) + "\" message=\"" +
                 xml_text(std::string(grade) + ": " + failure_message(result, is_writer_run(run)),
                          true, 300) +
                 "\">" + xml_text(body, false, 20000) + "</failure>\n    </testcase>\n";
      } else if (result.expectation == Expectation::kExpectedFailure) {
        cases += ">\n      <skipped message=\"expected failure: " + std::string(grade) +
                 "\"/>\n    </testcase>\n";
      } else if (result.grade == Grade::kNotApplicable) {
        // Neither passed nor failed: newer than the release the reader implements.
        cases +=
            ">\n      <skipped message=\"not applicable: the case pins a newer upstream "
            "release than the reader implements\"/>\n    </testcase>\n";
      } else if (result.expectation == Expectation::kUnexpectedPass) {
        cases += ">\n      <system-out>XPASS: listed as an expected failure, but " +
                 std::string(grade) + "</system-out>\n    </testcase>\n";
      } else {
        cases += "/>\n";
      }
    }
    // A run stopped by a signal is one error more, so that a CI job reading
    // only this file cannot take the finished cases for the whole run.
    std::size_t suite_tests = counts.total;
    std::size_t suite_errors = 0;
    if (run.interrupted) {
      ++suite_tests;
      ++suite_errors;
      cases += "    <testcase classname=\"" + name +
               "\" name=\"run incomplete\">\n      <error type=\"INCOMPLETE\" message=\"" +
               xml_text("run incomplete: " + incomplete_note(run), true, 300) +
               "\"/>\n    </testcase>\n";
    }
    tests += suite_tests - counts.total;
    errors += suite_errors;
    suites += "  <testsuite name=\"" + name + "\" tests=\"" + std::to_string(suite_tests) +
              "\" failures=\"" + std::to_string(counts.failing) + "\" errors=\"" +
              std::to_string(suite_errors) + "\" skipped=\"" +
              std::to_string(counts.xfail + not_applicable) + "\" time=\"" +
              seconds_text(total_ms) + "\">\n" + properties + cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"stguard conform\" "
         "tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
         std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\">\n" + suites +
         "</testsuites>\n";
}

}  // namespace stguard::conformance
