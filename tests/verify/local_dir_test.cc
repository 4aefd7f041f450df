// tests/verify/local_dir_test.cc: `verify` on a `hf download --local-dir`
// folder: contents checked against the etags in .cache/huggingface/download
// with no SHA256SUMS, each fault (a flipped byte, an edited file, a missing
// file, an interrupted download) and hostile metadata files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

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
using stguard::verify::VerifyReport;
using stguard_test::build_local_dir;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::flip_last_byte;
using stguard_test::kIndex;
using stguard_test::kNewCommit;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::metadata_path;
using stguard_test::read_text;
using stguard_test::TempDir;
using stguard_test::verify_path;
using stguard_test::warning_kinds;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

TEST(LocalDir, ContentsVerifiedWithNoSha256Sums) {
  const TempDir dir;
  build_local_dir(dir);
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.layout, Layout::kLocalDir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_FALSE(report.checksums.has_value());
  EXPECT_EQ(report.checksum_sources, std::vector<std::string>{"local-dir-metadata"});
  ASSERT_TRUE(report.hub.has_value());
  EXPECT_EQ(report.hub->files.size(), 6u);  // 3 shards, index, config, tokenizer
  for (const ContentFile& f : report.hub->files) {
    EXPECT_EQ(f.verdict, ContentVerdict::kVerified) << f.file;
    EXPECT_EQ(f.algorithm, f.file.ends_with(".safetensors") ? "sha256" : "git-blob-sha1");
  }
}

TEST(LocalDir, FlippedByteFailsNamingBothHashes) {
  const TempDir dir;
  build_local_dir(dir);
  const std::string expected = stguard::base::sha256_hex(read_text(dir.file(kShard2)));
  flip_last_byte(dir.file(kShard2));
  const std::string actual = stguard::base::sha256_hex(read_text(dir.file(kShard2)));
  // Written after its metadata, by the edit: also "stale", unless the
  // timestamp is still ahead of the new mtime (it is: build_local_dir writes
  // a time a few seconds ahead).
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_content_mismatch"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, kShard2);
  EXPECT_EQ(f->expected_sha256, expected);
  EXPECT_EQ(f->actual_sha256, actual);
  EXPECT_NE(f->message.find(expected), std::string::npos);
  EXPECT_NE(f->message.find(actual), std::string::npos);
  // The corrupt shard's checkpoint fails too, not only the folder.
  EXPECT_EQ(f->checkpoint, kIndex);
  ASSERT_EQ(report.checkpoints.size(), 1u);
  EXPECT_FALSE(report.checkpoints[0].ok());
}

TEST(LocalDir, FileNewerThanItsMetadataIsAWarning) {
  const TempDir dir;
  build_local_dir(dir);
  write_text(metadata_path(dir, "config.json"),
             kNewCommit + "\n" + "0123456789012345678901234567890123456789\n" + "1000.0\n");
  const VerifyReport report = verify_path(dir.path());
  const Finding* stale = find(report, FindingKind::kHubMetadataStale);
  ASSERT_NE(stale, nullptr) << describe(report);
  EXPECT_EQ(stale->file, "config.json");
  EXPECT_EQ(report.count(FindingKind::kHubMetadataStale), 1u) << describe(report);
}

TEST(LocalDir, MissingFileAndLeftoverIncompleteAreReported) {
  const TempDir dir;
  build_local_dir(dir);
  fs::remove(dir.file(kShard3));
  const std::string etag(64, 'e');
  dir.write(".cache/huggingface/download/" + kShard3 + "." + etag + ".incomplete",
            std::vector<std::uint8_t>(33, 0));
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.count(FindingKind::kHubFileMissing), 1u) << describe(report);
  const Finding* partial = find(report, FindingKind::kHubDownloadIncomplete);
  ASSERT_NE(partial, nullptr) << describe(report);
  EXPECT_EQ(partial->actual_size, 33u);
  EXPECT_EQ(report.count(FindingKind::kStrayFile), 0u) << describe(report);
}

