// conformance/writers/spec.h: a writer spec, the JSON a writer under test (or
// `stguard write`) turns into a safetensors file (docs/writer-protocol.md):
//
//   {"tensors": [{"name": "w", "dtype": "F32", "shape": [2],
//                 "data_hex": "0000803f00000040"}],       // or "data_base64"
//    "metadata": {"format": "pt"}}                       // optional
//
//   std::string error;
//   std::optional<WriterSpec> spec = parse_writer_spec(text, &error);
//   Result<std::vector<std::uint8_t>> file = write_spec(*spec);  // canonical bytes
//
// parse_writer_spec() checks the spec's shape (JSON types, hex or base64
// data, shape entries that fit u64, no object repeating a key) and nothing
// about the format: a spec
// that asks for something a conforming writer must refuse (two tensors of one
// name, a dtype that does not exist, data of the wrong size, a metadata value
// that is not a string) parses, and write_spec() refuses it with a stguard
// reason. Metadata keeps the document's order; absent and {} both mean "no
// metadata" when files are compared (writers differ on writing {}).
#ifndef STGUARD_CONFORMANCE_WRITERS_SPEC_H_
#define STGUARD_CONFORMANCE_WRITERS_SPEC_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/failure.h"
#include "stguard/result.h"

namespace stguard::conformance {

struct SpecTensor {
  std::string name;
  std::string dtype;  // as the spec spells it; may name no dtype (refused)
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;
};

struct WriterSpec {
  std::vector<SpecTensor> tensors;  // in the spec's order
  // nullopt: no "metadata" member. Values are kept as JSON: one that is not
  // a string is the spec's to ask for and the writer's to refuse.
  std::optional<std::vector<std::pair<std::string, nlohmann::ordered_json>>> metadata;
};

// The spec the text holds. Fails ("tensors[2].shape[0]: must be an integer
// from 0 to 2^64-1", "tensors[0]: duplicate key \"name\"") when the text is
// not a spec.
base::Result<WriterSpec> parse_writer_spec(std::string_view text);

// The canonical file of stguard::write_safetensors (stguard/writer.h), or the
// refusal: kDtypeInvalid for an unknown dtype, kMetadataInvalid for a value
// that is not a string, and the writer's own refusals.
Result<std::vector<std::uint8_t>> write_spec(const WriterSpec& spec);

// The base64 of the spec format: RFC 4648 standard alphabet, with padding.
std::string to_base64(std::string_view bytes);
std::optional<std::vector<std::uint8_t>> from_base64(std::string_view text);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_WRITERS_SPEC_H_
