// tests/support/file_builder.h: build hostile safetensors files by hand.
//
// A file is built from the exact header text (so duplicate keys, odd
// whitespace and broken escapes are expressible) and the data bytes, with
// overrides for everything a well-behaved writer would get right:
//
//   std::vector<std::uint8_t> bytes =
//       stguard_test::FileBuilder(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})")
//           .data_size(2)
//           .length_prefix(999)  // lie about N
//           .append("junk")
//           .build();
//
// Offsets in tests are absolute file bytes; `header_at(header, needle)` gives
// the absolute offset of a piece of header text so expectations stay readable.
#ifndef STGUARD_TESTS_SUPPORT_FILE_BUILDER_H_
#define STGUARD_TESTS_SUPPORT_FILE_BUILDER_H_

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stguard_test {

inline void append_u64_le(std::vector<std::uint8_t>& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

inline std::vector<std::uint8_t> u64_le(std::uint64_t value) {
  std::vector<std::uint8_t> out;
  append_u64_le(out, value);
  return out;
}

inline void append_u32_le(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

inline std::uint64_t load_u64_le(std::span<const std::uint8_t> bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8 && i < bytes.size(); ++i) {
    value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  return value;
}

inline std::vector<std::uint8_t> to_bytes(std::string_view text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// Data bytes 0, 1, 2, ... (mod 251, so that misplaced slices are noticed).
inline std::vector<std::uint8_t> pattern_bytes(std::size_t size, std::uint8_t seed = 0) {
  std::vector<std::uint8_t> out(size);
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = static_cast<std::uint8_t>((i + seed) % 251);
  }
  return out;
}

// Absolute file offset of the `occurrence`-th (0-based) `needle` in `header`
// (the header starts at file byte 8). Aborts when absent: a test bug.
inline std::uint64_t header_at(std::string_view header, std::string_view needle,
                               int occurrence = 0) {
  std::size_t pos = header.find(needle);
  for (int i = 0; i < occurrence && pos != std::string_view::npos; ++i) {
    pos = header.find(needle, pos + 1);
  }
  if (pos == std::string_view::npos) std::abort();
  return 8 + pos;
}

class FileBuilder {
 public:
  explicit FileBuilder(std::string header) : header_(std::move(header)) {}

  // Data bytes after the header.
  FileBuilder& data(std::vector<std::uint8_t> bytes) {
    data_ = std::move(bytes);
    return *this;
  }
  // `size` pattern bytes of data.
  FileBuilder& data_size(std::size_t size) {
    data_ = pattern_bytes(size);
    return *this;
  }
  // `count` spaces after the header text (counted in N).
  FileBuilder& pad(std::size_t count, char fill = ' ') {
    header_.append(count, fill);
    return *this;
  }
  // Spaces until the header length is a multiple of 8, as a canonical writer.
  FileBuilder& pad_to_8() {
    while (header_.size() % 8 != 0) header_.push_back(' ');
    return *this;
  }
  // Write `value` as N instead of the real header length.
  FileBuilder& length_prefix(std::uint64_t value) {
    length_prefix_ = value;
    return *this;
  }
  // Cut the finished file to `size` bytes.
  FileBuilder& truncate(std::size_t size) {
    truncate_ = size;
    return *this;
  }
  // Bytes after the data.
  FileBuilder& append(std::string_view bytes) {
    // Byte by byte: g++-12 at -O2 misreads vector::insert from a string_view
    // as a write past the end (-Wstringop-overflow).
    for (const char c : bytes) append_.push_back(static_cast<std::uint8_t>(c));
    return *this;
  }
  FileBuilder& append(std::span<const std::uint8_t> bytes) {
    append_.insert(append_.end(), bytes.begin(), bytes.end());
    return *this;
  }

  const std::string& header() const { return header_; }
  // File offset where the data starts (with the real header length).
  std::uint64_t data_offset() const { return 8 + header_.size(); }

  std::vector<std::uint8_t> build() const {
    std::vector<std::uint8_t> out;
    out.reserve(8 + header_.size() + data_.size() + append_.size());
    append_u64_le(out, length_prefix_.value_or(header_.size()));
    out.insert(out.end(), header_.begin(), header_.end());
    out.insert(out.end(), data_.begin(), data_.end());
    out.insert(out.end(), append_.begin(), append_.end());
    if (truncate_ && *truncate_ < out.size()) out.resize(*truncate_);
    return out;
  }

 private:
  std::string header_;
  std::vector<std::uint8_t> data_;
  std::vector<std::uint8_t> append_;
  std::optional<std::uint64_t> length_prefix_;
  std::optional<std::size_t> truncate_;
};

// The common case: exact header text followed by `data_len` pattern bytes.
inline std::vector<std::uint8_t> make_file(std::string header, std::size_t data_len = 0) {
  return FileBuilder(std::move(header)).data_size(data_len).build();
}

// One tensor entry, compact: "name":{"dtype":..,"shape":[..],"data_offsets":[b,e]}
inline std::string entry(std::string_view name, std::string_view dtype, std::string_view shape,
                         std::uint64_t begin, std::uint64_t end) {
  std::string out;
  out += '"';
  out += name;
  out += "\":{\"dtype\":\"";
  out += dtype;
  out += "\",\"shape\":[";
  out += shape;
  out += "],\"data_offsets\":[";
  out += std::to_string(begin);
  out += ',';
  out += std::to_string(end);
  out += "]}";
  return out;
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_FILE_BUILDER_H_
