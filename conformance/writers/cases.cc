// conformance/writers/cases.cc: the writer cases (cases.h). Each maker below
// adds the cases of one topic; the expected outcome is written by hand.
#include "conformance/writers/cases.h"

#include <algorithm>
#include <cstdint>

#include "base/hex.h"
#include "base/json.h"
#include "base/sha256.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

// Reproducible data bytes: a tensor's content differs from its neighbours'.
std::string data_hex(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>((i * 37 + seed * 101 + 11) & 0xff);
  }
  return base::to_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

Json tensor(std::string name, std::string_view dtype, std::vector<std::uint64_t> shape,
            std::size_t data_bytes, unsigned seed = 0) {
  Json t;
  t["name"] = std::move(name);
  t["dtype"] = dtype;
  t["shape"] = std::move(shape);
  t["data_hex"] = data_hex(data_bytes, seed);
  return t;
}

Json spec_of(std::vector<Json> tensors) {
  Json spec;
  spec["tensors"] = Json::array();
  for (Json& t : tensors) spec["tensors"].push_back(std::move(t));
  return spec;
}

Json with_metadata(Json spec, Json metadata) {
  spec["metadata"] = std::move(metadata);
  return spec;
}

class CaseList {
 public:
  void write(std::string name, std::string description, Json spec,
             std::vector<std::string> tags = {}) {
    add(std::move(name), std::move(description), std::move(spec), std::move(tags), true, "");
  }
  void refuse(std::string name, std::string reason, std::string description, Json spec,
              std::vector<std::string> tags = {}) {
    add(std::move(name), std::move(description), std::move(spec), std::move(tags), false,
        std::move(reason));
  }
  std::vector<WriterCase> take() {
    std::sort(cases_.begin(), cases_.end(),
              [](const WriterCase& a, const WriterCase& b) { return a.id < b.id; });
    return std::move(cases_);
  }

