// tests/verify/hub_cache_test.cc: `verify` on the Hugging Face cache: a
// repository with two revisions, one snapshot, the cache root; each fault
// (a flipped byte, a dangling link, an interrupted download, unused blobs,
// bad refs) and hostile links, which are reported and never followed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/git_blob.h"
#include "base/sha256.h"
#include "folder_builder.h"
#include "hub_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::ContentFile;
using stguard::verify::ContentVerdict;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::Layout;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::build_hub_pipeline;
using stguard_test::build_hub_repo;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::flip_byte;
using stguard_test::flip_last_byte;
using stguard_test::HubRepo;
using stguard_test::kIndex;
using stguard_test::kNewCommit;
using stguard_test::kOldCommit;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::read_text;
using stguard_test::TempDir;
using stguard_test::verify_path;
using stguard_test::warning_kinds;

std::uint64_t verified_files(const VerifyReport& report) {
  std::uint64_t n = 0;
  if (!report.hub) return n;
  for (const ContentFile& f : report.hub->files) {
    if (f.verdict == ContentVerdict::kVerified) ++n;
  }
  return n;
}

const ContentFile* content(const VerifyReport& report, const std::string& file) {
  if (!report.hub) return nullptr;
  for (const ContentFile& f : report.hub->files) {
    if (f.file == file) return &f;
  }
  return nullptr;
}

// -------------------------------------------------------------- good repo --

// Each snapshot is verified as a folder of its own and merged into the
// repository's report: its checkpoints and its value scan travel with it,
// named from the repository (before, the Hub layouts reported "0
// checkpoints" and no values summary).
TEST(HubCache, CheckpointsAndValueScanOfEachSnapshotReachTheReport) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  VerifyOptions options;
  options.scan_values = true;
  const VerifyReport report = verify_path(repo.root, options);
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  std::set<std::string> names;
  for (const auto& c : report.checkpoints) names.insert(c.name);
  EXPECT_EQ(names, (std::set<std::string>{"snapshots/" + std::string(kOldCommit) + "/" + kIndex,
                                          "snapshots/" + std::string(kNewCommit) + "/" + kIndex}));
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->shards, 6u);  // three per snapshot
  EXPECT_EQ(report.values->tensors, report.tensors);
}

TEST(HubCache, TwoRevisionsVerifyWithNoSha256Sums) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const VerifyReport report = verify_path(repo.root);
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_EQ(report.layout, Layout::kHubRepo);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  ASSERT_TRUE(report.hub.has_value());
  // 5 files per revision; shards 1 and 2 and the index are shared: 7 blobs.
  EXPECT_EQ(report.hub->files.size(), 7u);
  EXPECT_EQ(verified_files(report), 7u);
  EXPECT_EQ(report.checksum_sources, std::vector<std::string>{"hub-blob-names"});
  EXPECT_EQ(report.shards.size(), 6u);  // three per snapshot, each checked
  ASSERT_EQ(report.hub->snapshots.size(), 2u);
  EXPECT_EQ(report.hub->snapshots[0].commit, kOldCommit);
  EXPECT_TRUE(report.hub->snapshots[0].refs.empty());
  EXPECT_EQ(report.hub->snapshots[1].commit, kNewCommit);
  EXPECT_EQ(report.hub->snapshots[1].refs, std::vector<std::string>{"main"});
  EXPECT_EQ(report.hub->snapshots[1].verified, 5u);
  // A blob both revisions use says so, with the ref that covers it.
  const ContentFile* shared = content(report, "blobs/" + repo.blob_of(kOldCommit, kShard1));
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->algorithm, "sha256");
  EXPECT_EQ(shared->used_by.size(), 2u);
  EXPECT_EQ(shared->refs, std::vector<std::string>{"main"});
  const ContentFile* config = content(report, "blobs/" + repo.blob_of(kOldCommit, "config.json"));
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->algorithm, "git-blob-sha1");
  EXPECT_TRUE(config->refs.empty());  // only the old revision has it
}

