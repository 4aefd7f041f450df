// fuzz/reader_template/reader_under_test.h: the two functions a C or C++
// safetensors reader's adapter provides to be fuzzed in process against
// stguard (fuzz_reader.cc, docs/fuzzing.md "Fuzzing your own reader";
// planted_bug_adapter.cc is a complete example).
//
//   // my_reader_adapter.cc, linked with fuzz_reader.cc and your reader:
//   #include "reader_under_test.h"
//   stguard_reader_template::ReaderAnswer
//   stguard_reader_template::read_with_reader_under_test(std::span<const std::uint8_t> file) {
//     ReaderAnswer answer;
//     my_model* m = my_reader_load(file.data(), file.size());   // your reader
//     if (m == nullptr) return answer;                          // rejected
//     answer.accepted = true;
//     for (each tensor t of m) answer.tensors.push_back({t.name, t.dtype, t.shape,
//                                                        t.begin, t.end, copy of t's bytes});
//     my_reader_free(m);   // everything was copied
//     return answer;
//   }
//   bool stguard_reader_template::rejecting_valid_files_is_a_finding() { return true; }
//
// The harness calls it once per input, with the whole file in a heap buffer
// of exactly its size (an out-of-bounds read is an AddressSanitizer report),
// then compares the answer with stguard's verdicts in both profiles and with
// the tensors stguard read.
#ifndef STGUARD_FUZZ_READER_TEMPLATE_READER_UNDER_TEST_H_
#define STGUARD_FUZZ_READER_TEMPLATE_READER_UNDER_TEST_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace stguard_reader_template {

// One tensor as the reader hands it to its users.
struct ReaderTensor {
  std::string name;
  std::string dtype;  // the header's dtype name, "F32"
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the data buffer
  std::uint64_t end = 0;
  // The bytes the reader would give its user, copied (the harness compares
  // them after the reader may have freed its own memory).
  std::vector<std::uint8_t> bytes;
};

struct ReaderAnswer {
  bool accepted = false;
  std::string error;  // the reader's message on a rejection (printed on a finding)
  std::vector<ReaderTensor> tensors;
};

// Implemented by the reader's adapter. Must not keep pointers into `file`.
ReaderAnswer read_with_reader_under_test(std::span<const std::uint8_t> file);

// Whether rejecting a file that both of stguard's profiles accept counts as a
// finding. Readers that support only part of the format (no metadata, a few
// dtypes) answer false, so the campaign looks for the other divergences:
// accepting what both profiles reject, tensors other than stguard's, and
// every sanitizer report. Implemented by the adapter too.
bool rejecting_valid_files_is_a_finding();

}  // namespace stguard_reader_template

#endif  // STGUARD_FUZZ_READER_TEMPLATE_READER_UNDER_TEST_H_
