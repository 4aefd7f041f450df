// tests/hostile/harm_test.cc: each way a hostile look found the command
// harming files or reporting work it did not do (issue 49), as a test that
// fails if it comes back: a closed stdout, a file size limit, adapters that
// outlived a killed run, a link planted in a sticky folder, set-ID bits lost,
// cleaning through a link, a report folder of the user's, a hunt into
// another reader's folder, too few descriptors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/hostile/hostile_support.h"
#include "tests/support/child_process.h"
#include "tests/support/files.h"
#include "tests/support/recipe_subset.h"
#include "tests/support/run_cli.h"

namespace {

namespace fs = std::filesystem;
using stguard_hostile::conform_gap;
using stguard_hostile::kPlantedBug;
using stguard_hostile::names_in;
using stguard_hostile::put;
using stguard_hostile::SharedDir;
using stguard_hostile::snapshot;
using stguard_test::CliRun;
using stguard_test::CliRunAs;
using stguard_test::read_text;
using stguard_test::run_cli;
using stguard_test::run_cli_as;
using stguard_test::TempDir;

const fs::path kExample = fs::path(STGUARD_SOURCE_DIR) / "examples/seed-example.safetensors";

// `stguard check ... | true` and `| head -0` once died of SIGPIPE (exit 141),
// silently.
TEST(Harm, AClosedStdoutIsAWriteFailureNotASignal) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", kExample.string()},
        std::vector<std::string>{"check", "--json", kExample.string(), kExample.string()},
        std::vector<std::string>{"inspect", kExample.string()},
        std::vector<std::string>{"corpus", "list"}}) {
    const CliRunAs r = run_cli_as(args, {.stdout_closed = true});
    EXPECT_EQ(r.signal, 0) << args[0] << ": killed by signal " << r.signal;
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_NE(r.err.find("error writing to standard output"), std::string::npos) << r.err;
  }
}

// `stguard conform --out-dir X | true` once died of SIGPIPE with X empty:
// the reports of the work done must be written all the same.
TEST(Harm, AConformWhoseStdoutIsClosedStillWritesItsReports) {
  TempDir dir;
  const fs::path out = dir.path() / "reports";
  const CliRunAs r = run_cli_as(conform_gap({"--memory-mb", "0", "--out-dir", out.string()}),
                                {.stdout_closed = true});
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("standard output"), std::string::npos) << r.err;
  for (const char* report : {"summary.txt", "results.jsonl", "junit.xml", "matrix.html"}) {
    EXPECT_TRUE(fs::exists(out / report)) << report;
  }
  EXPECT_NE(read_text(out / "results.jsonl").find("layout/gap-between"), std::string::npos);
}

// `ulimit -f` during `write` once killed it by SIGXFSZ with its temporary
// file left behind and nothing said.
TEST(Harm, AFileSizeLimitIsAWriteFailureThatLeavesNothing) {
  SharedDir dir;
  const fs::path spec = dir.path() / "spec.json";
  {
    std::ofstream s(spec, std::ios::binary);
    s << R"({"tensors":[{"name":"w","dtype":"U8","shape":[65536],"data_hex":")"
      << std::string(2 * 65536, 'a') << R"("}]})";
  }
  const fs::path out = dir.path() / "model.safetensors";
  put(out, "the old model");
  const std::set<std::string> before = names_in(dir.path());
  const CliRunAs r = run_cli_as({"write", spec.string(), out.string()},
                                {.file_size_limit = 16384, .default_sigxfsz = true});
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write " + out.string() + ": File too large"), std::string::npos)
      << r.err;
  EXPECT_EQ(names_in(dir.path()), before);
  EXPECT_EQ(read_text(out), "the old model");
}

// The processes whose parent is `parent`, and whether each is alive.
std::vector<pid_t> live_children_of(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    const std::string text = stguard_test::read_text(entry.path() / "stat");
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos || close + 4 > text.size()) continue;
    char state = '?';
    int ppid = 0;
    std::istringstream(text.substr(close + 2)) >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(std::stoi(name));
  }
  return out;
}

