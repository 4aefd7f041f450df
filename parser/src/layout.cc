#include "layout.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checks.h"
#include "dtype_table.h"
#include "layers.h"
#include "message.h"
#include "sizes.h"

namespace stguard::detail {
namespace {

// A tensor's data range and its place in the document, for the layout walk.
struct Span {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint32_t index;  // document order, the tie-breaker
  friend bool operator<(const Span& a, const Span& b) noexcept {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  }
};

// Below this many tensors std::sort is as fast as the radix passes' tables.
constexpr std::size_t kRadixSortFrom = 2048;
constexpr unsigned kRadixBits = 11;  // 2048 buckets: the counts stay in L1

// A tensor's name for a message. Reading it again may decode escapes into
// `scratch`, which must outlive the message() call that quotes it.
Quoted tensor_name(const ScannedHeader& h, std::size_t index, std::string& scratch) {
  return Quoted{h.name(index, scratch)};
}

// The byte size the dtype and element count imply (sizes.h).
ImpliedSize implied_size_of(const TensorRecord& t) noexcept {
  return implied_size(t.elements, t.elements_overflow, dtype_entry(t.dtype).bits);
}

// What the checks (checks.h) know of tensors[index].
CheckContext context_of(const ScannedHeader& h, std::size_t index, std::uint64_t data_len) {
  const TensorRecord& t = h.tensors[index];
  TensorFacts facts;
  facts.rank = h.keep_details ? h.details[index].rank : 0;
  facts.zero_elements = !t.elements_overflow && t.elements == 0;
  facts.dtype = t.dtype;
  facts.index = index;
  facts.count = h.tensors.size();
  return CheckContext{facts, data_len, h.tensors.size()};
}

// The fault of a tensor whose size is not the one its dtype and shape imply.
std::optional<Error> check_size(const ScannedHeader& h, std::size_t index,
                                [[maybe_unused]] std::uint64_t data_len) {
  const TensorRecord& t = h.tensors[index];
  const ImpliedSize size = implied_size_of(t);
  std::string scratch;  // the tensor's name, if it is decoded for the message
  switch (size.fault) {
    case SizeFault::kOverflow:
      // Left out (checks.h): no size to compare with.
      if (STGUARD_LET_THROUGH(kSizeOverflow, context_of(h, index, data_len))) return std::nullopt;
      return Error{
          Reason::kSizeOverflow, t.header_offset,
          message("tensor ", tensor_name(h, index, scratch), ": element count x ",
                  std::uint64_t{dtype_entry(t.dtype).bits}, " bits does not fit in 64 bits")};
    case SizeFault::kMisaligned:
      if (STGUARD_LET_THROUGH(kSubbyteMisaligned, context_of(h, index, data_len))) {
        return std::nullopt;
      }
      return Error{
          Reason::kSubbyteMisaligned, t.header_offset,
          message("tensor ", tensor_name(h, index, scratch), ": ", t.elements, " elements of ",
                  dtype_name(t.dtype), " are ", size.bits, " bits, not a whole number of bytes")};
    case SizeFault::kNone:
      break;
  }
  if (t.end - t.begin != size.bytes &&
      !STGUARD_LET_THROUGH(kSizeMismatch, context_of(h, index, data_len))) {
    return Error{
        Reason::kSizeMismatch, t.header_offset,
        message("tensor ", tensor_name(h, index, scratch), ": data_offsets span ", t.end - t.begin,
                " bytes but ", dtype_name(t.dtype), " x shape needs ", size.bytes)};
  }
  return std::nullopt;
}

// Cheap test for the common case; check_size gives the fault when it fails.
bool size_ok(const TensorRecord& t) noexcept {
  const ImpliedSize size = implied_size_of(t);
  return t.begin <= t.end && size.fault == SizeFault::kNone && t.end - t.begin == size.bytes;
}

// The fault of tensors[index], which failed size_ok (out of line: the loops
// that call this stay small without the message code).
[[gnu::noinline]] std::optional<Error> size_fault(const ScannedHeader& h, std::size_t index,
                                                  std::uint64_t data_len) {
  const TensorRecord& t = h.tensors[index];
  if (t.begin > t.end && !STGUARD_LET_THROUGH(kBeginAfterEnd, context_of(h, index, data_len))) {
    std::string scratch;
    return Error{Reason::kOffsetsInvalid, t.header_offset,
                 message("tensor ", tensor_name(h, index, scratch), ": data_offsets begin ",
                         t.begin, " is after end ", t.end)};
  }
  return check_size(h, index, data_len);
}

// Places tensors one after another in (begin, end) order: the first fault of
// the walk, if any.
class LayoutWalk {
 public:
  LayoutWalk(const ScannedHeader& h, std::uint64_t header_len, std::uint64_t file_size)
      : h_(h),
        file_size_(file_size),
        data_start_(8 + header_len),  // the caller checked 8 + N <= file_size
        data_len_(file_size - data_start_) {}

