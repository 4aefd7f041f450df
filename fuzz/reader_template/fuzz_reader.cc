// fuzz/reader_template/fuzz_reader.cc: a libFuzzer harness that runs a C or
// C++ safetensors reader in process on every input and checks it against
// stguard (docs/fuzzing.md, "Fuzzing your own reader").
//
// Copy this directory, write the adapter of reader_under_test.h for your
// reader, and build this file with your reader and stguard's parser under
// clang -fsanitize=fuzzer,address,undefined (the sanitizers then watch the
// reader's own code: an out-of-bounds read in it is a finding even where its
// verdict is right). On every input:
//   1. stguard parses the input in both profiles (strict, reference);
//   2. the reader reads it;
//   3. a divergence aborts with a line "stguard reader template: KIND: ..."
//      that libFuzzer reports as a crash, the input saved:
//        accepted-invalid   the reader accepted what both profiles reject
//                           (the line names each profile's reason);
//        rejected-valid     the reader rejected what both profiles accept
//                           (only if rejecting_valid_files_is_a_finding());
//        wrong-tensors      the reader accepted, and its tensors (names,
//                           dtypes, shapes, offsets, bytes) differ from those
//                           of a profile that accepts.
// Where the profiles disagree, accepting and rejecting are both fine, as in
// `stguard conform`; an accepting reader must then match the profile that
// accepts (strict accepts => reference accepts the same tensors).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reader_under_test.h"
#include "stguard/stguard.h"

namespace {

namespace rt = stguard_reader_template;

[[noreturn]] void finding(std::string_view kind, const std::string& what) {
  std::fprintf(stderr, "stguard reader template: %.*s: %s\n", static_cast<int>(kind.size()),
               kind.data(), what.c_str());
  std::fflush(stderr);
  std::abort();
}

stguard::Result<stguard::Header> parse_in(std::span<const std::uint8_t> file,
                                          stguard::Profile profile) {
  stguard::ParseOptions options;
  options.profile = profile;
  return stguard::parse(file, options);
}

std::string reason_of(const stguard::Result<stguard::Header>& parsed) {
  return std::string(stguard::reason_name(parsed.error().reason)) + " at byte " +
         std::to_string(parsed.error().offset);
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  }
  return text + "]";
}

// "" when the reader's tensors are stguard's (in any order), else what differs.
std::string compare_tensors(const std::vector<rt::ReaderTensor>& reported,
                            const stguard::Header& header, std::span<const std::uint8_t> file) {
  if (reported.size() != header.tensors.size()) {
    return "the reader returned " + std::to_string(reported.size()) + " tensors, stguard read " +
           std::to_string(header.tensors.size());
  }
  std::vector<const rt::ReaderTensor*> by_name;
  for (const rt::ReaderTensor& t : reported) by_name.push_back(&t);
  std::sort(by_name.begin(), by_name.end(),
            [](const rt::ReaderTensor* a, const rt::ReaderTensor* b) { return a->name < b->name; });
  for (const stguard::TensorInfo& expected : header.tensors) {
    auto found = std::lower_bound(
        by_name.begin(), by_name.end(), expected.name,
        [](const rt::ReaderTensor* t, std::string_view name) { return t->name < name; });
    if (found == by_name.end() || (*found)->name != expected.name) {
      return "missing tensor \"" + std::string(expected.name) + "\"";
    }
    const rt::ReaderTensor& got = **found;
    const std::string prefix = "tensor \"" + std::string(expected.name) + "\": ";
    if (got.dtype != stguard::dtype_name(expected.dtype)) {
      return prefix + "dtype " + got.dtype + ", stguard " +
             std::string(stguard::dtype_name(expected.dtype));
    }
    if (got.shape != expected.shape) {
      return prefix + "shape " + shape_text(got.shape) + ", stguard " + shape_text(expected.shape);
    }
    if (got.begin != expected.begin || got.end != expected.end) {
      return prefix + "data_offsets [" + std::to_string(got.begin) + "," + std::to_string(got.end) +
             "], stguard [" + std::to_string(expected.begin) + "," + std::to_string(expected.end) +
             "]";
    }
    const std::span<const std::uint8_t> bytes =
        file.subspan(header.data_offset() + expected.begin, expected.byte_size());
    if (!std::equal(got.bytes.begin(), got.bytes.end(), bytes.begin(), bytes.end())) {
      return prefix + "the reader's bytes differ from the file's";
    }
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> file(data, size);
  const stguard::Result<stguard::Header> strict = parse_in(file, stguard::Profile::kStrict);
  const stguard::Result<stguard::Header> reference = parse_in(file, stguard::Profile::kReference);
  const rt::ReaderAnswer answer = rt::read_with_reader_under_test(file);

  if (!answer.accepted) {
    if (strict && reference && rt::rejecting_valid_files_is_a_finding()) {
      finding("rejected-valid", "both profiles accept; the reader said: " + answer.error);
    }
    return 0;
  }
  if (!strict && !reference) {
    finding("accepted-invalid", "strict rejects with " + reason_of(strict) + ", reference with " +
                                    reason_of(reference));
  }
  // Strict accepts => reference accepts the same header, so the reference
  // reading is the one to match whenever either accepts.
  const stguard::Header& header = reference ? *reference : *strict;
  if (std::string difference = compare_tensors(answer.tensors, header, file); !difference.empty()) {
    finding("wrong-tensors", difference);
  }
  return 0;
}