TEST(HubCache, OneSnapshotGivenDirectly) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const VerifyReport report = verify_path(repo.snapshot(kNewCommit));
  EXPECT_EQ(report.layout, Layout::kHubSnapshot);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  ASSERT_TRUE(report.hub.has_value());
  ASSERT_EQ(report.hub->snapshots.size(), 1u);
  EXPECT_EQ(report.hub->snapshots[0].commit, kNewCommit);
  EXPECT_EQ(report.hub->files.size(), 5u);
  EXPECT_EQ(report.shards.size(), 3u);
}

TEST(HubCache, TrailingSlashAndForcedLayout) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  EXPECT_EQ(verify_path(repo.root.string() + "/").layout, Layout::kHubRepo);
  VerifyOptions folder;
  folder.layout = Layout::kFolder;  // as before: the links leave the folder
  const VerifyReport plain = verify_path(repo.snapshot(kNewCommit), folder);
  EXPECT_EQ(plain.layout, Layout::kFolder);
  EXPECT_EQ(plain.exit_code(), 1);
}

// ------------------------------------------------------------------ faults --

TEST(HubCache, FlippedByteInOneBlobNamesTheFileAndBothHashes) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const std::string blob = repo.blob_of(kNewCommit, kShard3);
  flip_last_byte(repo.blob_path(blob));
  const std::string actual = stguard::base::sha256_hex(read_text(repo.blob_path(blob).string()));
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_content_mismatch"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "blobs/" + blob);
  EXPECT_EQ(f->expected_sha256, blob);
  EXPECT_EQ(f->actual_sha256, actual);
  EXPECT_NE(f->message.find("snapshots/" + kNewCommit + "/" + kShard3), std::string::npos);
  EXPECT_NE(f->message.find(blob), std::string::npos);
  EXPECT_NE(f->message.find(actual), std::string::npos);
}

using stguard_test::checkpoint;

// A blob that fails its name fails the checkpoint of every snapshot that
// links to it, not only the repository (as for --local-dir); a blob only
// one revision uses fails that revision's checkpoint alone.
TEST(HubCache, CorruptBlobFailsTheCheckpointOfEverySnapshotUsingIt) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const std::string old_index = "snapshots/" + kOldCommit + "/" + kIndex;
  const std::string new_index = "snapshots/" + kNewCommit + "/" + kIndex;
  ASSERT_EQ(repo.blob_of(kOldCommit, kShard1), repo.blob_of(kNewCommit, kShard1));
  flip_last_byte(repo.blob_path(repo.blob_of(kOldCommit, kShard1)));
  VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_content_mismatch"})
      << describe(report);
  ASSERT_NE(checkpoint(report, old_index), nullptr);
  ASSERT_NE(checkpoint(report, new_index), nullptr);
  EXPECT_EQ(checkpoint(report, old_index)->errors, 1u);
  EXPECT_EQ(checkpoint(report, new_index)->errors, 1u);
  const Finding* f = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->checkpoint, old_index);
  EXPECT_EQ(report.errors, 1u);  // counted once in the totals

  const TempDir dir2;
  const HubRepo repo2 = build_hub_repo(dir2);
  ASSERT_NE(repo2.blob_of(kOldCommit, kShard3), repo2.blob_of(kNewCommit, kShard3));
  flip_last_byte(repo2.blob_path(repo2.blob_of(kNewCommit, kShard3)));
  report = verify_path(repo2.root);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_TRUE(checkpoint(report, old_index)->ok());
  EXPECT_FALSE(checkpoint(report, new_index)->ok());

  // Given the snapshot alone, or the cache root, the same.
  report = verify_path(repo2.snapshot(kNewCommit));
  ASSERT_EQ(report.checkpoints.size(), 1u);
  EXPECT_FALSE(report.checkpoints[0].ok());
  report = verify_path(repo2.cache);
  ASSERT_NE(checkpoint(report, "models--org--tiny/" + new_index), nullptr);
  EXPECT_FALSE(checkpoint(report, "models--org--tiny/" + new_index)->ok());
  EXPECT_TRUE(checkpoint(report, "models--org--tiny/" + old_index)->ok());
}

TEST(HubCache, EditedSmallFileFailsItsGitBlobHash) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const std::string blob = repo.blob_of(kOldCommit, "config.json");
  flip_byte(repo.blob_path(blob), 3);
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_content_mismatch"})
      << describe(report);
  const ContentFile* c = content(report, "blobs/" + blob);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, ContentVerdict::kMismatch);
  EXPECT_EQ(c->actual, stguard::base::git_blob_hex(read_text(repo.blob_path(blob).string())));
}

