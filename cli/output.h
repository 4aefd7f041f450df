// cli/output.h: what check, inspect and adapter print about a file: the
// verdict record (text and JSON), the parse options they share, and what a
// rejected file really is (base/sniff.h).
#ifndef STGUARD_CLI_OUTPUT_H_
#define STGUARD_CLI_OUTPUT_H_

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "base/file_io.h"
#include "base/sniff.h"
#include "command.h"
#include "stguard/header.h"
#include "stguard/parser.h"
#include "stguard/result.h"

namespace stguard::cli {

// --profile and the limit flags, as check, inspect and adapter take them.
// A limit flag left out keeps the profile's default (stguard/header.h).
struct ParseFlags {
  std::string profile = "strict";
  std::optional<std::string> max_header_bytes;
  std::optional<std::string> max_tensors;
  std::optional<std::string> max_rank;
  std::optional<std::string> max_name_bytes;
};
// The limits are a group of their own in --help.
inline constexpr const char* kLimitsGroup = "Limits";
void add_parse_flags(Command& command, ParseFlags& flags);

// The ParseOptions the flags ask for; fails for a bad value.
// Each limit is a decimal in [0, 2^64) or "none" (kNoLimit).
base::Result<ParseOptions> to_parse_options(const ParseFlags& flags);

// The fields every per-file JSON record of check and inspect starts with:
// file, verdict ("accept", "reject", or "error" for kIoError), profile,
// reason (null or the reason name), offset (null when accepted or for an IO
// error, where no byte of the file is at fault), message (null when accepted).
nlohmann::ordered_json verdict_record(std::string_view file, Profile profile, const Error* error);

// The exit status a per-file outcome contributes: kExitOk, kExitFailed, or
// kExitUsage for kIoError. A run's status is the maximum over its files.
int exit_code_for(const Error* error) noexcept;

// "reject REASON at byte OFFSET: MESSAGE", or "error IO_ERROR: MESSAGE" for a
// file that could not be opened. Terminal-safe.
std::string error_text(const Error& error);

// stguard::parse_file and validate_file for a FILE argument, the descriptor
// kept open in *fd (left invalid when FILE cannot be opened) for the reads
// that follow: the sniff of a rejected file, inspect's value scan. Each
// command reads FILE through this one descriptor, so that a file renamed
// over FILE meanwhile is never half-read (its header with another file's
// values). Results and errors are parse_file's and validate_file's; the
// scratch memory is `parser`'s, kept for the next file.
Result<Header> check_path(Parser& parser, const std::string& path, const ParseOptions& options,
                          base::UniqueFd* fd);
Result<HeaderSummary> validate_path(Parser& parser, const std::string& path,
                                    const ParseOptions& options, base::UniqueFd* fd);

// For a rejected file, open on `fd` (from check_path or validate_path): what
// it really is when it is no safetensors file at all (a Git LFS pointer, an
// HTML page, a PyTorch checkpoint, ...), read from its first bytes. nullopt
// for an ordinary damaged safetensors file or when the file cannot be read.
std::optional<base::Sniffed> sniff_rejected_file(int fd, const Error& error);
// The same from the file's first bytes (at least min(file_size,
// base::kSniffBytes) of them), as a remote file's head gives them.
std::optional<base::Sniffed> sniff_rejected_head(std::string_view head, std::uint64_t file_size,
                                                 const Error& error);

// A test-only pause between two reads of one FILE (its verdict, then its
// sniff or its values): when STGUARD_TEST_PAUSE_FD names a descriptor in the
// environment, writes one byte to it and waits for one byte back, so that a
// test can rename another file over FILE there
// (tests/cli/one_open_cli_test.cc); does nothing otherwise.
void pause_between_reads_for_test();

// Adds "content" (the kind's name) and "hint" (the description) to a JSON
// verdict record, and appends "; this is DESCRIPTION" to a text line.
void add_sniff(nlohmann::ordered_json& record, const base::Sniffed& sniffed);
std::string sniff_text(const base::Sniffed& sniffed);

// "PREFIX 37 of 100 WHAT" redrawn on stderr while remote files are fetched,
// when stderr is a terminal (check and verify of URLs); erase() clears it
// before the results are printed.
class ProgressLine {
 public:
  ProgressLine(std::string prefix, std::string what);
  // For remote::BatchOptions::on_tick; draws nothing when stderr is no terminal.
  std::function<void(std::size_t done, std::size_t total)> callback();
  void erase();

 private:
  std::string prefix_;
  std::string what_;
  bool terminal_ = false;
  bool drawn_ = false;
};

// "[4096,4096]", "[]" for a scalar.
std::string shape_string(std::span<const std::uint64_t> shape);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_OUTPUT_H_
