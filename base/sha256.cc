#include "base/sha256.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/hex.h"
#include "base/libcrypto.h"
#include "base/sigbus_guard.h"

namespace stguard::base {

struct Sha256::Context {
  struct Deleter {
    void operator()(EVP_MD_CTX* context) const noexcept { libcrypto().md_ctx_free(context); }
  };
  std::unique_ptr<EVP_MD_CTX, Deleter> ctx{libcrypto().md_ctx_new()};
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  const LibCrypto& c = libcrypto();
  ok_ = context_->ctx != nullptr && c.digest_init(context_->ctx.get(), c.sha256(), nullptr) == 1;
}

Sha256::~Sha256() = default;

void Sha256::update(std::span<const std::uint8_t> bytes) {
  ok_ = ok_ && libcrypto().digest_update(context_->ctx.get(), bytes.data(), bytes.size()) == 1;
}

void Sha256::update(std::string_view bytes) {
  ok_ = ok_ && libcrypto().digest_update(context_->ctx.get(), bytes.data(), bytes.size()) == 1;
}

Sha256Digest Sha256::finish() {
  Sha256Digest digest{};
  unsigned length = 0;
  ok_ = ok_ && libcrypto().digest_final(context_->ctx.get(), digest.data(), &length) == 1 &&
        length == digest.size();
  if (!ok_) digest.fill(0);
  return digest;
}

Sha256Digest sha256(std::span<const std::uint8_t> bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.finish();
}

Sha256Digest sha256(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.finish();
}

std::string sha256_hex(std::span<const std::uint8_t> bytes) { return to_hex(sha256(bytes)); }
std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(bytes)); }

std::string to_hex(const Sha256Digest& digest) { return base::to_hex(std::span(digest)); }

std::optional<Sha256Digest> digest_from_hex(std::string_view hex) noexcept {
  Sha256Digest digest{};
  if (!from_hex(hex, digest)) return std::nullopt;
  return digest;
}

namespace {

// Large enough that the syscall and hashing-call overhead vanishes next to
// the hashing itself, small enough to stay in L2 on most CPUs.
constexpr std::size_t kReadBuffer = std::size_t{1} << 20;
// A mapping is hashed in steps so that progress moves.
constexpr std::size_t kMapStep = std::size_t{8} << 20;

std::string errno_text(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

void advance(std::atomic<std::uint64_t>* progress, std::uint64_t n) {
  if (progress != nullptr) progress->fetch_add(n, std::memory_order_relaxed);
}

// The read(2) loop. `activity` ("hashed", "read") words the errors.
StreamOutcome stream_by_read(int fd, std::uint64_t size, const ChunkSink& sink,
                             std::atomic<std::uint64_t>* progress, std::string_view activity) {
  StreamOutcome out;
  // Advisory only; failure changes nothing about correctness.
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<std::uint8_t> buffer(kReadBuffer);
  std::uint64_t offset = 0;
  while (offset < size) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(size - offset, kReadBuffer));
    const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      out.error = errno_text("read failed at byte " + std::to_string(offset), errno);
      return out;
    }
    if (got == 0) {
      out.error = "file shrank while being " + std::string(activity) + ": ended at byte " +
                  std::to_string(offset) + " of " + std::to_string(size);
      return out;
    }
    sink(std::span(buffer.data(), static_cast<std::size_t>(got)));
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
    out.error = "file grew while being " + std::string(activity) + " (still being written?)";
  }
  if (out.ok()) out.bytes = size;
  return out;
}

StreamOutcome stream_by_mmap(int fd, std::uint64_t size, const ChunkSink& sink,
                             std::atomic<std::uint64_t>* progress, std::string_view activity) {
  StreamOutcome out;
  if (size == 0) return out;
  const auto length = static_cast<std::size_t>(size);
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    out.error = errno_text("mmap failed", errno);
    return out;
  }
  (void)::madvise(map, length, MADV_SEQUENTIAL);
  const auto* bytes = static_cast<const std::uint8_t*>(map);
  // A file that shrinks under the mapping raises SIGBUS on the first page
  // past its new end; the guard turns that into an error instead of a crash.
  // Each step is guarded on its own so that `offset` is not a local changed
  // between sigsetjmp and siglongjmp.
  for (std::size_t offset = 0; offset < length;) {
    const std::size_t step = std::min(length - offset, kMapStep);
    const std::optional<std::uint64_t> fault =
        with_sigbus_guard(bytes + offset, step, [&] { sink(std::span(bytes + offset, step)); });
    if (fault) {
      struct stat st {};
      const std::uint64_t ended =
          ::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size
              ? static_cast<std::uint64_t>(st.st_size)
              : offset + *fault;
      out.error = "file shrank while being " + std::string(activity) + ": ended at byte " +
                  std::to_string(ended) + " of " + std::to_string(size);
      break;
    }
    offset += step;
    advance(progress, step);
  }
  ::munmap(map, length);
  if (out.ok()) out.bytes = size;
  return out;
}

// Opens nothing: checks that `fd` is a regular file and streams it.
StreamOutcome stream_regular_file(int fd, const Sha256Options& options,
                                  std::atomic<std::uint64_t>* progress, const ChunkSink& sink,
                                  std::string_view activity) {
  StreamOutcome out;
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
  return options.io == HashIo::kMmap ? stream_by_mmap(fd, size, sink, progress, activity)
                                     : stream_by_read(fd, size, sink, progress, activity);
}

}  // namespace

Sha256Outcome sha256_fd(int fd, const Sha256Options& options, std::atomic<std::uint64_t>* progress,
                        const ChunkSink& also) {
  Sha256 hash;
  const ChunkSink sink = [&](std::span<const std::uint8_t> chunk) {
    hash.update(chunk);
    if (also) also(chunk);
  };
  StreamOutcome streamed = stream_regular_file(fd, options, progress, sink, "hashed");
  Sha256Outcome out;
  out.error = std::move(streamed.error);
  if (!out.ok()) return out;
  out.digest = hash.finish();
  if (!hash.ok()) out.error = "OpenSSL SHA-256 failed";
  out.bytes = streamed.bytes;
  return out;
}

StreamOutcome stream_fd(int fd, const Sha256Options& options, std::atomic<std::uint64_t>* progress,
                        const ChunkSink& sink) {
  return stream_regular_file(fd, options, progress, sink, "read");
}

}  // namespace stguard::base
