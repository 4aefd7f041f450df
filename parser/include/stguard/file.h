// stguard/file.h: open a safetensors file by path (read-only mmap) and get
// at its tensors.
//
//   stguard::Result<stguard::File> f = stguard::File::open("model.safetensors");
//   if (!f) return fail(f.error());           // reason + offset + message
//   for (const stguard::TensorInfo& t : f->header().tensors) {
//     std::span<const std::uint8_t> bytes = f->tensor_data(t);
//   }
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

// Opens, validates and closes: the whole structural check of one file in one
// call. Reads only the first 8 + N bytes (pread, no mapping). Returns the
// header on success.
Result<Header> check_file(const std::string& path, const ParseOptions& options = {});

// As check_file, without building the tensor list (see validate_header).
Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options = {});

}  // namespace stguard

#endif  // STGUARD_FILE_H_
