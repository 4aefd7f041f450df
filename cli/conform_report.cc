// cli/conform_report.cc: `stguard conform report`, which combines the JSON
// lines of several `stguard conform` runs into one set of reports, and the
// report writing that `stguard conform` shares with it.
#include "conform_report.h"

#include <functional>
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

base::Result<void> write_reports(std::span<const conf::ReaderRun> runs,
                                 const conf::MatrixInfo& info, const ReportTargets& targets,
                                 const std::string& summary, base::OwnedDir* owned) {
  // base::write_file never creates directories: a report aimed at a
  // directory that does not exist is a mistake to report, not to paper over.
  const std::pair<const std::optional<fs::path>&, std::function<std::string()>> reports[] = {
      {targets.jsonl, [&] { return conf::json_lines(runs); }},
      {targets.junit, [&] { return conf::junit_xml(runs); }},
      {targets.html, [&] { return conf::html_matrix(runs, info); }},
      {targets.markdown, [&] { return conf::markdown_matrix(runs, info); }},
      {targets.text, [&] { return summary; }},
  };
  for (const auto& [path, render] : reports) {
    if (!path) continue;
    if (owned != nullptr && path->parent_path() == owned->path()) {
      const base::Result<base::OwnedDir::Wrote> wrote =
          owned->write(path->filename().string(), render());
      if (!wrote) return wrote.error();
      continue;
    }
    if (base::Result<void> wrote = base::write_file(*path, render()); !wrote) return wrote;
  }
  if (owned != nullptr) return owned->save();
  return {};
}

conf::MatrixInfo matrix_info(const fs::path& corpus_dir, std::size_t reader_cases,
                             std::size_t writer_cases) {
  conf::MatrixInfo info;
  info.generated_by = "stguard " STGUARD_VERSION;
  info.reader_cases = reader_cases;
  info.writer_cases = writer_cases;
  if (conf::ManifestResult<conf::Manifest> manifest =
          conf::read_manifest(corpus_dir / "manifest.json")) {
    // The corpus release when the manifest names one, else its schema version.
    info.corpus_version =
        manifest->corpus_version.empty() ? manifest->version : manifest->corpus_version;
    if (reader_cases == 0 && writer_cases == 0) info.reader_cases = manifest->cases.size();
  }
  return info;
}

void add_report_file_options(CLI::App& app, ReportTargets& targets, const std::string& group,
                             bool jsonl) {
  if (jsonl) {
    app.add_option("--jsonl", targets.jsonl, "JSON lines, one per reader and case, passes included")
        ->option_text("FILE")
        ->group(group)
        ->check(role(ValueRole::kOutputFile));
  }
  app.add_option("--junit", targets.junit, "JUnit XML")
      ->option_text("FILE")
      ->group(group)
      ->check(role(ValueRole::kOutputFile));
  app.add_option("--html", targets.html, "self-contained HTML matrix (cases x readers)")
      ->option_text("FILE")
      ->group(group)
      ->check(role(ValueRole::kOutputFile));
  app.add_option("--markdown", targets.markdown,
                 "the Markdown matrix (what conformance/RESULTS.md holds)")
      ->option_text("FILE")
      ->group(group)
      ->check(role(ValueRole::kOutputFile));
}

namespace {

constexpr std::string_view kReportUsage =
    "stguard conform report [--html FILE] [--junit FILE] [--markdown FILE] [--text FILE] "
    "RESULTS.jsonl...";

constexpr std::string_view kReportIntro =
    R"(Reads the JSON lines of one or more `stguard conform --jsonl` runs and writes
their combined reports: one matrix with every reader as a column. The text
summary goes to stdout.
)";

constexpr std::string_view kReportOutro =
    "Exit status: 0 reports written, 2 unreadable input or usage error.\n";

struct ReportArgs {
  ReportTargets targets;
  std::optional<std::string> corpus;
  std::optional<std::string> data_dir;
  std::vector<std::string> inputs;
};

int run_report(const Command& command, const ReportArgs& args) {
  if (args.inputs.empty()) return usage_error(command, "no RESULTS.jsonl given");
  const auto failed = [](const base::Failure& failure) {
    std::cerr << "stguard conform report: " << base::terminal_safe(failure.message) << "\n";
    return kExitUsage;
  };
  std::vector<std::string> texts;
  for (const std::string& input : args.inputs) {
    base::Result<std::string> text = base::read_file(input);
    if (!text) return failed(text.error());
    texts.push_back(std::move(*text));
  }
  // Each line is named by its file ("b.jsonl line 3: ..."), also where two
  // files disagree.
  std::vector<conf::NamedText> named;
  for (std::size_t i = 0; i < texts.size(); ++i) named.push_back({args.inputs[i], texts[i]});
  const base::Result<std::vector<conf::ReaderRun>> runs = conf::read_json_lines(named);
  if (!runs) return failed(runs.error());
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
  } else if (const base::Result<DataDir> data = find_data_dir(args.data_dir)) {
    corpus = data->corpus();
  }
  if (const base::Result<void> written = write_reports(
          *runs, matrix_info(corpus, reader_cases, writer_cases), args.targets, summary);
      !written) {
    return failed(written.error());
  }
  return kExitOk;
}

}  // namespace

void add_conform_report_command(CLI::App& conform, Commands& commands) {
  Command& command =
      commands.add(conform, "report", "combine the results of several runs into one matrix",
                   kReportUsage, kReportIntro, kReportOutro);
  auto args = std::make_shared<ReportArgs>();
  CLI::App& app = *command.app;
  const std::string reports = "Reports";
  add_report_file_options(app, args->targets, reports, /*jsonl=*/false);
  app.add_option("--text", args->targets.text, "the text summary, also to a file")
      ->option_text("FILE")
      ->group(reports)
      ->check(role(ValueRole::kOutputFile));
  app.add_option("--corpus", args->corpus,
                 "corpus whose version the matrices name "
                 "[default: the data directory's corpus/]")
      ->option_text("DIR")
      ->check(role(ValueRole::kInputDir));
  add_data_dir_option(app, args->data_dir);
  app.add_option("RESULTS", args->inputs)->check(role(ValueRole::kInputFile));
  command.positionals = &args->inputs;
  command.run = [&command, args] { return run_report(command, *args); };
}

}  // namespace stguard::cli
