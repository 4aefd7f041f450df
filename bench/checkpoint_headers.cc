#include "checkpoint_headers.h"

#include <algorithm>
#include <random>
#include <string_view>
#include <utility>

#include "stguard/dtype.h"

namespace stguard::bench {
namespace {

struct Entry {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
};

// Adds entries until `count`; returns false once full.
class Entries {
 public:
  explicit Entries(std::uint64_t count) : count_(count) { entries_.reserve(count); }
  bool full() const { return entries_.size() >= count_; }
  void add(std::string name, Dtype dtype, std::vector<std::uint64_t> shape) {
    if (!full()) entries_.push_back({std::move(name), dtype, std::move(shape)});
  }
  std::vector<Entry> take() { return std::move(entries_); }

 private:
  std::uint64_t count_;
  std::vector<Entry> entries_;
};

// A Llama-3-style decoder, layer after layer, then the final norm and
// lm_head.
std::vector<Entry> llama(std::uint64_t count) {
  Entries out(count >= 3 ? count - 2 : count);
  std::uint64_t layer = 0;
  out.add("model.embed_tokens.weight", Dtype::kBF16, {32000, 4096});
  while (!out.full()) {
    const std::string p = "model.layers." + std::to_string(layer++) + ".";
    out.add(p + "self_attn.q_proj.weight", Dtype::kBF16, {4096, 4096});
    out.add(p + "self_attn.k_proj.weight", Dtype::kBF16, {1024, 4096});
    out.add(p + "self_attn.v_proj.weight", Dtype::kBF16, {1024, 4096});
    out.add(p + "self_attn.o_proj.weight", Dtype::kBF16, {4096, 4096});
    out.add(p + "mlp.gate_proj.weight", Dtype::kBF16, {14336, 4096});
    out.add(p + "mlp.up_proj.weight", Dtype::kBF16, {14336, 4096});
    out.add(p + "mlp.down_proj.weight", Dtype::kBF16, {4096, 14336});
    out.add(p + "input_layernorm.weight", Dtype::kF32, {4096});
    out.add(p + "post_attention_layernorm.weight", Dtype::kF32, {4096});
  }
  std::vector<Entry> entries = out.take();
  if (count >= 3) {
    entries.push_back({"model.norm.weight", Dtype::kF32, {4096}});
    entries.push_back({"lm_head.weight", Dtype::kBF16, {128256, 4096}});
  }
  return entries;
}

std::vector<Entry> vlm(std::uint64_t count) {
  // A quarter of the entries the vision tower (SigLIP-sized layers), the
  // rest the projector and the decoder.
  Entries vision(count / 4);
  vision.add("vision_tower.vision_model.embeddings.patch_embedding.weight", Dtype::kF16,
             {1152, 3, 14, 14});
  vision.add("vision_tower.vision_model.embeddings.patch_embedding.bias", Dtype::kF32, {1152});
  vision.add("vision_tower.vision_model.embeddings.position_embedding.weight", Dtype::kF16,
             {729, 1152});
  for (std::uint64_t layer = 0; !vision.full(); ++layer) {
    const std::string p = "vision_tower.vision_model.encoder.layers." + std::to_string(layer) + ".";
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      vision.add(p + "self_attn." + proj + ".weight", Dtype::kF16, {1152, 1152});
      vision.add(p + "self_attn." + proj + ".bias", Dtype::kF32, {1152});
    }
    vision.add(p + "layer_norm1.weight", Dtype::kF32, {1152});
    vision.add(p + "layer_norm1.bias", Dtype::kF32, {1152});
    vision.add(p + "mlp.fc1.weight", Dtype::kF16, {4304, 1152});
    vision.add(p + "mlp.fc1.bias", Dtype::kF32, {4304});
    vision.add(p + "mlp.fc2.weight", Dtype::kF16, {1152, 4304});
    vision.add(p + "mlp.fc2.bias", Dtype::kF32, {1152});
    vision.add(p + "layer_norm2.weight", Dtype::kF32, {1152});
    vision.add(p + "layer_norm2.bias", Dtype::kF32, {1152});
  }
  std::vector<Entry> entries = vision.take();
  const std::uint64_t projector = count - entries.size() >= 4 ? 4 : 0;
  std::vector<Entry> decoder = llama(count - entries.size() - projector);
  for (Entry& e : decoder) e.name = "language_model." + e.name;
  if (projector != 0) {
    entries.push_back({"multi_modal_projector.linear_1.weight", Dtype::kBF16, {4096, 1152}});
    entries.push_back({"multi_modal_projector.linear_1.bias", Dtype::kBF16, {4096}});
    entries.push_back({"multi_modal_projector.linear_2.weight", Dtype::kBF16, {4096, 4096}});
    entries.push_back({"multi_modal_projector.linear_2.bias", Dtype::kBF16, {4096}});
  }
  entries.insert(entries.end(), std::make_move_iterator(decoder.begin()),
                 std::make_move_iterator(decoder.end()));
  return entries;
}

std::vector<Entry> lora(std::uint64_t count) {
  Entries out(count);
  for (std::uint64_t layer = 0; !out.full(); ++layer) {
    const std::string p = "base_model.model.model.layers." + std::to_string(layer) + ".";
    for (const char* module :
         {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
          "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
      const bool down = std::string_view(module) == "mlp.down_proj";
      out.add(p + module + ".lora_A.weight", Dtype::kF32, {16, down ? 14336u : 4096u});
      out.add(p + module + ".lora_B.weight", Dtype::kF32, {down ? 4096u : 14336u, 16});
    }
  }
  return out.take();
}

std::vector<std::pair<std::string, std::string>> metadata_of(Family family) {
  switch (family) {
    case Family::kLlama:
      return {{"format", "pt"}};
    case Family::kVlm:
      return {{"format", "pt"},
              {"modality", "image-text-to-text"},
              {"total_parameters", "7566245888"},
              {"transformers_version", "4.46.0"}};
    case Family::kLora:
      return {{"format", "pt"}};
  }
  return {};
}

std::uint64_t byte_size(const Entry& e) {
  std::uint64_t bits = dtype_bits(e.dtype);
  for (const std::uint64_t d : e.shape) bits *= d;
  return bits / 8;
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  out += text;  // the generator's names need no escapes
  out += '"';
}

void append_entry(std::string& out, const Entry& e, std::uint64_t begin, std::uint64_t end) {
  append_json_string(out, e.name);
  out += R"(:{"dtype":)";
  append_json_string(out, dtype_name(e.dtype));
  out += R"(,"shape":[)";
  for (std::size_t i = 0; i < e.shape.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(e.shape[i]);
  }
  out += R"(],"data_offsets":[)";
  out += std::to_string(begin);
  out += ',';
  out += std::to_string(end);
  out += "]}";
}

bool writer_before(const Entry& a, const Entry& b) {
  const int ra = dtype_writer_rank(a.dtype);
  const int rb = dtype_writer_rank(b.dtype);
  if (ra != rb) return ra < rb;
  return a.name < b.name;
}

}  // namespace

std::string shape_name(const CheckpointShape& shape) {
  std::string name = shape.family == Family::kLlama ? "llama"
                     : shape.family == Family::kVlm ? "vlm"
                                                    : "lora";
  name += shape.order == Order::kWriter      ? "/writer/"
          : shape.order == Order::kStateDict ? "/state-dict/"
                                             : "/shuffled/";
  return name + std::to_string(shape.tensors);
}

std::vector<CheckpointShape> all_shapes(const std::vector<std::uint64_t>& sizes) {
  std::vector<CheckpointShape> shapes;
  for (const std::uint64_t tensors : sizes) {
    for (const Family family : {Family::kLlama, Family::kVlm, Family::kLora}) {
      for (const Order order : {Order::kWriter, Order::kStateDict, Order::kShuffled}) {
        shapes.push_back({family, order, tensors});
      }
    }
  }
  return shapes;
}

SyntheticHeader make_checkpoint_header(const CheckpointShape& shape) {
  std::vector<Entry> entries = shape.family == Family::kLlama ? llama(shape.tensors)
                               : shape.family == Family::kVlm ? vlm(shape.tensors)
                                                              : lora(shape.tensors);
  // Offsets: in writer order, except for state-dict, where they follow the
  // model's own order.
  std::vector<std::size_t> by_offset(entries.size());
  for (std::size_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
  if (shape.order != Order::kStateDict) {
    std::stable_sort(by_offset.begin(), by_offset.end(), [&](std::size_t a, std::size_t b) {
      return writer_before(entries[a], entries[b]);
    });
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges(entries.size());
  std::uint64_t offset = 0;
  for (const std::size_t i : by_offset) {
    ranges[i] = {offset, offset + byte_size(entries[i])};
    offset = ranges[i].second;
  }
  // Entries: writer and state-dict in offset order; shuffled at random
  // (Fisher-Yates with mt19937_64, whose output the standard fixes).
  std::vector<std::size_t> listed = by_offset;
  if (shape.order == Order::kShuffled) {
    std::mt19937_64 rng(1);
    for (std::size_t i = listed.size(); i > 1; --i) {
      std::swap(listed[i - 1], listed[static_cast<std::size_t>(rng() % i)]);
    }
  }

  std::string json = R"({"__metadata__":{)";
  bool first = true;
  for (const auto& [key, value] : metadata_of(shape.family)) {
    if (!first) json += ',';
    first = false;
    append_json_string(json, key);
    json += ':';
    append_json_string(json, value);
  }
  json += '}';
  for (const std::size_t i : listed) {
    json += ',';
    append_entry(json, entries[i], ranges[i].first, ranges[i].second);
  }
  json += '}';
  return finish_header(std::move(json), offset);
}

}  // namespace stguard::bench
