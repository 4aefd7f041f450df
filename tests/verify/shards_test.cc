// tests/verify/shards_test.cc: each way a shard can be broken gets its own
// finding kind, and the verdict (reason, offset) is the parser's own.
#include <gtest/gtest.h>
#include <stguard/stguard.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/sniff.h"
#include "folder_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::Reason;
using stguard::verify::Finding;
using stguard::verify::finding_kind_name;
using stguard::verify::FindingKind;
using stguard::verify::ShardVerdict;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::make_shard;
using stguard_test::shard;
using stguard_test::TempDir;
using stguard_test::truncate_file;
using stguard_test::verify_with_fault;

// The shard verdict must be the parser's own: same reason, same offset as
// parse_file on the same path.
void expect_parser_verdict(const TempDir& dir, const VerifyReport& report, const std::string& name,
                           FindingKind kind) {
  const auto* s = shard(report, name);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->verdict, ShardVerdict::kReject);
  ASSERT_TRUE(s->kind.has_value());
  EXPECT_EQ(*s->kind, kind) << finding_kind_name(*s->kind);
  const stguard::Result<stguard::Header> direct = stguard::parse_file(dir.file(name));
  ASSERT_FALSE(direct.has_value());
  ASSERT_TRUE(s->reason.has_value());
  EXPECT_EQ(*s->reason, direct.error().reason) << stguard::reason_name(*s->reason);
  EXPECT_EQ(s->offset, direct.error().offset);
  const Finding* f = find(report, kind);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, name);
  EXPECT_EQ(f->reason, s->reason);
  EXPECT_EQ(f->offset, s->offset);
}

TEST(VerifyShards, TruncatedDataIsReportedWithExpectedSize) {
  const TempDir dir;
  std::uint64_t full = 0;
  const VerifyReport report = verify_with_fault(dir, [&](const TempDir& d) {
    full = fs::file_size(d.file(kShard2));
    truncate_file(d.file(kShard2), full - 10);
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_truncated"}) << describe(report);
  expect_parser_verdict(dir, report, kShard2, FindingKind::kShardTruncated);
  const Finding* f = find(report, FindingKind::kShardTruncated);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->reason, Reason::kOffsetOutOfBounds);
  EXPECT_EQ(f->expected_size, full);
  EXPECT_EQ(f->actual_size, full - 10);
}

TEST(VerifyShards, TruncatedInsideTheHeader) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_fault(dir, [](const TempDir& d) { truncate_file(d.file(kShard1), 40); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_truncated"}) << describe(report);
  expect_parser_verdict(dir, report, kShard1, FindingKind::kShardTruncated);
  EXPECT_EQ(shard(report, kShard1)->reason, Reason::kHeaderLengthExceedsFile);
}

TEST(VerifyShards, TruncatedInsideTheLengthPrefix) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_fault(dir, [](const TempDir& d) { truncate_file(d.file(kShard3), 5); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_truncated"}) << describe(report);
  expect_parser_verdict(dir, report, kShard3, FindingKind::kShardTruncated);
  EXPECT_EQ(shard(report, kShard3)->reason, Reason::kHeaderTooSmall);
}

TEST(VerifyShards, ZeroByteFile) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_fault(dir, [](const TempDir& d) { truncate_file(d.file(kShard2), 0); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_empty"}) << describe(report);
  expect_parser_verdict(dir, report, kShard2, FindingKind::kShardEmpty);
  EXPECT_EQ(shard(report, kShard2)->offset, 0u);
}

TEST(VerifyShards, HtmlErrorPageSavedAsShard) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kShard2, bytes_of("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>"
                              "<body>Entry not found</body></html>\n"));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_html"}) << describe(report);
  expect_parser_verdict(dir, report, kShard2, FindingKind::kShardHtml);
}

TEST(VerifyShards, LowercaseHtmlWithoutDoctype) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kShard1, bytes_of("\n  <html>\n<body>Access denied</body></html>"));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_html"}) << describe(report);
}

