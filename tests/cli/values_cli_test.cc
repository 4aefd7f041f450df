// tests/cli/values_cli_test.cc: `--scan-values` end to end (STGUARD_CLI_PATH):
// `stguard inspect FILE --scan-values` (exit 1 on NaN or Inf, the values in
// text and JSON) and `stguard verify DIR --scan-values` (findings, summary,
// JSON values section). The counting itself is tested through the library
// in tests/verify/value_scan_test.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard_test::CliRun;
using stguard_test::kF32Nan;
using stguard_test::kF32NegInf;
using stguard_test::kF32One;
using stguard_test::make_f32_shard;
using stguard_test::run_cli;
using stguard_test::TempDir;

TEST(InspectValues, CleanFileExitsZeroAndSaysSo) {
  const TempDir dir;
  const std::string file =
      dir.write("ok.safetensors", make_f32_shard({{"w", {kF32One, 0, kF32One}}}));
  const CliRun text = run_cli({"inspect", "--scan-values", file});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("values:   1 floating-point tensor scanned (12 bytes): 0 with NaN, 0 "
                          "with Inf, 0 all zero"),
            std::string::npos)
      << text.out;
  // Without the option, no values section and no data read.
  const CliRun plain = run_cli({"inspect", file});
  EXPECT_EQ(plain.out.find("values:"), std::string::npos) << plain.out;
}

TEST(InspectValues, NanOrInfExitsOneAllZeroDoesNot) {
  const TempDir dir;
  const std::string nan = dir.write("nan.safetensors", make_f32_shard({{"w", {kF32One, kF32Nan}}}));
  const std::string inf =
      dir.write("inf.safetensors", make_f32_shard({{"w", {kF32NegInf, kF32One}}}));
  const std::string zero = dir.write("zero.safetensors", make_f32_shard({{"w", {0, 0}}}));
  const CliRun nan_run = run_cli({"inspect", "--scan-values", nan});
  EXPECT_EQ(nan_run.exit_code, 1) << nan_run.out << nan_run.err;
  EXPECT_NE(nan_run.out.find("NAME  DTYPE  NAN  +INF  -INF  ALL_ZERO"), std::string::npos)
      << nan_run.out;
  EXPECT_NE(nan_run.out.find("w     F32    1    0     0     no"), std::string::npos) << nan_run.out;
  EXPECT_EQ(run_cli({"inspect", "--scan-values", inf}).exit_code, 1);
  const CliRun zero_run = run_cli({"inspect", "--scan-values", zero});
  EXPECT_EQ(zero_run.exit_code, 0) << zero_run.out;
  EXPECT_NE(zero_run.out.find("w     F32    0    0     0     yes"), std::string::npos)
      << zero_run.out;
}

TEST(InspectValues, JsonHasValuesPerTensorAndASummary) {
  const TempDir dir;
  const std::string file = dir.write(
      "nan.safetensors", make_f32_shard({{"a", {kF32Nan, kF32Nan, kF32NegInf}}, {"b", {0}}}));
  const CliRun run = run_cli({"inspect", "--json", "--scan-values", file});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  const nlohmann::json& a = doc["tensors"][0];
  ASSERT_EQ(a["name"], "a");
  EXPECT_EQ(a["values"]["values"], 3);
  EXPECT_EQ(a["values"]["nan"], 2);
  EXPECT_EQ(a["values"]["neg_inf"], 1);
  EXPECT_EQ(a["values"]["pos_inf"], 0);
  EXPECT_EQ(a["values"]["all_zero"], false);
  EXPECT_EQ(doc["tensors"][1]["values"]["all_zero"], true);
  EXPECT_EQ(doc["values"]["tensors_scanned"], 2);
  EXPECT_EQ(doc["values"]["tensors_nan"], 1);
  EXPECT_EQ(doc["values"]["tensors_inf"], 1);
  EXPECT_EQ(doc["values"]["tensors_all_zero"], 1);
  EXPECT_EQ(doc["values"]["nan"], 2);
}

TEST(VerifyValuesCli, PlantedNanFailsTheFolder) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  dir.write(stguard_test::kShard2,
            make_f32_shard({{"model.layers.1.w", {kF32One, kF32One, kF32Nan, kF32One}},
                            {"model.layers.2.w", {kF32One, kF32One, kF32One, kF32One}}}));
  stguard_test::write_sums(dir);
  const std::string path = dir.path().string();
  EXPECT_EQ(run_cli({"verify", path}).exit_code, 0);  // not asked: the values are not read
  const CliRun text = run_cli({"verify", "--scan-values", path});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find(stguard_test::kShard2 + ": error tensor_nan: tensor \"model.layers.1.w\" "
                                                  "(F32, 4 values): 1 NaN"),
            std::string::npos)
      << text.out;
  EXPECT_NE(
      text.out.find("; values: 5 tensors scanned (80 B), 1 with NaN, 0 with Inf, 0 all zero;"),
      std::string::npos)
      << text.out;
  const CliRun json_run = run_cli({"verify", "--json", "--scan-values", path});
  EXPECT_EQ(json_run.exit_code, 1);
  const nlohmann::json doc = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(doc["values"]["tensors_nan"], 1);
  EXPECT_EQ(doc["values"]["bytes_read"], 0);  // scanned while hashing
  EXPECT_EQ(doc["values"]["tensors"][0]["tensor"], "model.layers.1.w");
}

}  // namespace
