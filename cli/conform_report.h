// cli/conform_report.h: the reports `stguard conform` and `stguard conform
// report` write (conformance/report/), and the `conform report` subcommand.
#ifndef STGUARD_CLI_CONFORM_REPORT_H_
#define STGUARD_CLI_CONFORM_REPORT_H_

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "base/failure.h"
#include "base/owned_dir.h"
#include "command.h"
#include "conformance/report/tally.h"
#include "conformance/runner/results.h"

namespace stguard::cli {

struct ReportTargets {
  std::optional<std::filesystem::path> jsonl, junit, html, markdown, text;
};

// Writes each report that has a target. Fails at the first that cannot be
// written (its directory must exist). A target directly in `owned` (the
// folder of `conform --out-dir`, claimed as base/owned_dir.h says) is
// written through it, so that a file there the user made is never replaced.
base::Result<void> write_reports(std::span<const conformance::ReaderRun> runs,
                                 const conformance::MatrixInfo& info, const ReportTargets& targets,
                                 const std::string& summary, base::OwnedDir* owned = nullptr);

// What the matrices say about the corpus: its version and the reader and
// writer cases run (both 0: the manifest's count of reader cases).
conformance::MatrixInfo matrix_info(const std::filesystem::path& corpus_dir,
                                    std::size_t reader_cases, std::size_t writer_cases);

// Declares --jsonl (with `jsonl`), --junit, --html and --markdown in `group`.
void add_report_file_options(CLI::App& app, ReportTargets& targets, const std::string& group,
                             bool jsonl);

// Registers `conform report` under `conform`.
void add_conform_report_command(CLI::App& conform, Commands& commands);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_CONFORM_REPORT_H_
