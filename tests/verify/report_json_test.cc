// tests/verify/report_json_test.cc: the JSON report's structure and field names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "folder_builder.h"
#include "verify/verify.h"

namespace {

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

}  // namespace
