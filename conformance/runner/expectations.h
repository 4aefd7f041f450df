// conformance/runner/expectations.h: known failures, so that a project can
// run conform in its own CI and fail only on new regressions.
//
// File format, one expectation per line ('#' starts a comment):
//
//   CASE_GLOB GRADE[,GRADE...]            applies to every reader of the run
//   READER CASE_GLOB GRADE[,GRADE...]     applies to one reader
//
//   layout/overlap-*     FAIL_SHOULD_REJECT      # reader does not check overlap
//   safetensors-npm  dtypes/null-map  IMPL_ACCEPT,FAIL_WRONG_CONTENT
//
// A failing result whose grade is listed is an expected failure (XFAIL) and
// does not fail the run; a listed case that passes is XPASS (reported, so the
// line can be removed); a listed case failing with an unlisted grade still
// fails the run. `stguard conform --write-expectations FILE` writes the
// current failures in this format.
#ifndef STGUARD_CONFORMANCE_RUNNER_EXPECTATIONS_H_
#define STGUARD_CONFORMANCE_RUNNER_EXPECTATIONS_H_

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

class Expectations {
 public:
  // Parses the text of an expectation file. Fails, naming the line, for a
  // malformed line or an unknown grade.
  static base::Result<Expectations> parse(std::string_view text);
  // Reads and parses the file at `path` (its errors start with the path).
  static base::Result<Expectations> load(const std::filesystem::path& path);

  // Sets `result.expectation` for a result of `reader`.
  void apply(std::string_view reader, CaseResult& result) const;

  bool empty() const noexcept { return entries_.empty(); }

 private:
  struct Entry {
    std::string reader;  // empty: every reader
    std::string case_glob;
    std::vector<Grade> grades;
  };
  std::vector<Entry> entries_;
};

// The failures of `runs` as an expectation file (reader column only when
// there is more than one reader), sorted, with a header comment.
std::string expectations_text(std::span<const ReaderRun> runs);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_EXPECTATIONS_H_
