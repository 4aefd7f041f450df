// base/owned_dir.h: stguard deletes only what it made. `corpus build --out m`
// once deleted a model shard the user had put in m/llama/, and `hunt --out`
// a whole folder of unrelated files.
#include "base/owned_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

using stguard_test::read_text;
using stguard_test::write_text;

// The message a claim fails with, or "" when it succeeds.
std::string refusal(const fs::path& dir, std::string_view command) {
  const Result<OwnedDir> claimed = OwnedDir::claim(dir, command);
  return claimed ? "" : claimed.error().message;
}

TEST(OwnedDirTest, ANewOrEmptyFolderIsClaimedAndMarked) {
  stguard_test::TempDir scratch;
  {
    Result<OwnedDir> dir = OwnedDir::claim(scratch.path() / "new" / "out", "hunt");
    ASSERT_TRUE(dir) << dir.error().message;
    EXPECT_TRUE(dir->fresh());
    EXPECT_TRUE(fs::is_regular_file(scratch.path() / "new" / "out" / kOwnedMarker));
  }
  fs::create_directory(scratch.path() / "empty");
  Result<OwnedDir> dir = OwnedDir::claim(scratch.path() / "empty", "hunt");
  ASSERT_TRUE(dir) << dir.error().message;
  EXPECT_TRUE(dir->fresh());
}

TEST(OwnedDirTest, AFolderOfTheUsersIsRefusedAndLeftAlone) {
  stguard_test::TempDir scratch;
  const fs::path m = scratch.path() / "m";
  write_text(m / "llama" / "model-00001-of-00002.safetensors", "weights");
  write_text(m / "manifest.json", "{\"mine\":true}");
  EXPECT_EQ(refusal(m, "corpus build"),
            m.string() +
                ": not empty, and not made by `stguard corpus build` (it has no "
                ".stguard-owned.json); stguard writes only into a new or empty folder or "
                "one it made, so that it never overwrites or deletes files it did not "
                "make: give another folder");
  EXPECT_FALSE(fs::exists(m / kOwnedMarker));
  EXPECT_EQ(read_text(m / "manifest.json"), "{\"mine\":true}");
  // A file is not a folder; another command's folder is not this one's.
  write_text(scratch.path() / "file", "x");
  EXPECT_EQ(refusal(scratch.path() / "file", "hunt"),
            (scratch.path() / "file").string() + ": not a directory");
  ASSERT_EQ(refusal(scratch.path() / "h", "hunt"), "");
  EXPECT_EQ(refusal(scratch.path() / "h", "corpus build"),
            (scratch.path() / "h").string() +
                ": made by `stguard hunt`, not `stguard corpus build`: give another folder");
  // A marker that is a link, or not stguard's, is not trusted.
  const fs::path linked = scratch.path() / "linked";
  fs::create_directory(linked);
  fs::create_symlink("/etc/hostname", linked / kOwnedMarker);
  EXPECT_NE(refusal(linked, "hunt"), "");
  write_text(scratch.path() / "junk" / kOwnedMarker, "[1,2]");
  EXPECT_NE(refusal(scratch.path() / "junk", "hunt"), "");
}

TEST(OwnedDirTest, OnlyListedFilesHoldingWhatWasWrittenAreRemoved) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "corpus";
  {
    Result<OwnedDir> dir = OwnedDir::claim(out, "corpus build");
    ASSERT_TRUE(dir) << dir.error().message;
    for (const char* name : {"a/one.bin", "a/two.bin", "b/three.bin", "top.txt"}) {
      const Result<OwnedDir::Wrote> wrote = dir->write(name, name);
      ASSERT_TRUE(wrote) << wrote.error().message;
      EXPECT_EQ(*wrote, OwnedDir::Wrote::kWritten);
    }
    EXPECT_EQ(dir->write("top.txt", "top.txt").value(), OwnedDir::Wrote::kUnchanged);
    const Result<void> saved = dir->save();
    ASSERT_TRUE(saved) << saved.error().message;
  }
  // The user adds a file of their own, edits one of stguard's.
  write_text(out / "a" / "mine.bin", "user data");
  write_text(out / "b" / "three.bin", "edited by the user");
  Result<OwnedDir> dir = OwnedDir::claim(out, "corpus build");
  ASSERT_TRUE(dir) << dir.error().message;
  EXPECT_FALSE(dir->fresh());
  // Something stguard did not make is never overwritten.
  const Result<OwnedDir::Wrote> refused = dir->write("a/mine.bin", "other");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, (out / "a" / "mine.bin").string() +
                                         ": stguard did not make this file; not overwriting it");
  EXPECT_EQ(read_text(out / "a" / "mine.bin"), "user data");
  // ... unless it already holds exactly what would be written.
  EXPECT_EQ(dir->write("a/mine.bin", "user data").value(), OwnedDir::Wrote::kUnchanged);
  const Result<OwnedDir::Stale> stale = dir->remove_stale({"top.txt", "a/mine.bin"});
  ASSERT_TRUE(stale) << stale.error().message;
  EXPECT_EQ(stale->removed, (std::vector<std::string>{"a/one.bin", "a/two.bin"}));
  EXPECT_EQ(stale->kept_changed, std::vector<std::string>{"b/three.bin"});
  EXPECT_EQ(read_text(out / "b" / "three.bin"), "edited by the user");
  EXPECT_EQ(read_text(out / "a" / "mine.bin"), "user data");
  EXPECT_TRUE(fs::is_directory(out / "a"));  // not empty
  EXPECT_TRUE(fs::is_directory(out / "b"));
  // A name that climbs out, or a link planted at a listed name, is refused.
  EXPECT_FALSE(dir->write("../escape.txt", "x"));
  EXPECT_FALSE(fs::exists(scratch.path() / "escape.txt"));
  fs::create_symlink(scratch.path() / "victim", out / "link.txt");
  write_text(scratch.path() / "victim", "precious");
  EXPECT_FALSE(dir->write("link.txt", "x"));
  EXPECT_EQ(read_text(scratch.path() / "victim"), "precious");
}

