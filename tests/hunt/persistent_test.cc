// tests/hunt/persistent_test.cc: `stguard hunt` drives a reader whose
// reader.json declares a "persistent_command" through long-running adapters
// (conformance/runner/grader.h, PersistentGrader), as `stguard conform` does, and
// --no-persistent goes back to one process per file.
//
// The fake reader's two commands answer differently on purpose, so the
// findings show which one graded the files: the one-file command rejects
// everything (rejects-valid buckets), the persistent one crashes on run 3's
// file, hangs on run 5's and accepts all others without tensors
// (accepts-invalid buckets). A crash and a hang are findings, and the adapter
// that had them is restarted for the files after them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::CliRun;
using stguard_test::run_cli;
using stguard_test::TempDir;

// A reader directory for the fake reader (tests/conformance/fake_reader.cc).
fs::path write_reader_dir(const fs::path& parent) {
  const fs::path dir = parent / "fake-persistent";
  fs::create_directories(dir);
  const nlohmann::json reader = {{"name", "fake-persistent"},
                                 {"mode", "json"},
                                 {"command", {STGUARD_FAKE_READER_PATH, "reject"}},
                                 {"persistent_command",
                                  {STGUARD_FAKE_READER_PATH, "--persistent",
                                   "mixed:crash=/3.safetensors,hang=/5.safetensors,accept=/"}}};
  std::ofstream(dir / "reader.json") << reader.dump();
  return dir;
}

// Seed 3: of the 16 files it makes from corpus 4, some are valid, which the
// one-file command rejects (seeds 1 and 2 make none; a new corpus may need
// another seed).
CliRun hunt_with(const fs::path& reader, const fs::path& out, bool persistent) {
  std::vector<std::string> args = {"hunt",      "--reader",  reader.string(),
                                   "--runs",    "16",        "--seed",
                                   "3",         "-j",        "2",
                                   "--timeout", "1",         "--minimise-runs",
                                   "0",         "--corpus",  STGUARD_CORPUS_DIR,
                                   "--out",     out.string()};
  if (!persistent) args.push_back("--no-persistent");
  return run_cli(args);
}

std::multiset<std::string> kinds(const fs::path& out) {
  std::multiset<std::string> found;
  std::ifstream in(out / "findings.jsonl");
  for (std::string line; std::getline(in, line);) {
    found.insert(nlohmann::json::parse(line)["kind"].get<std::string>());
  }
  return found;
}

// The N of the summary's "persistent, N adapter starts", or -1.
long adapter_starts(const std::string& err) {
  const std::string marker = "persistent, ";
  const std::size_t at = err.find(marker);
  if (at == std::string::npos) return -1;
  return std::stol(err.substr(at + marker.size()));
}

TEST(HuntPersistent, AReaderDeclaringItIsHuntedThroughItsPersistentCommand) {
  const TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const CliRun run = hunt_with(write_reader_dir(dir.path()), out, true);
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::multiset<std::string> found = kinds(out);
  EXPECT_EQ(found.count("crash"), 1u) << run.out;
  EXPECT_EQ(found.count("timeout"), 1u) << run.out;
  EXPECT_GE(found.count("accepts-invalid"), 1u) << run.out;
  EXPECT_EQ(found.count("rejects-valid"), 0u) << run.out;
  // Two adapters (-j 2), and one more after the crash and after the hang.
  EXPECT_GE(adapter_starts(run.err), 3) << run.err;
  EXPECT_LE(adapter_starts(run.err), 4) << run.err;
  EXPECT_FALSE(fs::exists(out / ".work"));
}

TEST(HuntPersistent, NoPersistentRunsAProcessPerFile) {
  const TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const CliRun run = hunt_with(write_reader_dir(dir.path()), out, false);
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::multiset<std::string> found = kinds(out);
  EXPECT_GE(found.count("rejects-valid"), 1u) << run.out;
  EXPECT_EQ(found.size(), found.count("rejects-valid")) << run.out;
  EXPECT_EQ(adapter_starts(run.err), -1) << run.err;
  EXPECT_NE(run.err.find("a process per file"), std::string::npos) << run.err;
}

}  // namespace