bool alive(pid_t pid) {
  const std::string text = stguard_test::read_text("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

// Adapters once outlived a `stguard conform` killed with SIGKILL (no handler
// of its own can run then): they must die with it.
TEST(Harm, AdaptersDieWithAConformKilledBySigkill) {
  const std::string hang = std::string("'") + STGUARD_FAKE_READER_PATH + "' hang";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(STGUARD_CLI_PATH, STGUARD_CLI_PATH, "conform", "--adapter", hang.c_str(), "--case",
            "layout/gap*", "--timeout", "60", "-j", "2", "--memory-mb", "0", "-q", nullptr);
    ::_exit(127);
  }
  std::vector<pid_t> adapters;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (adapters.size() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    adapters = live_children_of(pid);
  }
  ASSERT_EQ(adapters.size(), 2u) << "the adapters never started";
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (const pid_t adapter : adapters) {
    while (alive(adapter) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(alive(adapter)) << "adapter " << adapter << " outlived stguard conform";
    if (alive(adapter)) ::kill(adapter, SIGKILL);
  }
}

// Sets fs.protected_symlinks for the test's life, and back after.
class ProtectedSymlinks {
 public:
  ProtectedSymlinks() {
    std::ifstream in(kPath);
    std::getline(in, old_);
    std::ofstream out(kPath);
    out << "1\n";
    out.flush();
    set_ = static_cast<bool>(out);
  }
  ~ProtectedSymlinks() {
    if (set_ && !old_.empty()) std::ofstream(kPath) << old_ << "\n";
  }
  bool set() const { return set_; }

 private:
  static constexpr const char* kPath = "/proc/sys/fs/protected_symlinks";
  std::string old_;
  bool set_ = false;
};

// As root, a link another user planted in a sticky world-writable folder
// (/tmp) that points at root's file was resolved by hand and the file
// replaced: that steps around fs.protected_symlinks, which refuses the same
// write from a shell.
TEST(Harm, ALinkPlantedInAStickyFolderIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (to plant a link as another user)";
  const ProtectedSymlinks sysctl;
  if (!sysctl.set()) GTEST_SKIP() << "cannot set fs.protected_symlinks here";
  TempDir dir;
  const fs::path sticky = dir.path() / "tmp";
  fs::create_directory(sticky);
  ASSERT_EQ(::chmod(sticky.c_str(), 01777), 0);
  const fs::path victim = dir.path() / "root-owned.txt";
  put(victim, "root's file");
  const fs::path planted = sticky / "report.sarif";
  ASSERT_EQ(::symlink(victim.c_str(), planted.c_str()), 0);
  ASSERT_EQ(
      ::lchown(planted.c_str(), stguard_test::kUnprivilegedUid, stguard_test::kUnprivilegedGid), 0);
  // The kernel refuses it to a shell: the test is meaningful here.
  const std::string shell = "echo x > '" + planted.string() + "' 2>/dev/null";
  ASSERT_NE(std::system(shell.c_str()), 0) << "the kernel followed the planted link";
  ASSERT_EQ(read_text(victim), "root's file");
  const CliRun r = run_cli({"check", "--sarif", planted.string(), kExample.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write " + planted.string() + ": Permission denied"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(victim), "root's file");
  // A link of root's own in the same folder is followed, as the kernel does.
  const fs::path own = sticky / "own.sarif";
  const fs::path target = dir.path() / "own-target.sarif";
  ASSERT_EQ(::symlink(target.c_str(), own.c_str()), 0);
  EXPECT_EQ(run_cli({"check", "--sarif", own.string(), kExample.string()}).exit_code, 0);
  EXPECT_NE(read_text(target).find("\"version\""), std::string::npos);
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// Replacing a file once dropped its set-user-ID and set-group-ID bits
// silently: they are kept, or the file is not replaced and the command says
// so.
TEST(Harm, ReplacingAFileKeepsItsSetIdBitsOrSaysSo) {
  SharedDir dir;
  const fs::path spec = dir.path() / "spec.json";
  put(spec, R"({"tensors":[{"name":"w","dtype":"U8","shape":[1],"data_hex":"01"}]})");
  for (const mode_t mode : {04755u, 02755u, 06750u}) {
    const fs::path out = dir.path() / ("setid-" + std::to_string(mode) + ".safetensors");
    put(out, "old");
    ASSERT_EQ(::chmod(out.c_str(), mode), 0);
    const CliRun r = run_cli({"write", spec.string(), out.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mode_of(out), mode) << std::oct << mode;
    EXPECT_NE(read_text(out), "old");
  }
  if (::geteuid() != 0) return;
  // Nobody may not set the set-group-ID bit of a file of a group they are
  // not in: the replacement could not be what the file was.
  const fs::path theirs = dir.path() / "group-root.safetensors";
  put(theirs, "old");
  ASSERT_EQ(::chown(theirs.c_str(), stguard_test::kUnprivilegedUid, 0), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 02666), 0);
  const CliRunAs r = run_cli_as({"write", spec.string(), theirs.string()}, {.unprivileged = true});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("set-group-ID"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(theirs), "old");
  EXPECT_EQ(mode_of(theirs), 02666);
  for (const std::string& name : names_in(dir.path())) {
    EXPECT_NE(name.rfind(".stguard-", 0), 0u) << name << " left behind";
  }
}

// `corpus build` once removed stale files through a link: a folder of its
// own replaced by a link to the user's folder lost the user's files.
TEST(Harm, CorpusBuildNeverCleansThroughALink) {
  TempDir dir;
  const fs::path both = dir.path() / "both";
  const fs::path layout_only = dir.path() / "layout-only";
  ASSERT_TRUE(stguard_test::write_recipe_subset(STGUARD_RECIPES_DIR, both, {"layout", "names"}));
  ASSERT_TRUE(stguard_test::write_recipe_subset(STGUARD_RECIPES_DIR, layout_only, {"layout"}));
  const fs::path out = dir.path() / "corpus";
  ASSERT_EQ(
      run_cli({"corpus", "build", "--recipes", both.string(), "--out", out.string()}).exit_code, 0);
  // names/ becomes a link to the user's folder, holding the same files.
  const fs::path users = dir.path() / "users-names";
  fs::rename(out / "names", users);
  fs::create_directory_symlink(users, out / "names");
  const auto before = snapshot(users);
  ASSERT_FALSE(before.empty());
  const CliRun r =
      run_cli({"corpus", "build", "--recipes", layout_only.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(snapshot(users), before) << r.out;
  EXPECT_NE(r.out.find("kept names/"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink(out / "names"));
}

// `conform --out-dir` once overwrote a summary.txt the user kept there.
TEST(Harm, ConformClaimsItsReportFolder) {
  TempDir dir;
  const fs::path users = dir.path() / "mine";
  put(users / "summary.txt", "my own summary");
  const CliRun refused = run_cli(conform_gap({"--memory-mb", "0", "--out-dir", users.string()}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("not made by `stguard conform`"), std::string::npos) << refused.err;
  EXPECT_EQ(names_in(users), std::set<std::string>{"summary.txt"});
  EXPECT_EQ(read_text(users / "summary.txt"), "my own summary");
  // A folder of its own: written again, the user's file beside it kept.
  const fs::path out = dir.path() / "reports";
  ASSERT_EQ(run_cli(conform_gap({"--memory-mb", "0", "--out-dir", out.string()})).exit_code, 0);
  put(out / "notes.txt", "mine");
  const CliRun again = run_cli(conform_gap({"--memory-mb", "0", "--out-dir", out.string()}));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(out / "notes.txt"), "mine");
  // Its parent must exist: nothing is made above it.
  const CliRun orphan =
      run_cli(conform_gap({"--memory-mb", "0", "--out-dir", (dir.path() / "a/b").string()}));
  EXPECT_EQ(orphan.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir.path() / "a"));
}

// A hunt into another reader's --out once ran the whole hunt before it was
// refused: it is refused before the reader runs once.
TEST(Harm, AHuntIntoAnotherReadersFolderIsRefusedBeforeItRuns) {
  TempDir dir;
  const fs::path out = dir.path() / "hunt";
  const std::vector<std::string> first = {"hunt",
                                          "--adapter",
                                          kPlantedBug,
                                          "--plain",
                                          "--name",
                                          "planted",
                                          "--runs",
                                          "20",
                                          "--seed",
                                          "7",
                                          "--minimise-runs",
                                          "10",
                                          "--corpus",
                                          STGUARD_CORPUS_DIR,
                                          "--out",
                                          out.string(),
                                          "-q"};
  ASSERT_LE(run_cli(first).exit_code, 1);
  const auto before = snapshot(out);
  const fs::path ran = dir.path() / "the-reader-ran";
  const CliRun other =
      run_cli({"hunt", "--adapter", "touch '" + ran.string() + "'", "--plain", "--name", "other",
               "--runs", "20", "--corpus", STGUARD_CORPUS_DIR, "--out", out.string(), "-q"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("holds the findings of reader planted"), std::string::npos) << other.err;
  EXPECT_FALSE(fs::exists(ran)) << "the reader ran before the folder was refused";
  EXPECT_EQ(snapshot(out), before);
}

// `verify -j16` under `ulimit -n 24` once failed shards with EMFILE.
TEST(Harm, VerifyWithFewDescriptorsReadsWithFewerThreads) {
  SharedDir dir;
  const std::string shard = read_text(kExample);
  std::string sums;
  for (int i = 1; i <= 30; ++i) {
    const std::string name = "part-" + std::to_string(i) + ".safetensors";
    put(dir.path() / name, shard);
  }
  const std::string command =
      "cd '" + dir.path().string() + "' && sha256sum *.safetensors > SHA256SUMS";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const CliRunAs r =
      run_cli_as({"verify", "-j", "16", dir.path().string()}, {.open_files_limit = 24});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("Too many open files"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SHA256SUMS: 30 of 30 files match"), std::string::npos) << r.out;
}

}  // namespace
