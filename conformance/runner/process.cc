// conformance/runner/process.cc: fork/exec with rlimits, a process group, a
// deadline and capped capture (see process.h).
#include "conformance/runner/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "base/file_io.h"
#include "conformance/runner/cleanup.h"

extern char** environ;

namespace stguard::conformance {
namespace {

using Clock = std::chrono::steady_clock;

// The first block of a captured stdout (drain_output).
constexpr std::size_t kFirstCaptureBlock = std::size_t{64} << 10;

bool is_executable_file(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// Closes a descriptor once; -1 means already closed.
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool open() {
    int fds[2];
    // O_CLOEXEC: other threads spawn adapters concurrently; a write end leaked
    // into their children would hold this pipe open and delay its EOF.
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  ~Pipe() {
    close_fd(read_end);
    close_fd(write_end);
  }
};

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const char* executable, char* const* argv, char* const* envp,
                             const char* working_dir, int stdin_fd, int stdout_fd, int stderr_fd,
                             int error_fd, std::uint64_t address_space_bytes) {
  ::setpgid(0, 0);
  // stdin: the persistent mode's pipe of paths, else /dev/null.
  int input_fd = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY);
  if (input_fd >= 0) ::dup2(input_fd, STDIN_FILENO);
  ::dup2(stdout_fd, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  struct rlimit no_core {
    0, 0
  };
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (address_space_bytes != 0) {
    struct rlimit address_space {
      address_space_bytes, address_space_bytes
    };
    ::setrlimit(RLIMIT_AS, &address_space);
  }
  // The runner ignores nothing, but be explicit: a reader gets default signal
  // dispositions whatever the parent had.
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGXFSZ, SIG_DFL);
  // A fixed umask, whatever the runner's: a writer's "file not readable by
  // others" lint must reflect the mode the writer chose, not the umask of
  // the shell or CI job that ran `stguard conform`.
  ::umask(022);
  int failure = 0;
  if (::chdir(working_dir) != 0) {
    failure = errno;
  } else {
    ::execve(executable, argv, envp);
    failure = errno;
  }
  ssize_t ignored = ::write(error_fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

// One read() of what is available on `fd`: the bytes read (empty at
// end-of-file or on an error), `open` false at end-of-file or on an error.
std::string_view read_some(int fd, std::array<char, 65536>& buffer, bool& open) {
  const ssize_t got = ::read(fd, buffer.data(), buffer.size());
  open = got > 0 || (got < 0 && (errno == EINTR || errno == EAGAIN));
  return got > 0 ? std::string_view(buffer.data(), static_cast<std::size_t>(got))
                 : std::string_view();
}

// `text` without the UTF-8 continuation bytes it starts with (a tail cut
// inside a sequence).
std::string_view without_split_prefix(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size() && start < 3 &&
         (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
    ++start;
  }
  return text.substr(start);
}

// `text` without a UTF-8 sequence cut short at its end (a head cut inside a
// sequence).
std::string_view without_split_suffix(std::string_view text) {
  std::size_t lead = text.size();
  while (lead > 0 && text.size() - lead < 4 &&
         (static_cast<unsigned char>(text[lead - 1]) & 0xC0) == 0x80) {
    --lead;
  }
  if (lead == 0) return text;
  const auto first = static_cast<unsigned char>(text[lead - 1]);
  const std::size_t length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1;
  return text.size() - (lead - 1) < length ? text.substr(0, lead - 1) : text;
}

}  // namespace

std::optional<std::filesystem::path> resolve_executable(const std::string& word,
                                                        const std::filesystem::path& working_dir) {
  if (word.empty()) return std::nullopt;
  if (word.find('/') != std::string::npos) {
    std::filesystem::path path(word);
    if (path.is_relative()) path = working_dir / path;
    if (is_executable_file(path)) return path;
    return std::nullopt;
  }
  const char* path_env = std::getenv("PATH");
  std::string_view dirs = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / word;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

SpawnedAdapter spawn_adapter(const std::vector<std::string>& argv,
                             const std::filesystem::path& working_dir, const ProcessLimits& limits,
                             bool with_stdin) {
  SpawnedAdapter adapter;
  if (argv.empty()) {
    adapter.spawn_error = "empty command";
    return adapter;
  }
  std::optional<std::filesystem::path> executable = resolve_executable(argv[0], working_dir);
  if (!executable) {
    adapter.spawn_error = "command not found: " + argv[0];
    return adapter;
  }
  // Orphans of the adapter come back to this process, to be killed.
  become_subreaper();
  // Everything the child needs is prepared before fork: no allocation after.
  const std::string executable_text = executable->string();
  const std::string working_dir_text = working_dir.string();
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers;
  arg_pointers.reserve(args.size() + 1);
  for (std::string& arg : args) arg_pointers.push_back(arg.data());
  arg_pointers.push_back(nullptr);
  // The environment: the token first (its descendants inherit it), then
  // ours without any token of our own.
  adapter.token = new_adapter_token();
  std::vector<std::string> env = {std::string(kTokenVariable) + "=" + adapter.token};
  const std::string token_prefix = std::string(kTokenVariable) + "=";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::string_view(*e).substr(0, token_prefix.size()) != token_prefix) env.emplace_back(*e);
  }
  std::vector<char*> env_pointers;
  env_pointers.reserve(env.size() + 1);
  for (std::string& entry : env) env_pointers.push_back(entry.data());
  env_pointers.push_back(nullptr);

