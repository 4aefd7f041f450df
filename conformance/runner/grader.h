// conformance/runner/grader.h: the one way a file goes through a reader and
// comes back graded, for `stguard conform` (run_reader, runner.h) and
// `stguard hunt` (conformance/hunt/engine.h) alike.
//
//   std::unique_ptr<Grader> grader = make_grader(spec, limits, /*persistent=*/true);
//   std::optional<CaseResult> r = grader->grade(expected_case, "/abs/path/file.safetensors");
//
// Two strategies, one answer: ProcessGrader starts one adapter process per
// file (process.h); PersistentGrader feeds files to long-running adapters
// (the reader's persistent command, persistent.h), which the runner's
// grading sees exactly as a one-process-per-file run (grade.h), so a reader
// gets the same grades either way. grade() is called from several threads
// at once (the -j workers).
#ifndef STGUARD_CONFORMANCE_RUNNER_GRADER_H_
#define STGUARD_CONFORMANCE_RUNNER_GRADER_H_

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "conformance/model/case.h"
#include "conformance/runner/persistent.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

class Grader {
 public:
  virtual ~Grader() = default;
  // Runs the reader on `file` (an absolute path) and grades its answer
  // against `expected`. nullopt when a stop request (cleanup.h) cut the run
  // short: an answer cut short is no answer, and is not graded.
  virtual std::optional<CaseResult> grade(const Case& expected,
                                          const std::filesystem::path& file) = 0;
  // True for long-running adapters (what the reports and progress say).
  virtual bool persistent() const noexcept = 0;
  // Adapter processes started so far: 0 for one process per file, one per
  // adapter for a persistent reader that never crashed or hung. Not while
  // grade() runs.
  virtual std::size_t adapter_starts() const = 0;
};

// One adapter process per file under `limits` (in plain mode stdout is
// read past the cap: it is no answer, and stopping there would change the
// exit status that is).
class ProcessGrader final : public Grader {
 public:
  ProcessGrader(ReaderSpec spec, ProcessLimits limits) : spec_(std::move(spec)), limits_(limits) {}
  std::optional<CaseResult> grade(const Case& expected, const std::filesystem::path& file) override;
  bool persistent() const noexcept override { return false; }
  std::size_t adapter_starts() const override { return 0; }

 private:
  ReaderSpec spec_;
  ProcessLimits limits_;
};

// Long-running adapters: each grade() borrows an idle adapter from the pool,
// or starts one when all are busy, so there are never more adapters than
// threads calling at once (the -j workers). A crash, hang or misframed
// answer is graded like its one-process-per-file twin, and only that
// adapter is restarted, on its next file. The adapters are stopped when the
// grader is destroyed.
class PersistentGrader final : public Grader {
 public:
  // `spec` must have a persistent command (JSON mode).
  PersistentGrader(ReaderSpec spec, ProcessLimits limits)
      : spec_(std::move(spec)), limits_(limits) {}
  std::optional<CaseResult> grade(const Case& expected, const std::filesystem::path& file) override;
  bool persistent() const noexcept override { return true; }
  std::size_t adapter_starts() const override;

 private:
  ReaderSpec spec_;
  ProcessLimits limits_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<PersistentReader>> idle_;
};

// The persistent strategy when `persistent` is asked for (it is unless
// --no-persistent) and the reader declares a persistent command; else one
// process per file.
std::unique_ptr<Grader> make_grader(const ReaderSpec& spec, const ProcessLimits& limits,
                                    bool persistent);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_GRADER_H_
