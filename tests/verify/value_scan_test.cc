// tests/verify/value_scan_test.cc: the value scan (verify/value_scan.h):
// every special encoding of every floating-point dtype, the word kernels
// against the reference decoding in every lane, and a stream cut at every
// offset.
#include "verify/value_scan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "stguard/dtype.h"
#include "stguard/header.h"

namespace {

using stguard::Dtype;
using stguard::TensorInfo;
using stguard::verify::classify_value;
using stguard::verify::dtype_is_scanned;
using stguard::verify::scan_words;
using stguard::verify::TensorValues;
using stguard::verify::ValueClass;
using stguard::verify::ValueScanner;

constexpr ValueClass kFinite = ValueClass::kFinite;
constexpr ValueClass kZero = ValueClass::kZero;
constexpr ValueClass kNan = ValueClass::kNan;
constexpr ValueClass kPosInf = ValueClass::kPosInf;
constexpr ValueClass kNegInf = ValueClass::kNegInf;

struct Case {
  std::uint64_t bits;
  ValueClass expected;
  const char* what;
};

void expect_table(Dtype dtype, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(classify_value(dtype, c.bits), c.expected)
        << stguard::dtype_name(dtype) << " 0x" << std::hex << c.bits << " (" << c.what << ")";
  }
}

TEST(ValueDecode, F64) {
  expect_table(Dtype::kF64, {
                                {0x0000000000000000, kZero, "+0"},
                                {0x8000000000000000, kZero, "-0"},
                                {0x0000000000000001, kFinite, "smallest denormal"},
                                {0x800FFFFFFFFFFFFF, kFinite, "largest negative denormal"},
                                {0x3FF0000000000000, kFinite, "1.0"},
                                {0x7FEFFFFFFFFFFFFF, kFinite, "largest finite"},
                                {0x7FF0000000000000, kPosInf, "+Inf"},
                                {0xFFF0000000000000, kNegInf, "-Inf"},
                                {0x7FF0000000000001, kNan, "smallest signalling NaN"},
                                {0x7FF8000000000000, kNan, "quiet NaN"},
                                {0xFFFFFFFFFFFFFFFF, kNan, "negative NaN, all ones"},
                            });
}

TEST(ValueDecode, F32) {
  expect_table(Dtype::kF32, {
                                {0x00000000, kZero, "+0"},
                                {0x80000000, kZero, "-0"},
                                {0x00000001, kFinite, "smallest denormal"},
                                {0x807FFFFF, kFinite, "negative denormal"},
                                {0x3F800000, kFinite, "1.0"},
                                {0x7F7FFFFF, kFinite, "largest finite"},
                                {0xFF7FFFFF, kFinite, "most negative finite"},
                                {0x7F800000, kPosInf, "+Inf"},
                                {0xFF800000, kNegInf, "-Inf"},
                                {0x7F800001, kNan, "signalling NaN"},
                                {0x7FC00000, kNan, "quiet NaN"},
                                {0xFFC00000, kNan, "negative quiet NaN"},
                                {0xFFFFFFFF, kNan, "all ones"},
                                // Only the low 32 bits count.
                                {0xFFFFFFFF00000000, kZero, "high half ignored"},
                            });
  // C64 is read as its F32 parts.
  EXPECT_EQ(classify_value(Dtype::kC64, 0x7F800000), kPosInf);
  EXPECT_EQ(classify_value(Dtype::kC64, 0xFFC00000), kNan);
}

TEST(ValueDecode, F16) {
  expect_table(Dtype::kF16, {
                                {0x0000, kZero, "+0"},
                                {0x8000, kZero, "-0"},
                                {0x0001, kFinite, "smallest denormal"},
                                {0x83FF, kFinite, "negative denormal"},
                                {0x3C00, kFinite, "1.0"},
                                {0x7BFF, kFinite, "65504"},
                                {0x7C00, kPosInf, "+Inf"},
                                {0xFC00, kNegInf, "-Inf"},
                                {0x7C01, kNan, "signalling NaN"},
                                {0x7E00, kNan, "quiet NaN"},
                                {0xFFFF, kNan, "all ones"},
                            });
}

