// conformance/writers/spec.cc: reading writer specs and writing them with
// stguard's canonical writer (spec.h).
#include "conformance/writers/spec.h"

#include <span>
#include <vector>

#include "base/hex.h"
#include "base/json.h"
#include "stguard/dtype.h"
#include "stguard/writer.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) noexcept {
  const std::size_t at = kBase64Alphabet.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// One tensor of a spec, read into `out`; fails saying where and why.
base::Result<void> read_tensor(const Json& entry, const std::string& where, SpecTensor& out) {
  if (!entry.is_object()) return base::fail(where + ": must be an object");
  for (const auto& [key, value] : entry.items()) {
    if (key != "name" && key != "dtype" && key != "shape" && key != "data_hex" &&
        key != "data_base64") {
      return base::fail(where + ": unknown member \"" + key + "\"");
    }
  }
  if (!entry.contains("name") || !entry["name"].is_string()) {
    return base::fail(where + ".name: must be a string");
  }
  out.name = entry["name"].get<std::string>();
  if (!entry.contains("dtype") || !entry["dtype"].is_string()) {
    return base::fail(where + ".dtype: must be a string");
  }
  out.dtype = entry["dtype"].get<std::string>();
  if (!entry.contains("shape") || !entry["shape"].is_array()) {
    return base::fail(where + ".shape: must be an array");
  }
  for (std::size_t i = 0; i < entry["shape"].size(); ++i) {
    const Json& dim = entry["shape"][i];
    if (!dim.is_number_unsigned()) {
      return base::fail(where + ".shape[" + std::to_string(i) +
                        "]: must be an integer from 0 to 2^64-1");
    }
    out.shape.push_back(dim.get<std::uint64_t>());
  }
  const bool has_hex = entry.contains("data_hex");
  const bool has_base64 = entry.contains("data_base64");
  if (has_hex == has_base64) {
    return base::fail(where + ": needs exactly one of \"data_hex\" and \"data_base64\"");
  }
  const Json& data = has_hex ? entry["data_hex"] : entry["data_base64"];
  const std::string field = where + (has_hex ? ".data_hex" : ".data_base64");
  if (!data.is_string()) return base::fail(field + ": must be a string");
  const std::string& text = data.get_ref<const std::string&>();
  if (has_hex) {
    out.data.resize(text.size() / 2);
    if (text.size() % 2 != 0 || !base::from_hex(text, out.data)) {
      return base::fail(field + ": must be an even number of hex digits");
    }
  } else {
    std::optional<std::vector<std::uint8_t>> bytes = from_base64(text);
    if (!bytes) return base::fail(field + ": must be base64 (RFC 4648, padded)");
    out.data = std::move(*bytes);
  }
  return {};
}

}  // namespace

base::Result<WriterSpec> parse_writer_spec(std::string_view text) {
  // nlohmann's document keeps one of two equal keys silently
  // ({"name":"a","name":"b"} wrote "b"): a spec that repeats a key would say
  // one thing and be written as another.
  if (const std::string duplicate = base::first_duplicate_key(text); !duplicate.empty()) {
    return base::fail(duplicate);
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5:
    // syntax error ..." -> the part after the location, and the byte
    // (nlohmann counts the bytes read, the offending one included).
    std::string what = e.what();
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return base::fail("not JSON at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": " +
                      what);
  }
  if (!doc.is_object()) {
    return base::fail("must be a JSON object");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "tensors" && key != "metadata") {
      return base::fail("unknown member \"" + key + "\"");
    }
  }
  WriterSpec spec;
  if (!doc.contains("tensors") || !doc["tensors"].is_array()) {
    return base::fail("tensors: must be an array");
  }
  spec.tensors.reserve(doc["tensors"].size());
  for (std::size_t i = 0; i < doc["tensors"].size(); ++i) {
    SpecTensor tensor;
    if (base::Result<void> read =
            read_tensor(doc["tensors"][i], "tensors[" + std::to_string(i) + "]", tensor);
        !read) {
      return read.error();
    }
    spec.tensors.push_back(std::move(tensor));
  }
  if (doc.contains("metadata")) {
    if (!doc["metadata"].is_object()) {
      return base::fail("metadata: must be an object");
    }
    spec.metadata.emplace();
    for (const auto& [key, value] : doc["metadata"].items())
      spec.metadata->emplace_back(key, value);
  }
  return spec;
}

Result<std::vector<std::uint8_t>> write_spec(const WriterSpec& spec) {
  std::vector<TensorToWrite> tensors;
  tensors.reserve(spec.tensors.size());
  for (const SpecTensor& t : spec.tensors) {
    const std::optional<Dtype> dtype = dtype_from_name(t.dtype);
    if (!dtype) {
      return Error{Reason::kDtypeInvalid, 0,
                   "tensor \"" + t.name + "\": \"" + t.dtype + "\" is not a dtype"};
    }
    tensors.push_back({t.name, *dtype, t.shape, std::span<const std::uint8_t>(t.data)});
  }
  MetadataPairs metadata;
  if (spec.metadata) {
    for (const auto& [key, value] : *spec.metadata) {
      if (!value.is_string()) {
        return Error{
            Reason::kMetadataInvalid, 0,
            "metadata \"" + key + "\": the value is " + value.type_name() + ", not a string"};
      }
      metadata.emplace_back(key, value.get<std::string>());
    }
  }
  return write_safetensors(tensors, metadata);
}

std::string to_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t chunk = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left > 1)
      chunk |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (left > 2) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64Alphabet[(chunk >> 18) & 63];
    out += kBase64Alphabet[(chunk >> 12) & 63];
    out += left > 1 ? kBase64Alphabet[(chunk >> 6) & 63] : '=';
    out += left > 2 ? kBase64Alphabet[chunk & 63] : '=';
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> from_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const std::size_t pad = !last ? 0 : text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int v = k >= 4 - pad ? 0 : base64_value(text[i + k]);
      if (v < 0) return std::nullopt;
      chunk = (chunk << 6) | static_cast<std::uint32_t>(v);
    }
    out.push_back(static_cast<std::uint8_t>(chunk >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(chunk >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(chunk));
  }
  return out;
}

}  // namespace stguard::conformance
