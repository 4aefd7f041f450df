// tests/verify/checkpoints_test.cc: folders holding more than one checkpoint:
// transformers' variants, consolidated.safetensors beside shards,
// model.safetensors beside model.fp16.safetensors, an adapter beside its
// model, diffusers subfolders with --recursive and the walk's limits; the
// name patterns that group files; total_size as a warning.
#include "verify/checkpoints.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "tests/support/child_process.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::CheckpointKind;
using stguard::verify::CheckpointReport;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::Severity;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::kGoodTotalSize;
using stguard_test::kIndex;
using stguard_test::kShard1;
using stguard_test::make_shard;
using stguard_test::TempDir;
using stguard_test::verify;
using stguard_test::write_checkpoint;
using stguard_test::write_sums;

using stguard_test::checkpoint;

// Whether checkpoint `name` is there and has no error.
bool checkpoint_ok(const VerifyReport& report, const std::string& name) {
  const CheckpointReport* c = checkpoint(report, name);
  return c != nullptr && c->ok();
}

// The first finding of `kind`'s field, or "(none)": no null dereference when
// a test fails.
std::string finding_field(const VerifyReport& report, FindingKind kind,
                          std::string Finding::*field) {
  const Finding* f = find(report, kind);
  return f == nullptr ? std::string("(none)") : f->*field;
}

std::vector<std::string> checkpoint_names(const VerifyReport& report) {
  std::vector<std::string> out;
  for (const CheckpointReport& c : report.checkpoints) out.push_back(c.name);
  return out;
}

VerifyOptions recursive() {
  VerifyOptions options;
  options.recursive = true;
  return options;
}

// --------------------------------------------------------- name patterns --

TEST(CheckpointNames, IndexNamesIncludeVariants) {
  using stguard::verify::is_index_name;
  EXPECT_TRUE(is_index_name("model.safetensors.index.json"));
  EXPECT_TRUE(is_index_name("model.safetensors.index.fp16.json"));
  EXPECT_TRUE(is_index_name("unet/diffusion_pytorch_model.safetensors.index.json"));
  EXPECT_FALSE(is_index_name("model.safetensors"));
  EXPECT_FALSE(is_index_name("model.safetensors.index.json.bak"));
  EXPECT_FALSE(is_index_name(".safetensors.index.json"));
  EXPECT_FALSE(is_index_name("model.safetensors.index..json"));
  EXPECT_FALSE(is_index_name("model.safetensors.indexfp16.json"));
}

TEST(CheckpointNames, IndexShardPrefix) {
  using stguard::verify::index_shard_prefix;
  EXPECT_EQ(index_shard_prefix("model.safetensors.index.json"), "model");
  EXPECT_EQ(index_shard_prefix("model.safetensors.index.fp16.json"), "model.fp16");
  EXPECT_EQ(index_shard_prefix("unet/diffusion_pytorch_model.safetensors.index.json"),
            "unet/diffusion_pytorch_model");
  EXPECT_EQ(index_shard_prefix("config.json"), std::nullopt);
}

TEST(CheckpointNames, ShardSetName) {
  using stguard::verify::shard_set_name;
  const auto set = shard_set_name("unet/model.fp16-00002-of-00003.safetensors");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->prefix, "unet/model.fp16");
  EXPECT_EQ(set->number, 2u);
  EXPECT_EQ(set->count, 3u);
  EXPECT_EQ(set->count_text, "00003");
  EXPECT_FALSE(shard_set_name("model.safetensors").has_value());
  EXPECT_FALSE(shard_set_name("model-00004-of-00003.safetensors").has_value());
  EXPECT_FALSE(shard_set_name("model-00000-of-00003.safetensors").has_value());
  EXPECT_FALSE(shard_set_name("-00001-of-00003.safetensors").has_value());
  EXPECT_FALSE(shard_set_name("model-1234567890-of-1234567890.safetensors").has_value());
  EXPECT_FALSE(shard_set_name("model-00001-of-.safetensors").has_value());
}

// ------------------------------------------------- the layouts models ship in --