TEST(HubCache, DanglingLinkAndIncompleteBlobAreReported) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  // An interrupted download: the blob is still blobs/<hash>.incomplete.
  const std::string blob = repo.blob_of(kNewCommit, kShard3);
  fs::rename(repo.blob_path(blob), repo.blob_path(blob + ".incomplete"));
  fs::resize_file(repo.blob_path(blob + ".incomplete"), 50);
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  const Finding* dangling = find(report, FindingKind::kHubLinkDangling);
  ASSERT_NE(dangling, nullptr) << describe(report);
  EXPECT_EQ(dangling->file, "snapshots/" + kNewCommit + "/" + kShard3);
  EXPECT_NE(dangling->message.find(".incomplete"), std::string::npos);
  const Finding* partial = find(report, FindingKind::kHubBlobIncomplete);
  ASSERT_NE(partial, nullptr) << describe(report);
  EXPECT_EQ(partial->file, "blobs/" + blob + ".incomplete");
  EXPECT_EQ(partial->actual_size, 50u);
  // The index names the missing shard: the ordinary checks say so too.
  EXPECT_EQ(report.count(FindingKind::kIndexShardMissing), 1u) << describe(report);
}

TEST(HubCache, UnusedBlobIsAWarningOnly) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  fs::remove(repo.snapshot(kOldCommit) / "config.json");
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(warning_kinds(report), std::multiset<std::string>{"hub_blob_unused"});
}

// A ref that leads to no snapshot is a revision that no longer loads from
// the cache: an error in a whole repository, whatever the ref's name.
TEST(HubCache, BadRefsAreErrors) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  fs::create_directories(repo.root / "refs" / "pr");
  std::ofstream(repo.root / "refs" / "pr" / "1") << "not a commit\n";
  std::ofstream(repo.root / "refs" / "old") << "3333333333333333333333333333333333333333";
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1) << describe(report);
  EXPECT_EQ(error_kinds(report), (std::multiset<std::string>{"hub_ref_invalid", "hub_ref_invalid"}))
      << describe(report);
  // Given one snapshot, the other revisions' refs are warnings.
  const VerifyReport one = verify_path(repo.snapshot(kNewCommit));
  EXPECT_EQ(one.exit_code(), 0) << describe(one);
  EXPECT_EQ(one.count(FindingKind::kHubRefInvalid), 1u) << describe(one);  // the non-hash one
}

// from_pretrained loads refs/main: naming a snapshot that is not there, the
// model does not load offline, so the repository is not whole.
TEST(HubCache, MainNamingAMissingSnapshotIsAnError) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  std::ofstream(repo.root / "refs" / "main", std::ios::trunc)
      << "3333333333333333333333333333333333333333";
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1) << describe(report);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_ref_invalid"}) << describe(report);
  const Finding* f = find(report, FindingKind::kHubRefInvalid);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "refs/main");
  EXPECT_NE(f->message.find("revision \"main\" cannot be loaded"), std::string::npos) << f->message;
}

TEST(HubCache, NoSnapshotIsAnError) {
  const TempDir dir;
  fs::create_directories(dir.path() / "models--a--b" / "blobs");
  const VerifyReport report = verify_path(dir.path() / "models--a--b");
  EXPECT_EQ(report.layout, Layout::kHubRepo);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_no_snapshots"});
}

TEST(HubCache, Sha256SumsInASnapshotIsCheckedAndADisagreementReported) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  // A SHA256SUMS that is right about shard 1 and wrong about shard 2.
  const std::string text = repo.blob_of(kNewCommit, kShard1) + "  " + kShard1 + "\n" +
                           std::string(64, 'a') + "  " + kShard2 + "\n";
  std::ofstream(repo.snapshot(kNewCommit) / "SHA256SUMS") << text;
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.count(FindingKind::kChecksumSourcesDisagree), 1u) << describe(report);
  const Finding* f = find(report, FindingKind::kChecksumSourcesDisagree);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "snapshots/" + kNewCommit + "/" + kShard2);
  EXPECT_EQ(f->expected_sha256, std::string(64, 'a'));
  EXPECT_EQ(f->actual_sha256, repo.blob_of(kNewCommit, kShard2));
  // SHA256SUMS is checked as well: shard 2 fails it, shard 1 passes.
  EXPECT_EQ(report.count(FindingKind::kChecksumMismatch), 1u) << describe(report);
  const std::vector<std::string> both{"hub-blob-names", "SHA256SUMS"};
  EXPECT_EQ(report.checksum_sources, both);
}

