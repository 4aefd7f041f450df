// cli/conform.cc: `stguard conform`, grading safetensors readers against the
// conformance corpus (conformance/runner/), with the reports of
// conformance/report/ (written as `stguard conform report` writes them).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/decimal.h"
#include "base/file_io.h"
#include "base/output.h"
#include "base/parallel.h"
#include "base/text.h"
#include "command.h"
#include "conform_report.h"
#include "conformance/model/manifest.h"
#include "conformance/model/release.h"
#include "conformance/report/jsonl.h"
#include "conformance/report/text.h"
#include "conformance/runner/expectations.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"
#include "conformance/runner/selection.h"
#include "conformance/runner/session.h"
#include "conformance/writers/writer_run.h"
#include "data_dir.h"
#include "reader_args.h"

namespace stguard::cli {
namespace {

namespace fs = std::filesystem;
namespace conf = stguard::conformance;

constexpr std::string_view kConformUsage =
    "stguard conform (--adapter CMD [--name NAME] [--plain] | --reader DIR|NAME | "
    "--all-readers | --writer CMD [--name NAME] | --writer-dir DIR|NAME | --all-writers)... "
    "[options]";

constexpr std::string_view kConformIntro =
    R"(Grades safetensors readers against the conformance corpus. Each reader is an
adapter command; the runner calls `CMD FILE` once per corpus case (a timeout, an
address-space limit and its own process group per call, -j at a time) and grades
the answer against corpus/manifest.json.
)";

constexpr std::string_view kReaders = "Readers (any number, in report order)";
constexpr std::string_view kWriters =
    "Writers (graded on the writer cases, corpus/writers/; docs/writer-protocol.md)";
constexpr std::string_view kWritersNote =
    "  Writers share the readers' options (limits, -j, expectations, reports; the\n"
    "  matrices show them as columns beside the readers).\n";
constexpr std::string_view kCases = "Cases";
constexpr std::string_view kExpectations =
    "Expectations (known failures; see conformance/adapters/README.md)";
constexpr std::string_view kReports = "Reports (the text summary always goes to stdout)";

constexpr std::string_view kConformOutro =
    R"(Grades: PASS, IMPL_ACCEPT / IMPL_REJECT (either cases), NOT_APPLICABLE (a case
newer than the release the reader implements), FAIL_SHOULD_ACCEPT,
FAIL_SHOULD_REJECT, FAIL_WRONG_CONTENT, CRASH, TIMEOUT, PROTOCOL_ERROR; for
writers FAIL_INVALID_OUTPUT, FAIL_SHOULD_REFUSE, FAIL_SHOULD_WRITE too.

Exit status: 0 every case passed (or failed as expected), 1 some case failed,
2 the run could not happen (usage error, unreadable corpus, an --adapter that
cannot be started, a report that cannot be written).
SIGINT, SIGTERM and SIGHUP stop the run: no case starts, every adapter process
and all it started is killed, the reports are written with the cases that
finished and marked incomplete (readers not reached are skipped, "not run"; no
--write-expectations file), and stguard ends by that signal.
)";

// The options as CLI11 fills them; checked and turned into ConformOptions by
// conform_options().
struct ConformArgs {
  std::vector<std::string> adapters;
  std::vector<std::string> names;
  std::vector<std::string> readers;
  bool all_readers = false;
  std::vector<std::string> writers;
  std::vector<std::string> writer_dirs;
  bool all_writers = false;
  bool setup = false;
  bool require_readers = false;
  RunArgs run;  // --data-dir, --corpus, -j, --timeout, --memory-mb, --no-persistent, -q
  std::vector<std::string> case_globs;
  std::vector<std::string> tags;
  std::optional<std::string> implements;
  std::optional<std::string> expectations;
  std::optional<std::string> write_expectations;
  std::optional<std::string> out_dir;
  ReportTargets reports;
  // The readers in command-line order (--adapter, --name and --plain belong
  // together by their order, which CLI11 keeps in parse_order()).
  std::vector<ReaderChoice> ordered;
};

struct ConformOptions {
  std::vector<ReaderChoice> readers;
  bool all_readers = false;
  bool all_writers = false;
  bool setup = false;
  bool require_readers = false;
  fs::path corpus;
  fs::path adapters;  // the bundled readers
  conf::CaseFilter filter;
  std::optional<std::string> implements;  // --implements, for every reader
  RunLimits run;                          // -j (0: one per CPU), --timeout, --memory-mb
  std::optional<fs::path> expectations;
  std::optional<fs::path> write_expectations;
  ReportTargets reports;
  bool quiet = false;
  bool persistent = true;
};

