#include "stguard/writer.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_set>

#include "little_endian.h"
#include "message.h"
#include "sizes.h"
#include "utf8.h"

namespace stguard {
namespace {

constexpr std::string_view kMetadataKey = "__metadata__";

Error refuse(Reason reason, std::string message) { return Error{reason, 0, std::move(message)}; }

bool is_utf8(std::string_view s) {
  return detail::find_invalid_utf8(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()) ==
         s.size();
}

// Compact JSON string: only '"', '\\' and control characters are escaped;
// other UTF-8 is written as is.
void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

// Byte size implied by dtype and shape, with the strict profile's rules
// (sizes.h), which the written file is parsed by.
Result<std::uint64_t> implied_size(const TensorToWrite& t) {
  const detail::ElementCount count = detail::count_elements(t.shape, Profile::kStrict);
  const detail::ImpliedSize size =
      detail::implied_size(count.elements(), count.overflow, dtype_bits(t.dtype));
  switch (size.fault) {
    case detail::SizeFault::kOverflow:
      return refuse(Reason::kSizeOverflow, "tensor " + detail::quoted(t.name) +
                                               ": element count x bits does not fit in 64 bits");
    case detail::SizeFault::kMisaligned:
      return refuse(Reason::kSubbyteMisaligned, "tensor " + detail::quoted(t.name) + ": " +
                                                    std::to_string(size.bits) +
                                                    " bits is not a whole number of bytes");
    case detail::SizeFault::kNone:
      break;
  }
  return size.bytes;
}

}  // namespace

Result<WrittenHeader> write_header(std::span<const TensorToWrite> tensors,
                                   const MetadataPairs& metadata, const Limits& overrides) {
  // Refuse what the strict parser would reject, before writing anything:
  // with strict's limits, as that parser would apply them.
  const ResolvedLimits limits = resolve_limits(Profile::kStrict, overrides);
  std::unordered_set<std::string_view> names;
  names.reserve(tensors.size());
  std::vector<std::uint64_t> sizes(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorToWrite& t = tensors[i];
    if (t.name == kMetadataKey) {
      return refuse(Reason::kNameInvalid, "\"__metadata__\" is reserved and cannot name a tensor");
    }
    if (!is_utf8(t.name)) return refuse(Reason::kNameInvalid, "tensor name is not valid UTF-8");
    if (t.name.find('\0') != std::string::npos) {
      return refuse(Reason::kNameInvalid,
                    "tensor name " + detail::quoted(t.name) + " contains U+0000");
    }
    if (t.name.size() > limits.max_name_bytes) {
      return refuse(Reason::kLimitExceeded, "tensor name longer than max_name_bytes");
    }
    if (t.shape.size() > limits.max_rank) {
      return refuse(Reason::kLimitExceeded,
                    "tensor " + detail::quoted(t.name) + ": rank above max_rank");
    }
    if (!names.insert(t.name).second) {
      return refuse(Reason::kDuplicateKey,
                    "tensor name " + detail::quoted(t.name) + " given twice");
    }
    Result<std::uint64_t> size = implied_size(t);
    if (!size) return std::move(size).error();
    if (*size != t.data.size()) {
      return refuse(Reason::kSizeMismatch,
                    "tensor " + detail::quoted(t.name) + ": " + std::to_string(t.data.size()) +
                        " data bytes given, dtype x shape needs " + std::to_string(*size));
    }
    sizes[i] = *size;
  }
  if (tensors.size() > limits.max_tensors) {
    return refuse(Reason::kLimitExceeded, "more tensors than max_tensors");
  }

  std::vector<std::size_t> meta_order(metadata.size());
  std::iota(meta_order.begin(), meta_order.end(), std::size_t{0});
  std::sort(meta_order.begin(), meta_order.end(),
            [&](std::size_t a, std::size_t b) { return metadata[a].first < metadata[b].first; });
  for (std::size_t k = 0; k < meta_order.size(); ++k) {
    const auto& [key, value] = metadata[meta_order[k]];
    if (k > 0 && metadata[meta_order[k - 1]].first == key) {
      return refuse(Reason::kDuplicateKey, "metadata key " + detail::quoted(key) + " given twice");
    }
    if (!is_utf8(key) || key.find('\0') != std::string::npos) {
      return refuse(Reason::kNameInvalid,
                    "metadata key " + detail::quoted(key) + " is not UTF-8 without U+0000");
    }
    if (key.size() > limits.max_name_bytes) {
      return refuse(Reason::kLimitExceeded, "metadata key longer than max_name_bytes");
    }
    if (!is_utf8(value) || value.find('\0') != std::string::npos) {
      return refuse(Reason::kMetadataInvalid,
                    "metadata value for " + detail::quoted(key) + " is not UTF-8 without U+0000");
    }
  }

  // Upstream order: larger dtypes first, then by name.
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int ra = dtype_writer_rank(tensors[a].dtype);
    const int rb = dtype_writer_rank(tensors[b].dtype);
    if (ra != rb) return ra < rb;
    return tensors[a].name < tensors[b].name;
  });

  WrittenHeader out;
  out.layout.resize(tensors.size());
  std::string json = "{";
  bool first = true;
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    for (std::size_t k = 0; k < meta_order.size(); ++k) {
      if (k > 0) json += ',';
      append_json_string(json, metadata[meta_order[k]].first);
      json += ':';
      append_json_string(json, metadata[meta_order[k]].second);
    }
    json += '}';
    first = false;
  }
  std::uint64_t offset = 0;
  for (std::size_t i : order) {
    const TensorToWrite& t = tensors[i];
    if (!first) json += ',';
    first = false;
    append_json_string(json, t.name);
    json += ":{\"dtype\":\"";
    json += dtype_name(t.dtype);
    json += "\",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      if (d > 0) json += ',';
      json += std::to_string(t.shape[d]);
    }
    json += "],\"data_offsets\":[";
    std::uint64_t end = 0;
    if (__builtin_add_overflow(offset, sizes[i], &end)) {
      return refuse(Reason::kSizeOverflow, "total data size does not fit in 64 bits");
    }
    json += std::to_string(offset);
    json += ',';
    json += std::to_string(end);
    json += "]}";
    out.layout[i] = {offset, end};
    offset = end;
  }
  json += '}';
  // Pad with spaces so the data buffer starts 8-byte aligned.
  json.append((8 - json.size() % 8) % 8, ' ');
  if (json.size() > limits.max_header_bytes) {
    return refuse(Reason::kHeaderTooLarge,
                  "header of " + std::to_string(json.size()) + " bytes exceeds max_header_bytes");
  }

  const std::uint64_t n = json.size();
  out.prefix_and_header.resize(8 + json.size());
  detail::store_le64(out.prefix_and_header.data(), n);
  std::memcpy(out.prefix_and_header.data() + 8, json.data(), json.size());
  return out;
}

Result<std::vector<std::uint8_t>> write_safetensors(std::span<const TensorToWrite> tensors,
                                                    const MetadataPairs& metadata,
                                                    const Limits& limits) {
  Result<WrittenHeader> header = write_header(tensors, metadata, limits);
  if (!header) return std::move(header).error();
  std::vector<std::uint8_t> file = std::move(header->prefix_and_header);
  std::uint64_t data_len = 0;
  for (const auto& range : header->layout) data_len = std::max(data_len, range.second);
  const std::size_t data_start = file.size();
  file.resize(data_start + static_cast<std::size_t>(data_len));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].data.empty()) {
      std::memcpy(file.data() + data_start + header->layout[i].first, tensors[i].data.data(),
                  tensors[i].data.size());
    }
  }
  return file;
}

}  // namespace stguard
