// base/file_io.h, sandbox.h, sha256_fd: real files in a scratch directory.
#include "base/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "base/sandbox.h"
#include "base/sha256.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "stguard-base-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void put(const fs::path& rel, std::string_view bytes) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary) << bytes;
  }
  fs::path dir_;
};

TEST_F(FileIoTest, ReadFileWholeAndBounded) {
  put("a.txt", "hello");
  const Result<std::string> whole = read_file(dir_ / "a.txt");
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(*whole, "hello");
  for (const auto& [path, limit, why] :
       {std::tuple{dir_ / "a.txt", std::uint64_t{4}, "too large"},
        std::tuple{dir_ / "missing", kDefaultMaxReadBytes, "missing"},
        std::tuple{dir_, kDefaultMaxReadBytes, "not a regular file"}}) {
    const Result<std::string> read = read_file(path, limit);
    ASSERT_FALSE(read) << path;
    EXPECT_NE(read.error().message.find(why), std::string::npos) << read.error().message;
    EXPECT_TRUE(read.error().io) << path;
  }
}

TEST_F(FileIoTest, ReadAtStopsAtTheEnd) {
  put("a.bin", "0123456789");
  const UniqueFd fd(::open((dir_ / "a.bin").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  char buffer[8];
  int err = -1;
  EXPECT_EQ(read_at(fd.get(), buffer, 8, 6, &err), 4u);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(std::string(buffer, 4), "6789");
}

TEST_F(FileIoTest, OpenBeneathStaysInside) {
  put("sub/a.txt", "x");
  fs::create_symlink("/etc/passwd", dir_ / "out");
  fs::create_symlink("sub/a.txt", dir_ / "in");
  const UniqueFd root(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(root);
  EXPECT_TRUE(open_beneath(root.get(), "sub/a.txt", {}).fd);
  const Opened no_follow = open_beneath(root.get(), "in", {});
  EXPECT_FALSE(no_follow.fd);
  EXPECT_EQ(no_follow.err, ELOOP);
  EXPECT_TRUE(open_beneath(root.get(), "in", {.follow_symlinks = true}).fd);
  const Opened escape = open_beneath(root.get(), "out", {.follow_symlinks = true});
  EXPECT_FALSE(escape.fd);
  EXPECT_EQ(open_error_text(escape.err), "resolves outside DIR (not opened)");
  EXPECT_FALSE(open_beneath(root.get(), "../x", {.follow_symlinks = true}).fd);
  EXPECT_EQ(open_error_text(ENOENT), "does not exist");
}

TEST_F(FileIoTest, Sha256OfAFileInBothModes) {
  put("abc", "abc");
  const UniqueFd fd(::open((dir_ / "abc").c_str(), O_RDONLY | O_CLOEXEC));
  for (const HashIo io : {HashIo::kRead, HashIo::kMmap}) {
    std::atomic<std::uint64_t> progress{0};
    const Sha256Outcome h = sha256_fd(fd.get(), {.io = io}, &progress);
    ASSERT_TRUE(h.ok()) << h.error;
    EXPECT_EQ(to_hex(h.digest), sha256_hex(std::string_view("abc")));
    EXPECT_EQ(h.bytes, 3u);
    EXPECT_EQ(progress.load(), 3u);
  }
  const UniqueFd dir_fd(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_EQ(sha256_fd(dir_fd.get()).error, "not a regular file");
}

}  // namespace
}  // namespace stguard::base
