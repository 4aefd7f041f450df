#include "layout.h"

#include <algorithm>
#include <string>

#include "message.h"

namespace stguard::detail {
namespace {

std::string tensor_label(const ScannedHeader& h, const TensorRecord& t) {
  return "tensor " + quoted(h.name(t));
}

// The byte size the dtype and shape imply, or the fault.
std::optional<Error> check_size(const ScannedHeader& h, const TensorRecord& t, Profile profile) {
  const std::uint64_t bits_per_element = dtype_bits(t.dtype);
  std::uint64_t elements = 1;
  bool overflow = false;
  if (profile == Profile::kReference) {
    // Upstream folds left to right with checked multiplication, so a zero
    // dimension early on hides any overflow after it.
    for (std::uint64_t dim : h.shape(t)) {
      if (__builtin_mul_overflow(elements, dim, &elements)) {
        overflow = true;
        break;
      }
    }
  } else {
    // Strict: the product of the non-zero dimensions must fit as well, so a
    // zero dimension cannot hide an overflow from readers that multiply in
    // another order or compute strides ([0, 2^64-1, 2^64-1] is rejected).
    std::uint64_t nonzero_product = 1;
    bool has_zero = false;
    for (std::uint64_t dim : h.shape(t)) {
      if (dim == 0) {
        has_zero = true;
      } else if (__builtin_mul_overflow(nonzero_product, dim, &nonzero_product)) {
        overflow = true;
        break;
      }
    }
    elements = has_zero ? 0 : nonzero_product;
  }
  std::uint64_t bits = 0;
  if (overflow || __builtin_mul_overflow(elements, bits_per_element, &bits)) {
    return Error{Reason::kSizeOverflow, t.header_offset,
                 tensor_label(h, t) + ": element count x " + std::to_string(bits_per_element) +
                     " bits does not fit in 64 bits"};
  }
  if (bits % 8 != 0) {
    return Error{Reason::kSubbyteMisaligned, t.header_offset,
                 tensor_label(h, t) + ": " + std::to_string(elements) + " elements of " +
                     std::string(dtype_name(t.dtype)) + " are " + std::to_string(bits) +
                     " bits, not a whole number of bytes"};
  }
  const std::uint64_t expected = bits / 8;
  if (t.end - t.begin != expected) {
    return Error{Reason::kSizeMismatch, t.header_offset,
                 tensor_label(h, t) + ": data_offsets span " + std::to_string(t.end - t.begin) +
                     " bytes but " + std::string(dtype_name(t.dtype)) + " x shape needs " +
                     std::to_string(expected)};
  }
  return std::nullopt;
}

struct Span {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint32_t index;  // document order, the tie-breaker
  friend bool operator<(const Span& a, const Span& b) noexcept {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  }
};

}  // namespace

std::optional<Error> check_sizes_and_layout(const ScannedHeader& h, std::uint64_t header_len,
                                            std::uint64_t file_size, Profile profile) {
  const std::vector<TensorRecord>& tensors = h.tensors;
  for (const TensorRecord& t : tensors) {
    if (t.begin > t.end) {
      return Error{Reason::kOffsetsInvalid, t.header_offset,
                   tensor_label(h, t) + ": data_offsets begin " + std::to_string(t.begin) +
                       " is after end " + std::to_string(t.end)};
    }
    if (auto fault = check_size(h, t, profile)) return fault;
  }

  const std::uint64_t data_start = 8 + header_len;  // the caller checked 8 + N <= file_size
  const std::uint64_t data_len = file_size - data_start;

  std::uint64_t covered_to = 0;
  auto place = [&](const TensorRecord& t) -> std::optional<Error> {
    if (t.end > data_len) {
      return Error{Reason::kOffsetOutOfBounds, file_size,
                   tensor_label(h, t) + ": data_offsets [" + std::to_string(t.begin) + ", " +
                       std::to_string(t.end) + ") end beyond the data buffer of " +
                       std::to_string(data_len) + " bytes"};
    }
    if (t.begin > covered_to) {
      return Error{Reason::kOffsetGap, data_start + covered_to,
                   "data bytes [" + std::to_string(covered_to) + ", " + std::to_string(t.begin) +
                       ") belong to no tensor (hole before " + tensor_label(h, t) + ")"};
    }
    if (t.begin < covered_to) {
      return Error{Reason::kOffsetOverlap, data_start + t.begin,
                   tensor_label(h, t) + ": data_offsets [" + std::to_string(t.begin) + ", " +
                       std::to_string(t.end) + ") overlap bytes already used up to " +
                       std::to_string(covered_to)};
    }
    covered_to = t.end;
    return std::nullopt;
  };

  // Writers emit tensors in offset order, so the sort is usually skipped.
  bool sorted = true;
  for (std::size_t i = 1; i < tensors.size() && sorted; ++i) {
    const TensorRecord& a = tensors[i - 1];
    const TensorRecord& b = tensors[i];
    sorted = a.begin < b.begin || (a.begin == b.begin && a.end <= b.end);
  }
  if (sorted) {
    for (const TensorRecord& t : tensors) {
      if (auto fault = place(t)) return fault;
    }
  } else {
    std::vector<Span> spans;
    spans.reserve(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      spans.push_back(Span{tensors[i].begin, tensors[i].end, static_cast<std::uint32_t>(i)});
    }
    std::sort(spans.begin(), spans.end());
    for (const Span& s : spans) {
      if (auto fault = place(tensors[s.index])) return fault;
    }
  }
  if (covered_to != data_len) {
    return Error{Reason::kTrailingData, data_start + covered_to,
                 std::to_string(data_len - covered_to) + " bytes after the last tensor (data " +
                     "buffer is " + std::to_string(data_len) + " bytes, tensors cover " +
                     std::to_string(covered_to) + ")"};
  }
  return std::nullopt;
}

}  // namespace stguard::detail
