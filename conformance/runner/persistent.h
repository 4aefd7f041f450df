// conformance/runner/persistent.h: one adapter process answering many files
// (the persistent mode of docs/adapter-protocol.md).
//
//   PersistentReader reader(spec.persistent_command, spec.working_dir, limits);
//   for (const auto& path : files) {
//     ProcessResult run = reader.answer(path);   // as run_process would give it
//     CaseResult graded = grade_case(c, AdapterMode::kJson, run, limits);
//   }
//
// Starting an interpreter such as node costs far more than parsing one
// small file, so a reader that declares a persistent command is started once
// and fed one absolute path per line on stdin; it answers each with one line
// on stdout. The limits are those of run_process (process.h): the timeout
// counts per file from the moment its path is written, the address-space
// limit holds for the whole process, the stdout cap per answer.
//
// answer() returns the ProcessResult a one-process-per-file run would have
// produced, so grade_case() grades both modes alike:
//  - a complete line: kExited with exit code 0 and the line as stdout_text
//    (with anything else already written after it, which grade_case then
//    sees as output beyond the one JSON object);
//  - the process died before the line was complete: its exit status or
//    signal, the partial line, the stderr written since the path was sent;
//  - no complete line within the timeout: kTimedOut;
//  - more than max_stdout_bytes (with or without a newline):
//    kOutputOverflow, the process killed at once, as run_process does.
// A process that exits with status 0 and no output at all while a path is
// pending may have ended before reading it: the file is asked again once,
// of a fresh process. In every case but a clean single answer line, the process group (and
// whatever the adapter left, cleanup.h) is killed, and the next answer()
// starts a fresh process: one bad file never costs the grades of others.
#ifndef STGUARD_CONFORMANCE_RUNNER_PERSISTENT_H_
#define STGUARD_CONFORMANCE_RUNNER_PERSISTENT_H_

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "conformance/runner/process.h"

namespace stguard::conformance {

class PersistentReader {
 public:
  // `argv` is the persistent command (no file argument), run in `working_dir`.
  // Nothing starts before the first answer().
  PersistentReader(std::vector<std::string> argv, std::filesystem::path working_dir,
                   ProcessLimits limits);
  PersistentReader(const PersistentReader&) = delete;
  PersistentReader& operator=(const PersistentReader&) = delete;
  ~PersistentReader();

  // Asks the adapter about `file` (made absolute; a path holding a newline
  // cannot be framed and comes back as kSpawnFailed). Starts the adapter
  // when none is running. Thread-compatible: one thread per reader.
  ProcessResult answer(const std::filesystem::path& file);

  // Kills the adapter (closing its stdin first would let a slow reader
  // linger): the process group and everything it left.
  void stop();

  // How many processes were started so far (1 for a clean run).
  std::size_t starts() const noexcept { return starts_; }

 private:
  // Waits for the answer line, the exit, the timeout or a stop request.
  ProcessResult wait_for_answer(std::chrono::steady_clock::time_point start);
  // The loop of wait_for_answer: fills in `result` but its status and
  // stderr_text, and returns the status.
  ProcessResult::Status read_until_answer(std::chrono::steady_clock::time_point start,
                                          ProcessResult& result, HeadTail& stderr_kept);
  // Reads what the dead adapter still has in its pipes (kPipeGrace at most).
  void drain_after_exit(ProcessResult& result, HeadTail& stderr_kept);

  std::vector<std::string> argv_;
  std::filesystem::path working_dir_;
  ProcessLimits limits_;
  SpawnedAdapter adapter_;
  std::size_t starts_ = 0;
};

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_PERSISTENT_H_
