// conformance/mutate/structured.cc: the structured generator (structured.h).
// The choices are read by ChoiceReader exactly as libFuzzer's
// FuzzedDataProvider read them when the fuzz_structured harness had this
// code, so a fuzz input still makes the same file.
#include "conformance/mutate/structured.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/mutate/choice_reader.h"
#include "conformance/mutate/format_math.h"
#include "conformance/mutate/grammar_forms.h"

namespace stguard::mutate {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
// Data buffers stay small; a declared size above this is left out of bounds.
constexpr std::uint64_t kMaxData = 4096;

void append_escaped(std::string& out, std::string_view raw, ChoiceReader& choices) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || (u < 0x80 && choices.integer_in_range<int>(0, 15) == 0)) {
      // \u00XX only for ASCII: for a byte of a multi-byte sequence it would
      // name a different character.
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
}

std::string make_name(ChoiceReader& choices, FaultPlan& plan, std::string& raw) {
  static constexpr std::string_view kPool[] = {"a",        "b", "weight", "layer.0.bias",
                                               "\xc3\xa9", "",  "x y",    "\xf0\x9f\x98\x80"};
  const int pick = choices.integer_in_range<int>(0, 10);
  if (pick < 8) {
    raw = std::string(kPool[pick]);
  } else if (pick == 8) {
    raw = "__metadata__";  // a tensor with the reserved name
    plan.both();
  } else {
    const std::string bytes = choices.string_up_to(12);
    raw.clear();
    for (char c : bytes) {
      const auto u = static_cast<unsigned char>(c);
      if (u == 0) {
        raw += '\0';  // escaped below; strict refuses U+0000 in names
        plan.strict_fault = true;
      } else {
        raw += static_cast<char>(0x20 + u % 95);
      }
    }
  }
  std::string out = "\"";
  append_escaped(out, raw, choices);
  out += '"';
  return out;
}

std::uint64_t make_dim(ChoiceReader& choices) {
  static constexpr std::uint64_t kBig[] = {0,           1ULL << 32,  1ULL << 53, 1ULL << 63,
                                           kU64Max / 2, kU64Max - 1, kU64Max};
  if (choices.integer_in_range<int>(0, 7) != 0)
    return choices.integer_in_range<std::uint64_t>(0, 9);
  return kBig[choices.integer_in_range<std::size_t>(0, std::size(kBig) - 1)];
}

std::string u64_list(const std::vector<std::uint64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(v[i]);
  }
  return out + ']';
}

// Writes the first element 0 of a u64_list as -0: the only fault of a
// tensor whose size is 0 either way. False when no element is 0.
bool negate_first_zero(std::string& list) {
  for (std::size_t i = 1; i + 1 < list.size(); ++i) {
    if (list[i] == '0' && (list[i - 1] == '[' || list[i - 1] == ',') &&
        (list[i + 1] == ',' || list[i + 1] == ']')) {
      list.insert(i, 1, '-');
      return true;
    }
  }
  return false;
}

// A form of grammar_forms.h's matrix that is not a JSON object / string.
const JsonForm& non_object_form(ChoiceReader& choices) {
  constexpr std::size_t kObjects = 2;  // the last two forms: {} and {"a":"b"}
  static_assert(kJsonForms[std::size(kJsonForms) - 1].is_object &&
                kJsonForms[std::size(kJsonForms) - kObjects].is_object &&
                !kJsonForms[std::size(kJsonForms) - kObjects - 1].is_object);
  return kJsonForms[choices.integer_in_range<std::size_t>(0, std::size(kJsonForms) - kObjects - 1)];
}
const JsonForm& non_string_form(ChoiceReader& choices) {
  static_assert(kJsonForms[0].is_string && !kJsonForms[1].is_string);  // only the first
  return kJsonForms[choices.integer_in_range<std::size_t>(1, std::size(kJsonForms) - 1)];
}

}  // namespace

