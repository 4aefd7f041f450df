#include "stguard/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace stguard {
namespace {

Error io_error(const std::string& path, const char* what, int err) {
  return Error{Reason::kIoError, 0, path + ": " + what + ": " + std::strerror(err)};
}

// Owns a file descriptor for the duration of a call.
class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

// Opens a regular file read-only and returns its descriptor and size.
Result<std::uint64_t> open_regular(const std::string& path, int& fd_out) {
  // O_NONBLOCK: opening a FIFO would otherwise block before fstat can reject
  // it (it has no effect on regular files).
  fd_out = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_out < 0) return io_error(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd_out, &st) != 0) return io_error(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) return Error{Reason::kIoError, 0, path + ": is a directory"};
  // FIFOs, devices and sockets could block forever or never end.
  if (!S_ISREG(st.st_mode)) return Error{Reason::kIoError, 0, path + ": not a regular file"};
  return static_cast<std::uint64_t>(st.st_size);
}

// pread until `size` bytes are read; false on error or early end of file.
bool read_exactly(int fd, std::uint8_t* out, std::uint64_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t got = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    const auto n = static_cast<std::uint64_t>(got);
    out += n;
    size -= n;
    offset += n;
  }
  return true;
}

}  // namespace

File::File(File&& other) noexcept
    : header_(std::move(other.header_)), map_(other.map_), map_len_(other.map_len_) {
  other.map_ = nullptr;
  other.map_len_ = 0;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    release();
    header_ = std::move(other.header_);
    map_ = std::exchange(other.map_, nullptr);
    map_len_ = std::exchange(other.map_len_, 0);
  }
  return *this;
}

File::~File() { release(); }

void File::release() noexcept {
  if (map_ != nullptr) {
    ::munmap(const_cast<std::uint8_t*>(map_), static_cast<std::size_t>(map_len_));
    map_ = nullptr;
    map_len_ = 0;
  }
}

Result<File> File::open(const std::string& path, const ParseOptions& options) {
  int raw_fd = -1;
  Result<std::uint64_t> size = open_regular(path, raw_fd);
  Fd fd(raw_fd);
  if (!size) return std::move(size).error();

  File file;
  if (*size > 0) {
    void* map =
        ::mmap(nullptr, static_cast<std::size_t>(*size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (map == MAP_FAILED) return io_error(path, "cannot map", errno);
    file.map_ = static_cast<const std::uint8_t*>(map);
    file.map_len_ = *size;
  }
  Result<Header> header = parse_header(file.bytes(), *size, options);
  if (!header) return std::move(header).error();
  file.header_ = std::move(header).value();
  return file;
}

std::span<const std::uint8_t> File::bytes() const noexcept {
  return {map_, static_cast<std::size_t>(map_len_)};
}

std::span<const std::uint8_t> File::tensor_data(const TensorInfo& tensor) const noexcept {
  const std::uint64_t start = header_.data_offset() + tensor.begin;
  // Validated at open; the guard keeps a foreign TensorInfo from reading out of bounds.
  if (tensor.begin > tensor.end || start > map_len_ ||
      tensor.end - tensor.begin > map_len_ - start) {
    return {};
  }
  return {map_ + start, static_cast<std::size_t>(tensor.end - tensor.begin)};
}

Result<std::span<const std::uint8_t>> File::tensor_data(std::string_view name) const {
  const TensorInfo* tensor = header_.find(name);
  if (tensor == nullptr) {
    return Error{Reason::kTensorInvalid, 0, "no tensor named \"" + std::string(name) + "\""};
  }
  return tensor_data(*tensor);
}

namespace {

// Reads only the prefix and the header with pread: nothing else of the file
// is touched, and a file truncated while being checked gives an error, not
// a SIGBUS as a mapping would. Calls `check(head_bytes, file_size)`.
template <class Check>
auto read_head_and(const std::string& path, const ParseOptions& options, Check&& check)
    -> decltype(check(std::span<const std::uint8_t>(), std::uint64_t{})) {
  int raw_fd = -1;
  Result<std::uint64_t> size = open_regular(path, raw_fd);
  Fd fd(raw_fd);
  if (!size) return std::move(size).error();

  std::uint8_t prefix[8] = {};
  const std::uint64_t prefix_len = *size < 8 ? *size : 8;
  if (!read_exactly(fd.get(), prefix, prefix_len, 0)) return io_error(path, "cannot read", errno);
  Result<std::uint64_t> n =
      parse_header_length(std::span<const std::uint8_t>(prefix, prefix_len), *size, options.limits);
  if (!n) return std::move(n).error();

  std::vector<std::uint8_t> head(static_cast<std::size_t>(8 + *n));
  std::memcpy(head.data(), prefix, 8);
  if (!read_exactly(fd.get(), head.data() + 8, *n, 8)) {
    return Error{Reason::kIoError, 8, path + ": cannot read the header (file changed?)"};
  }
  return check(std::span<const std::uint8_t>(head), *size);
}

}  // namespace

Result<Header> check_file(const std::string& path, const ParseOptions& options) {
  return read_head_and(path, options, [&](std::span<const std::uint8_t> head, std::uint64_t size) {
    return parse_header(head, size, options);
  });
}

Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options) {
  return read_head_and(path, options, [&](std::span<const std::uint8_t> head, std::uint64_t size) {
    return validate_header(head, size, options);
  });
}

}  // namespace stguard
