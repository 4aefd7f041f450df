// cli/conform_command.cc: `stguard conform`, grading safetensors readers
// against the conformance corpus (conformance/runner/), and
// `stguard conform report`, which combines saved JSON-lines results of
// several runs into one set of reports.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "conformance/model/manifest.h"
#include "conformance/report/html.h"
#include "conformance/report/jsonl.h"
#include "conformance/report/junit.h"
#include "conformance/report/markdown.h"
#include "conformance/report/text.h"
#include "conformance/runner/expectations.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"
#include "conformance/runner/selection.h"

namespace stguard::cli {
namespace {

namespace fs = std::filesystem;
namespace conf = stguard::conformance;

// The defaults of --corpus and --all-readers (cli/CMakeLists.txt).
const fs::path kRecipesDir = STGUARD_RECIPES_DIR;
const fs::path kCorpusDir = STGUARD_CORPUS_DIR;

constexpr int kOk = 0;
constexpr int kFailures = 1;
constexpr int kCannotRun = 2;

constexpr std::string_view kUsage =
    "stguard conform (--adapter CMD [--name NAME] [--plain] | --reader DIR | --all-readers)... "
    "[options]";
constexpr std::string_view kReportUsage =
    "stguard conform report [--html FILE] [--junit FILE] [--markdown FILE] [--text FILE] "
    "RESULTS.jsonl...";

constexpr std::string_view kHelp =
    R"(Grades safetensors readers against the conformance corpus. Each reader is an
adapter command; the runner calls `CMD FILE` once per corpus case (a timeout, an
address-space limit and its own process group per call, -j at a time) and grades
the answer against corpus/manifest.json.

Readers (any number, in report order):
  --adapter CMD      an adapter command: prints one JSON object
                     {"verdict":"accept"|"reject","error":"...","tensors":[...]}
                     and exits 0 (see conformance/adapters/README.md). CMD is
                     split into words ('...' and "..." group; no shell).
  --name NAME        the preceding --adapter's name in reports
                     [default: file name of its first word]
  --plain            grade the preceding --adapter by exit status alone
                     (0 accept, 1 reject, anything else a crash)
  --reader DIR       a reader directory with a reader.json (command, version
                     command, setup), e.g. conformance/adapters/huggingface-hub
  --all-readers      every reader directory in the source tree's
                     conformance/adapters/
  --setup            run each reader's setup command (e.g. npm ci) first
  --require-readers  a reader that is not installed fails the run (exit 2)
                     instead of being reported as skipped

Cases:
  --corpus DIR       the corpus [default: the source tree's corpus/]
  --case GLOB        only cases whose id matches (repeatable; '*' spans '/')
  --tag TAG          only cases carrying the tag (repeatable)

Limits:
  -j, --jobs N       adapter processes at a time [default: number of CPUs]
  --timeout SECONDS  per case [default: 10]
  --memory-mb N      address-space limit per adapter process (RLIMIT_AS)
                     [default: 2048; 0 = none, needed for sanitizer builds]

Expectations (known failures; see conformance/adapters/README.md):
  --expectations FILE        listed failures do not fail the run (XFAIL);
                             listed cases that pass are reported (XPASS)
  --write-expectations FILE  write this run's failures in that format

Reports (the text summary always goes to stdout):
  --out-dir DIR      write summary.txt, results.jsonl, junit.xml, matrix.html
  --jsonl FILE       JSON lines, one per reader and case, passes included
  --junit FILE       JUnit XML
  --html FILE        self-contained HTML matrix (cases x readers)
  --markdown FILE    the Markdown matrix (what conformance/RESULTS.md holds)
  -q, --quiet        no progress on stderr

Grades: PASS, IMPL_ACCEPT / IMPL_REJECT (either cases), FAIL_SHOULD_ACCEPT,
FAIL_SHOULD_REJECT, FAIL_WRONG_CONTENT, CRASH, TIMEOUT, PROTOCOL_ERROR.

Exit status: 0 every case passed (or failed as expected), 1 some case failed,
2 the run could not happen (usage error, unreadable corpus, an --adapter that
cannot be started, a report that cannot be written).

`stguard conform report --help` combines saved results into one matrix.
)";

constexpr std::string_view kReportHelp =
    R"(Reads the JSON lines of one or more `stguard conform --jsonl` runs and writes
their combined reports: one matrix with every reader as a column. The text
summary goes to stdout.

