// stguard/file.h: safetensors files on disk. File opens one by path (mapped
// read-only, or read into memory) and gets at its tensors;
// parse_file/validate_file and parse_fd/validate_fd check one without
// mapping it.
//
//   stguard::Result<stguard::File> f = stguard::File::open("model.safetensors");
//   if (!f) return fail(f.error());           // reason + offset + message
//   for (const stguard::TensorInfo& t : f->header().tensors) {
//     std::span<const std::uint8_t> bytes = f->tensor_data(t);
//   }
//
//   // A file that another process may truncate or replace meanwhile:
//   auto g = stguard::File::open("model.safetensors", {}, stguard::File::Access::kRead);
//
//   // A file the caller opened itself (e.g. with openat beneath a folder):
//   stguard::Result<stguard::HeaderSummary> s = stguard::validate_fd(fd);
//
// Opening validates the header. Files that cannot be opened, directories,
// and unreadable files give kIoError; files shorter than 8 bytes give
// kHeaderTooSmall.
//
// Files that shrink. With Access::kMap (the default) the file is mapped and
// its bytes are read only when used: if the file is truncated after open(),
// touching a byte of a page past its new end (through bytes() or
// tensor_data()) raises SIGBUS, which kills the process unless the caller
// handles that signal. Only the header is touched by open() itself, so a
// shrink during open() can crash it too. Use kMap only for files nobody
// changes while they are open, or handle SIGBUS. With Access::kRead the
// whole file is read with pread into memory the File owns: nothing is
// mapped, nothing can raise SIGBUS, and a file that ends before the size
// fstat gave (it shrank while being read) is kIoError at the byte where it
// ended. A file replaced by rename after open() is unaffected either way
// (the open descriptor keeps the old file).
#ifndef STGUARD_FILE_H_
#define STGUARD_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "stguard/header.h"
#include "stguard/result.h"

namespace stguard {

class File {
 public:
  // How open() gets at the file's bytes.
  enum class Access : std::uint8_t {
    // mmap read-only: nothing is read until used, memory is the page cache's.
    // A file that shrinks while mapped raises SIGBUS when the lost pages are
    // touched (see above).
    kMap = 0,
    // pread the whole file into owned memory at open(): costs the file's size
    // in memory and one copy, and cannot crash. kIoError "<path>: the file
    // ended at byte N ..." (offset N) when the file shrinks while being read;
    // kIoError (offset 0) when the memory cannot be allocated.
    kRead = 1,
  };

  // Opens `path` with `access` and validates its header with `options`.
  static Result<File> open(const std::string& path, const ParseOptions& options = {},
                           Access access = Access::kMap);

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
  // The file's bytes: a mapping (kMap) or owned_ (kRead).
  const std::uint8_t* map_ = nullptr;
  std::uint64_t map_len_ = 0;
  std::unique_ptr<std::uint8_t[]> owned_;
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
Result<Header> parse_file(const std::string& path, const ParseOptions& options = {});

// As parse_file, without building the tensor list (see validate_header).
Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options = {});

// The name parse_file had in 0.1.0: it parses (it returns a Header), as
// parse_header and parse_fd do, and "check" named no other verb of the API.
[[deprecated("use stguard::parse_file")]] inline Result<Header> check_file(
    const std::string& path, const ParseOptions& options = {}) {
  return parse_file(path, options);
}

}  // namespace stguard

#endif  // STGUARD_FILE_H_
