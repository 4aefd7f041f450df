// base/sha256.h: SHA-256, one implementation for the project: OpenSSL's
// libcrypto (EVP), which uses the CPU's SHA extensions where present, opened
// on the first hash (libcrypto.h).
//
//   std::string id = stguard::base::sha256_hex(bytes);          // 64 hex digits
//
//   stguard::base::Sha256 hash;                                  // incremental
//   hash.update(part1); hash.update(part2);
//   stguard::base::Sha256Digest d = hash.finish();
//
//   int fd = ...;  // the caller opens (it decides how names resolve)
//   stguard::base::Sha256Outcome h = stguard::base::sha256_fd(fd);
//   if (h.ok()) use(stguard::base::to_hex(h.digest));
//
//   // One read of the file for the hash and for another pass over its bytes:
//   h = stguard::base::sha256_fd(fd, {}, nullptr, [&](std::span<const std::uint8_t> chunk) {
//     scanner.feed(chunk);
//   });
//   // The same read loop without the hash, for a pass that needs no digest:
//   stguard::base::StreamOutcome s = stguard::base::stream_fd(fd, {}, nullptr, sink);
#ifndef STGUARD_BASE_SHA256_H_
#define STGUARD_BASE_SHA256_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stguard::base {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view bytes);
  // The digest of everything given to update(). The object is spent after.
  Sha256Digest finish();
  // False when libcrypto failed (no memory); finish() then gives all zeros,
  // which never matches a real digest, so a failure cannot make a check pass.
  bool ok() const noexcept { return ok_; }

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  bool ok_ = false;
};

Sha256Digest sha256(std::span<const std::uint8_t> bytes);
Sha256Digest sha256(std::string_view bytes);
std::string sha256_hex(std::span<const std::uint8_t> bytes);
std::string sha256_hex(std::string_view bytes);

// Lower-case hex, 64 characters.
std::string to_hex(const Sha256Digest& digest);

// 64 hex digits (either case); nullopt for anything else.
std::optional<Sha256Digest> digest_from_hex(std::string_view hex) noexcept;

// How a file's bytes reach the hash.
enum class HashIo : std::uint8_t {
  // read(2) into a 1 MiB buffer with POSIX_FADV_SEQUENTIAL. The default: a
  // file that shrinks while being hashed gives a clean error.
  kRead = 0,
  // mmap with MADV_SEQUENTIAL, hashed in 8 MiB steps: one copy per byte less.
  // Reads run under base::with_sigbus_guard, so a file that shrinks while
  // being hashed gives the same clean error as kRead, not a SIGBUS.
  kMmap = 1,
};

struct Sha256Options {
  HashIo io = HashIo::kRead;
};

struct Sha256Outcome {
  Sha256Digest digest{};
  std::uint64_t bytes = 0;  // bytes hashed
  std::string error;        // empty on success: what failed, and where

  bool ok() const noexcept { return error.empty(); }
};

// Receives a file's bytes in order, chunk by chunk (at most 1 MiB with
// kRead, 8 MiB with kMmap; any size, so elements of the caller's own format
// may be split between chunks). With kMmap it runs under the SIGBUS guard and
// has to meet base::with_sigbus_guard's preconditions (no locks taken, no
// allocations it cannot leave behind).
using ChunkSink = std::function<void(std::span<const std::uint8_t>)>;

// Hashes the regular file open on `fd` from offset 0 to the size fstat
// reports when hashing starts; a file that shrinks or grows meanwhile is an
// error. `progress`, when given, is advanced by the bytes hashed (relaxed
// atomics, for a progress display). `also`, when given, is handed every
// chunk after it was hashed, so that a second pass over the bytes costs no
// second read of the file. Does not close `fd`.
Sha256Outcome sha256_fd(int fd, const Sha256Options& options = {},
                        std::atomic<std::uint64_t>* progress = nullptr, const ChunkSink& also = {});

struct StreamOutcome {
  std::uint64_t bytes = 0;  // bytes handed to the sink
  std::string error;        // empty on success: what failed, and where

  bool ok() const noexcept { return error.empty(); }
};

// sha256_fd's read loop without the hash: hands the regular file open on
// `fd` to `sink`, chunk by chunk, with the same I/O choice and the same
// errors ("file shrank while being read: ended at byte N of M", "... grew
// ..."). Does not close `fd`.
StreamOutcome stream_fd(int fd, const Sha256Options& options, std::atomic<std::uint64_t>* progress,
                        const ChunkSink& sink);

}  // namespace stguard::base

#endif  // STGUARD_BASE_SHA256_H_
