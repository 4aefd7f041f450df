// tests/hostile/cli_fuzz/runner.h: one run of stguard on a command line, in
// a run folder, disturbed as the line says, and what it left running.
//
// The fuzzing process is a child subreaper (PR_SET_CHILD_SUBREAPER), so
// every process stguard started that outlives it is reparented here, where
// the run finds it: "no child outlives the command" is checked, not hoped.
#ifndef STGUARD_TESTS_HOSTILE_CLI_FUZZ_RUNNER_H_
#define STGUARD_TESTS_HOSTILE_CLI_FUZZ_RUNNER_H_

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/hostile/cli_fuzz/command_line.h"
#include "tests/hostile/cli_fuzz/sandbox.h"

namespace stguard_cli_fuzz {

struct RunResult {
  bool started = false;
  bool exited = false;  // exited (exit_code), else killed (signal)
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;  // killed by the runner after the time limit
  std::set<int> sent;      // the signals the runner sent to stguard or its group
  bool stdout_closed = false;
  std::string out;  // what was read of stdout before it was closed, if it was
  std::string err;
  // Processes stguard started that were still alive after it ended (their
  // command lines): each is a broken invariant. When stguard was killed by
  // SIGKILL, only the adapters it started count (its children in its own
  // session): it makes them die with it (PR_SET_PDEATHSIG), but a
  // descendant that left for a session of its own (`setsid`) is then beyond
  // its reach, even one it took in as their subreaper, and is killed here
  // unreported.
  std::vector<std::string> survivors;
  double seconds = 0;
};

// Makes this process the subreaper of its descendants. Once per process.
bool become_subreaper();

// Runs `stguard` with `line.words` (the {stguard} and {fake} stand-ins
// replaced), working directory `run_dir`, the session's data directory,
// TMPDIR and HOME in its environment, as nobody when the line says so. A FIFO
// among `fifos` (named as an output) gets a reader while the run lasts.
RunResult run_line(const Session& session, const std::filesystem::path& run_dir,
                   const CommandLine& line, const std::vector<std::filesystem::path>& fifos,
                   std::chrono::milliseconds time_limit);

// `word` with {stguard} and {fake} replaced.
std::string expand_word(const Session& session, const std::string& word);

}  // namespace stguard_cli_fuzz

#endif  // STGUARD_TESTS_HOSTILE_CLI_FUZZ_RUNNER_H_
