// tests/verify/fetched_test.cc: verify_fetched, given the bytes a remote
// fetch gives of a folder's files (a shard's first 100,000 bytes or its
// whole header, an index whole), finds what verify_model_folder finds on
// the folder itself: the same findings, shards, indexes and checkpoints, for
// the good model and each fault of the structure checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "tests/support/temp_dir.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::FetchedFile;
using stguard::verify::VerifyReport;
using stguard_test::TempDir;

std::vector<std::uint8_t> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What remote/head.h reads of a shard: the first 100,000 bytes, and the
// whole header when it is longer.
std::vector<std::uint8_t> head_of(const std::vector<std::uint8_t>& file) {
  std::size_t n = std::min<std::size_t>(file.size(), 100'000);
  if (file.size() >= 8) {
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | file[static_cast<std::size_t>(i)];
    if (len <= file.size() - 8) n = std::max<std::size_t>(n, static_cast<std::size_t>(8 + len));
  }
  return {file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n)};
}

// The folder's files as a fetch would give them, listed with their sizes.
std::vector<FetchedFile> fetched_from(const fs::path& dir) {
  std::vector<FetchedFile> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = fs::relative(e.path(), dir).generic_string();
    const auto need = stguard::verify::fetch_need(name);
    if (need == stguard::verify::FetchNeed::kNothing) continue;
    const std::vector<std::uint8_t> bytes = read_all(e.path());
    FetchedFile f;
    f.name = name;
    f.size = bytes.size();
    f.listed_size = bytes.size();
    f.bytes = need == stguard::verify::FetchNeed::kHead ? head_of(bytes) : bytes;
    files.push_back(std::move(f));
  }
  return files;
}

// Everything the structure passes report, as one comparable text.
std::string structure_of(const VerifyReport& r) {
  std::string out;
  for (const auto& f : r.findings) {
    out += std::string(stguard::verify::finding_kind_name(f.kind)) + " " + f.file + " " + f.tensor +
           " " + f.shard + " " + f.other + " [" + f.checkpoint + "] " +
           std::to_string(f.offset.value_or(~0ULL)) + " " +
           std::to_string(f.expected_size.value_or(~0ULL)) + ": " + f.message + "\n";
  }
  for (const auto& s : r.shards) {
    out += "shard " + s.file + " " + std::string(stguard::verify::shard_verdict_name(s.verdict)) +
           " " + std::to_string(s.size) + " " + std::to_string(s.tensors) + " " + s.message + "\n";
  }
  for (const auto& i : r.indexes) {
    out +=
        "index " + i.file + " " + std::to_string(i.usable) + " " + std::to_string(i.entries) + "\n";
  }
  for (const auto& c : r.checkpoints) {
    out += "checkpoint " + c.name + " " + std::to_string(c.shards.size()) + " " +
           std::to_string(c.tensors) + " " + std::to_string(c.errors) + "/" +
           std::to_string(c.warnings) + "\n";
  }
  out += "exit " + std::to_string(r.exit_code()) + "\n";
  return out;
}

void expect_same_as_local(const std::function<void(const TempDir&)>& fault) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  fault(dir);
  const VerifyReport local = stguard::verify::verify_model_folder(dir.path().string());
  const VerifyReport remote =
      stguard::verify::verify_fetched(dir.path().string(), fetched_from(dir.path()));
  EXPECT_EQ(remote.layout, stguard::verify::Layout::kRemote);
  EXPECT_EQ(structure_of(remote), structure_of(local));
  EXPECT_FALSE(remote.checksums);
}

using stguard_test::kIndex;
using stguard_test::kShard1;
using stguard_test::kShard2;
using stguard_test::kShard3;

TEST(VerifyFetched, TheGoodModel) {
  expect_same_as_local([](const TempDir&) {});
}

TEST(VerifyFetched, ShardFaults) {
  expect_same_as_local([](const TempDir& d) { stguard_test::truncate_file(d.file(kShard2), 40); });
  expect_same_as_local([](const TempDir& d) { stguard_test::truncate_file(d.file(kShard2), 4); });
  expect_same_as_local([](const TempDir& d) { stguard_test::truncate_file(d.file(kShard2), 0); });
  expect_same_as_local([](const TempDir& d) {
    std::ofstream(d.file(kShard3))
        << "version https://git-lfs.github.com/spec/v1\noid sha256:" << std::string(64, 'a')
        << "\nsize 1234\n";
  });
  expect_same_as_local(
      [](const TempDir& d) { std::ofstream(d.file(kShard1)) << "<html><body>502</body></html>"; });
  expect_same_as_local([](const TempDir& d) {  // trailing data
    std::ofstream(d.file(kShard1), std::ios::app) << "extra";
  });
}

