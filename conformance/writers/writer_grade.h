// conformance/writers/writer_grade.h: turns one writer run into a grade
// (docs/writer-protocol.md, "Grades"). Pure: the caller runs the process and
// reads the file the writer left, so every rule is unit-tested with
// hand-made inputs.
#ifndef STGUARD_CONFORMANCE_WRITERS_WRITER_GRADE_H_
#define STGUARD_CONFORMANCE_WRITERS_WRITER_GRADE_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "conformance/runner/process.h"
#include "conformance/runner/results.h"
#include "conformance/writers/spec.h"
#include "conformance/writers/writer_manifest.h"

namespace stguard::conformance {

// What the writer left at OUT.safetensors.
struct WrittenFile {
  bool exists = false;
  std::string bytes;       // the whole file (when exists and not too_large)
  bool too_large = false;  // larger than the cap the caller read up to
  mode_t mode = 0;         // permission bits
};

// Grades the run of a writer on case `c` whose spec is `spec`:
//  - timed out: TIMEOUT; spawn failure, a signal or an exit status but 0:
//    CRASH;
//  - stdout must be one JSON object {"outcome": "written"|"refused"} with
//    optional string "error" and "reason" (or null), else PROTOCOL_ERROR;
//    "written" with no file at OUT is a PROTOCOL_ERROR too;
//  - refused: PASS on refuse cases, FAIL_SHOULD_WRITE on write cases;
//  - written: FAIL_SHOULD_REFUSE on refuse cases; else the file must pass
//    the strict and the reference profile (FAIL_INVALID_OUTPUT, naming the
//    profile and the reason) and hold exactly the spec's tensors (name,
//    dtype, shape, bytes) and metadata, in any order (FAIL_WRONG_CONTENT);
//    absent metadata and an empty map are the same;
//  - a PASS may carry lints in `detail` ("lint: ..."): header not padded to
//    a multiple of 8, tensors not in the canonical order, a tensor's data
//    not aligned to its element size, the file not readable by others.
CaseResult grade_writer_case(const WriterCaseEntry& c, const WriterSpec& spec,
                             const ProcessResult& run, const WrittenFile& out,
                             const ProcessLimits& limits);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_WRITERS_WRITER_GRADE_H_
