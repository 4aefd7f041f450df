// cli/cli_util.h: what the not yet converted `conform` command still uses
// (transitional: goes away when conform_command.cc moves to CLI11).
#ifndef STGUARD_CLI_CLI_UTIL_H_
#define STGUARD_CLI_CLI_UTIL_H_

#include <string>
#include <string_view>

#include "base/decimal.h"
#include "base/json.h"
#include "base/text.h"
#include "command.h"

namespace stguard::cli {

using base::json_line;
using base::parse_u64;

inline std::string printable(std::string_view text) { return base::terminal_safe(text); }
inline std::string printable_message(std::string_view text) {
  return base::terminal_safe(text, {.keep_backslash = true});
}

// Prints "stguard CMD: ERROR" plus the usage line to stderr; returns kExitUsage.
int usage_error(std::string_view command, std::string_view usage, std::string_view error);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_CLI_UTIL_H_
