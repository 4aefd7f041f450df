// tests/verify/folder_builder.h: model folders for the verify tests. A good
// folder (three shards written by stguard's own writer, an index, config
// files), SHA256SUMS over it, and one fault at a time on top; then the
// questions the tests ask of a report. The end-to-end tests of the binary
// (tests/cli/verify_cli_test.cc) build the same folders.
//
//   const TempDir dir;
//   const VerifyReport report = verify_with_fault(dir, [](const TempDir& d) {
//     truncate_file(d.file(kShard2), 40);
//   });
//   EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"shard_truncated"});
#ifndef STGUARD_TESTS_VERIFY_FOLDER_BUILDER_H_
#define STGUARD_TESTS_VERIFY_FOLDER_BUILDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "verify/verify.h"

namespace stguard_test {

std::vector<std::uint8_t> bytes_of(std::string_view s);

// A shard of F32 [4] tensors; the data depends on the name so that two
// shards holding "the same" tensor still differ byte-wise.
std::vector<std::uint8_t> make_shard(const std::vector<std::string>& names);

// F32 bit patterns for the value-scan tests.
inline constexpr std::uint32_t kF32Nan = 0x7FC00000;
inline constexpr std::uint32_t kF32PosInf = 0x7F800000;
inline constexpr std::uint32_t kF32NegInf = 0xFF800000;
inline constexpr std::uint32_t kF32MinusZero = 0x80000000;
inline constexpr std::uint32_t kF32One = 0x3F800000;

// A shard of F32 tensors given by their bit patterns (name -> values), for
// the value scan.
std::vector<std::uint8_t> make_f32_shard(
    const std::vector<std::pair<std::string, std::vector<std::uint32_t>>>& tensors);

inline const std::string kShard1 = "model-00001-of-00003.safetensors";
inline const std::string kShard2 = "model-00002-of-00003.safetensors";
inline const std::string kShard3 = "model-00003-of-00003.safetensors";
inline const std::string kIndex = "model.safetensors.index.json";
inline constexpr std::uint64_t kGoodTotalSize = 5 * 16;

// Shard name -> the tensors in it.
const std::map<std::string, std::vector<std::string>>& good_layout();
// (tensor, shard) pairs of the good layout, as an index lists them.
std::vector<std::pair<std::string, std::string>> good_weight_map();
std::string index_text(const std::vector<std::pair<std::string, std::string>>& weight_map,
                       std::optional<std::uint64_t> total_size);

// The good folder without SHA256SUMS: three shards, index, config.json,
// tokenizer.json.
void write_good_model(const TempDir& dir);
// SHA256SUMS over every regular file in the folder (top level), as
// `sha256sum * > SHA256SUMS` would write it, minus the list itself.
void write_sums(const TempDir& dir);
void truncate_file(const std::string& path, std::uint64_t size);

// ------------------------------------------------- multi-checkpoint folders --
// Shards (name relative to DIR, folders created) and their tensors.
using Layout = std::map<std::string, std::vector<std::string>>;

// Writes the shards of `layout` and, when `index` is not empty, an index
// (relative to DIR, in the shards' folder) naming them, total_size right.
void write_checkpoint(const TempDir& dir, const std::string& index, const Layout& layout);

// The folder layouts models ship in, each a valid folder with more than one checkpoint:
// the good model plus transformers' fp16 variant (model.safetensors.index.fp16.json,
// model.fp16-0000N-of-00002.safetensors) holding the same tensor names.
void write_variant_model(const TempDir& dir);
// The good model plus consolidated.safetensors holding all its tensors.
void write_consolidated_beside_shards(const TempDir& dir);
// model.safetensors beside model.fp16.safetensors, the same tensor names.
void write_single_beside_variant(const TempDir& dir);
// adapter_model.safetensors (LoRA) beside model.safetensors.
void write_adapter_beside_model(const TempDir& dir);
// A diffusers pipeline: model_index.json; unet/ (index + two shards, and a
// single-file fp16 variant), text_encoder/model.safetensors,
// vae/diffusion_pytorch_model.safetensors; unet and vae share tensor names.
void write_diffusers_pipeline(const TempDir& dir);

// verify_model_folder on `dir`, with two hashing threads unless told otherwise.
stguard::verify::VerifyReport verify(const TempDir& dir,
                                     stguard::verify::VerifyOptions options = {});

// Options with the value scan on (--scan-values).
stguard::verify::VerifyOptions scanning();

// The kinds of the error findings, sorted: what "exactly this fault" means.
std::multiset<std::string> error_kinds(const stguard::verify::VerifyReport& report);
// Every finding, one per line, for failure messages.
std::string describe(const stguard::verify::VerifyReport& report);
// The first finding of `kind`, or nullptr.
const stguard::verify::Finding* find(const stguard::verify::VerifyReport& report,
                                     stguard::verify::FindingKind kind);
// The report on shard `name`, or nullptr.
const stguard::verify::ShardReport* shard(const stguard::verify::VerifyReport& report,
                                          const std::string& name);
// The report on checkpoint `name`, or nullptr.
const stguard::verify::CheckpointReport* checkpoint(const stguard::verify::VerifyReport& report,
                                                    const std::string& name);

// Builds the good model, lets `fault` break it, rewrites SHA256SUMS so that
// only the structural fault remains, and verifies.
template <class Fault>
stguard::verify::VerifyReport verify_with_fault(const TempDir& dir, Fault fault,
                                                stguard::verify::VerifyOptions options = {}) {
  write_good_model(dir);
  fault(dir);
  write_sums(dir);
  return verify(dir, std::move(options));
}

// As verify_with_fault, the fault being an `edit` of the good weight_map
// (and total_size set to `total`).
template <class Edit>
stguard::verify::VerifyReport verify_with_index(
    const TempDir& dir, Edit edit, std::optional<std::uint64_t> total = kGoodTotalSize) {
  return verify_with_fault(dir, [&](const TempDir& d) {
    std::vector<std::pair<std::string, std::string>> map = good_weight_map();
    edit(map);
    d.write(kIndex, bytes_of(index_text(map, total)));
  });
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_VERIFY_FOLDER_BUILDER_H_
