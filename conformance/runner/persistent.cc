// conformance/runner/persistent.cc: the persistent adapter mode (persistent.h).
#include "conformance/runner/persistent.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>
#include <utility>

namespace stguard::conformance {
namespace {

using Clock = std::chrono::steady_clock;

// Writes all of `text` to the adapter's stdin. A dead adapter's pipe raises
// SIGPIPE, which would end stguard: it is blocked on this thread for the
// write, and a SIGPIPE left pending by it is consumed. False on any error.
bool write_all(int fd, std::string_view text) {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  bool ok = true;
  bool broken_pipe = false;
  while (!text.empty()) {
    const ssize_t wrote = ::write(fd, text.data(), text.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      broken_pipe = errno == EPIPE;
      ok = false;
      break;
    }
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
  if (broken_pipe && sigismember(&previous, SIGPIPE) == 0) {
    const timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

bool only_blanks(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

PersistentReader::PersistentReader(std::vector<std::string> argv, std::filesystem::path working_dir,
                                   ProcessLimits limits)
    : argv_(std::move(argv)), working_dir_(std::move(working_dir)), limits_(limits) {}

PersistentReader::~PersistentReader() { stop(); }

void PersistentReader::stop() {
  if (adapter_.pid != 0) reap_adapter(adapter_, nullptr);
}

ProcessResult PersistentReader::answer(const std::filesystem::path& file) {
  ProcessResult result;
  const Clock::time_point start = Clock::now();
  const std::string path = std::filesystem::absolute(file).string();
  if (path.find('\n') != std::string::npos) {
    result.spawn_error = "a path holding a newline cannot be sent to a persistent adapter";
    return result;
  }
  // An adapter that ended on its own after its last answer is replaced
  // without blaming this file. It may also end just after this check, with
  // the path unread: a clean exit without a byte of output is therefore
  // asked again once, in a fresh process, and only a second one is graded.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (stop_signal() != 0) {
      result.status = ProcessResult::Status::kInterrupted;
      return result;
    }
    if (adapter_.pid != 0 && adapter_exited(adapter_)) stop();
    if (adapter_.pid == 0) {
      adapter_ = spawn_adapter(argv_, working_dir_, limits_, /*with_stdin=*/true);
      if (adapter_.pid == 0) {
        result.spawn_error = adapter_.spawn_error;
        return result;
      }
      ++starts_;
    }
    // A failed write means the adapter is gone: wait_for_answer() sees the
    // exit and grades it as this file's.
    (void)write_all(adapter_.stdin_write.get(), path + "\n");
    result = wait_for_answer(start);
    const bool ended_silently = result.status == ProcessResult::Status::kExited &&
                                result.exit_code == 0 && result.stdout_text.empty();
    if (!ended_silently) break;
  }
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return result;
}

ProcessResult PersistentReader::wait_for_answer(Clock::time_point start) {
  ProcessResult result;
  HeadTail stderr_kept(limits_.max_stderr_bytes);
  result.status = read_until_answer(start, result, stderr_kept);
  result.stderr_text = stderr_kept.text();
  return result;
}

ProcessResult::Status PersistentReader::read_until_answer(Clock::time_point start,
                                                          ProcessResult& result,
                                                          HeadTail& stderr_kept) {
  using Status = ProcessResult::Status;
  result.pid = adapter_.pid;
  const int out_fd = adapter_.stdout_read.get();
  const int err_fd = adapter_.stderr_read.get();
  const Clock::time_point deadline = start + limits_.timeout;
  bool stdout_open = true;
  bool stderr_open = true;
  std::size_t searched = 0;  // bytes of stdout_text known to hold no newline
  while (true) {
    if (stop_signal() != 0) {
      stop();
      return Status::kInterrupted;
    }
    if (std::size_t newline = result.stdout_text.find('\n', searched);
        newline != std::string::npos) {
      // What the adapter wrote together with its answer belongs to this
      // file too: one more look without waiting.
      pollfd more{out_fd, POLLIN, 0};
      if (::poll(&more, 1, 0) > 0) {
        drain_output(out_fd, result.stdout_text, limits_.max_stdout_bytes, result.stdout_truncated);
      }
      // Output beyond the answer line cannot be told apart from the next
      // file's answer: the adapter is restarted, and grade_case sees it.
      if (result.stdout_truncated ||
          !only_blanks(std::string_view(result.stdout_text).substr(newline + 1))) {
        stop();
      }
      if (result.stdout_truncated) return Status::kOutputOverflow;
      result.exit_code = 0;
      return Status::kExited;
    }
    searched = result.stdout_text.size();
    // Past the cap without a newline: graded as over-long output.
    if (result.stdout_truncated) {
      stop();
      return Status::kOutputOverflow;
    }
    if (adapter_exited(adapter_)) {
      drain_after_exit(result, stderr_kept);
      set_exit_status(result, reap_adapter(adapter_, nullptr));
      return result.stdout_truncated ? Status::kOutputOverflow : result.status;
    }
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      stop();
      return Status::kTimedOut;
    }
    std::array<pollfd, 4> fds{};
    nfds_t count = 0;
    if (stdout_open) fds[count++] = {out_fd, POLLIN, 0};
    if (stderr_open) fds[count++] = {err_fd, POLLIN, 0};
    if (adapter_.exit_fd) fds[count++] = {adapter_.exit_fd.get(), POLLIN, 0};
    if (stop_fd() >= 0) fds[count++] = {stop_fd(), POLLIN, 0};
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    if (!adapter_.exit_fd) wait = std::min(wait, std::chrono::milliseconds(5));
    if (::poll(fds.data(), count, static_cast<int>(wait.count())) < 0 && errno != EINTR) {
      stop();  // cannot watch the adapter any more: treat as hung
      return Status::kTimedOut;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out_fd) {
        stdout_open = drain_output(out_fd, result.stdout_text, limits_.max_stdout_bytes,
                                   result.stdout_truncated);
      } else if (fds[i].fd == err_fd) {
        stderr_open = drain_output(err_fd, stderr_kept);
      }
    }
  }
}

void PersistentReader::drain_after_exit(ProcessResult& result, HeadTail& stderr_kept) {
  const Clock::time_point grace_end = Clock::now() + kPipeGrace;
  bool stdout_open = true;
  bool stderr_open = true;
  while (stdout_open || stderr_open) {
    const Clock::time_point now = Clock::now();
    if (now >= grace_end) {
      result.output_held_open = true;
      return;
    }
    std::array<pollfd, 2> fds{};
    nfds_t count = 0;
    if (stdout_open) fds[count++] = {adapter_.stdout_read.get(), POLLIN, 0};
    if (stderr_open) fds[count++] = {adapter_.stderr_read.get(), POLLIN, 0};
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(grace_end - now);
    if (::poll(fds.data(), count, static_cast<int>(wait.count())) < 0 && errno != EINTR) return;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == adapter_.stdout_read.get()) {
        stdout_open = drain_output(fds[i].fd, result.stdout_text, limits_.max_stdout_bytes,
                                   result.stdout_truncated);
        // Past the cap the answer is a protocol error: nothing more to read.
        if (result.stdout_truncated) return;
      } else {
        stderr_open = drain_output(fds[i].fd, stderr_kept);
      }
    }
  }
}

}  // namespace stguard::conformance
