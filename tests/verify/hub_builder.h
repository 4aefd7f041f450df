// tests/verify/hub_builder.h: the folders Hugging Face downloads leave, built
// from scratch for the verify tests: a cache repository with two revisions
// (an index and three shards, the second revision changing one shard and
// config.json), the cache root around it, and a `--local-dir` download of the
// good model with its .cache/huggingface/download metadata. Nothing is tuned
// to the verifier: the blobs are named as the Hub client names them (sha256
// of the content for *.safetensors, git blob hash for the rest).
//
//   const TempDir dir;
//   const HubRepo repo = build_hub_repo(dir);
//   flip_last_byte(repo.blob_path(repo.blob_of(kNewCommit, kShard2)));
//   const VerifyReport report = verify_path(repo.root);
#ifndef STGUARD_TESTS_VERIFY_HUB_BUILDER_H_
#define STGUARD_TESTS_VERIFY_HUB_BUILDER_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "verify/verify.h"

namespace stguard_test {

inline const std::string kOldCommit = "1111111111111111111111111111111111111111";
inline const std::string kNewCommit = "2222222222222222222222222222222222222222";

struct HubRepo {
  std::filesystem::path cache;  // .../hub
  std::filesystem::path root;   // .../hub/models--ORG--NAME
  // Per commit: file name in the snapshot -> blob name.
  std::map<std::string, std::map<std::string, std::string>> blobs;

  std::filesystem::path snapshot(const std::string& commit) const {
    return root / "snapshots" / commit;
  }
  std::string blob_of(const std::string& commit, const std::string& file) const {
    return blobs.at(commit).at(file);
  }
  std::filesystem::path blob_path(const std::string& blob) const { return root / "blobs" / blob; }
};

// dir/hub/<name>: snapshots kOldCommit and kNewCommit (refs/main names the
// new one), each with three shards, the index and config.json as relative
// links ../../blobs/<hash>.
HubRepo build_hub_repo(const TempDir& dir, const std::string& name = "models--org--tiny");

// dir/hub/<name> with one snapshot, kNewCommit, holding the diffusers
// pipeline of folder_builder.h (unet/, text_encoder/, vae/): links in
// subfolders point to ../../../blobs/<hash>.
HubRepo build_hub_pipeline(const TempDir& dir, const std::string& name = "models--org--pipe");

// The good model (folder_builder.h) plus, for each file,
// .cache/huggingface/download/<file>.metadata as `hf download --local-dir`
// writes it: commit, etag, timestamp (a little after the file's mtime).
void build_local_dir(const TempDir& dir);

// The metadata file of `file` in a --local-dir folder.
std::string metadata_path(const TempDir& dir, const std::string& file);

// Adds 1 to the byte at `offset` (the file keeps its size).
void flip_byte(const std::filesystem::path& path, std::uint64_t offset);

// Adds 1 to the last byte: in a shard, tensor data, so the header still parses.
void flip_last_byte(const std::filesystem::path& path);

// verify_model_folder on any path, two hashing threads.
stguard::verify::VerifyReport verify_path(const std::filesystem::path& path,
                                          stguard::verify::VerifyOptions options = {});

// The names of the findings of severity warning, sorted.
std::multiset<std::string> warning_kinds(const stguard::verify::VerifyReport& report);

}  // namespace stguard_test

#endif  // STGUARD_TESTS_VERIFY_HUB_BUILDER_H_