  // The common case from the span alone, without reading the tensor's
  // record (a cache miss per tensor when the order was not the header's).
  bool place(const Span& s) {
    if (s.end <= data_len_ && s.begin == covered_to_) {
      covered_to_ = s.end;
      return true;
    }
    return place_slowly(s.begin, s.end, s.index);
  }

  // The same from a tensor's offsets, as the caller has them.
  bool place(std::uint64_t begin, std::uint64_t end, std::size_t index) {
    if (end <= data_len_ && begin == covered_to_) {
      covered_to_ = end;
      return true;
    }
    return fail_at(index);
  }

  bool place(std::size_t index) {
    const TensorRecord& t = h_.tensors[index];
    if (t.end <= data_len_ && t.begin == covered_to_) {
      covered_to_ = t.end;
      return true;
    }
    return fail_at(index);
  }

  // After every tensor is placed: the walk's fault, or trailing bytes.
  std::optional<Error> finish() {
    if (failed_at_ != kPlacedAll) return fault_at(failed_at_);
    if (covered_to_ != data_len_ &&
        !STGUARD_LET_THROUGH(kTrailingData,
                             CheckContext{std::nullopt, data_len_, h_.tensors.size()})) {
      return Error{Reason::kTrailingData, data_start_ + covered_to_,
                   message(data_len_ - covered_to_, " bytes after the last tensor (data buffer is ",
                           data_len_, " bytes, tensors cover ", covered_to_, ")")};
    }
    return std::nullopt;
  }

 private:
  // A tensor that is not where the walk is: the walk's first fault, in the
  // order fault_at names them (past the buffer, a gap, an overlap), unless
  // the check is left out (checks.h), when the walk goes on past it.
  bool place_slowly(std::uint64_t begin, std::uint64_t end, std::size_t index) {
    [[maybe_unused]] const CheckContext context = context_of(h_, index, data_len_);
    if (end > data_len_ && !STGUARD_LET_THROUGH(kOutOfBounds, context)) {
      return fail_at(index, Reason::kOffsetOutOfBounds);
    }
    if (begin > covered_to_ && !STGUARD_LET_THROUGH(kGap, context)) {
      return fail_at(index, Reason::kOffsetGap);
    }
    if (begin < covered_to_ && !STGUARD_LET_THROUGH(kOverlap, context)) {
      return fail_at(index, Reason::kOffsetOverlap);
    }
    covered_to_ = std::max(covered_to_, end);
    return true;
  }

  // Stops the walk at tensors[index], for the fault `reason` or, when the
  // caller did not tell it apart, the first of them the tensor meets. The
  // fault's message is written by finish(): the walk in document order stops
  // this way in every header out of offset order, and is then dropped for
  // the walk in sorted order.
  bool fail_at(std::size_t index, Reason reason = Reason::kOffsetOutOfBounds) noexcept {
    failed_at_ = index;
    failed_for_ = reason;
    return false;
  }

