// verify/value_scan.h: counting NaN, +Inf and -Inf in a shard's floating-point
// tensors, and finding tensors that are all zeros, while the shard's bytes go
// by once (the same pass that hashes them).
//
//   stguard::verify::ValueScanner scanner(header.tensors, header.data_offset());
//   base::sha256_fd(fd, {}, nullptr, [&](std::span<const std::uint8_t> chunk) {
//     scanner.feed(chunk);  // any chunk sizes; elements may be split across chunks
//   });
//   for (const stguard::verify::TensorValues& t : scanner.finish()) {
//     if (t.nan != 0) report(t.name, t.nan);
//   }
//
// Why: a file whose header and layout are valid but whose bytes were
// corrupted (a flaky disk, a bad mirror) loads silently and gives NaNs at
// inference time; nothing else looks at the values.
//
// How each dtype's bits are read (docs/cli.md has the table): F64, F32, F16,
// BF16 and F8_E5M2 are IEEE-like (all-ones exponent: zero mantissa is Inf,
// else NaN); F8_E4M3 has no Inf and one NaN per sign (S.1111.111);
// F8_E4M3FNUZ and F8_E5M2FNUZ have one NaN, 0x80 (the would-be -0), no Inf
// and no -0; F8_E8M0 (a bare exponent) has NaN 0xFF, no Inf and no zero at
// all; C64 is scanned as its F32 real and imaginary parts; F4 and the F6
// types have no NaN or Inf, only zeros. Integer and BOOL tensors are not
// scanned. A tensor with no elements is never "all zero" (it holds no value
// to be wrong). +0 and -0 are both zero.
//
// Speed: tensors are read as 64-bit little-endian words; a block of words
// is first checked for "any NaN/Inf" and "any non-zero" with a few bit
// operations per word and no branch per element, and only a block that holds
// a NaN or Inf is counted exactly (masks and popcount, still no branch per
// element).
#ifndef STGUARD_VERIFY_VALUE_SCAN_H_
#define STGUARD_VERIFY_VALUE_SCAN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stguard/dtype.h"
#include "stguard/header.h"

namespace stguard::verify {

// True for the dtypes whose values are scanned: F64, F32, F16, BF16, C64,
// the F8, F6 and F4 types.
bool dtype_is_scanned(Dtype dtype) noexcept;

// What one value is. kFinite means finite and not zero.
enum class ValueClass : std::uint8_t { kFinite = 0, kZero = 1, kNan = 2, kPosInf = 3, kNegInf = 4 };

// The reference decoding of one value of `dtype` from its bits (the low
// dtype_bits(dtype) bits of `bits`; for C64 one F32 part). The scanner's word
// kernels are tested against it. kFinite for dtypes that are not scanned.
ValueClass classify_value(Dtype dtype, std::uint64_t bits) noexcept;

// What the scan found in one floating-point tensor.
struct TensorValues {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::uint64_t values = 0;  // values examined: elements, or twice that for C64
  std::uint64_t bytes = 0;   // the tensor's byte size
  std::uint64_t nan = 0;
  std::uint64_t pos_inf = 0;
  std::uint64_t neg_inf = 0;
  bool all_zero = false;  // every value +0 or -0 (false for an empty tensor)
  // Every byte of the tensor went by. False when the stream ended early (a
  // read error) or the tensor overlaps one before it (no parser profile
  // accepts that; the scanner does not go back).
  bool complete = false;

  bool has_nan_or_inf() const noexcept { return nan != 0 || pos_inf != 0 || neg_inf != 0; }
  bool noteworthy() const noexcept { return has_nan_or_inf() || all_zero; }
};

class ValueScanner {
 public:
  // `tensors` as the parser gives them (offsets relative to the data
  // section). The bytes fed start at file offset 0: the first `data_offset`
  // (8 + N, the prefix and header) are skipped. Pass 0 to feed the data
  // section alone.
  ValueScanner(std::span<const TensorInfo> tensors, std::uint64_t data_offset);

  // The next bytes of the file, in order.
  void feed(std::span<const std::uint8_t> bytes) noexcept;

  // Bytes fed so far, the skipped header included.
  std::uint64_t bytes_fed() const noexcept { return fed_; }

  // One entry per scanned tensor, in header order. Call once, after the last
  // feed.
  std::vector<TensorValues> finish();

  // Counts found in one part of a tensor (public for the kernel tests).
  struct Tally {
    std::uint64_t nan = 0;
    std::uint64_t pos_inf = 0;
    std::uint64_t neg_inf = 0;
    bool nonzero = false;
  };

 private:
  struct Segment {
    std::uint64_t begin = 0;  // relative to the data section
    std::uint64_t end = 0;
    std::size_t result = 0;  // index into results_
  };

  void scan_segment_bytes(std::span<const std::uint8_t> bytes) noexcept;
  void close_segment() noexcept;

  std::vector<TensorValues> results_;
  std::vector<Segment> segments_;  // non-empty tensors, by begin
  std::vector<Tally> tallies_;     // parallel to results_
  std::size_t next_ = 0;           // the segment being (or next to be) scanned
  std::uint64_t skip_ = 0;         // header bytes still to skip
  std::uint64_t fed_ = 0;
  std::uint64_t pos_ = 0;  // data-section bytes seen
  // A word split across two feeds: its first carry_len_ bytes.
  std::uint8_t carry_[8] = {};
  std::size_t carry_len_ = 0;
};

// Scans `words` 64-bit little-endian words of `dtype` (whole words; the
// caller pads a tail with zero bytes, which every kernel reads as zeros) and
// adds what it finds to *tally. The word kernel behind ValueScanner.
void scan_words(Dtype dtype, const std::uint8_t* bytes, std::size_t words,
                ValueScanner::Tally* tally) noexcept;

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_VALUE_SCAN_H_
