// cli/sha256_file.h: SHA-256 of a whole file with OpenSSL libcrypto (EVP),
// which uses the CPU's SHA extensions (SHA-NI, ARMv8 SHA2) where present.
//
//   int fd = ...;  // opened by the caller (O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
//   std::atomic<std::uint64_t> done{0};
//   stguard::cli::Sha256Outcome h = stguard::cli::sha256_fd(fd, {}, &done);
//   if (h.ok()) std::cout << stguard::cli::to_hex(h.digest);
//
// The caller opens the file so that it decides how names are resolved
// (symlinks, staying inside a directory); these functions only read.
#ifndef STGUARD_CLI_SHA256_FILE_H_
#define STGUARD_CLI_SHA256_FILE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stguard::cli {

using Sha256Digest = std::array<std::uint8_t, 32>;

// How the bytes reach the hash.
enum class HashIo : std::uint8_t {
  // read(2) into a 1 MiB buffer with POSIX_FADV_SEQUENTIAL. The default: a
  // file that shrinks while being hashed gives a clean error instead of the
  // SIGBUS a mapping would raise (a download still being written is exactly
  // what verify is run next to).
  kRead = 0,
  // mmap with MADV_SEQUENTIAL, hashed in 8 MiB steps. Saves one copy per byte;
  // see bench/verify_bench.sh for how much that is worth.
  kMmap = 1,
};

struct Sha256Options {
  HashIo io = HashIo::kRead;
};

struct Sha256Outcome {
  Sha256Digest digest{};
  std::uint64_t bytes = 0;  // bytes hashed
  std::string error;        // empty on success: what failed and errno text

  bool ok() const noexcept { return error.empty(); }
};

// Hashes the regular file open on `fd` from offset 0 to its end (the size
// fstat reports when hashing starts; a file that changes size meanwhile is an
// error). `progress`, when given, is advanced by the bytes hashed as they are
// hashed (relaxed atomics, for a progress display). Does not close `fd`.
Sha256Outcome sha256_fd(int fd, const Sha256Options& options = {},
                        std::atomic<std::uint64_t>* progress = nullptr);

// SHA-256 of a byte string (index files, tests).
Sha256Digest sha256_bytes(std::string_view bytes);

// Lower-case hex, 64 characters.
std::string to_hex(const Sha256Digest& digest);

// Parses 64 hex digits (either case); nullopt for anything else.
std::optional<Sha256Digest> digest_from_hex(std::string_view hex) noexcept;

}  // namespace stguard::cli

#endif  // STGUARD_CLI_SHA256_FILE_H_
