// conformance/runner/runner.h: runs a reader's adapter over the corpus.
//
//   stguard::conformance::RunOptions options;
//   options.jobs = 2;
//   ReaderRun run = run_reader(spec, corpus_dir, manifest.cases, options);
//
// Each case goes through the reader's Grader (grader.h, the one the hunt
// uses too): one adapter process under ProcessLimits (process.h) per case,
// `jobs` at a time, or, for a reader with a persistent command, one of at
// most `jobs` persistent adapters (persistent.h) answers it; results come
// back sorted by case id whatever the finishing order, so reports are
// deterministic.
#ifndef STGUARD_CONFORMANCE_RUNNER_RUNNER_H_
#define STGUARD_CONFORMANCE_RUNNER_RUNNER_H_

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "conformance/model/case.h"
#include "conformance/runner/expectations.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

struct RunOptions {
  ProcessLimits limits;
  unsigned jobs = 1;                           // adapter processes at a time; 0: one per core
  const Expectations* expectations = nullptr;  // optional
  // Use the reader's persistent command when it has one; false: one
  // process per case whatever the reader declares (--no-persistent).
  bool persistent = true;
  // Called after each case (from worker threads, serialised by the runner).
  std::function<void(const CaseResult&, std::size_t done, std::size_t total)> on_result;
};

// What a reader's version command said. `available` is false when the
// command is missing, fails or times out; `reason` then says why, and the
// reader is reported as skipped (never as passing).
struct ReaderProbe {
  bool available = false;
  std::string version;  // first line of the version command's stdout
  std::string reason;
};

// Checks that the adapter's executable exists and, when the reader has a
// version command, runs it (timeout 60 s, no memory limit: runtimes such as
// node start slowly on a loaded machine).
ReaderProbe probe_reader(const ReaderSpec& spec);

// Runs the reader's setup command (e.g. `npm ci`) in its directory, with
// stdout and stderr passed through to `log` (the tail). True when it exited 0.
bool setup_reader(const ReaderSpec& spec, std::chrono::seconds timeout, std::string* log);

// Runs every case of `cases` (entries of the manifest in `corpus_dir`; the
// adapter gets the absolute path of each case's file) through the reader's
// grader (make_grader: persistent when options.persistent and the reader
// declares it) and grades it. The result carries the reader's name, mode and command; version
// and skip state are the caller's (see probe_reader).
ReaderRun run_reader(const ReaderSpec& spec, const std::filesystem::path& corpus_dir,
                     std::span<const Case> cases, const RunOptions& options);

// The parallel part of run_reader, shared with the writer runner
// (conformance/writers/writer_run.h): calls grade_one(index) for each of
// `count` cases, options.jobs at a time, into run.results. No case starts
// after a stop request (stop_signal()); one whose grade_one returns nullopt
// (cut short by the stop) is not recorded, and the run is then marked
// interrupted. Expectations are applied under run.name, on_result is called,
// and the results end sorted by case id.
void run_cases(ReaderRun& run, std::size_t count, const RunOptions& options,
               const std::function<std::optional<CaseResult>(std::size_t)>& grade_one);

// Whether `c` applies to a reader implementing upstream release `implements`
// (nullopt: the newest): a case pinning behaviour of a newer release does not.
bool case_applies(const Case& c, const std::optional<std::string>& implements) noexcept;

// A reader name usable in reports and expectation files: 1-64 characters of
// [A-Za-z0-9._+-] (no blanks, no path separators).
bool valid_reader_name(std::string_view name) noexcept;

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_RUNNER_H_