  // The fault of placing tensors[index] where the walk stopped (out of line:
  // the walk's loop stays small, and inlined into it, without the message
  // code).
  [[gnu::noinline]] Error fault_at(std::size_t index) const {
    const TensorRecord& t = h_.tensors[index];
    std::string scratch;  // the tensor's name, if it is decoded for the message
    // The faults in the order they are checked; the walk named the first it
    // met (only a check left out, checks.h, makes it a later one).
    if (t.end > data_len_ && failed_for_ == Reason::kOffsetOutOfBounds) {
      return Error{Reason::kOffsetOutOfBounds, file_size_,
                   message("tensor ", tensor_name(h_, index, scratch), ": data_offsets [", t.begin,
                           ", ", t.end, ") end beyond the data buffer of ", data_len_, " bytes")};
    }
    if (t.begin > covered_to_ && failed_for_ != Reason::kOffsetOverlap) {
      return Error{Reason::kOffsetGap, data_start_ + covered_to_,
                   message("data bytes [", covered_to_, ", ", t.begin,
                           ") belong to no tensor (hole before tensor ",
                           tensor_name(h_, index, scratch), ")")};
    }
    return Error{Reason::kOffsetOverlap, data_start_ + t.begin,
                 message("tensor ", tensor_name(h_, index, scratch), ": data_offsets [", t.begin,
                         ", ", t.end, ") overlap bytes already used up to ", covered_to_)};
  }

  static constexpr std::size_t kPlacedAll = ~std::size_t{0};
  const ScannedHeader& h_;
  std::uint64_t file_size_;
  std::uint64_t data_start_;
  std::uint64_t data_len_;
  std::uint64_t covered_to_ = 0;  // unchanged once the walk stopped
  std::size_t failed_at_ = kPlacedAll;
  Reason failed_for_ = Reason::kOffsetOutOfBounds;  // see fail_at
};

// walk_in_packed_order's three arrays of n words, in one block of the
// scratch's (scanned_header.h), grown when too small and never zeroed.
std::uint64_t* packed_arrays(Scratch& scratch, std::size_t n) {
  if (scratch.packed_words_size < 3 * n) {
    scratch.packed_words.reset();  // before the new block: one of them at a time
    scratch.packed_words = std::make_unique_for_overwrite<std::uint64_t[]>(3 * n);
    scratch.packed_words_size = 3 * n;
  }
  return scratch.packed_words.get();
}

// walk_in_packed_order's pass over the records: each tensor's sort word and
// end, and the digit counts of the first kPasses radix passes. The pass count
// is a template parameter so that the counting loop unrolls, which a loop
// over a run-time count does not.
struct PackedWords {
  const std::vector<TensorRecord>& tensors;
  unsigned lowest;
  std::uint64_t width_mask;
  unsigned index_bits;
  std::uint64_t* keys;
  std::uint64_t* ends;
  std::uint32_t* counts;  // kPasses tables of 2^kRadixBits

