// base/output.cc: OutputFile and write_file (output.h).
#include "base/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

// Every temporary file's name starts so; the signal handler unlinks nothing
// else, whatever a slot holds.
constexpr std::string_view kTemporaryPrefix = ".stguard-";
constexpr int kMaxLinks = 40;

// Temporary files in existence, for the signal handler: a fixed table it
// can read without locks or allocation. A path too long for a slot, or a
// write while every slot is taken, is simply not registered (it is still
// removed on every way out but a signal).
constexpr std::size_t kSlots = 64;
constexpr std::size_t kSlotBytes = 4096;
struct TemporarySlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path
  std::array<char, kSlotBytes> path{};
};
std::array<TemporarySlot, kSlots> g_temporaries;

int register_temporary(const std::string& path) {
  if (path.size() >= kSlotBytes) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_temporaries[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_temporaries[i].path.data(), path.c_str(), path.size() + 1);
    g_temporaries[i].state.store(2);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_temporaries[static_cast<std::size_t>(slot)].state.store(0);
}

// The signal handler's own check that a slot names one of our temporary
// files: its last component starts with kTemporaryPrefix.
bool names_a_temporary(const char* path) noexcept {
  const char* base = path;
  for (const char* p = path; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return std::strncmp(base, kTemporaryPrefix.data(), kTemporaryPrefix.size()) == 0;
}

extern "C" void remove_temporaries_and_die(int signal_number) {
  remove_temporary_outputs();
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal_number, &fallback, nullptr);
  // Delivered once this handler returns (the signal is blocked inside it),
  // with the default action: the process ends as it would have.
  ::raise(signal_number);
}

// Installs remove_temporaries_and_die for the signals that end a process by
// default and that a user sends to stop a command, where nobody else has
// claimed them.
void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (::sigaction(signal_number, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_die;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESTART;
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

// The descriptor of this process that `path` names: /dev/stdin, /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N or /proc/PID/fd/N with our PID.
std::optional<int> own_descriptor(const fs::path& path) {
  const std::string text = path.lexically_normal().string();
  if (text == "/dev/stdin") return 0;
  if (text == "/dev/stdout") return 1;
  if (text == "/dev/stderr") return 2;
  std::string_view rest;
  const std::string own_proc = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string_view prefix :
       {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/"),
        std::string_view(own_proc)}) {
    if (text.size() > prefix.size() && std::string_view(text).substr(0, prefix.size()) == prefix) {
      rest = std::string_view(text).substr(prefix.size());
      break;
    }
  }
  if (rest.empty()) return std::nullopt;
  int fd = -1;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), fd);
  if (ec != std::errc() || end != rest.data() + rest.size() || fd < 0) return std::nullopt;
  return fd;
}

// What a path turned out to be once its links were followed.
struct Resolved {
  enum class Kind { kDescriptor, kExisting, kMissing } kind = Kind::kMissing;
  int descriptor = -1;  // kDescriptor
  fs::path path;        // kExisting, kMissing: the last name of the chain
  struct stat st {};    // kExisting
};

// Follows `path`'s symbolic links. 0, or the errno that stopped it.
int resolve(const fs::path& path, Resolved* out) {
  fs::path current = path;
  for (int links = 0;; ++links) {
    if (const std::optional<int> fd = own_descriptor(current)) {
      out->kind = Resolved::Kind::kDescriptor;
      out->descriptor = *fd;
      return 0;
    }
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0) {
      if (errno != ENOENT) return errno;
      out->kind = Resolved::Kind::kMissing;
      out->path = current;
      return 0;
    }
    if (!S_ISLNK(st.st_mode)) {
      out->kind = Resolved::Kind::kExisting;
      out->path = current;
      out->st = st;
      return 0;
    }
    if (links == kMaxLinks) return ELOOP;
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    while (true) {
      const ssize_t n = ::readlink(current.c_str(), target.data(), target.size());
      if (n < 0) return errno;
      if (static_cast<std::size_t>(n) < target.size()) {
        target.resize(static_cast<std::size_t>(n));
        break;
      }
      target.resize(target.size() * 2);  // the link changed meanwhile
    }
    const fs::path next(target);
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
}

std::atomic<unsigned> g_temporary_counter{0};

}  // namespace

void remove_temporary_outputs() noexcept {
  for (TemporarySlot& slot : g_temporaries) {
    if (slot.state.load() != 2) continue;
    const char* path = slot.path.data();
    if (names_a_temporary(path)) ::unlink(path);
  }
}

