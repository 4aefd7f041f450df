// tests/hostile/cli_fuzz/command_line.h: one fuzzed run (the words given
// to stguard, who runs it, what disturbs it), drawn from the command's
// argument table, and what its words name once parsed as stguard would.
//
// A command line is kept as JSON, one per line, so that a broken invariant
// is printed in the form tests/hostile/cli_fuzz_regressions.jsonl replays:
//   {"words":["check","--sarif=","in/good.safetensors","in/bad.safetensors"],
//    "as":"root","disturb":"","delay_ms":0}
// Paths in words are relative to the run folder (the command's working
// directory); "{stguard}" and "{fake}" in a word stand for the command under
// test and the fake reader with planted bugs.
#ifndef STGUARD_TESTS_HOSTILE_CLI_FUZZ_COMMAND_LINE_H_
#define STGUARD_TESTS_HOSTILE_CLI_FUZZ_COMMAND_LINE_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/hostile/cli_fuzz/argument_table.h"

namespace stguard_cli_fuzz {

// What happens to the run while it runs.
enum class Disturbance {
  kNone,
  kInterrupt,       // SIGINT to stguard
  kTerminate,       // SIGTERM to stguard
  kHangUp,          // SIGHUP to stguard
  kGroupInterrupt,  // SIGINT to stguard's process group, as Ctrl-C sends it
  kKill,            // SIGKILL to stguard: nothing of its own can clean up
  kKillChild,       // SIGKILL to one of stguard's child processes (an adapter)
  kCloseStdout,     // the reader of stguard's stdout goes away (`stguard ... | head -0`)
};

struct CommandLine {
  std::vector<std::string> words;  // after "stguard"
  bool as_nobody = false;          // run as the unprivileged user (the fuzzer is root)
  Disturbance disturb = Disturbance::kNone;
  int delay_ms = 0;  // when the disturbance comes, after the start
  std::string note;  // why a regression line is there

  std::string to_json() const;
  // Fails (returns false, `error` set) on a line of another form.
  static bool from_json(const std::string& line, CommandLine* out, std::string* error);
};

std::string disturbance_name(Disturbance d);

// A word of a command line that names a file or folder, and what stguard
// does with it, as the argument table says.
struct Named {
  std::string word;    // as given ("in/good.safetensors", "/dev/full")
  std::string role;    // "input", "input-dir", "output", "output-dir"
  std::string option;  // "--sarif", or the positional's name ("FILE")
};

struct Parsed {
  std::string command;  // "conform report"; "" when the words name none
  std::vector<Named> named;
  bool has_option(const std::string& name) const;
  std::vector<std::string> options;  // every option given, by the name in the table
};

// Reads `words` as stguard's parser does (CLI11: `--opt=value`, `--opt
// value`, `-jVALUE`, `-j VALUE`, flags, positionals, `--` ending the options)
// and returns what each word names. A word that makes no sense is skipped:
// stguard refuses the line then, and the invariants hold for a refusal too.
Parsed parse_words(const ArgumentTable& table, const std::vector<std::string>& words);

// Draws command lines from the table. Each command gets a line that would
// run (a reader for conform, a small corpus, a bounded hunt), then options
// drawn from the table with values drawn for their role among the sandbox's
// shapes, in every form (`--x v`, `--x=v`, `-xv`, `--x=`, `--x` at the end,
// repeated), and a disturbance.
class Drawer {
 public:
  Drawer(const ArgumentTable& table, std::uint64_t seed, bool root, bool small_disk,
         std::string data_dir);
  CommandLine draw();

 private:
  std::string value_for(const Argument& argument, std::size_t index);
  void add_option(std::vector<std::string>& words, const Argument& argument);
  std::vector<std::string> base_line(const std::string& command);
  const std::string& pick(const std::vector<std::string>& from);
  bool chance(double p);

  const ArgumentTable& table_;
  std::mt19937_64 random_;
  bool root_;
  bool small_disk_;
  std::string data_dir_;
};

}  // namespace stguard_cli_fuzz

#endif  // STGUARD_TESTS_HOSTILE_CLI_FUZZ_COMMAND_LINE_H_
