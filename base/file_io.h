// base/file_io.h: file descriptors and whole-file reads and writes, written
// once for the project.
//
//   stguard::base::Result<std::string> text = stguard::base::read_file("manifest.json");
//   if (!text) die(text.error().message);  // "cannot read manifest.json: No such file or
//   directory"
//
//   stguard::base::UniqueFd fd(::open(...));
//   std::size_t got = stguard::base::read_at(fd.get(), buf, len, offset, &err);
#ifndef STGUARD_BASE_FILE_IO_H_
#define STGUARD_BASE_FILE_IO_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "base/failure.h"

namespace stguard::base {

// Owns a file descriptor; closes it once.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept;
  // Gives up ownership: the caller closes the descriptor.
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// Reads up to `length` bytes at `offset` with pread, retrying on EINTR and
// short reads. Returns how many were read: fewer than `length` at the end of
// the file or on an error, when *err is set to errno (else 0).
std::size_t read_at(int fd, void* buffer, std::size_t length, std::uint64_t offset, int* err);

// The largest file read_file() reads unless told otherwise: manifests,
// recipes, indexes and reports are far smaller.
inline constexpr std::uint64_t kDefaultMaxReadBytes = std::uint64_t{256} << 20;

// "too large: N bytes (limit M)": how read_fd refuses a file over its limit
// (and verify a fetched index over its own).
std::string too_large_text(std::uint64_t size, std::uint64_t max_bytes);

// Reads the whole regular file open on `fd`. Fails with why not ("not a
// regular file", "too large: N bytes (limit M)", "read failed: ...").
Result<std::string> read_fd(int fd, std::uint64_t max_bytes);

// Reads the whole regular file at `path`. Fails with "cannot read PATH: why".
Result<std::string> read_file(const std::filesystem::path& path,
                              std::uint64_t max_bytes = kDefaultMaxReadBytes);

// strerror(err) as a std::string.
std::string errno_text(int err);

}  // namespace stguard::base

#endif  // STGUARD_BASE_FILE_IO_H_