  --html FILE        self-contained HTML matrix
  --junit FILE       JUnit XML
  --markdown FILE    Markdown matrix (conformance/RESULTS.md)
  --text FILE        the text summary, also to a file
  --corpus DIR       corpus whose version the matrices name [default: source tree's]

Exit status: 0 reports written, 2 unreadable input or usage error.
)";

struct ReaderArg {
  enum class Kind { kAdapter, kDir };
  Kind kind;
  std::string value;  // the command or the directory
  std::string name;
  bool plain = false;
};

struct ConformOptions {
  std::vector<ReaderArg> readers;
  bool all_readers = false;
  bool setup = false;
  bool require_readers = false;
  fs::path corpus;
  conf::CaseFilter filter;
  unsigned jobs = 0;
  std::uint64_t timeout_seconds = 10;
  std::uint64_t memory_mb = 2048;
  std::optional<fs::path> expectations;
  std::optional<fs::path> write_expectations;
  std::optional<fs::path> out_dir;
  std::optional<fs::path> jsonl;
  std::optional<fs::path> junit;
  std::optional<fs::path> html;
  std::optional<fs::path> markdown;
  bool quiet = false;
  bool help = false;
};

fs::path self_executable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("stguard") : self;
}

bool write_text(const fs::path& path, const std::string& text, std::string* error) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    *error = "cannot write " + path.string();
    return false;
  }
  return true;
}

// Takes the value of an option given as "--opt VALUE" or "--opt=VALUE".
class OptionReader {
 public:
  explicit OptionReader(Args args) : args_(args) {}
  bool done() const { return index_ >= args_.size(); }
  std::string_view current() const { return args_[index_]; }
  void advance() { ++index_; }
  // True when the current argument is option `name`; fills `value`.
  bool take(std::string_view name, std::string& value, std::string* error) {
    std::string_view arg = args_[index_];
    if (arg == name) {
      if (index_ + 1 >= args_.size()) {
        *error = std::string(name) + " needs a value";
        failed_ = true;
        return true;
      }
      value = std::string(args_[++index_]);
      return true;
    }
    if (arg.size() > name.size() + 1 && arg.substr(0, name.size()) == name &&
        arg[name.size()] == '=') {
      value = std::string(arg.substr(name.size() + 1));
      return true;
    }
    return false;
  }
  bool failed() const { return failed_; }

 private:
  Args args_;
  std::size_t index_ = 0;
  bool failed_ = false;
};

