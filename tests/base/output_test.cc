// base/output.h: how every file stguard writes reaches the disk. Each test
// stands for a way a user's file was once harmed: a link replaced by a
// regular file, a mode lost, a temporary file left behind.
#include "base/output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "tests/support/child_process.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

using stguard_test::read_text;

// The message of a failed write, or "" when it succeeded.
std::string failure(const Result<void>& done) { return done ? "" : done.error().message; }

void put(const fs::path& path, std::string_view bytes, mode_t mode = 0644) {
  const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  ASSERT_TRUE(fd);
  ASSERT_EQ(::write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ASSERT_EQ(::fchmod(fd.get(), mode), 0);
}

// The names in `dir`, sorted: what a write left behind.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0);
  return st.st_mode;
}

mode_t current_umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

TEST(OutputTest, NewFileGetsTheModeLessTheUmaskAndNoTemporaryStays) {
  stguard_test::TempDir dir;
  ASSERT_EQ(failure(write_file(dir.path() / "new.txt", "one", 0644)), "");
  EXPECT_EQ(read_text(dir.path() / "new.txt"), "one");
  EXPECT_EQ(mode_of(dir.path() / "new.txt") & 0777, 0644 & ~current_umask());
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"new.txt"});
  // Directories are never created.
  EXPECT_EQ(
      failure(write_file(dir.path() / "no" / "dir.txt", "x")),
      "cannot write " + (dir.path() / "no" / "dir.txt").string() + ": No such file or directory");
  EXPECT_FALSE(fs::exists(dir.path() / "no"));
}

TEST(OutputTest, ReplacedFileKeepsItsModeAndIsReplacedAtomically) {
  stguard_test::TempDir dir;
  const fs::path file = dir.path() / "secret.txt";
  put(file, "old", 0600);
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  ASSERT_EQ(failure(write_file(file, "new", 0644)), "");
  EXPECT_EQ(read_text(file), "new");
  EXPECT_EQ(mode_of(file) & 07777, 0600u);
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino) << "replaced by rename, not rewritten in place";
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"secret.txt"});
}

TEST(OutputTest, ReplacedFileKeepsItsOwnerWhenRunningAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root writes other users' files";
  stguard_test::TempDir dir;
  const fs::path file = dir.path() / "theirs.txt";
  put(file, "old", 0640);
  ASSERT_EQ(::chown(file.c_str(), stguard_test::kUnprivilegedUid, stguard_test::kUnprivilegedGid),
            0);
  ASSERT_EQ(failure(write_file(file, "new")), "");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, stguard_test::kUnprivilegedUid);
  EXPECT_EQ(st.st_gid, stguard_test::kUnprivilegedGid);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(OutputTest, AFileTheUserMayNotWriteIsRefusedAsAShellWould) {
  stguard_test::TempDir dir;
  stguard_test::open_to_everyone(dir.path());
  const fs::path file = dir.path() / "read-only.txt";
  put(file, "keep", 0444);
  const stguard_test::ChildOutcome outcome = stguard_test::in_child(
      [&] {
        return failure(write_file(file, "lost")) ==
                       "cannot write " + file.string() + ": Permission denied"
                   ? 0
                   : 2;
      },
      {.unprivileged = true});
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(read_text(file), "keep");
}

TEST(OutputTest, ALinkToARegularFileIsWrittenThroughAndStays) {
  stguard_test::TempDir dir;
  fs::create_directory(dir.path() / "real");
  put(dir.path() / "real" / "report.txt", "old", 0640);
  // A relative link, resolved from the link's own directory, through a
  // second link.
  fs::create_symlink("real/report.txt", dir.path() / "link1");
  fs::create_symlink(dir.path() / "link1", dir.path() / "link2");
  ASSERT_EQ(failure(write_file(dir.path() / "link2", "new")), "");
  EXPECT_TRUE(S_ISLNK(mode_of(dir.path() / "link1")));
  EXPECT_TRUE(S_ISLNK(mode_of(dir.path() / "link2")));
  EXPECT_EQ(read_text(dir.path() / "real" / "report.txt"), "new");
  EXPECT_EQ(mode_of(dir.path() / "real" / "report.txt") & 0777, 0640u);
  EXPECT_EQ(names_in(dir.path() / "real"), std::vector<std::string>{"report.txt"});
  // A link that names nothing yet: the file it names is created.
  fs::create_symlink("real/fresh.txt", dir.path() / "dangling");
  ASSERT_EQ(failure(write_file(dir.path() / "dangling", "made")), "");
  EXPECT_TRUE(S_ISLNK(mode_of(dir.path() / "dangling")));
  EXPECT_EQ(read_text(dir.path() / "real" / "fresh.txt"), "made");
  // A loop is an error, and leaves the links alone.
  fs::create_symlink("loop-b", dir.path() / "loop-a");
  fs::create_symlink("loop-a", dir.path() / "loop-b");
  const std::string error = failure(write_file(dir.path() / "loop-a", "x"));
  EXPECT_NE(error.find("Too many levels of symbolic links"), std::string::npos) << error;
  EXPECT_TRUE(S_ISLNK(mode_of(dir.path() / "loop-a")));
}