TEST(VerifyShards, GitLfsPointerFile) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kShard3, bytes_of("version https://git-lfs.github.com/spec/v1\n"
                              "oid sha256:"
                              "4d7a2146ddd7a4b4f1cd4f1c3a1f5b9e5c2a9d4e1f0b8c7a6d5e4f3a2b1c0d9e\n"
                              "size 4976698672\n"));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_lfs_pointer"})
      << describe(report);
  expect_parser_verdict(dir, report, kShard3, FindingKind::kShardLfsPointer);
  const Finding* f = find(report, FindingKind::kShardLfsPointer);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->expected_size, 4976698672u);
}

TEST(VerifyShards, PreallocatedZerosLookTruncated) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(
      dir, [](const TempDir& d) { d.write(kShard2, std::vector<std::uint8_t>(8192, 0)); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_truncated"}) << describe(report);
  expect_parser_verdict(dir, report, kShard2, FindingKind::kShardTruncated);
}

TEST(VerifyShards, JsonErrorResponseSavedAsShard) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kShard1, bytes_of(R"({"error":"Repository Not Found"})"));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_not_safetensors"})
      << describe(report);
}

TEST(VerifyShards, ZipCheckpointRenamed) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    std::vector<std::uint8_t> zip = bytes_of("PK\x03\x04");
    zip.resize(200, 0);
    d.write(kShard1, zip);
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_not_safetensors"})
      << describe(report);
}

TEST(VerifyShards, OtherStructuralFaultCarriesParserReasonAndOffset) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    std::vector<std::uint8_t> bytes = make_shard({"model.layers.1.w", "model.layers.2.w"});
    bytes.push_back(0);  // one byte after the last tensor
    d.write(kShard2, bytes);
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_invalid"}) << describe(report);
  expect_parser_verdict(dir, report, kShard2, FindingKind::kShardInvalid);
  EXPECT_EQ(shard(report, kShard2)->reason, Reason::kTrailingData);
}

TEST(VerifyShards, FifoNamedLikeAShardDoesNotHang) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    fs::remove(d.file(kShard2));
    ASSERT_EQ(::mkfifo(d.file(kShard2).c_str(), 0600), 0);
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"not_regular_file"})
      << describe(report);
  EXPECT_EQ(shard(report, kShard2)->verdict, ShardVerdict::kSkipped);
}

TEST(VerifyShards, DirectoryNamedLikeAShard) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    fs::remove(d.file(kShard2));
    fs::create_directory(d.file(kShard2));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"not_regular_file"})
      << describe(report);
}

// A rejected shard is described as base::sniff describes the file (so that
// check, inspect and verify agree), under the finding kind for what it is.
TEST(VerifyShards, RejectedFilesAreDescribedByTheSniff) {
  struct Row {
    std::string bytes;
    FindingKind kind;
  };
  const Row rows[] = {
      {"version https://git-lfs.github.com/spec/v1\nsize 10\n", FindingKind::kShardLfsPointer},
      {"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>", FindingKind::kShardHtml},
      {std::string("PK\x03\x04", 4) + std::string(100, '\0'), FindingKind::kShardNotSafetensors},
      {std::string("\x80\x02}q\0", 5) + std::string(100, 'x'), FindingKind::kShardNotSafetensors},
      {std::string("GGUF\x03\0\0\0", 8) + std::string(100, '\0'),
       FindingKind::kShardNotSafetensors},
      {"Entry not found for this revision\n", FindingKind::kShardNotSafetensors},
      {std::string(10000, '\0'), FindingKind::kShardTruncated},
      {"", FindingKind::kShardEmpty},
  };
  for (const Row& row : rows) {
    const TempDir dir;
    dir.write("model.safetensors", bytes_of(row.bytes));
    const VerifyReport report = stguard_test::verify(dir);
    const Finding* f = find(report, row.kind);
    ASSERT_NE(f, nullptr) << finding_kind_name(row.kind) << describe(report);
    EXPECT_EQ(f->category, stguard::verify::Category::kShard);
    ASSERT_TRUE(f->reason.has_value());
    const std::string head = row.bytes.substr(0, stguard::base::kSniffBytes);
    const bool absurd =
        *f->reason == Reason::kHeaderTooLarge || *f->reason == Reason::kHeaderLengthExceedsFile;
    const auto sniffed = stguard::base::sniff_content(head, row.bytes.size(), absurd);
    ASSERT_TRUE(sniffed) << f->message;
    EXPECT_TRUE(f->message.starts_with(sniffed->description + "; parser: ")) << f->message;
  }
}

}  // namespace
