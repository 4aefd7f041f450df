// conformance/runner/cleanup.cc: the subreaper, leftover sweeps and stop
// requests (see cleanup.h). Processes are found by reading /proc/<pid>/stat
// (parent, process group, state) and /proc/<pid>/environ (the token).
#include "conformance/runner/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "base/file_io.h"

namespace stguard::conformance {
namespace {

std::atomic<int> g_stop_signal{0};
std::atomic<int> g_stop_write_fd{-1};
std::atomic<int> g_stop_read_fd{-1};

extern "C" void on_stop_signal(int signal_number) {
  const int saved_errno = errno;
  int expected = 0;
  g_stop_signal.compare_exchange_strong(expected, signal_number);
  const int fd = g_stop_write_fd.load();
  if (fd >= 0) {
    const char byte = 1;
    ssize_t ignored = ::write(fd, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

// Running adapters: pid -> token.
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<pid_t, std::string>& registry() {
  static std::map<pid_t, std::string> adapters;
  return adapters;
}

struct ProcInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  bool zombie = false;
};

std::optional<ProcInfo> read_stat(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buffer[1024];
  const ssize_t got = ::read(fd.get(), buffer, sizeof buffer - 1);
  if (got <= 0) return std::nullopt;
  const std::string_view text(buffer, static_cast<std::size_t>(got));
  // "pid (comm) S ppid pgrp ...": comm may hold anything, so parse after
  // the last ')'.
  const std::size_t close = text.rfind(')');
  if (close == std::string_view::npos || close + 2 >= text.size()) return std::nullopt;
  ProcInfo info;
  info.pid = pid;
  const char state = text[close + 2];
  info.zombie = state == 'Z' || state == 'X';
  long parent = 0;
  long group = 0;
  const std::string rest(text.substr(close + 3));
  if (std::sscanf(rest.c_str(), "%ld %ld", &parent, &group) != 2) return std::nullopt;
  info.parent = static_cast<pid_t>(parent);
  info.group = static_cast<pid_t>(group);
  return info;
}

std::vector<ProcInfo> all_processes() {
  std::vector<ProcInfo> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    if (std::optional<ProcInfo> info = read_stat(static_cast<pid_t>(pid))) out.push_back(*info);
  }
  ::closedir(dir);
  return out;
}

// The token in the process's initial environment; "" when it has none or
// the environment cannot be read.
std::string token_of(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/environ";
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return {};
  // The token is the first variable of an adapter's environment, but a shell
  // may reorder what it passes on: read a bounded prefix and search it.
  std::string text(256 << 10, '\0');
  std::size_t have = 0;
  while (have < text.size()) {
    const ssize_t got = ::read(fd.get(), text.data() + have, text.size() - have);
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
  }
  text.resize(have);
  const std::string key = std::string(kTokenVariable) + "=";
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\0', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view entry(text.data() + at, end - at);
    if (entry.substr(0, key.size()) == key) return std::string(entry.substr(key.size()));
    at = end + 1;
  }
  return {};
}

void reap_if_child(const ProcInfo& info, pid_t self) {
  if (info.parent == self) ::waitpid(info.pid, nullptr, WNOHANG);
}

}  // namespace

void install_stop_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
      g_stop_read_fd = fds[0];
      g_stop_write_fd = fds[1];
    }
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: waits return EINTR and look again
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP})
      ::sigaction(signal_number, &action, nullptr);
  });
}

int stop_signal() noexcept { return g_stop_signal.load(); }

int stop_fd() noexcept { return g_stop_read_fd.load(); }

bool become_subreaper() {
  static const bool done = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  return done;
}

std::string new_adapter_token() {
  static std::atomic<std::uint64_t> serial{0};
  return std::to_string(::getpid()) + "." + std::to_string(++serial);
}

AdapterRegistration::~AdapterRegistration() {
  if (pid_ <= 0) return;
  const std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(pid_);
}

