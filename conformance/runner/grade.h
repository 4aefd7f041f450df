// conformance/runner/grade.h: turns one adapter run into a grade
// (docs/adapter-protocol.md, "Grades"). Pure: no processes, no files, so every
// rule is unit-tested with hand-made ProcessResults.
#ifndef STGUARD_CONFORMANCE_RUNNER_GRADE_H_
#define STGUARD_CONFORMANCE_RUNNER_GRADE_H_

#include <string>

#include "conformance/model/case.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/results.h"

namespace stguard::conformance {

// Grades `run` of a reader in `mode` on the corpus case `c`:
//  - timed out: TIMEOUT; spawn failure, a signal, or (JSON mode) any exit
//    status but 0, or (plain mode) any but 0 and 1: CRASH;
//  - JSON mode: stdout must be exactly one JSON object (surrounding
//    whitespace allowed) with "verdict" "accept"|"reject", "error" a string
//    or null if present, and when accepted "tensors", an array of objects;
//    anything else PROTOCOL_ERROR (also when stdout ran past its cap, where
//    the run stopped: Status::kOutputOverflow, whatever the exit);
//  - reject: FAIL_SHOULD_ACCEPT on accept cases, IMPL_REJECT on either
//    cases, PASS on reject cases;
//  - accept: FAIL_SHOULD_REJECT on reject cases; otherwise the reported
//    tensors are matched by name against the expected ones (dtype, shape,
//    data_offsets, sha256; a missing, extra or repeated tensor, or a field
//    of the wrong JSON type, is a difference): FAIL_WRONG_CONTENT on any
//    difference, else PASS or
//    IMPL_ACCEPT. Plain mode has no tensors to compare.
// Numbers in shape and data_offsets must be exact: JSON integers, or strings
// of decimal digits (for readers whose numbers cannot hold 64 bits). The
// answer is read in bounded memory, strictly (answer.h): duplicate keys,
// numbers out of range and exceeded limits are PROTOCOL_ERRORs. When the
// adapter left processes behind (run.leftover_processes), the grade is still
// the answer's, and the detail says so.
CaseResult grade_case(const Case& c, AdapterMode mode, const ProcessResult& run,
                      const ProcessLimits& limits);

// The grading every adapter shares, readers and writers alike
// (conformance/writers/writer_grade.h):
// CRASH (spawn failure, a signal, a stop) or TIMEOUT when `run` did not exit,
// with detail and reader_error filled in; true then, false when it exited.
bool grade_process_failure(const ProcessResult& run, const ProcessLimits& limits,
                           CaseResult& result);
// The detail of a run killed at the stdout cap (Status::kOutputOverflow).
std::string output_overflow_detail(const ProcessLimits& limits);
// Records run.leftover_processes in `result` and says so in its detail.
void note_leftovers(const ProcessResult& run, CaseResult& result);
// Stderr as a result shows it (reader_error of crashes, timeouts and plain
// mode): the head and the tail the capture kept (ProcessResult::stderr_text,
// at most max_stderr_bytes and the marker between them), trimmed. The head
// holds the first line of a sanitizer report, the tail the end of a trace.
std::string stderr_excerpt(const std::string& text);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_GRADE_H_
