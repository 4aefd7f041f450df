// tests/verify/one_open_test.cc: every file verify reads is read through one
// descriptor. Between the passes that read headers and those that read
// contents (the test hook g_test_between_passes), a file is replaced by
// rename with one whose values are all NaN and whose bytes differ: the
// report must still describe the file that was opened first (its header,
// its hash and its values), never a mix of two files.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "folder_builder.h"
#include "hub_builder.h"
#include "verify/hub_cache.h"
#include "verify/layout.h"
#include "verify/open_files.h"
#include "verify/passes.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::FindingKind;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::describe;
using stguard_test::kF32Nan;
using stguard_test::kIndex;
using stguard_test::kNewCommit;
using stguard_test::kShard2;
using stguard_test::TempDir;

// Sets the hook for one test and clears it afterwards.
class BetweenPasses {
 public:
  explicit BetweenPasses(std::function<void()> hook) {
    stguard::verify::g_test_between_passes = std::move(hook);
  }
  ~BetweenPasses() { stguard::verify::g_test_between_passes = nullptr; }
  BetweenPasses(const BetweenPasses&) = delete;
  BetweenPasses& operator=(const BetweenPasses&) = delete;
};

// Shard 2 of the good model with every value NaN: same tensors, same size.
std::vector<std::uint8_t> nan_shard2() {
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> tensors;
  for (const std::string& name : stguard_test::good_layout().at(kShard2)) {
    tensors.emplace_back(name, std::vector<std::uint32_t>(4, kF32Nan));
  }
  return stguard_test::make_f32_shard(tensors);
}

// Writes `bytes` beside `path` and renames it over `path`, as `mv B A` does.
void replace_by_rename(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  const TempDir scratch;
  const std::string staged = scratch.write("staged", bytes);
  fs::path beside = path;
  beside += ".staged";
  fs::copy_file(staged, beside);
  fs::rename(beside, path);
}

using stguard_test::scanning;

// Nothing found, and the values read are the first file's (no NaN).
void expect_first_file_described(const VerifyReport& report) {
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(report.errors, 0u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kFileChanged), 0u) << describe(report);
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->nan, 0u);
  EXPECT_EQ(report.values->shards_incomplete, 0u);
}

TEST(OneOpen, ShardHashedAndScannedThroughTheDescriptorItsHeaderCameFrom) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  stguard_test::write_sums(dir);
  const BetweenPasses hook([&] { replace_by_rename(dir.file(kShard2), nan_shard2()); });
  const VerifyReport report = stguard_test::verify(dir, scanning());
  expect_first_file_described(report);
  ASSERT_TRUE(report.checksums.has_value());
  EXPECT_EQ(report.checksums->failed, 0u);
  EXPECT_EQ(report.checksums->verified, report.checksums->entries);
}

TEST(OneOpen, ShardScannedThroughTheDescriptorItsHeaderCameFrom) {
  const TempDir dir;
  stguard_test::write_good_model(dir);  // no SHA256SUMS: the value pass reads the shards
  const BetweenPasses hook([&] { replace_by_rename(dir.file(kShard2), nan_shard2()); });
  const VerifyReport report = stguard_test::verify(dir, scanning());
  expect_first_file_described(report);
  EXPECT_GT(report.values->bytes_read, 0u);
}

TEST(OneOpen, IndexHashedThroughTheDescriptorItWasReadFrom) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  stguard_test::write_sums(dir);
  const BetweenPasses hook([&] {
    std::string text = stguard_test::read_text(dir.file(kIndex));
    text += "\n";  // the same index to a reader, another digest
    replace_by_rename(dir.file(kIndex), stguard_test::bytes_of(text));
  });
  const VerifyReport report = stguard_test::verify(dir);
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kChecksumMismatch), 0u) << describe(report);
}

TEST(OneOpen, HubBlobHashedAndScannedThroughTheDescriptorItsHeaderCameFrom) {
  const TempDir dir;
  const stguard_test::HubRepo repo = stguard_test::build_hub_repo(dir);
  const fs::path blob = repo.blob_path(repo.blob_of(kNewCommit, kShard2));
  const BetweenPasses hook([&] { replace_by_rename(blob, nan_shard2()); });
  const VerifyReport report = stguard_test::verify_path(repo.root, scanning());
  expect_first_file_described(report);
  EXPECT_EQ(report.count(FindingKind::kHubContentMismatch), 0u) << describe(report);
}

