// stguard_read_and_sax FILE
//
// The baseline process of the whole-process goal (docs/performance.md,
// "`stguard check`"): what any reader of a safetensors header must do at
// least, done plainly. It reads the 8-byte length prefix and the header with
// pread into a fresh buffer and runs nlohmann/json's SAX parser with a
// handler that keeps nothing over it: no checks of the format at all.
// Exit status 0 when the header is JSON, 1 when not, 2 when the file cannot
// be read. bench/whole_process.sh times it beside `stguard check`.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "noop_sax.h"

namespace {

bool read_exactly(int fd, unsigned char* into, std::size_t size, off_t offset) {
  while (size > 0) {
    const ssize_t got = ::pread(fd, into, size, offset);
    if (got <= 0) return false;
    into += got;
    size -= static_cast<std::size_t>(got);
    offset += got;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  const int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::perror(argv[1]);
    return 2;
  }
  unsigned char prefix[8];
  if (!read_exactly(fd, prefix, sizeof prefix, 0)) {
    std::fprintf(stderr, "%s: no 8-byte length prefix\n", argv[1]);
    return 2;
  }
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  // The same cap as stguard's, so a crafted length cannot ask for more.
  constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
  if (n > kMaxHeaderBytes) {
    std::fprintf(stderr, "%s: header length %llu over the cap\n", argv[1],
                 static_cast<unsigned long long>(n));
    return 2;
  }
  const std::unique_ptr<unsigned char[]> header(new unsigned char[n]);
  if (!read_exactly(fd, header.get(), static_cast<std::size_t>(n), 8)) {
    std::fprintf(stderr, "%s: header shorter than its length prefix\n", argv[1]);
    return 2;
  }
  ::close(fd);
  stguard::bench::NoOpSax sax;
  const unsigned char* first = header.get();
  return nlohmann::json::sax_parse(first, first + n, &sax) ? 0 : 1;
}
