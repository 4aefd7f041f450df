// tests/verify/paths_test.cc: names from the index or the checksum list that
// could leave DIR are never opened, and symlinks are reported, followed only
// inside DIR, never outside.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/path.h"
#include "base/sha256.h"
#include "folder_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::ShardVerdict;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::kShard2;
using stguard_test::make_shard;
using stguard_test::read_text;
using stguard_test::shard;
using stguard_test::TempDir;
using stguard_test::verify;
using stguard_test::verify_with_index;
using stguard_test::write_good_model;
using stguard_test::write_sums;

TEST(VerifyPaths, IndexShardNamesThatLeaveDirAreNeverOpened) {
  const TempDir outside;
  outside.write("escape.safetensors", make_shard({"ghost"}));
  const TempDir dir;
  const std::string up = "../" + outside.path().filename().string() + "/escape.safetensors";
  const std::vector<std::string> hostile = {up, outside.file("escape.safetensors"),
                                            "..\\escape.safetensors",
                                            std::string("a\0b.safetensors", 15)};
  const VerifyReport report = verify_with_index(dir, [&](auto& map) {
    for (std::size_t i = 0; i < hostile.size(); ++i) {
      map.emplace_back("ghost." + std::to_string(i), hostile[i]);
    }
  });
  EXPECT_EQ(error_kinds(report), (std::multiset<std::string>{"unsafe_path", "unsafe_path",
                                                             "unsafe_path", "unsafe_path"}))
      << describe(report);
  // Neither the tensor outside nor the file were taken in.
  EXPECT_EQ(report.count(FindingKind::kTensorMissing), 0u);
  EXPECT_EQ(report.shards.size(), 3u);
}

TEST(VerifyPaths, ChecksumNamesThatLeaveDirAreNeverOpened) {
  const TempDir outside;
  outside.write("secret.txt", bytes_of("secret"));
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = read_text(dir.file("SHA256SUMS"));
  const std::string hex(64, 'a');
  sums += hex + "  ../" + outside.path().filename().string() + "/secret.txt\n";
  sums += hex + " *" + outside.file("secret.txt") + "\n";
  sums += hex + "  sub\\..\\secret.txt\n";
  sums += hex + "  ./sub/../../secret.txt\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), (std::multiset<std::string>{"unsafe_path", "unsafe_path",
                                                             "unsafe_path", "unsafe_path"}))
      << describe(report);
  for (const Finding& f : report.findings) EXPECT_TRUE(f.line.has_value());
  EXPECT_EQ(report.checksums->verified, 6u);
}

TEST(VerifyPaths, ChecksumNameThroughSymlinkedDirectoryStaysInside) {
  const TempDir outside;
  outside.write("w.safetensors", make_shard({"w"}));
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a"}));
  fs::create_directory_symlink(outside.path(), dir.path() / "linked");
  const std::string hex = stguard::base::sha256_hex(read_text(outside.file("w.safetensors")));
  const std::string sums = stguard::base::sha256_hex(read_text(dir.file("model.safetensors"))) +
                           "  model.safetensors\n" + hex + "  linked/w.safetensors\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  // The link is refused by policy: a finding about the folder (exit status
  // 1), not a file that could not be read.
  for (const bool follow : {false, true}) {
    VerifyOptions options;
    options.follow_symlinks = follow;
    const VerifyReport report = verify(dir, options);
    EXPECT_EQ(error_kinds(report),
              std::multiset<std::string>{follow ? "symlink_escapes" : "symlink"})
        << describe(report);
    EXPECT_EQ(report.exit_code(), 1);
    // (Without following, "linked" itself is also a symlink warning.)
    const Finding* f = nullptr;
    for (const Finding& g : report.findings) {
      if (g.file == "linked/w.safetensors") f = &g;
    }
    ASSERT_NE(f, nullptr) << describe(report);
    EXPECT_EQ(f->kind, follow ? FindingKind::kSymlinkEscapes : FindingKind::kSymlink);
    EXPECT_EQ(f->line, 2u);
    EXPECT_EQ(report.checksums->verified, 1u);
    EXPECT_EQ(report.checksums->failed, 1u);
  }
}

// An indexed shard that is a symlink out of DIR, listed in SHA256SUMS: the
// link is reported once, as a link, and the run exits 1, not 2.
TEST(VerifyPaths, ListedShardLinkingOutsideDirIsALinkFindingNotUnreadable) {
  const TempDir outside;
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  fs::rename(dir.file(kShard2), outside.file(kShard2));
  fs::create_symlink(outside.file(kShard2), dir.path() / kShard2);
  for (const bool follow : {false, true}) {
    VerifyOptions options;
    options.follow_symlinks = follow;
    const VerifyReport report = verify(dir, options);
    EXPECT_EQ(report.count(FindingKind::kChecksumUnreadable), 0u) << describe(report);
    EXPECT_EQ(report.count(follow ? FindingKind::kSymlinkEscapes : FindingKind::kSymlink), 1u)
        << describe(report);
    EXPECT_EQ(report.exit_code(), 1) << describe(report);
  }
}

