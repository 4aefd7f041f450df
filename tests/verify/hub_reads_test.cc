// tests/verify/hub_reads_test.cc: on the Hub layouts (a cache repository, a
// --local-dir download) each file is read once, whatever asks for its bytes:
// the Hub checksum, the value scan (--scan-values) and a SHA256SUMS beside
// them share one read. Counted from the report: the bytes the Hub hashing,
// the checksum pass and the value pass each read must add up to the files'
// sizes, not to a multiple of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/sha256.h"
#include "folder_builder.h"
#include "hub_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::ContentFile;
using stguard::verify::ContentVerdict;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::build_hub_repo;
using stguard_test::build_local_dir;
using stguard_test::describe;
using stguard_test::HubRepo;
using stguard_test::kNewCommit;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::TempDir;
using stguard_test::verify_path;

// Every byte any pass read, from the report.
std::uint64_t bytes_read(const VerifyReport& report) {
  std::uint64_t n = 0;
  if (report.hub) n += report.hub->bytes_hashed;
  if (report.checksums) n += report.checksums->bytes_hashed;
  if (report.values) n += report.values->bytes_read;
  return n;
}

// The sizes of the regular files below `dir`, skipping .cache (the
// --local-dir metadata, read as text, not hashed).
std::uint64_t sizes_below(const fs::path& dir) {
  std::uint64_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && it->path().filename() == ".cache") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) n += it->file_size();
  }
  return n;
}

using stguard_test::scanning;

// Two revisions sharing three of their blobs: seven blobs, each read once,
// though six snapshot shards are value-scanned.
TEST(HubReads, CacheRepositoryReadsEachBlobOnceWithScanValues) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const VerifyReport report = verify_path(repo.root, scanning());
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->shards, 6u);
  EXPECT_EQ(report.values->tensors, report.tensors);
  EXPECT_EQ(report.values->bytes_read, 0u);  // the scans rode on the blob hashing
  EXPECT_EQ(bytes_read(report), sizes_below(repo.root / "blobs"));
}

TEST(HubReads, LocalDirReadsEachFileOnceWithScanValues) {
  const TempDir dir;
  build_local_dir(dir);
  const VerifyReport report = verify_path(dir.path(), scanning());
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->shards, 3u);
  EXPECT_EQ(report.values->bytes_read, 0u);
  EXPECT_EQ(bytes_read(report), sizes_below(dir.path()));
}

// A SHA256SUMS beside the etags: one sha256 per file, held against both.
TEST(HubReads, LocalDirWithSha256SumsHashesEachFileOnce) {
  const TempDir dir;
  build_local_dir(dir);
  std::string sums;
  for (const std::string& shard : {kShard1, kShard2, kShard3}) {
    sums +=
        stguard::base::sha256_hex(stguard_test::read_text(dir.file(shard))) + "  " + shard + "\n";
  }
  std::ofstream(dir.file("SHA256SUMS")) << sums;
  const VerifyReport report = verify_path(dir.path(), scanning());
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  ASSERT_TRUE(report.checksums.has_value());
  EXPECT_EQ(report.checksums->verified, 3u);
  EXPECT_EQ(report.checksums->bytes_hashed, 0u);  // the etag check's digests, reused
  // SHA256SUMS itself has no metadata and nothing hashes it.
  EXPECT_EQ(bytes_read(report), sizes_below(dir.path()) - sums.size());
}

TEST(HubReads, SnapshotWithSha256SumsHashesEachBlobOnce) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  std::string sums;
  for (const std::string& shard : {kShard1, kShard2, kShard3}) {
    sums += repo.blob_of(kNewCommit, shard) + "  " + shard + "\n";
  }
  std::ofstream(repo.snapshot(kNewCommit) / "SHA256SUMS") << sums;
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  ASSERT_TRUE(report.checksums.has_value());
  EXPECT_EQ(report.checksums->verified, 3u);
  EXPECT_EQ(report.checksums->bytes_hashed, 0u);  // the blob names' digests, reused
  EXPECT_EQ(bytes_read(report), sizes_below(repo.root / "blobs"));
}

}  // namespace
