// verify/value_scan.cc: the word kernels per dtype family, and the scanner
// that cuts a stream of file bytes into the tensors' words.
#include "verify/value_scan.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace stguard::verify {
namespace {

// How a dtype's special values are recognised in a 64-bit word.
enum class Family : std::uint8_t {
  kNotScanned,
  // Sign bit on top, then magnitude: a value is NaN or Inf when its magnitude
  // (the lane without its sign bit) is at least `special_at`, NaN when at
  // least `nan_at` (so Inf when special_at <= magnitude < nan_at).
  kMagnitude,
  // NaN is one exact byte (`pattern`); there is no Inf.
  kNanByte,
  // No NaN or Inf; only zeros matter.
  kZeroOnly,
};

struct Kernel {
  Family family = Family::kNotScanned;
  unsigned lane_bits = 8;
  std::uint64_t special_at = 0;  // kMagnitude
  std::uint64_t nan_at = 0;      // kMagnitude
  std::uint8_t pattern = 0;      // kNanByte: the NaN byte
  // The bits of a word that make a value non-zero, per byte (kNanByte,
  // kZeroOnly); kMagnitude uses the magnitude.
  std::uint8_t nonzero_bits = 0xFF;
  bool can_be_zero = true;  // F8_E8M0 has no zero
};

Kernel magnitude(unsigned lane_bits, std::uint64_t special_at, std::uint64_t nan_at) {
  Kernel k;
  k.family = Family::kMagnitude;
  k.lane_bits = lane_bits;
  k.special_at = special_at;
  k.nan_at = nan_at;
  return k;
}

Kernel nan_byte(std::uint8_t pattern, bool can_be_zero) {
  Kernel k;
  k.family = Family::kNanByte;
  k.pattern = pattern;
  k.can_be_zero = can_be_zero;
  return k;
}

Kernel zero_only(std::uint8_t nonzero_bits) {
  Kernel k;
  k.family = Family::kZeroOnly;
  k.nonzero_bits = nonzero_bits;
  return k;
}

// The encodings, one line per dtype (the table in docs/cli.md).
Kernel kernel_for(Dtype dtype) noexcept {
  switch (dtype) {
    case Dtype::kF64:
      return magnitude(64, 0x7FF0000000000000, 0x7FF0000000000001);
    case Dtype::kF32:
    case Dtype::kC64:  // two F32 parts
      return magnitude(32, 0x7F800000, 0x7F800001);
    case Dtype::kF16:
      return magnitude(16, 0x7C00, 0x7C01);
    case Dtype::kBF16:
      return magnitude(16, 0x7F80, 0x7F81);
    case Dtype::kF8E5M2:  // S.11111.00 Inf, S.11111.xx NaN
      return magnitude(8, 0x7C, 0x7D);
    case Dtype::kF8E4M3:  // OCP "FN": S.1111.111 NaN, no Inf
      return magnitude(8, 0x7F, 0x7F);
    case Dtype::kF8E4M3Fnuz:  // 0x80 (the would-be -0) is the one NaN
    case Dtype::kF8E5M2Fnuz:
      return nan_byte(0x80, true);
    case Dtype::kF8E8M0:  // 2^(e-127): no sign, no zero; 0xFF NaN
      return nan_byte(0xFF, false);
    case Dtype::kF4:  // E2M1, two per byte: S.EE.M in each nibble
      return zero_only(0x77);
    case Dtype::kF6E2M3:
    case Dtype::kF6E3M2:
      // Four values in three bytes, in an order the format does not fix, so
      // the sign bits cannot be masked off: only bytes of all zeros count as
      // zero (a tensor of -0 is not reported as all zero).
      return zero_only(0xFF);
    case Dtype::kBool:
    case Dtype::kU8:
    case Dtype::kI8:
    case Dtype::kI16:
    case Dtype::kU16:
    case Dtype::kI32:
    case Dtype::kU32:
    case Dtype::kI64:
    case Dtype::kU64:
      return Kernel{};
  }
  return Kernel{};
}

// `value` repeated in every lane of `lane_bits` bits.
constexpr std::uint64_t in_every_lane(std::uint64_t value, unsigned lane_bits) noexcept {
  if (lane_bits == 64) return value;
  const std::uint64_t lanes_one = ~std::uint64_t{0} / ((std::uint64_t{1} << lane_bits) - 1);
  return value * lanes_one;
}

// The file is little-endian; on a big-endian host the word is swapped so
// that lanes hold the same values either way.
inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline std::uint64_t count(std::uint64_t mask) noexcept {
  return static_cast<std::uint64_t>(std::popcount(mask));
}

// Words per block: the fast pass decides for a whole block at once whether
// it holds any NaN or Inf. Small enough that the exact pass, when needed,
// re-reads the block from L1.
constexpr std::size_t kBlockWords = 64;

// Magnitude family. Adding (top - threshold) to a magnitude (< top) sets the
// lane's top bit exactly when magnitude >= threshold, and cannot carry into
// the next lane: the per-lane compare without a branch.
void scan_magnitude(const Kernel& k, const std::uint8_t* p, std::size_t words,
                    ValueScanner::Tally* tally) noexcept {
  const std::uint64_t top = in_every_lane(std::uint64_t{1} << (k.lane_bits - 1), k.lane_bits);
  const std::uint64_t magnitude_bits = ~top;
  const std::uint64_t special_bias =
      in_every_lane((std::uint64_t{1} << (k.lane_bits - 1)) - k.special_at, k.lane_bits);
  const std::uint64_t nan_bias =
      in_every_lane((std::uint64_t{1} << (k.lane_bits - 1)) - k.nan_at, k.lane_bits);
  std::uint64_t nonzero = 0;
  for (std::size_t start = 0; start < words; start += kBlockWords) {
    const std::size_t n = std::min(kBlockWords, words - start);
    const std::uint8_t* block = p + start * 8;
    std::uint64_t special = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t m = load_le64(block + i * 8) & magnitude_bits;
      special |= m + special_bias;
      nonzero |= m;
    }
    if ((special & top) == 0) continue;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t x = load_le64(block + i * 8);
      const std::uint64_t m = x & magnitude_bits;
      const std::uint64_t is_special = (m + special_bias) & top;
      const std::uint64_t is_nan = (m + nan_bias) & top;
      const std::uint64_t is_inf = is_special & ~is_nan;
      tally->nan += count(is_nan);
      tally->pos_inf += count(is_inf & ~x);
      tally->neg_inf += count(is_inf & x);
    }
  }
  tally->nonzero = tally->nonzero || nonzero != 0;
}

