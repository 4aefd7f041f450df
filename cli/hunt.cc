// cli/hunt.cc: `stguard hunt`, fuzzing another reader with stguard as the
// oracle (conformance/hunt/engine.h), and `stguard hunt promote`, which turns findings
// into corpus recipes (conformance/hunt/findings.h).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "base/decimal.h"
#include "base/file_io.h"
#include "base/owned_dir.h"
#include "base/parallel.h"
#include "base/text.h"
#include "command.h"
#include "conformance/hunt/engine.h"
#include "conformance/hunt/findings.h"
#include "conformance/model/manifest.h"
#include "conformance/runner/grader.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"
#include "conformance/runner/session.h"
#include "data_dir.h"
#include "reader_args.h"

namespace stguard::cli {
namespace {

namespace fs = std::filesystem;
namespace conf = stguard::conformance;

constexpr std::string_view kHuntUsage =
    "stguard hunt (--adapter CMD [--name N] [--plain] | --reader DIR|NAME) [--seconds S] "
    "[--runs N] [--seed N] [-j N] [--from-valid] [--out DIR] [options]";

constexpr std::string_view kHuntIntro =
    R"(Fuzzes a safetensors reader with stguard as the oracle. Each generated file
goes through the reader's adapter exactly as `stguard conform` runs a case (a
timeout, an address-space limit and its own process group; a reader whose
reader.json declares a "persistent_command" answers from -j long-running
processes, restarted after a crash or timeout, which is a finding) and the
answer is compared with stguard's verdicts in both profiles. A divergence:
  accepts-invalid  accepted what both profiles reject
  rejects-valid    rejected what both profiles accept
  wrong-tensors    accepted, with tensors other than stguard's
  crash, timeout, protocol-error
Where the profiles disagree either answer is fine, as in `stguard conform`.
Divergences go into buckets by signature (kind, stguard's reason in each
profile, the reader's error with numbers, quoted text, paths and the file's
own tensor names and metadata keys blanked); a crash by where it happened
instead (a sanitizer report's bug type and top three frames, else the signal
or exit status). Each bucket keeps its smallest file, which is then minimised
(delta debugging on the header's tokens, then the data) while the signature
holds.
)";

constexpr std::string_view kHuntOutro =
    R"(Exit status: 0 no divergence, 1 divergences found (written to DIR), 2 the hunt
could not run or its findings could not be written (a full disk: nothing is
counted that the reader did not read). SIGINT, SIGTERM and SIGHUP stop it: no
file starts, every adapter is killed, the buckets found so far are written
unminimised, and the exit status is 128 + the signal.
)";

constexpr std::string_view kPromoteUsage =
    "stguard hunt promote DIR --group NAME [--bucket ID]... [--recipes DIR]";

constexpr std::string_view kPromoteIntro =
    R"(Appends the recipe stanzas of a hunt's DIR/cases.txt (all, or the --bucket ones)
to the group file cases/NAME.txt of the conformance recipes, creating it when
missing; `stguard corpus build` then makes them cases. Review each stanza's
description (it starts with REVIEW:) and rules before committing.
)";

constexpr std::string_view kPromoteOutro =
    R"(The group file as it would be is parsed with the other recipes and each new
case built first: a stanza that would break `stguard corpus build` is refused.

Exit status: 0 done, 2 nothing written (unknown bucket, bad group name, a
cases.txt that is missing or holds no stanza, a stanza that would not build,
an I/O error, stdout that cannot be written).
)";

struct HuntArgs {
  std::optional<std::string> adapter;
  std::optional<std::string> name;
  bool plain = false;
  std::optional<std::string> reader;
  std::optional<std::string> seconds;
  std::optional<std::string> runs;
  std::optional<std::string> seed;
  bool from_valid = false;
  std::optional<std::string> out;
  std::optional<std::string> minimise_runs;
  std::optional<std::string> minimise_seconds;
  RunArgs run;  // --data-dir, --corpus, -j, --timeout, --memory-mb, --no-persistent, -q
};

struct PromoteArgs {
  std::vector<std::string> dirs;
  std::optional<std::string> group;
  std::vector<std::string> buckets;
  std::optional<std::string> recipes;
};

