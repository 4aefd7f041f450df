// The purpose-built reader of the safetensors header grammar.
//
// It reads exactly what a header can contain (an object of tensor entries
// and "__metadata__", entries of dtype, shape and data_offsets) in one
// forward pass over the JSON tokens of json_lexer.h, without a DOM, and
// applies the profile's rules as it goes: duplicate keys, number forms,
// U+0000 in names, padding, and the reference profile's serde_json quirks.
// The result is the compact ScannedHeader (scanned_header.h). Semantic
// checks that need the whole header (sizes, layout) are in layout.cc.
//
// UTF-8 is the caller's to check (json_lexer.h): the scanner reads invalid
// UTF-8 without harm, and notes whether it saw any non-ASCII byte. Whatever
// the input, the scanner never reads outside [begin, end), or outside the
// bytes in the window for a header read a window at a time (header_window.h).
#ifndef STGUARD_SRC_HEADER_SCANNER_H_
#define STGUARD_SRC_HEADER_SCANNER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "header_window.h"
#include "json_lexer.h"
#include "layers.h"
#include "name_index.h"
#include "scanned_header.h"
#include "sizes.h"
#include "stguard/error.h"
#include "stguard/header.h"

namespace stguard::detail {

class HeaderScanner {
 public:
  // `begin`/`end` delimit the N header bytes; `file_base` is the absolute file
  // offset of `begin` (8), used for error offsets. The scan's tables are
  // `scratch`'s (scanned_header.h) while it lives.
  HeaderScanner(const std::uint8_t* begin, const std::uint8_t* end, std::uint64_t file_base,
                const ParseOptions& options, Scratch& scratch) noexcept;
  // The header read through `window` (header_window.h), from file offset 8.
  // scan() then returns true only when it accepts the header, and its result
  // is then the whole header's; false means it declined, and the whole
  // header is to be scanned (header_window.h says when).
  HeaderScanner(HeaderWindow& window, const ParseOptions& options, Scratch& scratch) noexcept;
  ~HeaderScanner();
  HeaderScanner(const HeaderScanner&) = delete;
  HeaderScanner& operator=(const HeaderScanner&) = delete;

  // Reads the whole header into `out`. On failure returns false and
  // take_error() gives the first fault in document order.
  bool scan(ScannedHeader& out);

  Error take_error() { return lex_.take_error(); }
  // See JsonLexer::saw_non_ascii: false after a whole scan means the header
  // is ASCII.
  bool saw_non_ascii() const noexcept { return lex_.saw_non_ascii(); }

  // After a fault, how much of the header's syntax the scan has settled (for
  // the syntax-only pass, json_syntax.h). The scan reads the top-level value
  // in order and checks the syntax of every byte it reads, so:
  //   value_read_whole: the top-level value was read to its end; no syntax
  //     error is left to find;
  //   member_in_progress: otherwise, the opening quote of the top-level key
  //     whose member the scan was reading (every byte before it is
  //     well-formed), or nullptr when it stopped before the first key.
  bool value_read_whole() const noexcept { return value_read_whole_; }
  //   stopped_at_syntax_error: the fault is the value's first syntax error
  //     (JsonLexer::stopped_at_syntax_error).
  bool stopped_at_syntax_error() const noexcept { return lex_.stopped_at_syntax_error(); }
  const std::uint8_t* member_in_progress() const noexcept { return member_in_progress_; }

 private:
  using StringValue = JsonLexer::StringValue;
  using AfterElement = JsonLexer::AfterElement;

  bool strict() const noexcept { return options_.profile == Profile::kStrict; }

  // A header read a window at a time (header_window.h). Before each member,
  // the window moves on once fewer than its lookahead bytes are left ahead of
  // the cursor: one compare per member until then. False: the scan declines.
  [[nodiscard]] bool keep_ahead() { return lex_.pos() < move_on_at_ || move_window(); }
  bool move_window();
  // After the top-level value: moves the window to hold the rest of the
  // header, or declines.
  bool window_to_end();
  void show_window(const HeaderWindow::View& view) noexcept;
  // Whether the window's bytes up to `upto` are valid UTF-8: checked before
  // they are let go, at the cursor, which is between members, so that no
  // UTF-8 sequence is cut.
  bool window_is_utf8(const std::uint8_t* upto) const noexcept;
  // The windowed scan gives up (header_window.h). Returns false, to end it.
  bool decline() noexcept {
    declined_ = true;
    return false;
  }
  // Whether ScannedHeader::name can read the name of tensors[index] (kept,
  // or in memory), and of every tensor recorded so far.
  bool name_readable(std::size_t index) const noexcept {
    return out_->keep_details || out_->tensors[index].header_offset >= lex_.file_base();
  }
  bool names_readable() const noexcept { return out_->tensors.empty() || name_readable(0); }

