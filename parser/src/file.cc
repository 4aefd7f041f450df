#include "stguard/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <utility>

#include "asan_marks.h"
#include "header_window.h"
#include "layers.h"
#include "message.h"
#include "stguard/parser.h"

namespace stguard {
namespace {

// Linux moves at most about 2 GiB in one read, and a count above SSIZE_MAX
// is not portable: longer reads are made in steps of this many bytes.
constexpr std::uint64_t kMaxReadStep = std::uint64_t{1} << 30;

Error io_error(std::uint64_t offset, std::string message) {
  return Error{Reason::kIoError, offset, std::move(message)};
}

Error io_error(const std::string& path, const char* what, int err) {
  return io_error(0, path + ": " + what + ": " + std::strerror(err));
}

// The same error, its message prefixed with the path it concerns.
Error with_path(const std::string& path, Error error) {
  error.message = path + ": " + error.message;
  return error;
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

// Opens `path` read-only. O_NONBLOCK: opening a FIFO would otherwise block
// before fstat can reject it (it has no effect on regular files).
int open_read_only(const std::string& path) {
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

// The size of the regular file open at `fd`. Directories, FIFOs, devices
// and sockets are refused: they could block forever or never end.
Result<std::uint64_t> regular_file_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    return io_error(0, std::string("cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) return io_error(0, "is a directory");
  if (!S_ISREG(st.st_mode)) return io_error(0, "not a regular file");
  return static_cast<std::uint64_t>(st.st_size);
}

// Opens a regular file read-only and returns its descriptor and size.
Result<std::uint64_t> open_regular(const std::string& path, int& fd_out) {
  fd_out = open_read_only(path);
  if (fd_out < 0) return io_error(path, "cannot open", errno);
  Result<std::uint64_t> size = regular_file_size(fd_out);
  if (!size) return with_path(path, std::move(size).error());
  return size;
}

// Reads [offset, offset + size) of the file at `fd` into `out` with pread,
// retrying after EINTR. A failed read is kIoError where it failed; an end of
// file before the end of the range (the file shrank since fstat gave
// `file_size`) is kIoError where the file ended. `what` names the range.
std::optional<Error> read_range(int fd, std::uint8_t* out, std::uint64_t size, std::uint64_t offset,
                                std::uint64_t file_size, std::string_view what) {
  const std::uint64_t end = offset + size;  // within the file size, which fits in off_t
  while (offset < end) {
    const auto step = static_cast<std::size_t>(std::min(end - offset, kMaxReadStep));
    const ssize_t got = ::pread(fd, out, step, static_cast<off_t>(offset));
    if (got < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return io_error(offset, detail::message("cannot read ", what, " at byte ", offset, ": ",
                                              std::string_view(std::strerror(err))));
    }
    if (got == 0) {
      return io_error(offset, detail::message("the file ended at byte ", offset, " while reading ",
                                              what, ", though fstat gave its size as ", file_size,
                                              " (did it shrink?)"));
    }
    const auto n = static_cast<std::uint64_t>(got);
    out += n;
    offset += n;
  }
  return std::nullopt;
}

}  // namespace

File::File(File&& other) noexcept
    : header_(std::move(other.header_)),
      map_(other.map_),
      map_len_(other.map_len_),
      owned_(std::move(other.owned_)) {
  other.map_ = nullptr;
  other.map_len_ = 0;
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    release();
    header_ = std::move(other.header_);
    map_ = std::exchange(other.map_, nullptr);
    map_len_ = std::exchange(other.map_len_, 0);
    owned_ = std::move(other.owned_);
  }
  return *this;
}

File::~File() { release(); }

void File::release() noexcept {
  if (map_ != nullptr && owned_ == nullptr) {
    ::munmap(const_cast<std::uint8_t*>(map_), static_cast<std::size_t>(map_len_));
  }
  owned_.reset();
  map_ = nullptr;
  map_len_ = 0;
}

Result<File> File::open(const std::string& path, const ParseOptions& options, Access access) {
  int raw_fd = -1;
  Result<std::uint64_t> size = open_regular(path, raw_fd);
  Fd fd(raw_fd);
  if (!size) return std::move(size).error();

  if (*size > std::numeric_limits<std::size_t>::max()) {
    return io_error(0, detail::message(path, ": too large to address: ", *size, " bytes"));
  }
  File file;
  if (*size > 0 && access == Access::kMap) {
    void* map =
        ::mmap(nullptr, static_cast<std::size_t>(*size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (map == MAP_FAILED) return io_error(path, "cannot map", errno);
    file.map_ = static_cast<const std::uint8_t*>(map);
    file.map_len_ = *size;
  } else if (*size > 0) {
    // Left uninitialised: read_range fills every byte or fails.
    file.owned_.reset(new (std::nothrow) std::uint8_t[static_cast<std::size_t>(*size)]);
    if (file.owned_ == nullptr) {
      return io_error(0, detail::message(path, ": cannot allocate ", *size, " bytes to read it"));
    }
    if (auto fault = read_range(fd.get(), file.owned_.get(), *size, 0, *size, "the file")) {
      return with_path(path, std::move(*fault));
    }
    file.map_ = file.owned_.get();
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

// Headers from this size up are read into memory the kernel may back with
// 2 MiB pages: a fresh buffer is filled by page faults, one per 4 KiB page
// otherwise, and for a 10 MB header those faults (and the kernel's
// accounting of each page) cost more than validating the header does.
constexpr std::uint64_t kHugePageBufferFrom = std::uint64_t{4} << 20;
constexpr std::uint64_t kHugePage = std::uint64_t{2} << 20;

// The buffer the prefix and header are read into: operator new[] for a
// small header, anonymous memory aligned to 2 MiB and advised
// MADV_HUGEPAGE for a large one (where transparent huge pages are off, the
// advice does nothing and the buffer works as any other).
class HeadBuffer {
 public:
  HeadBuffer() = default;
  HeadBuffer(const HeadBuffer&) = delete;
  HeadBuffer& operator=(const HeadBuffer&) = delete;
  ~HeadBuffer() {
    if (mapped_ == nullptr) return;
    detail::mark_readable(mapped_, mapped_len_);
    ::munmap(mapped_, mapped_len_);
  }

  // nullptr when the memory cannot be had.
  std::uint8_t* allocate(std::uint64_t len) {
    if (len > std::numeric_limits<std::size_t>::max() - 2 * kHugePage) return nullptr;
    if (len < kHugePageBufferFrom) {
      small_.reset(new (std::nothrow) std::uint8_t[static_cast<std::size_t>(len)]);
      return small_.get();
    }
    // Room to align the start to a huge page, and the end rounded up to one.
    mapped_len_ = static_cast<std::size_t>((len + 2 * kHugePage - 1) / kHugePage * kHugePage);
    void* mapped = ::mmap(nullptr, mapped_len_, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    mapped_ = mapped;
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    auto* data = reinterpret_cast<std::uint8_t*>(aligned);
    const std::size_t usable = mapped_len_ - (aligned - start);
    ::madvise(data, usable, MADV_HUGEPAGE);
    // AddressSanitizer does not know this memory: past the header is made
    // unreadable for it, so a read past the end is reported as with new[].
    detail::mark_unreadable(data + len, usable - static_cast<std::size_t>(len));
    return data;
  }

 private:
  std::unique_ptr<std::uint8_t[]> small_;
  void* mapped_ = nullptr;
  std::size_t mapped_len_ = 0;
};

// Headers from this size up are first checked a window at a time
// (header_window.h); a smaller one, read whole, is still in cache when the
// scan reads it. The window's size and lookahead: a member of the header
// longer than the lookahead (a metadata value of more than 64 KiB, say) has
// the whole header read and checked, which costs time, not answers.
constexpr std::uint64_t kWindowFrom = std::uint64_t{1} << 20;
constexpr std::size_t kWindowBytes = std::size_t{256} << 10;
constexpr std::size_t kWindowLookahead = std::size_t{64} << 10;

// The header of the file open at `fd`, read with pread a window at a time.
class FileHeaderWindow final : public detail::HeaderWindow {
 public:
  FileHeaderWindow(int fd, std::uint64_t header_size, std::uint64_t file_size)
      : HeaderWindow(header_size, kWindowBytes, kWindowLookahead), fd_(fd), file_size_(file_size) {}

 private:
  bool read(std::uint64_t offset, std::uint8_t* out, std::size_t len) override {
    return !read_range(fd_, out, len, 8 + offset, file_size_, "the header");
  }

  int fd_;
  std::uint64_t file_size_;
};

// Reads only the prefix and the header with pread: nothing else of the file
// is touched, and a file truncated while being checked gives an error, not
// a SIGBUS as a mapping would. A large header is first checked a window at a
// time, `in_window(file_size, window)`; when that declines (or the header is
// small), the whole header is read and checked, `whole(head_bytes,
// file_size)`.
template <class Whole, class InWindow>
auto read_head_and(int fd, const ParseOptions& options, Whole&& whole, InWindow&& in_window)
    -> decltype(whole(std::span<const std::uint8_t>(), std::uint64_t{})) {
  Result<std::uint64_t> size = regular_file_size(fd);
  if (!size) return std::move(size).error();

  std::uint8_t prefix[8] = {};
  const std::uint64_t prefix_len = std::min<std::uint64_t>(*size, 8);
  if (auto fault = read_range(fd, prefix, prefix_len, 0, *size, "the length prefix")) {
    return std::move(*fault);
  }
  Result<std::uint64_t> n =
      parse_header_length(std::span<const std::uint8_t>(prefix, prefix_len), *size, options.limits);
  if (!n) return std::move(n).error();

  if (*n >= kWindowFrom && detail::layers().window) {
    FileHeaderWindow window(fd, *n, *size);
    if (auto accepted = in_window(*size, window)) return std::move(*accepted);
  }
  // N is now at most max_header_bytes and 8 + N at most the file size, so
  // this is the only allocation and bounded by both, whatever the prefix
  // said. Left uninitialised: every byte is read before it is used.
  const std::uint64_t head_len = 8 + *n;
  HeadBuffer buffer;
  std::uint8_t* head = buffer.allocate(head_len);
  if (head == nullptr) {
    return io_error(0, detail::message("cannot allocate ", head_len, " bytes for the header"));
  }
  std::memcpy(head, prefix, 8);
  if (auto fault = read_range(fd, head + 8, *n, 8, *size, "the header")) {
    return std::move(*fault);
  }
  return whole(std::span<const std::uint8_t>(head, static_cast<std::size_t>(head_len)), *size);
}

// Opens `path`, runs `parse(fd)` and closes it; I/O errors name the path.
template <class Parse>
auto open_and(const std::string& path, Parse&& parse) -> decltype(parse(0)) {
  const int raw_fd = open_read_only(path);
  if (raw_fd < 0) return io_error(path, "cannot open", errno);
  Fd fd(raw_fd);
  auto result = parse(fd.get());
  if (!result && result.error().reason == Reason::kIoError) {
    return with_path(path, std::move(result).error());
  }
  return result;
}

}  // namespace

Result<Header> Parser::parse_fd(int fd, const ParseOptions& options) {
  return read_head_and(
      fd, options,
      [&](std::span<const std::uint8_t> head, std::uint64_t size) {
        return parse_header(head, size, options);
      },
      [&](std::uint64_t size, detail::HeaderWindow& window) {
        return detail::parse_header_in_window(size, options, window, scratch());
      });
}

Result<HeaderSummary> Parser::validate_fd(int fd, const ParseOptions& options) {
  return read_head_and(
      fd, options,
      [&](std::span<const std::uint8_t> head, std::uint64_t size) {
        return validate_header(head, size, options);
      },
      [&](std::uint64_t size, detail::HeaderWindow& window) {
        return detail::validate_header_in_window(size, options, window, scratch());
      });
}

Result<Header> Parser::parse_file(const std::string& path, const ParseOptions& options) {
  return open_and(path, [&](int fd) { return parse_fd(fd, options); });
}

Result<HeaderSummary> Parser::validate_file(const std::string& path, const ParseOptions& options) {
  return open_and(path, [&](int fd) { return validate_fd(fd, options); });
}

// The one-shot calls: a fresh Parser each, freed after.
Result<Header> parse_fd(int fd, const ParseOptions& options) {
  return Parser().parse_fd(fd, options);
}

Result<HeaderSummary> validate_fd(int fd, const ParseOptions& options) {
  return Parser().validate_fd(fd, options);
}

Result<Header> parse_file(const std::string& path, const ParseOptions& options) {
  return Parser().parse_file(path, options);
}

Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options) {
  return Parser().validate_file(path, options);
}

}  // namespace stguard
