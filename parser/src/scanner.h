// The purpose-built reader of the safetensors header grammar.
//
// It reads exactly what a header can contain (objects, arrays, strings with
// every escape, unsigned integers, literals) in one forward pass, without a
// DOM, and applies the profile's rules as it goes: duplicate keys, number
// forms, U+0000 in names, padding, and the reference profile's serde_json
// quirks. Semantic checks that need the whole header (sizes, layout) are in
// layout.cc.
//
// Precondition: the header text is valid UTF-8. Invalid UTF-8 anywhere
// outranks every other fault of the header, so the caller (header.cc) checks
// it first, in one pass, and a scan never sees it; strings then take
// non-ASCII bytes as plain content (a non-ASCII byte outside a string is a
// syntax fault). Whatever the input, the scanner never reads outside
// [begin, end).
#ifndef STGUARD_SRC_SCANNER_H_
#define STGUARD_SRC_SCANNER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_index.h"
#include "recycle.h"
#include "stguard/error.h"
#include "stguard/header.h"

namespace stguard::detail {

// A tensor as scanned: fixed-size, no allocation of its own, and only what the
// checks after the scan need. The element count is folded while the shape is
// read (by the profile's rule), so validation keeps no shape; names stay in
// the header and are read again only for messages and name comparisons.
struct TensorRecord {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t header_offset = 0;  // absolute offset of the name's '"'
  std::uint64_t elements = 0;       // product of the dimensions (see read_shape)
  Dtype dtype = Dtype::kU8;
  bool elements_overflow = false;  // the product does not fit in u64
};

// What only parse_header needs, kept when ScannedHeader::keep_details is set:
// where the name and the shape are.
struct TensorDetail {
  std::uint64_t name_pos = 0;  // into the header bytes, or the name arena
  std::uint64_t name_len = 0;
  std::uint64_t shape_pos = 0;  // into ScannedHeader::dims
  std::uint64_t rank = 0;
  bool name_in_arena = false;  // the name had escapes and was decoded
};

// The pools (recycle.h) of ScannedHeader's vectors.
struct TensorRecordPool {  // the scanned tensors
  using Element = TensorRecord;
};
struct TensorDetailPool {  // where each tensor's name and shape are (parse_header only)
  using Element = TensorDetail;
};
struct ShapeDimsPool {  // every shape's dimensions, back to back (parse_header only)
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

  const std::uint8_t* header_begin = nullptr;
  const std::uint8_t* header_end = nullptr;
  std::uint64_t file_base = 8;        // absolute file offset of header_begin
  bool keep_details = false;          // set by the caller before the scan
  std::vector<TensorRecord> tensors;  // document order (reference: dups merged)
  std::vector<TensorDetail> details;  // parallel to tensors when keep_details
  std::string name_arena;             // decoded names that had escapes
  std::vector<std::uint64_t> dims;    // all shapes, back to back (keep_details)
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;

  // The unescaped name of tensors[index]. Without details it is read again
  // from the header (it was validated there); `scratch` holds it when it had
  // escapes, so the view lives as long as `scratch` is not changed.
  std::string_view name(std::size_t index, std::string& scratch) const;
  std::span<const std::uint64_t> shape(std::size_t index) const noexcept {
    const TensorDetail& d = details[index];
    return {dims.data() + d.shape_pos, static_cast<std::size_t>(d.rank)};
  }
};

// The pools (recycle.h) of HeaderScanner's tables.
struct NameHashPool {  // strict: a hash per tensor name, for the repeat check
  using Element = std::uint32_t;
};
struct TensorNameTablePool {  // reference: the tensor names' table, for the last-wins merge
  using Element = NameIndex::Slot;
};
struct MetadataKeyTablePool {  // the metadata keys' table, for repeated keys
  using Element = NameIndex::Slot;
};

class HeaderScanner {
 public:
  // `begin`/`end` delimit the N header bytes; `file_base` is the absolute file
  // offset of `begin` (8), used for error offsets.
  HeaderScanner(const std::uint8_t* begin, const std::uint8_t* end, std::uint64_t file_base,
                const ParseOptions& options) noexcept;
  ~HeaderScanner();
  HeaderScanner(const HeaderScanner&) = delete;
  HeaderScanner& operator=(const HeaderScanner&) = delete;

  // Reads the whole header into `out`. On failure returns false and
  // take_error() gives the first fault in document order.
  bool scan(ScannedHeader& out);

  Error take_error() { return std::move(error_); }

  // The unescaped value of the JSON string whose opening quote is at `quote`
  // in [begin, end), a string the scan has already read without fault. The
  // view is into the header, or into `scratch` when the string had escapes.
  static std::string_view string_at(const std::uint8_t* begin, const std::uint8_t* end,
                                    const std::uint8_t* quote, std::string& scratch);

