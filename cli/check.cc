// cli/check.cc: `stguard check`, the structural verdict on one or more files.
//
// Each file is checked with Parser::validate_fd (one Parser for the run): only the first 8 + N
// bytes are read (pread), tensor data never is, and no tensor list is built,
// so checking a 100 GB shard costs about as much as parsing its header. The
// sniff of a rejected file reads the same descriptor (output.h).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "base/json.h"
#include "base/text.h"
#include "command.h"
#include "output.h"
#include "sarif.h"
#include "stguard/file.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kCheckUsage =
    "stguard check [--profile strict|reference] [--json] [--sarif FILE] [--max-... N] FILE...";

constexpr std::string_view kCheckIntro =
    "Validates the structure of safetensors files without reading tensor data.\n";

constexpr std::string_view kCheckOutro =
    R"(Output (one line per file, in argument order):
  FILE: accept (T tensors, header N bytes, data D bytes, PROFILE)
  FILE: reject REASON at byte OFFSET: MESSAGE
  FILE: error IO_ERROR: MESSAGE            (cannot be opened, or is a directory)
A rejected file that is no safetensors file at all (a Git LFS pointer, an HTML
or JSON error page, a PyTorch checkpoint, a GGUF file, a file of zeros) gets
"; this is ..." after the message, saying what it is and what to do.
With --json:
  {"file","verdict":"accept"|"reject"|"error","profile","reason":null|"REASON",
   "offset":null|N,"message":null|"..."} and, when accepted, "tensors","header_len",
  "data_len"; such a rejected file also "content" (its kind) and "hint". OFFSET is
  the absolute file byte where the fault was found; it is null for "error"
  (IO_ERROR), which is not a verdict about the file's format.

Exit status: 0 every file accepted, 1 some file rejected, 2 usage error or some
file could not be opened (the other files are still checked).
)";

struct CheckArgs {
  ParseFlags parse;
  bool json = false;
  std::optional<std::string> sarif;
  std::vector<std::string> files;
};

void print_text(const std::string& file, Profile profile, const Result<HeaderSummary>& result,
                const std::optional<base::Sniffed>& sniffed) {
  std::cout << base::terminal_safe(file) << ": ";
  if (result) {
    const HeaderSummary& header = *result;
    std::cout << "accept (" << base::plural(header.tensor_count, "tensor") << ", header "
              << header.header_len << " bytes, data " << header.data_len() << " bytes, "
              << profile_name(profile) << ")\n";
    return;
  }
  std::cout << error_text(result.error());
  if (sniffed) std::cout << sniff_text(*sniffed);
  std::cout << "\n";
}

void print_json(const std::string& file, Profile profile, const Result<HeaderSummary>& result,
                const std::optional<base::Sniffed>& sniffed) {
  nlohmann::ordered_json record = verdict_record(file, profile, result ? nullptr : &result.error());
  if (result) {
    record["tensors"] = result->tensor_count;
    record["header_len"] = result->header_len;
    record["data_len"] = result->data_len();
  } else if (sniffed) {
    add_sniff(record, *sniffed);
  }
  std::cout << base::json_line(record) << "\n";
}

int run_check(const Command& command, const CheckArgs& args) {
  const base::Result<ParseOptions> options = to_parse_options(args.parse);
  if (!options) return usage_error(command, options.error().message);
  if (args.files.empty()) return usage_error(command, "no FILE given");

  int exit_code = kExitOk;
  std::vector<std::string> unreadable;
  std::optional<sarif::CheckLog> log;
  if (args.sarif) log.emplace();
  Parser parser;  // its scratch memory kept from file to file
  for (const std::string& file : args.files) {
    base::UniqueFd fd;
    const Result<HeaderSummary> result = validate_path(parser, file, *options, &fd);
    std::optional<base::Sniffed> sniffed;
    if (!result && result.error().reason != Reason::kIoError) {
      pause_between_reads_for_test();
      sniffed = sniff_rejected_file(fd.get(), result.error());
    }
    if (args.json) {
      print_json(file, options->profile, result, sniffed);
    } else {
      print_text(file, options->profile, result, sniffed);
    }
    exit_code = std::max(exit_code, exit_code_for(result ? nullptr : &result.error()));
    if (log) log->add(file, result, fd.get());
    if (!result && result.error().reason == Reason::kIoError) unreadable.push_back(file);
  }
  // The verdicts are on stdout, which a script may be reading; why the exit
  // status is 2 goes to stderr as well, where people and CI logs look.
  for (const std::string& file : unreadable) {
    std::cerr << "stguard check: could not read " << base::terminal_safe(file)
              << " (IO_ERROR, exit 2)\n";
  }
  if (log) {
    if (const base::Result<void> wrote = log->write(*args.sarif, exit_code); !wrote) {
      std::cerr << "stguard check: " << base::terminal_safe(wrote.error().message) << "\n";
      return kExitUsage;
    }
  }
  return exit_code;
}

}  // namespace

void add_check_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "check", "validate safetensors files (verdict, reason, byte offset)",
                   kCheckUsage, kCheckIntro, kCheckOutro);
  auto args = std::make_shared<CheckArgs>();
  add_parse_flags(command, args->parse);
  command.app->add_flag("--json", args->json, "one JSON object per file, one per line, on stdout")
      ->disable_flag_override();
  command.app
      ->add_option("--sarif", args->sarif,
                   "also write a SARIF 2.1.0 log to FILE: a result per rejected or "
                   "unreadable file, at the byte of the fault")
      ->option_text("FILE")
      ->check(role(ValueRole::kOutputFile));
  command.app->add_option("FILE", args->files)->check(role(ValueRole::kInputFile));
  command.positionals = &args->files;
  command.run = [&command, args] { return run_check(command, *args); };
}

}  // namespace stguard::cli
