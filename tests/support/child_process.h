// tests/support/child_process.h: run a piece of a test in a forked child, as
// an unprivileged user when the test runs as root, or under a file-size
// limit that stands in for a full disk.
//
//   const ChildOutcome outcome = stguard_test::in_child([&] { return work() ? 0 : 1; },
//                                                       {.unprivileged = true});
//   EXPECT_EQ(outcome.exit_code, 0);
//
// The child runs `body` and _exits with its value: no destructors, no gtest
// output of its own (report failures through the exit code).
#ifndef STGUARD_TESTS_SUPPORT_CHILD_PROCESS_H_
#define STGUARD_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <functional>

namespace stguard_test {

// The user and group an unprivileged child becomes when the test runs as
// root: Debian's "nobody" and "nogroup".
inline constexpr uid_t kUnprivilegedUid = 65534;
inline constexpr gid_t kUnprivilegedGid = 65534;

struct ChildOptions {
  // Drop root's privileges (to kUnprivilegedUid) before running the body, so
  // that permission checks apply as they do to ordinary users.
  bool unprivileged = false;
  // When non-zero: RLIMIT_FSIZE, with SIGXFSZ ignored, so that a write past
  // this many bytes fails with EFBIG as on a full disk.
  rlim_t file_size_limit = 0;
};

struct ChildOutcome {
  int exit_code = -1;  // when the child exited
  int signal = 0;      // when a signal ended it
};

// Lets an unprivileged child create and remove files in `dir` (a scratch
// directory made by root with mode 0700).
inline void open_to_everyone(const std::filesystem::path& dir) {
  std::filesystem::permissions(dir, std::filesystem::perms::all);
}

inline ChildOutcome in_child(const std::function<int()>& body, ChildOptions options = {}) {
  const pid_t pid = ::fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    if (options.unprivileged && ::geteuid() == 0) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(kUnprivilegedGid) != 0 ||
          ::setuid(kUnprivilegedUid) != 0) {
        ::_exit(120);
      }
    }
    if (options.file_size_limit != 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      const struct rlimit limit { options.file_size_limit, options.file_size_limit };
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(121);
    }
    ::_exit(body());
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildOutcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_CHILD_PROCESS_H_
