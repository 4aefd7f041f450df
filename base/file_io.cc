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

std::string read_fd(int fd, std::uint64_t max_bytes, std::string* out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "fstat failed: " + errno_text(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    return "too large: " + std::to_string(size) + " bytes (limit " + std::to_string(max_bytes) +
           ")";
  }
  out->assign(static_cast<std::size_t>(size), '\0');
  int err = 0;
  out->resize(read_at(fd, out->data(), out->size(), 0, &err));
  if (err != 0) return "read failed: " + errno_text(err);
  return {};
}

std::optional<std::string> read_file(const std::filesystem::path& path, std::string* error,
                                     std::uint64_t max_bytes) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  std::string why;
  std::string text;
  if (!fd) {
    why = errno_text(errno);
  } else {
    why = read_fd(fd.get(), max_bytes, &text);
  }
  if (why.empty()) return text;
  if (error != nullptr) *error = "cannot read " + path.string() + ": " + why;
  return std::nullopt;
}

}  // namespace stguard::base
