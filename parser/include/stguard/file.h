// stguard/file.h: safetensors files on disk. File opens one by path
// (read-only mmap) and gets at its tensors; check_file/validate_file and
// parse_fd/validate_fd check one without mapping it.
//
//   stguard::Result<stguard::File> f = stguard::File::open("model.safetensors");
//   if (!f) return fail(f.error());           // reason + offset + message
//   for (const stguard::TensorInfo& t : f->header().tensors) {
//     std::span<const std::uint8_t> bytes = f->tensor_data(t);
//   }
//
//   // A file the caller opened itself (e.g. with openat beneath a folder):
//   stguard::Result<stguard::HeaderSummary> s = stguard::validate_fd(fd);
//
// Opening validates the header (only the first 8 + N bytes are touched; the
// data part is mapped but not read until tensor_data() is used). Files that
// cannot be opened, directories, and unreadable files give kIoError; files
// shorter than 8 bytes give kHeaderTooSmall.
#ifndef STGUARD_FILE_H_
#define STGUARD_FILE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "stguard/header.h"
#include "stguard/result.h"

namespace stguard {

class File {
 public:
  // Maps `path` read-only and validates its header with `options`.
  static Result<File> open(const std::string& path, const ParseOptions& options = {});

  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  const Header& header() const noexcept { return header_; }

  // The whole file's bytes (empty for an empty file).
  std::span<const std::uint8_t> bytes() const noexcept;

  // The data bytes of a tensor of this file's header. Precondition: `tensor`
  // comes from header() (its range was validated against the file).
  std::span<const std::uint8_t> tensor_data(const TensorInfo& tensor) const noexcept;

  // By name; kTensorInvalid (offset 0) when no tensor has that name.
  Result<std::span<const std::uint8_t>> tensor_data(std::string_view name) const;

 private:
  File() = default;
  void release() noexcept;

  Header header_;
  const std::uint8_t* map_ = nullptr;
  std::uint64_t map_len_ = 0;
};

// The whole structural check of the file open at `fd`, reading only its
// head: fstat gives the file size, pread the 8-byte length prefix and then
// the N header bytes, and parse_header judges them. Nothing is mapped, so a
// file truncated meanwhile gives an error, never a SIGBUS. The one way for a
// client holding a descriptor to check a file; no need to read a head by hand.
//
//   const int fd = ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
//   stguard::Result<stguard::Header> header = stguard::parse_fd(fd);
//   ::close(fd);
//
// Preconditions: `fd` is open for reading. It is left open, and its file
// offset is neither used nor moved (pread), so it may be shared.
//
// Memory: one buffer of 8 + N bytes, allocated only after N is checked
// against max_header_bytes (options.limits' or the profile's default) and the
// file size, so never more than max_header_bytes + 8 whatever the prefix
// says; then parse_header's.
//
// Errors: kIoError, offset 0, when `fd` is not an open descriptor (fstat
// fails), is a directory, is not a regular file (FIFO, socket, device: they
// could block or never end), or the buffer cannot be allocated; kIoError at
// the byte where a read failed, or where the file ended when it is shorter
// than fstat said (it shrank while being read); otherwise the result of
// parse_header on the file's head, byte for byte.
Result<Header> parse_fd(int fd, const ParseOptions& options = {});

// As parse_fd, without building the tensor list (see validate_header).
Result<HeaderSummary> validate_fd(int fd, const ParseOptions& options = {});

// Opens `path` read-only, runs parse_fd on it and closes it: the whole
// structural check of one file in one call. Errors: those of parse_fd, with
// "<path>: " before the message of a kIoError; kIoError (offset 0) when the
// file cannot be opened. Opening does not wait for a writer on a FIFO.
Result<Header> check_file(const std::string& path, const ParseOptions& options = {});

// As check_file, without building the tensor list (see validate_header).
Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options = {});

}  // namespace stguard

#endif  // STGUARD_FILE_H_