  bool read_document(ScannedHeader& out);
  bool read_metadata(std::optional<std::vector<std::pair<std::string, std::string>>>& metadata);
  bool read_tensor_entry(TensorRecord& tensor, std::string_view name);
  // The entry as writers emit it, {"dtype":"..","shape":[..],"data_offsets":[..,..]}
  // without whitespace, read in straight-line code. Returns false, having
  // consumed and recorded nothing, for anything else (faults included): the
  // general reader then takes the entry. kKeepDims: details are kept
  // (detail_ is set), so the dimensions go to ScannedHeader::dims, one copy
  // for all the entries that repeat a shape's text.
  template <bool kKeepDims>
  bool read_compact_entry(TensorRecord& tensor);
  // The most dimensions the compact reader keeps (details are kept); a shape
  // of more is the general reader's.
  static constexpr std::uint64_t kMaxCompactRank = 8;
  bool read_tensor_object(TensorRecord& tensor, std::string_view name);
  // Reference profile only: the entry as the array [dtype, shape, data_offsets].
  bool read_tensor_array(TensorRecord& tensor, std::string_view name);
  bool read_dtype(Dtype& out);
  // Also folds the element count into `tensor` (sizes.h) and, when details
  // are kept, appends the dimensions to ScannedHeader::dims.
  bool read_shape(TensorRecord& tensor);
  bool read_offsets(std::uint64_t& begin, std::uint64_t& end);
  // A name's length against max_name_bytes and, in strict, no U+0000. Inline
  // for the names that pass, every one in a valid header; name_fault reports.
  bool check_name(const StringValue& name, const std::uint8_t* at, bool is_metadata_key) {
    if (name.text.size() <= limits_.max_name_bytes && !(name.has_nul && strict())) [[likely]] {
      return true;
    }
    return name_fault(name, at, is_metadata_key);
  }
  [[gnu::noinline]] bool name_fault(const StringValue& name, const std::uint8_t* at,
                                    bool is_metadata_key);
  // LIMIT_EXCEEDED at the key of the first tensor beyond max_tensors.
  bool fail_too_many(const std::uint8_t* key_at);

  JsonLexer lex_;
  HeaderWindow* const window_;  // nullptr: the whole header is in memory
  const std::uint64_t header_size_;
  // keep_ahead moves the window on once the cursor is here; the end of the
  // bytes in memory when there is nothing more to read.
  const std::uint8_t* move_on_at_;
  bool window_at_end_ = true;  // the bytes in memory reach the header's end
  bool declined_ = false;
  const ParseOptions& options_;
  // The fast paths in force (layers.h), read once per scan.
  const Layers layers_ = layers();
  // options_.limits resolved against the profile; max_tensors at most
  // kMaxTensorsSupported (tensor indices are 32-bit).
  const ResolvedLimits limits_;

