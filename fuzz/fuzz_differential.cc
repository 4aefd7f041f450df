// The header scanner against nlohmann/json as an independent JSON oracle.
// Only the directions that must hold are asserted:
//   nlohmann rejects the header's syntax  => stguard rejects (both profiles);
//     when nlohmann's complaint is "number overflow" (a number a double cannot
//     hold, e.g. 1e400, which is valid JSON) only strict is asserted: strict
//     has no place for such a number anyway, and whether the reference
//     profile takes it in an ignored field is a serde question, not syntax;
//   stguard accepts (either profile)      => nlohmann accepts, and its reading
//     of the document gives the same tensors (name, dtype, shape, offsets) and
//     metadata. Both readings let the last of repeated keys win.
// And where nlohmann rejects the syntax, stguard's reason and offset follow
// docs/reasons.md's syntax rule: HEADER_NOT_JSON at nlohmann's error,
// translated from nlohmann's position convention by nlohmann_syntax.h
// (which also lists what the rule leaves out: HEADER_NOT_UTF8, a BOM,
// strict's first byte, faults before bytes after the value's end).
// Not asserted: nlohmann accepts => stguard accepts (nlohmann skips a UTF-8
// BOM, has no nesting limit, and stguard adds the format's own rules).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_invariants.h"
#include "nlohmann_syntax.h"

namespace {

using stguard_fuzz::check;
using Json = nlohmann::json;

struct OracleTensor {
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  friend bool operator==(const OracleTensor&, const OracleTensor&) = default;
};

struct OracleHeader {
  std::map<std::string, OracleTensor> tensors;
  std::optional<std::map<std::string, std::string>> metadata;
};

// u64 array elements; nullopt if any is not an unsigned JSON integer.
std::optional<std::vector<std::uint64_t>> u64_array(const Json& j) {
  if (!j.is_array()) return std::nullopt;
  std::vector<std::uint64_t> out;
  for (const Json& e : j) {
    if (!e.is_number_unsigned()) return std::nullopt;
    out.push_back(e.get<std::uint64_t>());
  }
  return out;
}

// The dtype name from a string or, in the reference profile, {"NAME": null}.
std::optional<std::string> dtype_of(const Json& j, bool reference) {
  if (j.is_string()) return j.get<std::string>();
  if (reference && j.is_object() && j.size() == 1 && j.begin().value().is_null()) {
    return j.begin().key();
  }
  return std::nullopt;
}

std::optional<OracleTensor> tensor_of(const Json& j, bool reference) {
  const Json* dtype = nullptr;
  const Json* shape = nullptr;
  const Json* offsets = nullptr;
  if (j.is_object()) {
    if (!j.contains("dtype") || !j.contains("shape") || !j.contains("data_offsets")) {
      return std::nullopt;
    }
    if (!reference && j.size() != 3) return std::nullopt;
    dtype = &j["dtype"];
    shape = &j["shape"];
    offsets = &j["data_offsets"];
  } else if (reference && j.is_array() && j.size() == 3) {
    dtype = &j[0];
    shape = &j[1];
    offsets = &j[2];
  } else {
    return std::nullopt;
  }
  OracleTensor t;
  std::optional<std::string> name = dtype_of(*dtype, reference);
  std::optional<std::vector<std::uint64_t>> dims = u64_array(*shape);
  std::optional<std::vector<std::uint64_t>> range = u64_array(*offsets);
  if (!name || !dims || !range || range->size() != 2) return std::nullopt;
  t.dtype = std::move(*name);
  t.shape = std::move(*dims);
  t.begin = (*range)[0];
  t.end = (*range)[1];
  return t;
}

// nlohmann's reading of a header stguard accepted; nullopt where the document
// does not have the shape stguard's acceptance implies.
std::optional<OracleHeader> read_oracle(const Json& doc, bool reference) {
  if (!doc.is_object()) return std::nullopt;
  OracleHeader out;
  for (const auto& [key, value] : doc.items()) {
    if (key == "__metadata__") {
      if (reference && value.is_null()) continue;
      if (!value.is_object()) return std::nullopt;
      std::map<std::string, std::string> m;
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) return std::nullopt;
        m[k] = v.get<std::string>();
      }
      out.metadata = std::move(m);
      continue;
    }
    std::optional<OracleTensor> t = tensor_of(value, reference);
    if (!t) return std::nullopt;
    out.tensors[key] = std::move(*t);
  }
  return out;
}

void check_against_oracle(const stguard::Header& h, const Json& doc, bool reference) {
  const std::optional<OracleHeader> oracle = read_oracle(doc, reference);
  check(oracle.has_value(), "stguard accepts a header whose JSON does not have the format's shape");
  check(oracle->tensors.size() == h.tensors.size(), "nlohmann reads a different tensor count");
  for (const stguard::TensorInfo& t : h.tensors) {
    const auto it = oracle->tensors.find(std::string(t.name));
    check(it != oracle->tensors.end(), "nlohmann does not see a tensor name stguard reports");
    const OracleTensor mine{std::string(stguard::dtype_name(t.dtype)), t.shape.to_vector(), t.begin,
                            t.end};
    check(it->second == mine, "nlohmann reads a tensor differently");
  }
  check(oracle->metadata.has_value() == h.metadata.has_value(),
        "nlohmann disagrees on whether there is metadata");
  if (h.metadata) {
    std::map<std::string, std::string> mine;
    for (const auto& [k, v] : *h.metadata) mine[k] = v;
    check(mine.size() == h.metadata->size(), "stguard reports a metadata key twice");
    check(mine == *oracle->metadata, "nlohmann reads the metadata differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  const std::uint64_t n = stguard_fuzz::load_le64(data);
  if (n > size - 8) return 0;
  const char* first = reinterpret_cast<const char*>(data + 8);
  const char* last = first + n;

  Json doc;
  bool syntax_ok = true;
  bool number_overflow = false;
  try {
    doc = Json::parse(first, last);
  } catch (const Json::parse_error&) {
    syntax_ok = false;
  } catch (const Json::out_of_range&) {
    // Error 406, "number overflow": a number a double cannot hold.
    syntax_ok = false;
    number_overflow = true;
  }

  const std::span<const std::uint8_t> bytes(data, size);
  stguard::ParseOptions strict_options;
  stguard::ParseOptions reference_options;
  reference_options.profile = stguard::Profile::kReference;
  const stguard::Result<stguard::Header> strict = stguard::parse(bytes, strict_options);
  const stguard::Result<stguard::Header> reference = stguard::parse(bytes, reference_options);

  if (!syntax_ok) {
    check(!strict.has_value(), "strict accepts a header nlohmann rejects as JSON");
    if (!number_overflow) {
      check(!reference.has_value(), "reference accepts a header nlohmann rejects as JSON");
      const std::string_view text(first, static_cast<std::size_t>(n));
      for (const auto* result : {&strict, &reference}) {
        if (result->has_value()) continue;  // already reported above
        const std::string wrong = stguard_fuzz::check_syntax_reason(
            result->error(),
            result == &strict ? stguard::Profile::kStrict : stguard::Profile::kReference, text);
        check(wrong.empty(), wrong.c_str());
      }
    }
    return 0;
  }
  if (strict) check_against_oracle(*strict, doc, false);
  if (reference) check_against_oracle(*reference, doc, true);
  return 0;
}
