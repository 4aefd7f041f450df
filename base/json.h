// base/json.h: the one way stguard writes JSON text.
//
//   std::cout << stguard::base::json_line(record) << "\n";
//
// Outputs are compact, one object per line, keys in insertion order
// (nlohmann::ordered_json), and always valid UTF-8: a string holding bytes that
// are not UTF-8 (a file name from argv, a reader's message) has each such byte
// replaced by U+FFFD rather than making the dump throw.
//
// Names that must stay tell-apart-able (file names, symlink targets) go in
// through set_name(), which adds the raw bytes in hex beside a name that is
// not UTF-8, since two different such names can show the same after U+FFFD:
//
//   base::set_name(record, "file", path);  // "file":"a\uFFFD" and "file_hex":"61ff"
#ifndef STGUARD_BASE_JSON_H_
#define STGUARD_BASE_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::base {

std::string json_line(const nlohmann::ordered_json& value);

// The first key that an object of the JSON text `text` repeats, as
// "tensors[0]: duplicate key \"name\"" (the path of the object, then the
// key), or "" when no key repeats. nlohmann's document keeps one of two
// equal keys silently, so every file stguard reads as configuration (a
// writer spec, reader.json) is checked with this first, as stguard refuses
// a repeated key in a safetensors header. A text that is not JSON gives ""
// up to its error: parsing it then reports the error in its own words.
std::string first_duplicate_key(std::string_view text);

// Sets object[field] to `name` (shown with U+FFFD for bytes that are not
// UTF-8, as json_line does), and, only when `name` is not valid UTF-8,
// object[field + "_hex"] to its bytes as lower-case hex, so that the exact
// name is always recoverable. `object` must be an object (or null).
void set_name(nlohmann::ordered_json& object, std::string_view field, std::string_view name);

// Writes one JSON value piece by piece, in the same bytes as json_line(),
// for outputs too large to build as a tree first: nlohmann's tree costs 16
// bytes or more per element plus the dumped string, so a 100 MB header with
// one shape of 40 million dimensions would cost gigabytes. Pieces are
// buffered and written to `out` in blocks; finish() (or the destructor)
// writes the rest.
//
//   base::JsonStream json(std::cout);
//   json.begin_object().members(record).key("shape").numbers(shape).end_object();
//   json.finish();
class JsonStream {
 public:
  explicit JsonStream(std::ostream& out) : out_(out) {}
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;
  ~JsonStream() { flush(); }

  JsonStream& begin_object();
  JsonStream& end_object();
  JsonStream& begin_array();
  JsonStream& end_array();
  // The next member's key (inside an object).
  JsonStream& key(std::string_view name);
  // A whole value, as json_line() writes it.
  JsonStream& value(const nlohmann::ordered_json& value);
  JsonStream& value(std::uint64_t number);
  // An array of numbers, written without building it.
  JsonStream& numbers(std::span<const std::uint64_t> values);
  // Every member of `object`, in order, as key and value pairs of the open
  // object.
  JsonStream& members(const nlohmann::ordered_json& object);
  // Writes what is buffered to the stream.
  void flush();

 private:
  void before_value();
  void maybe_flush();

  std::ostream& out_;
  std::string buffer_;
  // One per open object or array: true once it holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace stguard::base

#endif  // STGUARD_BASE_JSON_H_
