// tests/run_cli.h: runs the built stguard command (STGUARD_CLI_PATH) with
// arguments, stdout and stderr captured, for the end-to-end tests.
#ifndef STGUARD_TESTS_RUN_CLI_H_
#define STGUARD_TESTS_RUN_CLI_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

extern char** environ;

namespace stguard_test {

struct CliRun {
  int exit_code = -1;  // the exit status, or -1 when killed by a signal
  std::string out;
  std::string err;
};

inline std::string read_captured(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `stguard args...` in this process's environment with `env` (NAME,
// value pairs) set on top; a spawn or wait failure is a test failure.
inline CliRun run_cli(const std::vector<std::string>& args,
                      const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const TempDir capture;
  const std::string out_path = capture.file("stdout");
  const std::string err_path = capture.file("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
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

  CliRun run;
  pid_t pid = 0;
  const int spawn_error =
      posix_spawn(&pid, STGUARD_CLI_PATH, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    ADD_FAILURE() << "posix_spawn failed: " << spawn_error;
    return run;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid failed";
      return run;
    }
  }
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  run.out = read_captured(out_path);
  run.err = read_captured(err_path);
  return run;
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_RUN_CLI_H_
