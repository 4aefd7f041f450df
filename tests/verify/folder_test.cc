// tests/verify/folder_test.cc: whole folders: a good one, a single file, an
// empty one, one that cannot be verified at all, leftovers of interrupted
// downloads; and nothing in DIR (or outside it) changes while it is verified.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "folder_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::Severity;
using stguard::verify::ShardVerdict;
using stguard::verify::verify_model_folder;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::kGoodTotalSize;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::make_shard;
using stguard_test::read_text;
using stguard_test::TempDir;
using stguard_test::verify;
using stguard_test::write_good_model;
using stguard_test::write_sums;

// ------------------------------------------------------------ good folder --

TEST(VerifyFolder, GoodShardedModelWithIndexAndChecksums) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  const VerifyReport report = verify(dir);
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  ASSERT_EQ(report.shards.size(), 3u);
  for (const auto& s : report.shards) EXPECT_EQ(s.verdict, ShardVerdict::kAccept) << s.file;
  EXPECT_EQ(report.tensors, 5u);
  EXPECT_EQ(report.tensor_bytes, kGoodTotalSize);
  ASSERT_EQ(report.indexes.size(), 1u);
  EXPECT_TRUE(report.indexes[0].usable);
  EXPECT_EQ(report.indexes[0].entries, 5u);
  EXPECT_EQ(report.indexes[0].computed_size, kGoodTotalSize);
  ASSERT_TRUE(report.checksums.has_value());
  EXPECT_EQ(report.checksums->entries, 6u);  // 3 shards, index, config, tokenizer
  EXPECT_EQ(report.checksums->verified, 6u);
  EXPECT_EQ(report.checksums->failed, 0u);
}

TEST(VerifyFolder, SingleFileWithoutIndexIsFine) {
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a", "b"}));
  dir.write("config.json", bytes_of("{}"));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_FALSE(report.checksums.has_value());
}

TEST(VerifyFolder, EmptyFolderHasNoShards) {
  const TempDir dir;
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"no_shards"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(VerifyFolder, CouldNotRun) {
  const TempDir dir;
  dir.write("file.txt", bytes_of("x"));
  EXPECT_EQ(verify_model_folder(dir.file("absent"), {}).exit_code(), 2);
  EXPECT_EQ(verify_model_folder(dir.file("file.txt"), {}).exit_code(), 2);
  VerifyOptions options;
  options.sha256_file = dir.file("no-such-list");
  const VerifyReport report = verify_model_folder(dir.path().string(), options);
  EXPECT_FALSE(report.ran);
  EXPECT_EQ(report.exit_code(), 2);
}

// ------------------------------------------------------------ stray files --

TEST(VerifyStray, LeftoversOfInterruptedDownloadsAreWarnings) {
  const TempDir dir;
  write_good_model(dir);
  // The contents are verified (a --local-dir folder with no usable metadata
  // and no SHA256SUMS would be hub_nothing_verified, an error).
  write_sums(dir);
  dir.write(kShard2 + ".part", bytes_of("partial"));
  dir.write(kShard3 + ".incomplete", bytes_of("partial"));
  dir.write("." + kShard1 + ".Xy12Ab", bytes_of("rsync temp"));
  dir.write("model.safetensors.tmp", bytes_of("tmp"));
  fs::create_directories(dir.path() / ".cache" / "huggingface" / "download");
  dir.write(".cache/huggingface/download/abcdef.incomplete", bytes_of("x"));
  dir.write("generation_config.json", bytes_of("{}"));
  dir.write("README.md", bytes_of("# model"));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  // The .cache folder makes DIR a --local-dir download, whose leftover gets
  // the more precise hub_download_incomplete.
  EXPECT_EQ(report.layout, stguard::verify::Layout::kLocalDir);
  EXPECT_EQ(report.count(FindingKind::kStrayFile), 4u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kHubDownloadIncomplete), 1u) << describe(report);
  for (const Finding& f : report.findings) EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(report.exit_code(), 0);
}

// --------------------------------------------------------------- read-only --

struct Snapshot {
  struct Item {
    unsigned mode = 0;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
    std::uint64_t inode = 0;
    std::string content;  // sha256 hex, or the symlink target
    friend bool operator==(const Item&, const Item&) = default;
  };
  std::map<std::string, Item> items;  // relative path ("." = the directory) -> item
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot snapshot(const fs::path& root) {
  Snapshot out;
  const auto take = [&](const fs::path& path, const std::string& rel) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) std::abort();
    Snapshot::Item item;
    item.mode = st.st_mode;
    item.size = static_cast<std::uint64_t>(st.st_size);
    item.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
    item.ctime_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec;
    item.inode = st.st_ino;
    if (S_ISLNK(st.st_mode)) {
      item.content = fs::read_symlink(path).string();
    } else if (S_ISREG(st.st_mode)) {
      item.content = stguard::base::sha256_hex(read_text(path.string()));
    }
    out.items[rel] = item;
  };
  take(root, ".");
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    take(it->path(), fs::relative(it->path(), root).string());
  }
  return out;
}

TEST(VerifyReadOnly, NothingInDirChanges) {
  const TempDir outside;
  outside.write("target.safetensors", make_shard({"x"}));
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  // Every kind of thing verify touches or reports.
  dir.write("broken.safetensors", bytes_of("<html>nope</html>"));
  dir.write("empty.safetensors", {});
  dir.write(kShard2 + ".part", bytes_of("partial"));
  fs::create_symlink("config.json", dir.path() / "linked.json");
  fs::create_symlink(outside.file("target.safetensors"), dir.path() / "escape.safetensors");
  fs::create_directory(dir.path() / "sub");
  dir.write("sub/inner.bin", bytes_of("inner"));
  ASSERT_EQ(::mkfifo(dir.file("fifo.safetensors").c_str(), 0600), 0);

  const Snapshot before = snapshot(dir.path());
  const Snapshot outside_before = snapshot(outside.path());
  ASSERT_GE(before.items.size(), 14u);
  for (const bool follow : {false, true}) {
    VerifyOptions options;
    options.follow_symlinks = follow;
    options.hash.io = follow ? stguard::base::HashIo::kMmap : stguard::base::HashIo::kRead;
    const VerifyReport report = verify(dir, options);
    EXPECT_TRUE(report.ran);
    EXPECT_EQ(report.exit_code(), 1);
  }
  EXPECT_TRUE(snapshot(dir.path()) == before);
  EXPECT_TRUE(snapshot(outside.path()) == outside_before);
}

}  // namespace
