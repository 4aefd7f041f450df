#include "base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
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

bool write_file(const std::filesystem::path& path, std::string_view bytes, std::string* error,
                unsigned mode) {
  const auto fail = [&](int err) {
    if (error != nullptr) *error = "cannot write " + path.string() + ": " + errno_text(err);
    return false;
  };
  // 0, or the errno of the write that failed.
  const auto write_all = [&](int fd) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      done += static_cast<std::size_t>(n);
    }
    return 0;
  };
  // An existing path that is not a regular file (/dev/null, a FIFO, a
  // terminal) is written into, as a shell redirection would: renaming over
  // it would replace a device node with a regular file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return fail(EISDIR);
    const UniqueFd out(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    if (!out) return fail(errno);
    const int err = write_all(out.get());
    return err == 0 ? true : fail(err);
  }
  // A name no other writer uses: this process, and a counter for its threads.
  // Created with `mode` (0666 by default) so that the umask applies as to
  // any new file.
  static std::atomic<unsigned> counter{0};
  std::filesystem::path temp = path;
  temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                           static_cast<mode_t>(mode)));
  if (!fd) return fail(errno);
  if (const int err = write_all(fd.get()); err != 0) {
    ::unlink(temp.c_str());
    return fail(err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return fail(err);
  }
  return true;
}

}  // namespace stguard::base
