// conformance/hunt/oracle.h: stguard's verdicts on a generated file, as the case a
// reader's answer is graded against.
//
//   stguard::hunt::Oracle o = stguard::hunt::judge(bytes);
//   std::optional<CaseResult> r = grader.grade(o.expected, path);   // grader.h
//
// Both profiles parse the file; the case's verdict is theirs (accept, reject,
// or either where they disagree, as in the corpus), and when some profile
// accepts, the expected tensors (with the sha256 of their bytes) and metadata
// are that profile's reading: strict's when it accepts, else reference's.
#ifndef STGUARD_CONFORMANCE_HUNT_ORACLE_H_
#define STGUARD_CONFORMANCE_HUNT_ORACLE_H_

#include <cstdint>
#include <span>

#include "conformance/model/case.h"

namespace stguard::hunt {

struct Oracle {
  conformance::ExpectedOutcome strict;     // reason is a stguard reason name
  conformance::ExpectedOutcome reference;  // offset: absolute, always set on reject
  conformance::Case expected;              // id "hunt/file", verdict, reason, expected content
};

Oracle judge(std::span<const std::uint8_t> file);

}  // namespace stguard::hunt

#endif  // STGUARD_CONFORMANCE_HUNT_ORACLE_H_
