// tests/hostile/hostile_fs_test.cc: the stguard command used as a hostile
// user would, on the file system: outputs that are links, FIFOs and devices,
// a full disk, folders that are not stguard's, signals in the middle of a
// write. Each test stands for a way the command once harmed the user's files
// or reported work it did not do.
//
// Tests that could harm the machine if the command regressed (writing
// /dev/stdout) run it as an unprivileged user, so a regression fails the
// test instead of replacing a system file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/hostile/hostile_support.h"
#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::CliRun;
using stguard_test::CliRunAs;
using stguard_test::CliRunOptions;
using stguard_test::run_cli;
using stguard_test::run_cli_as;
using stguard_test::TempDir;

using stguard_hostile::conform_gap;
using stguard_hostile::kPlantedBug;
using stguard_hostile::names_in;
using stguard_hostile::put;
using stguard_hostile::SharedDir;
using stguard_hostile::snapshot;
using stguard_test::read_text;

// `conform --jsonl /dev/stdout > x`, run as root, once replaced the
// machine's /dev/stdout link with a regular file.
TEST(HostileFs, AReportToDevStdoutLandsInStdoutAndLeavesTheLink) {
  SharedDir dir;
  const fs::path captured = dir.path() / "x";
  fs::create_symlink("/dev/stdout", dir.path() / "my-stdout");
  for (const std::string& target :
       {std::string("/dev/stdout"), (dir.path() / "my-stdout").string()}) {
    const CliRunAs r = run_cli_as(conform_gap({"--jsonl", target}),
                                  {.unprivileged = true, .stdout_path = captured.string()});
    EXPECT_EQ(r.exit_code, 0) << target << ": " << r.err;
    const std::string out = read_text(captured);
    EXPECT_NE(out.find("\"case\":\"layout/gap-at-start\""), std::string::npos) << out;
    EXPECT_NE(out.find("stguard-strict"), std::string::npos) << "the summary is there too";
    struct stat st {};
    ASSERT_EQ(::lstat("/dev/stdout", &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    ASSERT_EQ(::lstat((dir.path() / "my-stdout").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
  }
}

TEST(HostileFs, AReportToAFifoIsWrittenInPlace) {
  TempDir dir;
  const fs::path fifo = dir.path() / "junit.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    received.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  const CliRun r = run_cli(conform_gap({"--junit", fifo.string()}));
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(received.find("<testsuites"), std::string::npos) << received;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(HostileFs, ReportsOnAFullDiskAreAnErrorThatNamesThePath) {
  SharedDir dir;
  const fs::path out = dir.path() / "reports";
  // The limit applies to the captured stderr too: room for the message, not
  // for the report of four cases (about 2 KB).
  const CliRunAs full = run_cli_as(conform_gap({"--out-dir", out.string()}),
                                   {.file_size_limit = 1024, .working_dir = dir.path().string()});
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_NE(full.err.find("cannot write " + (out / "results.jsonl").string() + ": File too large"),
            std::string::npos)
      << full.err;
  for (const std::string& name : names_in(out)) {
    if (name == ".stguard-owned.json") continue;  // the folder's marker (base/owned_dir.h)
    EXPECT_EQ(name.find(".stguard-"), std::string::npos) << "temporary file left: " << name;
  }
}

// `write` over a 0600 file once left it 0644.
TEST(HostileFs, WriteKeepsTheModeOfTheFileItReplaces) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.json";
  put(spec, R"({"tensors":[{"name":"w","dtype":"F32","shape":[1],"data_hex":"0000803f"}]})");
  const fs::path out = dir.path() / "secret.safetensors";
  put(out, "old", fs::perms::owner_read | fs::perms::owner_write);
  const CliRun r = run_cli({"write", spec.string(), out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_NE(read_text(out), "old");
  const CliRun full = run_cli({"write", spec.string(), "/dev/full"});
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_EQ(full.err, "stguard write: cannot write /dev/full: No space left on device\n");
}

// A SIGTERM during `write` once left OUT.tmp-PID-0 (14 MB) behind.
TEST(HostileFs, WriteStoppedBySignalLeavesNothingBehind) {
  TempDir dir;
  const fs::path spec = dir.path() / "spec.json";
  // 24 MiB of tensor data, so the write is long enough to be caught.
  {
    std::ofstream s(spec, std::ios::binary);
    s << R"({"tensors":[{"name":"w","dtype":"U8","shape":[25165824],"data_hex":")";
    const std::string chunk(1 << 20, 'a');
    for (int i = 0; i < 48; ++i) s << chunk;
    s << R"("}]})";
  }
  const fs::path out = dir.path() / "model.safetensors";
  put(out, "the old model");
  const std::set<std::string> before = names_in(dir.path());
  bool caught = false;
  for (int attempt = 0; attempt < 5 && !caught; ++attempt) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(STGUARD_CLI_PATH, STGUARD_CLI_PATH, "write", spec.c_str(), out.c_str(), nullptr);
      ::_exit(127);
    }
    // Until a new name shows up in the folder (the temporary file), or the
    // command is done.
    int status = 0;
    while (true) {
      if (names_in(dir.path()).size() > before.size()) {
        ::kill(pid, SIGTERM);
        caught = true;
        break;
      }
      if (::waitpid(pid, &status, WNOHANG) == pid) break;
    }
    if (caught) {
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    }
    EXPECT_EQ(names_in(dir.path()), before);
    if (!caught) put(out, "the old model");  // it finished first: try again
  }
  ASSERT_TRUE(caught) << "the write never outlasted the polling loop";
  EXPECT_EQ(read_text(out), "the old model");
}

