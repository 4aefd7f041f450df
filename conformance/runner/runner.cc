// conformance/runner/runner.cc: the parallel run of one reader (runner.h).
#include "conformance/runner/runner.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "base/parallel.h"
#include "conformance/model/release.h"
#include "conformance/runner/cleanup.h"
#include "conformance/runner/grader.h"

namespace stguard::conformance {

ReaderProbe probe_reader(const ReaderSpec& spec) {
  ReaderProbe probe;
  if (!resolve_executable(spec.command.front(), spec.working_dir)) {
    probe.reason = "command not found: " + spec.command.front();
    return probe;
  }
  if (spec.version_command.empty()) {
    probe.available = true;
    return probe;
  }
  ProcessLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.address_space_bytes = 0;
  limits.stop_at_stdout_cap = false;
  ProcessResult run = run_process(spec.version_command, spec.working_dir, limits);
  if (run.status != ProcessResult::Status::kExited || run.exit_code != 0) {
    std::string why = run.status == ProcessResult::Status::kSpawnFailed ? run.spawn_error
                      : run.status == ProcessResult::Status::kTimedOut ? "version command timed out"
                                                                       : "version command failed";
    std::string said = run.stderr_text;
    while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
    if (std::size_t last = said.rfind('\n'); last != std::string::npos) said.erase(0, last + 1);
    probe.reason = said.empty() ? why : why + ": " + said;
    return probe;
  }
  std::string version = run.stdout_text.substr(0, run.stdout_text.find('\n'));
  while (!version.empty() && (version.back() == '\r' || version.back() == ' ')) version.pop_back();
  probe.available = true;
  probe.version = version.substr(0, 200);
  return probe;
}

bool setup_reader(const ReaderSpec& spec, std::chrono::seconds timeout, std::string* log) {
  if (spec.setup.empty()) return true;
  ProcessLimits limits;
  limits.timeout = timeout;
  limits.address_space_bytes = 0;
  limits.stop_at_stdout_cap = false;
  limits.max_stderr_bytes = 16 << 10;
  ProcessResult run = run_process(spec.setup, spec.working_dir, limits);
  *log = run.stdout_text.size() > 4096 ? run.stdout_text.substr(run.stdout_text.size() - 4096)
                                       : run.stdout_text;
  *log += run.stderr_text;
  if (run.status == ProcessResult::Status::kSpawnFailed) *log += run.spawn_error;
  if (run.status == ProcessResult::Status::kTimedOut) *log += "setup timed out";
  return run.status == ProcessResult::Status::kExited && run.exit_code == 0;
}

bool case_applies(const Case& c, const std::optional<std::string>& implements) noexcept {
  return !c.since || !implements || compare_releases(*c.since, *implements) <= 0;
}

ReaderRun run_reader(const ReaderSpec& spec, const std::filesystem::path& corpus_dir,
                     std::span<const Case> cases, const RunOptions& options) {
  ReaderRun run;
  run.name = spec.name;
  run.mode = spec.mode == AdapterMode::kJson ? "json" : "plain";
  const std::unique_ptr<Grader> grader = make_grader(spec, options.limits, options.persistent);
  run.persistent = grader->persistent();
  run.command = command_text(run.persistent ? spec.persistent_command : spec.command);
  const std::filesystem::path corpus = std::filesystem::absolute(corpus_dir);
  run_cases(run, cases.size(), options, [&](std::size_t index) {
    std::optional<CaseResult> result = grader->grade(cases[index], corpus / cases[index].file);
    // The reader's answer stays on record; a case newer than the release it
    // implements just does not count either way.
    if (result && !case_applies(cases[index], spec.implements)) {
      result->grade = Grade::kNotApplicable;
    }
    return result;
  });
  run.adapter_starts = grader->adapter_starts();
  return run;
}

void run_cases(ReaderRun& run, std::size_t count, const RunOptions& options,
               const std::function<std::optional<CaseResult>(std::size_t)>& grade_one) {
  run.results.resize(count);
  run.cases_planned = count;
  std::mutex report_mutex;
  std::size_t done = 0;
  base::parallel_for_each(count, {.jobs = options.jobs}, [&](std::size_t index) {
    // After a stop request no case starts, and none that was cut short is
    // graded: the run is incomplete and says so.
    if (stop_signal() != 0) return;
    std::optional<CaseResult> result = grade_one(index);
    if (!result) return;
    if (options.expectations != nullptr) options.expectations->apply(run.name, *result);
    const std::lock_guard<std::mutex> lock(report_mutex);
    run.results[index] = std::move(*result);
    ++done;
    if (options.on_result) options.on_result(run.results[index], done, count);
  });
  if (stop_signal() != 0) {
    run.interrupted = true;
    std::erase_if(run.results, [](const CaseResult& r) { return r.case_id.empty(); });
  }
  std::sort(run.results.begin(), run.results.end(),
            [](const CaseResult& a, const CaseResult& b) { return a.case_id < b.case_id; });
}

bool valid_reader_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '-';
  });
}

}  // namespace stguard::conformance
