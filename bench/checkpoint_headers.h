// bench/checkpoint_headers.h: headers shaped like the checkpoints people
// have, for the speed figures of docs/performance.md.
//
// A header's cost depends on more than its size: the order of its entries
// (sorted names take the scanner's cheap duplicate check, offsets in entry
// order skip the layout sort), how long and alike its names are, how many
// dtypes and ranks it mixes. Each shape below is one such combination:
//
//   family   llama: a decoder (model.layers.N.self_attn.q_proj.weight, ...),
//                   BF16 weights, F32 norms, {"format": "pt"};
//            vlm:   a vision-language model: a vision tower of F16 weights with
//                   F32 biases and norms (vision_tower.vision_model.encoder.
//                   layers.N.mlp.fc1.bias), a projector, then a BF16 decoder,
//                   and four metadata keys;
//            lora:  a LoRA adapter (base_model.model.model.layers.N.self_attn.
//                   q_proj.lora_A.weight), F32, rank-16 matrices.
//   order    writer:     the upstream writer's order (dtype rank, then name by
//                        bytes), offsets in that order, as `save_file` makes;
//            state-dict: the model's own order (layer 0, 1, 2, ... 10, each
//                        layer's tensors as the module declares them), offsets
//                        in that order, as writers that keep insertion order do;
//            shuffled:   entries in a random order, offsets still in writer
//                        order, so the layout check must sort.
//   tensors  exactly this many entries (a 300-tensor adapter shard up to
//            100,000 tensors); the family repeats layers to get there.
//
// Every header is accepted by both profiles; the same shape gives the same
// bytes on every platform.
#ifndef STGUARD_BENCH_CHECKPOINT_HEADERS_H_
#define STGUARD_BENCH_CHECKPOINT_HEADERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "synthetic_header.h"

namespace stguard::bench {

enum class Family { kLlama, kVlm, kLora };
enum class Order { kWriter, kStateDict, kShuffled };

struct CheckpointShape {
  Family family = Family::kLlama;
  Order order = Order::kWriter;
  std::uint64_t tensors = 10'000;
};

// "llama/state-dict/100000"
std::string shape_name(const CheckpointShape& shape);

// Every family and order at each of these sizes.
std::vector<CheckpointShape> all_shapes(const std::vector<std::uint64_t>& sizes);

SyntheticHeader make_checkpoint_header(const CheckpointShape& shape);

}  // namespace stguard::bench

#endif  // STGUARD_BENCH_CHECKPOINT_HEADERS_H_
