// conformance/runner/reader.h: a reader under test: how to run its adapter,
// ask its version and set it up. Either given on the command line
// (--adapter CMD) or described by a reader directory's reader.json:
//
//   {"name": "huggingface-hub",
//    "description": "@huggingface/hub's safetensors header parser",
//    "command": ["node", "adapter.mjs"],
//    "version_command": ["node", "adapter.mjs", "--version"],
//    "setup": ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
//    "mode": "json",
//    "persistent_command": ["node", "adapter.mjs", "--persistent"]}
//
// A reader with a "persistent_command" (JSON mode only) can answer many
// files from one process (persistent.h); conform uses it unless told not to.
//
// Commands run in the reader's directory. The word "${STGUARD}" stands for
// the running stguard executable, so stguard's own adapters need no path.
#ifndef STGUARD_CONFORMANCE_RUNNER_READER_H_
#define STGUARD_CONFORMANCE_RUNNER_READER_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"

namespace stguard::conformance {

enum class AdapterMode {
  kJson,   // the adapter protocol: one JSON object on stdout, exit 0
  kPlain,  // exit status only: 0 accept, 1 reject, anything else a crash
};

struct ReaderSpec {
  std::string name;
  std::string description;
  std::vector<std::string> command;          // the case file's absolute path is appended
  std::vector<std::string> version_command;  // empty: no version known
  std::vector<std::string> setup;            // empty: nothing to set up
  // Reads paths on stdin, answers one line each (persistent.h); empty: none.
  std::vector<std::string> persistent_command;
  AdapterMode mode = AdapterMode::kJson;
  std::filesystem::path working_dir;
  bool runs_self = false;  // the command runs "${STGUARD}", the running executable
  // A writer (`stguard conform --writer`): run on the writer cases, CMD SPEC OUT.
  bool writer = false;
  // The upstream release the reader implements ("0.5"; reader.json
  // "implements", or --implements): a case whose `since` is newer is graded
  // NOT_APPLICABLE. nullopt: the newest, every case applies.
  std::optional<std::string> implements;

  // True when the reader can answer from long-running processes: a JSON-mode
  // reader with a persistent command. conform and hunt use them unless told
  // not to (--no-persistent).
  bool has_persistent_mode() const noexcept {
    return mode == AdapterMode::kJson && !persistent_command.empty();
  }
};

// Splits a command line into words: blanks separate words, '...' and "..."
// group (no escapes inside single quotes; \" and \\ inside double quotes),
// a backslash outside quotes escapes the next character. No shell is
// involved: no globbing, variables or redirection. Fails for an
// unterminated quote or an empty command.
base::Result<std::vector<std::string>> split_command(std::string_view text);

// A reader from --adapter CMD: working directory = the current one, name =
// `name` or else the file name of the command's first word.
base::Result<ReaderSpec> reader_from_command(std::string_view command, std::string_view name,
                                             AdapterMode mode);

// A reader from DIR/reader.json. `self_executable` replaces "${STGUARD}".
// Writers (conformance/writers/writer_run.h) are described the same way, in
// a writer.json: `file_name` says which.
base::Result<ReaderSpec> load_reader_dir(const std::filesystem::path& dir,
                                         const std::filesystem::path& self_executable,
                                         std::string_view file_name = "reader.json");

// Every subdirectory of `dir` holding a reader.json (or `file_name`), sorted
// by name.
std::vector<std::filesystem::path> find_reader_dirs(const std::filesystem::path& dir,
                                                    std::string_view file_name = "reader.json");

// The command as one line a user could paste (words with blanks or quotes
// are single-quoted).
std::string command_text(const std::vector<std::string>& words);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_READER_H_
