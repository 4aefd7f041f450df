// tests/verify/values_test.cc: `verify --scan-values` through the library:
// the findings tensor_nan, tensor_inf and tensor_all_zero, the report's
// values, and that each shard is read once whether or not it is hashed.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "folder_builder.h"
#include "tests/support/temp_dir.h"
#include "verify/verify.h"

namespace {

using stguard::verify::Category;
using stguard::verify::FindingKind;
using stguard::verify::Severity;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::error_kinds;
using stguard_test::kF32MinusZero;
using stguard_test::kF32Nan;
using stguard_test::kF32NegInf;
using stguard_test::kF32One;
using stguard_test::kF32PosInf;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::make_f32_shard;
using stguard_test::TempDir;

using stguard_test::scanning;

// The good model with shard 2 replaced: layer 1 holds one NaN, layer 2 is
// all zeros (+0 and -0). The index still matches (two F32 [4] tensors).
void write_model_with_bad_values(const TempDir& dir) {
  stguard_test::write_good_model(dir);
  dir.write(kShard2, make_f32_shard({{"model.layers.1.w", {kF32One, kF32One, kF32Nan, kF32One}},
                                     {"model.layers.2.w", {0, kF32MinusZero, 0, 0}}}));
}

std::uint64_t file_size(const TempDir& dir, const std::string& name) {
  return static_cast<std::uint64_t>(std::filesystem::file_size(dir.file(name)));
}

void expect_planted_values_found(const VerifyReport& report) {
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_nan"})
      << stguard_test::describe(report);
  EXPECT_EQ(report.exit_code(), 1);
  ASSERT_TRUE(report.values.has_value());
  const stguard::verify::ValuesReport& vr = *report.values;
  EXPECT_EQ(vr.shards, 3u);
  EXPECT_EQ(vr.shards_incomplete, 0u);
  EXPECT_EQ(vr.tensors, 5u);
  EXPECT_EQ(vr.tensor_bytes, stguard_test::kGoodTotalSize);
  EXPECT_EQ(vr.tensors_nan, 1u);
  EXPECT_EQ(vr.nan, 1u);
  EXPECT_EQ(vr.tensors_inf, 0u);
  EXPECT_EQ(vr.tensors_all_zero, 1u);
  ASSERT_EQ(vr.noteworthy.size(), 2u);
  EXPECT_EQ(vr.noteworthy[0].file, kShard2);
  EXPECT_EQ(vr.noteworthy[0].values.name, "model.layers.1.w");
  EXPECT_EQ(vr.noteworthy[1].values.name, "model.layers.2.w");
  EXPECT_TRUE(vr.noteworthy[1].values.all_zero);

  const stguard::verify::Finding* nan = stguard_test::find(report, FindingKind::kTensorNan);
  ASSERT_NE(nan, nullptr);
  EXPECT_EQ(nan->file, kShard2);
  EXPECT_EQ(nan->tensor, "model.layers.1.w");
  EXPECT_EQ(nan->category, Category::kValues);
  const stguard::verify::Finding* zero = stguard_test::find(report, FindingKind::kTensorAllZero);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->severity, Severity::kWarning);
  EXPECT_EQ(zero->tensor, "model.layers.2.w");
}

// With SHA256SUMS every shard is scanned in the read that hashes it: the
// value pass reads nothing itself.
TEST(VerifyValues, PlantedNanFoundInTheHashingRead) {
  for (const stguard::base::HashIo io :
       {stguard::base::HashIo::kRead, stguard::base::HashIo::kMmap}) {
    const TempDir dir;
    write_model_with_bad_values(dir);
    stguard_test::write_sums(dir);
    VerifyOptions options = scanning();
    options.hash.io = io;
    const VerifyReport report = stguard_test::verify(dir, options);
    expect_planted_values_found(report);
    EXPECT_EQ(report.values->bytes_read, 0u);
    ASSERT_TRUE(report.checksums.has_value());
    EXPECT_EQ(report.checksums->verified, report.checksums->entries);
  }
}

// Without a checksum list each shard is read once, for the scan alone.
TEST(VerifyValues, WithoutChecksumsEachShardIsReadOnce) {
  const TempDir dir;
  write_model_with_bad_values(dir);
  const VerifyReport report = stguard_test::verify(dir, scanning());
  expect_planted_values_found(report);
  EXPECT_FALSE(report.checksums.has_value());
  EXPECT_EQ(report.values->bytes_read,
            file_size(dir, kShard1) + file_size(dir, kShard2) + file_size(dir, kShard3));
}

