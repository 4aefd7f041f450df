// conformance/runner/grader.cc: the two ways of running a reader on a file
// (grader.h).
#include "conformance/runner/grader.h"

#include <string>
#include <utility>

#include "conformance/runner/grade.h"

namespace stguard::conformance {
namespace {

// `limits` as a reader in `mode` runs under. Plain mode grades the exit
// status alone: its stdout is no answer, and stopping it at the cap would
// change the grade.
ProcessLimits limits_for_mode(ProcessLimits limits, AdapterMode mode) {
  if (mode == AdapterMode::kPlain) limits.stop_at_stdout_cap = false;
  return limits;
}

}  // namespace

std::optional<CaseResult> ProcessGrader::grade(const Case& expected,
                                               const std::filesystem::path& file) {
  std::vector<std::string> argv = spec_.command;
  argv.push_back(file.string());
  const ProcessResult process =
      run_process(argv, spec_.working_dir, limits_for_mode(limits_, spec_.mode));
  if (process.status == ProcessResult::Status::kInterrupted) return std::nullopt;
  return grade_case(expected, spec_.mode, process, limits_);
}

std::optional<CaseResult> PersistentGrader::grade(const Case& expected,
                                                  const std::filesystem::path& file) {
  std::unique_ptr<PersistentReader> reader;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      reader = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!reader) {
    reader =
        std::make_unique<PersistentReader>(spec_.persistent_command, spec_.working_dir, limits_);
  }
  const ProcessResult process = reader->answer(file);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(reader));
  }
  if (process.status == ProcessResult::Status::kInterrupted) return std::nullopt;
  return grade_case(expected, AdapterMode::kJson, process, limits_);
}

std::size_t PersistentGrader::adapter_starts() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::size_t starts = 0;
  for (const std::unique_ptr<PersistentReader>& reader : idle_) starts += reader->starts();
  return starts;
}

std::unique_ptr<Grader> make_grader(const ReaderSpec& spec, const ProcessLimits& limits,
                                    bool persistent) {
  if (persistent && spec.has_persistent_mode()) {
    return std::make_unique<PersistentGrader>(spec, limits);
  }
  return std::make_unique<ProcessGrader>(spec, limits);
}

}  // namespace stguard::conformance