TEST(LocalDir, NestedFilesAreCovered) {
  const TempDir dir;
  build_local_dir(dir);
  fs::create_directories(dir.path() / "unet");
  fs::copy_file(dir.file(kShard1), dir.file("unet/m.safetensors"));
  fs::create_directories(dir.path() / ".cache/huggingface/download/unet");
  write_text(metadata_path(dir, "unet/m.safetensors"),
             kNewCommit + "\n" + std::string(64, '0') + "\n" +
                 std::to_string(std::time(nullptr) + 5) + "\n");
  const VerifyReport report = verify_path(dir.path());
  const Finding* f = find(report, FindingKind::kHubContentMismatch);
  ASSERT_NE(f, nullptr) << describe(report);
  EXPECT_EQ(f->file, "unet/m.safetensors");
}

TEST(LocalDir, Sha256SumsAndEtagsDisagreeing) {
  const TempDir dir;
  build_local_dir(dir);
  const std::string right = stguard::base::sha256_hex(read_text(dir.file(kShard1)));
  write_text(dir.file("SHA256SUMS"), right + "  " + kShard1 + "\n");
  write_text(metadata_path(dir, kShard1), kNewCommit + "\n" + std::string(64, 'f') + "\n" +
                                              std::to_string(std::time(nullptr) + 5) + "\n");
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.count(FindingKind::kChecksumSourcesDisagree), 1u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kHubContentMismatch), 1u) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kChecksumMismatch), 0u) << describe(report);
  const std::vector<std::string> both{"SHA256SUMS", "local-dir-metadata"};
  EXPECT_EQ(report.checksum_sources, both);
}

// ----------------------------------------------------------------- hostile --

TEST(LocalDirHostile, BadMetadataFilesAreWarningsWithAReason) {
  const TempDir dir;
  build_local_dir(dir);
  write_text(metadata_path(dir, kShard1), kNewCommit + "\n");  // one line
  write_text(metadata_path(dir, kShard2), "garbage\x01\xff\nmore\nlines\n");
  write_text(metadata_path(dir, kShard3), std::string(1 << 20, 'x'));  // huge
  write_text(metadata_path(dir, "config.json"), kNewCommit + "\n\nnot-a-time\n");
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kHubMetadataInvalid), 4u) << describe(report);
  // The shards are then covered by nothing: said so.
  EXPECT_EQ(report.count(FindingKind::kHubFileUnverified), 3u) << describe(report);
  for (const Finding& f : report.findings) EXPECT_FALSE(f.message.empty());
}

// A shard whose metadata is absent, a directory, a FIFO or a symlink is not
// covered by any Hub checksum: hub_file_unverified, and a metadata name that
// is no file has its own finding. With no usable metadata in the folder at
// all, nothing was verified: the error hub_nothing_verified (the summary's
// "0 of 0 files match" is no pass). The FIFO never blocks.
TEST(LocalDirHostile, ShardWithoutUsableMetadataIsUnverified) {
  for (const std::string variant : {"absent", "directory", "fifo", "symlink"}) {
    SCOPED_TRACE(variant);
    const TempDir dir;
    dir.write("model.safetensors", stguard_test::make_shard({"w"}));
    const fs::path download = dir.path() / ".cache/huggingface/download";
    fs::create_directories(download);
    const fs::path metadata = download / "model.safetensors.metadata";
    if (variant == "directory") fs::create_directory(metadata);
    if (variant == "fifo") {
      ASSERT_EQ(::mkfifo(metadata.c_str(), 0600), 0);
    }
    if (variant == "symlink") {
      write_text((download / "elsewhere").string(),
                 kNewCommit + "\n" +
                     stguard::base::sha256_hex(read_text(dir.file("model.safetensors"))) + "\n" +
                     std::to_string(std::time(nullptr) + 5) + "\n");
      fs::create_symlink("elsewhere", metadata);
    }
    const VerifyReport report = verify_path(dir.path());
    EXPECT_EQ(report.layout, Layout::kLocalDir);
    EXPECT_EQ(report.exit_code(), 1) << describe(report);
    EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_nothing_verified"})
        << describe(report);
    std::multiset<std::string> expected{"hub_file_unverified"};
    if (variant != "absent") expected.insert("hub_metadata_invalid");
    EXPECT_EQ(warning_kinds(report), expected) << describe(report);
    const Finding* f = find(report, FindingKind::kHubFileUnverified);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->file, "model.safetensors");
  }
}

