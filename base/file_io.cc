#include "base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stguard::base {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errno_text(int err) { return std::strerror(err); }

std::size_t read_at(int fd, void* buffer, std::size_t length, std::uint64_t offset, int* err) {
  auto* bytes = static_cast<std::uint8_t*>(buffer);
  std::size_t got = 0;
  *err = 0;
  while (got < length) {
    const ssize_t n = ::pread(fd, bytes + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      break;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

std::string too_large_text(std::uint64_t size, std::uint64_t max_bytes) {
  return "too large: " + std::to_string(size) + " bytes (limit " + std::to_string(max_bytes) + ")";
}

Result<std::string> read_fd(int fd, std::uint64_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_failure("fstat failed: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return io_failure("not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) return io_failure(too_large_text(size, max_bytes));
  std::string text(static_cast<std::size_t>(size), '\0');
  int err = 0;
  text.resize(read_at(fd, text.data(), text.size(), 0, &err));
  if (err != 0) return io_failure("read failed: " + errno_text(err));
  return text;
}

Result<std::string> read_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) return io_failure("cannot read " + path.string() + ": " + errno_text(errno));
  Result<std::string> text = read_fd(fd.get(), max_bytes);
  if (!text) return text.error().in("cannot read " + path.string());
  return text;
}

}  // namespace stguard::base
