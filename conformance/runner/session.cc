// conformance/runner/session.cc: stop handling around a command's readers
// (session.h).
#include "conformance/runner/session.h"

#include <pthread.h>
#include <signal.h>

#include "conformance/runner/cleanup.h"

namespace stguard::conformance {

RunSession::RunSession() {
  install_stop_handlers();
  become_subreaper();
}

RunSession::~RunSession() { kill_all_children(); }

int RunSession::stop_signal() const noexcept { return conformance::stop_signal(); }

void RunSession::kill_adapters() { kill_all_children(); }

int RunSession::end_by_signal() const {
  const int signal_number = stop_signal();
  ::signal(signal_number, SIG_DFL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signal_number);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(signal_number);
  return 128 + signal_number;
}

ProcessLimits reader_limits(ProcessLimits limits, const ReaderSpec& spec) {
#ifdef STGUARD_SANITIZED_BUILD
  if (spec.runs_self) limits.address_space_bytes = 0;
#else
  (void)spec;
#endif
  return limits;
}

}  // namespace stguard::conformance