  Pipe in;
  Pipe out;
  Pipe err;
  Pipe exec_error;
  if ((with_stdin && !in.open()) || !out.open() || !err.open() || !exec_error.open()) {
    adapter.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return adapter;
  }
  adapter.registration = std::make_unique<AdapterRegistration>();
  const std::function<void()> in_child = [&] {
    exec_child(executable_text.c_str(), arg_pointers.data(), env_pointers.data(),
               working_dir_text.c_str(), in.read_end, out.write_end, err.write_end,
               exec_error.write_end, limits.address_space_bytes);
  };
  const pid_t pid = adapter.registration->fork_registered(adapter.token, in_child);
  if (pid < 0) {
    adapter.spawn_error = std::string("fork: ") + std::strerror(errno);
    return adapter;
  }
  // Also from the parent, so the group exists before any kill(-pid) below
  // (EACCES once the child has exec'd is harmless: it did it itself).
  ::setpgid(pid, pid);
  close_fd(in.read_end);
  close_fd(out.write_end);
  close_fd(err.write_end);
  close_fd(exec_error.write_end);

  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_error.read_end, &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    ::waitpid(pid, nullptr, 0);
    adapter.spawn_error = "cannot run " + executable_text + ": " + std::strerror(exec_errno);
    return adapter;
  }
  adapter.pid = pid;
  adapter.stdin_write = base::UniqueFd(std::exchange(in.write_end, -1));
  adapter.stdout_read = base::UniqueFd(std::exchange(out.read_end, -1));
  adapter.stderr_read = base::UniqueFd(std::exchange(err.read_end, -1));
  // Readable when the child exits (Linux 5.3+); without it, waits look
  // every few milliseconds.
  adapter.exit_fd = base::UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  return adapter;
}

