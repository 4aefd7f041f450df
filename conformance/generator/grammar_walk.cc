// generator/grammar_walk.cc: the generated group `grammar` (grammar_walk.h).
#include "conformance/generator/grammar_walk.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conformance/mutate/grammar_forms.h"

namespace stguard::conformance {
namespace {

using mutate::JsonForm;

// The valid file every case starts from, in parts a case replaces.
constexpr std::string_view kMetaValue = R"({"format":"pt"})";
constexpr std::string_view kDtype = R"("U8")";
constexpr std::string_view kShape = "[2]";
constexpr std::string_view kOffsets = "[0,2]";
constexpr std::string_view kData = "hex 01 02";
constexpr std::uint64_t kHeaderLimit = 100'000'000;

struct Header {
  std::string metadata = std::string(kMetaValue);  // the value of __metadata__; "" leaves it out
  std::string entry;                               // the value of "t"; "" builds it from below
  std::string dtype = std::string(kDtype);
  std::string shape = std::string(kShape);
  std::string offsets = std::string(kOffsets);

  std::string text() const {
    std::string out = "{";
    if (!metadata.empty()) out += R"("__metadata__":)" + metadata + ",";
    out += R"("t":)";
    out += entry.empty() ? R"({"dtype":)" + dtype + R"(,"shape":)" + shape + R"(,"data_offsets":)" +
                               offsets + "}"
                         : entry;
    return out + "}";
  }
};

// One case of the walk, as recipe lines.
struct WalkCase {
  WalkCase(std::string name_, std::string description_, std::string rules_, std::string strict_,
           std::string reference_, std::string header_, std::string data_ = std::string(kData),
           std::vector<std::string> extra_ = {})
      : name(std::move(name_)),
        description(std::move(description_)),
        rules(std::move(rules_)),
        strict(std::move(strict_)),
        reference(std::move(reference_)),
        header(std::move(header_)),
        data(std::move(data_)),
        extra(std::move(extra_)) {}

