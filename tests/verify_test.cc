// tests/verify_test.cc: `stguard verify` (cli/model_folder.h). Builds model
// folders in a temp dir with stguard's own writer, then breaks them one fault
// at a time and asserts that exactly that fault is reported, by finding kind
// (and by reason and offset where the parser or the index JSON fixes one).
// Message text is never compared. A read-only test snapshots everything in
// the folder before and after. A few end-to-end runs of the binary
// (STGUARD_CLI_PATH).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stguard/stguard.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model_folder.h"
#include "run_cli.h"
#include "sha256_file.h"
#include "temp_dir.h"

extern char** environ;  // NOLINT: POSIX, for posix_spawn

namespace {

namespace fs = std::filesystem;
using stguard::Reason;
using stguard::cli::Finding;
using stguard::cli::finding_kind_name;
using stguard::cli::FindingKind;
using stguard::cli::Severity;
using stguard::cli::ShardVerdict;
using stguard::cli::verify_model_folder;
using stguard::cli::VerifyOptions;
using stguard::cli::VerifyReport;
using stguard_test::TempDir;

std::vector<std::uint8_t> bytes_of(std::string_view s) {
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A shard of F32 [4] tensors; the data depends on the name so that two
// shards holding "the same" tensor still differ byte-wise.
std::vector<std::uint8_t> make_shard(const std::vector<std::string>& names) {
  std::vector<std::vector<std::uint8_t> > data;
  std::vector<stguard::TensorToWrite> tensors;
  data.reserve(names.size());
  for (const std::string& name : names) {
    std::vector<std::uint8_t> bytes(16);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] =
          static_cast<std::uint8_t>(name.size() * 7 + i + static_cast<unsigned char>(name[0]));
    }
    data.push_back(std::move(bytes));
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    tensors.push_back({names[i], stguard::Dtype::kF32, {4}, data[i]});
  }
  stguard::Result<std::vector<std::uint8_t> > file =
      stguard::write_safetensors(tensors, {{"format", "pt"}});
  if (!file) std::abort();
  return *file;
}

const std::string kShard1 = "model-00001-of-00003.safetensors";
const std::string kShard2 = "model-00002-of-00003.safetensors";
const std::string kShard3 = "model-00003-of-00003.safetensors";
const std::string kIndex = "model.safetensors.index.json";

const std::map<std::string, std::vector<std::string> >& good_layout() {
  static const std::map<std::string, std::vector<std::string> > layout = {
      {kShard1, {"model.embed.weight", "model.layers.0.w"}},
      {kShard2, {"model.layers.1.w", "model.layers.2.w"}},
      {kShard3, {"lm_head.weight"}},
  };
  return layout;
}

std::string index_text(const std::vector<std::pair<std::string, std::string> >& weight_map,
                       std::optional<std::uint64_t> total_size) {
  nlohmann::ordered_json doc;
  doc["metadata"] = nlohmann::ordered_json::object();
  if (total_size) doc["metadata"]["total_size"] = *total_size;
  doc["weight_map"] = nlohmann::ordered_json::object();
  for (const auto& [tensor, shard] : weight_map) doc["weight_map"][tensor] = shard;
  return doc.dump(2);
}

std::vector<std::pair<std::string, std::string> > good_weight_map() {
  std::vector<std::pair<std::string, std::string> > out;
  for (const auto& [shard, names] : good_layout()) {
    for (const std::string& name : names) out.emplace_back(name, shard);
  }
  return out;
}

constexpr std::uint64_t kGoodTotalSize = 5 * 16;

// SHA256SUMS over every regular file in the folder (top level), as
// `sha256sum * > SHA256SUMS` would write it, minus the list itself.
void write_sums(const TempDir& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    const std::string name = e.path().filename().string();
    if (name == "SHA256SUMS") continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) {
    text += stguard::cli::to_hex(stguard::cli::sha256_bytes(slurp(dir.file(name)))) + "  " + name +
            "\n";
  }
  dir.write("SHA256SUMS", bytes_of(text));
}

// The good folder without SHA256SUMS: three shards, index, config.json.
void write_good_model(const TempDir& dir) {
  for (const auto& [shard, names] : good_layout()) dir.write(shard, make_shard(names));
  dir.write(kIndex, bytes_of(index_text(good_weight_map(), kGoodTotalSize)));
  dir.write("config.json", bytes_of(R"({"model_type": "llama"})"));
  dir.write("tokenizer.json", bytes_of(R"({"version": "1.0"})"));
}

