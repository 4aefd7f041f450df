// conformance/mutate/structured.h: the structured generator behind the fuzz_structured
// harness and `stguard hunt`: a byte string of choices becomes a well-formed
// safetensors file (names, dtypes, shapes, field order, metadata, padding,
// a consistent length prefix and data buffer) with, now and then, chosen
// faults (duplicate names, gaps, overlaps, swapped offsets, zero and huge
// dims, sub-byte sizes, unknown/missing/repeated fields, bad dtypes,
// non-space padding, bad metadata). Most files it makes reach the size and
// layout checks that raw byte mutation rarely gets to.
//
//   std::vector<std::uint8_t> choices = random_bytes();
//   stguard::mutate::StructuredFile f = stguard::mutate::generate_structured(choices);
//   if (!f.plan.strict_fault && !f.plan.unknown) expect_accepted(f.bytes);
//
// Deterministic: the same choices make the same file. The choices are read
// by ChoiceReader (choice_reader.h) as libFuzzer's FuzzedDataProvider reads
// them (integers from the end, the remaining bytes fill the data buffer), so
// any byte string is a valid input and fuzz inputs keep making their files.
#ifndef STGUARD_CONFORMANCE_MUTATE_STRUCTURED_H_
#define STGUARD_CONFORMANCE_MUTATE_STRUCTURED_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stguard/stguard.h"

namespace stguard::mutate {

// One tensor as generated.
struct PlannedTensor {
  std::string name;       // unescaped
  std::string json_name;  // as written, quoted
  std::string dtype_json;
  std::optional<stguard::Dtype> dtype;  // nullopt: a bad dtype was written
  std::vector<std::uint64_t> shape;
  std::optional<std::uint64_t> bytes;  // nullopt: overflow or not whole bytes
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// What the generator knows about the faults it put in.
struct FaultPlan {
  bool strict_fault = false;     // strict must reject
  bool reference_fault = false;  // reference must reject too
  bool unknown = false;          // cannot tell (e.g. huge sizes, layout edits)
  void both() { strict_fault = reference_fault = true; }
};

struct StructuredFile {
  std::vector<std::uint8_t> bytes;  // the whole file: prefix, header, data
  std::string header_json;          // the header text (bytes 8 .. 8 + N)
  std::uint64_t data_len = 0;       // bytes after the header
  FaultPlan plan;
  std::vector<PlannedTensor> tensors;  // in header order
};

StructuredFile generate_structured(std::span<const std::uint8_t> choices);

}  // namespace stguard::mutate

#endif  // STGUARD_CONFORMANCE_MUTATE_STRUCTURED_H_