base::Result<conf::ReaderSpec> hunt_reader(const HuntArgs& args) {
  if (args.adapter.has_value() == args.reader.has_value()) {
    return base::fail("give exactly one reader: --adapter CMD or --reader DIR|NAME");
  }
  if ((args.name || args.plain) && !args.adapter) {
    return base::fail("--name and --plain go with --adapter");
  }
  ReaderChoice choice;
  fs::path adapters;
  if (args.adapter) {
    choice = {ReaderChoice::Kind::kAdapter, *args.adapter, args.name.value_or(""), args.plain};
  } else {
    choice = {ReaderChoice::Kind::kDir, *args.reader, "", false};
    if (const base::Result<DataDir> data = find_data_dir(args.run.data_dir)) {
      adapters = data->adapters();
    }
  }
  base::Result<conf::ReaderSpec> spec = reader_spec(choice, adapters);
  if (!spec) return spec;
  // An adapter that cannot run is named before a bad name, as the hunt
  // always has (conform checks the other way round).
  if (const base::Result<void> runs = check_adapter_runs(choice, *spec); !runs) {
    return runs.error();
  }
  if (const base::Result<void> named = check_reader_name(*spec, {}); !named) {
    return named.error();
  }
  return spec;
}

base::Result<void> hunt_options(const HuntArgs& args, hunt::HuntOptions* options,
                                conf::ProcessLimits* limits) {
  if (args.seed) {
    const std::optional<std::uint64_t> seed = base::parse_u64(*args.seed);
    if (!seed) {
      return base::fail("--seed needs a number from 0 to 2^64-1, got '" + *args.seed + "'");
    }
    options->seed = *seed;
  }
  if (args.runs) {
    const std::optional<std::uint64_t> runs = base::parse_u64(*args.runs);
    if (!runs || *runs == 0) {
      return base::fail("--runs needs a positive number, got '" + *args.runs + "'");
    }
    options->runs = *runs;
  }
  options->seconds = args.runs ? 0 : 60;
  if (args.seconds) {
    const std::optional<std::uint64_t> ms = base::parse_scaled_decimal(*args.seconds, 3);
    if (!ms || *ms == 0) {
      return base::fail("--seconds needs a positive number of seconds, got '" + *args.seconds +
                        "'");
    }
    options->seconds = static_cast<double>(*ms) / 1000.0;
  }
  options->minimise_seconds = options->seconds;
  if (args.minimise_seconds) {
    const std::optional<std::uint64_t> ms = base::parse_scaled_decimal(*args.minimise_seconds, 3);
    if (!ms) {
      return base::fail("--minimise-seconds needs a number of seconds (0: no limit), got '" +
                        *args.minimise_seconds + "'");
    }
    options->minimise_seconds = static_cast<double>(*ms) / 1000.0;
  }
  if (args.minimise_runs) {
    const std::optional<std::uint64_t> n = base::parse_u64(*args.minimise_runs);
    if (!n || *n > 1'000'000) {
      return base::fail("--minimise-runs needs a number from 0 to 1000000, got '" +
                        *args.minimise_runs + "'");
    }
    options->minimise_tests = static_cast<std::size_t>(*n);
  }
  const base::Result<RunLimits> run = run_limits(args.run);
  if (!run) return run.error();
  options->jobs = base::effective_jobs(run->jobs, 256);
  options->from_valid = args.from_valid;
  *limits = run->limits;
  return {};
}

// The corpus's case files, in manifest order.
base::Result<std::vector<std::vector<std::uint8_t>>> corpus_files(const fs::path& corpus) {
  const conf::ManifestResult<conf::Manifest> manifest =
      conf::read_manifest(corpus / "manifest.json");
  if (!manifest) return manifest.error().failure();
  std::vector<std::vector<std::uint8_t>> files;
  for (const conf::Case& c : manifest->cases) {
    if (c.size > hunt::kMaxSeedBytes) continue;
    const base::Result<std::string> bytes = base::read_file(corpus / c.file);
    if (!bytes) return bytes.error();
    files.emplace_back(bytes->begin(), bytes->end());
  }
  return files;
}