// -------------------------------------------------------------- cache root --

TEST(HubCache, CacheRootVerifiesEveryRepositoryWorstExitWins) {
  const TempDir dir;
  const HubRepo good = build_hub_repo(dir, "models--org--good");
  const HubRepo bad = build_hub_repo(dir, "models--org--bad");
  flip_last_byte(bad.blob_path(bad.blob_of(kOldCommit, kShard2)));
  const VerifyReport report = verify_path(good.cache);
  EXPECT_EQ(report.layout, Layout::kHubCache);
  EXPECT_EQ(report.exit_code(), 1);
  ASSERT_TRUE(report.hub.has_value());
  ASSERT_EQ(report.hub->repositories.size(), 2u);
  EXPECT_EQ(report.hub->repositories[0].name, "models--org--bad");
  EXPECT_EQ(report.hub->repositories[0].exit_code, 1);
  EXPECT_EQ(report.hub->repositories[1].name, "models--org--good");
  EXPECT_EQ(report.hub->repositories[1].exit_code, 0);
  EXPECT_EQ(report.hub->repositories[1].files_verified, 7u);
  const Finding* f = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "models--org--bad/blobs/" + bad.blob_of(kOldCommit, kShard2));
}

// At the cache root every name is relative to the root: the snapshot and
// blob paths inside messages carry the repository folder too, so that a
// user can find the file.
TEST(HubCache, CacheRootMessagesNameTheRepositoryFolder) {
  const TempDir dir;
  build_hub_repo(dir, "models--org--good");
  const HubRepo bad = build_hub_repo(dir, "models--org--bad");
  const std::string corrupt = bad.blob_of(kNewCommit, kShard3);
  flip_last_byte(bad.blob_path(corrupt));
  const std::string gone = bad.blob_of(kOldCommit, kShard2);
  fs::remove(bad.blob_path(gone));
  std::ofstream(bad.blob_path(gone + ".incomplete")) << "part";
  const VerifyReport report = verify_path(bad.cache);
  EXPECT_EQ(report.exit_code(), 1);
  const std::string repo = "models--org--bad/";
  const Finding* mismatch = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(mismatch, nullptr) << describe(report);
  EXPECT_NE(mismatch->message.find(repo + "snapshots/" + kNewCommit + "/" + kShard3),
            std::string::npos)
      << mismatch->message;
  EXPECT_EQ(mismatch->other, repo + "snapshots/" + kNewCommit + "/" + kShard3);
  const Finding* dangling = find(report, FindingKind::kHubLinkDangling);
  ASSERT_NE(dangling, nullptr) << describe(report);
  EXPECT_EQ(dangling->file, repo + "snapshots/" + kOldCommit + "/" + kShard2);
  EXPECT_NE(dangling->message.find("links to " + repo + "blobs/" + gone + ", "), std::string::npos)
      << dangling->message;
  EXPECT_NE(dangling->message.find(repo + "blobs/" + gone + ".incomplete"), std::string::npos)
      << dangling->message;
  EXPECT_EQ(dangling->other, repo + "blobs/" + gone);

  // Given the repository itself, names stay relative to it.
  const VerifyReport alone = verify_path(bad.root);
  const Finding* f = find(alone, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message.find("models--"), std::string::npos) << f->message;
}

// ------------------------------------------------------ diffusers snapshot --

