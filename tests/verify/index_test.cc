// tests/verify/index_test.cc: the shard index held against the shards
// (missing, extra, wrong-shard and duplicated tensors, absent and unnamed
// shards, total_size), and the index reader's own faults with their byte
// positions (malformed JSON, duplicate keys, no weight_map).
#include "verify/index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "folder_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::good_weight_map;
using stguard_test::index_text;
using stguard_test::kGoodTotalSize;
using stguard_test::kIndex;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;
using stguard_test::make_shard;
using stguard_test::shard;
using stguard_test::TempDir;
using stguard_test::verify_with_fault;
using stguard_test::verify_with_index;

TEST(VerifyIndex, MissingTensor) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_index(dir, [](auto& map) { map.emplace_back("model.layers.3.w", kShard2); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_missing"}) << describe(report);
  const Finding* f = find(report, FindingKind::kTensorMissing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "model.layers.3.w");
  EXPECT_EQ(f->shard, kShard2);
  EXPECT_EQ(f->file, kIndex);
}

TEST(VerifyIndex, ExtraTensor) {
  const TempDir dir;
  const VerifyReport report = verify_with_index(dir, [](auto& map) {
    map.erase(std::remove_if(map.begin(), map.end(),
                             [](const auto& e) { return e.first == "model.layers.2.w"; }),
              map.end());
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_extra"}) << describe(report);
  const Finding* f = find(report, FindingKind::kTensorExtra);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "model.layers.2.w");
  EXPECT_EQ(f->shard, kShard2);
}

TEST(VerifyIndex, TensorInWrongShard) {
  const TempDir dir;
  const VerifyReport report = verify_with_index(dir, [](auto& map) {
    for (auto& e : map) {
      if (e.first == "model.layers.2.w") e.second = kShard1;
    }
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_wrong_shard"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kTensorWrongShard);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "model.layers.2.w");
  EXPECT_EQ(f->shard, kShard1);
  EXPECT_EQ(f->other, kShard2);
}

TEST(VerifyIndex, TensorInTwoShards) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kShard3, make_shard({"lm_head.weight", "model.embed.weight"}));
    d.write(kIndex, bytes_of(index_text(good_weight_map(), kGoodTotalSize + 16)));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"tensor_duplicate"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kTensorDuplicate);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "model.embed.weight");
  EXPECT_EQ(f->shard, kShard1);
  EXPECT_EQ(f->other, kShard3);
}

TEST(VerifyIndex, ShardNamedButAbsent) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_fault(dir, [](const TempDir& d) { fs::remove(d.file(kShard3)); });
  // One finding for the shard, not one per tensor it should hold.
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_shard_missing"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kIndexShardMissing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->shard, kShard3);
}

TEST(VerifyIndex, ShardPresentButNotNamed) {
  const TempDir dir;
  const std::string stray = "model-00001-of-00002.safetensors";  // an older revision
  const VerifyReport report =
      verify_with_fault(dir, [&](const TempDir& d) { d.write(stray, make_shard({"old.weight"})); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_not_in_index"})
      << describe(report);
  EXPECT_EQ(find(report, FindingKind::kShardNotInIndex)->file, stray);
}

// An error only with --strict; checkpoints_test.cc has the warning.
TEST(VerifyIndex, TotalSizeMismatchReportsBothNumbers) {
  const TempDir dir;
  stguard::verify::VerifyOptions strict;
  strict.strict = true;
  const VerifyReport report = verify_with_fault(
      dir,
      [](const TempDir& d) { d.write(kIndex, bytes_of(index_text(good_weight_map(), 12345))); },
      strict);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"total_size_mismatch"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kTotalSizeMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->expected_size, 12345u);
  EXPECT_EQ(f->actual_size, kGoodTotalSize);
}

TEST(VerifyIndex, TotalSizeAsIntegralFloatIsAccepted) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    std::string text = index_text(good_weight_map(), std::nullopt);
    text.replace(text.find("\"metadata\": {}"), 14, "\"metadata\": {\"total_size\": 80.0}");
    d.write(kIndex, bytes_of(text));
  });
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.indexes.at(0).total_size, kGoodTotalSize);
}

TEST(VerifyIndex, DuplicateTensorKeyRejectedAtItsQuote) {
  const TempDir dir;
  const std::string text = R"({"metadata": {"total_size": 80}, "weight_map": {)"
                           R"("model.embed.weight": "model-00001-of-00003.safetensors", )"
                           R"("model.layers.0.w": "model-00001-of-00003.safetensors", )"
                           R"("model.layers.1.w": "model-00002-of-00003.safetensors", )"
                           R"("model.layers.2.w": "model-00002-of-00003.safetensors", )"
                           R"("lm_head.weight": "model-00003-of-00003.safetensors", )"
                           R"("model.layers.0.w": "model-00002-of-00003.safetensors"}})";
  const VerifyReport report =
      verify_with_fault(dir, [&](const TempDir& d) { d.write(kIndex, bytes_of(text)); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_duplicate_key"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kIndexDuplicateKey);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, text.rfind("\"model.layers.0.w\""));
}