VerifyReport verify(const TempDir& dir, VerifyOptions options = {}) {
  options.jobs = options.jobs == 0 ? 2 : options.jobs;
  return verify_model_folder(dir.path().string(), options);
}

// The kinds of the error findings, sorted: what "exactly this fault" means.
std::multiset<std::string> error_kinds(const VerifyReport& report) {
  std::multiset<std::string> out;
  for (const Finding& f : report.findings) {
    if (f.severity == Severity::kError) out.insert(std::string(finding_kind_name(f.kind)));
  }
  return out;
}

std::string describe(const VerifyReport& report) {
  std::string out = report.fatal;
  for (const Finding& f : report.findings) {
    out += "\n  " + std::string(finding_kind_name(f.kind)) + " " + f.file + ": " + f.message;
  }
  return out;
}

const Finding* find(const VerifyReport& report, FindingKind kind) {
  for (const Finding& f : report.findings) {
    if (f.kind == kind) return &f;
  }
  return nullptr;
}

const stguard::cli::ShardReport* shard(const VerifyReport& report, const std::string& name) {
  for (const auto& s : report.shards) {
    if (s.file == name) return &s;
  }
  return nullptr;
}

// Builds the good model, lets `fault` break it, rewrites SHA256SUMS so that
// only the structural fault remains, and verifies.
template <class Fault>
VerifyReport verify_with_fault(const TempDir& dir, Fault fault, VerifyOptions options = {}) {
  write_good_model(dir);
  fault(dir);
  write_sums(dir);
  return verify(dir, std::move(options));
}

void truncate_file(const std::string& path, std::uint64_t size) {
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0);
}

// ------------------------------------------------------------ good folder --

TEST(VerifyFolder, GoodShardedModelWithIndexAndChecksums) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  const VerifyReport report = verify(dir);
  ASSERT_TRUE(report.ran) << report.fatal;
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  ASSERT_EQ(report.shards.size(), 3u);
  for (const auto& s : report.shards) EXPECT_EQ(s.verdict, ShardVerdict::kAccept) << s.file;
  EXPECT_EQ(report.tensors, 5u);
  EXPECT_EQ(report.tensor_bytes, kGoodTotalSize);
  ASSERT_EQ(report.indexes.size(), 1u);
  EXPECT_TRUE(report.indexes[0].usable);
  EXPECT_EQ(report.indexes[0].entries, 5u);
  EXPECT_EQ(report.indexes[0].computed_size, kGoodTotalSize);
  ASSERT_TRUE(report.checksums.has_value());
  EXPECT_EQ(report.checksums->entries, 6u);  // 3 shards, index, config, tokenizer
  EXPECT_EQ(report.checksums->verified, 6u);
  EXPECT_EQ(report.checksums->failed, 0u);
}

TEST(VerifyFolder, SingleFileWithoutIndexIsFine) {
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a", "b"}));
  dir.write("config.json", bytes_of("{}"));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_FALSE(report.checksums.has_value());
}

TEST(VerifyFolder, EmptyFolderHasNoShards) {
  const TempDir dir;
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"no_shards"}) << describe(report);
  EXPECT_EQ(report.exit_code(), 1);
}

// ------------------------------------------------------------------ shards --

// The shard verdict must be the parser's own: same reason, same offset as
// check_file on the same path.
void expect_parser_verdict(const TempDir& dir, const VerifyReport& report, const std::string& name,
                           FindingKind kind) {
  const auto* s = shard(report, name);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->verdict, ShardVerdict::kReject);
  ASSERT_TRUE(s->kind.has_value());
  EXPECT_EQ(*s->kind, kind) << finding_kind_name(*s->kind);
  const stguard::Result<stguard::Header> direct = stguard::check_file(dir.file(name));
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

// ------------------------------------------------------------------- index --

template <class Edit>
VerifyReport verify_with_index(const TempDir& dir, Edit edit,
                               std::optional<std::uint64_t> total = kGoodTotalSize) {
  return verify_with_fault(dir, [&](const TempDir& d) {
    std::vector<std::pair<std::string, std::string> > map = good_weight_map();
    edit(map);
    d.write(kIndex, bytes_of(index_text(map, total)));
  });
}

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