// A diffusers pipeline in the cache keeps a checkpoint per subfolder; with
// --recursive each gets the checks a plain folder's subfolders get (index
// against its shards, one checkpoint each), its links read as their blobs.
TEST(HubCache, PipelineSubfoldersGetCheckpointChecksWithRecursive) {
  const TempDir dir;
  const HubRepo repo = build_hub_pipeline(dir);
  VerifyOptions options;
  options.recursive = true;
  options.scan_values = true;
  VerifyReport report = verify_path(repo.root, options);
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  const std::string snap = "snapshots/" + kNewCommit + "/";
  std::set<std::string> names;
  for (const auto& c : report.checkpoints) names.insert(c.name);
  EXPECT_EQ(names,
            (std::set<std::string>{snap + "text_encoder/model.safetensors",
                                   snap + "unet/diffusion_pytorch_model.fp16.safetensors",
                                   snap + "unet/diffusion_pytorch_model.safetensors.index.json",
                                   snap + "vae/diffusion_pytorch_model.safetensors"}));
  EXPECT_EQ(report.shards.size(), 5u);
  ASSERT_TRUE(report.values.has_value());
  EXPECT_EQ(report.values->shards, 5u);
  EXPECT_EQ(report.values->bytes_read, 0u);  // scanned in the blob hashing's read

  // A subfolder shard its index does not describe fails that checkpoint:
  // the blob matches its name (it is another file, not a damaged one), so
  // only the checkpoint check can see it.
  const std::string shard2 = "unet/diffusion_pytorch_model-00002-of-00002.safetensors";
  const fs::path link = repo.snapshot(kNewCommit) / shard2;
  const std::string other = repo.blob_of(kNewCommit, "vae/diffusion_pytorch_model.safetensors");
  fs::remove(link);
  fs::create_symlink(fs::path("../../../blobs") / other, link);
  report = verify_path(repo.root, options);
  EXPECT_EQ(report.exit_code(), 1) << describe(report);
  bool index_failed = false;
  for (const auto& c : report.checkpoints) {
    if (c.name == snap + "unet/diffusion_pytorch_model.safetensors.index.json") {
      index_failed = !c.ok();
    }
  }
  EXPECT_TRUE(index_failed) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kHubContentMismatch), 0u);

  // A subfolder link leaving the repository is reported once (as the Hub
  // walk found it) and never read, with or without --recursive.
  fs::create_symlink("/etc/passwd", repo.snapshot(kNewCommit) / "vae" / "evil.safetensors");
  report = verify_path(repo.root, options);
  EXPECT_EQ(report.count(FindingKind::kSymlinkEscapes), 1u) << describe(report);
  for (const auto& shard : report.shards) EXPECT_EQ(shard.file.find("evil"), std::string::npos);
}

// ----------------------------------------------------------------- hostile --

TEST(HubCacheHostile, LinksLeavingBlobsAreNeverFollowed) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const HubRepo other = build_hub_repo(dir, "models--org--other");
  const fs::path snap = repo.snapshot(kNewCommit);
  fs::remove(snap / kShard1);
  fs::create_symlink("/etc/passwd", snap / kShard1);
  fs::remove(snap / kShard2);
  fs::create_symlink("../../../models--org--other/blobs/" + other.blob_of(kNewCommit, kShard2),
                     snap / kShard2);
  fs::create_symlink("../../refs/main", snap / "ref.txt");  // inside the repo, not a blob
  fs::create_symlink("loop-b", snap / "loop-a.safetensors");
  fs::create_symlink("loop-a.safetensors", snap / "loop-b");
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.count(FindingKind::kSymlinkEscapes), 5u) << describe(report);
  ASSERT_TRUE(report.hub.has_value());
  for (const ContentFile& f : report.hub->files) {
    EXPECT_TRUE(f.file.starts_with("blobs/")) << f.file;
    for (const std::string& user : f.used_by) EXPECT_EQ(user.find("/etc"), std::string::npos);
  }
  for (const auto& s : report.shards) EXPECT_EQ(s.file.find("loop"), std::string::npos) << s.file;
}

TEST(HubCacheHostile, BlobThatIsASymlinkIsRefused) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const std::string blob = repo.blob_of(kNewCommit, kShard3);
  fs::remove(repo.blob_path(blob));
  fs::create_symlink("/etc/passwd", repo.blob_path(blob));
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  const Finding* f = find(report, FindingKind::kSymlinkEscapes);
  ASSERT_NE(f, nullptr) << describe(report);
  EXPECT_EQ(f->file, "snapshots/" + kNewCommit + "/" + kShard3);
  EXPECT_EQ(content(report, "blobs/" + blob), nullptr);  // never hashed
}