TEST(VerifyIndex, DuplicateKeyWithEscapedQuoteInName) {
  const TempDir dir;
  const std::string text =
      R"({"weight_map": {"a\"b": "x.safetensors"}, "metadata": {}, "weight_map": {}})";
  const VerifyReport report =
      verify_with_fault(dir, [&](const TempDir& d) { d.write(kIndex, bytes_of(text)); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_duplicate_key"})
      << describe(report);
  EXPECT_EQ(find(report, FindingKind::kIndexDuplicateKey)->offset, text.rfind("\"weight_map\""));
}

TEST(VerifyIndex, MalformedJsonReportedWithPosition) {
  const TempDir dir;
  const std::string text = R"({"weight_map": {"a": "model-00001-of-00003.safetensors",}})";
  const VerifyReport report =
      verify_with_fault(dir, [&](const TempDir& d) { d.write(kIndex, bytes_of(text)); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_malformed"}) << describe(report);
  const Finding* f = find(report, FindingKind::kIndexMalformed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, text.find(",}") + 1);  // the '}' where a key was expected
}

TEST(VerifyIndex, DeepNestingElsewhereInTheIndexIsHarmless) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    std::string text = index_text(good_weight_map(), kGoodTotalSize);
    const std::size_t depth = 100000;
    text.insert(1, "\"deep\": " + std::string(depth, '[') + std::string(depth, ']') + ", ");
    d.write(kIndex, bytes_of(text));
  });
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_TRUE(report.indexes.at(0).usable);
}

TEST(VerifyIndex, IndexWithoutWeightMapIsInvalid) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(
      dir, [](const TempDir& d) { d.write(kIndex, bytes_of(R"({"metadata": {}})")); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_invalid"}) << describe(report);
}

TEST(VerifyIndex, SeveralShardsWithoutIndex) {
  const TempDir dir;
  const VerifyReport report =
      verify_with_fault(dir, [](const TempDir& d) { fs::remove(d.file(kIndex)); });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_missing"}) << describe(report);
}

// ------------------------------------------------------------ the reader --

TEST(IndexReader, KeepsWeightMapAndTotalSize) {
  const auto index = stguard::verify::parse_index(
      R"({"metadata": {"total_size": 32, "format": "pt"}, "extra": [1, {"a": null}],
          "weight_map": {"a": "x.safetensors", "b": "./y.safetensors"}})");
  ASSERT_TRUE(index) << index.error().message;
  EXPECT_EQ(index->total_size, 32u);
  ASSERT_EQ(index->weight_map.size(), 2u);
  EXPECT_EQ(index->weight_map.at("b"), "./y.safetensors");  // as written
}

TEST(IndexReader, SyntaxErrorsAndDuplicateKeysCarryTheirByteOffset) {
  struct Row {
    std::string text;
    FindingKind kind;
    std::uint64_t offset;
  };
  const Row rows[] = {
      {R"({"weight_map": {}, "weight_map": {}})", FindingKind::kIndexDuplicateKey, 19},
      {"{\n  \"weight_map\": {\n  ]\n}", FindingKind::kIndexMalformed, 22},
      {"", FindingKind::kIndexMalformed, 0},
  };
  for (const Row& row : rows) {
    const auto parsed = stguard::verify::parse_index(row.text);
    ASSERT_FALSE(parsed) << row.text;
    const stguard::verify::IndexFailure& failure = parsed.error();
    EXPECT_EQ(failure.kind, row.kind) << row.text << ": " << failure.message;
    EXPECT_EQ(failure.offset, row.offset) << row.text << ": " << failure.message;
  }
}

// A value of the wrong type is found once the lexer has read it: the offset
// lies at or just past the value, never before it.
TEST(IndexReader, ValuesOfTheWrongTypeAreInvalid) {
  const std::pair<std::string, std::string> rows[] = {
      {R"({"weight_map": {"a": 1}})", "1"},
      {R"({"weight_map": [], "metadata": {}})", "["},
      {R"({"metadata": {"total_size": "80"}, "weight_map": {}})", "\"80\""},
      {R"({"metadata": {"total_size": -1}, "weight_map": {}})", "-1"},
      {R"({"metadata": [], "weight_map": {}})", "["},
  };
  for (const auto& [text, value] : rows) {
    const auto parsed = stguard::verify::parse_index(text);
    ASSERT_FALSE(parsed) << text;
    const stguard::verify::IndexFailure& failure = parsed.error();
    EXPECT_EQ(failure.kind, FindingKind::kIndexInvalid) << text << ": " << failure.message;
    ASSERT_TRUE(failure.offset.has_value()) << text;
    EXPECT_GE(*failure.offset, text.find(value)) << text;
    EXPECT_LE(*failure.offset, text.find(value) + value.size() + 1) << text;
  }
}

// Not JSON text at all: named by base::sniff, with no position to give.
TEST(IndexReader, LfsPointerAndErrorPagesAreNamedAsSuch) {
  const std::string lfs =
      "version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') +
      "\nsize 1234\n";
  const std::string html = "<!DOCTYPE html><html><head><title>Sign in</title></head></html>";
  const std::string xml = R"(<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>)";
  for (const std::string& text : {lfs, html, xml}) {
    const auto parsed = stguard::verify::parse_index(text);
    ASSERT_FALSE(parsed) << text;
    const stguard::verify::IndexFailure& failure = parsed.error();
    EXPECT_EQ(failure.kind, FindingKind::kIndexMalformed) << failure.message;
    EXPECT_EQ(failure.offset, std::nullopt) << failure.message;
  }
}

TEST(VerifyIndex, IndexThatIsAnErrorPageIsMalformed) {
  const TempDir dir;
  const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
    d.write(kIndex, bytes_of("<html><head><title>Sign in</title></head></html>"));
  });
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"index_malformed"}) << describe(report);
  ASSERT_EQ(report.indexes.size(), 1u);
  EXPECT_FALSE(report.indexes[0].usable);
}

}  // namespace