// Byte lanes equal to zero, marked by their top bit: (t & 0x7F) + 0x7F sets
// the top bit for any non-zero low seven bits without carrying out of the
// byte, and OR-ing t adds the top bit itself.
inline std::uint64_t zero_bytes(std::uint64_t t) noexcept {
  constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7F;
  return ~(((t & kLow7) + kLow7) | t) & ~kLow7;
}

void scan_nan_byte(const Kernel& k, const std::uint8_t* p, std::size_t words,
                   ValueScanner::Tally* tally) noexcept {
  const std::uint64_t pattern = in_every_lane(k.pattern, 8);
  const std::uint64_t nonzero_bits = in_every_lane(k.nonzero_bits, 8);
  std::uint64_t nonzero = 0;
  for (std::size_t start = 0; start < words; start += kBlockWords) {
    const std::size_t n = std::min(kBlockWords, words - start);
    const std::uint8_t* block = p + start * 8;
    std::uint64_t nan = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t x = load_le64(block + i * 8);
      nan |= zero_bytes(x ^ pattern);
      nonzero |= x & nonzero_bits;
    }
    if (nan == 0) continue;
    for (std::size_t i = 0; i < n; ++i) {
      tally->nan += count(zero_bytes(load_le64(block + i * 8) ^ pattern));
    }
  }
  tally->nonzero = tally->nonzero || nonzero != 0;
}

void scan_zero_only(const Kernel& k, const std::uint8_t* p, std::size_t words,
                    ValueScanner::Tally* tally) noexcept {
  const std::uint64_t nonzero_bits = in_every_lane(k.nonzero_bits, 8);
  std::uint64_t nonzero = 0;
  for (std::size_t i = 0; i < words; ++i) nonzero |= load_le64(p + i * 8) & nonzero_bits;
  tally->nonzero = tally->nonzero || nonzero != 0;
}

std::uint64_t element_count(const TensorInfo& t) noexcept {
  std::uint64_t n = 1;
  for (const std::uint64_t d : t.shape) {
    // The parser has checked that the product fits; saturate all the same.
    if (__builtin_mul_overflow(n, d, &n)) return ~std::uint64_t{0};
  }
  return n;
}

}  // namespace

bool dtype_is_scanned(Dtype dtype) noexcept {
  return kernel_for(dtype).family != Family::kNotScanned;
}

ValueClass classify_value(Dtype dtype, std::uint64_t bits) noexcept {
  const Kernel k = kernel_for(dtype);
  switch (k.family) {
    case Family::kNotScanned:
      return ValueClass::kFinite;
    case Family::kMagnitude: {
      const std::uint64_t lane_mask =
          k.lane_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k.lane_bits) - 1;
      const std::uint64_t sign = std::uint64_t{1} << (k.lane_bits - 1);
      const std::uint64_t v = bits & lane_mask;
      const std::uint64_t m = v & ~sign;
      if (m >= k.nan_at) return ValueClass::kNan;
      if (m >= k.special_at) return (v & sign) != 0 ? ValueClass::kNegInf : ValueClass::kPosInf;
      return m == 0 ? ValueClass::kZero : ValueClass::kFinite;
    }
    case Family::kNanByte: {
      const auto v = static_cast<std::uint8_t>(bits);
      if (v == k.pattern) return ValueClass::kNan;
      return k.can_be_zero && v == 0 ? ValueClass::kZero : ValueClass::kFinite;
    }
    case Family::kZeroOnly:
      if (dtype == Dtype::kF4) return (bits & 0x7) == 0 ? ValueClass::kZero : ValueClass::kFinite;
      // One F6 value on its own: S.EEMMM or S.EEEMM, the sign on top.
      return (bits & 0x1F) == 0 ? ValueClass::kZero : ValueClass::kFinite;
  }
  return ValueClass::kFinite;
}

