// HeaderScanner, continued: the grammar of one tensor entry (its compact
// fast path, the general object form, the reference profile's array form,
// and the dtype, shape and data_offsets values). header_scanner.cc reads the
// document around the entries.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "checks.h"
#include "dtype_table.h"
#include "header_scanner.h"
#include "little_endian.h"
#include "message.h"
#include "sizes.h"

namespace stguard::detail {
namespace {

// Keeps a shape's element count (sizes.h) in the scanned record.
void store_count(const ElementCount& count, TensorRecord& tensor) noexcept {
  tensor.elements = count.elements();
  tensor.elements_overflow = count.overflow;
}

}  // namespace

// Defined before read_tensor_entry, its one caller, which inlines it: a call
// per entry is paid once per tensor of every header.
template <bool kKeepDims>
[[gnu::always_inline]] inline bool HeaderScanner::read_compact_entry(TensorRecord& tensor) {
  // Every load below is checked against the end first; near the end of the
  // header this gives up and the general reader takes over.
  const std::uint8_t* q = lex_.pos();  // at '{'
  const std::uint8_t* const header_end = lex_.end();
  auto room = [header_end](const std::uint8_t* at, std::ptrdiff_t n) {
    return header_end - at >= n;
  };
  // {"dtype":"NAME","shape":[ where NAME has no escapes: 2 to 11 bytes
  // before a '"'. Usually the same text as the previous entry's, or else an
  // earlier one's, in the slot its bytes 8 to 15 (`":"` and the name's first
  // five) pick (header_scanner.h).
  Dtype dtype;
  CompactRepeats::Prefix* opening = nullptr;  // the slot, when there is room
  auto slot_of_opening = [this](const std::uint8_t* at) {
    return &repeats_.prefixes[(load_le64(at + 8) * 0x9E3779B97F4A7C15ULL) >>
                              (64 - CompactRepeats::kPrefixSlotBits)];
  };
  bool known = false;
  if (room(q, kSameBytesAtMost)) {
    // (Once the openings alternate, the previous one is left empty.)
    if (repeats_.prefix.len != 0 &&
        same_leading_bytes(q, repeats_.prefix.text, repeats_.prefix.len)) {
      dtype = repeats_.prefix.dtype;
      q += repeats_.prefix.len;
      known = true;
    } else if (repeats_.openings_alternate) {
      // The opening's length from its own bytes (the dtype's name ends at
      // the first '"' from byte 10), then its slot's text compared: no
      // branch on whether it is the previous entry's, which missed about
      // every other time. (No '"' there: 37, longer than any opening kept.)
      const std::size_t len = 21 + first_quote_in_16(q + 10);
      opening = slot_of_opening(q);
      if (opening->len == len && same_leading_bytes(q, opening->text, len)) {
        dtype = opening->dtype;
        q += len;
        known = true;
      }
    } else {
      // Every 16 misses: alternate from here on if half the entries so far
      // or more missed.
      if ((++repeats_.opening_misses & 15) == 0 &&
          2 * std::uint64_t{repeats_.opening_misses} >= out_->tensors.size()) {
        repeats_.openings_alternate = true;
        repeats_.prefix = CompactRepeats::Prefix{};
      }
      opening = slot_of_opening(q);
      if (opening->len != 0 && same_leading_bytes(q, opening->text, opening->len)) {
        if (!repeats_.openings_alternate) repeats_.prefix = *opening;
        dtype = opening->dtype;
        q += opening->len;
        known = true;
      }
    }
  }
  if (!known) {
    if (!room(q, 10 + 16) || !matches(q, "{\"dtype\":\"")) return false;
    const std::uint8_t* const prefix = q;
    q += 10;
    const auto name_len = static_cast<std::size_t>(find_string_stop(q, q + 16) - q);
    if (name_len < 2 || name_len > 11 || q[name_len] != '"') return false;
    const std::optional<Dtype> found =
        find_dtype(std::string_view(reinterpret_cast<const char*>(q), name_len));
    if (!found) return false;
    dtype = *found;
    q += name_len;
    if (!room(q, 11) || !matches(q, "\",\"shape\":[")) return false;
    q += 11;
    if (opening != nullptr) {  // room(prefix, kSameBytesAtMost)
      opening->text = prefix;
      opening->len = static_cast<std::size_t>(q - prefix);  // 23 to 32
      opening->dtype = dtype;
      if (!repeats_.openings_alternate) repeats_.prefix = *opening;
    }
  }

  // Kept dimensions: up to kMaxCompactRank of them, more are the general
  // reader's. A shape read here goes to ScannedHeader::dims once the entry is
  // known to be compact, and every later entry that repeats its text views
  // the same dimensions there: writing them again per tensor (a call per
  // dimension) was a tenth of parse_header on the benchmark's checkpoints.
  std::uint64_t dims[kMaxCompactRank];
  std::uint64_t shape_pos = 0;  // into ScannedHeader::dims, when kept
  bool new_shape = false;       // read here, not repeated
  CompactRepeats::Shape* slot_to_fill = nullptr;
  ElementCount count;
  std::uint64_t rank = 0;
  const std::uint8_t* const shape = q;  // after '['
  const std::uint8_t* shape_end = q;    // after ']'
  CompactRepeats::Shape* slot = nullptr;
  if (room(q, kSameBytesAtMost)) {
    // The slot its first eight bytes pick (a multiplicative hash's top bits).
    slot = &repeats_.shapes[(load_le64(q) * 0x9E3779B97F4A7C15ULL) >>
                            (64 - CompactRepeats::kShapeSlotBits)];
  }
  if (slot != nullptr && slot->len != 0 && same_leading_bytes(q, slot->text, slot->len)) {
    // An earlier shape's text, ']' included: the same dimensions.
    count = slot->count;
    rank = slot->rank;
    if constexpr (kKeepDims) shape_pos = slot->shape_pos;
    q += slot->len;
  } else {
    if (!room(q, 1)) return false;
    if (*q == ']') {
      ++q;
    } else {
      for (;;) {
        // The rank cap is the general reader's to report.
        if (rank >= limits_.max_rank || !room(q, 24)) return false;
        std::uint64_t dim;
        const std::uint8_t* after = read_plain_u64(q, dim);
        if (after == nullptr) return false;
        if constexpr (kKeepDims) {
          if (rank == kMaxCompactRank) return false;
          dims[rank] = dim;
        }
        count.add(dim, options_.profile);
        ++rank;
        q = after + 1;
        if (*after == ']') break;
        if (*after != ',') return false;
      }
    }
    new_shape = true;
    shape_end = q;
    // Without kept dimensions the cache holds none, and is read only by
    // this same form of the reader (a scan keeps details or not throughout).
    // With them, the slot is filled once they are kept (below).
    if (slot != nullptr && q - shape <= kSameBytesAtMost) {  // room(shape, kSameBytesAtMost)
      if constexpr (kKeepDims) {
        slot_to_fill = slot;
      } else {
        slot->remember(shape, q, count, rank);
      }
    }
  }

  if (!room(q, 17 + 24) || !matches(q, ",\"data_offsets\":") || q[16] != '[') return false;
  q += 17;
  std::uint64_t begin;
  std::uint64_t end;
  const std::uint8_t* after;
  const std::size_t repeated_len = repeats_.end_digits_len;
  if (repeats_.begins_at_previous_end && repeated_len != 0 && room(q, kSameBytesAtMost) &&
      same_leading_bytes(q, repeats_.end_digits, repeated_len) && q[repeated_len] == ',') {
    // The digits of the previous end, then ',': read_plain_u64 would give
    // the same value and stop at the same byte.
    begin = repeats_.end;
    q += repeated_len + 1;
    if (!room(q, 24) || (after = read_plain_u64(q, end)) == nullptr) return false;
  } else if (room(q, kOffsetPairBytes) && (after = read_offset_pair(q, begin, end, q)) != nullptr) {
    // Both at once; q is at the end's digits.
  } else {
    after = read_plain_u64(q, begin);
    if (after == nullptr || *after != ',') return false;
    q = after + 1;
    if (!room(q, 24) || (after = read_plain_u64(q, end)) == nullptr) return false;
  }
  repeats_.begins_at_previous_end = begin == repeats_.end;
  if (room(q, kSameBytesAtMost)) {
    repeats_.end_digits = q;
    repeats_.end_digits_len = static_cast<std::size_t>(after - q);
    repeats_.end = end;
  }
  if (!room(after, 2) || after[0] != ']' || after[1] != '}') return false;

  lex_.set_pos(after + 2);
  tensor.dtype = dtype;
  tensor.begin = begin;
  tensor.end = end;
  store_count(count, tensor);
  if constexpr (kKeepDims) {
    if (new_shape) {
      shape_pos = out_->dims.size();
      for (std::uint64_t i = 0; i < rank; ++i) out_->dims.push_back(dims[i]);
      if (slot_to_fill != nullptr) {
        slot_to_fill->remember(shape, shape_end, count, rank);
        slot_to_fill->shape_pos = shape_pos;
      }
    }
    detail_->shape_pos = shape_pos;
    detail_->rank = rank;
  }
  return true;
}

bool HeaderScanner::read_tensor_entry(TensorRecord& tensor, std::string_view name) {
  const int c = lex_.peek();
  if (c == '{') {
    const bool compact =
        layers_.compact_entries &&
        (detail_ != nullptr ? read_compact_entry<true>(tensor) : read_compact_entry<false>(tensor));
    return compact || read_tensor_object(tensor, name);
  }
  if (c == '[' && !strict()) return read_tensor_array(tensor, name);
  if (!starts_value(c)) return lex_.fail_syntax(lex_.pos(), "a JSON value");
  return lex_.fail(Reason::kTensorInvalid, lex_.pos(),
                   message("entry for tensor ", Quoted{name},
                           " must be an object with dtype, shape and data_offsets"));
}

bool HeaderScanner::read_tensor_object(TensorRecord& tensor, std::string_view name) {
  lex_.advance();  // '{' at depth 2
  bool have_dtype = false;
  bool have_shape = false;
  bool have_offsets = false;
  lex_.skip_whitespace();
  if (lex_.peek() != '}') {
    for (;;) {
      if (lex_.peek() != '"') return lex_.fail_syntax(lex_.pos(), "a field name string");
      const std::uint8_t* field_at = lex_.pos();
      StringValue field;
      // Writers emit the three field names without escapes; match those
      // directly and leave everything else to the general string reader.
      const bool matched =
          layers_.plain_strings &&
          (lex_.match_plain_key("\"dtype\"", field) || lex_.match_plain_key("\"shape\"", field) ||
           lex_.match_plain_key("\"data_offsets\"", field));
      if (!matched && !lex_.read_string(key_scratch_, field)) {
        return false;
      }
      lex_.skip_whitespace();
      if (!lex_.expect(':', "':' after a field name")) return false;
      lex_.skip_whitespace();
      bool* seen = nullptr;
      if (field.text == "dtype") {
        seen = &have_dtype;
      } else if (field.text == "shape") {
        seen = &have_shape;
      } else if (field.text == "data_offsets") {
        seen = &have_offsets;
      }
      if (seen != nullptr && *seen && !STGUARD_LET_THROUGH(kRepeatedField, {})) {
        return lex_.fail(
            Reason::kDuplicateKey, field_at,
            message("field ", Quoted{field.text}, " appears twice in tensor ", Quoted{name}));
      }
      if (seen == &have_dtype) {
        if (!read_dtype(tensor.dtype)) return false;
      } else if (seen == &have_shape) {
        if (!read_shape(tensor)) return false;
      } else if (seen == &have_offsets) {
        if (!read_offsets(tensor.begin, tensor.end)) return false;
      } else if (strict() && !STGUARD_LET_THROUGH(kUnknownField, {})) {
        return lex_.fail(
            Reason::kTensorInvalid, field_at,
            message("unknown field ", Quoted{field.text}, " in tensor ", Quoted{name}));
      } else if (!lex_.skip_value(2)) {
        return false;  // upstream ignores unknown fields, but they must be JSON
      }
      if (seen != nullptr) *seen = true;
      const AfterElement next = lex_.after_element('}', "',' or '}' in a tensor entry");
      if (next == AfterElement::kNext) continue;
      if (next == AfterElement::kFault) return false;
      break;  // at '}', stepped over below
    }
  }
  const char* missing = !have_dtype     ? "dtype"
                        : !have_shape   ? "shape"
                        : !have_offsets ? "data_offsets"
                                        : nullptr;
  // Left out (checks.h): the record's defaults stand for what is missing.
  if (missing != nullptr && !STGUARD_LET_THROUGH(kMissingField, {})) {
    return lex_.fail(Reason::kTensorInvalid, lex_.pos(),
                     message("tensor ", Quoted{name}, " has no \"", missing, "\" field"));
  }
  lex_.advance();  // '}'
  return true;
}

// Reference profile only: serde accepts a struct written as a sequence of its
// fields in declaration order, [dtype, shape, data_offsets].
bool HeaderScanner::read_tensor_array(TensorRecord& tensor, std::string_view name) {
  lex_.advance();  // '[' at depth 2
  auto wrong_length = [&](const char* count) {
    return lex_.fail(Reason::kTensorInvalid, lex_.pos(),
                     message("array-form entry for tensor ", Quoted{name}, " has ", count,
                             " elements, needs exactly 3 [dtype, shape, data_offsets]"));
  };
  lex_.skip_whitespace();
  if (lex_.peek() == ']') return wrong_length("0");
  if (!read_dtype(tensor.dtype)) return false;
  lex_.skip_whitespace();
  if (lex_.peek() == ']') return wrong_length("1");
  if (!lex_.expect(',', "',' or ']' in an array-form tensor entry")) return false;
  lex_.skip_whitespace();
  if (!read_shape(tensor)) return false;
  lex_.skip_whitespace();
  if (lex_.peek() == ']') return wrong_length("2");
  if (!lex_.expect(',', "',' or ']' in an array-form tensor entry")) return false;
  lex_.skip_whitespace();
  if (!read_offsets(tensor.begin, tensor.end)) return false;
  lex_.skip_whitespace();
  if (lex_.peek() == ',') {
    if (!lex_.comma_before_value()) return false;
    return wrong_length("more than 3");
  }
  return lex_.expect(']', "']' closing an array-form tensor entry");
}

bool HeaderScanner::read_dtype(Dtype& out) {
  const std::uint8_t* at = lex_.pos();
  const int c = lex_.peek();
  if (c == '"') {
    StringValue name;
    if (!lex_.read_string(value_scratch_, name)) return false;
    if (auto d = find_dtype(name.text)) {
      out = *d;
      return true;
    }
    if (STGUARD_LET_THROUGH(kUnknownDtype, {})) {
      out = Dtype::kU8;  // as readers that take an unknown dtype for bytes
      return true;
    }
    return lex_.fail(
        Reason::kDtypeInvalid, at,
        message("unknown dtype ", Quoted{name.text}, " (names are exact and case-sensitive)"));
  }
  if (c == '{' && !strict()) {
    // serde's externally tagged enum: {"F32": null} is the unit variant F32.
    lex_.advance();  // depth 3
    lex_.skip_whitespace();
    if (lex_.peek() != '"') {
      if (lex_.peek() == '}') {
        return lex_.fail(Reason::kDtypeInvalid, at, "dtype map must have exactly one key");
      }
      return lex_.fail_syntax(lex_.pos(), "a key string");
    }
    StringValue name;
    if (!lex_.read_string(value_scratch_, name)) return false;
    const auto dtype = find_dtype(name.text);
    if (!dtype) {
      return lex_.fail(Reason::kDtypeInvalid, at, message("unknown dtype ", Quoted{name.text}));
    }
    lex_.skip_whitespace();
    if (!lex_.expect(':', "':' after a key")) return false;
    lex_.skip_whitespace();
    if (lex_.peek() != 'n') {
      if (!starts_value(lex_.peek())) return lex_.fail_syntax(lex_.pos(), "a JSON value");
      return lex_.fail(Reason::kDtypeInvalid, at, "dtype map value must be null (a unit variant)");
    }
    if (!lex_.read_literal("null")) return false;
    lex_.skip_whitespace();
    if (lex_.peek() == ',') {
      return lex_.fail(Reason::kDtypeInvalid, at, "dtype map has more than one key");
    }
    if (!lex_.expect('}', "'}' closing the dtype map")) return false;
    out = *dtype;
    return true;
  }
  if (!starts_value(c)) return lex_.fail_syntax(lex_.pos(), "a JSON value");
  return lex_.fail(Reason::kDtypeInvalid, at, "dtype must be a string naming one of the 22 dtypes");
}

bool HeaderScanner::read_shape(TensorRecord& tensor) {
  if (lex_.peek() != '[') {
    if (!starts_value(lex_.peek())) return lex_.fail_syntax(lex_.pos(), "a JSON value");
    return lex_.fail(Reason::kShapeInvalid, lex_.pos(),
                     "shape must be an array of unsigned integers");
  }
  lex_.advance();
  std::vector<std::uint64_t>* dims = detail_ != nullptr ? &out_->dims : nullptr;
  if (dims != nullptr) {
    detail_->shape_pos = dims->size();
    detail_->rank = 0;
  }
  ElementCount count;
  std::uint64_t rank = 0;
  auto finish = [&] {
    store_count(count, tensor);
    if (dims != nullptr) detail_->rank = rank;
    return true;
  };
  lex_.skip_whitespace();
  if (lex_.peek() == ']') {
    lex_.advance();
    return finish();
  }
  for (;;) {
    if (rank >= limits_.max_rank) {
      return lex_.fail(Reason::kLimitExceeded, lex_.pos(),
                       message("shape has more than max_rank (", limits_.max_rank, ") dimensions"));
    }
    std::uint64_t dim;
    if (!lex_.read_u64_element(Reason::kShapeInvalid, "shape dimension", dim)) return false;
    if (dims != nullptr) dims->push_back(dim);
    ++rank;
    count.add(dim, options_.profile);
    const AfterElement next = lex_.after_element(']', "',' or ']' in shape");
    if (next == AfterElement::kNext) continue;
    if (next == AfterElement::kFault) return false;
    lex_.advance();  // ']'
    return finish();
  }
}

bool HeaderScanner::read_offsets(std::uint64_t& begin, std::uint64_t& end) {
  const std::uint8_t* at = lex_.pos();
  if (lex_.peek() != '[') {
    if (!starts_value(lex_.peek())) return lex_.fail_syntax(lex_.pos(), "a JSON value");
    return lex_.fail(Reason::kOffsetsInvalid, at, "data_offsets must be an array [begin, end]");
  }
  lex_.advance();
  lex_.skip_whitespace();
  if (lex_.peek() == ']') {
    return lex_.fail(Reason::kOffsetsInvalid, lex_.pos(),
                     "data_offsets is empty, needs [begin, end]");
  }
  std::uint64_t first;
  if (!lex_.read_u64_element(Reason::kOffsetsInvalid, "data offset", first)) return false;
  lex_.skip_whitespace();
  if (lex_.peek() == ']') {
    return lex_.fail(Reason::kOffsetsInvalid, lex_.pos(),
                     "data_offsets has 1 element, needs [begin, end]");
  }
  if (!lex_.expect(',', "',' in data_offsets")) return false;
  lex_.skip_whitespace();
  std::uint64_t second;
  if (!lex_.read_u64_element(Reason::kOffsetsInvalid, "data offset", second)) return false;
  lex_.skip_whitespace();
  if (lex_.peek() == ',') {
    if (!lex_.comma_before_value()) return false;
    return lex_.fail(Reason::kOffsetsInvalid, lex_.pos(), "data_offsets has more than 2 elements");
  }
  if (!lex_.expect(']', "']' closing data_offsets")) return false;
  begin = first;
  end = second;
  return true;
}

}  // namespace stguard::detail
