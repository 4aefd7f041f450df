// tests/hostile/cli_fuzz/runner.cc: run_line (runner.h).
#include "tests/hostile/cli_fuzz/runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/files.h"

extern char** environ;

namespace stguard_cli_fuzz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct ProcInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t session = 0;
  char state = '?';
};

// Every process whose parent is `parent`, from /proc/PID/stat ("PID (COMM)
// STATE PPID ...", COMM may hold blanks and parentheses: the last ')' ends it).
std::vector<ProcInfo> children_of(pid_t parent) {
  std::vector<ProcInfo> out;
  const std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  if (proc == nullptr) return out;
  while (const dirent* e = ::readdir(proc.get())) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string text = stguard_test::read_text(std::string("/proc/") + e->d_name + "/stat");
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos || close + 4 > text.size()) continue;
    ProcInfo info;
    info.pid = static_cast<pid_t>(std::atol(e->d_name));
    std::istringstream rest(text.substr(close + 2));
    int ppid = 0;
    int group = 0;
    int session = 0;
    rest >> info.state >> ppid >> group >> session;
    info.parent = ppid;
    info.session = session;
    if (info.parent == parent) out.push_back(info);
  }
  return out;
}

std::string command_line_of(pid_t pid) {
  std::string text = stguard_test::read_text("/proc/" + std::to_string(pid) + "/cmdline");
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return std::to_string(pid) + ": " + text;
}

