#include "base/sigbus_guard.h"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <mutex>

namespace stguard::base {
namespace {

// What the faulting thread is reading. Plain data with constant
// initialisation, so the handler can touch it without running constructors.
struct Guard {
  bool active = false;
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uintptr_t fault = 0;
  sigjmp_buf jump;
};

thread_local Guard t_guard;

struct sigaction g_previous;  // the handler before ours; written once, before ours is installed

void on_sigbus(int sig, siginfo_t* info, void* context) {
  Guard& g = t_guard;
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (g.active && address >= g.begin && address < g.end) {
    g.active = false;
    g.fault = address;
    siglongjmp(g.jump, 1);
  }
  // Not ours: what would have happened without the guard.
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(sig);
    return;
  }
  // Default action (a SIGBUS cannot usefully be ignored: the faulting
  // instruction would run again): restore it; returning re-runs the faulting
  // access, which now kills the process as it would have.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGBUS, &dfl, nullptr);
  if (info->si_code <= 0) raise(sig);  // sent by kill(): no access to re-run
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous);
  });
}

}  // namespace

std::optional<std::uint64_t> with_sigbus_guard(const void* begin, std::size_t length,
                                               const std::function<void()>& read) {
  install_once();
  Guard& g = t_guard;
  g.begin = reinterpret_cast<std::uintptr_t>(begin);
  g.end = g.begin + length;
  g.fault = 0;
  // savemask = 1: the handler runs with SIGBUS blocked unless SA_NODEFER;
  // restoring the mask on the jump keeps later faults deliverable either way.
  if (sigsetjmp(g.jump, 1) != 0) {
    return static_cast<std::uint64_t>(t_guard.fault - t_guard.begin);
  }
  g.active = true;
  read();
  g.active = false;
  return std::nullopt;
}

}  // namespace stguard::base