// A folder of the repository named like a metadata file is a folder, not
// bad metadata, when the file it would describe is no file.
TEST(LocalDirHostile, FolderNamedLikeMetadataOfAFolderIsNotReported) {
  const TempDir dir;
  build_local_dir(dir);
  fs::create_directories(dir.path() / "sub.metadata");
  fs::create_directories(dir.path() / "sub");
  fs::create_directories(dir.path() / ".cache/huggingface/download/sub.metadata");
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.count(FindingKind::kHubMetadataInvalid), 0u) << describe(report);
}

TEST(LocalDirHostile, MetadataNamingAPathOutsideIsNeverOpened) {
  const TempDir dir;
  build_local_dir(dir);
  // A file name cannot hold "/", so a metadata file cannot name "../x"; but a
  // symlinked file in DIR must not be followed to its target.
  fs::remove(dir.file("config.json"));
  fs::create_symlink("/etc/passwd", dir.file("config.json"));
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.count(FindingKind::kHubFileMissing), 1u) << describe(report);
  ASSERT_TRUE(report.hub.has_value());
  for (const ContentFile& f : report.hub->files)
    EXPECT_TRUE(f.actual.empty() || f.file != "config.json");
}

// `--layout local-dir` on a folder whose download metadata is missing, a
// symlink or a file verified nothing: an error with a reason, each shard
// unverified, never "OK". A SHA256SUMS beside it verifies the contents.
TEST(LocalDirHostile, ForcedLocalDirWithoutMetadataIsNotAPass) {
  for (const std::string variant :
       {"no-cache", "no-download", "download-symlink", "download-file", "dangling-cache"}) {
    SCOPED_TRACE(variant);
    const TempDir dir;
    dir.write("model.safetensors", stguard_test::make_shard({"w"}));
    const fs::path cache = dir.path() / ".cache/huggingface";
    if (variant == "no-download") fs::create_directories(cache);
    if (variant == "download-symlink") {
      fs::create_directories(cache);
      fs::create_directories(dir.path() / "elsewhere");
      fs::create_directory_symlink(dir.path() / "elsewhere", cache / "download");
    }
    if (variant == "download-file") {
      fs::create_directories(cache);
      write_text((cache / "download").string(), "not a folder\n");
    }
    if (variant == "dangling-cache") {
      fs::create_directories(dir.path() / ".cache");
      fs::create_symlink(dir.path() / "nowhere", cache);
    }
    stguard::verify::VerifyOptions options;
    options.layout = Layout::kLocalDir;
    const VerifyReport report = verify_path(dir.path(), options);
    EXPECT_EQ(report.layout, Layout::kLocalDir);
    EXPECT_EQ(report.exit_code(), 1) << describe(report);
    EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"hub_nothing_verified"})
        << describe(report);
    EXPECT_EQ(warning_kinds(report), std::multiset<std::string>{"hub_file_unverified"})
        << describe(report);
    const Finding* f = find(report, FindingKind::kHubNothingVerified);
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(f->message.empty());

    // With a SHA256SUMS, the contents are verified by it: no finding.
    write_text(dir.file("SHA256SUMS"),
               stguard::base::sha256_hex(read_text(dir.file("model.safetensors"))) +
                   "  model.safetensors\n");
    const VerifyReport listed = verify_path(dir.path(), options);
    EXPECT_EQ(listed.exit_code(), 0) << describe(listed);
    EXPECT_TRUE(listed.findings.empty()) << describe(listed);
  }
}

TEST(LocalDirHostile, DownloadFolderThatIsASymlinkIsIgnored) {
  const TempDir dir;
  build_local_dir(dir);
  fs::rename(dir.path() / ".cache/huggingface/download", dir.path() / "elsewhere");
  fs::create_symlink(dir.path() / "elsewhere", dir.path() / ".cache/huggingface/download");
  const VerifyReport report = verify_path(dir.path());
  EXPECT_EQ(report.layout, Layout::kFolder);
  EXPECT_FALSE(report.hub.has_value());
}

}  // namespace