 private:
  void add(std::string name, std::string description, Json spec, std::vector<std::string> tags,
           bool expect_write, std::string reason) {
    WriterCase c;
    c.id = std::string(kWriterGroup) + "/" + name;
    c.description = std::move(description);
    c.tags = std::move(tags);
    c.expect_write = expect_write;
    c.reason = std::move(reason);
    c.spec = std::move(spec);
    cases_.push_back(std::move(c));
  }
  std::vector<WriterCase> cases_;
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Every dtype: two elements of the byte-sized ones, enough elements of the
// sub-byte ones to fill whole bytes.
void add_dtypes(CaseList& list) {
  struct Kind {
    std::string_view name;
    unsigned bits;
  };
  constexpr Kind kKinds[] = {{"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
                             {"U8", 8},      {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
                             {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
                             {"U16", 16},    {"F16", 16},        {"BF16", 16},       {"I32", 32},
                             {"U32", 32},    {"F32", 32},        {"C64", 64},        {"F64", 64},
                             {"I64", 64},    {"U64", 64}};
  unsigned seed = 1;
  for (const Kind& kind : kKinds) {
    // 4-bit: 2 elements = 1 byte; 6-bit: 4 elements = 3 bytes.
    const std::uint64_t elements = kind.bits == 6 ? 4 : 2;
    const std::size_t bytes = static_cast<std::size_t>(elements * kind.bits / 8);
    std::string name = "dtype-" + lower(kind.name);
    std::replace(name.begin(), name.end(), '_', '-');
    list.write(
        name,
        "one " + std::string(kind.name) + " tensor of " + std::to_string(elements) + " elements",
        spec_of({tensor("t", kind.name, {elements}, bytes, seed++)}),
        kind.bits < 8 ? std::vector<std::string>{"dtype", "subbyte"}
                      : std::vector<std::string>{"dtype"});
  }
  list.write(
      "dtypes-all-in-one", "one tensor of each of the 22 dtypes, given in name order",
      [&] {
        std::vector<Json> tensors;
        for (const Kind& kind : kKinds) {
          const std::uint64_t elements = kind.bits == 6 ? 4 : 2;
          tensors.push_back(tensor(lower(kind.name), kind.name, {elements},
                                   static_cast<std::size_t>(elements * kind.bits / 8), seed++));
        }
        std::sort(tensors.begin(), tensors.end(), [](const Json& a, const Json& b) {
          return a["name"].get<std::string>() < b["name"].get<std::string>();
        });
        return spec_of(std::move(tensors));
      }(),
      {"dtype", "order"});
  list.refuse("subbyte-f4-odd-count", "SUBBYTE_MISALIGNED",
              "three F4 elements are 12 bits, not whole bytes (data: 2 bytes)",
              spec_of({tensor("t", "F4", {3}, 2)}), {"subbyte"});
  list.refuse("subbyte-f6-one", "SUBBYTE_MISALIGNED",
              "one F6_E3M2 element is 6 bits, not whole bytes (data: 1 byte)",
              spec_of({tensor("t", "F6_E3M2", {1}, 1)}), {"subbyte"});
  list.write("subbyte-f4-zero", "zero F4 elements (0 bits, 0 bytes)",
             spec_of({tensor("t", "F4", {0}, 0)}), {"subbyte", "empty"});
  list.refuse("dtype-unknown", "DTYPE_INVALID", "the dtype \"F128\" does not exist",
              spec_of({tensor("t", "F128", {1}, 16)}), {"dtype"});
  list.refuse("dtype-lower-case", "DTYPE_INVALID", "dtype names are upper case: \"f32\"",
              spec_of({tensor("t", "f32", {1}, 4)}), {"dtype"});
}

void add_shapes(CaseList& list) {
  list.write("scalar-f32", "a scalar (shape []) F32: one element, 4 bytes",
             spec_of({tensor("s", "F32", {}, 4)}), {"shape", "scalar"});
  list.write("scalar-bool", "a scalar BOOL", spec_of({tensor("s", "BOOL", {}, 1)}),
             {"shape", "scalar"});
  list.write("empty-1d", "a zero-element F32 tensor, shape [0]",
             spec_of({tensor("e", "F32", {0}, 0)}), {"shape", "empty"});
  list.write("empty-3d", "a zero-element tensor of shape [2, 0, 3] between two others",
             spec_of({tensor("a", "F32", {1}, 4, 1), tensor("e", "F32", {2, 0, 3}, 0),
                      tensor("z", "F32", {1}, 4, 2)}),
             {"shape", "empty"});
  list.write("empty-only-empties", "three zero-element tensors and nothing else",
             spec_of({tensor("a", "I64", {0}, 0), tensor("b", "U8", {0, 5}, 0),
                      tensor("c", "F16", {7, 0}, 0)}),
             {"shape", "empty"});
  for (const std::size_t rank :
       {std::size_t{1}, std::size_t{8}, std::size_t{33}, std::size_t{64}}) {
    std::vector<std::uint64_t> shape(rank, 1);
    shape.front() = 2;
    list.write("rank-" + std::to_string(rank),
               "one F32 tensor of rank " + std::to_string(rank) + " (2, then 1s)",
               spec_of({tensor("r", "F32", shape, 8)}), {"shape", "rank"});
  }
  list.refuse("size-too-short", "SIZE_MISMATCH", "shape [4] F32 needs 16 bytes; the data has 15",
              spec_of({tensor("t", "F32", {4}, 15)}), {"size"});
  list.refuse("size-too-long", "SIZE_MISMATCH", "shape [4] F32 needs 16 bytes; the data has 17",
              spec_of({tensor("t", "F32", {4}, 17)}), {"size"});
  list.refuse("size-empty-with-data", "SIZE_MISMATCH", "shape [0] needs no bytes; the data has 4",
              spec_of({tensor("t", "F32", {0}, 4)}), {"size", "empty"});
  list.refuse("size-second-tensor", "SIZE_MISMATCH",
              "the first tensor is right, the second's data is 1 byte short",
              spec_of({tensor("a", "F32", {2}, 8), tensor("b", "I16", {3}, 5)}), {"size"});
  list.refuse("size-overflow", "SIZE_OVERFLOW",
              "shape [2^32, 2^32, 2^32] F32: the byte size overflows 64 bits",
              spec_of({tensor(
                  "t", "F32",
                  {std::uint64_t{1} << 32, std::uint64_t{1} << 32, std::uint64_t{1} << 32}, 0)}),
              {"size"});
}

void add_counts(CaseList& list) {
  list.write("no-tensors", "no tensors and no metadata: the header {}", spec_of({}),
             {"empty", "metadata"});
  list.write("no-tensors-empty-metadata",
             "no tensors and an empty metadata map (upstream's writer writes a header its "
             "reader rejects here)",
             with_metadata(spec_of({}), Json::object()), {"empty", "metadata"});
  list.write("no-tensors-metadata", "no tensors, metadata {\"format\": \"pt\"}",
             with_metadata(spec_of({}), Json{{"format", "pt"}}), {"empty", "metadata"});
  std::vector<Json> many;
  many.reserve(10'000);
  for (unsigned i = 0; i < 10'000; ++i) {
    std::string name = std::to_string(i);
    name.insert(0, 5 - name.size(), '0');
    many.push_back(tensor("t" + name, "U8", {1}, 1, i));
  }
  list.write("tensors-10000", "10,000 one-byte U8 tensors t00000 .. t09999",
             spec_of(std::move(many)), {"count"});
  list.write("order-reversed", "tensors given in reverse name order, mixed dtypes",
             spec_of({tensor("z", "U8", {3}, 3, 1), tensor("m", "F64", {1}, 8, 2),
                      tensor("b", "F32", {2}, 8, 3), tensor("a", "F32", {1}, 4, 4)}),
             {"order"});
  list.refuse("duplicate-name", "DUPLICATE_KEY", "two tensors named \"w\" (same dtype and shape)",
              spec_of({tensor("w", "F32", {1}, 4, 1), tensor("w", "F32", {1}, 4, 2)}),
              {"duplicate"});
  list.refuse("duplicate-name-apart", "DUPLICATE_KEY",
              "two tensors named \"w\" of different dtypes, another between them",
              spec_of({tensor("w", "F32", {1}, 4, 1), tensor("x", "U8", {1}, 1, 2),
                       tensor("w", "I64", {2}, 16, 3)}),
              {"duplicate"});
}

void add_names(CaseList& list) {
  list.write("name-quote-backslash", "a name with a quote and a backslash: a\"b\\c",
             spec_of({tensor("a\"b\\c", "U8", {1}, 1)}), {"name", "escape"});
  list.write("name-controls", "a name with U+0001, tab, newline, U+001F and U+007F",
             spec_of({tensor("x\x01\t\n\x1f\x7fy", "U8", {1}, 1)}), {"name", "escape"});
  list.write("name-u2028", "names with U+2028 and U+2029 (line and paragraph separators)",
             spec_of({tensor("a\u2028b", "U8", {1}, 1, 1), tensor("c\u2029d", "U8", {1}, 1, 2)}),
             {"name", "escape"});
  list.write(
      "name-non-bmp", "names outside the BMP: U+1F600 and U+10FFFF",
      spec_of({tensor("\U0001F600", "U8", {1}, 1, 1), tensor("z\U0010FFFF", "U8", {1}, 1, 2)}),
      {"name", "unicode"});
  list.write("name-byte-vs-utf16-order",
             "U+FF61 sorts before U+1F600 by UTF-8 bytes but after it by UTF-16 code units",
             spec_of({tensor("\U0001F600", "F32", {1}, 4, 1), tensor("\uFF61", "F32", {1}, 4, 2)}),
             {"name", "order", "unicode"});
  list.write("name-case-order", "\"B\" sorts before \"a\" by bytes",
             spec_of({tensor("a", "U8", {1}, 1, 1), tensor("B", "U8", {1}, 1, 2)}),
             {"name", "order"});
  list.write("name-long-4096", "a 4,096-byte name",
             spec_of({tensor(std::string(4096, 'n'), "U8", {1}, 1)}), {"name", "long"});
  list.write("name-long-65536", "a 65,536-byte name (strict's longest)",
             spec_of({tensor(std::string(65'536, 'n'), "U8", {1}, 1)}), {"name", "long"});
  list.write(
      "name-dots-slashes", "names like paths: model.layers.0/w and ../x",
      spec_of({tensor("model.layers.0/w", "U8", {1}, 1, 1), tensor("../x", "U8", {1}, 1, 2)}),
      {"name"});
  list.refuse("name-nul", "NAME_INVALID", "a name holding U+0000, which strict rejects",
              spec_of({tensor(std::string("a\0b", 3), "U8", {1}, 1)}), {"name", "nul"});
  list.refuse("name-metadata", "NAME_INVALID", "a tensor named \"__metadata__\"",
              spec_of({tensor("__metadata__", "U8", {1}, 1)}), {"name"});
  list.refuse(
      "name-metadata-with-metadata", "NAME_INVALID",
      "a tensor named \"__metadata__\" beside real metadata",
      with_metadata(spec_of({tensor("__metadata__", "U8", {1}, 1)}), Json{{"format", "pt"}}),
      {"name", "metadata"});
}

void add_metadata(CaseList& list) {
  const Json one = tensor("t", "F32", {1}, 4);
  list.write("metadata-format-pt", "metadata {\"format\": \"pt\"} beside one tensor",
             with_metadata(spec_of({one}), Json{{"format", "pt"}}), {"metadata"});
  list.write("metadata-empty-map", "an empty metadata map beside one tensor",
             with_metadata(spec_of({one}), Json::object()), {"metadata", "empty"});
  list.write("metadata-unsorted", "metadata keys given out of order: z, a, m",
             with_metadata(spec_of({one}), Json{{"z", "1"}, {"a", "2"}, {"m", "3"}}),
             {"metadata", "order"});
  list.write(
      "metadata-escapes", "metadata keys and values with quotes, backslashes, controls and U+2028",
      with_metadata(
          spec_of({one}),
          Json{{"q\"k", "v\\al"}, {"ctl\x01", "tab\there\nnl\x7f"}, {"sep\u2028", "\u2029"}}),
      {"metadata", "escape"});
  list.write("metadata-non-bmp", "a metadata key and value outside the BMP",
             with_metadata(spec_of({one}), Json{{"\U0001F600", "\U0010FFFF"}}),
             {"metadata", "unicode"});
  list.write("metadata-empty-strings", "an empty metadata key with an empty value",
             with_metadata(spec_of({one}), Json{{"", ""}}), {"metadata", "empty"});
  list.write("metadata-long-value", "a 100,000-byte metadata value",
             with_metadata(spec_of({one}), Json{{"blob", std::string(100'000, 'v')}}),
             {"metadata", "long"});
  list.write("metadata-json-text", "a value holding JSON text, kept as a string",
             with_metadata(spec_of({one}), Json{{"config", "{\"a\": [1, 2]}"}}), {"metadata"});
  list.refuse("metadata-number", "METADATA_INVALID", "a metadata value that is a number",
              with_metadata(spec_of({one}), Json{{"n", 1}}), {"metadata"});
  list.refuse("metadata-null", "METADATA_INVALID", "a metadata value that is null",
              with_metadata(spec_of({one}), Json{{"n", nullptr}}), {"metadata"});
  list.refuse("metadata-bool", "METADATA_INVALID", "a metadata value that is true",
              with_metadata(spec_of({one}), Json{{"b", true}}), {"metadata"});
  list.refuse("metadata-object", "METADATA_INVALID", "a metadata value that is an object",
              with_metadata(spec_of({one}), Json{{"o", Json{{"k", "v"}}}}), {"metadata"});
  list.refuse("metadata-array", "METADATA_INVALID", "a metadata value that is an array",
              with_metadata(spec_of({one}), Json{{"a", Json::array({"x"})}}), {"metadata"});
  list.refuse("metadata-key-nul", "NAME_INVALID", "a metadata key holding U+0000",
              with_metadata(spec_of({one}), Json{{std::string("k\0", 2), "v"}}),
              {"metadata", "nul"});
  list.refuse("metadata-value-nul", "METADATA_INVALID", "a metadata value holding U+0000",
              with_metadata(spec_of({one}), Json{{"k", std::string("v\0", 2)}}),
              {"metadata", "nul"});
}

}  // namespace

std::vector<WriterCase> writer_cases() {
  CaseList list;
  add_dtypes(list);
  add_shapes(list);
  add_counts(list);
  add_names(list);
  add_metadata(list);
  return list.take();
}

std::string writer_spec_text(const Json& spec) {
  std::string out = "{\"tensors\": [";
  const Json& tensors = spec["tensors"];
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    out += i == 0 ? "\n  " : ",\n  ";
    out += base::json_line(tensors[i]);
  }
  out += tensors.empty() ? "]" : "\n]";
  if (spec.contains("metadata")) out += ",\n\"metadata\": " + base::json_line(spec["metadata"]);
  out += "}\n";
  return out;
}

std::vector<std::pair<std::string, std::string>> writer_case_files() {
  std::vector<std::pair<std::string, std::string>> files;
  std::string manifest = "{\"version\": \"1\", \"cases\": [";
  bool first = true;
  for (const WriterCase& c : writer_cases()) {
    const std::string file = c.id + ".json";
    std::string text = writer_spec_text(c.spec);
    Json entry;
    entry["id"] = c.id;
    entry["file"] = file;
    entry["sha256"] = base::sha256_hex(text);
    entry["expect"] = c.expect_write ? "write" : "refuse";
    entry["reason"] = c.reason.empty() ? Json(nullptr) : Json(c.reason);
    entry["description"] = c.description;
    entry["tags"] = c.tags;
    manifest += first ? "\n  " : ",\n  ";
    first = false;
    manifest += base::json_line(entry);
    files.emplace_back(file, std::move(text));
  }
  manifest += "\n]}\n";
  files.emplace_back(std::string(kWriterGroup) + "/manifest.json", std::move(manifest));
  return files;
}

std::string writer_cases_readme() {
  std::string out;
  for (const WriterCase& c : writer_cases()) {
    out += "| `" + c.id + "` | " + (c.expect_write ? "write" : "refuse") + " | " +
           (c.reason.empty() ? "" : "`" + c.reason + "`") + " | ";
    for (const char ch : c.description) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    out += " |\n";
  }
  return out;
}

}  // namespace stguard::conformance
