#include "synthetic_header.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>

namespace stguard::bench {
namespace {

constexpr std::uint64_t kBf16Bytes = 2;

struct Spec {
  std::string name;
  std::vector<std::uint64_t> shape;
};

// Tensors in generation order: embeddings, then layer after layer, then the
// final norm and lm_head; cut to exactly `count` entries.
std::vector<Spec> make_specs(const SyntheticOptions& o) {
  const std::uint64_t h = o.hidden;
  const std::uint64_t m = o.intermediate != 0 ? o.intermediate : h * 11008 / 4096;
  std::vector<Spec> specs;
  specs.reserve(o.tensors);
  const auto add = [&](std::string name, std::vector<std::uint64_t> shape) {
    if (specs.size() < o.tensors) specs.push_back({std::move(name), std::move(shape)});
  };
  // Keep room for the two tail tensors when there is room at all.
  const std::uint64_t tail = o.tensors >= 3 ? 2 : 0;
  add("model.embed_tokens.weight", {o.vocab, h});
  for (std::uint64_t layer = 0; specs.size() + tail < o.tensors; ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    const std::pair<const char*, std::vector<std::uint64_t>> layer_tensors[] = {
        {"input_layernorm.weight", {h}},          {"mlp.down_proj.weight", {h, m}},
        {"mlp.gate_proj.weight", {m, h}},         {"mlp.up_proj.weight", {m, h}},
        {"post_attention_layernorm.weight", {h}}, {"self_attn.k_proj.weight", {h, h}},
        {"self_attn.o_proj.weight", {h, h}},      {"self_attn.q_proj.weight", {h, h}},
        {"self_attn.v_proj.weight", {h, h}},
    };
    for (const auto& [suffix, shape] : layer_tensors) {
      if (specs.size() + tail < o.tensors) add(p + suffix, shape);
    }
  }
  add("model.norm.weight", {h});
  add("lm_head.weight", {o.vocab, h});
  return specs;
}

std::uint64_t byte_size(const Spec& spec) {
  std::uint64_t n = kBf16Bytes;
  for (const std::uint64_t d : spec.shape) n *= d;
  return n;
}

void append_entry(std::string& out, const Spec& spec, std::uint64_t begin, std::uint64_t end) {
  out += '"';
  out += spec.name;
  out += R"(":{"dtype":"BF16","shape":[)";
  for (std::size_t i = 0; i < spec.shape.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(spec.shape[i]);
  }
  out += R"(],"data_offsets":[)";
  out += std::to_string(begin);
  out += ',';
  out += std::to_string(end);
  out += "]}";
}

}  // namespace

SyntheticHeader finish_header(std::string json, std::uint64_t data_len) {
  json.append((8 - json.size() % 8) % 8, ' ');
  SyntheticHeader out;
  out.header_len = json.size();
  out.data_len = data_len;
  out.bytes.reserve(8 + json.size());
  for (int i = 0; i < 8; ++i) {
    out.bytes.push_back(static_cast<std::uint8_t>(out.header_len >> (8 * i)));
  }
  out.bytes.insert(out.bytes.end(), json.begin(), json.end());
  return out;
}

SyntheticHeader make_synthetic_header(const SyntheticOptions& options) {
  std::vector<Spec> specs = make_specs(options);
  // Canonical order: every tensor is BF16, so the writer orders by name.
  std::sort(specs.begin(), specs.end(),
            [](const Spec& a, const Spec& b) { return a.name < b.name; });

  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  ranges.reserve(specs.size());
  std::uint64_t offset = 0;
  for (const Spec& spec : specs) {
    const std::uint64_t size = byte_size(spec);
    ranges.emplace_back(offset, offset + size);
    offset += size;
  }

  std::vector<std::size_t> order(specs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (options.shuffle_keys) {
    // Fisher-Yates with mt19937_64, whose output the standard fixes.
    std::mt19937_64 rng(options.shuffle_seed);
    for (std::size_t i = order.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(rng() % i);
      std::swap(order[i - 1], order[j]);
    }
  }

  std::string json = R"({"__metadata__":{"format":"pt"})";
  for (const std::size_t i : order) {
    json += ',';
    append_entry(json, specs[i], ranges[i].first, ranges[i].second);
  }
  json += '}';
  return finish_header(std::move(json), offset);
}

}  // namespace stguard::bench
