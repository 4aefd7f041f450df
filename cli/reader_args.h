// cli/reader_args.h: what `stguard conform` and `stguard hunt` share on their
// command lines and around the readers they name: the run options (-j,
// --timeout, --memory-mb, --no-persistent, -q, --data-dir, --corpus), turning
// an --adapter, --reader, --writer or --writer-dir into a reader spec (a
// bundled reader by name, an --adapter that cannot run explained), and the
// words both print about a reader. The run itself and its stop handling are
// the runner's (conformance/runner/grader.h, session.h).
#ifndef STGUARD_CLI_READER_ARGS_H_
#define STGUARD_CLI_READER_ARGS_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/failure.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"

namespace stguard::cli {

// A --reader value: a reader directory, or the name of a bundled reader
// (a directory of `adapters`); with `writer`, a --writer-dir value likewise,
// with writer.json. Fails naming the bundled ones.
base::Result<std::filesystem::path> reader_dir(const std::string& value,
                                               const std::filesystem::path& adapters,
                                               bool writer = false);

// Why the first word of an --adapter command names nothing that can run,
// for a word conformance::resolve_executable did not resolve.
std::string why_not_executable(const std::string& word, const std::filesystem::path& working_dir);

// -j/--jobs: 1 to 256.
base::Result<unsigned> parse_jobs(const std::string& text);
// --timeout: seconds from 0.001 to 86400, up to three decimals.
base::Result<std::chrono::milliseconds> parse_timeout(const std::string& text);
// --memory-mb: 0 (no limit) to 2^30.
base::Result<std::uint64_t> parse_memory_mb(const std::string& text);

// The options both commands take, as CLI11 fills them.
struct RunArgs {
  std::optional<std::string> data_dir;
  std::optional<std::string> corpus;
  std::optional<std::string> jobs;
  std::optional<std::string> timeout;
  std::optional<std::string> memory_mb;
  bool no_persistent = false;
  bool quiet = false;
};

// Declares -j/--jobs, --timeout, --memory-mb and --no-persistent (the group
// "Limits" of --help) and -q/--quiet (in `output_group`) on `app`. --corpus,
// whose meaning differs, and --data-dir (data_dir.h) are the caller's.
void add_run_options(CLI::App& app, RunArgs& args, const std::string& output_group);

struct RunLimits {
  unsigned jobs = 0;                  // 0: one per CPU
  conformance::ProcessLimits limits;  // --timeout [10 s], --memory-mb [2048]
};

// -j, --timeout and --memory-mb, checked in that order.
base::Result<RunLimits> run_limits(const RunArgs& args);

// A reader as the command line names it: an adapter command (--adapter, with
// the --name and --plain after it, or --writer) or a reader or writer
// directory (--reader, --writer-dir: a path, or a bundled one's name).
struct ReaderChoice {
  enum class Kind { kAdapter, kDir };
  Kind kind = Kind::kAdapter;
  std::string value;  // the command or the directory
  std::string name;   // --name; empty: the command's file name
  bool plain = false;
  bool writer = false;
};

// The reader `choice` names; `adapters` is the bundled readers' directory
// (empty when there is none), where a NAME is looked up. A reader of the
// installed data runs from its per-user cache copy (reader_cache.h): with
// `for_setup` the copy is refreshed first, else it is used when current.
base::Result<conformance::ReaderSpec> reader_spec(const ReaderChoice& choice,
                                                  const std::filesystem::path& adapters,
                                                  bool for_setup = false);
// A name the reports can use, and none of `earlier` has.
base::Result<void> check_reader_name(const conformance::ReaderSpec& spec,
                                     std::span<const conformance::ReaderSpec> earlier);
// An adapter command's first word names something that can run.
base::Result<void> check_adapter_runs(const ReaderChoice& choice,
                                      const conformance::ReaderSpec& spec);

// " (VERSION)" after a reader's name, or nothing when it has no version.
std::string version_text(const conformance::ReaderProbe& probe);
// "persistent, N adapter start(s)": how a persistent reader was driven.
std::string persistent_text(std::size_t adapter_starts);
// "stguard COMMAND: stopped by SIGNAL", the start of the line a stop ends with.
std::string stopped_text(std::string_view command, int signal_number);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_READER_ARGS_H_