TEST(ValueDecode, BF16) {
  expect_table(Dtype::kBF16, {
                                 {0x0000, kZero, "+0"},
                                 {0x8000, kZero, "-0"},
                                 {0x0001, kFinite, "smallest denormal"},
                                 {0x807F, kFinite, "negative denormal"},
                                 {0x3F80, kFinite, "1.0"},
                                 {0x7F7F, kFinite, "largest finite"},
                                 {0x7F80, kPosInf, "+Inf"},
                                 {0xFF80, kNegInf, "-Inf"},
                                 {0x7F81, kNan, "signalling NaN"},
                                 {0x7FC0, kNan, "quiet NaN"},
                                 {0xFFFF, kNan, "all ones"},
                             });
}

TEST(ValueDecode, F8E4M3) {
  expect_table(Dtype::kF8E4M3, {
                                   {0x00, kZero, "+0"},
                                   {0x80, kZero, "-0"},
                                   {0x01, kFinite, "smallest denormal 2^-9"},
                                   {0x87, kFinite, "negative denormal"},
                                   {0x78, kFinite, "256: an IEEE reading would say Inf"},
                                   {0x7E, kFinite, "448, the largest"},
                                   {0xFE, kFinite, "-448"},
                                   {0x7F, kNan, "S.1111.111"},
                                   {0xFF, kNan, "negative NaN"},
                               });
}

TEST(ValueDecode, F8E5M2) {
  expect_table(Dtype::kF8E5M2, {
                                   {0x00, kZero, "+0"},
                                   {0x80, kZero, "-0"},
                                   {0x01, kFinite, "smallest denormal"},
                                   {0x83, kFinite, "negative denormal"},
                                   {0x7B, kFinite, "57344, the largest"},
                                   {0x7C, kPosInf, "+Inf"},
                                   {0xFC, kNegInf, "-Inf"},
                                   {0x7D, kNan, "NaN"},
                                   {0x7E, kNan, "NaN"},
                                   {0x7F, kNan, "NaN"},
                                   {0xFD, kNan, "negative NaN"},
                                   {0xFF, kNan, "negative NaN"},
                               });
}

TEST(ValueDecode, F8Fnuz) {
  for (const Dtype d : {Dtype::kF8E4M3Fnuz, Dtype::kF8E5M2Fnuz}) {
    expect_table(d, {
                        {0x00, kZero, "the only zero"},
                        {0x80, kNan, "the only NaN (no -0)"},
                        {0x01, kFinite, "smallest denormal"},
                        {0x81, kFinite, "negative denormal"},
                        {0x7C, kFinite, "no Inf: an E5M2 reading would say +Inf"},
                        {0xFC, kFinite, "no -Inf"},
                        {0x7F, kFinite, "largest"},
                        {0xFF, kFinite, "most negative"},
                    });
  }
}

TEST(ValueDecode, F8E8M0) {
  expect_table(Dtype::kF8E8M0, {
                                   {0x00, kFinite, "2^-127: there is no zero"},
                                   {0x7F, kFinite, "1.0"},
                                   {0x80, kFinite, "2: no sign bit"},
                                   {0xFE, kFinite, "2^127"},
                                   {0xFF, kNan, "the only NaN"},
                               });
}

TEST(ValueDecode, F4AndF6HaveOnlyZeros) {
  expect_table(Dtype::kF4, {
                               {0x0, kZero, "+0"},
                               {0x8, kZero, "-0"},
                               {0x1, kFinite, "0.5"},
                               {0x7, kFinite, "6"},
                               {0xF, kFinite, "-6"},
                           });
  for (const Dtype d : {Dtype::kF6E2M3, Dtype::kF6E3M2}) {
    expect_table(d, {
                        {0x00, kZero, "+0"},
                        {0x20, kZero, "-0"},
                        {0x01, kFinite, "denormal"},
                        {0x1F, kFinite, "largest"},
                        {0x3F, kFinite, "most negative"},
                    });
  }
}

