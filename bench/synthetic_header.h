// bench/synthetic_header.h: deterministic, realistic safetensors headers for
// benchmarks and the RSS measurement, built in memory (no files needed).
//
//   stguard::bench::SyntheticHeader h =
//       stguard::bench::make_synthetic_header({.tensors = 100'000});
//   stguard::parse_header(h.bytes, h.file_size(), {});  // accepted (strict)
//
// The tensors look like a Llama-style checkpoint: model.embed_tokens.weight,
// model.layers.K.{input_layernorm, post_attention_layernorm,
// mlp.{gate,up,down}_proj, self_attn.{q,k,v,o}_proj}.weight, model.norm.weight,
// lm_head.weight; BF16; shapes such as [4096,4096] and [4096]. Offsets are
// contiguous in canonical order (the upstream writer's: all BF16, so by name),
// a "__metadata__": {"format": "pt"} comes first, and the header is padded with
// spaces to a multiple of 8, as the upstream writer does.
#ifndef STGUARD_BENCH_SYNTHETIC_HEADER_H_
#define STGUARD_BENCH_SYNTHETIC_HEADER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace stguard::bench {

struct SyntheticOptions {
  std::uint64_t tensors = 10'000;
  std::uint64_t hidden = 4096;     // model width: [hidden] norms, [hidden,hidden] attention
  std::uint64_t intermediate = 0;  // MLP width; 0 = hidden * 11008 / 4096 (Llama ratio)
  std::uint64_t vocab = 32'000;    // embed_tokens / lm_head rows
  bool shuffle_keys = false;       // JSON entries in a shuffled order (offsets unchanged)
  std::uint64_t shuffle_seed = 1;
};

struct SyntheticHeader {
  std::vector<std::uint8_t> bytes;  // the 8-byte length prefix and the padded header
  std::uint64_t header_len = 0;     // N
  std::uint64_t data_len = 0;       // size of the data buffer the offsets describe
  std::uint64_t file_size() const noexcept { return 8 + header_len + data_len; }
};

// A header's JSON text (without padding) made a file's first bytes: padded
// with spaces to a multiple of 8, as the upstream writer does, behind its
// 8-byte length prefix. `data_len`: the data buffer its offsets describe.
SyntheticHeader finish_header(std::string json, std::uint64_t data_len);

// Same options, same bytes, on every platform (own shuffle, no std::shuffle).
SyntheticHeader make_synthetic_header(const SyntheticOptions& options);

}  // namespace stguard::bench

#endif  // STGUARD_BENCH_SYNTHETIC_HEADER_H_
