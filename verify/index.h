// verify/index.h: reading a shard index (*.safetensors.index.json).
//
//   stguard::Result<stguard::verify::IndexContents, stguard::verify::IndexFailure> index =
//       stguard::verify::parse_index(text);
//   if (!index) report(index.error().kind, index.error().offset, index.error().message);
//   for (const auto& [tensor, shard] : index->weight_map) ...
//
// The index is streamed through nlohmann's SAX parser rather than loaded as
// a DOM: a key repeated in any object is an error with the byte position of
// its opening quote (a DOM silently keeps the last one, hiding a weight_map
// that names a tensor twice), and only what the checks use is kept
// (weight_map and metadata.total_size), so a huge or deeply nested index
// costs no more than its weight_map. A file that is not JSON at all (a Git
// LFS pointer, an HTML or XML error page) is named as such by base::sniff.
#ifndef STGUARD_VERIFY_INDEX_H_
#define STGUARD_VERIFY_INDEX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "stguard/result.h"
#include "verify/verify.h"

namespace stguard::verify {

struct IndexContents {
  std::unordered_map<std::string, std::string> weight_map;  // tensor -> shard, as written
  std::optional<std::uint64_t> total_size;                  // metadata.total_size
};

struct IndexFailure {
  // kIndexMalformed (not JSON, or not JSON text at all), kIndexDuplicateKey,
  // or kIndexInvalid (JSON, but no weight_map object, or values of the wrong type).
  FindingKind kind = FindingKind::kIndexMalformed;
  // The byte of the index the JSON fault is at; nullopt for a file that is
  // not JSON text at all.
  std::optional<std::uint64_t> offset;
  // Complete, with the position spelled out: "duplicate key "a" in a JSON
  // object (byte 12, line 1, column 13)".
  std::string message;
};

// `text` is the whole index file. Fails with why when it is not a usable
// index (the error type carries the finding's kind and byte, which a
// base::Failure has no room for). metadata.total_size may be written as an
// exact float (123.0).
stguard::Result<IndexContents, IndexFailure> parse_index(std::string_view text);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_INDEX_H_