  std::string name;
  std::string description;
  std::string rules;               // "ST-DTYPE-1" or "ST-NUM-2, ST-SHAPE-2"
  std::string strict;              // "accept" or "reject REASON"
  std::string reference;           // the same, for the reference profile
  std::string header;              // raw header text
  std::string data;                // the data: line ("" for none)
  std::vector<std::string> extra;  // more lines: tensor:, meta:, length:, pad-to:, ...
};

std::string reject(std::string_view reason) { return "reject " + std::string(reason); }

// Appends `c` in the recipe format, with the repair back to the base file
// for a case some profile rejects.
void emit(std::string& out, const WalkCase& c) {
  out += "\ncase: " + c.name + "\n";
  out += "description: " + c.description + "\n";
  out += "rules: " + c.rules + "\n";
  const bool contested = (c.strict == "accept") != (c.reference == "accept");
  out += contested ? "tags: grammar-walk, contested\n" : "tags: grammar-walk\n";
  out += "strict: " + c.strict + "\n";
  out += "reference: " + c.reference + "\n";
  out += "header: " + c.header + "\n";
  for (const std::string& line : c.extra) out += line + "\n";
  if (!c.data.empty()) out += "data: " + c.data + "\n";
  if (c.strict != "accept" || c.reference != "accept") {
    out += "repair: header: " + Header{}.text() + "\n";
    if (c.data != kData) out += "repair: data: " + std::string(kData) + "\n";
    for (const std::string& line : c.extra) {
      const std::string key = line.substr(0, line.find(':'));
      if (key != "tensor" && key != "meta" && key != "tensors" && key != "metadata") {
        out += "repair: drop " + key + "\n";
      }
    }
  }
}

// What an accepting reader reports of the base tensor, and of the metadata.
const std::string kBaseTensor = R"(tensor: "t" U8 [2] 0 2)";
const std::string kBaseMeta = R"(meta: "format" "pt")";

std::string in_position(std::string_view what, const JsonForm& form) {
  return std::string(what) + " given as " + std::string(form.text) + " (" + std::string(form.name) +
         ")";
}

void walk_types(std::string& out) {
  for (const JsonForm& form : mutate::kJsonForms) {
    const std::string text(form.text);
    const std::string name(form.name);
    const bool integer = name == "integer";
    const bool fraction = name == "fraction";

    {  // dtype
      Header h;
      h.dtype = text;
      emit(out, WalkCase{"dtype-" + name, in_position("dtype", form),
                         form.is_string ? "ST-DTYPE-2" : "ST-DTYPE-1", reject("DTYPE_INVALID"),
                         reject("DTYPE_INVALID"), h.text()});
    }
    {  // shape: [] is a scalar, valid once the range holds one byte
      Header h;
      h.shape = text;
      if (name == "empty-array") {
        h.offsets = "[0,1]";
        emit(out, WalkCase{"shape-" + name,
                           "shape [] (a scalar, one element) over one byte",
                           "ST-SHAPE-1, ST-SHAPE-2",
                           "accept",
                           "accept",
                           h.text(),
                           "hex 01",
                           {R"(tensor: "t" U8 [] 0 1)", kBaseMeta}});
      } else {
        emit(out, WalkCase{"shape-" + name, in_position("shape", form), "ST-SHAPE-1",
                           reject("SHAPE_INVALID"), reject("SHAPE_INVALID"), h.text()});
      }
    }
    if (!integer) {  // a shape element (an integer is the valid case)
      Header h;
      h.shape = "[" + text + "]";
      emit(out, WalkCase{"shape-element-" + name, in_position("the shape element", form),
                         fraction ? "ST-NUM-1" : "ST-SHAPE-1", reject("SHAPE_INVALID"),
                         reject("SHAPE_INVALID"), h.text()});
    }
    {  // data_offsets
      Header h;
      h.offsets = text;
      emit(out, WalkCase{"data-offsets-" + name, in_position("data_offsets", form), "ST-OFF-1",
                         reject("OFFSETS_INVALID"), reject("OFFSETS_INVALID"), h.text()});
    }
    if (!integer) {  // begin and end
      Header begin;
      begin.offsets = "[" + text + ",2]";
      emit(out, WalkCase{"begin-" + name, in_position("the begin offset", form),
                         fraction ? "ST-NUM-1" : "ST-OFF-1", reject("OFFSETS_INVALID"),
                         reject("OFFSETS_INVALID"), begin.text()});
      Header end;
      end.offsets = "[0," + text + "]";
      emit(out,
           {"end-" + name, in_position("the end offset", form), fraction ? "ST-NUM-1" : "ST-OFF-1",
            reject("OFFSETS_INVALID"), reject("OFFSETS_INVALID"), end.text()});
    }
    {  // the entry: {} lacks every field, {"a":"b"} too (and has another)
      Header h;
      h.entry = text;
      // Upstream reads an array entry element by element as [dtype, shape,
      // data_offsets]: "format" fails as a dtype before the length counts.
      const bool read_as_array_form = name == "array-of-strings";
      emit(out,
           WalkCase{"entry-" + name, in_position("the tensor entry", form),
                    form.is_object ? "ST-ENT-2" : "ST-ENT-1", reject("TENSOR_INVALID"),
                    reject(read_as_array_form ? "DTYPE_INVALID" : "TENSOR_INVALID"), h.text()});
    }
    {  // __metadata__: objects are valid; null is absent to upstream
      Header h;
      h.metadata = text;
      if (name == "empty-object") {
        emit(out, WalkCase{"metadata-" + name,
                           "__metadata__ {}: present and empty",
                           "ST-META-1",
                           "accept",
                           "accept",
                           h.text(),
                           std::string(kData),
                           {kBaseTensor, "metadata: empty"}});
      } else if (name == "object") {
        emit(out, WalkCase{"metadata-" + name,
                           R"(__metadata__ {"a":"b"})",
                           "ST-META-1, ST-META-2",
                           "accept",
                           "accept",
                           h.text(),
                           std::string(kData),
                           {kBaseTensor, R"(meta: "a" "b")"}});
      } else if (name == "null") {
        emit(out, WalkCase{"metadata-" + name,
                           "__metadata__ null: strict rejects, upstream reads none",
                           "ST-META-1",
                           reject("METADATA_INVALID"),
                           "accept",
                           h.text(),
                           std::string(kData),
                           {kBaseTensor}});
      } else {
        emit(out, WalkCase{"metadata-" + name, in_position("__metadata__", form), "ST-META-1",
                           reject("METADATA_INVALID"), reject("METADATA_INVALID"), h.text()});
      }
    }
    {  // a metadata value
      Header h;
      h.metadata = R"({"format":)" + text + "}";
      if (form.is_string) {
        emit(out, WalkCase{"metadata-value-" + name,
                           R"(the metadata value "x")",
                           "ST-META-2",
                           "accept",
                           "accept",
                           h.text(),
                           std::string(kData),
                           {kBaseTensor, R"(meta: "format" "x")"}});
      } else {
        emit(out,
             WalkCase{"metadata-value-" + name, in_position("a metadata value", form), "ST-META-2",
                      reject("METADATA_INVALID"), reject("METADATA_INVALID"), h.text()});
      }
    }
    {  // the whole header
      if (name == "empty-object") {
        emit(out, WalkCase{"top-level-" + name,
                           "the header {} and no data: a file of no tensors",
                           "ST-HDR-2, ST-LAY-4",
                           "accept",
                           "accept",
                           text,
                           "",
                           {"tensors: none"}});
      } else if (name == "object") {
        emit(out,
             {"top-level-" + name, R"(the header {"a":"b"}: "a" names an entry that is a string)",
              "ST-ENT-1", reject("TENSOR_INVALID"), reject("TENSOR_INVALID"), text, ""});
      } else {
        emit(out, WalkCase{"top-level-" + name, in_position("the whole header", form), "ST-HDR-2",
                           reject("HEADER_BAD_START"), reject("HEADER_NOT_JSON"), text, ""});
      }
    }
  }
  // Keys are strings in JSON; anything else is not JSON.
  Header tensor_key;
  std::string text = tensor_key.text();
  text.replace(text.find(R"("t":)"), 3, "7");
  emit(out, WalkCase{"tensor-name-integer", "a tensor name written as the integer 7", "ST-HDR-3",
                     reject("HEADER_NOT_JSON"), reject("HEADER_NOT_JSON"), text});
  Header metadata_key;
  metadata_key.metadata = R"({7:"pt"})";
  emit(out, WalkCase{"metadata-key-integer", "a metadata key written as the integer 7", "ST-HDR-3",
                     reject("HEADER_NOT_JSON"), reject("HEADER_NOT_JSON"), metadata_key.text()});
}

// Every spelling of the value in a numeric position, the rest unchanged: a
// reader that reads numbers leniently sees the valid file.
void walk_spellings(std::string& out) {
  struct Position {
    std::string_view name;
    std::string_view what;
    std::uint64_t value;
    std::string_view reason;
    Header (*place)(const std::string& text);
    std::string_view data;
  };
  const Position positions[] = {
      {"shape-element", "the shape element", 2, "SHAPE_INVALID",
       [](const std::string& t) {
         Header h;
         h.shape = "[" + t + "]";
         return h;
       },
       kData},
      {"zero-dim", "the zero dimension of shape [0] (range [0,0], no data)", 0, "SHAPE_INVALID",
       [](const std::string& t) {
         Header h;
         h.shape = "[" + t + "]";
         h.offsets = "[0,0]";
         return h;
       },
       ""},
      {"begin", "the begin offset", 0, "OFFSETS_INVALID",
       [](const std::string& t) {
         Header h;
         h.offsets = "[" + t + ",2]";
         return h;
       },
       kData},
      {"end", "the end offset", 2, "OFFSETS_INVALID",
       [](const std::string& t) {
         Header h;
         h.offsets = "[0," + t + "]";
         return h;
       },
       kData},
  };
  for (const Position& p : positions) {
    for (const mutate::NumberSpelling& s : mutate::spellings_of(p.value)) {
      const Header h = p.place(s.text);
      WalkCase c{std::string(p.name) + "-spelled-" + s.name,
                 std::string(p.what) + " " + std::to_string(p.value) + " written " + s.text +
                     (s.json ? "" : ", which is not JSON"),
                 s.json ? "ST-NUM-1" : "ST-HDR-3",
                 reject(s.json ? p.reason : "HEADER_NOT_JSON"),
                 reject(s.json ? p.reason : "HEADER_NOT_JSON"),
                 h.text(),
                 std::string(p.data)};
      if (p.name == "zero-dim") {
        // The repair of a file without data: shape [0] over [0,0].
        emit(out, c);
        out.erase(out.rfind("repair: header:"));
        out += "repair: header: " + p.place("0").text() + "\n";
        continue;
      }
      emit(out, c);
    }
  }
}

// The wide integers in each numeric position, the rest made consistent: a
// zero dimension beside a wide one (valid), an empty tensor at a wide offset
// (out of bounds), a wide end (the wrong size).
void walk_wide_integers(std::string& out) {
  for (const mutate::WideInteger& w : mutate::kWideIntegers) {
    const std::string v(w.text);
    const std::string name(w.name);
    Header shape;
    shape.shape = "[" + v + ",0]";
    shape.offsets = "[0,0]";
    if (w.fits_u64) {
      emit(out, WalkCase{"shape-element-" + name,
                         "shape [" + v + ",0]: a wide dimension times zero",
                         "ST-NUM-2, ST-SHAPE-2",
                         "accept",
                         "accept",
                         shape.text(),
                         "",
                         {R"(tensor: "t" U8 [)" + v + R"(,0] 0 0)", kBaseMeta}});
    } else {
      emit(out, WalkCase{"shape-element-" + name, "the shape element " + v + ", one past u64",
                         "ST-NUM-2", reject("SHAPE_INVALID"), reject("SHAPE_INVALID"), shape.text(),
                         ""});
    }
    Header begin;
    begin.shape = "[0]";
    begin.offsets = "[" + v + "," + v + "]";
    emit(out, WalkCase{"begin-" + name,
                       "an empty tensor at offset " + v +
                           (w.fits_u64 ? ", past the end of the buffer" : ", one past u64"),
                       w.fits_u64 ? "ST-LAY-1" : "ST-NUM-2",
                       reject(w.fits_u64 ? "OFFSET_OUT_OF_BOUNDS" : "OFFSETS_INVALID"),
                       reject(w.fits_u64 ? "OFFSET_OUT_OF_BOUNDS" : "OFFSETS_INVALID"),
                       begin.text(), ""});
    Header end;
    end.offsets = "[0," + v + "]";
    emit(out, WalkCase{"end-" + name,
                       "the end offset " + v +
                           (w.fits_u64 ? " for a 2-byte tensor: the wrong size" : ", one past u64"),
                       w.fits_u64 ? "ST-SIZE-3" : "ST-NUM-2",
                       reject(w.fits_u64 ? "SIZE_MISMATCH" : "OFFSETS_INVALID"),
                       reject(w.fits_u64 ? "SIZE_MISMATCH" : "OFFSETS_INVALID"), end.text()});
  }
}

// Length prefixes that a narrow read cuts back to the header's length, the
// upstream limit, and headers exactly around 2^8 and at 2^16 bytes.
void walk_lengths(std::string& out) {
  const std::string base = Header{}.text();
  const std::uint64_t n = base.size();
  for (const unsigned bits : mutate::kLengthPrefixCuts) {
    const std::uint64_t length = n + (std::uint64_t{1} << bits);
    const bool too_large = length > kHeaderLimit;
    emit(out,
         WalkCase{"length-plus-2-pow-" + std::to_string(bits),
                  "N = " + std::to_string(n) + " + 2^" + std::to_string(bits) + ": read in " +
                      std::to_string(bits) + " bits (or as a " +
                      (bits >= 53 ? "double" : "narrower integer") + ") it is the header's length",
                  too_large ? "ST-LEN-2" : "ST-LEN-3",
                  reject(too_large ? "HEADER_TOO_LARGE" : "HEADER_LENGTH_EXCEEDS_FILE"),
                  reject(too_large ? "HEADER_TOO_LARGE" : "HEADER_LENGTH_EXCEEDS_FILE"),
                  base,
                  std::string(kData),
                  {"length: " + std::to_string(length)}});
  }
  emit(out, WalkCase{"length-at-limit",
                     "N = 100,000,000, the upstream limit, on a short file",
                     "ST-LEN-3",
                     reject("HEADER_LENGTH_EXCEEDS_FILE"),
                     reject("HEADER_LENGTH_EXCEEDS_FILE"),
                     base,
                     std::string(kData),
                     {"length: " + std::to_string(kHeaderLimit)}});
  emit(out, WalkCase{"length-past-limit",
                     "N = 100,000,001, one past the upstream limit",
                     "ST-LEN-2",
                     reject("HEADER_TOO_LARGE"),
                     reject("HEADER_TOO_LARGE"),
                     base,
                     std::string(kData),
                     {"length: " + std::to_string(kHeaderLimit + 1)}});
  for (const std::uint64_t size :
       {std::uint64_t{255}, std::uint64_t{256}, std::uint64_t{257}, std::uint64_t{65536}}) {
    emit(out,
         WalkCase{"header-length-" + std::to_string(size),
                  "a valid header padded with spaces to exactly " + std::to_string(size) + " bytes",
                  "ST-LEN-3, ST-HDR-4",
                  "accept",
                  "accept",
                  base,
                  std::string(kData),
                  {kBaseTensor, kBaseMeta, "pad-to: " + std::to_string(size)}});
  }
}

}  // namespace

std::string grammar_walk_recipes() {
  std::string out =
      "about: Generated by the grammar walk (conformance/generator/grammar_walk.cc): every JSON "
      "type in every position, every spelling of every number, wide integers and length "
      "prefixes around the powers of two, each one fault from one valid file\n";
  walk_types(out);
  walk_spellings(out);
  walk_wide_integers(out);
  walk_lengths(out);
  return out;
}

}  // namespace stguard::conformance
