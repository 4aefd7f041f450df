// tests/conformance/cleanup_test.cc: nothing an adapter starts outlives the
// run (conformance/runner/cleanup.h): descendants that called setsid, output
// pipes held open by a background child, and SIGINT / SIGTERM / SIGHUP to
// `stguard conform` while adapters run. Leftovers are found by scanning
// /proc for processes whose arguments carry a number unique to the test.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "conformance/model/manifest.h"
#include "conformance/runner/runner.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace {

namespace conf = stguard::conformance;
using conf::Grade;

using conformance_test::kCorpusDir;

// A number no other process on the machine has among its arguments.
std::string unique_number(int which) {
  return std::to_string(700000000 + (::getpid() % 100000) * 10 + which);
}

// The pids of processes with `arg` as one of their arguments.
std::vector<pid_t> processes_with_arg(const std::string& arg) {
  std::vector<pid_t> found;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    // A process that exits while it is read fails the read with ESRCH, which
    // libstdc++'s filebuf throws as ios_base::failure: it is simply gone.
    std::string cmdline;
    try {
      std::ifstream in(std::string("/proc/") + entry->d_name + "/cmdline", std::ios::binary);
      cmdline.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure&) {
      continue;
    }
    std::size_t at = 0;
    while (at < cmdline.size()) {
      std::size_t stop = cmdline.find('\0', at);
      if (stop == std::string::npos) stop = cmdline.size();
      if (cmdline.compare(at, stop - at, arg) == 0) {
        // A zombie has an empty cmdline, so this one is alive.
        found.push_back(static_cast<pid_t>(pid));
        break;
      }
      at = stop + 1;
    }
  }
  ::closedir(dir);
  return found;
}

// Kills what a failing test left, so that one failure does not leak sleeps.
void kill_all_with_arg(const std::string& arg) {
  for (pid_t pid : processes_with_arg(arg)) ::kill(pid, SIGKILL);
}

std::string write_script(const stguard_test::TempDir& dir, const std::string& name,
                         const std::string& body) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

// A reject case of the committed corpus, which a `{"verdict":"reject"}`
// answer passes.
conf::Case a_reject_case() {
  const auto manifest = conf::read_manifest(kCorpusDir / "manifest.json");
  if (!manifest) {
    ADD_FAILURE() << manifest.error().message();
    return {};
  }
  for (const conf::Case& c : manifest->cases) {
    if (c.verdict == conf::Verdict::kReject) return c;
  }
  ADD_FAILURE() << "no reject case";
  return {};
}

conf::CaseResult run_script(const std::string& script, std::chrono::milliseconds timeout) {
  conf::ReaderSpec spec;
  spec.name = "script";
  spec.command = {script};
  spec.working_dir = std::filesystem::current_path();
  conf::RunOptions options;
  options.limits.timeout = timeout;
  options.limits.address_space_bytes = 0;
  const std::vector<conf::Case> cases = {a_reject_case()};
  conf::ReaderRun run = conf::run_reader(spec, kCorpusDir, cases, options);
  EXPECT_EQ(run.results.size(), 1u);
  return run.results.empty() ? conf::CaseResult{} : run.results.front();
}

TEST(ConformCleanup, SetsidChildLeftAfterACorrectAnswerIsKilledAndNoted) {
  stguard_test::TempDir dir;
  const std::string number = unique_number(1);
  const std::string script = write_script(dir, "adapter.sh",
                                          "setsid sleep " + number +
                                              " </dev/null >/dev/null 2>&1 &\n"
                                              // Time for the child to leave the process group, so
                                              // that only the subreaper can find it.
                                              "sleep 0.3\n"
                                              "echo '{\"verdict\":\"reject\",\"error\":\"no\"}'\n");
  const conf::CaseResult result = run_script(script, std::chrono::seconds(20));
  EXPECT_EQ(result.grade, Grade::kPass) << result.detail;
  EXPECT_EQ(result.leftover_processes, 1u) << result.detail;
  EXPECT_NE(result.detail.find("left 1 process running after it exited (killed)"),
            std::string::npos)
      << result.detail;
  EXPECT_TRUE(processes_with_arg(number).empty());
  kill_all_with_arg(number);
}

TEST(ConformCleanup, BackgroundChildHoldingStdoutDoesNotDelayTheGrade) {
  stguard_test::TempDir dir;
  const std::string number = unique_number(2);
  const std::string script = write_script(
      dir, "adapter.sh",
      "sleep " + number + " &\necho '{\"verdict\":\"reject\",\"error\":\"no\"}'\nexit 0\n");
  // Before the grace period, this waited for the timeout and was TIMEOUT.
  const conf::CaseResult result = run_script(script, std::chrono::seconds(10));
  EXPECT_EQ(result.grade, Grade::kPass) << result.detail;
  EXPECT_EQ(result.leftover_processes, 1u) << result.detail;
  EXPECT_NE(result.detail.find("held its output open"), std::string::npos) << result.detail;
  EXPECT_TRUE(processes_with_arg(number).empty());
  kill_all_with_arg(number);
}

// `stguard conform` with two sleeping adapters at a time, each of which also
// has a setsid'd child: a stop signal kills them all, and stguard dies of the
// signal itself.
class ConformStopSignal : public ::testing::TestWithParam<int> {};

TEST_P(ConformStopSignal, KillsEveryAdapterAndDescendant) {
  const int signal_number = GetParam();
  stguard_test::TempDir dir;
  const std::string sleeper = unique_number(10 + signal_number);
  const std::string escaper = unique_number(50 + signal_number);
  const std::string script = write_script(
      dir, "adapter.sh",
      "setsid sleep " + escaper + " </dev/null >/dev/null 2>&1 &\nexec sleep " + sleeper + "\n");
  std::vector<std::string> storage = {
      STGUARD_CLI_PATH, "conform", "-q",      "--adapter",        script, "--case", "*", "-j", "2",
      "--timeout",      "60",      "--jsonl", dir.file("r.jsonl")};
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string err_path = dir.file("stderr");
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  // The test runner may ignore or block signals; stguard must start with the
  // defaults, as from a shell.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, STGUARD_CLI_PATH, &actions, &attributes, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);

  // Two adapters and their setsid'd children are running.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((processes_with_arg(sleeper).size() < 2 || processes_with_arg(escaper).size() < 2) &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(processes_with_arg(sleeper).size(), 2u);
  EXPECT_EQ(processes_with_arg(escaper).size(), 2u);

  ASSERT_EQ(::kill(pid, signal_number), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), signal_number);
  }

  // stguard reaped everything before it died: nothing is left, now.
  EXPECT_EQ(processes_with_arg(sleeper).size(), 0u);
  EXPECT_EQ(processes_with_arg(escaper).size(), 0u);
  std::ifstream err_in(err_path);
  const std::string err((std::istreambuf_iterator<char>(err_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("stopped by SIG" + std::string(sigabbrev_np(signal_number)) + " after "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("the run is incomplete, and the reports say so"), std::string::npos) << err;
  // The report is there, with no case (none finished) and the stop.
  std::ifstream jsonl_in(dir.file("r.jsonl"));
  const std::string jsonl((std::istreambuf_iterator<char>(jsonl_in)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(jsonl.find("\"interrupted\":true"), std::string::npos) << jsonl;
  EXPECT_EQ(jsonl.find("\"case\":"), std::string::npos) << jsonl;
  kill_all_with_arg(sleeper);
  kill_all_with_arg(escaper);
}

INSTANTIATE_TEST_SUITE_P(Signals, ConformStopSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return std::string(sigabbrev_np(param_info.param));
                         });

}  // namespace