TEST(VerifyCheckpoints, VariantIndexBesideFp32Shards) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  write_sums(dir);
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  // Indexes first, by name.
  EXPECT_EQ(checkpoint_names(report),
            (std::vector<std::string>{"model.safetensors.index.fp16.json", kIndex}));
  const CheckpointReport* fp16 = checkpoint(report, "model.safetensors.index.fp16.json");
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->kind, CheckpointKind::kIndex);
  EXPECT_EQ(fp16->shards, (std::vector<std::string>{"model.fp16-00001-of-00002.safetensors",
                                                    "model.fp16-00002-of-00002.safetensors"}));
  EXPECT_EQ(fp16->tensors, 5u);
  ASSERT_NE(checkpoint(report, kIndex), nullptr);
  EXPECT_EQ(checkpoint(report, kIndex)->shards.size(), 3u);
}

TEST(VerifyCheckpoints, ConsolidatedBesideShards) {
  const TempDir dir;
  stguard_test::write_consolidated_beside_shards(dir);
  write_sums(dir);
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  const CheckpointReport* single = checkpoint(report, "consolidated.safetensors");
  ASSERT_NE(single, nullptr);
  EXPECT_EQ(single->kind, CheckpointKind::kSingleFile);
  EXPECT_EQ(single->tensor_bytes, kGoodTotalSize);
}

TEST(VerifyCheckpoints, ModelBesideFp16Model) {
  const TempDir dir;
  stguard_test::write_single_beside_variant(dir);
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_EQ(checkpoint_names(report),
            (std::vector<std::string>{"model.fp16.safetensors", "model.safetensors"}));
}

TEST(VerifyCheckpoints, AdapterBesideModel) {
  const TempDir dir;
  stguard_test::write_adapter_beside_model(dir);
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_EQ(report.checkpoints.size(), 2u);
}

// A tensor twice inside one checkpoint is still an error, and says which.
TEST(VerifyCheckpoints, DuplicateWithinOneCheckpointIsAnError) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  write_checkpoint(dir, "model.safetensors.index.fp16.json",
                   {{"model.fp16-00001-of-00002.safetensors",
                     {"model.embed.weight", "model.layers.0.w", "model.layers.1.w"}},
                    {"model.fp16-00002-of-00002.safetensors",
                     {"model.layers.2.w", "lm_head.weight", "model.layers.1.w"}}});
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_duplicate"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kTensorDuplicate);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "model.layers.1.w");
  EXPECT_EQ(f->checkpoint, "model.safetensors.index.fp16.json");
  EXPECT_TRUE(checkpoint_ok(report, kIndex));
  ASSERT_NE(checkpoint(report, "model.safetensors.index.fp16.json"), nullptr);
  EXPECT_FALSE(checkpoint_ok(report, "model.safetensors.index.fp16.json"));
}

// A shard two indexes name (a variant sharing the fp32 embeddings): its
// findings count against both checkpoints, not only the first.
TEST(VerifyCheckpoints, ShardNamedByTwoIndexesFailsBoth) {
  const TempDir dir;
  const std::string shared = "model-00002-of-00002.safetensors";
  const std::string variant_index = "model.safetensors.index.fp16.json";
  write_checkpoint(dir, kIndex,
                   {{"model-00001-of-00002.safetensors", {"model.layers.0.w"}},
                    {shared, {"model.embed.weight"}}});
  write_checkpoint(dir, variant_index,
                   {{"model.fp16-00001-of-00001.safetensors", {"model.layers.0.w"}},
                    {shared, {"model.embed.weight"}}});
  VerifyReport report = verify(dir);
  ASSERT_EQ(report.exit_code(), 0) << describe(report);
  ASSERT_EQ(report.checkpoints.size(), 2u);
  stguard_test::truncate_file(dir.file(shared), 12);
  report = verify(dir);
  EXPECT_EQ(report.exit_code(), 1);
  const Finding* f = find(report, FindingKind::kShardTruncated);
  ASSERT_NE(f, nullptr) << describe(report);
  EXPECT_EQ(f->file, shared);
  EXPECT_FALSE(checkpoint_ok(report, kIndex)) << describe(report);
  EXPECT_FALSE(checkpoint_ok(report, variant_index)) << describe(report);
  EXPECT_EQ(checkpoint(report, kIndex)->errors, checkpoint(report, variant_index)->errors);
}

// A tensor the variant lacks is missing from the variant, even though the
// fp32 checkpoint holds a tensor of that name.
TEST(VerifyCheckpoints, TensorMissingFromVariantIsNotFoundInAnotherCheckpoint) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  dir.write("model.fp16-00002-of-00002.safetensors", make_shard({"model.layers.2.w"}));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_missing"}) << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kTensorMissing, &Finding::checkpoint),
            "model.safetensors.index.fp16.json");
}