bool adapter_exited(const SpawnedAdapter& adapter) {
  // WNOWAIT: the exited child stays a zombie, so its pid (the process
  // group id) cannot be reused before the group is killed.
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(adapter.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == adapter.pid;
}

int reap_adapter(SpawnedAdapter& adapter, std::size_t* leftovers) {
  const std::size_t killed = kill_leftovers(adapter.pid, adapter.token);
  if (leftovers != nullptr) *leftovers = killed;
  int wait_status = 0;
  while (::waitpid(adapter.pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  adapter.stdin_write.reset();
  adapter.stdout_read.reset();
  adapter.stderr_read.reset();
  adapter.exit_fd.reset();
  adapter.registration.reset();
  adapter.pid = 0;
  return wait_status;
}

void HeadTail::append(std::string_view bytes) {
  if (head_.size() < head_limit_) {
    const std::size_t take = std::min(bytes.size(), head_limit_ - head_.size());
    head_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
  }
  if (bytes.empty()) return;
  // The tail may grow to twice its limit before its front is dropped, so
  // that a stream read in small pieces is not moved for each of them.
  if (bytes.size() >= tail_limit_) {
    dropped_ += tail_.size() + (bytes.size() - tail_limit_);
    tail_.assign(bytes.substr(bytes.size() - tail_limit_));
    return;
  }
  tail_.append(bytes);
  if (tail_.size() > 2 * tail_limit_) {
    const std::size_t excess = tail_.size() - tail_limit_;
    dropped_ += excess;
    tail_.erase(0, excess);
  }
}

std::string HeadTail::text() const {
  std::string_view tail = tail_;
  std::uint64_t dropped = dropped_;
  if (tail.size() > tail_limit_) {
    dropped += tail.size() - tail_limit_;
    tail.remove_prefix(tail.size() - tail_limit_);
  }
  if (dropped == 0) return head_ + std::string(tail);
  // Whole characters on both sides of the marker.
  const std::string_view kept_head = without_split_suffix(head_);
  const std::string_view kept_tail = without_split_prefix(tail);
  dropped += (head_.size() - kept_head.size()) + (tail.size() - kept_tail.size());
  return std::string(kept_head) + "\n[... " + std::to_string(dropped) + " bytes dropped ...]\n" +
         std::string(kept_tail);
}

bool drain_output(int fd, std::string& sink, std::size_t cap, bool& truncated) {
  std::array<char, 65536> buffer;
  bool open = true;
  const std::string_view chunk = read_some(fd, buffer, open);
  if (chunk.empty()) return open;
  if (sink.size() < cap) {
    // Two blocks of two fixed sizes at most per answer: 64 KiB at the first
    // byte, then the whole cap once that is full. Growing by doubling would
    // copy the output ~log2(cap) times and leave blocks of every size in the
    // heap, which then split the space a freed answer left, so that the next
    // one no longer fitted in it (the whole corpus, -j 2, answers of
    // 15.5 MB: up to 44 MB above a well-behaved run instead of 29). Not the
    // cap at once: a sanitizer build writes the shadow of every byte
    // allocated, and 16 MiB per answer made a persistent hunt six times
    // slower. Reserved pages that are never written cost no memory.
    if (sink.empty()) sink.reserve(std::min(cap, kFirstCaptureBlock));
    if (chunk.size() > sink.capacity() - sink.size()) sink.reserve(cap);
    const std::size_t room = cap - sink.size();
    if (chunk.size() > room) truncated = true;
    sink.append(chunk.substr(0, room));
  } else {
    truncated = true;
  }
  return true;
}

bool drain_output(int fd, HeadTail& sink) {
  std::array<char, 65536> buffer;
  bool open = true;
  sink.append(read_some(fd, buffer, open));
  return open;
}

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& working_dir, const ProcessLimits& limits) {
  ProcessResult result;
  const Clock::time_point start = Clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  if (stop_signal() != 0 && !argv.empty() && resolve_executable(argv[0], working_dir)) {
    result.status = ProcessResult::Status::kInterrupted;
    return result;
  }
  SpawnedAdapter adapter = spawn_adapter(argv, working_dir, limits, /*with_stdin=*/false);
  if (adapter.pid == 0) {
    result.spawn_error = adapter.spawn_error;
    result.wall_ms = elapsed_ms();
    return result;
  }
  result.pid = adapter.pid;
  const int out_fd = adapter.stdout_read.get();
  const int err_fd = adapter.stderr_read.get();

  const Clock::time_point deadline = start + limits.timeout;
  Clock::time_point grace_end = Clock::time_point::max();
  HeadTail stderr_kept(limits.max_stderr_bytes);
  bool stdout_open = true;
  bool stderr_open = true;
  bool exited = false;
  bool timed_out = false;
  bool interrupted = false;
  bool overflowed = false;
  while (true) {
    if (stop_signal() != 0) {
      interrupted = true;
      break;
    }
    if (!exited && adapter_exited(adapter)) {
      exited = true;
      grace_end = Clock::now() + kPipeGrace;
    }
    if (exited && !stdout_open && !stderr_open) break;
    const Clock::time_point now = Clock::now();
    if (exited && now >= grace_end) {
      result.output_held_open = true;
      break;
    }
    if (!exited && now >= deadline) {
      timed_out = true;
      break;
    }
    std::array<pollfd, 4> fds{};
    nfds_t count = 0;
    if (stdout_open) fds[count++] = {out_fd, POLLIN, 0};
    if (stderr_open) fds[count++] = {err_fd, POLLIN, 0};
    if (!exited && adapter.exit_fd) fds[count++] = {adapter.exit_fd.get(), POLLIN, 0};
    if (stop_fd() >= 0) fds[count++] = {stop_fd(), POLLIN, 0};
    auto wait = std::chrono::ceil<std::chrono::milliseconds>((exited ? grace_end : deadline) - now);
    if (!exited && !adapter.exit_fd) wait = std::min(wait, std::chrono::milliseconds(5));
    const int ready = ::poll(fds.data(), count, static_cast<int>(wait.count()));
    if (ready < 0) {
      if (errno == EINTR) continue;
      timed_out = !exited;  // cannot watch the child any more: treat as hung
      break;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out_fd) {
        stdout_open = drain_output(out_fd, result.stdout_text, limits.max_stdout_bytes,
                                   result.stdout_truncated);
      } else if (fds[i].fd == err_fd) {
        stderr_open = drain_output(err_fd, stderr_kept);
      }
    }
    // An answer past the cap is a protocol error whatever follows; reading
    // on could outlast the timeout (a 200 MB answer) and grade it TIMEOUT.
    if (result.stdout_truncated && limits.stop_at_stdout_cap) {
      overflowed = true;
      break;
    }
  }
  // Whatever happened, nothing of the reader outlives its run: the whole
  // process group goes, and so do descendants that left it.
  std::size_t leftovers = 0;
  const int wait_status = reap_adapter(adapter, &leftovers);
  if (exited && !interrupted) result.leftover_processes = leftovers;
  result.stderr_text = stderr_kept.text();
  result.wall_ms = elapsed_ms();
  if (interrupted) {
    result.status = ProcessResult::Status::kInterrupted;
  } else if (overflowed) {
    result.status = ProcessResult::Status::kOutputOverflow;
  } else if (timed_out) {
    result.status = ProcessResult::Status::kTimedOut;
  } else {
    set_exit_status(result, wait_status);
  }
  return result;
}

void set_exit_status(ProcessResult& result, int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    result.status = ProcessResult::Status::kSignaled;
    result.term_signal = WTERMSIG(wait_status);
  } else {
    result.status = ProcessResult::Status::kExited;
    result.exit_code = WEXITSTATUS(wait_status);
  }
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    // The signals that stop a conform run (cleanup.h).
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal_number);
  }
}

}  // namespace stguard::conformance
