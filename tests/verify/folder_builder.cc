// tests/verify/folder_builder.cc: the folders and report helpers of folder_builder.h.
#include "folder_builder.h"

#include <gtest/gtest.h>
#include <stguard/stguard.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/sha256.h"

namespace stguard_test {

namespace fs = std::filesystem;
using stguard::verify::Finding;
using stguard::verify::finding_kind_name;
using stguard::verify::FindingKind;
using stguard::verify::Severity;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;

std::vector<std::uint8_t> bytes_of(std::string_view s) {
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

std::vector<std::uint8_t> make_shard(const std::vector<std::string>& names) {
  std::vector<std::vector<std::uint8_t>> data;
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
  stguard::Result<std::vector<std::uint8_t>> file =
      stguard::write_safetensors(tensors, {{"format", "pt"}});
  if (!file) std::abort();
  return *file;
}

std::vector<std::uint8_t> make_f32_shard(
    const std::vector<std::pair<std::string, std::vector<std::uint32_t>>>& tensors) {
  std::vector<std::vector<std::uint8_t>> data;
  std::vector<stguard::TensorToWrite> to_write;
  data.reserve(tensors.size());
  for (const auto& [name, values] : tensors) {
    std::vector<std::uint8_t> bytes;
    for (const std::uint32_t v : values) {
      for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    data.push_back(std::move(bytes));
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    to_write.push_back(
        {tensors[i].first, stguard::Dtype::kF32, {tensors[i].second.size()}, data[i]});
  }
  stguard::Result<std::vector<std::uint8_t>> file = stguard::write_safetensors(to_write);
  if (!file) std::abort();
  return *file;
}

const std::map<std::string, std::vector<std::string>>& good_layout() {
  static const std::map<std::string, std::vector<std::string>> layout = {
      {kShard1, {"model.embed.weight", "model.layers.0.w"}},
      {kShard2, {"model.layers.1.w", "model.layers.2.w"}},
      {kShard3, {"lm_head.weight"}},
  };
  return layout;
}

std::string index_text(const std::vector<std::pair<std::string, std::string>>& weight_map,
                       std::optional<std::uint64_t> total_size) {
  nlohmann::ordered_json doc;
  doc["metadata"] = nlohmann::ordered_json::object();
  if (total_size) doc["metadata"]["total_size"] = *total_size;
  doc["weight_map"] = nlohmann::ordered_json::object();
  for (const auto& [tensor, shard] : weight_map) doc["weight_map"][tensor] = shard;
  return doc.dump(2);
}

std::vector<std::pair<std::string, std::string>> good_weight_map() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [shard, names] : good_layout()) {
    for (const std::string& name : names) out.emplace_back(name, shard);
  }
  return out;
}

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
    text += stguard::base::sha256_hex(read_text(dir.file(name))) + "  " + name + "\n";
  }
  dir.write("SHA256SUMS", bytes_of(text));
}

void write_good_model(const TempDir& dir) {
  for (const auto& [shard, names] : good_layout()) dir.write(shard, make_shard(names));
  dir.write(kIndex, bytes_of(index_text(good_weight_map(), kGoodTotalSize)));
  dir.write("config.json", bytes_of(R"({"model_type": "llama"})"));
  dir.write("tokenizer.json", bytes_of(R"({"version": "1.0"})"));
}

VerifyReport verify(const TempDir& dir, VerifyOptions options) {
  options.jobs = options.jobs == 0 ? 2 : options.jobs;
  return stguard::verify::verify_model_folder(dir.path().string(), options);
}

VerifyOptions scanning() {
  VerifyOptions options;
  options.scan_values = true;
  return options;
}

const stguard::verify::CheckpointReport* checkpoint(const VerifyReport& report,
                                                    const std::string& name) {
  for (const stguard::verify::CheckpointReport& c : report.checkpoints) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

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

const stguard::verify::ShardReport* shard(const VerifyReport& report, const std::string& name) {
  for (const auto& s : report.shards) {
    if (s.file == name) return &s;
  }
  return nullptr;
}

void truncate_file(const std::string& path, std::uint64_t size) {
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0);
}

void write_checkpoint(const TempDir& dir, const std::string& index, const Layout& layout) {
  std::vector<std::pair<std::string, std::string>> weight_map;
  std::uint64_t total = 0;
  for (const auto& [shard, names] : layout) {
    fs::create_directories(fs::path(dir.file(shard)).parent_path());
    dir.write(shard, make_shard(names));
    for (const std::string& name : names) {
      weight_map.emplace_back(name, fs::path(shard).filename().string());
      total += 16;  // make_shard: F32 [4]
    }
  }
  if (!index.empty()) dir.write(index, bytes_of(index_text(weight_map, total)));
}

void write_variant_model(const TempDir& dir) {
  write_good_model(dir);
  write_checkpoint(
      dir, "model.safetensors.index.fp16.json",
      {{"model.fp16-00001-of-00002.safetensors",
        {"model.embed.weight", "model.layers.0.w", "model.layers.1.w"}},
       {"model.fp16-00002-of-00002.safetensors", {"model.layers.2.w", "lm_head.weight"}}});
}

void write_consolidated_beside_shards(const TempDir& dir) {
  write_good_model(dir);
  std::vector<std::string> all;
  for (const auto& item : good_weight_map()) all.push_back(item.first);
  write_checkpoint(dir, "", {{"consolidated.safetensors", all}});
}

void write_single_beside_variant(const TempDir& dir) {
  const std::vector<std::string> names = {"model.embed.weight", "lm_head.weight"};
  write_checkpoint(dir, "", {{"model.safetensors", names}, {"model.fp16.safetensors", names}});
  dir.write("config.json", bytes_of(R"({"model_type": "llama"})"));
}

void write_adapter_beside_model(const TempDir& dir) {
  write_checkpoint(
      dir, "",
      {{"model.safetensors", {"model.embed.weight", "lm_head.weight"}},
       {"adapter_model.safetensors",
        {"base_model.model.lm_head.lora_A.weight", "base_model.model.lm_head.lora_B.weight"}}});
  dir.write("adapter_config.json", bytes_of(R"({"peft_type": "LORA"})"));
}

void write_diffusers_pipeline(const TempDir& dir) {
  dir.write("model_index.json", bytes_of(R"({"_class_name": "StableDiffusionPipeline"})"));
  write_checkpoint(
      dir, "unet/diffusion_pytorch_model.safetensors.index.json",
      {{"unet/diffusion_pytorch_model-00001-of-00002.safetensors",
        {"conv_in.weight", "down.0.weight"}},
       {"unet/diffusion_pytorch_model-00002-of-00002.safetensors", {"conv_out.weight"}}});
  write_checkpoint(
      dir, "",
      {{"unet/diffusion_pytorch_model.fp16.safetensors",
        {"conv_in.weight", "down.0.weight", "conv_out.weight"}},
       {"text_encoder/model.safetensors", {"text_model.embeddings.weight"}},
       {"vae/diffusion_pytorch_model.safetensors", {"conv_in.weight", "conv_out.weight"}}});
  dir.write("unet/config.json", bytes_of(R"({"_class_name": "UNet2DConditionModel"})"));
}

}  // namespace stguard_test