// Pairs each --name and --plain with the --adapter before it.
base::Result<void> order_readers(const CLI::App& app, ConformArgs& args) {
  std::size_t adapter = 0;
  std::size_t name = 0;
  std::size_t reader = 0;
  std::size_t writer = 0;
  std::size_t writer_dir = 0;
  for (const CLI::Option* option : app.parse_order()) {
    const std::string& which = option->get_name();
    if (which == "--writer") {
      args.ordered.push_back(
          {ReaderChoice::Kind::kAdapter, args.writers[writer++], "", false, true});
    } else if (which == "--writer-dir") {
      args.ordered.push_back(
          {ReaderChoice::Kind::kDir, args.writer_dirs[writer_dir++], "", false, true});
    } else if (which == "--adapter") {
      args.ordered.push_back({ReaderChoice::Kind::kAdapter, args.adapters[adapter++], "", false});
    } else if (which == "--reader") {
      args.ordered.push_back({ReaderChoice::Kind::kDir, args.readers[reader++], "", false});
    } else if (which == "--name" || which == "--plain") {
      if (args.ordered.empty() || args.ordered.back().kind != ReaderChoice::Kind::kAdapter) {
        return base::fail(which == "--name"
                              ? "--name names the --adapter or --writer given before it"
                              : "--plain applies to the --adapter given before it");
      }
      if (which == "--plain" && args.ordered.back().writer) {
        return base::fail("--plain applies to readers, not to the --writer given before it");
      }
      if (which == "--name") {
        args.ordered.back().name = args.names[name++];
      } else {
        args.ordered.back().plain = true;
      }
    }
  }
  return {};
}

base::Result<ConformOptions> conform_options(const CLI::App& app, ConformArgs& args) {
  if (base::Result<void> ordered = order_readers(app, args); !ordered) return ordered.error();
  ConformOptions options;
  options.readers = args.ordered;
  options.all_readers = args.all_readers;
  options.all_writers = args.all_writers;
  options.setup = args.setup;
  options.require_readers = args.require_readers;
  options.filter.id_globs = args.case_globs;
  options.filter.tags = args.tags;
  if (args.implements) {
    if (!conf::is_release(*args.implements)) {
      return base::fail("--implements: \"" + *args.implements +
                        "\" is not an upstream release (write it 0.5 or 0.5.0)");
    }
    options.implements = args.implements;
  }
  options.quiet = args.run.quiet;
  options.persistent = !args.run.no_persistent;
  options.reports = args.reports;
  if (options.readers.empty() && !options.all_readers && !options.all_writers) {
    return base::fail(
        "no reader or writer: give --adapter CMD, --reader DIR|NAME, --all-readers, --writer CMD, "
        "--writer-dir DIR|NAME or --all-writers");
  }
  base::Result<RunLimits> run = run_limits(args.run);
  if (!run) return run.error();
  options.run = *run;
  if (args.expectations) options.expectations = *args.expectations;
  if (args.write_expectations) options.write_expectations = *args.write_expectations;
  if (args.out_dir) {
    const fs::path dir = *args.out_dir;
    if (!options.reports.jsonl) options.reports.jsonl = dir / "results.jsonl";
    if (!options.reports.junit) options.reports.junit = dir / "junit.xml";
    if (!options.reports.html) options.reports.html = dir / "matrix.html";
    options.reports.text = dir / "summary.txt";
  }
  // The data directory is needed unless both the corpus and every reader are given.
  const bool needs_data =
      !args.run.corpus || options.all_readers || options.all_writers ||
      std::any_of(options.readers.begin(), options.readers.end(),
                  [](const ReaderChoice& r) { return r.kind == ReaderChoice::Kind::kDir; });
  std::optional<DataDir> data;
  if (needs_data) {
    base::Result<DataDir> found = find_data_dir(args.run.data_dir);
    if (found) data = std::move(*found);
    if (!found && (!args.run.corpus || options.all_readers || options.all_writers)) {
      return found.error();
    }
  }
  options.corpus = args.run.corpus ? fs::path(*args.run.corpus) : data->corpus();
  if (data) options.adapters = data->adapters();
  return options;
}