namespace {

// One fork asked of the forking thread.
struct ForkRequest {
  const std::function<void()>* in_child = nullptr;
  const std::string* token = nullptr;
  pid_t pid = -1;
  int err = 0;
  bool done = false;
};

// The thread that makes every fork (fork_registered), and its queue.
class Forker {
 public:
  static Forker& instance() {
    // Never destroyed: the thread runs until the process ends.
    static Forker* forker = new Forker;
    return *forker;
  }

  void fork(ForkRequest& request) {
    std::unique_lock<std::mutex> lock(mutex_);
    queue_.push_back(&request);
    wake_.notify_all();
    done_.wait(lock, [&] { return request.done; });
  }

 private:
  Forker() {
    // The thread takes no signal: the stop handlers run on the threads that
    // wait for adapters, and each child unblocks all before it runs.
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    std::thread([this] { loop(); }).detach();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }

  void loop() {
    const pid_t parent = ::getpid();
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      ForkRequest& request = *queue_.front();
      queue_.erase(queue_.begin());
      {
        const std::lock_guard<std::mutex> registry_lock(registry_mutex());
        request.pid = ::fork();
        request.err = errno;
        if (request.pid == 0) {
          // Dies with the runner; if the runner is already gone (it died
          // before prctl), at once.
          ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
          if (::getppid() != parent) ::_exit(127);
          sigset_t none;
          sigemptyset(&none);
          ::sigprocmask(SIG_SETMASK, &none, nullptr);
          (*request.in_child)();
          ::_exit(127);
        }
        if (request.pid > 0) registry()[request.pid] = *request.token;
      }
      request.done = true;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<ForkRequest*> queue_;
};

}  // namespace

pid_t AdapterRegistration::fork_registered(const std::string& token,
                                           const std::function<void()>& in_child) {
  ForkRequest request;
  request.in_child = &in_child;
  request.token = &token;
  Forker::instance().fork(request);
  if (request.pid > 0) {
    pid_ = request.pid;
    token_ = token;
  }
  errno = request.err;
  return request.pid;
}

std::size_t kill_leftovers(pid_t group, const std::string& token) {
  const pid_t self = ::getpid();
  std::set<pid_t> counted;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  // Look before killing: a process killed first would be a zombie by the
  // time it is looked at, and not counted.
  while (true) {
    std::vector<ProcInfo> targets;
    {
      // Under the lock: an adapter being forked now is either registered
      // already or not yet forked.
      const std::lock_guard<std::mutex> lock(registry_mutex());
      std::set<std::string> running_tokens;
      for (const auto& [pid, running] : registry()) running_tokens.insert(running);
      for (const ProcInfo& info : all_processes()) {
        if (info.pid == group || info.pid == self) continue;
        bool ours = info.group == group;
        if (!ours && info.parent == self && registry().count(info.pid) == 0) {
          const std::string owner = token_of(info.pid);
          ours = owner == token || running_tokens.count(owner) == 0;
        }
        if (ours) targets.push_back(info);
      }
    }
    for (const ProcInfo& info : targets) {
      if (!info.zombie) {
        counted.insert(info.pid);
        ::kill(info.pid, SIGKILL);
      }
    }
    // The main process too, when it is still running (a timeout, a stop).
    ::kill(-group, SIGKILL);
    if (targets.empty()) break;
    for (const ProcInfo& info : targets) reap_if_child(info, self);
    if (std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return counted.size();
}

std::size_t kill_all_children() {
  const pid_t self = ::getpid();
  std::set<pid_t> killed;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    std::vector<ProcInfo> children;
    for (const ProcInfo& info : all_processes()) {
      if (info.parent == self) children.push_back(info);
    }
    if (children.empty()) break;
    for (const ProcInfo& info : children) {
      if (!info.zombie) {
        killed.insert(info.pid);
        // A group leader takes its group with it; the rest come back here
        // through the subreaper on the next pass.
        if (info.group == info.pid) ::kill(-info.pid, SIGKILL);
        ::kill(info.pid, SIGKILL);
      }
      ::waitpid(info.pid, nullptr, WNOHANG);
    }
    if (std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return killed.size();
}

}  // namespace stguard::conformance
