// base/output.h: the one way stguard writes a file the user named (a report,
// `stguard write OUT`, a corpus or hunt file), written once for the project.
//
//   if (stguard::base::Result<void> w = stguard::base::write_file("junit.xml", text); !w) {
//     std::cerr << w.error().message << "\n";  // "cannot write junit.xml: No space left on device"
//     return 2;
//   }
//
//   // Or piece by piece; nothing is at the path until commit():
//   stguard::base::Result<stguard::base::OutputFile> out =
//       stguard::base::OutputFile::open("big.jsonl");
//   if (!out) ...;
//   if (auto w = out->write(line); !w) ...;
//   if (auto c = out->commit(); !c) ...;
//
// What happens depends on what the path is when the write starts:
//   - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (or a link to
//     one of them): written through this process's own descriptor N, after
//     std::cout, std::cerr and stdio are flushed, so the bytes land where
//     that descriptor points (a terminal, a pipe, a file the shell opened
//     with `>` or `>>`) and in order with what the process printed there;
//   - a character device or a FIFO (/dev/null, /dev/full, a named pipe):
//     opened and written in place, never replaced (a FIFO waits for a
//     reader, as a shell redirection would);
//   - a symbolic link: followed (up to 40 links, each relative one from its
//     own directory), and the rules apply to the file it names; the link
//     itself stays. A chain that ends at a name that does not exist creates
//     that file, as a shell redirection would;
//   - a regular file: replaced atomically by a temporary file in its own
//     directory, renamed over it once complete, so nobody ever reads half
//     of it; the new file keeps the old one's permission bits (and, when
//     running as root, its owner and group). A file this process may not
//     write is refused (EACCES), as a shell redirection would refuse it.
//     Other hard links to the old file keep the old content;
//   - nothing yet: a new file, through a temporary file as above, with
//     permissions `new_file_mode` less the umask;
//   - a directory, a block device (a disk) or a socket: refused.
// Directories are never created.
//
// The temporary file (".stguard-PID-N.tmp" beside the target) is removed on
// every way out: a failed write, an OutputFile destroyed uncommitted, and
// SIGINT, SIGTERM or SIGHUP arriving while it exists. For those signals a
// handler is installed on the first open when the signal's disposition is
// the default one: it removes the temporary files, then lets the signal end
// the process as it would have. A program with handlers of its own either
// finishes its writes before acting on the signal (stguard conform and hunt
// do) or calls remove_temporary_outputs() from its handler.
//
// Every failure is "cannot write PATH: REASON" with the system's reason, and
// leaves nothing of the attempt at PATH.
#ifndef STGUARD_BASE_OUTPUT_H_
#define STGUARD_BASE_OUTPUT_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "base/file_io.h"

namespace stguard::base {

class OutputFile {
 public:
  // Starts writing `path` (see above). Fails when it cannot be written at
  // all.
  static Result<OutputFile> open(const std::filesystem::path& path, unsigned new_file_mode = 0666);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Uncommitted: removes the temporary file; the path keeps what it held.
  ~OutputFile();

  // Appends `bytes`. Fails when the system refused them (the OutputFile is
  // then good only for destruction).
  Result<void> write(std::string_view bytes);

  // Puts the written bytes in place: renames the temporary file over the
  // target, or closes the device or FIFO. Fails when that fails (a close
  // that reports a delayed write error counts); the temporary file is
  // removed then.
  Result<void> commit();

  // The path as given to open(), for messages.
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  OutputFile() = default;
  Failure fail(int err);
  void discard() noexcept;

  std::filesystem::path path_;       // as given
  std::filesystem::path target_;     // what a temporary file is renamed to ("" otherwise)
  std::filesystem::path temporary_;  // the temporary file ("" when writing in place)
  UniqueFd owned_;                   // the temporary file, device or FIFO
  int fd_ = -1;                      // where bytes go: owned_ or a descriptor of ours
  int registration_ = -1;            // slot of temporary_ for the signal handler
  bool failed_ = false;
};

// Writes `bytes` as the whole content of `path`: OutputFile::open, write,
// commit.
Result<void> write_file(const std::filesystem::path& path, std::string_view bytes,
                        unsigned new_file_mode = 0666);

// Unlinks every temporary file an OutputFile of this process has made and
// not yet renamed or removed. Async-signal-safe.
void remove_temporary_outputs() noexcept;

}  // namespace stguard::base

#endif  // STGUARD_BASE_OUTPUT_H_