TEST(VerifyIndex, TotalSizeMismatchReportsBothNumbers) {
  const TempDir dir;
  const VerifyReport report = verify_with_index(
      dir, [](auto&) {}, 12345);
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

// ------------------------------------------------------------------- paths --

TEST(VerifyPaths, IndexShardNamesThatLeaveDirAreNeverOpened) {
  const TempDir outside;
  outside.write("escape.safetensors", make_shard({"ghost"}));
  const TempDir dir;
  const std::string up = "../" + outside.path().filename().string() + "/escape.safetensors";
  const std::vector<std::string> hostile = {up, outside.file("escape.safetensors"),
                                            "..\\escape.safetensors",
                                            std::string("a\0b.safetensors", 15)};
  const VerifyReport report = verify_with_index(dir, [&](auto& map) {
    for (std::size_t i = 0; i < hostile.size(); ++i) {
      map.emplace_back("ghost." + std::to_string(i), hostile[i]);
    }
  });
  EXPECT_EQ(error_kinds(report), (std::multiset<std::string>{"unsafe_path", "unsafe_path",
                                                             "unsafe_path", "unsafe_path"}))
      << describe(report);
  // Neither the tensor outside nor the file were taken in.
  EXPECT_EQ(report.count(FindingKind::kTensorMissing), 0u);
  EXPECT_EQ(report.shards.size(), 3u);
}

TEST(VerifyPaths, ChecksumNamesThatLeaveDirAreNeverOpened) {
  const TempDir outside;
  outside.write("secret.txt", bytes_of("secret"));
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = slurp(dir.file("SHA256SUMS"));
  const std::string hex(64, 'a');
  sums += hex + "  ../" + outside.path().filename().string() + "/secret.txt\n";
  sums += hex + " *" + outside.file("secret.txt") + "\n";
  sums += hex + "  sub\\..\\secret.txt\n";
  sums += hex + "  ./sub/../../secret.txt\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), (std::multiset<std::string>{"unsafe_path", "unsafe_path",
                                                             "unsafe_path", "unsafe_path"}))
      << describe(report);
  for (const Finding& f : report.findings) EXPECT_TRUE(f.line.has_value());
  EXPECT_EQ(report.checksums->verified, 6u);
}

TEST(VerifyPaths, ChecksumNameThroughSymlinkedDirectoryStaysInside) {
  const TempDir outside;
  outside.write("w.safetensors", make_shard({"w"}));
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a"}));
  fs::create_directory_symlink(outside.path(), dir.path() / "linked");
  const std::string hex =
      stguard::cli::to_hex(stguard::cli::sha256_bytes(slurp(outside.file("w.safetensors"))));
  const std::string sums =
      stguard::cli::to_hex(stguard::cli::sha256_bytes(slurp(dir.file("model.safetensors")))) +
      "  model.safetensors\n" + hex + "  linked/w.safetensors\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  for (const bool follow : {false, true}) {
    VerifyOptions options;
    options.follow_symlinks = follow;
    const VerifyReport report = verify(dir, options);
    EXPECT_EQ(report.count(FindingKind::kChecksumUnreadable), 1u) << describe(report);
    EXPECT_EQ(report.checksums->verified, 1u);
  }
}

