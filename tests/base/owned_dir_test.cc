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
#include "tests/support/temp_dir.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string contents(const fs::path& path) {
  const std::optional<std::string> text = read_file(path, nullptr);
  return text ? *text : "<missing>";
}

TEST(OwnedDirTest, ANewOrEmptyFolderIsClaimedAndMarked) {
  stguard_test::TempDir scratch;
  std::string error;
  {
    std::optional<OwnedDir> dir = OwnedDir::claim(scratch.path() / "new" / "out", "hunt", &error);
    ASSERT_TRUE(dir) << error;
    EXPECT_TRUE(dir->fresh());
    EXPECT_TRUE(fs::is_regular_file(scratch.path() / "new" / "out" / kOwnedMarker));
  }
  fs::create_directory(scratch.path() / "empty");
  std::optional<OwnedDir> dir = OwnedDir::claim(scratch.path() / "empty", "hunt", &error);
  ASSERT_TRUE(dir) << error;
  EXPECT_TRUE(dir->fresh());
}

TEST(OwnedDirTest, AFolderOfTheUsersIsRefusedAndLeftAlone) {
  stguard_test::TempDir scratch;
  const fs::path m = scratch.path() / "m";
  put(m / "llama" / "model-00001-of-00002.safetensors", "weights");
  put(m / "manifest.json", "{\"mine\":true}");
  std::string error;
  EXPECT_FALSE(OwnedDir::claim(m, "corpus build", &error));
  EXPECT_EQ(error, m.string() +
                       ": not empty, and not made by `stguard corpus build` (it has no "
                       ".stguard-owned.json); stguard writes only into a new or empty folder or "
                       "one it made, so that it never overwrites or deletes files it did not "
                       "make: give another folder");
  EXPECT_FALSE(fs::exists(m / kOwnedMarker));
  EXPECT_EQ(contents(m / "manifest.json"), "{\"mine\":true}");
  // A file is not a folder; another command's folder is not this one's.
  put(scratch.path() / "file", "x");
  EXPECT_FALSE(OwnedDir::claim(scratch.path() / "file", "hunt", &error));
  EXPECT_EQ(error, (scratch.path() / "file").string() + ": not a directory");
  ASSERT_TRUE(OwnedDir::claim(scratch.path() / "h", "hunt", &error)) << error;
  EXPECT_FALSE(OwnedDir::claim(scratch.path() / "h", "corpus build", &error));
  EXPECT_EQ(error, (scratch.path() / "h").string() +
                       ": made by `stguard hunt`, not `stguard corpus build`: give another folder");
  // A marker that is a link, or not stguard's, is not trusted.
  const fs::path linked = scratch.path() / "linked";
  fs::create_directory(linked);
  fs::create_symlink("/etc/hostname", linked / kOwnedMarker);
  EXPECT_FALSE(OwnedDir::claim(linked, "hunt", &error));
  put(scratch.path() / "junk" / kOwnedMarker, "[1,2]");
  EXPECT_FALSE(OwnedDir::claim(scratch.path() / "junk", "hunt", &error));
}

