// Parses a small in-memory safetensors file through the installed public API
// and writes one back: proves headers, library and package config fit.
#include <stguard/stguard.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::vector<std::uint8_t> file;
  for (int i = 0; i < 8; ++i) {
    file.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  }
  file.insert(file.end(), header.begin(), header.end());
  file.resize(file.size() + 8, 0);

  stguard::Result<stguard::Header> parsed = stguard::parse(file);
  if (!parsed) {
    std::fprintf(stderr, "parse failed: %s\n", parsed.error().to_string().c_str());
    return 1;
  }
  if (parsed->tensors.size() != 1 || parsed->tensors[0].name != "w" ||
      parsed->tensors[0].dtype != stguard::Dtype::kF32 || parsed->tensors[0].byte_size() != 8) {
    std::fprintf(stderr, "unexpected header contents\n");
    return 1;
  }

  // A kept Parser (stguard/parser.h) answers as the one-shot call.
  stguard::Parser parser;
  const stguard::Result<stguard::HeaderSummary> summary = parser.validate_header(file, file.size());
  if (!summary || summary->tensor_count != 1 || parser.scratch_bytes() == 0) {
    std::fprintf(stderr, "Parser::validate_header differs from parse\n");
    return 1;
  }

  const std::vector<std::uint8_t> one(1, 0);
  file.resize(7);
  stguard::Result<stguard::Header> too_small = stguard::parse(file);
  if (too_small || too_small.error().reason != stguard::Reason::kHeaderTooSmall) {
    std::fprintf(stderr, "expected HEADER_TOO_SMALL\n");
    return 1;
  }

  const std::vector<stguard::TensorToWrite> tensors = {{"x", stguard::Dtype::kU8, {1}, one}};
  stguard::Result<std::vector<std::uint8_t>> written = stguard::write_safetensors(tensors);
  if (!written || !stguard::parse(*written)) {
    std::fprintf(stderr, "writer round trip failed\n");
    return 1;
  }
  std::printf("stguard consumer OK (%s)\n",
              std::string(stguard::reason_name(too_small.error().reason)).c_str());
  return 0;
}
