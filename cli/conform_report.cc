// cli/conform_report.cc: `stguard conform report`, which combines the JSON
// lines of several `stguard conform` runs into one set of reports, and the
// report writing that `stguard conform` shares with it.
#include "conform_report.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/output.h"
#include "base/text.h"
#include "command.h"
#include "conformance/model/manifest.h"
#include "conformance/report/html.h"
#include "conformance/report/jsonl.h"
#include "conformance/report/junit.h"
#include "conformance/report/markdown.h"
#include "conformance/report/text.h"
#include "data_dir.h"

namespace stguard::cli {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

bool write_reports(std::span<const conf::ReaderRun> runs, const conf::MatrixInfo& info,
                   const ReportTargets& targets, const std::string& summary, std::string* error) {
  // base::write_file never creates directories: a report aimed at a
  // directory that does not exist is a mistake to report, not to paper over.
  const auto write = [&](const std::optional<fs::path>& path, const std::string& text) {
    return !path || base::write_file(*path, text, error);
  };
  return write(targets.jsonl, conf::json_lines(runs)) &&
         write(targets.junit, conf::junit_xml(runs)) &&
         write(targets.html, conf::html_matrix(runs, info)) &&
         write(targets.markdown, conf::markdown_matrix(runs, info)) && write(targets.text, summary);
}

conf::MatrixInfo matrix_info(const fs::path& corpus_dir, std::size_t reader_cases,
                             std::size_t writer_cases) {
  conf::MatrixInfo info;
  info.generated_by = "stguard " STGUARD_VERSION;
  info.reader_cases = reader_cases;
  info.writer_cases = writer_cases;
  if (std::optional<conf::Manifest> manifest =
          conf::read_manifest(corpus_dir / "manifest.json", nullptr)) {
    info.corpus_version = manifest->version;
    if (reader_cases == 0 && writer_cases == 0) info.reader_cases = manifest->cases.size();
  }
  return info;
}

namespace {

constexpr std::string_view kReportUsage =
    "stguard conform report [--html FILE] [--junit FILE] [--markdown FILE] [--text FILE] "
    "RESULTS.jsonl...";

constexpr std::string_view kReportHelp =
    R"(Reads the JSON lines of one or more `stguard conform --jsonl` runs and writes
their combined reports: one matrix with every reader as a column. The text
summary goes to stdout.

  --html FILE        self-contained HTML matrix
  --junit FILE       JUnit XML
  --markdown FILE    Markdown matrix (conformance/RESULTS.md)
  --text FILE        the text summary, also to a file
  --corpus DIR       corpus whose version the matrices name [default: the data
                     directory's corpus/; see `stguard conform --help`]
  --data-dir DIR     where stguard's data is

Exit status: 0 reports written, 2 unreadable input or usage error.
)";

struct ReportArgs {
  ReportTargets targets;
  std::optional<std::string> corpus;
  std::optional<std::string> data_dir;
  std::vector<std::string> inputs;
};

int run_report(const Command& command, const ReportArgs& args) {
  if (args.inputs.empty()) return usage_error(command, "no RESULTS.jsonl given");
  std::string error;
  std::string all;
  for (const std::string& input : args.inputs) {
    const std::optional<std::string> text = base::read_file(input, &error);
    if (!text) {
      std::cerr << "stguard conform report: " << base::terminal_safe(error) << "\n";
      return kExitUsage;
    }
    // Each file is read alone first, so that a fault is said with the file
    // it is in ("b.jsonl: line 3: ...").
    if (!conf::read_json_lines(*text, &error)) {
      std::cerr << "stguard conform report: " << base::terminal_safe(input) << ": "
                << base::terminal_safe(error) << "\n";
      return kExitUsage;
    }
    all += *text;
    if (!all.empty() && all.back() != '\n') all += '\n';
  }
  std::optional<std::vector<conf::ReaderRun>> runs = conf::read_json_lines(all, &error);
  if (!runs) {
    std::cerr << "stguard conform report: " << base::terminal_safe(error) << "\n";
    return kExitUsage;
  }
  const std::string summary = conf::text_summary(*runs);
  std::cout << summary;
  // The cases each kind ran: the most any one run of that kind has.
  std::size_t reader_cases = 0;
  std::size_t writer_cases = 0;
  for (const conf::ReaderRun& run : *runs) {
    std::size_t& cases = conf::is_writer_run(run) ? writer_cases : reader_cases;
    cases = std::max(cases, run.results.size());
  }
  fs::path corpus;
  if (args.corpus) {
    corpus = *args.corpus;
  } else if (const std::optional<DataDir> data = find_data_dir(args.data_dir, &error)) {
    corpus = data->corpus();
  }
  if (!write_reports(*runs, matrix_info(corpus, reader_cases, writer_cases), args.targets, summary,
                     &error)) {
    std::cerr << "stguard conform report: " << base::terminal_safe(error) << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_conform_report_command(CLI::App& conform, Commands& commands) {
  Command& command =
      commands.add(conform, "report", "combine saved results", kReportUsage, kReportHelp);
  auto args = std::make_shared<ReportArgs>();
  CLI::App& app = *command.app;
  app.add_option("--html", args->targets.html);
  app.add_option("--junit", args->targets.junit);
  app.add_option("--markdown", args->targets.markdown);
  app.add_option("--text", args->targets.text);
  app.add_option("--corpus", args->corpus);
  app.add_option("--data-dir", args->data_dir);
  app.add_option("RESULTS", args->inputs);
  command.positionals = &args->inputs;
  command.run = [&command, args] { return run_report(command, *args); };
}

}  // namespace stguard::cli