void scan_words(Dtype dtype, const std::uint8_t* bytes, std::size_t words,
                ValueScanner::Tally* tally) noexcept {
  const Kernel k = kernel_for(dtype);
  switch (k.family) {
    case Family::kNotScanned:
      return;
    case Family::kMagnitude:
      scan_magnitude(k, bytes, words, tally);
      return;
    case Family::kNanByte:
      scan_nan_byte(k, bytes, words, tally);
      return;
    case Family::kZeroOnly:
      scan_zero_only(k, bytes, words, tally);
      return;
  }
}

ValueScanner::ValueScanner(std::span<const TensorInfo> tensors, std::uint64_t data_offset)
    : skip_(data_offset) {
  for (const TensorInfo& t : tensors) {
    if (!dtype_is_scanned(t.dtype)) continue;
    TensorValues r;
    r.name = t.name;
    r.dtype = t.dtype;
    r.bytes = t.byte_size();
    const std::uint64_t elements = element_count(t);
    r.values =
        t.dtype == Dtype::kC64 && elements <= (~std::uint64_t{0} >> 1) ? elements * 2 : elements;
    if (t.byte_size() == 0) {
      r.complete = true;  // nothing to read
    } else {
      segments_.push_back(Segment{t.begin, t.end, results_.size()});
    }
    results_.push_back(std::move(r));
  }
  tallies_.resize(results_.size());
  std::stable_sort(segments_.begin(), segments_.end(), [](const Segment& a, const Segment& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
}

void ValueScanner::feed(std::span<const std::uint8_t> bytes) noexcept {
  fed_ += bytes.size();
  if (skip_ != 0) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, bytes.size()));
    skip_ -= n;
    bytes = bytes.subspan(n);
  }
  while (!bytes.empty()) {
    if (next_ >= segments_.size()) {
      pos_ += bytes.size();
      return;
    }
    const Segment& s = segments_[next_];
    if (pos_ < s.begin) {  // bytes of unscanned tensors
      const auto n =
          static_cast<std::size_t>(std::min<std::uint64_t>(s.begin - pos_, bytes.size()));
      pos_ += n;
      bytes = bytes.subspan(n);
      continue;
    }
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(s.end - pos_, bytes.size()));
    scan_segment_bytes(bytes.first(n));
    pos_ += n;
    bytes = bytes.subspan(n);
    if (pos_ == s.end) close_segment();
  }
}

void ValueScanner::scan_segment_bytes(std::span<const std::uint8_t> bytes) noexcept {
  const std::size_t id = segments_[next_].result;
  const Dtype dtype = results_[id].dtype;
  Tally* tally = &tallies_[id];
  if (carry_len_ != 0) {
    const std::size_t take = std::min(sizeof carry_ - carry_len_, bytes.size());
    std::memcpy(carry_ + carry_len_, bytes.data(), take);
    carry_len_ += take;
    bytes = bytes.subspan(take);
    if (carry_len_ < sizeof carry_) return;
    scan_words(dtype, carry_, 1, tally);
    carry_len_ = 0;
  }
  const std::size_t words = bytes.size() / 8;
  scan_words(dtype, bytes.data(), words, tally);
  bytes = bytes.subspan(words * 8);
  std::memcpy(carry_, bytes.data(), bytes.size());
  carry_len_ = bytes.size();
}

void ValueScanner::close_segment() noexcept {
  const std::size_t id = segments_[next_].result;
  if (carry_len_ != 0) {
    // The tensor's last, partial word: zero bytes read as zeros in every
    // kernel, so padding adds nothing.
    std::memset(carry_ + carry_len_, 0, sizeof carry_ - carry_len_);
    scan_words(results_[id].dtype, carry_, 1, &tallies_[id]);
    carry_len_ = 0;
  }
  results_[id].complete = true;
  ++next_;
  // A tensor starting inside one already scanned cannot be read in one pass.
  while (next_ < segments_.size() && segments_[next_].begin < pos_) ++next_;
}

std::vector<TensorValues> ValueScanner::finish() {
  for (std::size_t i = 0; i < results_.size(); ++i) {
    TensorValues& r = results_[i];
    const Tally& t = tallies_[i];
    r.nan = t.nan;
    r.pos_inf = t.pos_inf;
    r.neg_inf = t.neg_inf;
    r.all_zero = r.complete && r.values != 0 && !t.nonzero && kernel_for(r.dtype).can_be_zero;
  }
  return std::move(results_);
}

}  // namespace stguard::verify