  std::string key_scratch_;
  std::string value_scratch_;
  std::string name_scratch_;        // the current tensor name when it had escapes
  std::string compare_scratch_;     // an earlier name read again to compare
  ScannedHeader* out_ = nullptr;    // during scan()
  TensorDetail* detail_ = nullptr;  // the current tensor's, when details are kept
  // While every tensor name is greater than the one before (writers sort
  // them), no name can repeat, so neither profile hashes any: strict keeps
  // no hashes for its repeat check, the reference profile none for its
  // last-wins merge. True while `name` (the record just added) keeps that
  // order; from the first name out of order on, false.
  bool names_still_ascending(std::string_view name, bool decoded);
  // Hashes for the search for repeated names after the scan (strict: the
  // fault; reference: the merge), one per tensor in document order, from the
  // first name out of order on. False: a windowed scan declines (the names
  // before are gone). After the first name out of order, outside a window,
  // a name is only hashed: one call, not two calls and their checks per
  // tensor of an out-of-order header.
  bool note_name_for_repeats(std::string_view name, bool decoded) {
    if (hash_every_name_) {
      note_hash_alone(name);
      return true;
    }
    return note_name_while_ordered(name, decoded);
  }
  // note_name_for_repeats for the names up to the first out of order, and
  // in a window for all.
  bool note_name_while_ordered(std::string_view name, bool decoded);
  // Out of line: the hash inlined into the scan's loop slows headers whose
  // names never stop ascending, which never call it.
  [[gnu::noinline]] void note_hash_alone(std::string_view name) {
    name_hashes_.push_back(static_cast<std::uint32_t>(hash_name(name)));
  }
  // Appends the hash of a name: to name_hashes_, or in a window its whole
  // hash to wide_hashes_.
  void note_hash(std::string_view name);
  // Hashes the names of the records from the first not hashed yet to `end`.
  // False (nothing more hashed) at a name a window let go of.
  bool hash_names_before(std::size_t end);
  // Reference: merges the records read so far the way upstream's map does
  // (each name at its first place, with its last entry), leaving every name
  // in tensor_names_ at its merged index.
  void merge_repeated_names();
  bool names_ascending_ = true;
  // Names are out of order and the scan is not in a window: from here on
  // each name's hash is all note_name_for_repeats keeps.
  bool hash_every_name_ = false;
  // Reference: repeats are merged as each name is read (tensor_names_), not
  // after the scan. Set once the records outnumber max_tensors, which counts
  // the merged tensors.
  bool merging_while_scanning_ = false;
  std::string_view previous_name_;
  std::string previous_name_copy_;  // previous_name_ when it had escapes
  // The names' hashes for the search for repeats: 32 bits of each with the
  // whole header in memory, where equal hashes are told apart by the names.
  std::vector<std::uint32_t> name_hashes_;
  // In a window, instead: each name's whole 64-bit hash. Once the names are
  // gone, a pair of them is taken for a repeat, and the scan declines, only
  // when these are equal (a 100,000-name header has about one pair of equal
  // 32-bit hashes). One array, not both: in a process that checks one
  // 100,000-tensor header the 32-bit one was 400 KB more memory to fault in.
  std::vector<std::uint64_t> wide_hashes_;
  NameIndex tensor_names_;  // reference: for the last-wins merge
  NameIndex metadata_keys_;
  // Text of the compact entries read so far that the next one often repeats,
  // so read_compact_entry compares bytes instead of reading them again:
  // writers give most of a model's tensors one dtype, and lay the tensors
  // out back to back in the order of their entries, so that an entry's begin
  // offset is the end offset of the entry before it, digit for digit. Views
  // into the header of text already read without fault, with
  // kSameBytesAtMost bytes readable at each; a length of 0: none yet.
  struct CompactRepeats {
    // The previous entry's opening, {"dtype":"NAME","shape":[ (writer
    // order runs one dtype for many entries), and behind it openings seen
    // lately, one per slot chosen by the bytes around the dtype's name:
    // entries out of order switch between a model's few dtypes at random,
    // and the previous opening alone then missed a third of the time. The
    // slots come second because their lookup lengthens the path to the
    // shape (docs/performance.md).
    struct Prefix {
      const std::uint8_t* text = nullptr;
      std::size_t len = 0;
      Dtype dtype{};
    };
    Prefix prefix;
    static constexpr int kPrefixSlotBits = 3;
    Prefix prefixes[1 << kPrefixSlotBits];
    // Entries whose opening was not the previous entry's. Once they are half
    // the entries, the dtypes alternate, and the opening is found from its
    // slot alone (read_compact_entry).
    std::uint32_t opening_misses = 0;
    bool openings_alternate = false;
    // Shapes seen lately, one per slot chosen by their first eight bytes:
    // a model's layers cycle through a few shapes (q_proj, k_proj, a norm),
    // so the previous entry's shape alone missed most of the time. 16 slots
    // suit the vision-language shapes, which mix the most shapes, better
    // than 4 or 8 (docs/performance.md).
    struct Shape {
      const std::uint8_t* text = nullptr;  // the dimensions after '[', and ']'
      std::size_t len = 0;
      ElementCount count;
      std::uint64_t rank = 0;
      std::uint64_t shape_pos = 0;  // its dimensions in ScannedHeader::dims, when kept

      // A shape's text from `from` to `to` (after ']') and what it reads as.
      void remember(const std::uint8_t* from, const std::uint8_t* to, const ElementCount& of,
                    std::uint64_t dimensions) noexcept {
        text = from;
        len = static_cast<std::size_t>(to - from);
        count = of;
        rank = dimensions;
      }
    };
    static constexpr int kShapeSlotBits = 4;
    Shape shapes[1 << kShapeSlotBits];
    const std::uint8_t* end_digits = nullptr;  // the digits of an end offset
    std::size_t end_digits_len = 0;
    std::uint64_t end = 0;
    // Whether the previous entry began where the one before it ended: only
    // then is the next begin compared with that end's digits first. Out of
    // offset order the compare would miss every time, for nothing.
    bool begins_at_previous_end = true;
  };
  CompactRepeats repeats_;
  Scratch& scratch_;
  bool borrowed_scratch_ = false;  // scan() took name_hashes_ and the tables from scratch_
  bool value_read_whole_ = false;
  const std::uint8_t* member_in_progress_ = nullptr;
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_HEADER_SCANNER_H_
