// bench/make_bench_file.cc: writes a large synthetic safetensors file for the
// memory and time measurements in measure_rss.sh: a real header (100k
// tensors, about 10 MB, by default) followed by a sparse data part made with
// ftruncate, so a multi-GB file costs no disk space and no time to create.
// The data bytes read as zeros; a checker that never reads tensor data (as
// stguard check) cannot tell.
//
//   stguard_make_bench_file [--tensors N] [--hidden H] OUT
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
#include <string>
#include <string_view>

#include "synthetic_header.h"

namespace {

constexpr std::string_view kUsage =
    "usage: stguard_make_bench_file [--tensors N] [--hidden H] OUT\n";

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

}  // namespace

int main(int argc, char** argv) {
  stguard::bench::SyntheticOptions options;
  options.tensors = 100'000;
  options.hidden = 64;  // keeps 100k tensors' data near 1 GB, sparse anyway
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--tensors" || arg == "--hidden") && i + 1 < argc) {
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

  const stguard::bench::SyntheticHeader header = stguard::bench::make_synthetic_header(options);
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
