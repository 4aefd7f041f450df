// Writer round trip: a file the strict profile accepts, rewritten canonically
// by write_safetensors with its tensors and metadata, parses back (strict) to
// the same tensors (name, dtype, shape, bytes) and metadata; offsets may move
// because the canonical order differs. Rewriting the rewritten file gives the
// same bytes again (the canonical form is a fixed point).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_invariants.h"

namespace {

using stguard_fuzz::check;

std::vector<stguard::TensorToWrite> to_write(const stguard::Header& h, const std::uint8_t* file) {
  std::vector<stguard::TensorToWrite> out;
  out.reserve(h.tensors.size());
  for (const stguard::TensorInfo& t : h.tensors) {
    const std::uint8_t* begin = file + h.data_offset() + t.begin;
    out.push_back({t.name, t.dtype, t.shape,
                   std::span<const std::uint8_t>(begin, static_cast<std::size_t>(t.byte_size()))});
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> sorted_metadata(const stguard::Header& h) {
  std::vector<std::pair<std::string, std::string>> m;
  if (h.metadata) m = *h.metadata;
  std::sort(m.begin(), m.end());
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stguard::Result<stguard::Header> original =
      stguard::parse(std::span<const std::uint8_t>(data, size));
  if (!original) return 0;

  const std::vector<stguard::TensorToWrite> tensors = to_write(*original, data);
  const stguard::MetadataPairs metadata = original->metadata.value_or(stguard::MetadataPairs{});
  const stguard::Result<std::vector<std::uint8_t>> written =
      stguard::write_safetensors(tensors, metadata);
  check(written.has_value(), "writer refuses a strict-accepted file");

  const stguard::Result<stguard::Header> back = stguard::parse(*written);
  check(back.has_value(), "strict rejects the writer's output");
  stguard_fuzz::check_accepted(*back, written->data(), written->size());
  check(back->tensors.size() == original->tensors.size(), "round trip changes the tensor count");
  // An empty metadata object and no metadata both mean "no pairs".
  check(sorted_metadata(*back) == sorted_metadata(*original), "round trip changes the metadata");

  std::vector<const stguard::TensorInfo*> a;
  std::vector<const stguard::TensorInfo*> b;
  for (const auto& t : original->tensors) a.push_back(&t);
  for (const auto& t : back->tensors) b.push_back(&t);
  const auto by_name = [](const stguard::TensorInfo* x, const stguard::TensorInfo* y) {
    return x->name < y->name;
  };
  std::sort(a.begin(), a.end(), by_name);
  std::sort(b.begin(), b.end(), by_name);
  for (std::size_t i = 0; i < a.size(); ++i) {
    check(a[i]->name == b[i]->name, "round trip changes a name");
    check(a[i]->dtype == b[i]->dtype, "round trip changes a dtype");
    check(a[i]->shape == b[i]->shape, "round trip changes a shape");
    check(a[i]->byte_size() == b[i]->byte_size(), "round trip changes a byte size");
    const std::uint8_t* x = data + original->data_offset() + a[i]->begin;
    const std::uint8_t* y = written->data() + back->data_offset() + b[i]->begin;
    check(std::equal(x, x + a[i]->byte_size(), y), "round trip changes tensor bytes");
  }

  const stguard::Result<std::vector<std::uint8_t>> rewritten = stguard::write_safetensors(
      to_write(*back, written->data()), back->metadata.value_or(stguard::MetadataPairs{}));
  check(rewritten.has_value(), "writer refuses its own output");
  check(*rewritten == *written, "canonical output is not a fixed point");
  return 0;
}
