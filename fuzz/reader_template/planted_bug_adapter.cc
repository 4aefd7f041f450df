// fuzz/reader_template/planted_bug_adapter.cc: reader_under_test.h for the
// planted-bug C reader: what a user writes for their own reader. It copies
// what the reader returns (names, dtypes, shapes, offsets and the tensor
// bytes it points at) and frees the reader's result.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "planted_bug_reader.h"
#include "reader_under_test.h"

namespace stguard_reader_template {

ReaderAnswer read_with_reader_under_test(std::span<const std::uint8_t> file) {
  ReaderAnswer answer;
  tiny_file parsed;
  const char* error = nullptr;
  if (tiny_read(file.data(), file.size(), &parsed, &error) != 0) {
    answer.error = error != nullptr ? error : "rejected";
    return answer;
  }
  answer.accepted = true;
  for (std::size_t i = 0; i < parsed.count; ++i) {
    const tiny_tensor& t = parsed.tensors[i];
    ReaderTensor tensor;
    tensor.name = t.name;
    tensor.dtype = t.dtype;
    tensor.shape.assign(t.shape, t.shape + t.rank);
    tensor.begin = t.begin;
    tensor.end = t.end;
    tensor.bytes.assign(parsed.data + t.begin, parsed.data + t.end);
    answer.tensors.push_back(std::move(tensor));
  }
  tiny_free(&parsed);
  return answer;
}

// The tiny reader supports part of the format only (see its header).
bool rejecting_valid_files_is_a_finding() { return false; }

}  // namespace stguard_reader_template
