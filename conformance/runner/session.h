// conformance/runner/session.h: what a command does around the readers it
// runs, once for `stguard conform` and `stguard hunt` alike.
//
//   RunSession session;                 // a signal now stops the run
//   run readers, each under reader_limits(limits, spec) ...
//   if (session.stop_signal() != 0) {
//     session.kill_adapters();          // before the reports of what finished
//     write the reports ...;
//     return session.end_by_signal();   // the exit status says what stopped us
//   }
//
// From its construction SIGINT, SIGTERM and SIGHUP ask the run to stop
// (cleanup.h: no file starts, the running adapters are killed and their
// answers not graded) and this process is the subreaper of whatever the
// adapters leave; every way out of the command's scope kills what is left.
#ifndef STGUARD_CONFORMANCE_RUNNER_SESSION_H_
#define STGUARD_CONFORMANCE_RUNNER_SESSION_H_

#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"

namespace stguard::conformance {

class RunSession {
 public:
  RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;
  ~RunSession();

  // 0, or the signal that asked the run to stop.
  int stop_signal() const noexcept;

  // Kills every adapter process and all they started (after a stop, so that
  // nothing outlives the reports being written).
  void kill_adapters();

  // Ends the process by the stop signal with its default action, so that
  // the exit status says what stopped it. Returns 128 + the signal only if
  // that did not end the process.
  int end_by_signal() const;
};

// `limits` as `spec`'s adapters run under. In a sanitizer build of stguard
// the copy of itself that the stguard-* readers run reserves terabytes of
// shadow address space and cannot start under RLIMIT_AS: those lose the
// address-space limit; other readers keep it.
ProcessLimits reader_limits(ProcessLimits limits, const ReaderSpec& spec);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_SESSION_H_
