#include "sha256_file.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace stguard::cli {
namespace {

// Large enough that the syscall and hashing-call overhead vanishes next to
// the hashing itself, small enough to stay in L2 on most CPUs.
constexpr std::size_t kReadBuffer = std::size_t{1} << 20;
// Hash a mapping in steps so progress moves and so pages already hashed can
// be dropped from this process's resident set.
constexpr std::size_t kMapStep = std::size_t{8} << 20;

struct EvpCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpCtxDeleter>;

std::string errno_text(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

// Holds a hashing context from init to final.
class Hasher {
 public:
  Hasher() : ctx_(EVP_MD_CTX_new()) {
    ok_ = ctx_ != nullptr && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
  }
  bool ok() const noexcept { return ok_; }
  bool update(const void* data, std::size_t len) {
    ok_ = ok_ && EVP_DigestUpdate(ctx_.get(), data, len) == 1;
    return ok_;
  }
  bool final(Sha256Digest* out) {
    unsigned len = 0;
    ok_ = ok_ && EVP_DigestFinal_ex(ctx_.get(), out->data(), &len) == 1 && len == out->size();
    return ok_;
  }

 private:
  EvpCtx ctx_;
  bool ok_ = false;
};

void advance(std::atomic<std::uint64_t>* progress, std::uint64_t n) {
  if (progress != nullptr) progress->fetch_add(n, std::memory_order_relaxed);
}

Sha256Outcome hash_by_read(int fd, std::uint64_t size, Hasher& hasher,
                           std::atomic<std::uint64_t>* progress) {
  Sha256Outcome out;
  // Advisory only; failure changes nothing about correctness.
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<std::uint8_t> buffer(kReadBuffer);
  std::uint64_t offset = 0;
  while (offset < size) {
    const std::uint64_t want64 = size - offset < kReadBuffer ? size - offset : kReadBuffer;
    const auto want = static_cast<std::size_t>(want64);
    const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      out.error = errno_text("read failed at byte " + std::to_string(offset), errno);
      return out;
    }
    if (got == 0) {
      out.error = "file shrank while being hashed: ended at byte " + std::to_string(offset) +
                  " of " + std::to_string(size);
      return out;
    }
    if (!hasher.update(buffer.data(), static_cast<std::size_t>(got))) {
      out.error = "OpenSSL SHA-256 update failed";
      return out;
    }
    offset += static_cast<std::uint64_t>(got);
    advance(progress, static_cast<std::uint64_t>(got));
  }
  // A byte past the size fstat gave means the file grew: the digest would not
  // describe the file as it now is.
  std::uint8_t probe = 0;
  ssize_t extra = 0;
  do {
    extra = ::pread(fd, &probe, 1, static_cast<off_t>(size));
  } while (extra < 0 && errno == EINTR);
  if (extra > 0) {
    out.error = "file grew while being hashed (still being written?)";
    return out;
  }
  out.bytes = size;
  return out;
}

Sha256Outcome hash_by_mmap(int fd, std::uint64_t size, Hasher& hasher,
                           std::atomic<std::uint64_t>* progress) {
  Sha256Outcome out;
  if (size == 0) return out;
  const auto len = static_cast<std::size_t>(size);
  void* map = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    out.error = errno_text("mmap failed", errno);
    return out;
  }
  (void)::madvise(map, len, MADV_SEQUENTIAL);
  const auto* bytes = static_cast<const std::uint8_t*>(map);
  std::size_t offset = 0;
  while (offset < len) {
    const std::size_t step = len - offset < kMapStep ? len - offset : kMapStep;
    if (!hasher.update(bytes + offset, step)) {
      out.error = "OpenSSL SHA-256 update failed";
      break;
    }
    offset += step;
    advance(progress, step);
  }
  ::munmap(map, len);
  if (out.ok()) out.bytes = size;
  return out;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Sha256Outcome sha256_fd(int fd, const Sha256Options& options,
                        std::atomic<std::uint64_t>* progress) {
  Sha256Outcome out;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = errno_text("fstat failed", errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.error = "not a regular file";
    return out;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  Hasher hasher;
  if (!hasher.ok()) {
    out.error = "OpenSSL SHA-256 initialisation failed";
    return out;
  }
  out = options.io == HashIo::kMmap ? hash_by_mmap(fd, size, hasher, progress)
                                    : hash_by_read(fd, size, hasher, progress);
  if (!out.ok()) return out;
  if (!hasher.final(&out.digest)) out.error = "OpenSSL SHA-256 final failed";
  out.bytes = size;
  return out;
}

Sha256Digest sha256_bytes(std::string_view bytes) {
  Sha256Digest digest{};
  Hasher hasher;
  // With a working libcrypto these cannot fail; a zero digest never matches
  // a real one, so a failure still cannot make a check pass.
  if (hasher.update(bytes.data(), bytes.size())) (void)hasher.final(&digest);
  return digest;
}

std::string to_hex(const Sha256Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (const std::uint8_t byte : digest) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

std::optional<Sha256Digest> digest_from_hex(std::string_view hex) noexcept {
  if (hex.size() != 64) return std::nullopt;
  Sha256Digest digest{};
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = hex_value(hex[2 * i]);
    const int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    digest[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return digest;
}

}  // namespace stguard::cli
