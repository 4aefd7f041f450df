#include "base/json.h"

#include <charconv>
#include <cstdint>
#include <span>
#include <string>

#include "base/hex.h"
#include "base/text.h"

namespace stguard::base {

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
