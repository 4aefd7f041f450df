// Every SIMD path of the parser (stguard/simd.h) gives the baseline path's
// answer, byte for byte: verdict, reason, offset and message, and for
// accepted headers the tensors and metadata, in both profiles, through
// validate_header and parse_header. The inputs: every corpus file, every
// fuzz regression, and 10,000 mutated corpus files (seeded: half token-level
// edits from conformance/mutate/, half 1 to 3 random bytes changed, which break the
// UTF-8 and the strings where the vector kernels work). A path this CPU
// lacks is skipped (the test says so), never run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/mutate/token_mutator.h"
#include "stguard/header.h"
#include "stguard/simd.h"

namespace {

namespace fs = std::filesystem;
using stguard::Profile;
using stguard::SimdPath;

struct Input {
  std::string label;
  std::vector<std::uint8_t> bytes;
};

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every regular file below `dir`, sorted by path, so the inputs (and the
// mutations derived from them) are the same on every machine.
std::vector<Input> files_below(const fs::path& dir) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<Input> out;
  for (const fs::path& path : paths) {
    out.push_back({fs::relative(path, dir).string(), read_bytes(path)});
  }
  return out;
}

// Everything a caller can observe of a parse, as text: the error, or the
// header with every tensor and metadata pair.
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

std::string run(const std::vector<std::uint8_t>& bytes, Profile profile, SimdPath path) {
  stguard::ParseOptions options;
  options.profile = profile;
  options.simd = path;
  const std::span<const std::uint8_t> span(bytes);
  return describe(stguard::validate_header(span, bytes.size(), options)) + "\n--\n" +
         describe(stguard::parse_header(span, bytes.size(), options));
}

std::vector<Input> every_input() {
  std::vector<Input> inputs = files_below(STGUARD_CORPUS_DIR);
  const std::size_t corpus_files = inputs.size();
  for (Input& input : files_below(STGUARD_FUZZ_REGRESSIONS_DIR)) {
    inputs.push_back({"regression " + input.label, std::move(input.bytes)});
  }
  std::mt19937_64 rng(18);
  for (unsigned i = 0; i < 10'000; ++i) {
    const Input& base = inputs[i % corpus_files];
    Input mutated{"mutation " + std::to_string(i) + " of " + base.label, base.bytes};
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

TEST(SimdPathVerdicts, EveryPathGivesTheBaselinesAnswers) {
  std::vector<SimdPath> others;
  for (SimdPath path : stguard::supported_simd_paths()) {
    if (path != SimdPath::kBaseline) others.push_back(path);
  }
  if (others.empty()) GTEST_SKIP() << "this CPU has the baseline path only";
  for (SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512}) {
    if (!stguard::simd_path_supported(path)) {
      std::cout << "note: this CPU lacks " << stguard::simd_path_name(path) << "; not compared\n";
    }
  }
  const std::vector<Input> inputs = every_input();
  ASSERT_GT(inputs.size(), 10'000U + 400U);
  std::size_t compared = 0;
  std::size_t accepted = 0;
  int failures = 0;
  for (const Input& input : inputs) {
    for (Profile profile : {Profile::kStrict, Profile::kReference}) {
      const std::string want = run(input.bytes, profile, SimdPath::kBaseline);
      if (want.rfind("ok", 0) == 0) ++accepted;
      for (SimdPath path : others) {
        const std::string got = run(input.bytes, profile, path);
        ++compared;
        if (got != want) {
          ADD_FAILURE() << input.label << ", " << stguard::profile_name(profile) << ", "
                        << stguard::simd_path_name(path) << ":\n"
                        << got << "\nbaseline:\n"
                        << want;
          if (++failures == 10) return;
        }
      }
    }
  }
  std::cout << "compared " << compared << " parses on " << inputs.size() << " inputs (" << accepted
            << " accepted by the baseline, of " << 2 * inputs.size() << ")\n";
}

}  // namespace