// A listed file that is a symlink out of DIR but no shard (the folder pass
// calls such a link a warning): its content goes unverified, an error.
TEST(VerifyPaths, ListedConfigLinkingOutsideDirIsAnError) {
  const TempDir outside;
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  fs::rename(dir.file("config.json"), outside.file("config.json"));
  fs::create_symlink(outside.file("config.json"), dir.path() / "config.json");
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"symlink"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1);
}

// SHA256SUMS itself a symlink out of DIR, with --follow-symlinks.
TEST(VerifyPaths, ChecksumListLinkingOutsideDirIsALinkFinding) {
  const TempDir outside;
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  fs::rename(dir.file("SHA256SUMS"), outside.file("SHA256SUMS"));
  fs::create_symlink(outside.file("SHA256SUMS"), dir.path() / "SHA256SUMS");
  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport report = verify(dir, follow);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"symlink_escapes"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1);
}

// ---------------------------------------------------------------- symlinks --

TEST(VerifySymlinks, ShardSymlinkInsideDirReportedUnlessFollowed) {
  const TempDir dir;
  write_good_model(dir);
  fs::create_directory(dir.path() / "blobs");
  fs::rename(dir.file(kShard2), dir.path() / "blobs" / "abc123");
  fs::create_symlink("blobs/abc123", dir.path() / kShard2);
  const VerifyReport plain = verify(dir);
  EXPECT_EQ(error_kinds(plain), std::multiset<std::string>{"symlink"}) << describe(plain);
  EXPECT_EQ(shard(plain, kShard2)->verdict, ShardVerdict::kSkipped);

  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport followed = verify(dir, follow);
  EXPECT_TRUE(followed.findings.empty()) << describe(followed);
  EXPECT_EQ(shard(followed, kShard2)->verdict, ShardVerdict::kAccept);
  EXPECT_TRUE(shard(followed, kShard2)->via_symlink);
}

TEST(VerifySymlinks, SymlinkLeavingDirIsNeverFollowed) {
  const TempDir outside;
  outside.write("real.safetensors", make_shard({"model.layers.1.w", "model.layers.2.w"}));
  const TempDir dir;
  write_good_model(dir);
  fs::remove(dir.file(kShard2));
  fs::create_symlink(outside.file("real.safetensors"), dir.path() / kShard2);  // absolute
  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport report = verify(dir, follow);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"symlink_escapes"}) << describe(report);
  EXPECT_EQ(shard(report, kShard2)->verdict, ShardVerdict::kSkipped);

  // The relative spelling of the same escape.
  fs::remove(dir.file(kShard2));
  fs::create_symlink("../" + outside.path().filename().string() + "/real.safetensors",
                     dir.path() / kShard2);
  const VerifyReport relative = verify(dir, follow);
  EXPECT_EQ(error_kinds(relative), std::multiset<std::string>{"symlink_escapes"})
      << describe(relative);
}

// A symlink loop inside DIR is not an escape: its own kind, for shards and
// indexes alike.
TEST(VerifySymlinks, SymlinkLoopIsItsOwnFinding) {
  const TempDir dir;
  write_good_model(dir);
  fs::remove(dir.file(kShard2));
  fs::create_symlink("loop.b", dir.path() / kShard2);
  fs::create_symlink(kShard2, dir.path() / "loop.b");
  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport report = verify(dir, follow);
  // The shard's tensors are then missing from the folder, as the index says.
  EXPECT_EQ(report.count(FindingKind::kSymlinkLoop), 1u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kSymlinkEscapes), 0u) << describe(report);
  EXPECT_EQ(shard(report, kShard2)->verdict, ShardVerdict::kSkipped);
  EXPECT_EQ(shard(report, kShard2)->kind, FindingKind::kSymlinkLoop);

  fs::remove(dir.file(stguard_test::kIndex));
  fs::create_symlink(stguard_test::kIndex, dir.path() / stguard_test::kIndex);  // to itself
  const VerifyReport index = verify(dir, follow);
  EXPECT_EQ(index.count(FindingKind::kSymlinkLoop), 2u) << describe(index);
  EXPECT_EQ(index.count(FindingKind::kSymlinkEscapes), 0u) << describe(index);
}

// An index that cannot be read is index_unreadable (exit status 2), not a
// malformed index: here a followed symlink to a directory.
TEST(VerifySymlinks, IndexThatCannotBeReadIsUnreadable) {
  const TempDir dir;
  write_good_model(dir);
  fs::remove(dir.file(stguard_test::kIndex));
  fs::create_directory(dir.path() / "sub");
  fs::create_symlink("sub", dir.path() / stguard_test::kIndex);
  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport report = verify(dir, follow);
  EXPECT_EQ(report.count(FindingKind::kIndexUnreadable), 1u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kIndexMalformed), 0u) << describe(report);
  EXPECT_EQ(report.exit_code(), 2);
}

TEST(VerifySymlinks, SymlinkedConfigIsOnlyAWarning) {
  const TempDir dir;
  write_good_model(dir);
  fs::rename(dir.file("config.json"), dir.file("config.real.json"));
  fs::create_symlink("config.real.json", dir.path() / "config.json");
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kSymlink), 1u);
  EXPECT_EQ(report.exit_code(), 0);
}

}  // namespace