TEST(ValueDecode, IntegersAndBoolAreNotScanned) {
  for (const Dtype d : {Dtype::kBool, Dtype::kU8, Dtype::kI8, Dtype::kI16, Dtype::kU16, Dtype::kI32,
                        Dtype::kU32, Dtype::kI64, Dtype::kU64}) {
    EXPECT_FALSE(dtype_is_scanned(d)) << stguard::dtype_name(d);
    EXPECT_EQ(classify_value(d, 0xFFFFFFFFFFFFFFFF), kFinite);
  }
  int scanned = 0;
  for (const Dtype d : stguard::all_dtypes()) scanned += dtype_is_scanned(d) ? 1 : 0;
  EXPECT_EQ(scanned, 13);  // F64 F32 F16 BF16 C64, five F8, two F6, F4
}

// Bytes per value as the kernels lay them out in a word (F4 and F6 are
// scanned by byte).
unsigned lane_bytes(Dtype d) {
  switch (stguard::dtype_bits(d)) {
    case 64:
      return d == Dtype::kC64 ? 4 : 8;
    case 32:
      return 4;
    case 16:
      return 2;
    default:
      return 1;
  }
}

void put_le(std::vector<std::uint8_t>& out, std::size_t at, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// One value in one lane of a word of zeros, through the word kernel, against
// the reference.
void expect_kernel_agrees(Dtype d, std::uint64_t value) {
  const unsigned width = lane_bytes(d);
  const bool byte_family = stguard::dtype_bits(d) < 8;  // F4, F6: no NaN/Inf, zeros by byte
  for (unsigned lane = 0; lane < 8 / width; ++lane) {
    std::vector<std::uint8_t> word(8, 0);
    put_le(word, lane * width, value, width);
    ValueScanner::Tally tally;
    scan_words(d, word.data(), 1, &tally);
    const ValueClass c = classify_value(d, value);
    ASSERT_EQ(tally.nan, c == kNan ? 1u : 0u)
        << stguard::dtype_name(d) << " 0x" << std::hex << value << " lane " << lane;
    ASSERT_EQ(tally.pos_inf, c == kPosInf ? 1u : 0u) << stguard::dtype_name(d) << " " << value;
    ASSERT_EQ(tally.neg_inf, c == kNegInf ? 1u : 0u) << stguard::dtype_name(d) << " " << value;
    if (!byte_family && d != Dtype::kF8E8M0) {
      ASSERT_EQ(tally.nonzero, c != kZero) << stguard::dtype_name(d) << " " << value;
    }
  }
}

TEST(ValueKernel, EveryByteAndHalfWordInEveryLane) {
  for (const Dtype d :
       {Dtype::kF8E4M3, Dtype::kF8E5M2, Dtype::kF8E4M3Fnuz, Dtype::kF8E5M2Fnuz, Dtype::kF8E8M0}) {
    for (std::uint64_t v = 0; v < 256; ++v) expect_kernel_agrees(d, v);
  }
  for (const Dtype d : {Dtype::kF16, Dtype::kBF16}) {
    for (std::uint64_t v = 0; v < 65536; ++v) expect_kernel_agrees(d, v);
  }
}

TEST(ValueKernel, WideBoundariesAndRandomValuesInEveryLane) {
  std::vector<std::uint64_t> f32 = {0,          0x80000000, 1,          0x007FFFFF, 0x00800000,
                                    0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FBFFFFF, 0x7FC00000,
                                    0x7FFFFFFF, 0xFF7FFFFF, 0xFF800000, 0xFF800001, 0xFFFFFFFF};
  std::vector<std::uint64_t> f64 = {0,
                                    0x8000000000000000,
                                    1,
                                    0x7FEFFFFFFFFFFFFF,
                                    0x7FF0000000000000,
                                    0x7FF0000000000001,
                                    0x7FF8000000000000,
                                    0x7FFFFFFFFFFFFFFF,
                                    0xFFEFFFFFFFFFFFFF,
                                    0xFFF0000000000000,
                                    0xFFF0000000000001,
                                    0xFFFFFFFFFFFFFFFF};
  std::mt19937_64 rng(15);
  for (int i = 0; i < 20000; ++i) {
    f32.push_back(rng() & 0xFFFFFFFF);
    f64.push_back(rng());
  }
  for (const std::uint64_t v : f32) {
    expect_kernel_agrees(Dtype::kF32, v);
    expect_kernel_agrees(Dtype::kC64, v);
  }
  for (const std::uint64_t v : f64) expect_kernel_agrees(Dtype::kF64, v);
}

TEST(ValueKernel, ZerosOfF4AndF6ByByte) {
  ValueScanner::Tally tally;
  const std::vector<std::uint8_t> minus_zeros(8, 0x88);  // two F4 -0 per byte
  scan_words(Dtype::kF4, minus_zeros.data(), 1, &tally);
  EXPECT_FALSE(tally.nonzero);
  const std::vector<std::uint8_t> one_half = {0, 0, 0, 0x10, 0, 0, 0, 0};
  scan_words(Dtype::kF4, one_half.data(), 1, &tally);
  EXPECT_TRUE(tally.nonzero);
  ValueScanner::Tally f6;
  scan_words(Dtype::kF6E2M3, minus_zeros.data(), 1, &f6);
  EXPECT_TRUE(f6.nonzero);  // F6 packing is not fixed by the format: any set bit counts
}

// ------------------------------------------------------------ the stream ---

struct Planned {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> values;  // one per lane-sized value (F4/F6: bytes)
};

struct Built {
  std::vector<TensorInfo> tensors;
  // What each tensor's shape views (TensorInfo::shape is a view); a deque, so
  // that growing it moves no element. Names view the Planned list's.
  std::deque<std::uint64_t> dims;
  std::vector<std::uint8_t> file;  // a fake prefix+header, then the data
  std::uint64_t data_offset = 0;
};

// Tensors back to back from data offset 0, after `prefix` bytes of header.
Built build(const std::vector<Planned>& planned, std::uint64_t prefix) {
  Built b;
  b.data_offset = prefix;
  b.file.assign(prefix, 0xFF);  // header bytes that would read as NaN if scanned
  std::uint64_t at = 0;
  for (const Planned& p : planned) {
    const unsigned width = lane_bytes(p.dtype);
    TensorInfo t;
    t.name = p.name;
    t.dtype = p.dtype;
    const std::uint64_t elements = p.dtype == Dtype::kC64 ? p.values.size() / 2
                                   : stguard::dtype_bits(p.dtype) < 8
                                       ? p.values.size() * 8 / stguard::dtype_bits(p.dtype)
                                       : p.values.size();
    b.dims.push_back(elements);
    t.shape = stguard::Shape(&b.dims.back(), 1);
    t.begin = at;
    t.end = at + p.values.size() * width;
    b.file.resize(prefix + t.end);
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      put_le(b.file, prefix + at + i * width, p.values[i], width);
    }
    at = t.end;
    b.tensors.push_back(t);
  }
  return b;
}