StructuredFile generate_structured(std::span<const std::uint8_t> choice_bytes) {
  ChoiceReader choices(choice_bytes);
  StructuredFile out;
  FaultPlan& plan = out.plan;
  const std::span<const stguard::Dtype> dtypes = stguard::all_dtypes();

  // Tensors: names, dtypes, shapes.
  std::vector<PlannedTensor> tensors(choices.integer_in_range<std::size_t>(0, 6));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    PlannedTensor& t = tensors[i];
    t.json_name = make_name(choices, plan, t.name);
    for (std::size_t j = 0; j < i; ++j) {
      // strict: DUPLICATE_KEY; reference: the last wins, and what that does
      // to the layout depends.
      if (tensors[j].name == t.name) plan.strict_fault = plan.unknown = true;
    }
    if (choices.integer_in_range<int>(0, 31) == 0) {
      // A near-miss name, or any JSON form of the grammar walk's matrix
      // (grammar_forms.h): every one is DTYPE_INVALID in both profiles.
      static constexpr std::string_view kNearMisses[] = {"\"f32\"", "\"F31\"", "\"\"", "\"BOOL \"",
                                                         "[\"F32\"]"};
      constexpr std::size_t kChoices = std::size(kNearMisses) + std::size(kJsonForms);
      const std::size_t pick = choices.integer_in_range<std::size_t>(0, kChoices - 1);
      t.dtype_json = std::string(pick < std::size(kNearMisses)
                                     ? kNearMisses[pick]
                                     : kJsonForms[pick - std::size(kNearMisses)].text);
      plan.both();
    } else {
      t.dtype = dtypes[choices.integer_in_range<std::size_t>(0, dtypes.size() - 1)];
      t.dtype_json = "\"" + std::string(stguard::dtype_name(*t.dtype)) + "\"";
    }
    t.shape.resize(choices.integer_in_range<std::size_t>(0, 4));
    for (std::uint64_t& d : t.shape) d = make_dim(choices);
    if (t.dtype) {
      stguard::TensorInfo info;
      info.dtype = *t.dtype;
      info.shape = t.shape;
      t.bytes = expected_bytes(info);
      // A product of non-zero dims that overflows is refused by strict even
      // when a zero dim makes the size 0; reference then depends on where the
      // zero is, so only strict is predicted. (The harness predicts verdicts
      // with its own arithmetic, not the parser's sizes.h, on purpose.)
      std::uint64_t product = 1;
      for (std::uint64_t d : t.shape) {
        if (d == 0) continue;
        if (product > kU64Max / d) plan.strict_fault = true;
        product *= d;
      }
    }
  }
  // Size faults are found after parsing, on the tensors that survive: in the
  // reference profile an entry whose name comes again later is dropped first.
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].dtype || tensors[i].bytes) continue;
    plan.strict_fault = true;
    bool superseded = false;
    for (std::size_t j = i + 1; j < tensors.size(); ++j) {
      if (tensors[j].name == tensors[i].name) superseded = true;
    }
    if (!superseded) plan.reference_fault = true;
  }

  // Layout: contiguous in a chosen order, then optional edits.
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[choices.integer_in_range<std::size_t>(0, i - 1)]);
  }
  std::uint64_t cursor = 0;
  for (std::size_t i : order) {
    PlannedTensor& t = tensors[i];
    const std::uint64_t n = t.bytes.value_or(choices.integer_in_range<std::uint64_t>(0, 16));
    t.begin = cursor;
    if (n > kMaxData - cursor) {
      // Declared but not materialised: out of bounds (or overlapping).
      t.end = n > kU64Max - cursor ? kU64Max : cursor + n;
      plan.unknown = true;
    } else {
      t.end = cursor + n;
      cursor = t.end;
    }
  }
  std::uint64_t data_len = cursor;
  if (!tensors.empty() && choices.integer_in_range<int>(0, 3) == 0) {
    PlannedTensor& t = tensors[choices.integer_in_range<std::size_t>(0, tensors.size() - 1)];
    switch (choices.integer_in_range<int>(0, 4)) {
      case 0:  // shift the whole range
        t.begin += 1;
        t.end += 1;
        break;
      case 1:  // one byte short or long
        t.end += choices.boolean() ? 1 : kU64Max;
        break;
      case 2:
        std::swap(t.begin, t.end);
        break;
      case 3:  // alias another tensor's range
        t.begin = tensors[0].begin;
        t.end = tensors[0].end;
        break;
      default:
        t.begin = choices.integer<std::uint64_t>();
        t.end = choices.integer<std::uint64_t>();
        break;
    }
    plan.unknown = true;  // may still be valid (zero-size tensors, aliasing self)
  }
  if (choices.integer_in_range<int>(0, 7) == 0) {
    if (choices.boolean()) {
      ++data_len;  // trailing byte
    } else if (data_len > 0) {
      --data_len;  // last tensor out of bounds
    }
    plan.unknown = true;
  }

  // The JSON text.
  const auto ws = [&choices]() -> std::string_view {
    switch (choices.integer_in_range<int>(0, 15)) {
      case 0:
        return " ";
      case 1:
        return "\n\t";
      default:
        return "";
    }
  };
  std::string json;
  if (choices.integer_in_range<int>(0, 31) == 0) {
    json += ' ';  // strict: HEADER_BAD_START; reference skips it
    plan.strict_fault = true;
  }
  json += '{';
  bool first = true;
  const auto comma = [&]() {
    if (!first) json += ',';
    first = false;
    json += ws();
  };

  // Metadata goes first, last or between tensors.
  const bool with_metadata = choices.boolean();
  const std::size_t metadata_at = choices.integer_in_range<std::size_t>(0, tensors.size());
  const auto emit_metadata = [&]() {
    comma();
    json += "\"__metadata__\":";
    json += ws();
    if (choices.integer_in_range<int>(0, 31) == 0) {
      // A form of the grammar walk's matrix that is not an object: null is
      // refused by strict and read as absent by reference; the others (the
      // flattened pairs ["format","pt"] among them) by both.
      const JsonForm& form = non_object_form(choices);
      json += form.text;
      if (form.name == "null") {
        plan.strict_fault = true;
      } else {
        plan.both();
      }
      return;
    }
    json += '{';
    const std::size_t pairs = choices.integer_in_range<std::size_t>(0, 3);
    std::vector<std::string> keys;
    for (std::size_t p = 0; p < pairs; ++p) {
      if (p != 0) json += ',';
      std::string key;
      FaultPlan ignored;  // "__metadata__" is a fine metadata key
      json += make_name(choices, ignored, key);
      if (key.find('\0') != std::string::npos) plan.strict_fault = true;
      for (const std::string& k : keys) {
        if (k == key) plan.strict_fault = true;  // reference: last wins
      }
      keys.push_back(key);
      json += ':';
      if (choices.integer_in_range<int>(0, 31) == 0) {
        json += non_string_form(choices).text;  // a metadata value that is not a string
        plan.both();
      } else {
        std::string value = choices.string_up_to(8);
        if (choices.integer_in_range<int>(0, 7) == 0) {
          plan.unknown = true;  // raw bytes: may not be UTF-8, may hold U+0000
        } else {
          for (char& c : value) c = static_cast<char>(0x20 + static_cast<unsigned char>(c) % 95);
        }
        json += '"';
        append_escaped(json, value, choices);
        json += '"';
      }
    }
    json += '}';
  };

  for (std::size_t i = 0; i <= tensors.size(); ++i) {
    if (with_metadata && i == metadata_at) emit_metadata();
    if (i == tensors.size()) break;
    const PlannedTensor& t = tensors[i];
    comma();
    json += t.json_name;
    json += ':';
    json += ws();
    std::string shape_json = u64_list(t.shape);
    if (choices.integer_in_range<int>(0, 31) == 0 && negate_first_zero(shape_json)) {
      plan.both();  // -0 is no JSON integer a reader may take for 0
    }
    std::string fields[3] = {"\"dtype\":" + t.dtype_json, "\"shape\":" + shape_json,
                             "\"data_offsets\":" + u64_list({t.begin, t.end})};
    const int rotate = choices.integer_in_range<int>(0, 5);
    if (rotate >= 3) std::swap(fields[0], fields[1]);
    std::swap(fields[0], fields[rotate % 3]);
    json += '{';
    const int fault = choices.integer_in_range<int>(0, 47);
    int emitted = 0;
    for (int f = 0; f < 3; ++f) {
      if (fault == 0 && f == 2) {  // missing field
        plan.both();
        continue;
      }
      if (emitted++ != 0) json += ',';
      json += fields[f];
    }
    if (fault == 1) {  // unknown field: strict refuses, reference ignores
      json += ",\"extra\":[1,{\"k\":null}]";
      plan.strict_fault = true;
    } else if (fault == 2) {  // repeated field
      json += ',' + fields[0];
      plan.both();
    }
    json += '}';
  }
  json += '}';
  const std::size_t padding = choices.integer_in_range<std::size_t>(0, 7);
  json.append(padding, ' ');
  if (choices.integer_in_range<int>(0, 31) == 0) {
    json += '\n';  // strict: HEADER_BAD_PADDING; reference: whitespace
    plan.strict_fault = true;
  }

  // The file: prefix, header, data (remaining fuzz bytes, then zeros). Now
  // and then N gains 2^32, which a reader of the prefix's first four bytes
  // alone does not see.
  std::vector<std::uint8_t> file(8 + json.size() + data_len, 0);
  std::uint64_t n = json.size();
  if (choices.integer_in_range<int>(0, 63) == 0) {
    n += std::uint64_t{1} << 32;
    plan.both();  // HEADER_TOO_LARGE
  }
  for (int i = 0; i < 8; ++i) {
    file[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n & 0xff);
    n >>= 8;
  }
  std::copy(json.begin(), json.end(), file.begin() + 8);
  const std::vector<std::uint8_t> fill = choices.rest();
  std::copy_n(fill.begin(), std::min<std::size_t>(fill.size(), static_cast<std::size_t>(data_len)),
              file.begin() + 8 + static_cast<std::ptrdiff_t>(json.size()));

  out.bytes = std::move(file);
  out.header_json = std::move(json);
  out.data_len = data_len;
  out.tensors = std::move(tensors);
  return out;
}

}  // namespace stguard::mutate