int run_hunt_command(const Command& command, const HuntArgs& args) {
  base::Result<conf::ReaderSpec> spec = hunt_reader(args);
  if (!spec) return usage_error(command, spec.error().message);
  hunt::HuntOptions options;
  conf::ProcessLimits limits;
  if (const base::Result<void> parsed = hunt_options(args, &options, &limits); !parsed) {
    return usage_error(command, parsed.error().message);
  }
  const auto not_done = [](const base::Failure& failure) {
    std::cerr << "stguard hunt: " << base::terminal_safe(failure.message) << "\n";
    return kExitUsage;
  };
  limits = conf::reader_limits(limits, *spec);
  fs::path corpus;
  if (args.run.corpus) {
    corpus = *args.run.corpus;
  } else if (const base::Result<DataDir> data = find_data_dir(args.run.data_dir)) {
    corpus = data->corpus();
  } else {
    return not_done(data.error());
  }
  const base::Result<std::vector<std::vector<std::uint8_t>>> seeds = corpus_files(corpus);
  if (!seeds) return not_done(seeds.error());
  const conf::ReaderProbe probe = conf::probe_reader(*spec);
  if (!probe.available) {
    std::cerr << "stguard hunt: " << spec->name
              << " cannot run: " << base::terminal_safe(probe.reason) << "\n";
    return kExitUsage;
  }
  const fs::path out = args.out ? fs::path(*args.out) : fs::path("hunt-" + spec->name);
  // From here on a SIGINT, SIGTERM or SIGHUP asks the hunt to stop, and it
  // stops cleanly: its work folder removed, what it found written. (Before,
  // one that came between making the work folder and starting the readers
  // ended the process with the folder left behind.)
  conf::RunSession session;
  // The folder must be new, empty or an earlier hunt's: findings are merged
  // into what it holds, and nothing the user put there is touched.
  base::Result<base::OwnedDir> out_dir = base::OwnedDir::claim(out, "hunt");
  if (!out_dir) return not_done(out_dir.error());
  // Another reader's findings there are refused now, not after the hunt.
  if (const base::Result<std::uint64_t> earlier = hunt::earlier_hunt_runs(*out_dir, spec->name);
      !earlier) {
    return not_done(earlier.error());
  }
  // The files for the reader, in a folder of this run's own beside the
  // findings; each is removed once read, then the folder.
  std::string work_pattern = (out / ".stguard-work-XXXXXX").string();
  if (::mkdtemp(work_pattern.data()) == nullptr) {
    std::cerr << "stguard hunt: cannot create a work folder in "
              << base::terminal_safe(out.string()) << ": " << base::errno_text(errno) << "\n";
    return kExitUsage;
  }
  options.work_dir = work_pattern;
  struct RemoveWorkDir {
    const fs::path& path;
    // Only an empty folder goes: whatever else is in it is not ours to delete.
    ~RemoveWorkDir() { ::rmdir(path.c_str()); }
  } remove_work_dir{options.work_dir};

  const hunt::SeedPool pool = hunt::make_seed_pool(*seeds, options.seed);
  if (options.from_valid && pool.valid.empty()) {
    std::cerr << "stguard hunt: --from-valid: no seed file both profiles accept\n";
    return kExitUsage;
  }
  const bool quiet = args.run.quiet;
  const bool progress = !quiet && ::isatty(STDERR_FILENO) != 0;
  if (!quiet) {
    std::cerr << "== hunting " << spec->name << version_text(probe) << ": seed " << options.seed
              << ", -j " << options.jobs << ", " << pool.all.size() << " seed files ("
              << pool.valid.size() << " valid)\n";
  }
  if (progress) {
    options.on_progress = [](const hunt::HuntProgress& p) {
      std::cerr << "\r   " << p.runs << " files, " << p.divergences << " divergences, " << p.buckets
                << " buckets" << std::flush;
    };
  }
  hunt::HuntResult result;
  bool persistent = false;
  std::size_t adapter_starts = 0;
  {
    // Its adapters are stopped when it goes, before the sweep below.
    const std::unique_ptr<conf::Grader> grader =
        conf::make_grader(*spec, limits, !args.run.no_persistent);
    result = hunt::run_hunt(*grader, pool, options);
    persistent = grader->persistent();
    adapter_starts = grader->adapter_starts();
  }
  session.kill_adapters();
  if (progress) std::cerr << "\n";

  if (!result.error.empty()) {
    // The reader never saw the rest: no summary of work that did not happen.
    std::cerr << "stguard hunt: " << base::terminal_safe(result.error) << "; stopped after "
              << result.runs << " files read by the reader, nothing written\n";
    return kExitUsage;
  }
  std::vector<const hunt::Bucket*> buckets;
  for (const hunt::Bucket& b : result.buckets) buckets.push_back(&b);
  const base::Result<hunt::FindingsReport> merged =
      hunt::write_findings(*out_dir, buckets, spec->name, result.runs);
  if (!merged) {
    std::cerr << "stguard hunt: " << base::terminal_safe(merged.error().message) << "; the "
              << result.buckets.size() << " buckets found are not saved\n";
    return kExitUsage;
  }
  if (!quiet) {
    std::ostringstream line;
    line.precision(1);
    line << std::fixed << result.runs << " files in " << result.generate_seconds << " s ("
         << (result.generate_seconds > 0
                 ? static_cast<double>(result.runs) / result.generate_seconds
                 : 0.0)
         << " files/s), " << result.divergences << " divergences, " << result.buckets.size()
         << " buckets; minimised in " << result.minimise_seconds << " s (" << result.minimise_tests
         << " reader runs); ";
    line << (persistent ? persistent_text(adapter_starts) : "a process per file");
    std::cerr << line.str() << "\n";
    if (merged->earlier > 0) {
      std::cerr << "merged with the earlier findings in " << base::terminal_safe(out.string())
                << ": " << merged->added << " new buckets, " << merged->seen_again
                << " found again, " << merged->total << " in all\n";
    }
  }
  for (const hunt::Bucket& b : result.buckets) {
    std::cout << b.signature.bucket() << "  " << hunt::divergence_name(b.signature.kind) << "  "
              << (b.signature.strict_reason.empty() ? "accept" : b.signature.strict_reason) << "/"
              << (b.signature.reference_reason.empty() ? "accept" : b.signature.reference_reason)
              << "  " << b.hits << " hits  " << b.file.size() << " bytes  "
              << base::terminal_safe(b.signature.reader_error) << "\n";
  }
  if (!quiet) std::cerr << "written to " << base::terminal_safe(out.string()) << "\n";
  if (result.stopped) {
    // Not raised again: the findings are written, and the status says which
    // signal stopped the hunt.
    std::cerr << stopped_text("hunt", session.stop_signal())
              << "; the buckets are written unminimised\n";
    return 128 + session.stop_signal();
  }
  return result.buckets.empty() ? kExitOk : kExitFailed;
}

