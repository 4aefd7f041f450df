// conformance/runner/answer.cc: the bounded SAX reading of an answer
// (answer.h).
#include "conformance/runner/answer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

namespace stguard::conformance {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownBytes = 200;  // of a shape or data_offsets in messages
constexpr std::size_t kMaxKeptBytes = 200;   // of a dtype or sha256 (none is longer)
constexpr std::size_t kMaxErrorBytes = 2000;
constexpr std::size_t kMaxPathKeyBytes = 40;

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
std::string cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

std::string json_string(std::string_view text) {
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Where an answer first passes kMaxAnswerStringBytes or kMaxAnswerRunBytes,
// and which. nlohmann's lexer keeps every byte read since the start of the
// last string or number (for its error messages) and a string's bytes once
// more while it reads it, so a 15 MB string or 15 MB of blanks would cost
// the runner three times its size. The parse is given the text only up to
// this point: an error before it still wins, and none can cost more than
// the limits. One sweep, no allocation; on text that is not JSON it may see
// strings where the parser would not, but the parser fails there anyway.
struct Oversize {
  std::size_t cut = 0;  // the parse reads text[0, cut)
  std::string problem;
};

std::optional<Oversize> find_oversize(std::string_view text) {
  std::size_t run_start = 0;  // of the stretch outside strings being read
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t quote = text.find('"', i);
    const std::size_t run_end = quote == std::string_view::npos ? text.size() : quote;
    if (run_end - run_start > kMaxAnswerRunBytes) {
      return Oversize{run_start + kMaxAnswerRunBytes + 1,
                      "more than " + std::to_string(kMaxAnswerRunBytes) +
                          " bytes outside strings (blanks, punctuation, numbers) from byte " +
                          std::to_string(run_start) + " (limit of one stretch between strings)"};
    }
    if (quote == std::string_view::npos) break;
    std::size_t j = quote + 1;
    while (j < text.size() && text[j] != '"')
      j += text[j] == '\\' ? std::size_t{2} : std::size_t{1};
    j = std::min(j, text.size());
    if (j - quote - 1 > kMaxAnswerStringBytes) {
      return Oversize{quote + 1 + kMaxAnswerStringBytes + 1,
                      "a string longer than " + std::to_string(kMaxAnswerStringBytes) +
                          " bytes at byte " + std::to_string(quote) +
                          " (limit of one JSON string, as written)"};
    }
    i = j + 1;
    run_start = i;
  }
  return std::nullopt;
}

// The answer's text as the parser reads it: each escape of a lone surrogate
// (\ud800 not followed by a low one, \udc00 not preceded by a high one)
// reads as \ufffd. The JSON grammar allows such an escape (RFC 8259, 8.2),
// and a runtime whose strings are UTF-16 writes one for a string that holds
// an unpaired surrogate (Python's json.dumps for a name it decoded from
// "a\ud800"); nlohmann's parser refuses it, which made the grade depend on
// whether the surrogate was in a reported name (a PROTOCOL_ERROR) or in
// metadata the answer leaves out (graded as the verdict). Read as U+FFFD,
// as a decoder replaces what it cannot decode, the answer is graded by what
// the reader did. The replacement is as long as the escape, so byte offsets
// in messages are those of the text.
class SurrogateReplacingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  SurrogateReplacingIterator(std::string_view text, std::size_t pos) : text_(text), pos_(pos) {
    look();
  }

  char operator*() const {
    if (replacing_from_ != std::string_view::npos && pos_ - replacing_from_ < kEscapeBytes) {
      return kReplacement[pos_ - replacing_from_];
    }
    return text_[pos_];
  }
  SurrogateReplacingIterator& operator++() {
    step(text_[pos_]);
    ++pos_;
    look();
    return *this;
  }
  SurrogateReplacingIterator operator++(int) {
    SurrogateReplacingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const SurrogateReplacingIterator& other) const { return pos_ == other.pos_; }
  bool operator!=(const SurrogateReplacingIterator& other) const { return pos_ != other.pos_; }