void reap_zombies() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// A reader for a FIFO named as an output, so that a write to it does not
// wait forever; released at the end of the run whether or not stguard
// opened it.
class FifoDrain {
 public:
  explicit FifoDrain(fs::path path) : path_(std::move(path)) {
    thread_ = std::thread([this] {
      const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        char buffer[4096];
        while (::read(fd, buffer, sizeof buffer) > 0) {
        }
        ::close(fd);
      }
      done_ = true;
    });
  }
  ~FifoDrain() {
    // A reader still waiting in open() is let go by a writer that opens and
    // closes at once.
    while (!done_) {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    thread_.join();
  }
  FifoDrain(const FifoDrain&) = delete;
  FifoDrain& operator=(const FifoDrain&) = delete;

 private:
  fs::path path_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

void drain(int fd, std::string& into) {
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return;
    into.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

bool become_subreaper() {
  static const bool done = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  return done;
}

std::string expand_word(const Session& session, const std::string& word) {
  std::string out = word;
  const std::pair<std::string, std::string> stand_ins[] = {
      {"{stguard}", "'" + session.tools().stguard + "'"},
      {"{fake}", "'" + session.tools().fake_reader + "'"},
  };
  for (const auto& [from, to] : stand_ins) {
    for (std::size_t at; (at = out.find(from)) != std::string::npos;)
      out.replace(at, from.size(), to);
  }
  return out;
}

RunResult run_line(const Session& session, const fs::path& run_dir, const CommandLine& line,
                   const std::vector<fs::path>& fifos, std::chrono::milliseconds time_limit) {
  RunResult result;
  std::vector<std::string> args = {session.tools().stguard};
  for (const std::string& w : line.words) args.push_back(expand_word(session, w));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("STGUARD_DATA_DIR=", 0) == 0 || entry.rfind("TMPDIR=", 0) == 0 ||
        entry.rfind("HOME=", 0) == 0) {
      continue;
    }
    env.push_back(entry);
  }
  env.push_back("STGUARD_DATA_DIR=" + session.data_dir().string());
  env.push_back("TMPDIR=" + session.tmp_dir().string());
  env.push_back("HOME=" + session.home_dir().string());
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  const fs::path err_path = run_dir.parent_path() / "stderr-of-run";
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<std::unique_ptr<FifoDrain>> drains;
  for (const fs::path& fifo : fifos) drains.push_back(std::make_unique<FifoDrain>(fifo));

  const Clock::time_point start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s = 1; s < NSIG; ++s) {
      if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
    }
    ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_fd, 2);
    if (::chdir(run_dir.c_str()) != 0) ::_exit(126);
    if (line.as_nobody) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNogroup) != 0 || ::setuid(kNobody) != 0) {
        ::_exit(125);
      }
    }
    ::umask(022);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_fd);
  ::close(null_fd);
  if (pid < 0) {
    ::close(out_pipe[0]);
    return result;
  }
  result.started = true;
  ::setpgid(pid, pid);
  int out_fd = out_pipe[0];
  ::fcntl(out_fd, F_SETFL, O_NONBLOCK);
  bool disturbed = line.disturb == Disturbance::kNone;
  // stguard's children when it was killed by SIGKILL (see RunResult).
  std::set<pid_t> killed_parent_of;
  int status = 0;
  while (true) {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (!disturbed && elapsed.count() >= line.delay_ms) {
      disturbed = true;
      const auto send = [&](pid_t to, int signal_number) {
        ::kill(to, signal_number);
        result.sent.insert(signal_number);
      };
      switch (line.disturb) {
        case Disturbance::kNone:
          break;
        case Disturbance::kInterrupt:
          send(pid, SIGINT);
          break;
        case Disturbance::kTerminate:
          send(pid, SIGTERM);
          break;
        case Disturbance::kHangUp:
          send(pid, SIGHUP);
          break;
        case Disturbance::kGroupInterrupt:
          send(-pid, SIGINT);
          break;
        case Disturbance::kKill:
          // The adapters it started share its session; an orphan it took
          // in (it is their subreaper) that left for a session of its own
          // does not die with it, and is not counted (see RunResult).
          for (const ProcInfo& child : children_of(pid)) {
            if (child.session == ::getsid(pid)) killed_parent_of.insert(child.pid);
          }
          send(pid, SIGKILL);
          break;
        case Disturbance::kKillChild: {
          // An adapter, once there is one (looked for again on each turn).
          // Not a clone of stguard itself (same command line): that is the
          // sanitizer's leak checker stopping the world at exit, not an
          // adapter, and killing it leaves stguard waiting for it forever.
          const std::string own = command_line_of(pid);
          pid_t adapter = 0;
          for (const ProcInfo& child : children_of(pid)) {
            const std::string its = command_line_of(child.pid);
            if (its.substr(its.find(':')) != own.substr(own.find(':'))) adapter = child.pid;
          }
          if (adapter == 0) {
            disturbed = false;
          } else {
            ::kill(adapter, SIGKILL);
          }
          break;
        }
        case Disturbance::kCloseStdout:
          ::close(out_fd);
          out_fd = -1;
          result.stdout_closed = true;
          break;
      }
    }
    if (elapsed > time_limit) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      result.timed_out = true;
    }
    if (out_fd >= 0) {
      pollfd p{out_fd, POLLIN, 0};
      ::poll(&p, 1, 20);
      drain(out_fd, result.out);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const pid_t waited = ::waitpid(pid, &status, WNOHANG);
    if (waited == pid) break;
    if (waited < 0 && errno != EINTR) break;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (out_fd >= 0) {
    drain(out_fd, result.out);
    ::close(out_fd);
  }
  // What stguard started and left: reparented here. Those that are still
  // dying (killed by stguard on its way out, or by the kernel at its death)
  // get a moment.
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(3);
  std::vector<ProcInfo> alive;
  while (true) {
    reap_zombies();
    alive.clear();
    for (const ProcInfo& info : children_of(::getpid())) {
      if (info.state != 'Z') alive.push_back(info);
    }
    if (alive.empty() || Clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool sigkilled = result.sent.count(SIGKILL) != 0;
  for (const ProcInfo& info : alive) {
    if (!sigkilled || killed_parent_of.count(info.pid) != 0) {
      result.survivors.push_back(command_line_of(info.pid));
    }
  }
  // Killed, and what they started in turn (reparented here as each parent
  // dies), until none is left: nothing of this run reaches the next.
  for (int round = 0; !alive.empty() && round < 100; ++round) {
    for (const ProcInfo& info : alive) ::kill(info.pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    reap_zombies();
    alive.clear();
    for (const ProcInfo& info : children_of(::getpid())) {
      if (info.state != 'Z') alive.push_back(info);
    }
  }
  drains.clear();
  std::ifstream err(err_path, std::ios::binary);
  result.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return result;
}

}  // namespace stguard_cli_fuzz
