// cli/help.h: a command's --help, rendered from what the command registered.
//
// The contract of each command is written once, where its options are
// declared: every option carries its description, its value's placeholder
// (CLI11's option_text) and its group; every command its one-line
// description, a usage line, the prose before the options and after them.
// --help, `stguard help --options` and the test that holds docs/cli.md to the
// registered options all read that one declaration.
#ifndef STGUARD_CLI_HELP_H_
#define STGUARD_CLI_HELP_H_

#include <string>
#include <string_view>

#include "command.h"

namespace stguard::cli {

// The whole text `stguard PATH --help` prints: "usage: ", the usage line, the
// intro, the subcommands with their descriptions, each option group (in the
// order its first option was registered; -h/--help, and "--" for a command
// that takes arguments, last), the notes of each group, then the outro.
// Descriptions keep the line breaks they were written with; a line longer
// than the width is wrapped at a blank.
std::string render_help(const Command& command, const Commands& commands);

// The same declaration as a man page (roff, man(7) macros): NAME, SYNOPSIS,
// DESCRIPTION (the intro), COMMANDS, OPTIONS by group, DETAILS (the outro),
// SEE ALSO. `version` goes into the title line. The root command (empty
// path) is stguard(1); "conform report" is stguard-conform-report(1).
std::string render_man_page(const Command& command, const Commands& commands,
                            std::string_view version);

// The man page's file name: "stguard.1", "stguard-conform-report.1".
std::string man_page_name(const Command& command);

// The label of an option in help: "-j, --jobs N", "--json".
std::string option_label(const CLI::Option& option);

// The placeholder of the value an option takes ("N", "DIR"), "" for a flag,
// or "?" for an option that takes a value but declares none (a bug the test
// suite looks for).
std::string option_placeholder(const CLI::Option& option);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_HELP_H_
