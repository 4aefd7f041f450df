// stguard_corpus_answers CORPUS_DIR: every corpus case's answer, one line per
// case, profile and path (every fast path on, on each SIMD path the CPU
// has, and the plain path alone, parser/src/layers.h): the reason, offset and message, or the
// header read.
// What ci/mutants.py compares before and after each change it makes to the parser: a mutant that
// changes no line survives the corpus. Needs the parser library alone (and reads manifest.json with
// a few string finds, not a JSON library, for that reason).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "parser/src/layers.h"
#include "stguard/stguard.h"

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The "file" values of manifest.json, in order (each case has one, and no
// other member is named "file").
std::vector<std::string> case_files(const std::string& manifest) {
  std::vector<std::string> out;
  const std::string key = "\"file\": \"";
  for (std::size_t at = manifest.find(key); at != std::string::npos;
       at = manifest.find(key, at + 1)) {
    const std::size_t begin = at + key.size();
    out.push_back(manifest.substr(begin, manifest.find('"', begin) - begin));
  }
  return out;
}

std::string answer(const std::string& bytes, stguard::Profile profile,
                   stguard::SimdPath simd = stguard::SimdPath::kAuto) {
  stguard::ParseOptions options;
  options.profile = profile;
  options.simd = simd;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const stguard::Result<stguard::Header> r =
      stguard::parse(std::span<const std::uint8_t>(data, bytes.size()), options);
  if (!r) {
    return std::string(stguard::reason_name(r.error().reason)) + " @ " +
           std::to_string(r.error().offset) + ": " + r.error().message;
  }
  std::ostringstream out;
  out << "accept";
  for (const stguard::TensorInfo& t : r->tensors) {
    out << " " << t.name << ":" << stguard::dtype_name(t.dtype) << ":[";
    for (const std::uint64_t d : t.shape) out << d << ",";
    out << "]:" << t.begin << "-" << t.end;
  }
  if (r->metadata) {
    for (const auto& [key, value] : *r->metadata) out << " " << key << "=" << value;
  }
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: stguard_corpus_answers CORPUS_DIR\n");
    return 2;
  }
  const fs::path dir = argv[1];
  const std::vector<std::string> files = case_files(read_text(dir / "manifest.json"));
  if (files.empty()) {
    std::fprintf(stderr, "stguard_corpus_answers: no cases in %s/manifest.json\n", argv[1]);
    return 2;
  }
  for (const std::string& file : files) {
    const std::string bytes = read_text(dir / file);
    for (const stguard::Profile profile :
         {stguard::Profile::kStrict, stguard::Profile::kReference}) {
      for (const stguard::SimdPath simd : stguard::supported_simd_paths()) {
        std::cout << file << " " << stguard::profile_name(profile) << " "
                  << stguard::simd_path_name(simd) << ": " << answer(bytes, profile, simd) << "\n";
      }
      const stguard::detail::LayersInForce plain(stguard::detail::Layers::plain());
      std::cout << file << " " << stguard::profile_name(profile)
                << " plain: " << answer(bytes, profile) << "\n";
    }
  }
  return 0;
}
