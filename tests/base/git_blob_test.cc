// tests/base/git_blob_test.cc: the git blob hash against values `git
// hash-object` gives, from memory and from a file; a file that cannot be
// hashed gives an error, never a digest.
#include "base/git_blob.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <span>
#include <string>

#include "base/file_io.h"
#include "base/hex.h"

namespace {

using stguard::base::git_blob_fd;
using stguard::base::git_blob_from_hex;
using stguard::base::git_blob_hex;
using stguard::base::GitBlobOutcome;
using stguard::base::UniqueFd;

// `printf 'hello\n' | git hash-object --stdin` and `git hash-object /dev/null`.
constexpr const char* kHelloBlob = "ce013625030ba8dba906f756967f9e9ca394464a";
constexpr const char* kEmptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

TEST(GitBlob, MatchesGitHashObject) {
  EXPECT_EQ(git_blob_hex("hello\n"), kHelloBlob);
  EXPECT_EQ(git_blob_hex(""), kEmptyBlob);
}

TEST(GitBlob, FromHexTakesExactlyFortyDigits) {
  EXPECT_TRUE(git_blob_from_hex(kHelloBlob).has_value());
  EXPECT_TRUE(git_blob_from_hex("CE013625030BA8DBA906F756967F9E9CA394464A").has_value());
  EXPECT_FALSE(git_blob_from_hex("ce01").has_value());
  EXPECT_FALSE(git_blob_from_hex(std::string(64, 'a')).has_value());
  EXPECT_FALSE(git_blob_from_hex(std::string(40, 'g')).has_value());
}

TEST(GitBlob, FromAFileLargerThanOneBuffer) {
  char path[] = "/tmp/stguard_git_blob_XXXXXX";
  const UniqueFd fd(::mkstemp(path));
  ASSERT_TRUE(fd);
  const std::string content(3 * (1 << 20) + 17, 'z');  // three reads and a bit
  ASSERT_EQ(::write(fd.get(), content.data(), content.size()),
            static_cast<ssize_t>(content.size()));
  const GitBlobOutcome h = git_blob_fd(fd.get());
  ::unlink(path);
  ASSERT_TRUE(h.ok()) << h.error;
  EXPECT_EQ(h.bytes, content.size());
  EXPECT_EQ(stguard::base::to_hex(std::span(h.digest)), git_blob_hex(content));
}

TEST(GitBlob, NotARegularFileIsAnError) {
  const UniqueFd fd(::open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  const GitBlobOutcome h = git_blob_fd(fd.get());
  EXPECT_FALSE(h.ok());
  EXPECT_EQ(h.error, "not a regular file");
}

}  // namespace
