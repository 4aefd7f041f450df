// cli/commands.h: the subcommands of the stguard command. main.cc parses the
// subcommand name and hands the remaining arguments to one of these. Each
// returns the process exit code (see DESIGN.md, "CLI contract").
#ifndef STGUARD_CLI_COMMANDS_H_
#define STGUARD_CLI_COMMANDS_H_

#include <span>
#include <string_view>

namespace stguard::cli {

using Args = std::span<const std::string_view>;  // arguments after the subcommand name

int run_corpus(Args args);   // corpus_command.cc
int run_conform(Args args);  // conform_command.cc

}  // namespace stguard::cli

#endif  // STGUARD_CLI_COMMANDS_H_