TEST(OwnedDirTest, DirectoriesItMadeGoWhenEmpty) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "corpus";
  Result<OwnedDir> dir = OwnedDir::claim(out, "corpus build");
  ASSERT_TRUE(dir) << dir.error().message;
  ASSERT_TRUE(dir->write("g/h/file.bin", "x"));
  const Result<OwnedDir::Stale> stale = dir->remove_stale({});
  ASSERT_TRUE(stale) << stale.error().message;
  EXPECT_EQ(stale->removed, std::vector<std::string>{"g/h/file.bin"});
  EXPECT_FALSE(fs::exists(out / "g"));
  EXPECT_TRUE(fs::exists(out / kOwnedMarker));
}

// A folder it made, replaced by a link to the user's folder holding the
// same files, at any depth: cleaning never follows the link (it once
// removed the user's files), and writing never goes through it.
TEST(OwnedDirTest, CleaningAndWritingNeverFollowALink) {
  for (const std::string linked : {"g", "g/h"}) {
    SCOPED_TRACE(linked);
    stguard_test::TempDir scratch;
    const fs::path out = scratch.path() / "corpus";
    {
      Result<OwnedDir> dir = OwnedDir::claim(out, "corpus build");
      ASSERT_TRUE(dir) << dir.error().message;
      ASSERT_TRUE(dir->write("g/h/file.bin", "x"));
      ASSERT_TRUE(dir->write("g/top.bin", "y"));
    }
    const fs::path users = scratch.path() / "users";
    fs::rename(out / linked, users);
    fs::create_directory_symlink(users, out / linked);
    Result<OwnedDir> dir = OwnedDir::claim(out, "corpus build");
    ASSERT_TRUE(dir) << dir.error().message;
    // Writing through the link is refused.
    EXPECT_FALSE(dir->write("g/h/file.bin", "changed"));
    const Result<OwnedDir::Stale> stale = dir->remove_stale({});
    ASSERT_TRUE(stale) << stale.error().message;
    const fs::path behind = linked == "g" ? users / "h/file.bin" : users / "file.bin";
    EXPECT_EQ(read_text(behind), "x");
    if (linked == "g") {
      EXPECT_EQ(read_text(users / "top.bin"), "y");
    }
    EXPECT_TRUE(fs::is_symlink(out / linked));
    EXPECT_FALSE(stale->kept_changed.empty());
  }
}

TEST(OwnedDirTest, ASecondClaimWhileTheFirstHoldsIsRefused) {
  stguard_test::TempDir scratch;
  {
    const Result<OwnedDir> first = OwnedDir::claim(scratch.path() / "h", "hunt");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(refusal(scratch.path() / "h", "hunt"),
              (scratch.path() / "h").string() + ": in use by another stguard command");
  }
  EXPECT_EQ(refusal(scratch.path() / "h", "hunt"), "");
}

// A command killed between its writes leaves every file it wrote listed.
TEST(OwnedDirTest, ANameIsListedOnDiskBeforeItsFileIsWritten) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "h";
  Result<OwnedDir> dir = OwnedDir::claim(out, "hunt");
  ASSERT_TRUE(dir) << dir.error().message;
  ASSERT_TRUE(dir->write("findings/a.bin", "a"));
  // No save(): the marker on disk must already name the file.
  const Result<std::string> marker = read_file(out / kOwnedMarker);
  ASSERT_TRUE(marker) << marker.error().message;
  EXPECT_NE(marker->find("\"findings/a.bin\""), std::string::npos) << *marker;
}

}  // namespace
}  // namespace stguard::base