  template <unsigned kPasses>
  void build() const noexcept {
    constexpr std::uint64_t kDigitMask = (std::uint64_t{1} << kRadixBits) - 1;
    constexpr std::size_t kBuckets = std::size_t{1} << kRadixBits;
    const std::size_t n = tensors.size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bits = (tensors[i].begin >> lowest) & width_mask;
      keys[i] = (bits << index_bits) | i;
      ends[i] = tensors[i].end;
      for (unsigned p = 0; p < kPasses; ++p) {
        ++counts[p * kBuckets + ((bits >> (p * kRadixBits)) & kDigitMask)];
      }
    }
  }
};

// Tensors out of offset order: sorts one word per tensor, the bits in
// which begins differ above its index (begin bits << index bits | index),
// in stable radix passes (std::sort below kRadixSortFrom), and walks the
// tensors in that order. The words are
// a third of a Span's 24 bytes, and the passes moved most of the memory of
// the whole check: a 100,000-tensor shuffled header's sort was a fifth of its
// validation. One pass over the records builds the words, copies the ends
// into an array of their own and counts every pass's digits: the walk then
// reads 8 bytes per tensor at random, not a 40-byte record (4 MB of them at
// 100,000 tensors, past L2), and no pass needs a counting pass of its own.
// `varying` is the OR of the begins less their AND (the bits in which some
// differ), `shared` the AND. Returns false, having done nothing, when begin
// bits and index do not fit in 64 bits together; std::sort then does the
// work.
bool walk_in_packed_order(const std::vector<TensorRecord>& tensors, std::uint64_t varying,
                          std::uint64_t shared, LayoutWalk& walk, Scratch& scratch) {
  const std::size_t n = tensors.size();
  const unsigned lowest = varying == 0 ? 0 : static_cast<unsigned>(std::countr_zero(varying));
  const unsigned width = varying == 0 ? 0 : static_cast<unsigned>(std::bit_width(varying)) - lowest;
  const auto index_bits = static_cast<unsigned>(std::bit_width(n - 1));  // n >= 2
  if (width + index_bits > 64) return false;
  const std::uint64_t index_mask = (std::uint64_t{1} << index_bits) - 1;  // index_bits < 64
  // width <= 64 - index_bits < 64: the shift is defined.
  const std::uint64_t width_mask = (std::uint64_t{1} << width) - 1;
  // A begin from its word: the bits outside the word's are the same in
  // every begin, those of `shared`.
  const std::uint64_t outside = shared & ~(width_mask << lowest);
  constexpr std::uint64_t kDigitMask = (std::uint64_t{1} << kRadixBits) - 1;
  constexpr std::size_t kBuckets = std::size_t{1} << kRadixBits;
  const unsigned passes = (width + kRadixBits - 1) / kRadixBits;  // <= 6
  std::uint64_t* keys = packed_arrays(scratch, n);
  std::uint64_t* buffer = keys + n;
  std::uint64_t* const ends = keys + 2 * n;
  const bool radix = n >= kRadixSortFrom;
  std::vector<std::uint32_t>& counts = scratch.radix_counts;
  counts.assign(radix ? passes * kBuckets : 0, 0);
  const PackedWords words{tensors, lowest, width_mask, index_bits, keys, ends, counts.data()};
  // width <= 63: at most six 11-bit digits.
  using Build = void (PackedWords::*)() const noexcept;
  static constexpr Build kBuild[] = {&PackedWords::build<0>, &PackedWords::build<1>,
                                     &PackedWords::build<2>, &PackedWords::build<3>,
                                     &PackedWords::build<4>, &PackedWords::build<5>,
                                     &PackedWords::build<6>};
  (words.*kBuild[radix ? std::min(passes, 6u) : 0])();
  // A few keys: std::sort, whose comparisons of whole words cost less than
  // the counts' prefix sums; the index in the low bits keeps document order
  // among equal begins, as the stable passes below do.
  if (!radix) std::sort(keys, keys + n);
  // Stable passes from index order: equal begins stay in document order.
  for (unsigned p = 0; radix && p < passes; ++p) {
    std::uint32_t* const slot = counts.data() + p * kBuckets;
    std::uint32_t total = 0;
    for (std::size_t d = 0; d < kBuckets; ++d) {
      const std::uint32_t here = slot[d];
      slot[d] = total;
      total += here;
    }
    const unsigned shift = index_bits + p * kRadixBits;
    for (const std::uint64_t* k = keys; k != keys + n; ++k) {
      buffer[slot[(*k >> shift) & kDigitMask]++] = *k;
    }
    std::swap(keys, buffer);
  }
  // The walk in that order. A run of equal begins (only empty tensors and
  // overlaps make one) is put into operator<'s order, by end, then index,
  // when the walk reaches it: a pass of its own over the words cost a tenth
  // of the check at 10,000 tensors. The ends are read in a random order:
  // each is asked for a few tensors ahead of its turn.
  constexpr std::size_t kAhead = 16;
  std::size_t runs_sorted_to = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) __builtin_prefetch(&ends[keys[k + kAhead] & index_mask]);
    if (k + 1 < n && k >= runs_sorted_to && (keys[k + 1] >> index_bits) == (keys[k] >> index_bits))
        [[unlikely]] {
      std::uint64_t* const run = keys + k;
      std::uint64_t* next = run + 2;
      while (next != keys + n && (*next >> index_bits) == (*run >> index_bits)) ++next;
      std::sort(run, next, [&](std::uint64_t a, std::uint64_t b) {
        const std::uint64_t end_a = ends[a & index_mask];
        const std::uint64_t end_b = ends[b & index_mask];
        return end_a != end_b ? end_a < end_b : (a & index_mask) < (b & index_mask);
      });
      runs_sorted_to = static_cast<std::size_t>(next - keys);
    }
    const std::uint64_t key = keys[k];
    const std::uint64_t index = key & index_mask;
    const std::uint64_t begin = outside | ((key >> index_bits) << lowest);
    if (!walk.place(begin, ends[index], static_cast<std::size_t>(index))) break;
  }
  return true;
}

