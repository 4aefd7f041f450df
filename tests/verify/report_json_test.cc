// tests/verify/report_json_test.cc: the JSON report's structure and field names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "folder_builder.h"
#include "verify/verify.h"

namespace {

using stguard::verify::FindingKind;
using stguard_test::kIndex;
using stguard_test::kShard1;
using stguard_test::TempDir;
using stguard_test::truncate_file;
using stguard_test::verify;
using stguard_test::write_good_model;
using stguard_test::write_sums;

// ------------------------------------------------------------- JSON report --

TEST(VerifyReportJson, CarriesShardsIndexChecksumsFindingsAndCounts) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  truncate_file(dir.file(kShard1), 0);
  const nlohmann::ordered_json doc = stguard::verify::report_to_json(verify(dir));
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["exit_code"], 1);
  ASSERT_EQ(doc["shards"].size(), 3u);
  EXPECT_EQ(doc["shards"][0]["file"], kShard1);
  EXPECT_EQ(doc["shards"][0]["verdict"], "reject");
  EXPECT_EQ(doc["shards"][0]["kind"], "shard_empty");
  EXPECT_EQ(doc["shards"][0]["reason"], "HEADER_TOO_SMALL");
  EXPECT_EQ(doc["shards"][0]["offset"], 0);
  EXPECT_EQ(doc["indexes"][0]["file"], kIndex);
  EXPECT_EQ(doc["checksums"]["verified"], 5);
  EXPECT_EQ(doc["checksums"]["failed"], 1);
  EXPECT_EQ(doc["summary"]["by_kind"]["shard_empty"], 1);
  EXPECT_EQ(doc["summary"]["by_kind"]["checksum_mismatch"], 1);
  EXPECT_EQ(doc["summary"]["shards_rejected"], 1);
  for (const auto& f : doc["findings"]) {
    EXPECT_TRUE(f.contains("kind") && f.contains("severity") && f.contains("category") &&
                f.contains("message"));
  }
}

// A file that could not be read makes the exit status 2, whatever else was
// found, as IO_ERROR does for `stguard check`.
TEST(VerifyReportJson, UnreadableFilesMakeExitStatusTwo) {
  for (const FindingKind kind : {FindingKind::kShardUnreadable, FindingKind::kIndexUnreadable,
                                 FindingKind::kChecksumUnreadable}) {
    stguard::verify::VerifyReport report;
    report.ran = true;
    report.unreadable = 1;
    report.errors = 2;
    EXPECT_EQ(report.exit_code(), 2) << stguard::verify::finding_kind_name(kind);
  }
  // Through the whole verification: SHA256SUMS lists a name that is a
  // directory, which cannot be hashed.
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::filesystem::create_directory(dir.path() / "sub");
  std::ofstream(dir.file("SHA256SUMS"), std::ios::app) << std::string(64, '0') << "  sub\n";
  const stguard::verify::VerifyReport report = verify(dir);
  EXPECT_EQ(report.count(FindingKind::kChecksumUnreadable), 1u);
  EXPECT_EQ(report.unreadable, 1u);
  EXPECT_EQ(report.exit_code(), 2);
  EXPECT_EQ(stguard::verify::report_to_json(report)["exit_code"], 2);
}

// A name that is not UTF-8 keeps its display form and gets its exact bytes
// beside it, so two such names never look the same.
TEST(VerifyReportJson, NonUtf8NamesCarryTheirBytesInHex) {
  stguard::verify::VerifyReport report;
  report.ran = true;
  report.dir = "m\xff";
  stguard::verify::ShardReport s;
  s.file = "a\xfe.safetensors";
  report.shards.push_back(s);
  stguard::verify::Finding f;
  f.file = "b\xfd";
  f.other = "ok";
  report.findings.push_back(f);
  const nlohmann::ordered_json doc = stguard::verify::report_to_json(report);
  EXPECT_EQ(doc.value("dir_hex", ""), "6dff");
  EXPECT_EQ(doc["shards"][0].value("file_hex", ""), "61fe2e7361666574656e736f7273");
  EXPECT_EQ(doc["findings"][0].value("file_hex", ""), "62fd");
  EXPECT_FALSE(doc["findings"][0].contains("other_hex"));
  EXPECT_EQ(doc["findings"][0].value("other", ""), "ok");
  // The display form: U+FFFD in place of the byte that is not UTF-8.
  EXPECT_EQ(doc["shards"][0]["file"].get<std::string>(), "a\uFFFD.safetensors");
}

}  // namespace
