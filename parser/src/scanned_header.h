// The compact form a header scan produces (header_scanner.h) and the checks
// after it read (layout.h): one fixed-size record per tensor, and only for
// parse_header where each name and shape are.
#ifndef STGUARD_SRC_SCANNED_HEADER_H_
#define STGUARD_SRC_SCANNED_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recycle.h"
#include "stguard/dtype.h"

namespace stguard::detail {

// A tensor as scanned: fixed-size, no allocation of its own, and only what the
// checks after the scan need. The element count is folded while the shape is
// read (by the profile's rule), so validation keeps no shape; names stay in
// the header and are read again only for messages and name comparisons.
struct TensorRecord {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t header_offset = 0;  // absolute offset of the name's '"'
  std::uint64_t elements = 0;       // ElementCount::elements() of the shape (sizes.h)
  Dtype dtype = Dtype::kU8;
  bool elements_overflow = false;  // ElementCount::overflow: the count left u64
  // One more than the name's length in the header when it had no escapes
  // (so its text there is the name), else 0. Lets ScannedHeader::name view
  // it without reading the string again.
  std::uint32_t name_len_plus_one = 0;
};

// What only parse_header needs, kept when ScannedHeader::keep_details is set:
// where the name and the shape are.
struct TensorDetail {
  std::uint64_t name_pos = 0;  // into ScannedHeader::name_arena
  std::uint64_t name_len = 0;
  std::uint64_t shape_pos = 0;  // into ScannedHeader::dims
  std::uint64_t rank = 0;
};

// The pools (recycle.h) of ScannedHeader's vectors.
struct TensorRecordPool {  // the scanned tensors
  using Element = TensorRecord;
};
struct TensorDetailPool {  // where each tensor's name and shape are (parse_header only)
  using Element = TensorDetail;
};
struct ShapeDimsPool {  // the shapes' dimensions (parse_header only)
  using Element = std::uint64_t;
};

struct ScannedHeader {
  // The vectors reuse the thread's spare storage (recycle.h).
  ScannedHeader() noexcept {
    borrow_spare<TensorRecordPool>(tensors);
    borrow_spare<TensorDetailPool>(details);
    borrow_spare<ShapeDimsPool>(dims);
  }
  ~ScannedHeader() {
    return_spare<TensorRecordPool>(tensors);
    return_spare<TensorDetailPool>(details);
    return_spare<ShapeDimsPool>(dims);
  }
  ScannedHeader(const ScannedHeader&) = delete;
  ScannedHeader& operator=(const ScannedHeader&) = delete;

  // The header bytes in memory: all of them, or a window's (header_window.h).
  const std::uint8_t* header_begin = nullptr;
  const std::uint8_t* header_end = nullptr;
  std::uint64_t file_base = 8;        // absolute file offset of header_begin
  bool keep_details = false;          // set by the caller before the scan
  std::vector<TensorRecord> tensors;  // document order (reference: dups merged)
  std::vector<TensorDetail> details;  // parallel to tensors when keep_details
  // Every tensor name, unescaped, back to back (keep_details). In the
  // reference profile an entry replaced by a later one of the same name
  // leaves its copy here unused.
  std::string name_arena;
  // The shapes' dimensions (keep_details). Tensors whose shapes the compact
  // reader found to be the same text view one copy (header_scanner.h).
  std::vector<std::uint64_t> dims;
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;

  // The unescaped name of tensors[index]. Without details it is viewed in
  // the header (it was validated there), or read again when it had escapes:
  // `scratch` then holds it, so the view lives as long as `scratch` is not
  // changed. A name neither kept nor in memory (before a window's bytes) is
  // "": only in a message that a windowed check throws away, since it
  // declines at any fault (header_window.h). Inline: a header whose names
  // stop ascending has every name so far hashed through here.
  std::string_view name(std::size_t index, std::string& scratch) const {
    const TensorRecord& t = tensors[index];
    if (!keep_details && t.name_len_plus_one != 0 && t.header_offset >= file_base) {
      const std::uint8_t* text = header_begin + (t.header_offset - file_base) + 1;
      return {reinterpret_cast<const char*>(text), t.name_len_plus_one - 1U};
    }
    return name_read_again(index, scratch);
  }
  // name() of a name kept, with escapes or let go.
  std::string_view name_read_again(std::size_t index, std::string& scratch) const;
  std::span<const std::uint64_t> shape(std::size_t index) const noexcept {
    const TensorDetail& d = details[index];
    return {dims.data() + d.shape_pos, static_cast<std::size_t>(d.rank)};
  }
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_SCANNED_HEADER_H_
