// bench/make_bench_file.cc: writes a large synthetic safetensors file for the
// memory and time measurements in measure_rss.sh and whole_process.sh: a
// real header (100k tensors, about 10 MB, by default) followed by a sparse
// data part made with ftruncate, so a multi-GB file costs no disk space and
// no time to create. The data bytes read as zeros; a checker that never
// reads tensor data (as stguard check) cannot tell.
//
//   stguard_make_bench_file [--tensors N] [--hidden H] OUT
//   stguard_make_bench_file --shape FAMILY/ORDER/N OUT
//
// --shape writes one of stguard_checkpoint_bench's headers
// (checkpoint_headers.h: llama/writer/300, vlm/shuffled/100000, ...), or
// uniform/state-dict/N: N BF16 [4,2] tensors named and ordered as a
// PyTorch state_dict (model.layers.L.self_attn.q_proj.weight, ...), offsets
// in that order, {"format":"pt"}: 100,000 of them make a 10.6 MB header.
//
// Prints "header_len=N data_len=D file_size=S" on success.
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "checkpoint_headers.h"
#include "synthetic_header.h"

namespace {

constexpr std::string_view kUsage =
    "usage: stguard_make_bench_file [--tensors N] [--hidden H] OUT\n"
    "       stguard_make_bench_file --shape FAMILY/ORDER/N OUT\n";

bool parse_u64(std::string_view text, std::uint64_t* out) {
  if (text.empty()) return false;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

int fail(const std::string& what) {
  std::cerr << "stguard_make_bench_file: " << what << "\n";
  return 1;
}

// uniform/state-dict/N (see the top of this file).
stguard::bench::SyntheticHeader uniform_state_dict(std::uint64_t tensors) {
  static constexpr const char* kParts[] = {
      "input_layernorm",  "self_attn.q_proj", "self_attn.k_proj",
      "self_attn.v_proj", "self_attn.o_proj", "post_attention_layernorm",
      "mlp.gate_proj",    "mlp.up_proj",      "mlp.down_proj"};
  constexpr std::uint64_t kPerLayer = sizeof kParts / sizeof kParts[0];
  constexpr std::uint64_t kBytes = 16;  // BF16 [4,2]
  std::string json = R"({"__metadata__":{"format":"pt"})";
  for (std::uint64_t i = 0; i < tensors; ++i) {
    json += R"(,"model.layers.)" + std::to_string(i / kPerLayer) + "." + kParts[i % kPerLayer] +
            R"(.weight":{"dtype":"BF16","shape":[4,2],"data_offsets":[)" +
            std::to_string(i * kBytes) + "," + std::to_string((i + 1) * kBytes) + "]}";
  }
  json += '}';
  return stguard::bench::finish_header(std::move(json), tensors * kBytes);
}

// FAMILY/ORDER/N as checkpoint_headers.h names its shapes, or uniform/state-dict/N.
std::optional<stguard::bench::SyntheticHeader> header_of_shape(std::string_view name) {
  const std::size_t last = name.rfind('/');
  std::uint64_t tensors = 0;
  if (last == std::string_view::npos || !parse_u64(name.substr(last + 1), &tensors)) {
    return std::nullopt;
  }
  const std::string_view kind = name.substr(0, last);
  if (kind == "uniform/state-dict") return uniform_state_dict(tensors);
  for (const stguard::bench::CheckpointShape& shape : stguard::bench::all_shapes({tensors})) {
    if (stguard::bench::shape_name(shape) == name) {
      return stguard::bench::make_checkpoint_header(shape);
    }
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  stguard::bench::SyntheticOptions options;
  options.tensors = 100'000;
  options.hidden = 64;  // keeps 100k tensors' data near 1 GB, sparse anyway
  std::string out;
  std::optional<std::string> shape;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--shape" && i + 1 < argc) {
      shape = argv[++i];
    } else if ((arg == "--tensors" || arg == "--hidden") && i + 1 < argc) {
      std::uint64_t* target = arg == "--tensors" ? &options.tensors : &options.hidden;
      if (!parse_u64(argv[++i], target)) return fail("bad number for " + std::string(arg));
    } else if (!arg.empty() && arg[0] != '-' && out.empty()) {
      out = arg;
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (out.empty()) {
    std::cerr << kUsage;
    return 2;
  }

  std::optional<stguard::bench::SyntheticHeader> made;
  if (shape) {
    made = header_of_shape(*shape);
    if (!made) return fail("unknown shape " + *shape);
  } else {
    made = stguard::bench::make_synthetic_header(options);
  }
  const stguard::bench::SyntheticHeader& header = *made;
  if (header.file_size() > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max())) {
    return fail("file would be too large");
  }
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create " + out + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < header.bytes.size()) {
    const ssize_t n = ::write(fd, header.bytes.data() + written, header.bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return fail("write failed: " + std::string(std::strerror(errno)));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(header.file_size())) != 0) {
    ::close(fd);
    return fail("ftruncate failed: " + std::string(std::strerror(errno)));
  }
  if (::close(fd) != 0) return fail("close failed: " + std::string(std::strerror(errno)));
  std::cout << "header_len=" << header.header_len << " data_len=" << header.data_len
            << " file_size=" << header.file_size() << "\n";
  return 0;
}