 private:
  static constexpr std::size_t kEscapeBytes = 6;  // \uXXXX
  static constexpr std::string_view kReplacement = "\\ufffd";

  // The code unit of a \uXXXX escape at `at`, if there is one.
  std::optional<std::uint32_t> escape_at(std::size_t at) const {
    if (at + kEscapeBytes > text_.size() || text_[at] != '\\' || text_[at + 1] != 'u') {
      return std::nullopt;
    }
    std::uint32_t unit = 0;
    const auto [end, ec] = std::from_chars(text_.data() + at + 2, text_.data() + at + 6, unit, 16);
    if (ec != std::errc() || end != text_.data() + at + 6) return std::nullopt;
    return unit;
  }

  // String state after the original byte `c` (the replacement changes hex
  // digits only, never a quote or a backslash).
  void step(char c) {
    if (!in_string_) {
      in_string_ = c == '"';
    } else if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
  }

  // At an escape that starts here: is it a lone surrogate?
  void look() {
    if (!in_string_ || escaped_ || pos_ >= text_.size() || text_[pos_] != '\\') return;
    const std::optional<std::uint32_t> unit = escape_at(pos_);
    if (!unit || *unit < 0xD800 || *unit > 0xDFFF) return;
    if (*unit <= 0xDBFF) {
      const std::optional<std::uint32_t> low = escape_at(pos_ + kEscapeBytes);
      if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
        paired_low_at_ = pos_ + kEscapeBytes;
        return;
      }
    } else if (pos_ == paired_low_at_) {
      return;
    }
    replacing_from_ = pos_;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;  // the previous byte began an escape
  std::size_t paired_low_at_ = std::string_view::npos;
  std::size_t replacing_from_ = std::string_view::npos;
};

// Appends an element's text to a "[a,b,...]" rendering, up to kMaxShownBytes.
void append_shown(std::string& shown, std::size_t index, std::string_view element) {
  if (shown.size() > kMaxShownBytes) return;
  if (index != 0) shown += ',';
  shown += element;
  if (shown.size() > kMaxShownBytes) shown = cut(shown, kMaxShownBytes);
}

enum class Role {
  kTop,      // the answer object
  kTensors,  // the "tensors" array
  kTensor,   // one element of it
  kShape,    // a tensor's "shape"
  kOffsets,  // a tensor's "data_offsets"
  kOther,    // anything else: checked, not kept
};

struct Frame {
  bool object = false;
  Role role = Role::kOther;
  std::string key;          // object: the current member's key (cut, for paths)
  std::string key_full;     // object: the current member's key
  std::size_t count = 0;    // array: elements begun; object: members
  std::size_t current = 0;  // array: index of the element being read
  StringSet keys;           // object: the keys seen
};

class Handler {
 public:
  Handler(std::string_view text, const std::function<void(const ReportedTensor&)>& on_tensor)
      : text_(text), on_tensor_(on_tensor) {}

  AnswerParse& result() { return result_; }