Result<OutputFile> OutputFile::open(const fs::path& path, unsigned new_file_mode) {
  OutputFile out;
  out.path_ = path;
  const auto refuse = [&](int err) -> Result<OutputFile> { return out.fail(err); };
  const auto refuse_because = [&](std::string_view why) -> Result<OutputFile> {
    out.failed_ = true;
    return io_failure("cannot write " + path.string() + ": " + std::string(why));
  };
  if (path.empty()) return refuse_because("an empty path");
  Resolved resolved;
  if (const int err = resolve(path, &resolved); err != 0) return refuse(err);
  if (resolved.kind == Resolved::Kind::kDescriptor) {
    // Whatever this process printed there so far goes first.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    if (::fcntl(resolved.descriptor, F_GETFD) < 0) return refuse(EBADF);
    out.fd_ = resolved.descriptor;
    return out;
  }
  // The links were followed by hand (readlink), which steps around the
  // kernel's own rules for following them: with fs.protected_symlinks, root
  // may not follow a link that another user planted in a sticky,
  // world-writable folder such as /tmp. Asking the kernel to open the path
  // as given (O_PATH: nothing is read or written) applies exactly the rules
  // a shell's redirection meets; what it refuses is refused here too. A name
  // that does not exist yet is fine: the links leading to it were allowed.
  if (const UniqueFd probe(::open(path.c_str(), O_PATH | O_CLOEXEC)); !probe && errno != ENOENT) {
    return refuse(errno);
  }
  if (resolved.kind == Resolved::Kind::kExisting) {
    const mode_t type = resolved.st.st_mode & S_IFMT;
    if (type == S_IFDIR) return refuse(EISDIR);
    if (type == S_IFBLK) return refuse_because("a block device (stguard never writes to a disk)");
    if (type == S_IFSOCK) return refuse_because("a socket");
    if (type == S_IFCHR || type == S_IFIFO) {
      out.owned_ = UniqueFd(::open(resolved.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
      if (!out.owned_) return refuse(errno);
      out.fd_ = out.owned_.get();
      return out;
    }
    if (::faccessat(AT_FDCWD, resolved.path.c_str(), W_OK, AT_EACCESS) != 0) return refuse(errno);
  }
  // A regular file, or none yet: a temporary file beside it, renamed over it.
  install_signal_cleanup();
  out.target_ = resolved.path;
  const fs::path dir = resolved.path.parent_path();
  out.temporary_ = dir / (std::string(kTemporaryPrefix) + std::to_string(::getpid()) + "-" +
                          std::to_string(g_temporary_counter++) + ".tmp");
  // Registered before it exists, so that no signal finds it unregistered.
  out.registration_ = register_temporary(out.temporary_.string());
  const bool existing = resolved.kind == Resolved::Kind::kExisting;
  out.owned_ =
      UniqueFd(::open(out.temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      static_cast<mode_t>(existing ? 0600 : new_file_mode)));
  if (!out.owned_) {
    const int err = errno;
    unregister_temporary(std::exchange(out.registration_, -1));
    out.temporary_.clear();
    return refuse(err);
  }
  out.fd_ = out.owned_.get();
  if (existing) {
    // The replacement looks like the file it replaces: same permission bits,
    // and as root (where files of other users are written) the same owner.
    // The owner first: changing it clears the set-user-ID and set-group-ID
    // bits, which the mode then puts back. Another user may give the file
    // its group back when they are in that group.
    const mode_t wanted = resolved.st.st_mode & 07777;
    if (::geteuid() == 0) {
      if (::fchown(out.fd_, resolved.st.st_uid, resolved.st.st_gid) != 0) return refuse(errno);
    } else {
      (void)::fchown(out.fd_, static_cast<uid_t>(-1), resolved.st.st_gid);  // EPERM: not a member
    }
    if (::fchmod(out.fd_, wanted) != 0) return refuse(errno);
    // A set-ID file whose replacement would not keep its bit (the kernel
    // drops a set-group-ID bit this user may not set, without failing), or
    // would keep it for another owner or group, would change what it is:
    // it is not replaced.
    struct stat now {};
    if (::fstat(out.fd_, &now) != 0) return refuse(errno);
    if ((now.st_mode & 07777) != wanted ||
        ((wanted & S_ISUID) != 0 && now.st_uid != resolved.st.st_uid) ||
        ((wanted & S_ISGID) != 0 && now.st_gid != resolved.st.st_gid)) {
      return refuse_because(
          "its replacement could not keep its set-user-ID or set-group-ID bit with its owner "
          "and group; left as it is");
    }
  }
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temporary_(std::exchange(other.temporary_, {})),
      owned_(std::move(other.owned_)),
      fd_(std::exchange(other.fd_, -1)),
      registration_(std::exchange(other.registration_, -1)),
      failed_(other.failed_) {}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  owned_.reset();
  fd_ = -1;
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    temporary_.clear();
  }
  unregister_temporary(std::exchange(registration_, -1));
}

Failure OutputFile::fail(int err) {
  failed_ = true;
  discard();
  return io_failure("cannot write " + path_.string() + ": " + errno_text(err));
}

Result<void> OutputFile::write(std::string_view bytes) {
  if (failed_ || fd_ < 0) return fail(EBADF);
  if (!owned_) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(errno);
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<void> OutputFile::commit() {
  if (failed_ || fd_ < 0) return fail(EBADF);
  if (owned_) {
    // close() is where some file systems report a write that failed late.
    const int fd = owned_.release();
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) return fail(errno);
  }
  fd_ = -1;
  if (!temporary_.empty()) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) return fail(errno);
    temporary_.clear();
    unregister_temporary(std::exchange(registration_, -1));
  }
  return {};
}

Result<void> write_file(const fs::path& path, std::string_view bytes, unsigned new_file_mode) {
  Result<OutputFile> out = OutputFile::open(path, new_file_mode);
  if (!out) return std::move(out).error();
  if (Result<void> wrote = out->write(bytes); !wrote) return wrote;
  return out->commit();
}

}  // namespace stguard::base