TEST(VerifyPaths, SafeRelativeName) {
  std::string why;
  EXPECT_EQ(stguard::cli::safe_relative_name("./a.safetensors", &why), "a.safetensors");
  EXPECT_EQ(stguard::cli::safe_relative_name("sub//x/./y", &why), "sub/x/y");
  EXPECT_EQ(stguard::cli::safe_relative_name("..", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("a/../b", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("/etc/passwd", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("C:\\x", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name(std::string_view("a\0b", 3), &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("./", &why), std::nullopt);
  EXPECT_EQ(stguard::cli::safe_relative_name("...", &why), "...");  // a legal file name
}

// ---------------------------------------------------------------- symlinks --

TEST(VerifySymlinks, ShardSymlinkInsideDirReportedUnlessFollowed) {
  const TempDir dir;
  write_good_model(dir);
  fs::create_directory(dir.path() / "blobs");
  fs::rename(dir.file(kShard2), dir.path() / "blobs" / "abc123");
  fs::create_symlink("blobs/abc123", dir.path() / kShard2);
  const VerifyReport plain = verify(dir);
  EXPECT_EQ(error_kinds(plain), std::multiset<std::string>{"symlink"}) << describe(plain);
  EXPECT_EQ(shard(plain, kShard2)->verdict, ShardVerdict::kSkipped);

  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport followed = verify(dir, follow);
  EXPECT_TRUE(followed.findings.empty()) << describe(followed);
  EXPECT_EQ(shard(followed, kShard2)->verdict, ShardVerdict::kAccept);
  EXPECT_TRUE(shard(followed, kShard2)->via_symlink);
}

TEST(VerifySymlinks, SymlinkLeavingDirIsNeverFollowed) {
  const TempDir outside;
  outside.write("real.safetensors", make_shard({"model.layers.1.w", "model.layers.2.w"}));
  const TempDir dir;
  write_good_model(dir);
  fs::remove(dir.file(kShard2));
  fs::create_symlink(outside.file("real.safetensors"), dir.path() / kShard2);  // absolute
  VerifyOptions follow;
  follow.follow_symlinks = true;
  const VerifyReport report = verify(dir, follow);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"symlink_escapes"}) << describe(report);
  EXPECT_EQ(shard(report, kShard2)->verdict, ShardVerdict::kSkipped);

  // The relative spelling of the same escape.
  fs::remove(dir.file(kShard2));
  fs::create_symlink("../" + outside.path().filename().string() + "/real.safetensors",
                     dir.path() / kShard2);
  const VerifyReport relative = verify(dir, follow);
  EXPECT_EQ(error_kinds(relative), std::multiset<std::string>{"symlink_escapes"})
      << describe(relative);
}

TEST(VerifySymlinks, SymlinkedConfigIsOnlyAWarning) {
  const TempDir dir;
  write_good_model(dir);
  fs::rename(dir.file("config.json"), dir.file("config.real.json"));
  fs::create_symlink("config.real.json", dir.path() / "config.json");
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kSymlink), 1u);
  EXPECT_EQ(report.exit_code(), 0);
}

// ------------------------------------------------------------ stray files --

TEST(VerifyStray, LeftoversOfInterruptedDownloadsAreWarnings) {
  const TempDir dir;
  write_good_model(dir);
  dir.write(kShard2 + ".part", bytes_of("partial"));
  dir.write(kShard3 + ".incomplete", bytes_of("partial"));
  dir.write("." + kShard1 + ".Xy12Ab", bytes_of("rsync temp"));
  dir.write("model.safetensors.tmp", bytes_of("tmp"));
  fs::create_directories(dir.path() / ".cache" / "huggingface" / "download");
  dir.write(".cache/huggingface/download/abcdef.incomplete", bytes_of("x"));
  dir.write("generation_config.json", bytes_of("{}"));
  dir.write("README.md", bytes_of("# model"));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kStrayFile), 5u) << describe(report);
  for (const Finding& f : report.findings) EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(report.exit_code(), 0);
}

// --------------------------------------------------------------- checksums --

TEST(VerifyChecksums, MismatchWhileStructureIsFine) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  // Flip the last data byte: the header still checks out, the content not.
  std::vector<std::uint8_t> bytes = make_shard(good_layout().at(kShard2));
  bytes.back() ^= 0xFF;
  dir.write(kShard2, bytes);
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_mismatch"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kChecksumMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, kShard2);
  EXPECT_EQ(f->actual_sha256, stguard::cli::to_hex(stguard::cli::sha256_bytes(std::string_view(
                                  reinterpret_cast<const char*>(bytes.data()), bytes.size()))));
  EXPECT_NE(f->expected_sha256, f->actual_sha256);
  EXPECT_EQ(report.checksums->failed, 1u);
}

TEST(VerifyChecksums, ListedButMissing) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = slurp(dir.file("SHA256SUMS"));
  sums += std::string(64, '0') + "  model-00004-of-00003.safetensors\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_file_missing"})
      << describe(report);
}

TEST(VerifyChecksums, ShardPresentButUnlisted) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums;
  std::istringstream in(slurp(dir.file("SHA256SUMS")));
  for (std::string line; std::getline(in, line);) {
    if (line.find(kShard2) == std::string::npos) sums += line + "\n";
  }
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_unlisted"})
      << describe(report);
  EXPECT_EQ(find(report, FindingKind::kChecksumUnlisted)->file, kShard2);
}