TEST(OneOpen, LocalDirFileExaminedHashedAndScannedThroughOneDescriptor) {
  const TempDir dir;
  stguard_test::build_local_dir(dir);
  const BetweenPasses hook([&] { replace_by_rename(dir.file(kShard2), nan_shard2()); });
  const VerifyReport report = stguard_test::verify_path(dir.path(), scanning());
  expect_first_file_described(report);
  EXPECT_EQ(report.warnings, 0u) << describe(report);  // no hub_metadata_stale: the old mtime
  EXPECT_EQ(report.count(FindingKind::kHubContentMismatch), 0u) << describe(report);
}

// Lowers the soft limit on open files for one test (the tables keep half of
// it) and puts it back afterwards.
class SoftFileLimit {
 public:
  explicit SoftFileLimit(rlim_t soft) {
    EXPECT_EQ(::getrlimit(RLIMIT_NOFILE, &saved_), 0);
    struct rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  }
  ~SoftFileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  SoftFileLimit(const SoftFileLimit&) = delete;
  SoftFileLimit& operator=(const SoftFileLimit&) = delete;

 private:
  struct rlimit saved_ {};
};

// More shards than the descriptor budget: the run still works, and a shard
// the tables could not keep open, replaced between the header pass and the
// value pass, is file_changed and not read: none of its values is taken
// for the first file's.
TEST(OneOpen, PastTheDescriptorBudgetAReplacedFileIsFileChangedNeverMixed) {
  constexpr int kShards = 60;  // more than the soft limit itself
  const TempDir dir;
  const auto name = [](int i) { return "s" + std::to_string(100 + i) + ".safetensors"; };
  for (int i = 0; i < kShards; ++i) {
    dir.write(name(i), stguard_test::make_f32_shard(
                           {{"t" + std::to_string(i), {stguard_test::kF32One, 0, 0, 0}}}));
  }
  const SoftFileLimit limit(48);  // the tables keep 24 descriptors
  ASSERT_EQ(stguard::verify::OpenFiles::budget(), 24u);
  const VerifyReport whole = stguard_test::verify(dir, scanning());
  EXPECT_EQ(whole.exit_code(), 0) << describe(whole);

  const std::string last = name(kShards - 1);  // opened past the budget
  const BetweenPasses hook([&] {
    replace_by_rename(dir.file(last),
                      stguard_test::make_f32_shard({{"t" + std::to_string(kShards - 1),
                                                     std::vector<std::uint32_t>(4, kF32Nan)}}));
  });
  const VerifyReport report = stguard_test::verify(dir, scanning());
  EXPECT_EQ(stguard_test::error_kinds(report), std::multiset<std::string>{"file_changed"})
      << describe(report);
  const stguard::verify::Finding* f = stguard_test::find(report, FindingKind::kFileChanged);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, last);
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->nan, 0u);
  EXPECT_EQ(report.values->shards_incomplete, 1u);
}

// DIR itself is opened once: its layout is detected on the descriptor the
// checks then list, not on whatever the path names at that moment. Here the
// path names a plain folder and the descriptor a Hub cache (as after a
// rename of another folder over DIR between the two).
TEST(OneOpen, LayoutIsDetectedOnTheDescriptorTheChecksUse) {
  const TempDir plain;
  stguard_test::write_good_model(plain);
  const TempDir cache_dir;
  const stguard_test::HubRepo repo = stguard_test::build_hub_repo(cache_dir);
  stguard::base::Opened cache = stguard::verify::open_dir_argument(repo.cache.string());
  ASSERT_TRUE(cache.fd);
  EXPECT_EQ(stguard::verify::detect_layout(plain.path().string(), cache.fd.get()),
            stguard::verify::Layout::kHubCache);
  const VerifyReport report = stguard::verify::verify_hub(
      plain.path().string(), std::move(cache), stguard::verify::Layout::kHubCache, VerifyOptions{});
  ASSERT_TRUE(report.hub.has_value());
  EXPECT_EQ(report.hub->repositories.size(), 1u) << describe(report);
}

}  // namespace