// Shards the list leaves out are read by the value pass; the listed ones
// are not read twice.
TEST(VerifyValues, ShardsNotListedAreReadByTheValuePass) {
  const TempDir dir;
  write_model_with_bad_values(dir);
  stguard_test::write_sums(dir);
  const std::string sums = stguard_test::read_text(dir.file("SHA256SUMS"));
  std::string only_shard1;
  for (std::size_t at = 0; at < sums.size();) {
    const std::size_t end = sums.find('\n', at);
    const std::string line = sums.substr(at, end - at + 1);
    if (line.find(kShard1) != std::string::npos) only_shard1 += line;
    at = end + 1;
  }
  dir.write("SHA256SUMS", bytes_of(only_shard1));
  const VerifyReport report = stguard_test::verify(dir, scanning());
  EXPECT_EQ(report.count(FindingKind::kTensorNan), 1u) << stguard_test::describe(report);
  EXPECT_EQ(report.count(FindingKind::kChecksumUnlisted), 2u);
  EXPECT_EQ(report.values->bytes_read, file_size(dir, kShard2) + file_size(dir, kShard3));
  EXPECT_EQ(report.values->tensors, 5u);
}

TEST(VerifyValues, InfIsAnErrorAllZeroOnlyAWarning) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  dir.write(kShard3,
            make_f32_shard({{"lm_head.weight", {kF32PosInf, kF32NegInf, kF32NegInf, kF32One}}}));
  VerifyReport report = stguard_test::verify(dir, scanning());
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_inf"})
      << stguard_test::describe(report);
  EXPECT_EQ(report.values->pos_inf, 1u);
  EXPECT_EQ(report.values->neg_inf, 2u);
  const stguard::verify::Finding* inf = stguard_test::find(report, FindingKind::kTensorInf);
  ASSERT_NE(inf, nullptr);
  EXPECT_NE(inf->message.find("1 +Inf, 2 -Inf"), std::string::npos) << inf->message;

  dir.write(kShard3, make_f32_shard({{"lm_head.weight", {0, 0, kF32MinusZero, 0}}}));
  report = stguard_test::verify(dir, scanning());
  EXPECT_EQ(report.exit_code(), 0) << stguard_test::describe(report);
  EXPECT_EQ(report.warnings, 1u);
  EXPECT_EQ(report.count(FindingKind::kTensorAllZero), 1u);
}

TEST(VerifyValues, NotAskedNothingScanned) {
  const TempDir dir;
  write_model_with_bad_values(dir);
  const VerifyReport report = stguard_test::verify(dir);
  EXPECT_FALSE(report.values.has_value());
  EXPECT_EQ(report.count(FindingKind::kTensorNan), 0u);
  EXPECT_EQ(report.exit_code(), 0) << stguard_test::describe(report);
}

TEST(VerifyValues, RejectedShardsAreNotScanned) {
  const TempDir dir;
  write_model_with_bad_values(dir);
  stguard_test::truncate_file(dir.file(kShard2), 100);
  const VerifyReport report = stguard_test::verify(dir, scanning());
  EXPECT_EQ(report.count(FindingKind::kTensorNan), 0u);
  EXPECT_EQ(report.count(FindingKind::kShardTruncated), 1u);
  EXPECT_EQ(report.values->shards, 2u);
  EXPECT_EQ(report.values->tensors, 3u);
}

TEST(VerifyValues, JsonCarriesTheValuesSection) {
  const TempDir dir;
  write_model_with_bad_values(dir);
  const nlohmann::json doc = nlohmann::json::parse(
      stguard::verify::report_to_json(stguard_test::verify(dir, scanning())).dump());
  const nlohmann::json& values = doc["values"];
  EXPECT_EQ(values["shards"], 3);
  EXPECT_EQ(values["tensors_scanned"], 5);
  EXPECT_EQ(values["tensors_nan"], 1);
  EXPECT_EQ(values["tensors_all_zero"], 1);
  EXPECT_EQ(values["nan"], 1);
  ASSERT_EQ(values["tensors"].size(), 2u);
  const nlohmann::json& first = values["tensors"][0];
  EXPECT_EQ(first["file"], kShard2);
  EXPECT_EQ(first["tensor"], "model.layers.1.w");
  EXPECT_EQ(first["dtype"], "F32");
  EXPECT_EQ(first["nan"], 1);
  EXPECT_EQ(first["pos_inf"], 0);
  EXPECT_EQ(first["neg_inf"], 0);
  EXPECT_EQ(first["all_zero"], false);
  EXPECT_EQ(values["tensors"][1]["all_zero"], true);
  EXPECT_EQ(doc["summary"]["by_kind"]["tensor_nan"], 1);
  bool found = false;
  for (const nlohmann::json& f : doc["findings"]) {
    if (f["kind"] == "tensor_nan") {
      found = true;
      EXPECT_EQ(f["category"], "values");
      EXPECT_EQ(f["tensor"], "model.layers.1.w");
    }
  }
  EXPECT_TRUE(found);
  // Not asked: null.
  EXPECT_TRUE(stguard::verify::report_to_json(stguard_test::verify(dir))["values"].is_null());
}

}  // namespace
