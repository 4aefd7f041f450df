// tests/hostile/cli_fuzz_test.cc: the command line and the file system,
// fuzzed for harm.
//
// Command lines are drawn from stguard's own argument table (`stguard help
// --arguments`), pointed at a sandbox of the shapes a user's file system has
// (cli_fuzz/sandbox.h), run as root or as nobody, interrupted, killed or cut
// off from their stdout at random moments (cli_fuzz/runner.h), and after
// each run the invariants of cli_fuzz/invariants.h are checked against
// snapshots of everything the run could touch. A broken invariant is
// reported with the command line as one JSON line: added to
// cli_fuzz_regressions.jsonl, it is replayed by every run of this test.
//
// In the test command the campaign is bounded; longer on demand:
//   export STGUARD_CLI_FUZZ_SECONDS=600 STGUARD_CLI_FUZZ_SEED=7
//   build/asan-ubsan/tests/hostile/stguard_cli_fuzz_tests
// STGUARD_CLI_FUZZ_RUNS=N stops after N command lines instead;
// STGUARD_CLI_FUZZ_VERBOSE=1 prints every line with its outcome;
// STGUARD_CLI_FUZZ_STGUARD=PATH fuzzes another build of the command.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "tests/hostile/cli_fuzz/argument_table.h"
#include "tests/hostile/cli_fuzz/command_line.h"
#include "tests/hostile/cli_fuzz/invariants.h"
#include "tests/hostile/cli_fuzz/runner.h"
#include "tests/hostile/cli_fuzz/sandbox.h"