// `--jsonl /dev/stdout > x` once replaced the machine's /dev/stdout link
// with a regular file. A link of the test's own to /proc/self/fd/N stands in
// for /dev/stdout, so that the old behaviour harms only the scratch folder.
TEST(OutputTest, ALinkToOneOfOurDescriptorsIsWrittenThroughTheDescriptor) {
  stguard_test::TempDir dir;
  const fs::path shell_file = dir.path() / "x";
  const fs::path link = dir.path() / "stdout-link";
  const stguard_test::ChildOutcome outcome = stguard_test::in_child([&] {
    // As `>> x` would: an appending descriptor holding earlier output.
    const int fd = ::open(shell_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, "before\n", 7) != 7) return 10;
    fs::create_symlink("/proc/self/fd/" + std::to_string(fd), link);
    if (!write_file(link, "through\n")) return 11;
    if (!write_file("/dev/fd/" + std::to_string(fd), "again\n")) return 12;
    if (::write(fd, "after\n", 6) != 6) return 13;
    return 0;
  });
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
  EXPECT_EQ(read_text(shell_file), "before\nthrough\nagain\nafter\n");
  // A descriptor that is not open is an error, not a new file.
  EXPECT_EQ(failure(write_file("/dev/fd/987", "x")),
            "cannot write /dev/fd/987: Bad file descriptor");
}

TEST(OutputTest, DevicesAndFifosAreWrittenInPlace) {
  stguard_test::TempDir dir;
  const fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  ASSERT_TRUE(reader);
  EXPECT_EQ(failure(write_file(fifo, "through the pipe")), "");
  char buffer[64] = {};
  const ssize_t n = ::read(reader.get(), buffer, sizeof buffer);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
  // /dev/null through a link: the device stays, the link stays.
  fs::create_symlink("/dev/null", dir.path() / "null");
  EXPECT_EQ(failure(write_file(dir.path() / "null", "gone")), "");
  EXPECT_TRUE(S_ISLNK(mode_of(dir.path() / "null")));
  EXPECT_TRUE(S_ISCHR(mode_of("/dev/null")));
  // /dev/full: the device's own failure, with the path.
  EXPECT_EQ(failure(write_file("/dev/full", "x")),
            "cannot write /dev/full: No space left on device");
  // A directory is refused, not replaced.
  fs::create_directory(dir.path() / "sub");
  EXPECT_EQ(failure(write_file(dir.path() / "sub", "x")),
            "cannot write " + (dir.path() / "sub").string() + ": Is a directory");
  EXPECT_TRUE(fs::is_directory(dir.path() / "sub"));
  EXPECT_EQ(failure(write_file("", "x")), "cannot write : an empty path");
}

TEST(OutputTest, ABlockDeviceIsNeverWritten) {
  stguard_test::TempDir dir;
  const fs::path disk = dir.path() / "disk";
  // A block device node of the test's own (loop device numbers); where the
  // test may not make one, it cannot check this.
  if (::mknod(disk.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) {
    GTEST_SKIP() << "cannot make a block device node here";
  }
  EXPECT_EQ(failure(write_file(disk, "x")),
            "cannot write " + disk.string() + ": a block device (stguard never writes to a disk)");
  EXPECT_TRUE(S_ISBLK(mode_of(disk)));
}

TEST(OutputTest, AFullDiskLeavesTheOldFileAndNoTemporary) {
  stguard_test::TempDir dir;
  const fs::path file = dir.path() / "report.txt";
  put(file, "old report", 0644);
  const stguard_test::ChildOutcome outcome = stguard_test::in_child(
      [&] {
        return failure(write_file(file, std::string(64 << 10, 'x'))) ==
                       "cannot write " + file.string() + ": File too large"
                   ? 0
                   : 2;
      },
      {.file_size_limit = 4096});
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(read_text(file), "old report");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"report.txt"});
}

TEST(OutputTest, AnUncommittedOutputLeavesNothing) {
  stguard_test::TempDir dir;
  const fs::path file = dir.path() / "out.bin";
  put(file, "old", 0644);
  {
    Result<OutputFile> out = OutputFile::open(file);
    ASSERT_TRUE(out) << out.error().message;
    ASSERT_EQ(failure(out->write("half")), "");
    EXPECT_EQ(names_in(dir.path()).size(), 2u) << "the temporary file exists while writing";
  }
  EXPECT_EQ(read_text(file), "old");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.bin"});
}

// `stguard write` stopped by SIGTERM once left OUT.tmp-PID-0 behind.
TEST(OutputTest, ASignalDuringAWriteRemovesTheTemporaryFile) {
  for (const int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    stguard_test::TempDir dir;
    const fs::path file = dir.path() / "model.safetensors";
    put(file, "old", 0644);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Result<OutputFile> out = OutputFile::open(file);
      if (!out || !out->write("partial")) ::_exit(1);
      const char byte = 1;
      if (::write(ready[1], &byte, 1) != 1) ::_exit(2);
      while (true) ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    EXPECT_EQ(names_in(dir.path()).size(), 2u);
    ASSERT_EQ(::kill(pid, signal_number), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number)
        << "the signal still ends the process as it would have";
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"model.safetensors"})
        << "signal " << signal_number;
    EXPECT_EQ(read_text(file), "old");
  }
}

}  // namespace
}  // namespace stguard::base
