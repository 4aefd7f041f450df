// The purpose-built reader of the safetensors header grammar.
//
// It reads exactly what a header can contain (objects, arrays, strings with
// every escape, unsigned integers, literals) in one forward pass, without a
// DOM, and applies the profile's rules as it goes: duplicate keys, number
// forms, U+0000 in names, padding, and the reference profile's serde_json
// quirks. Semantic checks that need the whole header (sizes, layout) are in
// layout.cc.
//
// Preconditions: the header bytes are valid UTF-8 (checked before), and the
// scanner never reads outside [begin, end).
#ifndef STGUARD_SRC_SCANNER_H_
#define STGUARD_SRC_SCANNER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_index.h"
#include "stguard/error.h"
#include "stguard/header.h"

namespace stguard::detail {

class HeaderScanner {
 public:
  // `begin`/`end` delimit the N header bytes; `file_base` is the absolute file
  // offset of `begin` (8), used for error offsets.
  HeaderScanner(const std::uint8_t* begin, const std::uint8_t* end, std::uint64_t file_base,
                const ParseOptions& options) noexcept;

  // Reads the whole header into `tensors` and `metadata`. On failure returns
  // false and error() describes the first fault in document order.
  bool scan(std::vector<TensorInfo>& tensors,
            std::optional<std::vector<std::pair<std::string, std::string>>>& metadata);

  Error take_error() { return std::move(error_); }

 private:
  // serde_json's recursion limit: a container at this depth (top-level object
  // = 1) is rejected. Only reachable in the reference profile.
  static constexpr int kMaxDepth = 128;

  // Result of reading a JSON string: its unescaped value (a view into the
  // header when it had no escapes, otherwise into a scratch buffer) and
  // whether it contains U+0000.
  struct StringValue {
    std::string_view text;
    bool has_nul = false;
  };

  bool strict() const noexcept { return options_.profile == Profile::kStrict; }
  std::uint64_t offset_of(const std::uint8_t* at) const noexcept {
    return file_base_ + static_cast<std::uint64_t>(at - begin_);
  }
  bool fail(Reason reason, const std::uint8_t* at, std::string message);
  bool fail_syntax(const std::uint8_t* at, std::string_view expected);

  int peek() const noexcept { return p_ < end_ ? *p_ : -1; }
  void skip_whitespace() noexcept;
  bool expect(char c, std::string_view what);

  bool read_string(std::string& scratch, StringValue& out);
  bool read_escape(std::string& scratch);
  bool read_hex4(std::uint32_t& out);
  bool read_literal(std::string_view word);

  // Number grammar. On a well-formed JSON number, sets `p_` past it and
  // reports whether it is a plain unsigned integer fitting in u64.
  struct NumberForm {
    bool is_u64 = false;
    std::uint64_t value = 0;
    bool negative = false;
    bool fractional_or_exponent = false;
    bool above_u64 = false;
  };
  bool read_number(NumberForm& out);
  bool read_u64_element(Reason type_reason, std::string_view what, std::uint64_t& out);

  bool comma_before_value();
  bool skip_value(int depth);  // reference profile: any JSON value, iteratively

  bool read_document(std::vector<TensorInfo>& tensors,
                     std::optional<std::vector<std::pair<std::string, std::string>>>& metadata);
  bool read_metadata(std::optional<std::vector<std::pair<std::string, std::string>>>& metadata);
  bool read_tensor_entry(TensorInfo& tensor);
  bool read_tensor_object(TensorInfo& tensor);
  bool read_tensor_array(TensorInfo& tensor);
  bool read_dtype(Dtype& out);
  bool read_shape(std::vector<std::uint64_t>& out);
  bool read_offsets(std::uint64_t& begin, std::uint64_t& end);
  bool check_name(const StringValue& name, const std::uint8_t* at, bool is_metadata_key);

  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  const std::uint8_t* p_;
  std::uint64_t file_base_;
  const ParseOptions& options_;
  Error error_{};

  std::string key_scratch_;
  std::string value_scratch_;
  std::string skip_scratch_;
  NameIndex tensor_names_;
  NameIndex metadata_keys_;
};

}  // namespace stguard::detail

#endif  // STGUARD_SRC_SCANNER_H_