// What the reference decoding says about each scanned tensor.
std::vector<TensorValues> reference(const std::vector<Planned>& planned) {
  std::vector<TensorValues> out;
  for (const Planned& p : planned) {
    if (!dtype_is_scanned(p.dtype)) continue;
    TensorValues r;
    r.name = p.name;
    r.dtype = p.dtype;
    bool any_nonzero = false;
    for (const std::uint64_t v : p.values) {
      const ValueClass c = classify_value(p.dtype, v);
      r.nan += c == kNan ? 1 : 0;
      r.pos_inf += c == kPosInf ? 1 : 0;
      r.neg_inf += c == kNegInf ? 1 : 0;
      any_nonzero = any_nonzero || c != kZero;
      // F4 bytes hold two values.
      if (p.dtype == Dtype::kF4)
        any_nonzero = any_nonzero || classify_value(p.dtype, v >> 4) != kZero;
    }
    r.all_zero = !p.values.empty() && !any_nonzero && p.dtype != Dtype::kF8E8M0;
    out.push_back(r);
  }
  return out;
}

void expect_same(const std::vector<TensorValues>& got, const std::vector<TensorValues>& want,
                 const std::string& how) {
  ASSERT_EQ(got.size(), want.size()) << how;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << how;
    EXPECT_EQ(got[i].nan, want[i].nan) << how << " " << got[i].name;
    EXPECT_EQ(got[i].pos_inf, want[i].pos_inf) << how << " " << got[i].name;
    EXPECT_EQ(got[i].neg_inf, want[i].neg_inf) << how << " " << got[i].name;
    EXPECT_EQ(got[i].all_zero, want[i].all_zero) << how << " " << got[i].name;
    EXPECT_TRUE(got[i].complete) << how << " " << got[i].name;
  }
}

