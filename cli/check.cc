// cli/check.cc: `stguard check`, the structural verdict on one or more files.
//
// Each file is checked with stguard::validate_file: only the first 8 + N
// bytes are read (pread), tensor data never is, and no tensor list is built,
// so checking a 100 GB shard costs about as much as parsing its header.
#include <algorithm>
#include <iostream>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "stguard/file.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kUsage =
    "stguard check [--profile strict|reference] [--json] [--max-header-bytes N] FILE...";

constexpr std::string_view kHelp =
    R"(Validates the structure of safetensors files without reading tensor data.

Options:
  --profile strict|reference  strict (default): the hardened reading of the format.
                              reference: accept exactly what the upstream Rust reader accepts.
  --json                      one JSON object per file, one per line, on stdout
  --max-header-bytes N        largest accepted header length N (default 100000000)
  -h, --help                  show this help
  --                          end of options (for file names starting with '-')

Output (one line per file, in argument order):
  FILE: accept (T tensors, header N bytes, data D bytes, PROFILE)
  FILE: reject REASON at byte OFFSET: MESSAGE
  FILE: error IO_ERROR: MESSAGE            (cannot be opened, or is a directory)
With --json:
  {"file","verdict":"accept"|"reject"|"error","profile","reason":null|"REASON",
   "offset":null|N,"message":null|"..."} and, when accepted, "tensors","header_len",
  "data_len". OFFSET is the absolute file byte where the fault was found; it is
  null for "error" (IO_ERROR), which is not a verdict about the file's format.

Exit status: 0 every file accepted, 1 some file rejected, 2 usage error or some
file could not be opened (the other files are still checked).
)";

std::string plural(std::uint64_t n, std::string_view word) {
  std::string out = std::to_string(n) + " " + std::string(word);
  if (n != 1) out += 's';
  return out;
}

void print_text(const std::string& file, Profile profile, const Result<HeaderSummary>& result) {
  std::cout << printable(file) << ": ";
  if (result) {
    const HeaderSummary& header = *result;
    std::cout << "accept (" << plural(header.tensor_count, "tensor") << ", header "
              << header.header_len << " bytes, data " << header.data_len() << " bytes, "
              << profile_name(profile) << ")\n";
    return;
  }
  std::cout << error_text(result.error()) << "\n";
}

void print_json(const std::string& file, Profile profile, const Result<HeaderSummary>& result) {
  nlohmann::ordered_json record = verdict_record(file, profile, result ? nullptr : &result.error());
  if (result) {
    record["tensors"] = result->tensor_count;
    record["header_len"] = result->header_len;
    record["data_len"] = result->data_len();
  }
  std::cout << json_line(record) << "\n";
}

}  // namespace

int run_check(Args args) {
  std::string error;
  const std::optional<CommonOptions> options = parse_common_options(args, &error);
  if (!options) return usage_error("check", kUsage, error);
  if (options->help) {
    std::cout << "usage: " << kUsage << "\n\n" << kHelp;
    return kExitOk;
  }
  if (options->files.empty()) return usage_error("check", kUsage, "no FILE given");

  int exit_code = kExitOk;
  for (const std::string& file : options->files) {
    const Result<HeaderSummary> result = validate_file(file, options->parse);
    if (options->json) {
      print_json(file, options->parse.profile, result);
    } else {
      print_text(file, options->parse.profile, result);
    }
    exit_code = std::max(exit_code, exit_code_for(result ? nullptr : &result.error()));
  }
  std::cout.flush();
  return exit_code;
}

}  // namespace stguard::cli