 private:
  // serde_json's recursion limit: a container at this depth (top-level object
  // = 1) is rejected. Only reachable in the reference profile.
  static constexpr int kMaxDepth = 128;

  // Result of reading a JSON string: its unescaped value (a view into the
  // header when it had no escapes, otherwise into a scratch buffer) and
  // whether it contains U+0000.
  struct StringValue {
    std::string_view text;
    bool has_nul = false;
    bool decoded = false;  // text is in the scratch buffer, not the header
  };

  bool strict() const noexcept { return options_.profile == Profile::kStrict; }
  std::uint64_t offset_of(const std::uint8_t* at) const noexcept {
    return file_base_ + static_cast<std::uint64_t>(at - begin_);
  }
  bool fail(Reason reason, const std::uint8_t* at, std::string message);
  bool fail_syntax(const std::uint8_t* at, std::string_view expected);

  int peek() const noexcept { return p_ < end_ ? *p_ : -1; }
  void skip_whitespace() noexcept;
  bool expect(char c, std::string_view what);

  bool read_string(std::string& scratch, StringValue& out);
  // Matches a key written without escapes, quotes included, e.g. "\"dtype\"".
  // A template so the compare has a constant length and is inlined.
  template <std::size_t N>
  bool match_plain_key(const char (&quoted_key)[N], StringValue& out) noexcept {
    constexpr std::size_t kLen = N - 1;  // without the terminating NUL
    if (static_cast<std::size_t>(end_ - p_) < kLen || std::memcmp(p_, quoted_key, kLen) != 0) {
      return false;
    }
    p_ += kLen;
    out.text = std::string_view(quoted_key + 1, kLen - 2);
    out.has_nul = false;
    out.decoded = false;
    return true;
  }
  bool read_escape(std::string& scratch);
  bool read_hex4(std::uint32_t& out);
  bool read_literal(std::string_view word);

  // Number grammar. On a well-formed JSON number, sets `p_` past it and
  // reports whether it is a plain unsigned integer fitting in u64.
  struct NumberForm {
    bool is_u64 = false;
    std::uint64_t value = 0;
    bool negative = false;
    bool fractional_or_exponent = false;
    bool above_u64 = false;
  };
  bool read_number(NumberForm& out);
  bool read_u64_element(Reason type_reason, std::string_view what, std::uint64_t& out);

  bool comma_before_value();
  bool skip_value(int depth);  // reference profile: any JSON value, iteratively

  bool read_document(ScannedHeader& out);
  bool read_metadata(std::optional<std::vector<std::pair<std::string, std::string>>>& metadata);
  bool read_tensor_entry(TensorRecord& tensor, std::string_view name);
  // The entry as writers emit it, {"dtype":"..","shape":[..],"data_offsets":[..,..]}
  // without whitespace, read in straight-line code. Returns false, having
  // consumed and recorded nothing, for anything else (faults included): the
  // general reader then takes the entry.
  bool read_compact_entry(TensorRecord& tensor);
  bool read_tensor_object(TensorRecord& tensor, std::string_view name);
  bool read_tensor_array(TensorRecord& tensor, std::string_view name);
  bool read_dtype(Dtype& out);
  // Also folds the element count into `tensor` and, when details are kept,
  // appends the dimensions to ScannedHeader::dims.
  bool read_shape(TensorRecord& tensor);
  bool read_offsets(std::uint64_t& begin, std::uint64_t& end);
  bool check_name(const StringValue& name, const std::uint8_t* at, bool is_metadata_key);

  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  const std::uint8_t* p_;
  std::uint64_t file_base_;
  const ParseOptions& options_;
  Error error_{};

  std::string key_scratch_;
  std::string value_scratch_;
  std::string skip_scratch_;
  std::string name_scratch_;        // the current tensor name when it had escapes
  std::string compare_scratch_;     // an earlier name read again to compare
  ScannedHeader* out_ = nullptr;    // during scan()
  TensorDetail* detail_ = nullptr;  // the current tensor's, when details are kept
  // Strict: hashes for the check for repeated names after the scan, one per
  // tensor in document order. While every name is greater than the one
  // before (writers sort them), no name can repeat, so none is hashed.
  void note_name_for_repeats(std::string_view name, bool decoded);
  bool names_ascending_ = true;
  std::string_view previous_name_;
  std::string previous_name_copy_;  // previous_name_ when it had escapes
  std::vector<std::uint32_t> name_hashes_;
  NameIndex tensor_names_;  // reference: for the last-wins merge
  NameIndex metadata_keys_;
  bool borrowed_spares_ = false;  // scan() took the three above from the thread's spares
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_SCANNER_H_