// Odd sizes so that tensors start and end inside words, specials in the
// first, middle and last (partial) words, integer tensors in between.
std::vector<Planned> mixed_tensors() {
  return {
      {"f32", Dtype::kF32, {0x3F800000, 0x7FC00000, 0, 0xFF800000, 0x7F800000}},
      {"ints", Dtype::kI32, {0x7FC00000, 0xFF800000, 0x7F800000}},  // NaN-looking: not scanned
      {"bf16", Dtype::kBF16, {0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0xFF81}},
      {"e5m2", Dtype::kF8E5M2, {0x7C, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xFC}},
      {"zeros16", Dtype::kF16, {0x8000, 0, 0x8000}},
      {"f64", Dtype::kF64, {0xFFF8000000000000, 0x4000000000000000}},
      {"e4m3", Dtype::kF8E4M3, {0x7F, 0x7E, 0xFF}},
      {"c64", Dtype::kC64, {0x7F800000, 0x7FC00000, 0, 0x3F800000}},
      {"fnuz", Dtype::kF8E4M3Fnuz, {0x80, 0, 0x80, 0x80, 1}},
      {"e8m0", Dtype::kF8E8M0, {0, 0xFF, 0}},
      {"empty", Dtype::kF32, {}},
      {"f4_zero", Dtype::kF4, {0x88, 0x08, 0x80}},
      {"tail", Dtype::kF32, {0x7F800001}},
  };
}

TEST(ValueScanner, WholeStreamMatchesTheReference) {
  const std::vector<Planned> planned = mixed_tensors();
  const Built b = build(planned, 13);
  ValueScanner scanner(b.tensors, b.data_offset);
  scanner.feed(b.file);
  EXPECT_EQ(scanner.bytes_fed(), b.file.size());
  const std::vector<TensorValues> got = scanner.finish();
  expect_same(got, reference(planned), "one feed");
  // Spot checks against hand counts, so that the reference itself is held.
  ASSERT_EQ(got.size(), 12u);
  EXPECT_EQ(got[0].nan, 1u);  // f32
  EXPECT_EQ(got[0].pos_inf, 1u);
  EXPECT_EQ(got[0].neg_inf, 1u);
  EXPECT_EQ(got[1].nan, 1u);      // bf16, last value
  EXPECT_EQ(got[2].pos_inf, 1u);  // e5m2
  EXPECT_EQ(got[2].neg_inf, 1u);
  EXPECT_TRUE(got[3].all_zero);   // zeros16
  EXPECT_EQ(got[6].pos_inf, 1u);  // c64: two parts special
  EXPECT_EQ(got[6].nan, 1u);
  EXPECT_EQ(got[6].values, 4u);
  EXPECT_EQ(got[7].nan, 3u);  // fnuz
  EXPECT_EQ(got[8].nan, 1u);  // e8m0
  EXPECT_FALSE(got[8].all_zero);
  EXPECT_FALSE(got[9].all_zero);  // empty
  EXPECT_TRUE(got[9].complete);
  EXPECT_EQ(got[9].values, 0u);
  EXPECT_TRUE(got[10].all_zero);  // f4 -0 and +0
  EXPECT_EQ(got[11].nan, 1u);     // tail
}

