// stguard/lint.h: what a valid file does that a careful writer avoids.
//
// A lint never makes a file invalid: every reader must accept it. It says
// that the file was not written the way the upstream writer writes (a header
// padded to 8 bytes, data in canonical order, elements aligned), which some
// readers assume. One rule set, used by `stguard inspect` and by the grading
// of writers:
//
//   const std::vector<stguard::Lint> lints = stguard::lint_header(*header);
//   for (const stguard::Lint& l : lints) std::cout << stguard::lint_code_name(l.code) << "\n";
#ifndef STGUARD_LINT_H_
#define STGUARD_LINT_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "stguard/header.h"

namespace stguard {

enum class LintCode {
  // 8 + N is not a multiple of 8: the data buffer, and every tensor in it,
  // starts at an address no wider load can assume aligned.
  kHeaderNotAligned,
  // A tensor of whole-byte elements (not F4, F6_*) holding data starts at an
  // absolute file offset that is not a multiple of its element size. One per
  // such tensor, in header order.
  kDataMisaligned,
  // The tensors in data (offset) order are not in the canonical writer order
  // (dtype_writer_rank, then name by bytes). Once per header: `tensor` is the
  // tensor at the first data position out of place, `other` the one the
  // canonical order puts there.
  kNonCanonicalOrder,
  // The header lists a tensor before one whose data comes earlier. Once per
  // header: `tensor` is the first such tensor, `other` the one listed before
  // it.
  kOffsetsNotInOrder,
};

// "HEADER_NOT_ALIGNED", "DATA_MISALIGNED", "NON_CANONICAL_ORDER",
// "OFFSETS_NOT_IN_ORDER".
std::string_view lint_code_name(LintCode code) noexcept;

struct Lint {
  LintCode code;
  std::optional<std::size_t> tensor;  // index into Header::tensors, when about one
  std::optional<std::size_t> other;   // the second tensor, for the two order lints
};

// The lints of a validated header, in the order of LintCode. Linear in the
// tensor count plus one sort.
std::vector<Lint> lint_header(const Header& header);

}  // namespace stguard

#endif  // STGUARD_LINT_H_