  // --- nlohmann's SAX interface ---
  bool null() { return scalar(Scalar::kNull, "null"); }
  bool boolean(bool value) { return scalar(Scalar::kBool, value ? "true" : "false"); }
  bool number_integer(json::number_integer_t value) {
    if (value < 0) return scalar(Scalar::kNumber, std::to_string(value));
    return exact(static_cast<std::uint64_t>(value), std::to_string(value));
  }
  bool number_unsigned(json::number_unsigned_t value) {
    return exact(value, std::to_string(value));
  }
  bool number_float(json::number_float_t, const json::string_t& text) {
    // nlohmann reads an integer that does not fit 64 bits as a double:
    // precision would be lost silently. In a shape or data_offsets it is
    // what the reader reported (one that does not wrap a size, say), so it
    // grades as content, never equal to an expected size; elsewhere it is
    // a protocol error.
    if (text.find_first_of(".eE") == std::string::npos) {
      if (!element_begins()) return false;
      if (in_size_array()) return number_element(std::nullopt, cut(text, 40));
      return fail("integer " + cut(text, 40) + " at " + path() + " is out of the 64-bit range");
    }
    return scalar(Scalar::kNumber, text);
  }
  bool string(json::string_t& value) {
    if (frames_.empty()) return fail("stdout is JSON but not an object");
    if (!element_begins()) return false;
    Frame& top = frames_.back();
    if (top.role == Role::kShape || top.role == Role::kOffsets) {
      return number_element(decimal(value), json_string(cut(value, 40)));
    }
    if (top.role == Role::kTop) {
      if (top.key_full == "verdict") result_.answer.verdict = cut(value, kMaxKeptBytes);
      if (top.key_full == "error") result_.answer.error = cut(value, kMaxErrorBytes);
      if (top.key_full == "outcome") result_.answer.outcome = cut(value, kMaxKeptBytes);
      return true;
    }
    if (top.role == Role::kTensors) {
      result_.answer.tensor_not_object = true;
      return true;
    }
    if (top.role == Role::kTensor) {
      if (top.key_full == "name") {
        if (value.size() > kMaxAnswerNameBytes) {
          return fail("the tensor name at " + path() + " is longer than the limit of " +
                      std::to_string(kMaxAnswerNameBytes) + " bytes");
        }
        tensor_.name = value;
      } else if (top.key_full == "dtype") {
        tensor_.dtype = cut(value, kMaxKeptBytes);
      } else if (top.key_full == "sha256") {
        tensor_.sha256 = cut(value, kMaxKeptBytes);
      } else if (top.key_full == "shape") {
        tensor_.shape_is_array = false;
      } else if (top.key_full == "data_offsets") {
        tensor_.offsets_is_array = false;
      }
    }
    return true;
  }
  bool binary(json::binary_t&) { return fail("binary value at " + path()); }

  bool start_object(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() { return close(); }

  bool key(json::string_t& value) {
    Frame& top = frames_.back();
    if (!top.keys.insert(value)) {
      return fail("duplicate key " + json_string(cut(value, kMaxPathKeyBytes)) + " in " +
                  (frames_.size() == 1 ? std::string("the answer object") : path()));
    }
    if (++top.count > kMaxAnswerMembers) {
      return fail("an object at " + path() + " has more than the limit of " +
                  std::to_string(kMaxAnswerMembers) + " members");
    }
    top.key = cut(value, kMaxPathKeyBytes);
    top.key_full = cut(value, 64);
    if (top.role == Role::kTop && top.key_full == "error") result_.answer.error_present = true;
    if (top.role == Role::kTop && top.key_full == "tensors") result_.answer.tensors_present = true;
    return true;
  }

  // The parse is given text_ up to `cut` only (find_oversize): reaching its
  // end there is the limit's problem, not a syntax error.
  void set_cut(std::size_t cut, std::string problem) {
    cut_ = cut;
    cut_problem_ = std::move(problem);
  }
  void reached_cut() { fail(cut_problem_); }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) {
    if (position >= cut_) return fail(cut_problem_);
    std::string why = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    if (std::size_t bracket = why.find("] "); bracket != std::string::npos) {
      why.erase(0, bracket + 2);
    }
    std::string shown(text_.substr(0, std::min<std::size_t>(text_.size(), 400)));
    while (!shown.empty() && std::isspace(static_cast<unsigned char>(shown.back())) != 0) {
      shown.pop_back();
    }
    std::size_t begin = 0;
    while (begin < shown.size() && std::isspace(static_cast<unsigned char>(shown[begin])) != 0) {
      ++begin;
    }
    shown.erase(0, begin);
    // The value that could not be read is the next element of an array.
    std::string where = frames_.empty() ? "" : ", at " + path(/*next_element=*/true);
    return fail("stdout is not one JSON object: " + cut(shown, 200) + " (" + cut(why, 300) + where +
                ", byte " + std::to_string(position) + ")");
  }