TEST(ValueScanner, EverySplitPointGivesTheSameResult) {
  const std::vector<Planned> planned = mixed_tensors();
  const std::vector<TensorValues> want = reference(planned);
  for (const std::uint64_t prefix : {0u, 5u, 8u}) {
    const Built b = build(planned, prefix);
    const std::span<const std::uint8_t> all(b.file);
    for (std::size_t cut = 0; cut <= all.size(); ++cut) {
      ValueScanner scanner(b.tensors, b.data_offset);
      scanner.feed(all.first(cut));
      scanner.feed(all.subspan(cut));
      expect_same(scanner.finish(), want, "cut at " + std::to_string(cut));
    }
    // Three pieces: every pair of cuts within the first 40 bytes.
    for (std::size_t a = 0; a < 40; ++a) {
      for (std::size_t c = a; c < 40; ++c) {
        ValueScanner scanner(b.tensors, b.data_offset);
        scanner.feed(all.first(a));
        scanner.feed(all.subspan(a, c - a));
        scanner.feed(all.subspan(c));
        expect_same(scanner.finish(), want, "cuts " + std::to_string(a) + "," + std::to_string(c));
      }
    }
    ValueScanner by_byte(b.tensors, b.data_offset);
    for (std::size_t i = 0; i < all.size(); ++i) by_byte.feed(all.subspan(i, 1));
    expect_same(by_byte.finish(), want, "byte by byte");
  }
}

// Large enough for whole blocks of words: the fast pass and the exact count
// must agree wherever the special values fall.
TEST(ValueScanner, LongTensorsCountEverySpecialValue) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> f32(100003, 0x3F800000);
  std::vector<std::uint64_t> bf16(70001, 0x3F80);
  for (int i = 0; i < 300; ++i) {
    f32[rng() % f32.size()] = (rng() & 1) != 0 ? 0x7FC00000 : 0xFF800000;
    bf16[rng() % bf16.size()] = (rng() & 1) != 0 ? 0x7F80 : 0xFFC1;
  }
  const std::vector<Planned> planned = {{"f32", Dtype::kF32, f32}, {"bf16", Dtype::kBF16, bf16}};
  const Built b = build(planned, 8);
  ValueScanner scanner(b.tensors, b.data_offset);
  const std::span<const std::uint8_t> all(b.file);
  for (std::size_t at = 0; at < all.size(); at += 4093) {
    scanner.feed(all.subspan(at, std::min<std::size_t>(4093, all.size() - at)));
  }
  expect_same(scanner.finish(), reference(planned), "4093-byte chunks");
}

TEST(ValueScanner, AStreamThatEndsEarlyLeavesTensorsIncomplete) {
  const std::vector<Planned> planned = {{"a", Dtype::kF32, {0, 0}}, {"b", Dtype::kF32, {0, 0}}};
  const Built b = build(planned, 8);
  ValueScanner scanner(b.tensors, b.data_offset);
  scanner.feed(std::span(b.file).first(8 + 8 + 3));
  const std::vector<TensorValues> got = scanner.finish();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].complete);
  EXPECT_TRUE(got[0].all_zero);
  EXPECT_FALSE(got[1].complete);
  EXPECT_FALSE(got[1].all_zero);  // not all seen: not claimed
}

TEST(ValueScanner, TensorsListedOutOfOffsetOrder) {
  std::vector<Planned> planned = {{"a", Dtype::kF32, {0x7FC00000}}, {"b", Dtype::kF16, {0, 0}}};
  Built b = build(planned, 0);
  std::swap(b.tensors[0], b.tensors[1]);  // header order b, a; data order a, b
  ValueScanner scanner(b.tensors, 0);
  scanner.feed(b.file);
  const std::vector<TensorValues> got = scanner.finish();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "b");  // header order
  EXPECT_TRUE(got[0].all_zero);
  EXPECT_EQ(got[1].name, "a");
  EXPECT_EQ(got[1].nan, 1u);
}

}  // namespace
