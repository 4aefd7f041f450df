// tests/hostile/cli_fuzz/invariants.h: what must hold after every run,
// whatever the command line.
//
//   - a file the command line did not name as an output is unchanged and
//     still there (content, permission bits, owner, link target), and
//     nothing appears that was not asked for; a folder stguard did not make
//     loses nothing, and in one it made only what it made changes;
//   - an output is whole or as it was: never a partial file, never a
//     temporary file (.stguard-*) left behind unless stguard was SIGKILLed;
//     TMPDIR is left empty;
//   - the exit status is 2 whenever a named file could not be read or
//     written, with a message on stderr that names a path of the line; a
//     message "cannot write/read" never comes with another status; exit 2
//     always says why on stderr;
//   - no run is killed by a signal the runner did not send (SIGPIPE,
//     SIGXFSZ, SIGSEGV, an abort), no sanitizer reports anything, no run
//     outlives its time limit;
//   - no process stguard started outlives it.
//
// Which files are outputs, and which inputs cannot be read, is worked out
// before the run from the parsed command line (command_line.h) and the file
// system as it then is, following links as the kernel would for the user
// the command runs as (fs.protected_symlinks included).
#ifndef STGUARD_TESTS_HOSTILE_CLI_FUZZ_INVARIANTS_H_
#define STGUARD_TESTS_HOSTILE_CLI_FUZZ_INVARIANTS_H_

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/hostile/cli_fuzz/command_line.h"
#include "tests/hostile/cli_fuzz/runner.h"
#include "tests/hostile/cli_fuzz/sandbox.h"

namespace stguard_cli_fuzz {

// What a run may change and must fail on, worked out before it.
struct Expectations {
  // Snapshot keys of files the run may write (outputs, followed through
  // their links), with the option that names each.
  std::vector<std::pair<std::string, std::string>> output_files;
  // Snapshot keys of folders the run may write into (the folder itself and
  // new entries below it); `owned` lists the entries below them stguard
  // made (their markers), which it may change or remove.
  std::vector<std::string> output_dirs;
  std::set<std::string> owned;
  // Snapshot keys below which whatever the command makes of its own kind may
  // change: `help --man-pages`, `corpus export --tarball` and `hunt promote
  // --recipes` write named files into a folder that is not theirs.
  std::vector<std::string> write_into;
  // Snapshot keys of folders the run may create on the way to an output
  // folder that does not exist yet (`--out a/b/c` makes a/ and a/b/).
  std::set<std::string> new_folders;
  // Snapshot keys of single files the run may write although no option
  // names them as outputs: what a flag writes into a folder named for
  // reading (`corpus build --bump-version` records the version in
  // RECIPES/corpus-version.txt).
  std::set<std::string> implied_files;
  // FIFOs named as outputs (they get a reader).
  std::vector<std::filesystem::path> fifos;
  // Why the run must exit 2: "--sarif /dev/full: a device that is always full".
  std::vector<std::string> must_fail;
  // The path words of the line, for "the message names a path".
  std::vector<std::string> path_words;
  // Whether a default output folder (./hunt-NAME) may appear.
  bool hunt_default_out = false;
};

Expectations expect(const Session& session, const std::filesystem::path& run_dir,
                    const Parsed& parsed, bool as_nobody);

// Every invariant the run broke, each in a sentence; empty when none.
std::vector<std::string> check_invariants(const Expectations& expected, const Parsed& parsed,
                                          const Snapshot& before, const Snapshot& after,
                                          const RunResult& run);

}  // namespace stguard_cli_fuzz

#endif  // STGUARD_TESTS_HOSTILE_CLI_FUZZ_INVARIANTS_H_