 private:
  enum class Scalar { kNull, kBool, kNumber };

  bool fail(std::string problem) {
    if (result_.problem.empty()) result_.problem = std::move(problem);
    return false;
  }

  // Where the value being read sits: "tensors[3].shape[1]".
  std::string path(bool next_element = false) const {
    std::string out;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      if (frame.object) {
        if (frame.count == 0) break;
        if (!out.empty()) out += '.';
        out += frame.key;
      } else if (next_element && i + 1 == frames_.size()) {
        out += "[" + std::to_string(frame.count) + "]";
      } else {
        if (frame.count == 0) break;
        out += "[" + std::to_string(frame.current) + "]";
      }
    }
    return out.empty() ? "the top level" : out;
  }

  // Bookkeeping for any value that starts; false when a limit is exceeded.
  bool element_begins() {
    if (frames_.empty()) return true;
    Frame& top = frames_.back();
    if (top.object) return true;
    top.current = top.count++;
    if (top.role == Role::kTensors && top.count > kMaxAnswerTensors) {
      return fail("more than the limit of " + std::to_string(kMaxAnswerTensors) +
                  " elements in \"tensors\"");
    }
    if (top.role == Role::kShape && top.count > kMaxAnswerRank) {
      return fail("the shape at " + path() + " has more than the limit of " +
                  std::to_string(kMaxAnswerRank) + " elements");
    }
    return true;
  }

  // A digits-only string in a shape or data_offsets: its value. Anything
  // else, a value above 2^64 - 1 included: nullopt (graded as content).
  static std::optional<std::uint64_t> decimal(std::string_view text) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
  }

  bool in_size_array() const {
    return !frames_.empty() && !frames_.back().object &&
           (frames_.back().role == Role::kShape || frames_.back().role == Role::kOffsets);
  }

  bool exact(std::uint64_t value, const std::string& text) {
    if (in_size_array()) {
      if (!element_begins()) return false;
      return number_element(value, text);
    }
    return scalar(Scalar::kNumber, text);
  }

  // An element of a shape or data_offsets (element_begins() done).
  bool number_element(std::optional<std::uint64_t> value, const std::string& text) {
    const Frame& top = frames_.back();
    if (top.role == Role::kShape) {
      append_shown(tensor_.shape_shown, top.current, text);
      if (value) {
        tensor_.shape.push_back(*value);
      } else {
        tensor_.shape_exact = false;
      }
    } else {
      append_shown(tensor_.offsets_shown, top.current, text);
      if (top.current == 0) tensor_.begin = value;
      if (top.current == 1) tensor_.end = value;
    }
    return true;
  }

  bool scalar(Scalar kind, const std::string& text) {
    if (frames_.empty()) return fail("stdout is JSON but not an object");
    if (!element_begins()) return false;
    Frame& top = frames_.back();
    switch (top.role) {
      case Role::kTop:
        if (top.key_full == "error") result_.answer.error_valid = kind == Scalar::kNull;
        if (top.key_full == "reason") result_.answer.reason_valid = kind == Scalar::kNull;
        break;
      case Role::kTensors:
        result_.answer.tensor_not_object = true;
        break;
      case Role::kTensor:
        if (top.key_full == "dtype") tensor_.dtype_shown = cut(text, 80);
        break;
      case Role::kShape:
        return number_element(std::nullopt, text);
      case Role::kOffsets:
        return number_element(std::nullopt, text);
      case Role::kOther:
        break;
    }
    return true;
  }

  bool open(bool object) {
    if (frames_.empty()) {
      if (!object) return fail("stdout is JSON but not an object");
      frames_.emplace_back();
      frames_.back().object = true;
      frames_.back().role = Role::kTop;
      return true;
    }
    if (!element_begins()) return false;
    if (frames_.size() >= kMaxAnswerDepth) {
      return fail("the answer nests deeper than the limit of " + std::to_string(kMaxAnswerDepth) +
                  " arrays and objects (at " + path() + ")");
    }
    const Frame& top = frames_.back();
    Role role = Role::kOther;
    if (top.role == Role::kTop && top.key_full == "tensors") {
      if (!object) {
        result_.answer.tensors_is_array = true;
        role = Role::kTensors;
      }
    } else if (top.role == Role::kTop && top.key_full == "error") {
      result_.answer.error_valid = false;
    } else if (top.role == Role::kTop && top.key_full == "reason") {
      result_.answer.reason_valid = false;
    } else if (top.role == Role::kTensors) {
      if (object) {
        role = Role::kTensor;
        tensor_ = ReportedTensor{};
        tensor_.dtype_shown = "missing";
      } else {
        result_.answer.tensor_not_object = true;
      }
    } else if (top.role == Role::kTensor) {
      const std::string& key = top.key_full;
      if (key == "shape" && !object) {
        role = Role::kShape;
        tensor_.shape_is_array = true;
        tensor_.shape_exact = true;
        tensor_.shape.clear();
        tensor_.shape_shown.clear();
      } else if (key == "data_offsets" && !object) {
        role = Role::kOffsets;
        tensor_.offsets_is_array = true;
        tensor_.begin.reset();
        tensor_.end.reset();
        tensor_.offsets_shown.clear();
      } else if (key == "dtype") {
        tensor_.dtype_shown = object ? "an object" : "an array";
      } else if (key == "shape") {
        tensor_.shape_is_array = false;
      } else if (key == "data_offsets") {
        tensor_.offsets_is_array = false;
      }
    } else if (top.role == Role::kShape) {
      tensor_.shape_exact = false;
      append_shown(tensor_.shape_shown, top.current, object ? "{...}" : "[...]");
    } else if (top.role == Role::kOffsets) {
      append_shown(tensor_.offsets_shown, top.current, object ? "{...}" : "[...]");
      if (top.current == 0) tensor_.begin.reset();
      if (top.current == 1) tensor_.end.reset();
    }
    frames_.emplace_back();
    frames_.back().object = object;
    frames_.back().role = role;
    return true;
  }

  bool close() {
    Frame& top = frames_.back();
    if (top.role == Role::kOffsets) tensor_.offsets_count = top.count;
    const Role role = top.role;
    frames_.pop_back();
    if (role == Role::kTensor) on_tensor_(tensor_);
    if (frames_.empty()) result_.ok = result_.problem.empty();
    return true;
  }

  std::string_view text_;
  std::size_t cut_ = std::string_view::npos;
  std::string cut_problem_;
  const std::function<void(const ReportedTensor&)>& on_tensor_;
  AnswerParse result_;
  std::vector<Frame> frames_;
  ReportedTensor tensor_;
};

}  // namespace

bool StringSet::insert(std::string_view text) {
  if (text.size() <= 64) return short_.emplace(text).second;
  return long_.insert(base::sha256(text)).second;
}

AnswerParse parse_answer(std::string_view text,
                         const std::function<void(const ReportedTensor&)>& on_tensor) {
  Handler handler(text, on_tensor);
  std::optional<Oversize> oversize = find_oversize(text);
  const std::string_view parsed_text = oversize ? text.substr(0, oversize->cut) : text;
  if (oversize) handler.set_cut(oversize->cut, std::move(oversize->problem));
  const bool parsed = json::sax_parse(SurrogateReplacingIterator(parsed_text, 0),
                                      SurrogateReplacingIterator(parsed_text, parsed_text.size()),
                                      &handler, json::input_format_t::json, /*strict=*/true);
  AnswerParse& result = handler.result();
  // A whole answer before the cut, then more than a limit's worth of text.
  if (parsed && oversize) handler.reached_cut();
  if (!parsed || !result.problem.empty()) {
    result.ok = false;
    if (result.problem.empty()) result.problem = "stdout is not one JSON object";
  }
  return std::move(result);
}

}  // namespace stguard::conformance