int run_promote(const Command& command, const PromoteArgs& args) {
  if (args.dirs.size() != 1) return usage_error(command, "give one hunt output directory");
  if (!args.group) return usage_error(command, "--group NAME is required");
  fs::path recipes;
  if (args.recipes) {
    recipes = *args.recipes;
  } else if (const std::optional<fs::path> checkout = find_checkout(fs::current_path())) {
    recipes = *checkout / "conformance";
  } else {
    return usage_error(command, "not inside a stguard checkout: give --recipes DIR");
  }
  const base::Result<hunt::PromotePlan> planned =
      hunt::promote(args.dirs.front(), recipes, *args.group, args.buckets);
  if (!planned) {
    std::cerr << "stguard hunt promote: " << base::terminal_safe(planned.error().message) << "\n";
    return kExitUsage;
  }
  const hunt::PromotePlan& plan = *planned;
  // Said before it is done, so that a failure to say it (stdout on a full
  // disk) leaves the recipes as they were: exit 2 means nothing appended.
  for (const std::string& name : plan.promoted) {
    std::cout << "promoted " << args.group.value() << "/" << name << "\n";
  }
  for (const std::string& name : plan.already_present) {
    std::cout << "already there " << args.group.value() << "/" << name << "\n";
  }
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "stguard hunt promote: error writing to standard output; nothing appended\n";
    return kExitUsage;
  }
  if (plan.promoted.empty()) {
    std::cerr << "nothing to append: " << base::terminal_safe(plan.group_file.string())
              << " already has every stanza\n";
    return kExitOk;
  }
  if (const base::Result<void> wrote = hunt::write_promotion(plan); !wrote) {
    std::cerr << "stguard hunt promote: " << base::terminal_safe(wrote.error().message)
              << "; nothing appended\n";
    return kExitUsage;
  }
  std::cerr << "appended to " << base::terminal_safe(plan.group_file.string())
            << "; review the stanzas, then run `stguard corpus build`\n";
  return kExitOk;
}

}  // namespace

