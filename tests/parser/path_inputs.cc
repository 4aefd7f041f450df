#include "tests/parser/path_inputs.h"

#include <algorithm>
#include <cstddef>
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

}  // namespace stguard_test