TEST(VerifyChecksums, MalformedLinesReportedWithLineNumbers) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = slurp(dir.file("SHA256SUMS"));
  sums = "# written on the source machine\n\n" + sums;  // lines 1-2: skipped like coreutils
  sums += "this is not a checksum line\n";              // line 9
  sums += std::string(40, 'a') + "  config.json\n";     // line 10: SHA-1
  sums += std::string(64, 'a') + "\n";                  // line 11: no name
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  std::vector<std::uint64_t> lines;
  for (const Finding& f : report.findings) {
    EXPECT_EQ(f.kind, FindingKind::kChecksumMalformed) << describe(report);
    if (f.line) lines.push_back(*f.line);
  }
  EXPECT_EQ(lines, (std::vector<std::uint64_t>{9, 10, 11}));
  EXPECT_EQ(report.checksums->verified, 6u);
}

TEST(VerifyChecksums, CoreutilsFormsAllParse) {
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a"}));
  dir.write("new\nline.json", bytes_of("odd name"));
  dir.write("with space.json", bytes_of("spaced"));
  const auto hex = [&](const std::string& name) {
    return stguard::cli::to_hex(stguard::cli::sha256_bytes(slurp(dir.file(name))));
  };
  std::string sums;
  sums += hex("model.safetensors") + " *./model.safetensors\r\n";         // binary marker, CRLF
  sums += "\\" + hex("new\nline.json") + "  new\\nline.json\n";           // escaped name
  sums += "SHA256 (with space.json) = " + hex("with space.json") + "\n";  // --tag form
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.checksums->verified, 3u);
}

TEST(VerifyChecksums, ParseChecksumFile) {
  std::vector<std::pair<std::uint64_t, std::string> > malformed;
  const std::string hex(64, 'F');
  const auto lines = stguard::cli::parse_checksum_file(
      hex + "  a b\n" + hex + " *c\n\\" + hex + "  d\\\\e\n\\" + hex + "  f\\x\n", &malformed);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].name, "a b");
  EXPECT_FALSE(lines[0].binary);
  EXPECT_EQ(lines[1].name, "c");
  EXPECT_TRUE(lines[1].binary);
  EXPECT_EQ(lines[2].name, "d\\e");  // unescaped; safe_relative_name rejects it later
  ASSERT_EQ(malformed.size(), 1u);
  EXPECT_EQ(malformed[0].first, 4u);  // bad escape
}

TEST(VerifyChecksums, ExplicitListOutsideDirAndThreadCountsAgree) {
  const TempDir lists;
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  fs::rename(dir.file("SHA256SUMS"), lists.file("model.sha256"));
  for (const unsigned jobs : {1u, 3u, 8u}) {
    VerifyOptions options;
    options.sha256_file = lists.file("model.sha256");
    options.jobs = jobs;
    options.hash.io = jobs == 3 ? stguard::cli::HashIo::kMmap : stguard::cli::HashIo::kRead;
    std::uint64_t calls = 0;
    bool finished = false;
    options.progress = [&](std::uint64_t done, std::uint64_t total, bool end) {
      ++calls;
      EXPECT_LE(done, total);
      finished = end;
    };
    const VerifyReport report = verify(dir, options);
    EXPECT_TRUE(report.findings.empty()) << describe(report);
    EXPECT_EQ(report.checksums->verified, 6u);
    EXPECT_TRUE(report.checksums->from_option);
    EXPECT_TRUE(finished);
    EXPECT_GE(calls, 1u);
  }
}

TEST(VerifyChecksums, ListNamingItselfIsIgnoredWithAWarning) {
  const TempDir dir;
  write_good_model(dir);
  dir.write("SHA256SUMS", bytes_of(""));
  write_sums(dir);
  std::string sums = slurp(dir.file("SHA256SUMS"));
  sums += stguard::cli::to_hex(stguard::cli::sha256_bytes("")) + "  SHA256SUMS\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kChecksumDuplicate), 1u);
}

// ------------------------------------------------------------ could not run --

TEST(VerifyFolder, CouldNotRun) {
  const TempDir dir;
  dir.write("file.txt", bytes_of("x"));
  EXPECT_EQ(verify_model_folder(dir.file("absent"), {}).exit_code(), 2);
  EXPECT_EQ(verify_model_folder(dir.file("file.txt"), {}).exit_code(), 2);
  VerifyOptions options;
  options.sha256_file = dir.file("no-such-list");
  const VerifyReport report = verify_model_folder(dir.path().string(), options);
  EXPECT_FALSE(report.ran);
  EXPECT_EQ(report.exit_code(), 2);
}

// --------------------------------------------------------------- read-only --