TEST(VerifyCheckpoints, VariantSetWithoutItsIndex) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  fs::remove(dir.file("model.safetensors.index.fp16.json"));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_missing"}) << describe(report);
  const Finding* f = find(report, FindingKind::kIndexMissing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->checkpoint, "model.fp16-*-of-00002.safetensors");
  EXPECT_EQ(f->shard, "model.fp16-00001-of-00002.safetensors");
  const CheckpointReport* set = checkpoint(report, "model.fp16-*-of-00002.safetensors");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->kind, CheckpointKind::kShardSet);
  EXPECT_TRUE(checkpoint_ok(report, kIndex));
}

// One file of a set of two, no index: index_missing says how many are there.
TEST(VerifyCheckpoints, IncompleteSetWithoutIndex) {
  const TempDir dir;
  write_checkpoint(dir, "", {{"model-00001-of-00002.safetensors", {"a"}}});
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_missing"}) << describe(report);
  EXPECT_NE(
      finding_field(report, FindingKind::kIndexMissing, &Finding::message).find("1 of 2 shards"),
      std::string::npos);
}

TEST(VerifyCheckpoints, LoneOneOfOneShardNeedsNoIndex) {
  const TempDir dir;
  write_checkpoint(dir, "", {{"model-00001-of-00001.safetensors", {"a"}}});
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
}

// The variant's index is a checkpoint, not a stray copy of a shard; a real
// partial download beside it still is.
TEST(VerifyCheckpoints, StrayFilesStillFoundBesideVariants) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  dir.write("model.fp16-00001-of-00002.safetensors.part", bytes_of("half"));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  ASSERT_EQ(report.count(FindingKind::kStrayFile), 1u) << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kStrayFile, &Finding::file),
            "model.fp16-00001-of-00002.safetensors.part");
}

// -------------------------------------------------------------- total_size --

TEST(VerifyCheckpoints, TotalSizeMismatchWarnsUnlessStrict) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  dir.write(kIndex, bytes_of(stguard_test::index_text(stguard_test::good_weight_map(), 12345)));
  const VerifyReport lenient = verify(dir);
  EXPECT_EQ(lenient.exit_code(), 0) << describe(lenient);
  const Finding* f = find(lenient, FindingKind::kTotalSizeMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->checkpoint, kIndex);
  EXPECT_EQ(lenient.warnings, 1u);

  VerifyOptions strict;
  strict.strict = true;
  const VerifyReport report = verify(dir, strict);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"total_size_mismatch"});
}

// ------------------------------------------------------------- recursive --

TEST(VerifyCheckpoints, DiffusersNeedsRecursive) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  const VerifyReport flat = verify(dir);
  EXPECT_EQ(error_kinds(flat), std::multiset<std::string>{"no_shards"}) << describe(flat);
}

TEST(VerifyCheckpoints, DiffusersSubfoldersOneCheckpointEach) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  const VerifyReport report = verify(dir, recursive());
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_EQ(checkpoint_names(report),
            (std::vector<std::string>{"unet/diffusion_pytorch_model.safetensors.index.json",
                                      "text_encoder/model.safetensors",
                                      "unet/diffusion_pytorch_model.fp16.safetensors",
                                      "vae/diffusion_pytorch_model.safetensors"}));
  const CheckpointReport* unet =
      checkpoint(report, "unet/diffusion_pytorch_model.safetensors.index.json");
  ASSERT_NE(unet, nullptr);
  EXPECT_EQ(unet->folder, "unet");
  EXPECT_EQ(unet->shards.size(), 2u);
  EXPECT_EQ(unet->tensors, 3u);
  EXPECT_EQ(report.shards.size(), 5u);
}

// Names in a subfolder's index are relative to that folder: a shard of the
// same name at the top is not it.
TEST(VerifyCheckpoints, SubfolderIndexNamesShardsBesideIt) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  fs::rename(dir.file("unet/diffusion_pytorch_model-00002-of-00002.safetensors"),
             dir.file("diffusion_pytorch_model-00002-of-00002.safetensors"));
  const VerifyReport report = verify(dir, recursive());
  EXPECT_EQ(error_kinds(report),
            (std::multiset<std::string>{"index_missing", "index_shard_missing"}))
      << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kIndexShardMissing, &Finding::shard),
            "unet/diffusion_pytorch_model-00002-of-00002.safetensors");
}

