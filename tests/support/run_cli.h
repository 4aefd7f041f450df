// tests/run_cli.h: runs the built stguard command (STGUARD_CLI_PATH) with
// arguments, stdout and stderr captured, for the end-to-end tests.
#ifndef STGUARD_TESTS_RUN_CLI_H_
#define STGUARD_TESTS_RUN_CLI_H_

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace stguard_test {

struct CliRun {
  int exit_code = -1;  // the exit status, or -1 when killed by a signal
  std::string out;
  std::string err;
};

// `stguard args...` started in this process's environment with `env`
// (NAME, value pairs) set on top, stdout and stderr captured; wait() collects
// it. With `pass_fd` (FD, NUMBER), the command gets FD as descriptor NUMBER,
// for a test that talks to it while it runs. A spawn or wait failure is a
// test failure.
class StartedCli {
 public:
  StartedCli(const std::vector<std::string>& args,
             const std::vector<std::pair<std::string, std::string>>& env = {},
             std::pair<int, int> pass_fd = {-1, -1})
      : out_path_(capture_.file("stdout")), err_path_(capture_.file("stderr")) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    // dup2 leaves the copy without close-on-exec: the command inherits it.
    if (pass_fd.first >= 0) {
      posix_spawn_file_actions_adddup2(&actions, pass_fd.first, pass_fd.second);
    }
    std::vector<std::string> storage = {STGUARD_CLI_PATH};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      bool overridden = false;
      for (const auto& [name, value] : env) overridden |= entry.rfind(name + "=", 0) == 0;
      if (!overridden) env_storage.push_back(entry);
    }
    for (const auto& [name, value] : env) env_storage.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& s : env_storage) envp.push_back(s.data());
    envp.push_back(nullptr);

    const int spawn_error =
        posix_spawn(&pid_, STGUARD_CLI_PATH, &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawn_error != 0) {
      pid_ = -1;
      ADD_FAILURE() << "posix_spawn failed: " << spawn_error;
    }
  }
  StartedCli(const StartedCli&) = delete;
  StartedCli& operator=(const StartedCli&) = delete;
  ~StartedCli() {
    if (pid_ > 0) static_cast<void>(wait());
  }

  bool started() const { return pid_ > 0; }

  // Waits for the command to end: its exit status and what it printed.
  CliRun wait() {
    CliRun run;
    if (pid_ <= 0) return run;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) {
        ADD_FAILURE() << "waitpid failed";
        pid_ = -1;
        return run;
      }
    }
    pid_ = -1;
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    run.out = read_text(out_path_);
    run.err = read_text(err_path_);
    return run;
  }

 private:
  const TempDir capture_;
  const std::string out_path_;
  const std::string err_path_;
  pid_t pid_ = -1;
};

// Runs `stguard args...` to its end (StartedCli, then wait).
inline CliRun run_cli(const std::vector<std::string>& args,
                      const std::vector<std::pair<std::string, std::string>>& env = {}) {
  return StartedCli(args, env).wait();
}

// How run_cli_as runs the command, beyond run_cli's environment.
struct CliRunOptions {
  std::vector<std::pair<std::string, std::string>> env = {};
  // Run as an unprivileged user (nobody) when the test runs as root, so that
  // permission checks apply as to ordinary users (and a regression cannot
  // harm the machine's own files).
  bool unprivileged = false;
  // When non-zero: RLIMIT_FSIZE in bytes, with SIGXFSZ ignored, so that
  // writing a regular file past it fails with EFBIG, as on a full disk.
  rlim_t file_size_limit = 0;
  // With file_size_limit: leave SIGXFSZ at its default, as a shell's
  // `ulimit -f` does, so that the command must ignore it itself.
  bool default_sigxfsz = false;
  // When non-zero: RLIMIT_NOFILE (soft and hard), as `ulimit -n` sets it.
  rlim_t open_files_limit = 0;
  // stdout goes here instead of a capture file (e.g. "/dev/full"); out is
  // then empty.
  std::string stdout_path = {};
  // stdout is a pipe nobody reads, closed before the command starts
  // (`stguard ... | true`); out is then empty.
  bool stdout_closed = false;
  std::string working_dir = {};  // "" for this process's
};

// As run_cli, with the options above (fork and exec, so that the child can
// drop privileges and set limits first). exit_code is -1 and `signal` set
// when a signal ended the command.
struct CliRunAs : CliRun {
  int signal = 0;
};
inline CliRunAs run_cli_as(const std::vector<std::string>& args, const CliRunOptions& options) {
  const TempDir capture;
  if (options.unprivileged) {
    std::filesystem::permissions(capture.path(), std::filesystem::perms::all);
  }
  const std::string out_path =
      options.stdout_path.empty() ? capture.file("stdout") : options.stdout_path;
  const std::string err_path = capture.file("stderr");
  std::vector<std::string> storage = {STGUARD_CLI_PATH};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  CliRunAs run;
  int closed_pipe[2] = {-1, -1};
  if (options.stdout_closed) {
    if (::pipe2(closed_pipe, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe failed";
      return run;
    }
    ::close(closed_pipe[0]);  // the reader went away
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return run;
  }
  if (pid == 0) {
    if (!options.working_dir.empty() && ::chdir(options.working_dir.c_str()) != 0) ::_exit(125);
    const int out = options.stdout_closed
                        ? closed_pipe[1]
                        : ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (options.unprivileged && ::geteuid() == 0) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) {
        ::_exit(124);
      }
    }
    if (options.file_size_limit != 0) {
      // Ignored stays ignored across exec; default is what a shell gives.
      ::signal(SIGXFSZ, options.default_sigxfsz ? SIG_DFL : SIG_IGN);
      const struct rlimit limit { options.file_size_limit, options.file_size_limit };
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(123);
    }
    if (options.open_files_limit != 0) {
      const struct rlimit limit { options.open_files_limit, options.open_files_limit };
      if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(122);
    }
    ::signal(SIGPIPE, SIG_DFL);  // as a shell starts a command, whatever the test has
    for (const auto& [name, value] : options.env) ::setenv(name.c_str(), value.c_str(), 1);
    ::execv(STGUARD_CLI_PATH, argv.data());
    ::_exit(127);
  }
  if (closed_pipe[1] >= 0) ::close(closed_pipe[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid failed";
      return run;
    }
  }
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  if (options.stdout_path.empty() && !options.stdout_closed) run.out = read_text(out_path);
  run.err = read_text(err_path);
  return run;
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_RUN_CLI_H_
