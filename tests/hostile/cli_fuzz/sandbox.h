// tests/hostile/cli_fuzz/sandbox.h: the folders the fuzzed command lines
// point into, and snapshots of them.
//
// A session lays out, once, a template of the shapes a user's file system
// holds (sandbox.cc lists them: inputs, a model folder, a --local-dir
// download, folders stguard made earlier and a folder of the user's,
// symbolic links dangling, looping, to files, to folders, to devices and
// planted by another user in a sticky folder, a FIFO, read-only and
// unreadable files, /dev/full, a 64 KiB tmpfs) and a data directory (a small
// corpus and recipes) for STGUARD_DATA_DIR. Each run gets a fresh copy of
// the template, and everything the run could touch is snapshotted before
// and after it: every entry's type, permission bits, owner, link target and
// content.
#ifndef STGUARD_TESTS_HOSTILE_CLI_FUZZ_SANDBOX_H_
#define STGUARD_TESTS_HOSTILE_CLI_FUZZ_SANDBOX_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace stguard_cli_fuzz {

// One entry as lstat and its content show it.
struct EntryState {
  char type = '?';  // 'f' file, 'd' directory, 'l' link, 'p' FIFO, 'c' device, 's' socket
  mode_t mode = 0;  // permission bits and set-ID bits
  uid_t uid = 0;
  gid_t gid = 0;
  std::uint64_t size = 0;
  std::string content;  // a file's bytes (up to a cap, then a digest), a link's target

  bool operator==(const EntryState&) const = default;
};

// Every entry below `root` (not following links), by path relative to it
// ("" is root itself), with `prefix` put before each name.
using Snapshot = std::map<std::string, EntryState>;
void take_snapshot(const std::filesystem::path& root, const std::string& prefix, Snapshot& out);

// "a file of 12 bytes, mode 0644, uid 0" for messages.
std::string describe(const EntryState& state);

// Where the built command, its data and the fake reader are.
struct Tools {
  std::string stguard;      // the command under test
  std::string fake_reader;  // tests/conformance/fake_reader (a reader with planted bugs)
  std::filesystem::path source_dir;
  // The command that lays out the sandbox (this build's): the one under
  // test may be another build (cli_fuzz_test.cc).
  std::string setup_stguard;
};

class Session {
 public:
  // Builds the template and the data directory under `work` (which must
  // exist and be empty). `error` says what failed; the session is then
  // unusable (ok() false).
  Session(const std::filesystem::path& work, Tools tools);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // A fresh copy of the template, "work/run-N"; the previous run's copy is
  // removed first. Also empties the tmpfs and the scratch TMPDIR.
  std::filesystem::path fresh_run_dir(std::uint64_t n);

  // Snapshot of everything a run may touch: the run folder ("run/..."), the
  // tmpfs ("small/..."), the data directory ("data/...") and TMPDIR
  // ("tmp/...").
  Snapshot snapshot(const std::filesystem::path& run_dir) const;

  const Tools& tools() const { return tools_; }
  const std::filesystem::path& data_dir() const { return data_; }
  const std::filesystem::path& tmp_dir() const { return tmp_; }
  const std::filesystem::path& home_dir() const { return home_; }
  // The 64 KiB tmpfs (a run folder's "small" links to it); empty when this
  // process may not mount one (not root).
  const std::filesystem::path& small_dir() const { return small_; }
  bool root() const { return root_; }
  // fs.protected_symlinks as it is during the session (the kernel's rule
  // for following a link planted in a sticky folder): set to 1 when root.
  bool protected_symlinks() const { return protected_symlinks_; }
  // How many shapes the template holds (entries below it).
  std::size_t shapes() const { return shapes_; }

 private:
  bool build_template();
  bool build_data();
  // Runs stguard with `args` (cwd `dir`), quietly; false with the reason in
  // error_ when it does not exit with `expected_exit` (-1: 0 or 1).
  bool run_stguard(const std::vector<std::string>& args, const std::filesystem::path& dir,
                   int expected_exit);

  std::filesystem::path work_;
  Tools tools_;
  std::filesystem::path template_;
  std::filesystem::path data_;
  std::filesystem::path tmp_;
  std::filesystem::path home_;
  std::filesystem::path small_;
  std::filesystem::path previous_run_;
  bool root_ = false;
  bool protected_symlinks_ = false;
  std::string previous_protected_symlinks_;  // the sysctl's value before, to put back
  std::size_t shapes_ = 0;
  std::string error_;
};

// The unprivileged user runs are made as when the fuzzer runs as root.
inline constexpr uid_t kNobody = 65534;
inline constexpr gid_t kNogroup = 65534;

}  // namespace stguard_cli_fuzz

#endif  // STGUARD_TESTS_HOSTILE_CLI_FUZZ_SANDBOX_H_