TEST(HubCacheHostile, BlobsFolderThatIsASymlinkIsRefused) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  fs::rename(repo.root / "blobs", dir.path() / "elsewhere");
  fs::create_symlink(dir.path() / "elsewhere", repo.root / "blobs");
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 1);
  // One finding about blobs itself; its links are not each called dangling.
  EXPECT_EQ(report.count(FindingKind::kHubLinkDangling), 0u) << describe(report);
  ASSERT_EQ(report.count(FindingKind::kSymlink), 1u) << describe(report);
  const Finding* f = find(report, FindingKind::kSymlink);
  EXPECT_EQ(f->file, "blobs");
  EXPECT_EQ(f->other, (dir.path() / "elsewhere").string());
  ASSERT_TRUE(report.hub.has_value());
  EXPECT_TRUE(report.hub->files.empty());
}

// A FIFO or a directory in blobs/ is no blob: its own finding, never
// hub_blob_unused, and nothing blocks on the FIFO.
TEST(HubCacheHostile, FifoAndDirectoryInBlobsAreNotBlobs) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  ASSERT_EQ(::mkfifo(repo.blob_path(std::string(64, 'f')).c_str(), 0600), 0);
  fs::create_directory(repo.blob_path(std::string(64, 'd')));
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(warning_kinds(report),
            (std::multiset<std::string>{"not_regular_file", "not_regular_file"}))
      << describe(report);

  // Linked from a snapshot: the link is an error of its own as well.
  const std::string blob = repo.blob_of(kNewCommit, kShard3);
  fs::remove(repo.blob_path(blob));
  ASSERT_EQ(::mkfifo(repo.blob_path(blob).c_str(), 0600), 0);
  const VerifyReport linked = verify_path(repo.root);
  EXPECT_EQ(linked.count(FindingKind::kHubBlobUnused), 0u) << describe(linked);
  EXPECT_EQ(linked.count(FindingKind::kNotRegularFile), 4u) << describe(linked);
  EXPECT_EQ(linked.exit_code(), 1);
}

// A repository at the cache root that is a symlink is not followed, and
// said so rather than skipped.
TEST(HubCacheHostile, SymlinkedRepositoryAtTheCacheRootIsReported) {
  const TempDir dir;
  const HubRepo good = build_hub_repo(dir, "models--org--good");
  const TempDir elsewhere;
  const HubRepo moved = build_hub_repo(elsewhere, "models--org--moved");
  fs::create_directory_symlink(moved.root, good.cache / "models--org--moved");
  const VerifyReport report = verify_path(good.cache);
  EXPECT_EQ(report.exit_code(), 1) << describe(report);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"symlink"}) << describe(report);
  const Finding* f = find(report, FindingKind::kSymlink);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "models--org--moved");
  EXPECT_EQ(f->other, moved.root.string());

  // The only repository a link: still the cache root, and only that finding.
  fs::remove_all(good.root);
  const VerifyReport only = verify_path(good.cache);
  EXPECT_EQ(only.layout, Layout::kHubCache);
  EXPECT_EQ(error_kinds(only), std::multiset<std::string>{"symlink"}) << describe(only);
}

TEST(HubCacheHostile, BlobNameNotHexIsUnverifiedNotTrusted) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const fs::path snap = repo.snapshot(kNewCommit);
  const std::string blob = repo.blob_of(kNewCommit, "config.json");
  fs::rename(repo.blob_path(blob), repo.blob_path("not-a-hash"));
  fs::remove(snap / "config.json");
  fs::create_symlink("../../blobs/not-a-hash", snap / "config.json");
  const VerifyReport report = verify_path(repo.root);
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(warning_kinds(report), std::multiset<std::string>{"hub_blob_unverifiable"});
  const ContentFile* c = content(report, "blobs/not-a-hash");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, ContentVerdict::kUnverifiable);
}

TEST(HubCacheHostile, NothingInTheCacheChanges) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const auto listing = [&] {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
      out.insert(e.path().string() + " " +
                 std::to_string(e.symlink_status().type() == fs::file_type::symlink));
    }
    return out;
  };
  const std::set<std::string> before = listing();
  (void)verify_path(repo.cache);
  EXPECT_EQ(listing(), before);
}

}  // namespace
