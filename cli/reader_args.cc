// cli/reader_args.cc: reader and run options shared by `stguard conform`
// and `stguard hunt` (reader_args.h).
#include "reader_args.h"

#include <cstdlib>
#include <string_view>
#include <system_error>

#include "base/decimal.h"
#include "base/text.h"
#include "conformance/runner/reader.h"
#include "conformance/writers/writer_run.h"
#include "data_dir.h"
#include "reader_cache.h"

namespace stguard::cli {

namespace fs = std::filesystem;
namespace conf = stguard::conformance;

// A --reader value: a reader directory, or the name of a bundled reader.
// A --writer-dir value likewise, with writer.json.
base::Result<fs::path> reader_dir(const std::string& value, const fs::path& adapters, bool writer) {
  const std::string_view file = writer ? conf::kWriterJson : "reader.json";
  std::error_code ec;
  if (fs::is_regular_file(fs::path(value) / file, ec)) return fs::path(value);
  if (!adapters.empty() && value.find('/') == std::string::npos &&
      fs::is_regular_file(adapters / value / file, ec)) {
    return adapters / value;
  }
  std::string bundled;
  if (!adapters.empty()) {
    for (const fs::path& dir : conf::find_reader_dirs(adapters, file)) {
      bundled += (bundled.empty() ? "" : ", ") + dir.filename().string();
    }
  }
  const std::string what = writer ? "writer" : "reader";
  return base::fail((writer ? "--writer-dir " : "--reader ") + value + ": no " + std::string(file) +
                    " there, and no bundled " + what + " of that name" +
                    (bundled.empty() ? std::string() : " (bundled: " + bundled + ")"));
}

// Why the first word of an --adapter command names nothing that can run,
// for a word conf::resolve_executable did not resolve: a word with a slash is
// a path (relative to `working_dir`); one without is looked up on PATH, as a
// shell does. A file that is there but not executable is named as such.
std::string why_not_executable(const std::string& word, const fs::path& working_dir) {
  const std::string quoted = "'" + base::terminal_safe(word) + "'";
  std::error_code ec;
  if (word.find('/') != std::string::npos) {
    const fs::path path = fs::path(word).is_relative() ? working_dir / word : fs::path(word);
    if (fs::is_directory(path, ec)) return quoted + " is a directory, not an executable file";
    if (fs::exists(path, ec)) return quoted + " exists but is not an executable file (chmod +x?)";
    return "cannot find the executable " + quoted;
  }
  const char* path_env = std::getenv("PATH");
  std::string_view dirs = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / word;
    if (fs::is_regular_file(candidate, ec)) {
      return quoted + " exists in " + base::terminal_safe(candidate.parent_path().string()) +
             " (on PATH) but is not an executable file (chmod +x?)";
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  if (fs::exists(working_dir / word, ec)) {
    return "cannot find the executable " + quoted + " on PATH; for the file " + quoted +
           " here, write './" + base::terminal_safe(word) + "'";
  }
  return "cannot find the executable " + quoted;
}

base::Result<unsigned> parse_jobs(const std::string& text) {
  const std::optional<std::uint64_t> value = base::parse_u64(text);
  if (!value || *value == 0 || *value > 256) {
    return base::fail("--jobs needs a number from 1 to 256, got '" + text + "'");
  }
  return static_cast<unsigned>(*value);
}

base::Result<std::chrono::milliseconds> parse_timeout(const std::string& text) {
  const std::optional<std::uint64_t> ms = base::parse_scaled_decimal(text, 3);
  if (!ms || *ms == 0 || *ms > 86'400'000) {
    return base::fail("--timeout needs seconds from 0.001 to 86400 (up to three decimals), got '" +
                      text + "'");
  }
  return std::chrono::milliseconds(*ms);
}

base::Result<std::uint64_t> parse_memory_mb(const std::string& text) {
  const std::optional<std::uint64_t> mb = base::parse_u64(text);
  if (!mb || *mb > (std::uint64_t{1} << 30)) {
    return base::fail("--memory-mb needs a number from 0 (no limit) to 1073741824, got '" + text +
                      "'");
  }
  return *mb;
}

void add_run_options(CLI::App& app, RunArgs& args, const std::string& output_group) {
  const std::string limits = "Limits";
  app.add_option("-j,--jobs", args.jobs, "adapter processes at a time [default: number of CPUs]")
      ->option_text("N")
      ->group(limits);
  app.add_option("--timeout", args.timeout,
                 "per case or file, 0.001 to 86400, up to three decimals [default: 10]")
      ->option_text("SECONDS")
      ->group(limits);
  app.add_option("--memory-mb", args.memory_mb,
                 "address-space limit per adapter process (RLIMIT_AS) "
                 "[default: 2048; 0 = none, needed for sanitizer builds]")
      ->option_text("N")
      ->group(limits);
  app.add_flag("--no-persistent", args.no_persistent,
               "one adapter process per case or file even for a reader whose "
               "reader.json declares a \"persistent_command\" (by default such "
               "a reader answers from -j long-running processes)")
      ->disable_flag_override()
      ->group(limits);
  app.add_flag("-q,--quiet", args.quiet, "no progress on stderr")
      ->disable_flag_override()
      ->group(output_group);
}

base::Result<RunLimits> run_limits(const RunArgs& args) {
  RunLimits run;
  if (args.jobs) {
    const base::Result<unsigned> jobs = parse_jobs(*args.jobs);
    if (!jobs) return jobs.error();
    run.jobs = *jobs;
  }
  if (args.timeout) {
    const base::Result<std::chrono::milliseconds> timeout = parse_timeout(*args.timeout);
    if (!timeout) return timeout.error();
    run.limits.timeout = *timeout;
  }
  std::uint64_t memory_mb = 2048;
  if (args.memory_mb) {
    const base::Result<std::uint64_t> parsed = parse_memory_mb(*args.memory_mb);
    if (!parsed) return parsed.error();
    memory_mb = *parsed;
  }
  run.limits.address_space_bytes = memory_mb << 20;
  return run;
}

base::Result<conf::ReaderSpec> reader_spec(const ReaderChoice& choice, const fs::path& adapters,
                                           bool for_setup) {
  base::Result<conf::ReaderSpec> spec = base::fail("");
  if (choice.kind == ReaderChoice::Kind::kAdapter) {
    spec = conf::reader_from_command(
        choice.value, choice.name,
        choice.plain ? conf::AdapterMode::kPlain : conf::AdapterMode::kJson);
  } else if (const base::Result<fs::path> dir = reader_dir(choice.value, adapters, choice.writer)) {
    spec =
        conf::load_reader_dir(*dir, self_executable(),
                              choice.writer ? conf::kWriterJson : std::string_view("reader.json"));
    if (spec && !spec->setup.empty() && is_installed_reader(*dir)) {
      if (for_setup) {
        const base::Result<fs::path> copy = refresh_cache_copy(*dir);
        if (!copy) return copy.error();
        spec->working_dir = *copy;
      } else if (const std::optional<fs::path> copy = current_cache_copy(*dir)) {
        spec->working_dir = *copy;
      }
    }
  } else {
    spec = dir.error();
  }
  if (spec) spec->writer = choice.writer;
  return spec;
}

base::Result<void> check_reader_name(const conf::ReaderSpec& spec,
                                     std::span<const conf::ReaderSpec> earlier) {
  if (!conf::valid_reader_name(spec.name)) {
    return base::fail("reader name '" + base::terminal_safe(spec.name) +
                      "' must be 1-64 characters of A-Z a-z 0-9 . _ + - (use --name)");
  }
  for (const conf::ReaderSpec& other : earlier) {
    if (other.name == spec.name)
      return base::fail("two readers named '" + spec.name + "' (use --name)");
  }
  return {};
}

base::Result<void> check_adapter_runs(const ReaderChoice& choice, const conf::ReaderSpec& spec) {
  if (choice.kind != ReaderChoice::Kind::kAdapter ||
      conf::resolve_executable(spec.command.front(), spec.working_dir)) {
    return {};
  }
  return base::fail((choice.writer ? "--writer: " : "--adapter: ") +
                    why_not_executable(spec.command.front(), spec.working_dir));
}

std::string version_text(const conf::ReaderProbe& probe) {
  return probe.version.empty() ? "" : " (" + base::terminal_safe(probe.version) + ")";
}

std::string persistent_text(std::size_t adapter_starts) {
  return "persistent, " + std::to_string(adapter_starts) + " adapter start" +
         (adapter_starts == 1 ? "" : "s");
}

std::string stopped_text(std::string_view command, int signal_number) {
  return "stguard " + std::string(command) + ": stopped by " +
         std::string(conf::signal_name(signal_number));
}

}  // namespace stguard::cli