// Up to this many tensors out of offset order, tiles_exactly proves a good
// layout without sorting; past it the table leaves L2, and at 100,000
// tensors it measured no faster than the radix passes.
constexpr std::size_t kTilingTableUpTo = 32768;

// Whether tensors whose sizes all passed size_ok cover [0, data_len) exactly
// (`shift`: the number of low bits that are the same in every begin),
// as the walk in (begin, end, index) order would find: true only then. It
// proves it without sorting, which was over a tenth of a shuffled 300-tensor
// header's validation (the comparisons of std::sort mispredict at random):
//
//  - every end is at most data_len;
//  - of the non-empty tensors, one begins at 0 and exactly one ends at
//    data_len; every other end is the begin of another of them, a begin
//    that no other end is matched to;
//  - each empty tensor's begin is a non-empty one's begin, or data_len (and
//    with no non-empty tensor at all, data_len is 0).
//
// These hold when the walk succeeds. Conversely: the n - 1 ends matched are
// above 0, so they take the begins of every tensor but the one at 0. Each
// tensor but that one thus follows the tensor whose end is its begin, which
// begins lower: every tensor is on the one chain from the tensor at 0 to the
// one that ends at data_len, and the chain covers [0, data_len) without hole
// or overlap. An empty tensor sits where the chain passes, so the walk
// places it. False may also mean the table is not worth building; the
// caller's walk then finds the fault, if there is one.
bool tiles_exactly(const std::vector<TensorRecord>& tensors, std::uint64_t data_len, unsigned shift,
                   std::vector<std::uint64_t>& table) {
  const std::size_t n = tensors.size();
  if (n > kTilingTableUpTo) return false;
  // Begins are below their ends, which are at most data_len, itself below
  // 2^64 - 8 (the prefix is in the file): neither marker is a begin.
  constexpr std::uint64_t kFree = ~std::uint64_t{0};
  constexpr std::uint64_t kMatched = kFree - 1;  // a begin an end was matched to
  constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;
  // At least twice as many slots as tensors: most probes end at the first.
  const auto bits = static_cast<unsigned>(std::bit_width(n)) + 1;
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  table.assign(std::size_t{1} << bits, kFree);
  // The slot holding `offset`, or the free one where it would go. The bits
  // below `shift` are the same in every begin: hashed with them, offsets
  // that are multiples of 2^18 (a LoRA adapter's equal matrices) probed
  // five slots more per tensor at 100,000 tensors.
  auto home = [bits, shift](std::uint64_t offset) {
    return static_cast<std::size_t>(((offset >> shift) * kMultiplier) >> (64 - bits));
  };
  auto slot_of = [&table, &home, mask](std::uint64_t offset) {
    std::size_t slot = home(offset);
    while (table[slot] != kFree && table[slot] != offset) slot = (slot + 1) & mask;
    return slot;
  };
  auto proven = [&] {
    bool zero_seen = false;
    std::size_t non_empty = 0;
    for (const TensorRecord& t : tensors) {
      if (t.end > data_len) return false;
      if (t.begin == t.end) continue;
      // A slot per tensor, for equal begins too: an end is matched to one
      // of them only (below), so the second is never matched.
      std::size_t slot = home(t.begin);
      while (table[slot] != kFree) slot = (slot + 1) & mask;
      table[slot] = t.begin;
      zero_seen |= t.begin == 0;
      ++non_empty;
    }
    if (non_empty == 0) return data_len == 0;
    // Each empty tensor where a non-empty one begins (before any is marked).
    for (const TensorRecord& t : tensors) {
      if (t.begin == t.end && t.begin != data_len && table[slot_of(t.begin)] != t.begin) {
        return false;
      }
    }
    std::size_t ends_at_data_len = 0;
    for (const TensorRecord& t : tensors) {
      if (t.begin == t.end) continue;
      if (t.end == data_len) {
        ++ends_at_data_len;
        continue;
      }
      // A begin matched is a taken slot after, which no other end finds.
      const std::size_t slot = slot_of(t.end);
      if (table[slot] != t.end) return false;
      table[slot] = kMatched;
    }
    return zero_seen && ends_at_data_len == 1;
  };
  const bool exact = proven();
  table.clear();
  return exact;
}

}  // namespace