TEST(OwnedDirTest, OnlyListedFilesHoldingWhatWasWrittenAreRemoved) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "corpus";
  std::string error;
  {
    std::optional<OwnedDir> dir = OwnedDir::claim(out, "corpus build", &error);
    ASSERT_TRUE(dir) << error;
    for (const char* name : {"a/one.bin", "a/two.bin", "b/three.bin", "top.txt"}) {
      ASSERT_EQ(dir->write(name, name, &error), OwnedDir::Wrote::kWritten) << error;
    }
    EXPECT_EQ(dir->write("top.txt", "top.txt", &error), OwnedDir::Wrote::kUnchanged);
    ASSERT_TRUE(dir->save(&error)) << error;
  }
  // The user adds a file of their own, edits one of stguard's.
  put(out / "a" / "mine.bin", "user data");
  put(out / "b" / "three.bin", "edited by the user");
  std::optional<OwnedDir> dir = OwnedDir::claim(out, "corpus build", &error);
  ASSERT_TRUE(dir) << error;
  EXPECT_FALSE(dir->fresh());
  // Something stguard did not make is never overwritten.
  EXPECT_FALSE(dir->write("a/mine.bin", "other", &error));
  EXPECT_EQ(error, (out / "a" / "mine.bin").string() +
                       ": stguard did not make this file; not overwriting it");
  EXPECT_EQ(contents(out / "a" / "mine.bin"), "user data");
  // ... unless it already holds exactly what would be written.
  EXPECT_EQ(dir->write("a/mine.bin", "user data", &error), OwnedDir::Wrote::kUnchanged);
  std::vector<std::string> removed;
  std::vector<std::string> kept;
  ASSERT_TRUE(dir->remove_stale({"top.txt", "a/mine.bin"}, &removed, &kept, &error)) << error;
  EXPECT_EQ(removed, (std::vector<std::string>{"a/one.bin", "a/two.bin"}));
  EXPECT_EQ(kept, std::vector<std::string>{"b/three.bin"});
  EXPECT_EQ(contents(out / "b" / "three.bin"), "edited by the user");
  EXPECT_EQ(contents(out / "a" / "mine.bin"), "user data");
  EXPECT_TRUE(fs::is_directory(out / "a"));  // not empty
  EXPECT_TRUE(fs::is_directory(out / "b"));
  // A name that climbs out, or a link planted at a listed name, is refused.
  EXPECT_FALSE(dir->write("../escape.txt", "x", &error));
  EXPECT_FALSE(fs::exists(scratch.path() / "escape.txt"));
  fs::create_symlink(scratch.path() / "victim", out / "link.txt");
  put(scratch.path() / "victim", "precious");
  EXPECT_FALSE(dir->write("link.txt", "x", &error));
  EXPECT_EQ(contents(scratch.path() / "victim"), "precious");
}

TEST(OwnedDirTest, DirectoriesItMadeGoWhenEmpty) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "corpus";
  std::string error;
  std::optional<OwnedDir> dir = OwnedDir::claim(out, "corpus build", &error);
  ASSERT_TRUE(dir) << error;
  ASSERT_TRUE(dir->write("g/h/file.bin", "x", &error)) << error;
  std::vector<std::string> removed;
  std::vector<std::string> kept;
  ASSERT_TRUE(dir->remove_stale({}, &removed, &kept, &error)) << error;
  EXPECT_EQ(removed, std::vector<std::string>{"g/h/file.bin"});
  EXPECT_FALSE(fs::exists(out / "g"));
  EXPECT_TRUE(fs::exists(out / kOwnedMarker));
}

TEST(OwnedDirTest, ASecondClaimWhileTheFirstHoldsIsRefused) {
  stguard_test::TempDir scratch;
  std::string error;
  std::optional<OwnedDir> first = OwnedDir::claim(scratch.path() / "h", "hunt", &error);
  ASSERT_TRUE(first) << error;
  EXPECT_FALSE(OwnedDir::claim(scratch.path() / "h", "hunt", &error));
  EXPECT_EQ(error, (scratch.path() / "h").string() + ": in use by another stguard command");
  first.reset();
  EXPECT_TRUE(OwnedDir::claim(scratch.path() / "h", "hunt", &error)) << error;
}

// A command killed between its writes leaves every file it wrote listed.
TEST(OwnedDirTest, ANameIsListedOnDiskBeforeItsFileIsWritten) {
  stguard_test::TempDir scratch;
  const fs::path out = scratch.path() / "h";
  std::string error;
  std::optional<OwnedDir> dir = OwnedDir::claim(out, "hunt", &error);
  ASSERT_TRUE(dir) << error;
  ASSERT_TRUE(dir->write("findings/a.bin", "a", &error)) << error;
  // No save(): the marker on disk must already name the file.
  const std::optional<std::string> marker = read_file(out / kOwnedMarker, &error);
  ASSERT_TRUE(marker) << error;
  EXPECT_NE(marker->find("\"findings/a.bin\""), std::string::npos) << *marker;
}

}  // namespace
}  // namespace stguard::base
