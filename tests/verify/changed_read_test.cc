// tests/verify/changed_read_test.cc: a file that grows or shrinks while it
// is hashed or scanned is file_changed (exit status 1), with --hash-io read
// and mmap alike; it never counts as matching its checksum, and the message
// gives its size when the read began, where the read ended and its size now.
// The file is changed after the first chunk of the read (the test hook
// g_test_during_read), so nothing here depends on timing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/sha256.h"
#include "folder_builder.h"
#include "hub_builder.h"
#include "verify/file_read.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::base::HashIo;
using stguard::verify::ContentVerdict;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::TempDir;

// A valid shard of `data_len` bytes of F32 zeros (which the value scan reads
// too): the data is a hole, so the file costs no disk.
void write_big_shard(const std::string& path, std::uint64_t data_len) {
  std::string header = R"({"t":{"dtype":"F32","shape":[)" + std::to_string(data_len / 4) +
                       R"(],"data_offsets":[0,)" + std::to_string(data_len) + "]}}";
  while (header.size() % 8 != 0) header += ' ';
  std::string prefix(8, '\0');
  for (std::size_t i = 0; i < 8; ++i)
    prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  std::ofstream(path, std::ios::binary) << prefix << header;
  fs::resize_file(path, 8 + header.size() + data_len);
}

// Runs `change` on the file whose inode `path` has when the hook is set,
// once, from the thread that is reading it; clears the hook afterwards.
class DuringRead {
 public:
  DuringRead(const std::string& path, std::function<void()> change) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    const ino_t inode = st.st_ino;
    stguard::verify::g_test_during_read = [this, inode, change = std::move(change)](int fd) {
      struct stat open {};
      if (::fstat(fd, &open) != 0 || open.st_ino != inode || done_.exchange(true)) return;
      change();
    };
  }
  ~DuringRead() { stguard::verify::g_test_during_read = nullptr; }
  DuringRead(const DuringRead&) = delete;
  DuringRead& operator=(const DuringRead&) = delete;
  bool happened() const { return done_.load(); }

 private:
  std::atomic<bool> done_{false};
};

void append_byte(const std::string& path) {
  std::ofstream(path, std::ios::binary | std::ios::app) << 'x';
}

void shrink_to(const std::string& path, std::uint64_t size) { fs::resize_file(path, size); }

constexpr std::uint64_t kDataLen = std::uint64_t{20} << 20;  // past two 8 MiB mmap steps
constexpr std::uint64_t kShrunk = std::uint64_t{512} << 10;  // inside the first chunk

// A folder with one big shard and SHA256SUMS over it.
std::string write_folder(const TempDir& dir) {
  const std::string shard = dir.file("model.safetensors");
  write_big_shard(shard, kDataLen);
  stguard_test::write_sums(dir);
  return shard;
}

VerifyOptions with_io(HashIo io) {
  VerifyOptions options;
  options.hash.io = io;
  options.jobs = 1;
  return options;
}

// file_changed alone, exit status 1, and no file counted as matching.
void expect_changed(const VerifyReport& report) {
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"file_changed"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1) << describe(report);
  EXPECT_EQ(report.unreadable, 0u);
  if (report.checksums) {
    EXPECT_EQ(report.checksums->verified, 0u);
    EXPECT_EQ(report.checksums->failed, 1u);
  }
}

class ChangedWhileRead : public ::testing::TestWithParam<HashIo> {};

TEST_P(ChangedWhileRead, GrowingFileIsFileChangedAndNoMatch) {
  const TempDir dir;
  const std::string shard = write_folder(dir);
  const std::uint64_t size = fs::file_size(shard);
  const DuringRead during(shard, [&] { append_byte(shard); });
  const VerifyReport report = stguard_test::verify(dir, with_io(GetParam()));
  ASSERT_TRUE(during.happened());
  expect_changed(report);
  const Finding* f = stguard_test::find(report, FindingKind::kFileChanged);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "model.safetensors");
  EXPECT_NE(f->message.find("it had " + std::to_string(size) + " bytes when its read began"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("and it has " + std::to_string(size + 1) + " now"), std::string::npos)
      << f->message;
}

TEST_P(ChangedWhileRead, ShrinkingFileIsFileChangedWithItsNewSize) {
  const TempDir dir;
  const std::string shard = write_folder(dir);
  const std::uint64_t size = fs::file_size(shard);
  const DuringRead during(shard, [&] { shrink_to(shard, kShrunk); });
  const VerifyReport report = stguard_test::verify(dir, with_io(GetParam()));
  ASSERT_TRUE(during.happened());
  expect_changed(report);
  const Finding* f = stguard_test::find(report, FindingKind::kFileChanged);
  ASSERT_NE(f, nullptr);
  // The first chunk: 1 MiB read(2), one 8 MiB step of the mapping.
  const std::uint64_t first_chunk = GetParam() == HashIo::kRead ? 1 << 20 : 8 << 20;
  EXPECT_NE(f->message.find("it had " + std::to_string(size) +
                            " bytes when its read began, "
                            "the read ended at byte " +
                            std::to_string(first_chunk) + ", and it has " +
                            std::to_string(kShrunk) + " now"),
            std::string::npos)
      << f->message;
}

TEST_P(ChangedWhileRead, ValuePassSaysTheSame) {
  const TempDir dir;
  const std::string shard = dir.file("model.safetensors");
  write_big_shard(shard, kDataLen);  // no SHA256SUMS: the value pass reads it
  const DuringRead during(shard, [&] { shrink_to(shard, kShrunk); });
  VerifyOptions options = with_io(GetParam());
  options.scan_values = true;
  const VerifyReport report = stguard_test::verify(dir, options);
  ASSERT_TRUE(during.happened());
  expect_changed(report);
}

TEST_P(ChangedWhileRead, HubBlobThatGrowsIsFileChangedNotVerified) {
  const TempDir dir;
  const stguard_test::HubRepo repo = stguard_test::build_hub_repo(dir);
  const fs::path blob =
      repo.blob_path(repo.blob_of(stguard_test::kNewCommit, stguard_test::kShard2));
  const DuringRead during(blob.string(), [&] { append_byte(blob.string()); });
  const VerifyReport report = stguard_test::verify_path(repo.root, with_io(GetParam()));
  ASSERT_TRUE(during.happened());
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"file_changed"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1);
  ASSERT_TRUE(report.hub.has_value());
  for (const auto& f : report.hub->files) {
    if (f.file != "blobs/" + blob.filename().string()) continue;
    EXPECT_EQ(f.verdict, ContentVerdict::kChanged);
  }
}

// "Read" or "Mmap" in the test names.
std::string io_name(const ::testing::TestParamInfo<HashIo>& io) {
  return io.param == HashIo::kRead ? "Read" : "Mmap";
}

INSTANTIATE_TEST_SUITE_P(HashIo, ChangedWhileRead, ::testing::Values(HashIo::kRead, HashIo::kMmap),
                         io_name);

}  // namespace