void add_hunt_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "hunt", "fuzz a reader against stguard's verdicts; findings become cases",
                   kHuntUsage, kHuntIntro, kHuntOutro);
  auto args = std::make_shared<HuntArgs>();
  CLI::App& app = *command.app;
  const std::string reader = "Reader (exactly one)";
  app.add_option("--adapter", args->adapter, "an adapter command (see `stguard conform --help`)")
      ->option_text("CMD")
      ->group(reader)
      ->check(role(ValueRole::kCommand));
  app.add_option("--name", args->name, "its name [default: file name of its first word]")
      ->option_text("N")
      ->group(reader);
  app.add_flag("--plain", args->plain, "grade it by exit status alone (0 accept, 1 reject)")
      ->disable_flag_override()
      ->group(reader);
  app.add_option("--reader", args->reader, "a reader directory, or a bundled reader's name")
      ->option_text("DIR|NAME")
      ->group(reader)
      ->check(role(ValueRole::kReader));

  const std::string generation = "Generation";
  app.add_option("--seconds", args->seconds, "generate for S seconds [default: 60, unless --runs]")
      ->option_text("S")
      ->group(generation);
  app.add_option("--runs", args->runs, "generate N files (with --seconds: whichever ends first)")
      ->option_text("N")
      ->group(generation);
  app.add_option("--seed", args->seed, "[default: 1]; a seed and --runs give the same findings")
      ->option_text("N")
      ->group(generation);
  app.add_flag("--from-valid", args->from_valid,
               "mutate only files both profiles accept, one edit each, so "
               "each finding carries exactly one fault (finds rules a "
               "reader skips that other checks usually hide)")
      ->disable_flag_override()
      ->group(generation);
  app.add_option("--corpus", args->run.corpus,
                 "the seed files [default: the data directory's corpus/]")
      ->option_text("DIR")
      ->group(generation)
      ->check(role(ValueRole::kInputDir));
  app.add_option("--minimise-runs", args->minimise_runs,
                 "reader runs per bucket while minimising [default: 300]")
      ->option_text("N")
      ->group(generation);
  app.add_option("--minimise-seconds", args->minimise_seconds,
                 "minimisation ends after S seconds, each bucket keeping "
                 "what it has [default: as --seconds; no limit with --runs "
                 "alone, which keeps the hunt deterministic]")
      ->option_text("S")
      ->group(generation);

  const std::string output = "Output";
  add_run_options(app, args->run, output);
  app.add_option("--out", args->out,
                 "[default: ./hunt-NAME]: findings.jsonl (one line per "
                 "bucket: bucket, kind, strict_reason, reference_reason, "
                 "reader_verdict, reader_error, hits, file, size, detail, "
                 "stderr: a crash's or timeout's, head and tail), "
                 "findings/BUCKET.safetensors, cases.txt (a corpus recipe "
                 "per bucket; see `stguard hunt promote --help`), hunt.json. "
                 "DIR must be new, empty, or an earlier hunt's of the same "
                 "reader: the findings are then merged (a bucket found "
                 "again adds its hits and keeps the smaller file), and "
                 "nothing else in DIR is ever touched")
      ->option_text("DIR")
      ->group(output)
      ->check(role(ValueRole::kOutputDir));
  add_data_dir_option(app, args->run.data_dir);
  command.run = [&command, args] { return run_hunt_command(command, *args); };

  Command& promote = commands.add(app, "promote", "append findings to a corpus recipe group",
                                  kPromoteUsage, kPromoteIntro, kPromoteOutro);
  auto promote_args = std::make_shared<PromoteArgs>();
  CLI::App& promote_app = *promote.app;
  promote_app.add_option("--group", promote_args->group, "the group, kebab-case (e.g. hunt)")
      ->option_text("NAME");
  promote_app.add_option("--bucket", promote_args->buckets, "only this bucket (repeatable)")
      ->option_text("ID");
  promote_app
      .add_option("--recipes", promote_args->recipes,
                  "the conformance directory [default: the checkout's "
                  "conformance/, as for `stguard corpus build`]")
      ->option_text("DIR")
      ->check(role(ValueRole::kOutputDir));
  promote_app.add_option("DIR", promote_args->dirs)->check(role(ValueRole::kInputDir));
  promote.positionals = &promote_args->dirs;
  promote.run = [&promote, promote_args] { return run_promote(promote, *promote_args); };
}

}  // namespace stguard::cli