TEST(VerifyCheckpoints, StrayFileInSubfolder) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  dir.write("vae/diffusion_pytorch_model.safetensors.incomplete", bytes_of("x"));
  const VerifyReport report = verify(dir, recursive());
  EXPECT_EQ(report.exit_code(), 0) << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kStrayFile, &Finding::file),
            "vae/diffusion_pytorch_model.safetensors.incomplete");
}

TEST(VerifyCheckpoints, RecursiveSkipsHiddenAndSymlinkedFolders) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  write_checkpoint(dir, "", {{".git/lfs/objects/a.safetensors", {"x"}}});
  fs::create_directory_symlink("unet", dir.path() / "unet_link");
  VerifyOptions options = recursive();
  options.follow_symlinks = true;
  const VerifyReport report = verify(dir, options);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.shards.size(), 5u);  // nothing below .git or unet_link
}

TEST(VerifyCheckpoints, DepthLimit) {
  const TempDir dir;
  write_checkpoint(dir, "", {{"a/model.safetensors", {"x"}}, {"a/b/c/model.safetensors", {"y"}}});
  VerifyOptions options = recursive();
  options.max_depth = 2;
  const VerifyReport report = verify(dir, options);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tree_limit"}) << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kTreeLimit, &Finding::file), "a/b/c");
  EXPECT_EQ(report.shards.size(), 1u);
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(VerifyCheckpoints, NameCountLimit) {
  const TempDir dir;
  write_checkpoint(dir, "", {{"model.safetensors", {"x"}}});
  fs::create_directory(dir.path() / "many");
  for (int i = 0; i < 20; ++i) dir.write("many/f" + std::to_string(i), bytes_of("x"));
  VerifyOptions options = recursive();
  options.max_tree_names = 10;
  const VerifyReport report = verify(dir, options);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tree_limit"}) << describe(report);
  EXPECT_EQ(finding_field(report, FindingKind::kTreeLimit, &Finding::file), "many");
  options.max_tree_names = 20;
  EXPECT_TRUE(verify(dir, options).findings.empty());
}

// Root reads any folder, so when the tests run as root the verification runs
// in a child that has dropped root's privileges.
TEST(VerifyCheckpoints, UnreadableSubfolder) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  stguard_test::open_to_everyone(dir.path());
  fs::permissions(dir.path() / "vae", fs::perms::none);
  const stguard_test::ChildOutcome outcome = stguard_test::in_child(
      [&] {
        const VerifyReport report = verify(dir, recursive());
        if (error_kinds(report) != std::multiset<std::string>{"folder_unreadable"}) return 1;
        return report.exit_code() == 2 ? 0 : 2;
      },
      {.unprivileged = true});
  fs::permissions(dir.path() / "vae", fs::perms::owner_all);
  EXPECT_EQ(outcome.exit_code, 0) << "1: not exactly folder_unreadable; 2: exit status not 2; "
                                     "120: could not drop privileges";
}

// Without --recursive nothing below DIR is opened, as before.
TEST(VerifyCheckpoints, NotRecursiveByDefault) {
  const TempDir dir;
  write_checkpoint(dir, "", {{"model.safetensors", {"x"}}, {"sub/model.safetensors", {"x"}}});
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.shards.size(), 1u);
}

// ----------------------------------------------------------------- JSON --

TEST(VerifyCheckpoints, JsonReportByCheckpoint) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  fs::remove(dir.file(kShard1));
  const nlohmann::ordered_json doc = stguard::verify::report_to_json(verify(dir));
  ASSERT_EQ(doc["checkpoints"].size(), 2u);
  const auto& fp32 = doc["checkpoints"][1];
  EXPECT_EQ(fp32["name"], kIndex);
  EXPECT_EQ(fp32["kind"], "index");
  EXPECT_EQ(fp32["status"], "failed");
  EXPECT_EQ(fp32["errors"], 1);
  EXPECT_EQ(fp32["shards"].size(), 2u);
  EXPECT_EQ(doc["checkpoints"][0]["status"], "ok");
  EXPECT_EQ(doc["checkpoints"][0]["tensor_bytes"], kGoodTotalSize);
  EXPECT_EQ(doc["summary"]["checkpoints"], 2);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["kind"], "index_shard_missing");
  EXPECT_EQ(doc["findings"][0]["checkpoint"], kIndex);
}

}  // namespace
