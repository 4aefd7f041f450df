// conformance/runner/answer.h: reads an adapter's answer (one JSON object on
// stdout, docs/adapter-protocol.md) in bounded memory.
//
// The answer is parsed as a stream of SAX events (nlohmann::json::sax_parse),
// never into a document tree, which for a hostile answer would cost tens of
// times its size. Only the typed answer is kept: the verdict, the error
// message, and one reported tensor at a time, handed to a callback as soon
// as its object closes. Limits bound the rest; exceeding one, a duplicate
// key, an integer out of the 64-bit range (outside a shape or data_offsets,
// where a size that large is content) and invalid JSON are protocol errors
// whose message names the limit or the field.
#ifndef STGUARD_CONFORMANCE_RUNNER_ANSWER_H_
#define STGUARD_CONFORMANCE_RUNNER_ANSWER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha256.h"

namespace stguard::conformance {

// The limits of docs/adapter-protocol.md ("Limits").
inline constexpr std::size_t kMaxAnswerDepth = 64;             // nested arrays/objects
inline constexpr std::size_t kMaxAnswerTensors = 100'000;      // elements of "tensors"
inline constexpr std::size_t kMaxAnswerNameBytes = 1 << 20;    // one tensor name
inline constexpr std::size_t kMaxAnswerRank = 1 << 20;         // elements of one "shape"
inline constexpr std::size_t kMaxAnswerMembers = 1000;         // members of one object
inline constexpr std::size_t kMaxAnswerStringBytes = 2 << 20;  // one JSON string, as written
inline constexpr std::size_t kMaxAnswerRunBytes = 4
                                                  << 20;  // between strings (blanks, numbers, ...)

// One element of "tensors" as the adapter reported it. Strings that cannot
// match anything (longer than any dtype or hash) are cut; `*_shown` texts
// are for messages only.
struct ReportedTensor {
  std::optional<std::string> name;   // nullopt: missing or not a string
  std::optional<std::string> dtype;  // nullopt: missing or not a string
  std::string dtype_shown;           // the JSON of a non-string dtype, or "missing"
  bool shape_is_array = false;
  bool shape_exact = true;  // every element an exact non-negative integer
  std::vector<std::uint64_t> shape;
  std::string shape_shown;
  bool offsets_is_array = false;
  std::size_t offsets_count = 0;
  std::optional<std::uint64_t> begin, end;  // the first two elements, when exact
  std::string offsets_shown;
  std::optional<std::string> sha256;  // nullopt: missing or not a string
};

struct Answer {
  std::optional<std::string> verdict;  // nullopt: missing or not a string
  bool error_present = false;
  bool error_valid = true;  // a string or null
  std::string error;        // cut to 2000 bytes
  bool tensors_present = false;
  bool tensors_is_array = false;
  bool tensor_not_object = false;  // some element of "tensors" is not an object
  // A writer's answer (docs/writer-protocol.md), read by the same parse.
  std::optional<std::string> outcome;  // nullopt: missing or not a string
  bool reason_valid = true;            // a string or null, or absent
};

struct AnswerParse {
  bool ok = false;
  std::string problem;  // when !ok: why the output is not a protocol answer
  Answer answer;
};

// Parses `text` (the adapter's whole stdout). `on_tensor` is called once per
// object element of "tensors", in order, whatever the verdict. A writer's
// answer goes through it too (ignoring tensors): its memory is bounded the
// same way, where a document tree of a 16 MiB answer would cost hundreds.
AnswerParse parse_answer(std::string_view text,
                         const std::function<void(const ReportedTensor&)>& on_tensor);

// A set of strings in bounded memory: strings up to 64 bytes are kept, longer
// ones by their SHA-256 digest.
class StringSet {
 public:
  // True when `text` was not in the set yet.
  bool insert(std::string_view text);

 private:
  std::set<std::string, std::less<>> short_;
  std::set<base::Sha256Digest> long_;
};

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_ANSWER_H_