struct Snapshot {
  struct Item {
    unsigned mode = 0;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
    std::uint64_t inode = 0;
    std::string content;  // sha256 hex, or the symlink target
    friend bool operator==(const Item&, const Item&) = default;
  };
  std::map<std::string, Item> items;  // relative path ("." = the directory) -> item
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot snapshot(const fs::path& root) {
  Snapshot out;
  const auto take = [&](const fs::path& path, const std::string& rel) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) std::abort();
    Snapshot::Item item;
    item.mode = st.st_mode;
    item.size = static_cast<std::uint64_t>(st.st_size);
    item.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
    item.ctime_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec;
    item.inode = st.st_ino;
    if (S_ISLNK(st.st_mode)) {
      item.content = fs::read_symlink(path).string();
    } else if (S_ISREG(st.st_mode)) {
      item.content = stguard::cli::to_hex(stguard::cli::sha256_bytes(slurp(path.string())));
    }
    out.items[rel] = item;
  };
  take(root, ".");
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    take(it->path(), fs::relative(it->path(), root).string());
  }
  return out;
}

TEST(VerifyReadOnly, NothingInDirChanges) {
  const TempDir outside;
  outside.write("target.safetensors", make_shard({"x"}));
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  // Every kind of thing verify touches or reports.
  dir.write("broken.safetensors", bytes_of("<html>nope</html>"));
  dir.write("empty.safetensors", {});
  dir.write(kShard2 + ".part", bytes_of("partial"));
  fs::create_symlink("config.json", dir.path() / "linked.json");
  fs::create_symlink(outside.file("target.safetensors"), dir.path() / "escape.safetensors");
  fs::create_directory(dir.path() / "sub");
  dir.write("sub/inner.bin", bytes_of("inner"));
  ASSERT_EQ(::mkfifo(dir.file("fifo.safetensors").c_str(), 0600), 0);

  const Snapshot before = snapshot(dir.path());
  const Snapshot outside_before = snapshot(outside.path());
  ASSERT_GE(before.items.size(), 14u);
  for (const bool follow : {false, true}) {
    VerifyOptions options;
    options.follow_symlinks = follow;
    options.hash.io = follow ? stguard::cli::HashIo::kMmap : stguard::cli::HashIo::kRead;
    const VerifyReport report = verify(dir, options);
    EXPECT_TRUE(report.ran);
    EXPECT_EQ(report.exit_code(), 1);
  }
  EXPECT_TRUE(snapshot(dir.path()) == before);
  EXPECT_TRUE(snapshot(outside.path()) == outside_before);
}

// ------------------------------------------------------------- JSON report --

TEST(VerifyReportJson, CarriesShardsIndexChecksumsFindingsAndCounts) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  truncate_file(dir.file(kShard1), 0);
  const nlohmann::ordered_json doc = stguard::cli::report_to_json(verify(dir));
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

// -------------------------------------------------------------- end to end --

// `stguard verify args...`
stguard_test::CliRun run_verify_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "verify");
  return stguard_test::run_cli(args);
}

TEST(VerifyCli, GoodFolderExitsZero) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  const stguard_test::CliRun text = run_verify_cli({dir.path().string()});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 1) << text.out;  // summary only
  const stguard_test::CliRun json = run_verify_cli({"--json", "-j", "2", dir.path().string()});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["checksums"]["verified"], 6);
  EXPECT_TRUE(json.err.empty()) << json.err;  // no progress bar when not a TTY
}

TEST(VerifyCli, ProblemsExitOneOneLinePerFinding) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  truncate_file(dir.file(kShard3), 100);
  const stguard_test::CliRun run = run_verify_cli({"--quiet", dir.path().string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  // shard_truncated + checksum_mismatch + summary.
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 3) << run.out;
  EXPECT_NE(run.out.find("shard_truncated"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("HEADER_LENGTH_EXCEEDS_FILE at byte 0"), std::string::npos) << run.out;
}

TEST(VerifyCli, CouldNotRunAndUsageExitTwo) {
  const TempDir dir;
  EXPECT_EQ(run_verify_cli({dir.file("absent")}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"--bogus", dir.path().string()}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"-j", "0", dir.path().string()}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"--sha256", dir.file("absent"), dir.path().string()}).exit_code, 2);
  const stguard_test::CliRun help = run_verify_cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage:"), std::string::npos);
}

}  // namespace
