// The parser's fast paths, each with an off switch.
//
// The format in code is the plain path: the JSON lexer and the header
// scanner's general reader (json_lexer.h, header_scanner.h) read the header
// token by token, the whole header is in memory, its UTF-8 is checked before
// anything else, every tensor name is hashed and the first repeat looked for
// after the scan, tensors are sorted by (begin, end) with std::sort and
// walked in that order (layout.cc),
// and after a fault the syntax-only pass (json_syntax.h) reads the whole
// value again with the lexer. Everything else is a layer over it that gives
// the same answer faster on the inputs it is made for, and declines (hands
// the input to the plain path) on the rest: the same verdict, reason,
// offset, message, tensors and metadata, always. A layer that cannot be
// switched off cannot be compared, and in a security tool every fast path
// is attack surface: the fuzz harnesses run the plain path and random
// combinations of layers on every input and require identical results
// (fuzz/fuzz_invariants.h, check_layers), and the benchmarks measure each
// layer's worth by switching it off (bench/checkpoint_bench.cc).
//
// The switches are for tests, fuzzers and benchmarks, not an API: a
// LayersInForce sets them for its thread while it lives.
//
//   stguard::detail::LayersInForce plain(stguard::detail::Layers::plain());
//   const auto answer = stguard::parse(bytes);  // the plain path alone
#ifndef STGUARD_SRC_LAYERS_H_
#define STGUARD_SRC_LAYERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stguard::detail {

struct Layers {
  // header_scanner.h, tensor_entry.cc: an entry as writers emit it read in
  // straight-line code, with the text of recent dtypes, shapes and offsets
  // compared instead of read again.
  bool compact_entries = true;
  // json_lexer.h: an unsigned integer of the common form (no sign, no
  // leading zero, at most 19 digits) read eight digits at a time.
  bool u64_words = true;
  // json_lexer.h, header_scanner.cc, tensor_entry.cc: a tensor name without
  // escapes read inline, and the field names matched as writers write them,
  // before the general string reader.
  bool plain_strings = true;
  // header_scanner.cc: no name is hashed while each is greater than the one
  // before (writers sort them); no repeat is then possible.
  bool ascending_names = true;
  // header.cc: a large header's UTF-8 checked only when the scan saw a
  // non-ASCII byte or stopped at a fault.
  bool utf8_after_scan = true;
  // header.cc: no syntax pass after a fault where the scan settled it (the
  // value read whole, or the fault a syntax error itself).
  bool syntax_shortcuts = true;
  // json_syntax.cc: the syntax pass starts at the top-level member the scan
  // was in, not at the beginning.
  bool syntax_resume = true;
  // layout.cc: tensors already in offset order walked in document order,
  // without a sort.
  bool in_order_walk = true;
  // layout.cc: an exact tiling proved with a table, without a sort.
  bool tiles_exactly = true;
  // layout.cc: the tensors walked in sorted order from packed keys.
  bool packed_walk = true;
  // header_window.h, file.cc: a large header of a file checked a window at
  // a time before it is read whole.
  bool window = true;

  // Every layer off: the plain path alone.
  static constexpr Layers plain() noexcept {
    Layers l;
    l.compact_entries = l.u64_words = l.plain_strings = l.ascending_names = l.utf8_after_scan =
        l.syntax_shortcuts = l.syntax_resume = l.in_order_walk = l.tiles_exactly = l.packed_walk =
            l.window = false;
    return l;
  }
  // The layers whose bits are set in `bits`, in the order of the fields
  // above (bit 0: compact_entries): for a fuzzer drawing a combination.
  static Layers from_bits(std::uint32_t bits) noexcept;
  static constexpr int kCount = 11;
  // "compact_entries,window" (the layers on), "none", or "all".
  std::string names() const;
  // The inverse, for a benchmark's or a test's command line: "all", "none",
  // a list of layers ("u64_words,window": those alone), or a list of layers
  // each with a '-' ("-window": all but those). nullopt: a name that is not
  // a layer.
  static std::optional<Layers> parse(std::string_view spec);

  friend bool operator==(const Layers&, const Layers&) = default;
};

// The layers in force on this thread (all of them unless a LayersInForce
// says otherwise).
const Layers& layers() noexcept;

// Sets the layers of this thread while it lives; the previous ones after.
class LayersInForce {
 public:
  explicit LayersInForce(const Layers& layers) noexcept;
  ~LayersInForce();
  LayersInForce(const LayersInForce&) = delete;
  LayersInForce& operator=(const LayersInForce&) = delete;

 private:
  Layers previous_;
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_LAYERS_H_
