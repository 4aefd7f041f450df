// cli/command.h: how the stguard command is put together.
//
// Each subcommand lives in one file (check.cc, inspect.cc, ...) that declares
// its options on a CLI11 app, then calls the libraries, then prints. They all
// register through add_command(), which gives each the same conventions:
//   - `-h, --help` prints the help help.h renders from what the command
//     registered: each option with its description, placeholder and group;
//   - `--opt=value` and `--opt value` both work; `--` ends the options;
//   - a usage error prints "stguard CMD: WHY", the usage line and a pointer to
//     --help on stderr, nothing on stdout, and exits kExitUsage.
// main.cc parses the whole command line once and runs the chosen command.
#ifndef STGUARD_CLI_COMMAND_H_
#define STGUARD_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stguard::cli {

// The exit statuses of every subcommand (docs/cli.md, "Exit status").
inline constexpr int kExitOk = 0;      // accepted / nothing wrong
inline constexpr int kExitFailed = 1;  // a file rejected, a folder or reader failing
inline constexpr int kExitUsage = 2;   // usage error, or the work could not be done
                                       // (a file that cannot be opened, a missing corpus)

struct Command {
  std::string path;         // "check", "conform report"
  std::string description;  // one line, in the list of commands
  std::string_view usage;   // one line, without "usage: "
  std::string_view intro;   // what the command does, before the options in --help
  std::string_view outro;   // after the options: output, exit status
  // Text printed after the options of a group in --help, in the group's
  // words ("Each limit N is ..." after the limits).
  std::vector<std::pair<std::string, std::string_view>> group_notes;
  CLI::App* app = nullptr;
  bool help_requested = false;
  // The command's positional arguments, when it takes any: main.cc appends
  // the words after "--" here (CLI11 2.1 hands them to the parent command).
  std::vector<std::string>* positionals = nullptr;
  // Runs the command once the command line is parsed; returns the exit status.
  std::function<int()> run;
  // A command that only groups others (`stguard corpus`) has no run: naming
  // it alone is a usage error.
};

class Commands {
 public:
  // A subcommand of `parent` ("stguard" itself, or another command's app);
  // the texts are static (Command keeps views of them).
  Command& add(CLI::App& parent, std::string name, std::string description, std::string_view usage,
               std::string_view intro, std::string_view outro = {});
  // The command whose app is `app`, or nullptr.
  Command* find(const CLI::App* app) const;
  // By its path ("conform report"), or nullptr.
  Command* find(std::string_view path) const;
  const std::vector<std::unique_ptr<Command>>& all() const { return commands_; }

 private:
  std::vector<std::unique_ptr<Command>> commands_;
};

// What the value of an option or positional argument names. Declared where
// the option is, for the values that are paths or commands (the rest is told
// from the placeholder: N and SECONDS are numbers, a|b a choice). `stguard
// help --arguments` lists every argument with it, for tools: the test suite's
// command-line fuzzer (tests/hostile/) draws command lines from that list
// and knows from it which files a command line names as outputs.
enum class ValueRole {
  kText,        // a name, a glob, a version
  kNumber,      // N, SECONDS
  kChoice,      // one of the words of the placeholder (strict|reference)
  kInputFile,   // a file read
  kInputDir,    // a folder read
  kOutputFile,  // a file written (base/output.h)
  kOutputDir,   // a folder written into (base/owned_dir.h), or files written in it
  kCommand,     // a command line run as an adapter
  kReader,      // a reader's folder, or a bundled reader's name
};

// "input", "output-dir", ...
std::string_view value_role_name(ValueRole role) noexcept;

// What an option's values name, declared where it is registered:
//
//   app.add_option("--sarif", args.sarif, "...")->option_text("FILE")
//       ->check(role(ValueRole::kOutputFile));
//   app.add_option("FILE", args.files)  // `write SPEC OUT`: the first read, the second written
//       ->check(roles({ValueRole::kInputFile, ValueRole::kOutputFile}));
//
// A validator that accepts every value; it only carries the roles, which
// declared_roles reads back. With several, the first value has the first
// role, and so on, the last role for all the rest.
CLI::Validator role(ValueRole role);
CLI::Validator roles(const std::vector<ValueRole>& roles);

// The roles declared for `option`; empty when none were.
std::vector<ValueRole> declared_roles(CLI::Option& option);

// Prints "stguard PATH: ERROR", the usage line and a hint to stderr; returns kExitUsage.
int usage_error(const Command& command, std::string_view error);

// The registration function of each subcommand (one per file).
void add_check_command(CLI::App& root, Commands& commands);
void add_inspect_command(CLI::App& root, Commands& commands);
void add_verify_command(CLI::App& root, Commands& commands);
void add_corpus_command(CLI::App& root, Commands& commands);
void add_conform_command(CLI::App& root, Commands& commands);
void add_adapter_command(CLI::App& root, Commands& commands);
void add_hunt_command(CLI::App& root, Commands& commands);
void add_write_command(CLI::App& root, Commands& commands);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_COMMAND_H_
