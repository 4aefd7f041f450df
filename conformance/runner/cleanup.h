// conformance/runner/cleanup.h: nothing an adapter starts outlives the run.
//
// An adapter runs in its own process group, which the runner kills when the
// adapter is done. A descendant that left the group (setsid, setpgid) would
// survive that, so the runner also makes itself a child subreaper: orphans
// of adapters are reparented to the runner instead of init, where the
// runner finds them (their parent is the runner, yet they are not an adapter
// it started) and kills them. Each adapter gets a token in its environment
// (STGUARD_CONFORM_TOKEN) that its descendants inherit, so that with -j N an
// orphan is attributed to the adapter that left it, and the orphans of an
// adapter that is still running are left alone.
//
// SIGINT, SIGTERM and SIGHUP ask the run to stop: every wait of run_process
// wakes up (stop_fd()), kills its adapter and everything the adapter left,
// and returns kInterrupted; the caller then kills what remains
// (kill_all_children) and re-raises the signal.
#ifndef STGUARD_CONFORMANCE_RUNNER_CLEANUP_H_
#define STGUARD_CONFORMANCE_RUNNER_CLEANUP_H_

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>

namespace stguard::conformance {

// The environment variable each adapter process is started with.
inline constexpr const char* kTokenVariable = "STGUARD_CONFORM_TOKEN";

// Installs handlers for SIGINT, SIGTERM and SIGHUP that record the signal
// (stop_signal) and wake every waiting run_process (stop_fd). Idempotent.
void install_stop_handlers();

// 0, or the first signal that asked the run to stop.
int stop_signal() noexcept;

// A descriptor that becomes readable (and stays so) once a stop was
// requested; -1 before install_stop_handlers().
int stop_fd() noexcept;

// PR_SET_CHILD_SUBREAPER on this process, once. False if the kernel refused
// (then setsid'd descendants can escape; everything else is still killed).
bool become_subreaper();

// A token unique to one adapter run of this process.
std::string new_adapter_token();

// The registry of adapter processes this process is running. fork() of an
// adapter happens under lock_adapters() so that no sweep ever sees a child
// that is not registered yet.
class AdapterRegistration {
 public:
  AdapterRegistration() = default;
  AdapterRegistration(const AdapterRegistration&) = delete;
  AdapterRegistration& operator=(const AdapterRegistration&) = delete;
  ~AdapterRegistration();
  // Forks under the registry lock and registers (pid, token); the child
  // runs `in_child` (async-signal-safe calls only; it must exec or _exit)
  // with every signal unblocked. Returns the child's pid, or -1 (errno set).
  //
  // The child is set to receive SIGKILL when this process dies, even by
  // SIGKILL (PR_SET_PDEATHSIG), so that no adapter outlives a runner that
  // could not clean up. The kernel sends that signal when the *thread* that
  // forked ends, and the persistent adapters are shared by the pool's
  // threads, which end one by one: every fork is therefore made by one
  // thread that lives as long as the process.
  pid_t fork_registered(const std::string& token, const std::function<void()>& in_child);

 private:
  pid_t pid_ = 0;
  std::string token_;
};

// After the adapter whose process group is `group` (its main process, still
// unreaped, must not be counted) stopped: kills with SIGKILL every process of
// that group and every orphan reparented to this process that carries
// `token` (or no token, or the token of an adapter no longer running), waits
// until they are gone (reaping those that are this process's children; at
// most about 2 s), and returns how many there were (zombies not counted).
std::size_t kill_leftovers(pid_t group, const std::string& token);

// Kills every child process of this process (and, through the subreaper,
// their descendants) and reaps them. For the end of a run and after a stop
// request, when no adapter may run any more.
std::size_t kill_all_children();

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_CLEANUP_H_