// Turns the reader arguments into specs, in order.
base::Result<std::vector<conf::ReaderSpec>> collect_readers(const ConformOptions& options) {
  std::vector<conf::ReaderSpec> specs;
  std::vector<ReaderChoice> readers = options.readers;
  if (options.all_readers) {
    for (const fs::path& dir : conf::find_reader_dirs(options.adapters)) {
      readers.push_back({ReaderChoice::Kind::kDir, dir.string(), "", false});
    }
    if (readers.size() == options.readers.size()) {
      return base::fail("--all-readers: no reader.json under " + options.adapters.string());
    }
  }
  if (options.all_writers) {
    const std::size_t before = readers.size();
    for (const fs::path& dir : conf::find_reader_dirs(options.adapters, conf::kWriterJson)) {
      readers.push_back({ReaderChoice::Kind::kDir, dir.string(), "", false, true});
    }
    if (readers.size() == before) {
      return base::fail("--all-writers: no writer.json under " + options.adapters.string());
    }
  }
  for (const ReaderChoice& choice : readers) {
    base::Result<conf::ReaderSpec> spec = reader_spec(choice, options.adapters, options.setup);
    if (!spec) return spec.error();
    if (options.implements) spec->implements = options.implements;
    if (const base::Result<void> named = check_reader_name(*spec, specs); !named) {
      return named.error();
    }
    if (const base::Result<void> runs = check_adapter_runs(choice, *spec); !runs) {
      return runs.error();
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

// A reader that is reported as skipped, for `reason`.
conf::ReaderRun skipped_run(const conf::ReaderSpec& spec, std::string reason) {
  conf::ReaderRun run;
  run.name = spec.name;
  run.command = conf::command_text(spec.command);
  run.mode = spec.writer                             ? std::string(conf::kWriterMode)
             : spec.mode == conf::AdapterMode::kJson ? "json"
                                                     : "plain";
  run.skipped = true;
  run.skip_reason = std::move(reason);
  return run;
}

// After SIGINT, SIGTERM or SIGHUP, once the reports of what finished are
// written (every adapter and leftover is already killed): says so, then
// ends by that signal, so the exit status says what stopped us.
int stop_now(const conf::RunSession& session, std::size_t cases_done, std::size_t cases_total,
             bool incomplete, bool reports_written) {
  std::cerr << "\n"
            << stopped_text("conform", session.stop_signal()) << " after " << cases_done << " of "
            << cases_total << " case runs; ";
  if (!incomplete) {
    std::cerr << "every case had run" << (reports_written ? ", the reports are whole\n" : "\n");
  } else if (reports_written) {
    std::cerr << "the run is incomplete, and the reports say so\n";
  } else {
    std::cerr << "the run is incomplete\n";
  }
  std::cerr.flush();
  return session.end_by_signal();
}

// The first --case GLOB or --tag TAG that selects no case, reader or writer,
// as a usage error's text; nullopt when each selects some. The writer cases
// are the ones already loaded (`writers`, under no filter).
std::optional<std::string> unmatched_filter(const conf::CaseFilter& filter,
                                            const std::vector<conf::Case>& cases,
                                            const std::vector<conf::LoadedWriterCase>& writers) {
  const auto selects = [&](const conf::CaseFilter& one) {
    return std::any_of(cases.begin(), cases.end(),
                       [&](const conf::Case& c) { return one.matches(c); }) ||
           std::any_of(writers.begin(), writers.end(), [&](const conf::LoadedWriterCase& w) {
             return one.matches(w.entry.as_case());
           });
  };
  for (const std::string& tag : filter.tags) {
    if (!selects({.id_globs = {}, .tags = {tag}})) return "--tag '" + tag + "' matches no case";
  }
  for (const std::string& glob : filter.id_globs) {
    if (!selects({.id_globs = {glob}, .tags = {}})) return "--case '" + glob + "' matches no case";
    if (!filter.tags.empty() && !selects({.id_globs = {glob}, .tags = filter.tags})) {
      return "--case '" + glob + "' matches no case with the --tag given";
    }
  }
  return std::nullopt;
}

int run_conform(const Command& command, ConformArgs& args) {
  base::Result<ConformOptions> options = conform_options(*command.app, args);
  if (!options) return usage_error(command, options.error().message);
  const auto not_done = [](const base::Failure& failure) {
    std::cerr << "stguard conform: " << base::terminal_safe(failure.message) << "\n";
    return kExitUsage;
  };
  conf::ManifestResult<conf::Manifest> corpus =
      conf::read_manifest(options->corpus / "manifest.json");
  if (!corpus) return not_done(corpus.error().failure());
  std::vector<conf::Case> cases;
  for (const conf::Case& c : corpus->cases) {
    if (options->filter.matches(c)) cases.push_back(c);
  }
  const base::Result<std::vector<conf::LoadedWriterCase>> all_writer_cases =
      conf::load_writer_cases(options->corpus, {});
  if (!all_writer_cases) return not_done(all_writer_cases.error());
  base::Result<std::vector<conf::LoadedWriterCase>> writer_cases =
      conf::load_writer_cases(options->corpus, options->filter);
  if (!writer_cases) return not_done(writer_cases.error());
  std::optional<conf::Expectations> expectations;
  if (options->expectations) {
    base::Result<conf::Expectations> loaded = conf::Expectations::load(*options->expectations);
    if (!loaded) return not_done(loaded.error());
    expectations = std::move(*loaded);
  }
  base::Result<std::vector<conf::ReaderSpec>> specs = collect_readers(*options);
  if (!specs) return not_done(specs.error());
  // Readers are graded on the reader cases, writers on the writer cases.
  const bool any_reader = std::any_of(specs->begin(), specs->end(),
                                      [](const conf::ReaderSpec& s) { return !s.writer; });
  const bool any_writer =
      specs->size() > 0 && !std::all_of(specs->begin(), specs->end(),
                                        [](const conf::ReaderSpec& s) { return !s.writer; });
  // Each --case and --tag must select something, or it was mistyped: one
  // that matches nothing would otherwise vanish behind one that matches.
  if (const std::optional<std::string> unmatched =
          unmatched_filter(options->filter, corpus->cases, *all_writer_cases)) {
    return usage_error(command, *unmatched);
  }
  if ((any_reader && cases.empty()) || (any_writer && writer_cases->empty())) {
    std::cerr << "stguard conform: no " << (any_reader && cases.empty() ? "" : "writer ")
              << "case matches the --case/--tag filters\n";
    return kExitUsage;
  }
  std::optional<base::OwnedDir> out_dir;
  if (args.out_dir) {
    // The report directory itself is made; a missing parent is a mistake.
    // It must be new, empty or an earlier run's: reports never replace a
    // file of the user's that happens to be named summary.txt.
    const fs::path dir = *args.out_dir;
    std::error_code ec;
    if (!dir.parent_path().empty() && !fs::is_directory(dir.parent_path(), ec)) {
      std::cerr << "stguard conform: cannot create " << base::terminal_safe(dir.string())
                << ": its parent is not a directory\n";
      return kExitUsage;
    }
    base::Result<base::OwnedDir> claimed = base::OwnedDir::claim(dir, "conform");
    if (!claimed) return not_done(claimed.error());
    out_dir = std::move(*claimed);
  }

  // From here on adapters run: a signal stops them all (no case starts after
  // it, and the running ones are killed and not graded), the reports say what
  // finished and that the run is incomplete, and every way out of this
  // function kills what the adapters left.
  conf::RunSession session;
  std::size_t cases_total = 0;
  for (const conf::ReaderSpec& spec : *specs) {
    cases_total += spec.writer ? writer_cases->size() : cases.size();
  }
  std::size_t cases_done = 0;

  conf::RunOptions run_options;
  run_options.jobs =
      base::effective_jobs(options->run.jobs, std::max(cases.size(), writer_cases->size()));
  run_options.limits = options->run.limits;
  run_options.expectations = expectations ? &*expectations : nullptr;
  run_options.persistent = options->persistent;
  const bool progress = !options->quiet && ::isatty(STDERR_FILENO) != 0;

  std::vector<conf::ReaderRun> runs;
  bool missing_required = false;
  for (const conf::ReaderSpec& spec : *specs) {
    if (options->setup && !spec.setup.empty()) {
      if (!options->quiet) {
        std::cerr << "== " << spec.name << ": setup: " << conf::command_text(spec.setup) << "\n";
      }
      std::string log;
      const bool set_up = conf::setup_reader(spec, std::chrono::seconds(900), &log);
      if (session.stop_signal() != 0) break;
      if (!set_up) {
        std::cerr << "stguard conform: setup of " << spec.name << " failed:\n"
                  << base::terminal_safe(log, {.keep_backslash = true, .keep_newlines = true})
                  << "\n";
      }
    }
    conf::ReaderProbe probe = conf::probe_reader(spec);
    if (session.stop_signal() != 0) break;
    if (!probe.available) {
      if (!options->quiet) {
        std::cerr << "== " << spec.name << ": SKIPPED (" << base::terminal_safe(probe.reason)
                  << ")\n";
      }
      missing_required = missing_required || options->require_readers;
      runs.push_back(skipped_run(spec, probe.reason));
      continue;
    }
    if (!options->quiet) {
      std::cerr << "== " << spec.name << version_text(probe) << ": "
                << (spec.writer ? writer_cases->size() : cases.size())
                << (spec.writer ? " writer cases" : " cases") << ", -j " << run_options.jobs
                << "\n";
    }
    if (progress) {
      run_options.on_result = [](const conf::CaseResult&, std::size_t done, std::size_t total) {
        if (done % 25 == 0 || done == total)
          std::cerr << "\r   " << done << "/" << total << std::flush;
      };
    }
    conf::RunOptions reader_options = run_options;
    reader_options.limits = conf::reader_limits(run_options.limits, spec);
    const auto start = std::chrono::steady_clock::now();
    conf::ReaderRun run = spec.writer
                              ? conf::run_writer(spec, *writer_cases, reader_options)
                              : conf::run_reader(spec, options->corpus, cases, reader_options);
    cases_done += run.results.size();
    run.version = probe.version;
    if (run.interrupted) {
      runs.push_back(std::move(run));
      break;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) std::cerr << "\r";
    if (!options->quiet) {
      std::ostringstream line;
      line.precision(1);
      line << std::fixed << "   done in " << seconds << " s ("
           << (seconds > 0 ? static_cast<double>(run.results.size()) / seconds : 0.0)
           << " files/s, ";
      line << (run.persistent ? persistent_text(run.adapter_starts) : "one process per file")
           << ")\n";
      std::cerr << line.str();
    }
    runs.push_back(std::move(run));
  }

  const int stopped_by = session.stop_signal();
  bool incomplete = false;
  if (stopped_by != 0) {
    // Nothing the adapters started may outlive the reports being written.
    session.kill_adapters();
    incomplete = runs.size() < specs->size() ||
                 std::any_of(runs.begin(), runs.end(),
                             [](const conf::ReaderRun& run) { return run.interrupted; });
    for (std::size_t i = runs.size(); i < specs->size(); ++i) {
      runs.push_back(skipped_run((*specs)[i], "not run: the run was stopped by " +
                                                  std::string(conf::signal_name(stopped_by))));
    }
  }
  const std::string summary = conf::text_summary(runs);
  std::cout << summary;
  std::cout.flush();
  base::Result<void> wrote =
      write_reports(runs,
                    matrix_info(options->corpus, any_reader ? cases.size() : 0,
                                any_writer ? writer_cases->size() : 0),
                    options->reports, summary, out_dir ? &*out_dir : nullptr);
  // An expectation file from a stopped run would drop the cases that did not
  // run: it is not written.
  if (wrote && !incomplete && options->write_expectations) {
    wrote = base::write_file(*options->write_expectations, conf::expectations_text(runs));
  }
  const bool written = wrote.has_value();
  if (!written) not_done(wrote.error());
  if (stopped_by != 0) {
    return stop_now(session, cases_done, cases_total, incomplete, written);
  }
  if (!written) return kExitUsage;
  if (missing_required) {
    std::cerr << "stguard conform: a reader is not installed (--require-readers)\n";
    return kExitUsage;
  }
  for (const conf::ReaderRun& run : runs) {
    for (const conf::CaseResult& result : run.results) {
      if (conf::result_fails_run(result)) return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace

void add_conform_command(CLI::App& root, Commands& commands) {
  Command& command = commands.add(root, "conform",
                                  "grade safetensors readers against the corpus (matrix, reports)",
                                  kConformUsage, kConformIntro, kConformOutro);
  auto args = std::make_shared<ConformArgs>();
  CLI::App& app = *command.app;
  const std::string readers(kReaders);
  app.add_option("--adapter", args->adapters,
                 "an adapter command: prints one JSON object\n"
                 "{\"verdict\":\"accept\"|\"reject\",\"error\":\"...\",\"tensors\":[...]}\n"
                 "and exits 0 (see conformance/adapters/README.md). CMD is "
                 "split into words ('...' and \"...\" group; no shell).")
      ->option_text("CMD")
      ->group(readers)
      ->check(role(ValueRole::kCommand));
  app.add_option("--name", args->names,
                 "the preceding --adapter's (or --writer's) name in reports "
                 "[default: file name of its first word]")
      ->option_text("NAME")
      ->group(readers);
  // Counted, not stored: each --plain applies to the --adapter before it.
  app.add_flag("--plain")
      ->description(
          "grade the preceding --adapter by exit status alone "
          "(0 accept, 1 reject, anything else a crash)")
      ->disable_flag_override()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group(readers);
  app.add_option("--reader", args->readers,
                 "a reader directory with a reader.json (command, version "
                 "command, setup), or the name of a bundled one, e.g. "
                 "stguard-strict, huggingface-hub, safetensors-npm")
      ->option_text("DIR|NAME")
      ->group(readers)
      ->check(role(ValueRole::kReader));
  app.add_flag("--all-readers", args->all_readers,
               "every bundled reader (the data directory's conformance/adapters/)")
      ->disable_flag_override()
      ->group(readers);
  app.add_flag("--setup", args->setup, "run each reader's setup command (e.g. npm ci) first")
      ->disable_flag_override()
      ->group(readers);
  app.add_flag("--require-readers", args->require_readers,
               "a reader that is not installed fails the run (exit 2) "
               "instead of being reported as skipped")
      ->disable_flag_override()
      ->group(readers);

  const std::string writers(kWriters);
  app.add_option("--writer", args->writers,
                 "a writer adapter: `CMD SPEC.json OUT.safetensors` writes "
                 "the spec or refuses it, exits 0 and says which in one JSON "
                 "line, {\"outcome\":\"written\"|\"refused\"}; --name names it")
      ->option_text("CMD")
      ->group(writers)
      ->check(role(ValueRole::kCommand));
  app.add_option("--writer-dir", args->writer_dirs,
                 "a writer directory with a writer.json (the schema of "
                 "reader.json), or a bundled one's name, e.g. stguard-write")
      ->option_text("DIR|NAME")
      ->group(writers)
      ->check(role(ValueRole::kReader));
  app.add_flag("--all-writers", args->all_writers, "every bundled writer")
      ->disable_flag_override()
      ->group(writers);
  command.group_notes.emplace_back(writers, kWritersNote);

  const std::string cases(kCases);
  app.add_option("--corpus", args->run.corpus, "the corpus [default: the data directory's corpus/]")
      ->option_text("DIR")
      ->group(cases)
      ->check(role(ValueRole::kInputDir));
  app.add_option("--case", args->case_globs,
                 "only cases whose id matches (repeatable; '*' spans '/'); "
                 "each must match some case, or it is a usage error")
      ->option_text("GLOB")
      ->group(cases);
  app.add_option("--tag", args->tags, "only cases carrying the tag (repeatable; each must match)")
      ->option_text("TAG")
      ->group(cases);
  app.add_option("--implements", args->implements,
                 "the upstream release every reader of the run implements (overrides "
                 "reader.json's \"implements\"): a case pinning a newer release's behaviour "
                 "is graded NOT_APPLICABLE")
      ->option_text("VERSION")
      ->group(cases);

  const std::string reports(kReports);
  add_run_options(app, args->run, reports);

  const std::string expectations(kExpectations);
  app.add_option("--expectations", args->expectations,
                 "listed failures do not fail the run (XFAIL); "
                 "listed cases that pass are reported (XPASS)")
      ->option_text("FILE")
      ->group(expectations)
      ->check(role(ValueRole::kInputFile));
  app.add_option("--write-expectations", args->write_expectations,
                 "write this run's failures in that format")
      ->option_text("FILE")
      ->group(expectations)
      ->check(role(ValueRole::kOutputFile));

  app.add_option("--out-dir", args->out_dir,
                 "write summary.txt, results.jsonl, junit.xml, matrix.html into DIR: new "
                 "(its parent must exist), empty, or an earlier conform's; never a folder "
                 "of other files")
      ->option_text("DIR")
      ->group(reports)
      ->check(role(ValueRole::kOutputDir));
  add_report_file_options(app, args->reports, reports, /*jsonl=*/true);
  add_data_dir_option(app, args->run.data_dir);
  command.run = [&command, args] { return run_conform(command, *args); };
  add_conform_report_command(app, commands);
}

}  // namespace stguard::cli