std::optional<Error> check_sizes_and_layout(const ScannedHeader& h, std::uint64_t header_len,
                                            std::uint64_t file_size, Scratch& scratch) {
  const std::vector<TensorRecord>& tensors = h.tensors;
  const std::size_t n = tensors.size();
  const std::uint64_t data_len = file_size - (8 + header_len);
  // One pass: every size fault comes before any layout fault, and writers
  // emit tensors in offset order, so the walk in document order runs along
  // and is used when the order turns out sorted (no sort needed then).
  const Layers& layers = detail::layers();
  LayoutWalk walk(h, header_len, file_size);
  bool walking = true;
  std::size_t i = 0;
  for (; i < n && layers.in_order_walk; ++i) {
    if (!size_ok(tensors[i])) {
      if (auto fault = size_fault(h, i, data_len)) return fault;
    }
    if (i != 0) {
      const TensorRecord& a = tensors[i - 1];
      const TensorRecord& t = tensors[i];
      if (!(a.begin < t.begin || (a.begin == t.begin && a.end <= t.end))) break;
    }
    if (walking) walking = walk.place(i);
  }
  if (i == n && layers.in_order_walk) return walk.finish();

  // Out of offset order from tensors[i] on: the rest of the sizes in a
  // loop of their own, which also finds the bits in which begins differ
  // (for walk_in_packed_order), work the sorted case above does not do.
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  for (std::size_t j = 0; j < i; ++j) {
    any |= tensors[j].begin;
    all &= tensors[j].begin;
  }
  for (; i < n; ++i) {
    const TensorRecord& t = tensors[i];
    if (!size_ok(t)) {
      if (auto fault = size_fault(h, i, data_len)) return fault;
    }
    any |= t.begin;
    all &= t.begin;
  }
  // The common case, no fault, without a sort; a fault is named by the walk
  // in sorted order below, as before.
  const std::uint64_t varying = any & ~all;
  const unsigned shift = varying == 0 ? 0 : static_cast<unsigned>(std::countr_zero(varying));
  if (layers.tiles_exactly &&
      tiles_exactly(tensors, file_size - (8 + header_len), shift, scratch.tiling_table)) {
    return std::nullopt;
  }
  if (layers.packed_walk && n >= 2) {
    LayoutWalk packed_walk(h, header_len, file_size);
    if (walk_in_packed_order(tensors, varying, all, packed_walk, scratch))
      return packed_walk.finish();
  }
  std::vector<Span> spans;
  spans.reserve(tensors.size());
  for (std::size_t k = 0; k < n; ++k) {
    spans.push_back(Span{tensors[k].begin, tensors[k].end, static_cast<std::uint32_t>(k)});
  }
  std::sort(spans.begin(), spans.end());
  LayoutWalk sorted_walk(h, header_len, file_size);
  for (const Span& s : spans) {
    if (!sorted_walk.place(s)) break;
  }
  return sorted_walk.finish();
}

}  // namespace stguard::detail
