#include "tests/parser/path_inputs.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <utility>

#include "conformance/mutate/token_mutator.h"

namespace stguard_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every regular file below `dir`, sorted by path, so the inputs (and the
// mutations derived from them) are the same on every machine.
std::vector<PathInput> files_below(const fs::path& dir) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<PathInput> out;
  for (const fs::path& path : paths) {
    out.push_back({fs::relative(path, dir).string(), read_bytes(path)});
  }
  return out;
}

}  // namespace

std::string describe(const stguard::Result<stguard::Header>& result) {
  if (!result) return "error " + result.error().to_string();
  std::ostringstream out;
  out << "ok header_len " << result->header_len << " file_size " << result->file_size;
  for (const stguard::TensorInfo& t : result->tensors) {
    out << "\n" << t.name << " " << stguard::dtype_name(t.dtype) << " [";
    for (std::uint64_t dim : t.shape) out << dim << ",";
    out << "] " << t.begin << " " << t.end << " @" << t.header_offset;
  }
  if (result->metadata) {
    for (const auto& [key, value] : *result->metadata) out << "\nmeta " << key << "=" << value;
  }
  return out.str();
}

std::string describe(const stguard::Result<stguard::HeaderSummary>& result) {
  if (!result) return "error " + result.error().to_string();
  std::ostringstream out;
  out << "ok tensors " << result->tensor_count << " metadata " << result->has_metadata << "/"
      << result->metadata_count << " header_len " << result->header_len;
  return out.str();
}

std::vector<PathInput> every_path_input() {
  std::vector<PathInput> inputs = files_below(STGUARD_CORPUS_DIR);
  const std::size_t corpus_files = inputs.size();
  for (PathInput& input : files_below(STGUARD_FUZZ_REGRESSIONS_DIR)) {
    inputs.push_back({"regression " + input.label, std::move(input.bytes)});
  }
  std::mt19937_64 rng(18);
  for (unsigned i = 0; i < 10'000; ++i) {
    const PathInput& base = inputs[i % corpus_files];
    PathInput mutated{"mutation " + std::to_string(i) + " of " + base.label, base.bytes};
    if (i % 2 == 0) {
      mutated.bytes = stguard::mutate::mutate_copy(base.bytes, i);
    } else if (!mutated.bytes.empty()) {
      const unsigned edits = 1 + static_cast<unsigned>(rng() % 3);
      for (unsigned e = 0; e < edits; ++e) {
        // Mostly inside the header, where the kernels run.
        const std::size_t limit = std::min<std::size_t>(mutated.bytes.size(), 4096);
        mutated.bytes[rng() % limit] = static_cast<std::uint8_t>(rng());
      }
    }
    inputs.push_back(std::move(mutated));
  }
  return inputs;
}

std::vector<std::uint8_t> file_of(const std::vector<CheckpointTensor>& tensors,
                                  const std::string& metadata, std::size_t pad) {
  std::string header = "{\"__metadata__\":" + metadata;
  std::uint64_t data_size = 0;
  for (const CheckpointTensor& t : tensors) {
    const bool norm = t.name.find("norm") != std::string::npos;
    header += ",\"" + t.name + "\":{\"dtype\":\"" + (norm ? "F32" : "BF16") + "\",\"shape\":[" +
              (norm ? "4" : "4,2") + "],\"data_offsets\":[" + std::to_string(t.begin) + "," +
              std::to_string(t.begin + 16) + "]}";
    data_size = std::max(data_size, t.begin + 16);
  }
  header += "}";
  header.append(pad, ' ');
  std::vector<std::uint8_t> file(8 + header.size() + data_size, 0);
  const std::uint64_t n = header.size();
  for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<std::uint8_t>(n >> (8 * b));
  std::memcpy(file.data() + 8, header.data(), header.size());
  return file;
}

namespace {

std::string layer_name(std::size_t i) {
  static constexpr const char* kParts[] = {"self_attn.q_proj.weight", "self_attn.k_proj.weight",
                                           "self_attn.v_proj.weight", "mlp.up_proj.weight",
                                           "input_layernorm.weight"};
  return "model.layers." + std::to_string(i / 5) + "." + kParts[i % 5];
}

}  // namespace

std::vector<CheckpointTensor> tensors_of(std::size_t count, Order order) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back(layer_name(i));
  if (order == Order::kSorted) std::sort(names.begin(), names.end());
  if (order == Order::kWriter) {
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      const bool a_norm = a.find("norm") != std::string::npos;
      const bool b_norm = b.find("norm") != std::string::npos;
      return a_norm != b_norm ? a_norm : a < b;
    });
  }
  if (order == Order::kShuffled) std::shuffle(names.begin(), names.end(), std::mt19937_64(7));
  std::vector<CheckpointTensor> tensors;
  for (std::size_t i = 0; i < count; ++i) tensors.push_back({names[i], 16 * i});
  return tensors;
}

std::vector<std::uint8_t> checkpoint(std::size_t count, Order order) {
  return file_of(tensors_of(count, order));
}

}  // namespace stguard_test
