// tests/conformance/report_samples.h: hand-made results for the report
// tests (report_test.cc, jsonl_test.cc): two readers over five cases with
// every kind of outcome, a skipped reader, and small text helpers.
//
//   std::vector<ReaderRun> runs = conformance_test::sample_runs();
//   case_of(runs[1], "layout/gap").reader_error = "\x1b[2J";
#ifndef STGUARD_TESTS_CONFORMANCE_REPORT_SAMPLES_H_
#define STGUARD_TESTS_CONFORMANCE_REPORT_SAMPLES_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/model/verdict.h"
#include "conformance/runner/results.h"

namespace conformance_test {

using stguard::conformance::CaseResult;
using stguard::conformance::Expectation;
using stguard::conformance::Grade;
using stguard::conformance::ReaderRun;
using stguard::conformance::Verdict;
// The results are built from the names the JSON lines use ("" = no verdict).
inline CaseResult make_case(std::string id, std::string_view expected, Grade grade,
                            std::string_view verdict, std::string error = "",
                            std::string detail = "", Expectation expectation = Expectation::kNone) {
  CaseResult result;
  result.group = id.substr(0, id.find('/'));
  result.case_id = std::move(id);
  result.expected_verdict = stguard::conformance::verdict_from_name(expected).value();
  result.description = "description of " + result.case_id;
  result.tags = {"tag-a", "tag-b"};
  result.grade = grade;
  if (!verdict.empty()) result.verdict = stguard::conformance::verdict_from_name(verdict).value();
  result.reader_error = std::move(error);
  result.detail = std::move(detail);
  result.expectation = expectation;
  result.duration_ms = 12.25;
  return result;
}

inline ReaderRun make_reader(std::string name, std::vector<CaseResult> results) {
  ReaderRun run;
  run.name = std::move(name);
  run.version = "1.2.3";
  run.command = "node adapter.mjs";
  run.mode = "json";
  run.results = std::move(results);
  std::sort(run.results.begin(), run.results.end(),
            [](const CaseResult& a, const CaseResult& b) { return a.case_id < b.case_id; });
  return run;
}

inline ReaderRun make_skipped(std::string name, std::string reason) {
  ReaderRun run;
  run.name = std::move(name);
  run.version = "";
  run.mode = "json";
  run.skipped = true;
  run.skip_reason = std::move(reason);
  return run;
}

// Two readers over the same five cases, with every kind of outcome.
inline std::vector<ReaderRun> sample_runs() {
  return {
      make_reader("strict",
                  {make_case("layout/gap", "reject", Grade::kPass, "reject", "OFFSET_GAP at 80"),
                   make_case("layout/canonical", "accept", Grade::kPass, "accept"),
                   make_case("json-syntax/bom", "reject", Grade::kPass, "reject", "bad start"),
                   make_case("numbers/exponent", "either", Grade::kImplReject, "reject", "no"),
                   make_case("numbers/big", "accept", Grade::kPass, "accept")}),
      make_reader("loose",
                  {make_case("layout/gap", "reject", Grade::kFailShouldReject, "accept", "",
                             "accepted a file with a gap"),
                   make_case("layout/canonical", "accept", Grade::kFailWrongContent, "accept", "",
                             "tensor \"t\": sha256 differs"),
                   make_case("json-syntax/bom", "reject", Grade::kCrash, "", "Segmentation fault",
                             "killed by signal 11 (SIGSEGV)", Expectation::kExpectedFailure),
                   make_case("numbers/exponent", "either", Grade::kImplAccept, "accept"),
                   make_case("numbers/big", "accept", Grade::kPass, "accept", "", "",
                             Expectation::kUnexpectedPass)}),
      make_skipped("absent", "node not found in PATH"),
  };
}

inline CaseResult& case_of(ReaderRun& run, std::string_view id) {
  for (CaseResult& result : run.results) {
    if (result.case_id == id) return result;
  }
  ADD_FAILURE() << "no case " << id;
  return run.results.front();
}

inline std::size_t count_of(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

inline std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    lines.emplace_back(text.substr(pos, end == std::string_view::npos ? text.npos : end - pos));
    pos = end == std::string_view::npos ? text.size() : end + 1;
  }
  return lines;
}

}  // namespace conformance_test

#endif  // STGUARD_TESTS_CONFORMANCE_REPORT_SAMPLES_H_
