// The lint rules of stguard/lint.h.
#include "stguard/lint.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "stguard/dtype.h"

namespace stguard {

std::string_view lint_code_name(LintCode code) noexcept {
  switch (code) {
    case LintCode::kHeaderNotAligned:
      return "HEADER_NOT_ALIGNED";
    case LintCode::kDataMisaligned:
      return "DATA_MISALIGNED";
    case LintCode::kNonCanonicalOrder:
      return "NON_CANONICAL_ORDER";
    case LintCode::kOffsetsNotInOrder:
      return "OFFSETS_NOT_IN_ORDER";
  }
  return "UNKNOWN_LINT";
}

std::vector<Lint> lint_header(const Header& header) {
  std::vector<Lint> lints;
  const std::vector<TensorInfo>& tensors = header.tensors;
  if (header.header_len % 8 != 0) lints.push_back({LintCode::kHeaderNotAligned, {}, {}});

  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = tensors[i];
    const unsigned bits = dtype_bits(t.dtype);
    // Sub-byte elements have no alignment of their own; an empty tensor has
    // no data to misplace.
    if (bits % 8 != 0 || t.byte_size() == 0) continue;
    if ((header.data_offset() + t.begin) % (bits / 8) != 0) {
      lints.push_back({LintCode::kDataMisaligned, i, {}});
    }
  }

  // The tensors in data order (header order among equal offsets), against
  // the same tensors in canonical order.
  std::vector<std::size_t> by_offset(tensors.size());
  std::iota(by_offset.begin(), by_offset.end(), std::size_t{0});
  std::stable_sort(by_offset.begin(), by_offset.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(tensors[a].begin, tensors[a].end) <
           std::pair(tensors[b].begin, tensors[b].end);
  });
  std::vector<std::size_t> canonical = by_offset;
  std::stable_sort(canonical.begin(), canonical.end(), [&](std::size_t a, std::size_t b) {
    const int rank_a = dtype_writer_rank(tensors[a].dtype);
    const int rank_b = dtype_writer_rank(tensors[b].dtype);
    if (rank_a != rank_b) return rank_a < rank_b;
    return tensors[a].name < tensors[b].name;
  });
  const auto [found, expected] =
      std::mismatch(by_offset.begin(), by_offset.end(), canonical.begin());
  if (found != by_offset.end()) {
    lints.push_back({LintCode::kNonCanonicalOrder, *found, *expected});
  }

  for (std::size_t i = 1; i < tensors.size(); ++i) {
    if (std::pair(tensors[i].begin, tensors[i].end) >=
        std::pair(tensors[i - 1].begin, tensors[i - 1].end)) {
      continue;
    }
    lints.push_back({LintCode::kOffsetsNotInOrder, i, i - 1});
    break;
  }
  return lints;
}

}  // namespace stguard
