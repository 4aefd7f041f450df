// verify/checkpoints.h (internal to verify/): which files make one checkpoint,
// by the names loaders give them.
//
//   is_index_name("model.safetensors.index.fp16.json")            -> true
//   index_shard_prefix("unet/model.safetensors.index.fp16.json")  -> "unet/model.fp16"
//   shard_set_name("model.fp16-00001-of-00002.safetensors")
//       -> {prefix "model.fp16", number 1, count 2, count_text "00002"}
//
// transformers and diffusers name a variant's files by inserting it before
// the last dot-separated part (_add_variant, in diffusers'
// src/diffusers/utils/hub_utils.py and transformers' modeling_utils.py):
// "model.safetensors" -> "model.fp16.safetensors", "model.safetensors.index.json"
// -> "model.safetensors.index.fp16.json"; their shards are the weights name
// with "-0000N-of-0000M" before ".safetensors". So an index and the shards it
// should name share a prefix, which is how a set whose index is missing, or a
// shard an index forgot, is recognised. The grouping itself (group_checkpoints)
// is declared in passes.h.
#ifndef STGUARD_VERIFY_CHECKPOINTS_H_
#define STGUARD_VERIFY_CHECKPOINTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stguard::verify {

// "*.safetensors.index.json" or "*.safetensors.index.VARIANT.json" (by the
// last path component).
bool is_index_name(std::string_view name);

// The name, with any folder, that the index's shards start with before
// "-0000N-of-0000M.safetensors"; nullopt when `index_name` is not an index name.
std::optional<std::string> index_shard_prefix(std::string_view index_name);

// A shard named PREFIX-N-of-M.safetensors (N and M decimal, 1 <= N <= M).
struct ShardSetName {
  std::string prefix;  // with any folder: "unet/diffusion_pytorch_model"
  std::uint32_t number = 0;
  std::uint32_t count = 0;
  std::string count_text;  // M as written ("00003"), for naming the set
};
std::optional<ShardSetName> shard_set_name(std::string_view shard_name);

// The folder part of a name relative to DIR ("unet" for "unet/x.json", "" for "x.json").
std::string_view folder_of(std::string_view name);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_CHECKPOINTS_H_