TEST(VerifyFetched, IndexFaults) {
  expect_same_as_local([](const TempDir& d) { std::ofstream(d.file(kIndex)) << "{not json"; });
  expect_same_as_local([](const TempDir& d) { std::ofstream(d.file(kIndex)) << "{}"; });
  expect_same_as_local([](const TempDir& d) {
    auto map = stguard_test::good_weight_map();
    map.emplace_back("ghost", kShard2);
    map.front().second = kShard3;
    std::ofstream(d.file(kIndex)) << stguard_test::index_text(map, 999);
  });
  expect_same_as_local([](const TempDir& d) { fs::remove(d.path() / kShard3); });
  expect_same_as_local([](const TempDir& d) { fs::remove(d.path() / kIndex); });
  expect_same_as_local([](const TempDir& d) {  // a tensor in two shards
    std::ofstream out(d.file(kShard3), std::ios::binary);
    const auto shard = stguard_test::make_shard({"model.embed_tokens.weight", "x"});
    out.write(reinterpret_cast<const char*>(shard.data()),
              static_cast<std::streamsize>(shard.size()));
  });
}

TEST(VerifyFetched, SeveralCheckpointsAndSubfolders) {
  const TempDir dir;
  stguard_test::write_variant_model(dir);
  stguard_test::write_checkpoint(dir, "unet/diffusion.safetensors.index.json",
                                 {{"unet/diffusion-00001-of-00001.safetensors", {"u"}}});
  for (const bool recursive : {false, true}) {
    stguard::verify::VerifyOptions options;
    options.recursive = recursive;
    const VerifyReport local = stguard::verify::verify_model_folder(dir.path().string(), options);
    const VerifyReport remote =
        stguard::verify::verify_fetched(dir.path().string(), fetched_from(dir.path()), options);
    EXPECT_EQ(structure_of(remote), structure_of(local)) << "recursive " << recursive;
  }
}

TEST(VerifyFetched, ASizeOtherThanTheListingsIsAFinding) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  std::vector<FetchedFile> files = fetched_from(dir.path());
  for (FetchedFile& f : files) {
    if (f.name == kShard2) f.listed_size = f.size + 1;
  }
  const VerifyReport r = stguard::verify::verify_fetched("repo", files);
  ASSERT_EQ(r.count(stguard::verify::FindingKind::kShardSizeMismatch), 1U);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(VerifyFetched, AFileThatCouldNotBeFetchedIsUnreadable) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  std::vector<FetchedFile> files = fetched_from(dir.path());
  for (FetchedFile& f : files) {
    if (f.name == kShard1 || f.name == kIndex) {
      f.bytes.clear();
      f.error = "https://x/" + f.name + ": HTTP 503";
    }
  }
  const VerifyReport r = stguard::verify::verify_fetched("repo", files);
  EXPECT_EQ(r.count(stguard::verify::FindingKind::kShardUnreadable), 1U);
  EXPECT_EQ(r.count(stguard::verify::FindingKind::kIndexUnreadable), 1U);
  EXPECT_EQ(r.exit_code(), 2);
}

TEST(VerifyFetched, AnIndexOverTheLimitIsTooLargeUnread) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  std::vector<FetchedFile> files = fetched_from(dir.path());
  stguard::verify::VerifyOptions options;
  options.max_index_bytes = 10;
  const VerifyReport remote = stguard::verify::verify_fetched("repo", files, options);
  const VerifyReport local = stguard::verify::verify_model_folder(dir.path().string(), options);
  EXPECT_EQ(remote.count(stguard::verify::FindingKind::kIndexMalformed), 1U);
  EXPECT_EQ(structure_of(remote), structure_of(local));
}

TEST(VerifyFetched, ShardsNamedInAnIndex) {
  EXPECT_EQ(
      stguard::verify::shards_named_in_index(
          R"({"weight_map":{"a":"s2.safetensors","b":"./s1.safetensors","c":"../x","d":"s2.safetensors"}})"),
      (std::vector<std::string>{"s1.safetensors", "s2.safetensors"}));
  EXPECT_TRUE(stguard::verify::shards_named_in_index("{").empty());
}

}  // namespace
