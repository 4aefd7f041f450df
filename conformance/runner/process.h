// conformance/runner/process.h: runs one adapter process under limits.
//
// A reader under test may hang, allocate without bound, flood stdout or spawn
// children. run_process() confines each run: its own process group (killed as
// a whole at the timeout and after exit), an address-space limit, no core
// dumps, stdin from /dev/null, stdout captured up to a cap (an adapter that
// writes more is killed there: its answer is already a protocol error, and
// reading the rest could take longer than the timeout; a process whose stdout
// is not an answer has the rest read and discarded instead, so it never
// blocks on a full pipe), and the head and tail of stderr kept. Descendants that left the process
// group are found and killed too (cleanup.h). Once the main process has exited, the pipes get
// kPipeGrace to reach end-of-file; a descendant still holding them then is
// not waited for: the output read so far is the answer.
#ifndef STGUARD_CONFORMANCE_RUNNER_PROCESS_H_
#define STGUARD_CONFORMANCE_RUNNER_PROCESS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "conformance/runner/cleanup.h"

namespace stguard::conformance {

// How long the output pipes may stay open after the adapter's main process
// exited (descendants holding them). Output arriving later is not read.
inline constexpr std::chrono::milliseconds kPipeGrace{100};

struct ProcessLimits {
  std::chrono::milliseconds timeout{10'000};
  // RLIMIT_AS of the child; 0 = no limit. Sanitizer builds reserve terabytes
  // of shadow address space and cannot start under any realistic limit.
  std::uint64_t address_space_bytes = std::uint64_t{2} << 30;
  std::size_t max_stdout_bytes = std::size_t{16} << 20;
  // Past max_stdout_bytes: true, stop reading and kill the process group
  // (Status::kOutputOverflow), for adapters whose stdout is their answer;
  // false, read and drop the rest until the exit (plain mode, setup commands).
  bool stop_at_stdout_cap = true;
  // Of stderr, the first and the last max_stderr_bytes / 2 are kept (HeadTail).
  std::size_t max_stderr_bytes = std::size_t{8} << 10;
};

// Keeps the first and the last `limit / 2` bytes of a stream, and says how
// many were dropped between them: a crash report's first line ("ERROR:
// AddressSanitizer: ...") and the end of a long trace both survive.
class HeadTail {
 public:
  explicit HeadTail(std::size_t limit) : head_limit_(limit / 2), tail_limit_(limit - limit / 2) {}
  void append(std::string_view bytes);
  // The head, then "\n[... N bytes dropped ...]\n" when bytes were dropped,
  // then the tail.
  std::string text() const;
  bool truncated() const noexcept { return dropped_ != 0; }

 private:
  std::size_t head_limit_;
  std::size_t tail_limit_;
  std::string head_;
  std::string tail_;  // up to twice tail_limit_ between trims
  std::uint64_t dropped_ = 0;
};

struct ProcessResult {
  enum class Status {
    kExited,    // exit_code is valid
    kSignaled,  // term_signal is valid
    kTimedOut,  // killed at the timeout
    // stdout passed max_stdout_bytes (with stop_at_stdout_cap): killed there,
    // stdout_text holds the first max_stdout_bytes
    kOutputOverflow,
    kSpawnFailed,  // fork/exec failed: spawn_error says why
    kInterrupted,  // a stop was requested (cleanup.h, stop_signal): killed, not graded
  };
  Status status = Status::kSpawnFailed;
  int exit_code = 0;
  int term_signal = 0;
  std::string stdout_text;
  bool stdout_truncated = false;  // more than max_stdout_bytes were written
  std::string stderr_text;        // HeadTail(max_stderr_bytes).text() of stderr
  std::string spawn_error;
  double wall_ms = 0;
  int pid = 0;  // the child's pid (= its process group id); 0 if never started
  // Processes the adapter left running after its main process exited (its
  // process group, and descendants that left it); all were killed.
  std::size_t leftover_processes = 0;
  // The pipes were still open kPipeGrace after the main process exited.
  bool output_held_open = false;
};

// Resolves the executable of a command the way the runner does: a word with a
// '/' is relative to `working_dir` (unless absolute); otherwise each PATH
// directory is tried. nullopt when no executable file is found. Done before
// fork, so the child only calls async-signal-safe functions.
std::optional<std::filesystem::path> resolve_executable(const std::string& word,
                                                        const std::filesystem::path& working_dir);

// Runs argv (argv[0] resolved with resolve_executable) in `working_dir`.
// Never throws for anything the child does; thread-safe (the runner calls it
// from several threads).
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& working_dir, const ProcessLimits& limits);

// An adapter process started under ProcessLimits (its own process group,
// RLIMIT_AS, no core dumps, the cleanup token) whose pipes the caller drives:
// run_process() reads one answer and waits for the exit; PersistentReader
// (persistent.h) writes paths to stdin and reads an answer line per path.
struct SpawnedAdapter {
  int pid = 0;  // 0: not started, spawn_error says why
  std::string token;
  std::string spawn_error;
  std::unique_ptr<AdapterRegistration> registration;
  base::UniqueFd stdin_write;  // only when spawned with_stdin; else stdin is /dev/null
  base::UniqueFd stdout_read;
  base::UniqueFd stderr_read;
  base::UniqueFd exit_fd;  // a pidfd, readable once the child exited (may be absent)
};

// Starts argv (argv[0] resolved with resolve_executable) in `working_dir`.
SpawnedAdapter spawn_adapter(const std::vector<std::string>& argv,
                             const std::filesystem::path& working_dir, const ProcessLimits& limits,
                             bool with_stdin);

// True once the spawned adapter's main process exited (it stays a zombie so
// its pid, the process group id, cannot be reused before reap_adapter).
bool adapter_exited(const SpawnedAdapter& adapter);

// Kills the adapter's process group and every descendant it left
// (kill_leftovers), reaps the main process and returns its wait status;
// `leftovers` (optional) gets how many processes were killed.
int reap_adapter(SpawnedAdapter& adapter, std::size_t* leftovers);

// Reads what is available on `fd` into `sink`: up to `cap` bytes kept (the
// first ones), the rest read and dropped with `truncated` set. False at
// end-of-file or on a read error.
bool drain_output(int fd, std::string& sink, std::size_t cap, bool& truncated);
// The same into a HeadTail (stderr).
bool drain_output(int fd, HeadTail& sink);

// Sets status, exit_code / term_signal from a waitpid status.
void set_exit_status(ProcessResult& result, int wait_status);

// "SIGSEGV" for 11, "signal 77" for unknown numbers.
std::string signal_name(int signal_number);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_PROCESS_H_
