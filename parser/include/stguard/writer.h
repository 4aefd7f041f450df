// stguard/writer.h: write canonical safetensors files.
//
//   std::vector<stguard::TensorToWrite> tensors = {
//       {"a", stguard::Dtype::kF32, {2}, a_bytes},
//       {"b", stguard::Dtype::kI64, {1}, b_bytes}};
//   stguard::Result<std::vector<std::uint8_t>> file =
//       stguard::write_safetensors(tensors, {{"format", "pt"}});
//
// Canonical means: tensors in the upstream writer's order (dtype rank, see
// dtype_writer_rank, then name by bytes), contiguous offsets from 0, compact
// JSON, "__metadata__" first with keys sorted by bytes, header padded with
// spaces to a multiple of 8. The output is reproducible byte for byte and is
// accepted by the strict profile.
//
// The writer refuses what the strict parser would reject: kDuplicateKey (two
// tensors or two metadata keys with one name), kNameInvalid (the name
// "__metadata__", U+0000 in a name or key, a name that is not UTF-8),
// kMetadataInvalid (U+0000 or invalid UTF-8 in a value), kSizeOverflow,
// kSubbyteMisaligned, kSizeMismatch (data size differs from dtype x shape),
// kHeaderTooLarge. Error offsets are 0 (there is no file yet); the message
// names the tensor or key.
#ifndef STGUARD_WRITER_H_
#define STGUARD_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "stguard/dtype.h"
#include "stguard/header.h"
#include "stguard/result.h"

namespace stguard {

struct TensorToWrite {
  std::string name;
  Dtype dtype = Dtype::kU8;
  std::vector<std::uint64_t> shape;
  std::span<const std::uint8_t> data;  // exactly the tensor's byte size
};

using MetadataPairs = std::vector<std::pair<std::string, std::string>>;

// The whole file in memory. `limits` are resolved against the strict
// profile (resolve_limits(Profile::kStrict, limits)): the writer refuses what
// the strict parser would reject, so only what strict accepts is written.
Result<std::vector<std::uint8_t>> write_safetensors(std::span<const TensorToWrite> tensors,
                                                    const MetadataPairs& metadata = {},
                                                    const Limits& limits = {});

// Only the 8-byte prefix plus the padded header; the data follows in the
// returned order (offsets in `layout`, same order as `tensors`).
struct WrittenHeader {
  std::vector<std::uint8_t> prefix_and_header;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> layout;  // [begin, end) per input tensor
};
Result<WrittenHeader> write_header(std::span<const TensorToWrite> tensors,
                                   const MetadataPairs& metadata = {}, const Limits& limits = {});

}  // namespace stguard

#endif  // STGUARD_WRITER_H_