std::optional<ConformOptions> parse_conform_options(Args args, std::string* error) {
  ConformOptions options;
  options.corpus = kCorpusDir;
  OptionReader reader(args);
  std::string value;
  auto number = [&](std::string_view option, std::uint64_t& out) {
    std::optional<std::uint64_t> n = parse_u64(value);
    if (!n) {
      *error = std::string(option) + ": expected a decimal number, got '" + printable(value) + "'";
      return false;
    }
    out = *n;
    return true;
  };
  for (; !reader.done(); reader.advance()) {
    std::string_view arg = reader.current();
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (reader.take("--adapter", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.readers.push_back({ReaderArg::Kind::kAdapter, value, "", false});
    } else if (reader.take("--name", value, error)) {
      if (reader.failed()) return std::nullopt;
      if (options.readers.empty() || options.readers.back().kind != ReaderArg::Kind::kAdapter) {
        *error = "--name names the --adapter given before it";
        return std::nullopt;
      }
      options.readers.back().name = value;
    } else if (arg == "--plain") {
      if (options.readers.empty() || options.readers.back().kind != ReaderArg::Kind::kAdapter) {
        *error = "--plain applies to the --adapter given before it";
        return std::nullopt;
      }
      options.readers.back().plain = true;
    } else if (reader.take("--reader", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.readers.push_back({ReaderArg::Kind::kDir, value, "", false});
    } else if (arg == "--all-readers") {
      options.all_readers = true;
    } else if (arg == "--setup") {
      options.setup = true;
    } else if (arg == "--require-readers") {
      options.require_readers = true;
    } else if (reader.take("--corpus", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.corpus = value;
    } else if (reader.take("--case", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.filter.id_globs.push_back(value);
    } else if (reader.take("--tag", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.filter.tags.push_back(value);
    } else if (reader.take("-j", value, error) || reader.take("--jobs", value, error)) {
      std::uint64_t jobs = 0;
      if (reader.failed() || !number("--jobs", jobs)) return std::nullopt;
      if (jobs == 0 || jobs > 256) {
        *error = "--jobs must be between 1 and 256";
        return std::nullopt;
      }
      options.jobs = static_cast<unsigned>(jobs);
    } else if (reader.take("--timeout", value, error)) {
      if (reader.failed() || !number("--timeout", options.timeout_seconds)) return std::nullopt;
      if (options.timeout_seconds == 0 || options.timeout_seconds > 86400) {
        *error = "--timeout must be between 1 and 86400 seconds";
        return std::nullopt;
      }
    } else if (reader.take("--memory-mb", value, error)) {
      if (reader.failed() || !number("--memory-mb", options.memory_mb)) return std::nullopt;
      if (options.memory_mb > (std::uint64_t{1} << 30)) {
        *error = "--memory-mb is too large";
        return std::nullopt;
      }
    } else if (reader.take("--expectations", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.expectations = value;
    } else if (reader.take("--write-expectations", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.write_expectations = value;
    } else if (reader.take("--out-dir", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.out_dir = value;
    } else if (reader.take("--jsonl", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.jsonl = value;
    } else if (reader.take("--junit", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.junit = value;
    } else if (reader.take("--html", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.html = value;
    } else if (reader.take("--markdown", value, error)) {
      if (reader.failed()) return std::nullopt;
      options.markdown = value;
    } else if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
    } else {
      *error = "unknown argument '" + printable(arg) + "'";
      return std::nullopt;
    }
  }
  if (!options.help && options.readers.empty() && !options.all_readers) {
    *error = "no reader: give --adapter CMD, --reader DIR or --all-readers";
    return std::nullopt;
  }
  return options;
}

// The reports every run and `conform report` write.
struct ReportTargets {
  std::optional<fs::path> jsonl, junit, html, markdown, text;
};

bool write_reports(std::span<const conf::ReaderRun> runs, const conf::MatrixInfo& info,
                   const ReportTargets& targets, const std::string& summary, std::string* error) {
  if (targets.jsonl && !write_text(*targets.jsonl, conf::json_lines(runs), error)) return false;
  if (targets.junit && !write_text(*targets.junit, conf::junit_xml(runs), error)) return false;
  if (targets.html && !write_text(*targets.html, conf::html_matrix(runs, info), error))
    return false;
  if (targets.markdown &&
      !write_text(*targets.markdown, conf::markdown_matrix(runs, info), error)) {
    return false;
  }
  if (targets.text && !write_text(*targets.text, summary, error)) return false;
  return true;
}

conf::MatrixInfo matrix_info(const fs::path& corpus_dir, std::size_t case_count) {
  conf::MatrixInfo info;
  info.generated_by = "stguard " STGUARD_VERSION;
  info.corpus_cases = case_count;
  if (std::optional<conf::Manifest> manifest =
          conf::read_manifest(corpus_dir / "manifest.json", nullptr)) {
    info.corpus_version = manifest->version;
    if (case_count == 0) info.corpus_cases = manifest->cases.size();
  }
  return info;
}

int run_report(Args args) {
  ReportTargets targets;
  fs::path corpus = kCorpusDir;
  std::vector<std::string> inputs;
  OptionReader reader(args);
  std::string value;
  std::string error;
  for (; !reader.done(); reader.advance()) {
    std::string_view arg = reader.current();
    if (arg == "-h" || arg == "--help") {
      std::cout << "usage: " << kReportUsage << "\n\n" << kReportHelp;
      return kOk;
    }
    if (reader.take("--html", value, &error)) {
      targets.html = value;
    } else if (reader.take("--junit", value, &error)) {
      targets.junit = value;
    } else if (reader.take("--markdown", value, &error)) {
      targets.markdown = value;
    } else if (reader.take("--text", value, &error)) {
      targets.text = value;
    } else if (reader.take("--corpus", value, &error)) {
      corpus = value;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("conform report", kReportUsage, "unknown option '" + printable(arg) + "'");
    } else {
      inputs.emplace_back(arg);
    }
    if (reader.failed()) return usage_error("conform report", kReportUsage, error);
  }
  if (inputs.empty()) return usage_error("conform report", kReportUsage, "no RESULTS.jsonl given");
  std::string all;
  for (const std::string& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      std::cerr << "stguard conform report: cannot read " << printable(input) << "\n";
      return kCannotRun;
    }
    std::stringstream text;
    text << in.rdbuf();
    all += text.str();
    if (!all.empty() && all.back() != '\n') all += '\n';
  }
  std::optional<std::vector<conf::ReaderRun>> runs = conf::read_json_lines(all, &error);
  if (!runs) {
    std::cerr << "stguard conform report: " << printable(error) << "\n";
    return kCannotRun;
  }
  const std::string summary = conf::text_summary(*runs);
  std::cout << summary;
  std::size_t cases = 0;
  for (const conf::ReaderRun& run : *runs) cases = std::max(cases, run.results.size());
  if (!write_reports(*runs, matrix_info(corpus, cases), targets, summary, &error)) {
    std::cerr << "stguard conform report: " << printable(error) << "\n";
    return kCannotRun;
  }
  return kOk;
}

// Turns the reader arguments into specs, in order.
std::optional<std::vector<conf::ReaderSpec>> collect_readers(const ConformOptions& options,
                                                             std::string* error) {
  std::vector<conf::ReaderSpec> specs;
  const fs::path self = self_executable();
  std::vector<ReaderArg> readers = options.readers;
  if (options.all_readers) {
    for (const fs::path& dir : conf::find_reader_dirs(kRecipesDir / "adapters")) {
      readers.push_back({ReaderArg::Kind::kDir, dir.string(), "", false});
    }
    if (readers.size() == options.readers.size()) {
      *error = "--all-readers: no reader.json under " + (kRecipesDir / "adapters").string();
      return std::nullopt;
    }
  }
  for (const ReaderArg& arg : readers) {
    std::optional<conf::ReaderSpec> spec =
        arg.kind == ReaderArg::Kind::kAdapter
            ? conf::reader_from_command(
                  arg.value, arg.name,
                  arg.plain ? conf::AdapterMode::kPlain : conf::AdapterMode::kJson, error)
            : conf::load_reader_dir(arg.value, self, error);
    if (!spec) return std::nullopt;
    if (!conf::valid_reader_name(spec->name)) {
      *error = "reader name '" + printable(spec->name) +
               "' must be 1-64 characters of A-Z a-z 0-9 . _ + - (use --name)";
      return std::nullopt;
    }
    for (const conf::ReaderSpec& other : specs) {
      if (other.name == spec->name) {
        *error = "two readers named '" + spec->name + "' (use --name)";
        return std::nullopt;
      }
    }
    if (arg.kind == ReaderArg::Kind::kAdapter &&
        !conf::resolve_executable(spec->command.front(), spec->working_dir)) {
      *error = "--adapter: cannot find the executable '" + printable(spec->command.front()) + "'";
      return std::nullopt;
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

}  // namespace

int run_conform(Args args) {
  if (!args.empty() && args[0] == "report") return run_report(args.subspan(1));
  std::string error;
  std::optional<ConformOptions> options = parse_conform_options(args, &error);
  if (!options) return usage_error("conform", kUsage, error);
  if (options->help) {
    std::cout << "usage: " << kUsage << "\n\n" << kHelp;
    return kOk;
  }
  conf::ManifestError manifest_error;
  std::optional<conf::Manifest> corpus =
      conf::read_manifest(options->corpus / "manifest.json", &manifest_error);
  if (!corpus) {
    std::cerr << "stguard conform: " << printable(manifest_error.message()) << "\n";
    return kCannotRun;
  }
  std::vector<conf::Case> cases;
  for (const conf::Case& c : corpus->cases) {
    if (options->filter.matches(c)) cases.push_back(c);
  }
  if (cases.empty()) {
    std::cerr << "stguard conform: no case matches the --case/--tag filters\n";
    return kCannotRun;
  }
  std::optional<conf::Expectations> expectations;
  if (options->expectations) {
    expectations = conf::Expectations::load(*options->expectations, &error);
    if (!expectations) {
      std::cerr << "stguard conform: " << printable(error) << "\n";
      return kCannotRun;
    }
  }
  std::optional<std::vector<conf::ReaderSpec>> specs = collect_readers(*options, &error);
  if (!specs) {
    std::cerr << "stguard conform: " << printable(error) << "\n";
    return kCannotRun;
  }

  conf::RunOptions run_options;
  run_options.jobs =
      options->jobs != 0 ? options->jobs : std::max(1u, std::thread::hardware_concurrency());
  run_options.limits.timeout = std::chrono::seconds(options->timeout_seconds);
  run_options.limits.address_space_bytes = options->memory_mb << 20;
  run_options.expectations = expectations ? &*expectations : nullptr;
  const bool progress = !options->quiet && ::isatty(STDERR_FILENO) != 0;

  std::vector<conf::ReaderRun> runs;
  bool missing_required = false;
  for (const conf::ReaderSpec& spec : *specs) {
    if (options->setup && !spec.setup.empty()) {
      if (!options->quiet) {
        std::cerr << "== " << spec.name << ": setup: " << conf::command_text(spec.setup) << "\n";
      }
      std::string log;
      if (!conf::setup_reader(spec, std::chrono::seconds(900), &log)) {
        std::cerr << "stguard conform: setup of " << spec.name << " failed:\n"
                  << printable_message(log) << "\n";
      }
    }
    conf::ReaderProbe probe = conf::probe_reader(spec);
    if (!probe.available) {
      conf::ReaderRun skipped;
      skipped.name = spec.name;
      skipped.command = conf::command_text(spec.command);
      skipped.mode = spec.mode == conf::AdapterMode::kJson ? "json" : "plain";
      skipped.skipped = true;
      skipped.skip_reason = probe.reason;
      if (!options->quiet) {
        std::cerr << "== " << spec.name << ": SKIPPED (" << printable(probe.reason) << ")\n";
      }
      missing_required = missing_required || options->require_readers;
      runs.push_back(std::move(skipped));
      continue;
    }
    if (!options->quiet) {
      std::cerr << "== " << spec.name
                << (probe.version.empty() ? "" : " (" + printable(probe.version) + ")") << ": "
                << cases.size() << " cases, -j " << run_options.jobs << "\n";
    }
    if (progress) {
      run_options.on_result = [](const conf::CaseResult&, std::size_t done, std::size_t total) {
        if (done % 25 == 0 || done == total)
          std::cerr << "\r   " << done << "/" << total << std::flush;
      };
    }
    conf::RunOptions reader_options = run_options;
#ifdef STGUARD_SANITIZED_BUILD
    // This stguard is a sanitizer build, and so is the copy of itself that
    // the stguard-* readers run: its runtime reserves terabytes of shadow
    // address space and cannot start under RLIMIT_AS. Other readers keep it.
    if (spec.runs_self) reader_options.limits.address_space_bytes = 0;
#endif
    const auto start = std::chrono::steady_clock::now();
    conf::ReaderRun run = conf::run_reader(spec, options->corpus, cases, reader_options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) std::cerr << "\r";
    if (!options->quiet) {
      std::ostringstream line;
      line.precision(1);
      line << std::fixed << "   done in " << seconds << " s\n";
      std::cerr << line.str();
    }
    run.version = probe.version;
    runs.push_back(std::move(run));
  }

  const std::string summary = conf::text_summary(runs);
  std::cout << summary;
  ReportTargets targets{options->jsonl, options->junit, options->html, options->markdown, {}};
  if (options->out_dir) {
    if (!targets.jsonl) targets.jsonl = *options->out_dir / "results.jsonl";
    if (!targets.junit) targets.junit = *options->out_dir / "junit.xml";
    if (!targets.html) targets.html = *options->out_dir / "matrix.html";
    targets.text = *options->out_dir / "summary.txt";
  }
  if (!write_reports(runs, matrix_info(options->corpus, cases.size()), targets, summary, &error) ||
      (options->write_expectations &&
       !write_text(*options->write_expectations, conf::expectations_text(runs), &error))) {
    std::cerr << "stguard conform: " << printable(error) << "\n";
    return kCannotRun;
  }
  if (missing_required) {
    std::cerr << "stguard conform: a reader is not installed (--require-readers)\n";
    return kCannotRun;
  }
  for (const conf::ReaderRun& run : runs) {
    for (const conf::CaseResult& result : run.results) {
      if (conf::result_fails_run(result)) return kFailures;
    }
  }
  return kOk;
}

}  // namespace stguard::cli
