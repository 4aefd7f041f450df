// tests/hostile/cli_fuzz/argument_table.h: the stguard command's own table
// of arguments, as `stguard help --arguments` prints it (cli/command.h,
// ValueRole): every option and positional argument of every command, with
// what its values name. The fuzzer draws its command lines from it, so an
// option added to the command is fuzzed without a change here.
#ifndef STGUARD_TESTS_HOSTILE_CLI_FUZZ_ARGUMENT_TABLE_H_
#define STGUARD_TESTS_HOSTILE_CLI_FUZZ_ARGUMENT_TABLE_H_

#include <string>
#include <vector>

namespace stguard_cli_fuzz {

struct Argument {
  std::string command;             // "conform report"
  std::vector<std::string> names;  // {"-j", "--jobs"}; empty for a positional
  std::string positional;          // "FILE" for a positional argument, else ""
  std::string placeholder;         // "N", "strict|reference", "" for a flag
  std::vector<std::string> roles;  // "flag", "input", "output-dir", ... one per value
  bool several = false;            // may be given more than once

  bool is_flag() const { return roles.size() == 1 && roles[0] == "flag"; }
  // The role of the index-th value (the last role for all the rest).
  const std::string& role(std::size_t index) const;
  // The long name ("--jobs"), else the short one, else the positional's.
  const std::string& name() const;
  // The short name ("-j"), or "".
  std::string short_name() const;
};

struct ArgumentTable {
  std::vector<Argument> arguments;
  std::vector<std::string> commands;  // in the order they are listed

  // The arguments of `command`, options and positionals.
  std::vector<const Argument*> of(const std::string& command) const;
  // The option of `command` named `name` ("--out"), or nullptr.
  const Argument* option(const std::string& command, const std::string& name) const;
  // The positional argument of `command`, or nullptr.
  const Argument* positional(const std::string& command) const;
};

// Runs `stguard help --arguments` and reads its lines. An empty table when
// the command failed or printed a line of another form (the caller fails).
ArgumentTable read_argument_table(const std::string& stguard, std::string* error);

}  // namespace stguard_cli_fuzz

#endif  // STGUARD_TESTS_HOSTILE_CLI_FUZZ_ARGUMENT_TABLE_H_
