// The compact form a header scan produces (header_scanner.h) and the checks
// after it read (layout.h): one fixed-size record per tensor, and only for
// parse_header where each name and shape are. And the Scratch its vectors,
// and the tables of the scan and the checks, live in between parses.
#ifndef STGUARD_SRC_SCANNED_HEADER_H_
#define STGUARD_SRC_SCANNED_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_index.h"
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

// The memory a parse works in, kept by its owner for the next parse: a
// stguard::Parser keeps one (stguard/parser.h), a one-shot call makes one
// and frees it. A parse borrows each vector (lend: its capacity, empty) and
// gives it back when done (give_back: emptied, capacity kept), so a header
// like the last one allocates nothing here; the owner frees it all with the
// Scratch. Nothing a parse decides depends on what a vector held before.
struct Scratch {
  // ScannedHeader's vectors (parse_header takes `dims` into its result).
  std::vector<TensorRecord> tensors;
  std::vector<TensorDetail> details;
  std::vector<std::uint64_t> dims;
  // HeaderScanner's: a hash per tensor name (strict's repeat check), the
  // tensor names' table (reference: the last-wins merge), the metadata
  // keys' table.
  std::vector<std::uint32_t> name_hashes;
  std::vector<NameIndex::Slot> tensor_names;
  std::vector<NameIndex::Slot> metadata_keys;
  // first_repeated_name's table (name_index.h).
  std::vector<std::uint32_t> repeat_table;
  // layout.cc: tiles_exactly's table, and walk_in_packed_order's three
  // arrays of n words, left uninitialised (each word is written before it
  // is read, so zeroing a large header's would touch megabytes for nothing).
  std::vector<std::uint64_t> tiling_table;
  std::vector<std::uint32_t> radix_counts;  // walk_in_packed_order's digit counts
  std::unique_ptr<std::uint64_t[]> packed_words;
  std::size_t packed_words_size = 0;

  // The bytes held, for stguard::Parser::scratch_bytes.
  std::size_t bytes() const noexcept;
};

// `v` (empty) takes `spare`'s memory.
template <class Vector>
void lend(Vector& v, Vector& spare) noexcept {
  v.swap(spare);
}
// Empties `v` and gives its memory to `spare`.
template <class Vector>
void give_back(Vector& v, Vector& spare) noexcept {
  v.clear();
  v.swap(spare);
}

struct ScannedHeader {
  // The vectors are the scratch's, while the ScannedHeader lives.
  explicit ScannedHeader(Scratch& scratch) noexcept : scratch_(scratch) {
    lend(tensors, scratch.tensors);
    lend(details, scratch.details);
    lend(dims, scratch.dims);
  }
  ~ScannedHeader() {
    give_back(tensors, scratch_.tensors);
    give_back(details, scratch_.details);
    give_back(dims, scratch_.dims);
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

 private:
  Scratch& scratch_;
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_SCANNED_HEADER_H_