// `corpus build --out m`, twice, once deleted the model shard the user kept
// in m/llama/, and the first run overwrote the user's README.md.
TEST(HostileFs, CorpusBuildNeverTouchesAFolderItDidNotMake) {
  TempDir dir;
  const fs::path m = dir.path() / "m";
  put(m / "llama" / "model-00001-of-00002.safetensors", "weights");
  put(m / "manifest.json", "{\"mine\":1}");
  put(m / "README.md", "my notes");
  const auto before = snapshot(m);
  for (int run = 0; run < 2; ++run) {
    const CliRun r =
        run_cli({"corpus", "build", "--recipes", STGUARD_RECIPES_DIR, "--out", m.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("not made by `stguard corpus build`"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(m), before);
  }
  // The same for the other folders stguard fills.
  const CliRun exported = run_cli({"corpus", "export", "--flat", m.string()});
  EXPECT_EQ(exported.exit_code, 2);
  const CliRun huge =
      run_cli({"corpus", "build", "--recipes", STGUARD_RECIPES_DIR, "--huge", m.string()});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_EQ(snapshot(m), before);
}

// A corpus folder stguard made: a stale case goes only while unchanged, and
// the user's own files beside the cases stay.
TEST(HostileFs, CorpusBuildRemovesOnlyItsOwnStaleFiles) {
  TempDir dir;
  const fs::path recipes = dir.path() / "conformance";
  fs::create_directories(recipes);
  for (const char* name : {"vocabulary.txt", "corpus_readme.md.in", "cases"}) {
    fs::copy(fs::path(STGUARD_RECIPES_DIR) / name, recipes / name, fs::copy_options::recursive);
  }
  const fs::path out = dir.path() / "corpus";
  ASSERT_EQ(
      run_cli({"corpus", "build", "--recipes", recipes.string(), "--out", out.string()}).exit_code,
      0);
  put(out / "layout" / "my-own.safetensors", "mine");
  // Two recipes go away; one of their files was edited meanwhile.
  const std::string layout = read_text(recipes / "cases" / "layout.txt");
  std::string edited = layout;
  std::vector<std::string> gone;
  for (const char* name : {"gap-at-start", "gap-between"}) {
    const std::size_t at = edited.find("case: " + std::string(name) + "\n");
    ASSERT_NE(at, std::string::npos) << name;
    const std::size_t end = edited.find("\ncase: ", at + 1);
    edited.erase(at, end == std::string::npos ? std::string::npos : end + 1 - at);
    gone.push_back("layout/" + std::string(name) + ".safetensors");
  }
  put(recipes / "cases" / "layout.txt", edited);
  put(out / gone[1], "edited by the user");
  const CliRun r =
      run_cli({"corpus", "build", "--recipes", recipes.string(), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed stale " + gone[0]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kept " + gone[1]), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out / gone[0]));
  EXPECT_EQ(read_text(out / gone[1]), "edited by the user");
  EXPECT_EQ(read_text(out / "layout" / "my-own.safetensors"), "mine");
}

CliRunAs hunt(const fs::path& out, const std::string& seed, CliRunOptions options = {}) {
  return run_cli_as({"hunt", "--adapter", kPlantedBug, "--plain", "--name", "no-overlap-check",
                     "--runs", "80", "--seed", seed, "-j", "2", "--minimise-runs", "20", "--corpus",
                     STGUARD_CORPUS_DIR, "--out", out.string(), "-q"},
                    options);
}

std::set<std::string> buckets_in(const fs::path& out) {
  std::set<std::string> buckets;
  std::ifstream in(out / "findings.jsonl");
  for (std::string line; std::getline(in, line);) {
    buckets.insert(nlohmann::json::parse(line)["bucket"].get<std::string>());
  }
  return buckets;
}

// A second hunt into the first one's folder once deleted its findings, the
// whole .work/ with unrelated files, and overwrote cases.txt.
TEST(HostileFs, ASecondHuntKeepsTheFirstHuntsFindings) {
  TempDir dir;
  const fs::path out = dir.path() / "hunt-no-overlap-check";
  ASSERT_EQ(hunt(out, "7").exit_code, 1);
  const std::set<std::string> first = buckets_in(out);
  ASSERT_FALSE(first.empty());
  put(out / "notes.txt", "my notes on the first hunt");
  put(out / ".work" / "keep.txt", "not stguard's");
  ASSERT_EQ(hunt(out, "8").exit_code, 1);
  const std::set<std::string> merged = buckets_in(out);
  for (const std::string& bucket : first) {
    EXPECT_TRUE(merged.count(bucket)) << bucket;
    EXPECT_TRUE(fs::exists(out / "findings" / (bucket + ".safetensors"))) << bucket;
  }
  EXPECT_EQ(read_text(out / "notes.txt"), "my notes on the first hunt");
  EXPECT_EQ(read_text(out / ".work" / "keep.txt"), "not stguard's");
  const nlohmann::json summary = nlohmann::json::parse(read_text(out / "hunt.json"));
  EXPECT_EQ(summary["runs"], 160);
  // A folder of the user's is not a hunt's.
  const fs::path foreign = dir.path() / "foreign";
  put(foreign / "data.txt", "x");
  const CliRunAs refused = hunt(foreign, "7");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(names_in(foreign), std::set<std::string>{"data.txt"});
}

// On a full disk a hunt once printed "100 files ... 0 divergences", wrote
// empty findings and exited 0: the reader never ran.
TEST(HostileFs, AHuntOnAFullDiskSaysSoAndCountsNothingItDidNotDo) {
  SharedDir dir;
  const fs::path out = dir.path() / "hunt";
  // Room for the folder's marker, not for the files the reader reads.
  const CliRunAs r = hunt(out, "7", {.file_size_limit = 512, .working_dir = dir.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" files in "), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(out / "findings.jsonl"));
  for (const std::string& name : names_in(out)) {
    EXPECT_EQ(name.rfind(".stguard-work", 0), std::string::npos) << name << " left behind";
  }
}

// promote once accepted `case: ../../../../tmp/x`, said "appended" for a
// cases.txt that was /etc/passwd, and appended although stdout failed.
TEST(HostileFs, PromoteAppendsNothingUnlessAllIsWell) {
  TempDir dir;
  const fs::path out = dir.path() / "hunt";
  ASSERT_EQ(hunt(out, "7").exit_code, 1);
  const fs::path recipes = dir.path() / "conformance";
  fs::create_directories(recipes);
  for (const char* name : {"vocabulary.txt", "cases"}) {
    fs::copy(fs::path(STGUARD_RECIPES_DIR) / name, recipes / name, fs::copy_options::recursive);
  }
  const auto before = snapshot(recipes);
  const std::vector<std::string> promote = {"hunt", "promote",   out.string(),    "--group",
                                            "hunt", "--recipes", recipes.string()};
  const CliRunAs no_stdout = run_cli_as(promote, {.stdout_path = "/dev/full"});
  EXPECT_EQ(no_stdout.exit_code, 2);
  EXPECT_EQ(snapshot(recipes), before);

  const fs::path evil = dir.path() / "evil";
  put(evil / "cases.txt", "case: ../../../../tmp/x\ndescription: d\n");
  const CliRun bad_name =
      run_cli({"hunt", "promote", evil.string(), "--group", "hunt", "--recipes", recipes.string()});
  EXPECT_EQ(bad_name.exit_code, 2);
  EXPECT_NE(bad_name.err.find("kebab-case"), std::string::npos) << bad_name.err;
  fs::remove(evil / "cases.txt");
  fs::create_symlink("/etc/passwd", evil / "cases.txt");
  const CliRun passwd =
      run_cli({"hunt", "promote", evil.string(), "--group", "hunt", "--recipes", recipes.string()});
  EXPECT_EQ(passwd.exit_code, 2);
  EXPECT_EQ(passwd.err.find("appended"), std::string::npos) << passwd.err;
  EXPECT_EQ(snapshot(recipes), before);

  const CliRun good = run_cli(promote);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(snapshot(recipes), before);
}

}  // namespace
