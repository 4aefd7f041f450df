#include "base/json.h"

#include <charconv>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/hex.h"
#include "base/text.h"

namespace stguard::base {
namespace {

// The SAX pass of first_duplicate_key: a stack of the open containers with
// the keys each object has had. A parse error ends the pass without a
// finding.
class DuplicateKeyFinder : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  // "tensors[0]: duplicate key \"name\"", "" when no key repeats.
  const std::string& finding() const { return finding_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool key(string_t& text) override {
    Frame& top = frames_.back();
    if (!top.keys.insert(text).second) {
      const std::string where = path();
      finding_ = (where.empty() ? "" : where + ": ") + "duplicate key " +
                 nlohmann::ordered_json(text).dump(
                     -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      return false;
    }
    top.key = text;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;  // an object's keys so far
    std::string key;             // an object's current key
    std::size_t next = 0;        // an array's next index
  };

  // The path of the container on top: "tensors[2].shape"; "" for the
  // top-level value itself.
  std::string path() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      if (frame.object) {
        out += (out.empty() ? "" : ".") + frame.key;
      } else {
        out += "[" + std::to_string(frame.next - 1) + "]";
      }
    }
    return out;
  }
  bool value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().next;
    return true;
  }
  bool open(bool object) {
    value();
    frames_.push_back(Frame{object, {}, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
  std::string finding_;
};

}  // namespace

std::string first_duplicate_key(std::string_view text) {
  DuplicateKeyFinder duplicates;
  nlohmann::ordered_json::sax_parse(text, &duplicates);
  return duplicates.finding();
}

std::string json_line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void set_name(nlohmann::ordered_json& object, std::string_view field, std::string_view name) {
  const std::string key(field);
  if (is_valid_utf8(name)) {
    object[key] = std::string(name);
    return;
  }
  object[key] = lossy_utf8(name);
  object[key + "_hex"] =
      to_hex(std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
}

namespace {
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
}  // namespace

void JsonStream::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) buffer_ += ',';
    has_element_.back() = true;
  }
}

void JsonStream::maybe_flush() {
  if (buffer_.size() >= kFlushBytes) flush();
}

void JsonStream::flush() {
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

JsonStream& JsonStream::begin_object() {
  before_value();
  buffer_ += '{';
  has_element_.push_back(false);
  return *this;
}

JsonStream& JsonStream::end_object() {
  buffer_ += '}';
  has_element_.pop_back();
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::begin_array() {
  before_value();
  buffer_ += '[';
  has_element_.push_back(false);
  return *this;
}

JsonStream& JsonStream::end_array() {
  buffer_ += ']';
  has_element_.pop_back();
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::key(std::string_view name) {
  before_value();
  buffer_ += json_line(nlohmann::ordered_json(std::string(name)));
  buffer_ += ':';
  after_key_ = true;
  return *this;
}

JsonStream& JsonStream::value(const nlohmann::ordered_json& value) {
  before_value();
  buffer_ += json_line(value);
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::value(std::uint64_t number) {
  before_value();
  char digits[20];
  // 20 digits hold any 64-bit value, so to_chars cannot fail.
  buffer_.append(digits, std::to_chars(std::begin(digits), std::end(digits), number).ptr);
  maybe_flush();
  return *this;
}

JsonStream& JsonStream::numbers(std::span<const std::uint64_t> values) {
  begin_array();
  for (const std::uint64_t number : values) value(number);
  return end_array();
}

JsonStream& JsonStream::members(const nlohmann::ordered_json& object) {
  for (const auto& [name, member] : object.items()) key(name).value(member);
  return *this;
}

}  // namespace stguard::base