namespace {

namespace fs = std::filesystem;
using namespace stguard_cli_fuzz;

// A run may take this long (a sanitizer build, a conform run with a hung
// adapter under --timeout 3) before it counts as a hang.
constexpr std::chrono::milliseconds kTimeLimit{90'000};

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoull(text, nullptr, 10);
}

// The session shared by the tests of this binary: built once, removed at
// exit (its tmpfs unmounted first).
struct Fixture {
  Fixture() {
    become_subreaper();
    work = fs::temp_directory_path() / ("stguard_cli_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(work);
    table = read_argument_table(STGUARD_CLI_PATH, &table_error);
    // The command under test: this build's, or another build of stguard
    // (STGUARD_CLI_FUZZ_STGUARD: a release build, an installed one, an older
    // commit's). The argument table always comes from this build's.
    const char* other = std::getenv("STGUARD_CLI_FUZZ_STGUARD");
    session = std::make_unique<Session>(
        work, Tools{other != nullptr && *other != '\0' ? other : STGUARD_CLI_PATH,
                    STGUARD_FAKE_READER_PATH, STGUARD_SOURCE_DIR, STGUARD_CLI_PATH});
  }
  ~Fixture() {
    session.reset();
    std::error_code ec;
    fs::remove_all(work, ec);
  }
  fs::path work;
  ArgumentTable table;
  std::string table_error;
  std::unique_ptr<Session> session;
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

struct Outcome {
  std::vector<std::string> broken;
  RunResult run;
  Parsed parsed;
};

Outcome run_once(Fixture& f, const CommandLine& line, std::uint64_t n) {
  Outcome o;
  const fs::path run_dir = f.session->fresh_run_dir(n);
  o.parsed = parse_words(f.table, line.words);
  const Expectations expected = expect(*f.session, run_dir, o.parsed, line.as_nobody);
  const Snapshot before = f.session->snapshot(run_dir);
  o.run = run_line(*f.session, run_dir, line, expected.fifos, kTimeLimit);
  const Snapshot after = f.session->snapshot(run_dir);
  o.broken = check_invariants(expected, o.parsed, before, after, o.run);
  return o;
}

std::string outcome_text(const RunResult& run) {
  if (run.timed_out) return "timed out";
  if (!run.exited) return "killed by signal " + std::to_string(run.signal);
  return "exit " + std::to_string(run.exit_code);
}

void report(const CommandLine& line, const Outcome& o) {
  std::string text = "broken invariants, " + outcome_text(o.run) + ":\n";
  for (const std::string& b : o.broken) text += "  - " + b + "\n";
  text += "  stderr: " + o.run.err.substr(0, 600) + "\n";
  text += "  replay (tests/hostile/cli_fuzz_regressions.jsonl):\n" + line.to_json() + "\n";
  ADD_FAILURE() << text;
}

bool ready(Fixture& f) {
  if (!f.table_error.empty()) {
    ADD_FAILURE() << "the argument table: " << f.table_error;
    return false;
  }
  if (!f.session->ok()) {
    ADD_FAILURE() << "the sandbox: " << f.session->error();
    return false;
  }
  return true;
}

// Every line that once broke an invariant keeps them now.
TEST(CliFuzz, RegressionLinesKeepEveryInvariant) {
  Fixture& f = fixture();
  if (!ready(f)) return;
  std::ifstream in(fs::path(STGUARD_SOURCE_DIR) / "tests/hostile/cli_fuzz_regressions.jsonl");
  ASSERT_TRUE(in) << "no cli_fuzz_regressions.jsonl";
  std::size_t lines = 0;
  std::uint64_t n = 0;
  for (std::string text; std::getline(in, text);) {
    if (text.empty() || text[0] == '#') continue;
    CommandLine line;
    std::string error;
    ASSERT_TRUE(CommandLine::from_json(text, &line, &error)) << error;
    if (line.as_nobody && !f.session->root()) continue;
    ++lines;
    const Outcome o = run_once(f, line, ++n);
    if (!o.broken.empty()) report(line, o);
  }
  EXPECT_GE(lines, 10u);
}

// Command lines drawn from the argument table, for a bounded time.
TEST(CliFuzz, DrawnCommandLinesKeepEveryInvariant) {
  Fixture& f = fixture();
  if (!ready(f)) return;
  const std::uint64_t seconds = env_number("STGUARD_CLI_FUZZ_SECONDS", 60);
  const std::uint64_t max_runs = env_number("STGUARD_CLI_FUZZ_RUNS", 0);
  const std::uint64_t seed = env_number("STGUARD_CLI_FUZZ_SEED", 1);
  const bool verbose = env_number("STGUARD_CLI_FUZZ_VERBOSE", 0) != 0;
  Drawer drawer(f.table, seed, f.session->root(), !f.session->small_dir().empty(),
                f.session->data_dir().string());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::uint64_t runs = 0;
  std::uint64_t failures = 0;
  std::map<std::string, std::uint64_t> by_command;
  std::map<std::string, std::uint64_t> by_outcome;
  std::map<std::string, std::uint64_t> by_disturbance;
  std::set<std::string> options;
  std::set<std::string> words;
  std::uint64_t as_nobody = 0;
  while (std::chrono::steady_clock::now() < deadline && (max_runs == 0 || runs < max_runs)) {
    const CommandLine line = drawer.draw();
    const Outcome o = run_once(f, line, 1000000 + runs);
    ++runs;
    by_command[o.parsed.command.empty() ? "(none)" : o.parsed.command]++;
    by_outcome[outcome_text(o.run)]++;
    by_disturbance[disturbance_name(line.disturb).empty() ? "none"
                                                          : disturbance_name(line.disturb)]++;
    for (const std::string& option : o.parsed.options)
      options.insert(o.parsed.command + " " + option);
    for (const Named& n : o.parsed.named) words.insert(n.role + " " + n.word);
    as_nobody += line.as_nobody ? 1 : 0;
    if (verbose) {
      std::cerr << outcome_text(o.run) << " in " << o.run.seconds << " s  " << line.to_json()
                << "\n";
    }
    if (!o.broken.empty()) {
      ++failures;
      report(line, o);
      if (failures >= 20) break;  // enough to go on with
    }
  }
  std::cout << "cli fuzz: seed " << seed << ", " << runs << " command lines, "
            << f.session->shapes() << " sandbox entries, " << options.size()
            << " distinct options, " << words.size() << " distinct (role, path) pairs, "
            << as_nobody << " as nobody; " << failures << " broke an invariant\n  by command:";
  for (const auto& [name, count] : by_command) std::cout << " " << name << "=" << count;
  std::cout << "\n  by outcome:";
  for (const auto& [name, count] : by_outcome) std::cout << " [" << name << "]=" << count;
  std::cout << "\n  by disturbance:";
  for (const auto& [name, count] : by_disturbance) std::cout << " " << name << "=" << count;
  std::cout << "\n";
  EXPECT_GT(runs, 0u);
}

}  // namespace
