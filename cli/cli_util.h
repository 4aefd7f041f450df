// cli/cli_util.h: pieces shared by the stguard subcommands: strict number
// parsing, the common option parser of check/inspect, terminal-safe text and
// one-line JSON output.
#ifndef STGUARD_CLI_CLI_UTIL_H_
#define STGUARD_CLI_CLI_UTIL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "stguard/header.h"

namespace stguard::cli {

// Exit codes of every subcommand (DESIGN.md, "CLI contract").
inline constexpr int kExitOk = 0;        // every file accepted
inline constexpr int kExitRejected = 1;  // at least one file rejected
inline constexpr int kExitUsage = 2;     // usage error, or a file could not be opened

// A decimal u64 written with ASCII digits only: no sign, no whitespace, no
// "0x", not empty. nullopt when the text is anything else or does not fit in
// u64 (so "18446744073709551616" is an error, never a wrapped value).
std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept;

// The options check and inspect share.
struct CommonOptions {
  ParseOptions parse;
  bool json = false;
  bool help = false;               // --help/-h seen: print help, exit 0
  std::vector<std::string> files;  // positional arguments, in order
};

// Parses `args` (after the subcommand name). Options: --json,
// --profile strict|reference, --max-header-bytes N (both also as --opt=VALUE),
// --help/-h, and "--" to end options. On a usage error returns nullopt and
// sets `error` to a one-line description.
std::optional<CommonOptions> parse_common_options(Args args, std::string* error);

// Prints "stguard CMD: ERROR" plus the usage line to stderr and returns
// kExitUsage.
int usage_error(std::string_view command, std::string_view usage, std::string_view error);

// `text` made safe to print on a terminal: control characters (C0, DEL, C1),
// bidirectional overrides and invalid UTF-8 bytes become visible escapes
// (\n, \x1b, \u{202e}); backslash is doubled so escapes stay unambiguous.
// Tensor names and metadata come from untrusted files: printing them raw would
// let a file rewrite the terminal or hide what it contains.
std::string printable(std::string_view text);

// printable() for library messages: those already show names with control
// characters escaped ("\x1b"), so backslashes are left alone instead of
// doubled; anything still unsafe is escaped as above.
std::string printable_message(std::string_view text);

// Width of `text` in code points (for table columns; UTF-8 assumed).
std::size_t display_width(std::string_view text) noexcept;

// Compact one-line JSON. Invalid UTF-8 (e.g. in a file name from argv) is
// replaced by U+FFFD instead of throwing.
std::string json_line(const nlohmann::ordered_json& value);

// The fields every per-file JSON record of check and inspect starts with:
// file, verdict ("accept", "reject", or "error" for kIoError), profile,
// reason (null or the reason name), offset (null when accepted or for an IO
// error, where no byte of the file is at fault), message (null when accepted).
nlohmann::ordered_json verdict_record(std::string_view file, Profile profile, const Error* error);

// The exit code a per-file outcome contributes: kExitOk, kExitRejected, or
// kExitUsage for kIoError. A run's exit code is the maximum over its files.
int exit_code_for(const Error* error) noexcept;

// The text form of a fault: "reject REASON at byte OFFSET: MESSAGE", or
// "error IO_ERROR: MESSAGE" for a file that could not be opened. Terminal-safe.
std::string error_text(const Error& error);

// "[4096,4096]", "[]" for a scalar.
std::string shape_string(const std::vector<std::uint64_t>& shape);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_CLI_UTIL_H_
