// base/git_blob.cc: the git blob hash through libcrypto's EVP SHA-1.
#include "base/git_blob.h"

#include <sys/stat.h>

#include <memory>
#include <span>
#include <vector>

#include "base/file_io.h"
#include "base/hex.h"
#include "base/libcrypto.h"

namespace stguard::base {
namespace {

constexpr std::size_t kReadBuffer = std::size_t{1} << 20;

struct ContextDeleter {
  void operator()(EVP_MD_CTX* context) const noexcept { libcrypto().md_ctx_free(context); }
};
using Context = std::unique_ptr<EVP_MD_CTX, ContextDeleter>;

// A context with "blob <size>\0" already hashed; null when libcrypto fails.
Context start(std::uint64_t size) {
  const LibCrypto& c = libcrypto();
  Context ctx(c.md_ctx_new());
  const std::string prefix = "blob " + std::to_string(size) + std::string(1, '\0');
  if (!ctx || c.digest_init(ctx.get(), c.sha1(), nullptr) != 1 ||
      c.digest_update(ctx.get(), prefix.data(), prefix.size()) != 1) {
    return nullptr;
  }
  return ctx;
}

bool finish(EVP_MD_CTX* ctx, GitBlobDigest* digest) {
  unsigned length = 0;
  return libcrypto().digest_final(ctx, digest->data(), &length) == 1 && length == digest->size();
}

}  // namespace

std::string git_blob_hex(std::string_view content) {
  GitBlobDigest digest{};
  const Context ctx = start(content.size());
  if (!ctx || libcrypto().digest_update(ctx.get(), content.data(), content.size()) != 1 ||
      !finish(ctx.get(), &digest)) {
    digest.fill(0);  // never a real blob's name, so a failure cannot make a check pass
  }
  return to_hex(std::span(digest));
}

std::optional<GitBlobDigest> git_blob_from_hex(std::string_view hex) noexcept {
  GitBlobDigest digest{};
  if (!from_hex(hex, digest)) return std::nullopt;
  return digest;
}

GitBlobOutcome git_blob_fd(int fd, std::atomic<std::uint64_t>* progress, const ChunkSink& also) {
  GitBlobOutcome out;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = "fstat failed: " + errno_text(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.error = "not a regular file";
    return out;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const Context ctx = start(size);
  if (!ctx) {
    out.error = "libcrypto could not start SHA-1";
    return out;
  }
  std::vector<std::uint8_t> buffer(kReadBuffer);
  while (out.bytes < size) {
    const std::uint64_t left = size - out.bytes;
    const std::size_t want = left < buffer.size() ? static_cast<std::size_t>(left) : buffer.size();
    int err = 0;
    const std::size_t got = read_at(fd, buffer.data(), want, out.bytes, &err);
    if (got != 0 && libcrypto().digest_update(ctx.get(), buffer.data(), got) != 1) {
      out.error = "libcrypto failed while hashing";
      return out;
    }
    if (got != 0 && also) also(std::span<const std::uint8_t>(buffer.data(), got));
    out.bytes += got;
    if (progress != nullptr) progress->fetch_add(got, std::memory_order_relaxed);
    if (got < want) {
      out.error = err != 0
                      ? "read failed at byte " + std::to_string(out.bytes) + ": " + errno_text(err)
                      : "the file shrank to " + std::to_string(out.bytes) +
                            " bytes while being hashed (" + std::to_string(size) +
                            " when hashing started)";
      return out;
    }
  }
  // One byte more than fstat said means the file grew: its hash would describe
  // neither the old nor the new content.
  std::uint8_t extra = 0;
  int err = 0;
  if (read_at(fd, &extra, 1, size, &err) != 0) {
    out.error = "the file grew while being hashed (" + std::to_string(size) +
                " bytes when hashing started)";
    return out;
  }
  if (!finish(ctx.get(), &out.digest)) out.error = "libcrypto failed while hashing";
  return out;
}

}  // namespace stguard::base
