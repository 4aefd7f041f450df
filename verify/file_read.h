// verify/file_read.h (internal to verify/): one read of a file in DIR,
// hashed or not, with its bytes also handed to the value scan, and whether
// the file changed meanwhile. Both the checksum pass and the value pass read
// through it, so that a shard is read once whatever asks for its bytes.
//
//   FileRead r = read_file_once(reads, "model.safetensors", /*hash=*/true,
//                               reads.values.claim("model.safetensors"), &done);
//   if (changed_while_verified(reads, "model.safetensors", r)) report(changed_message(r));
//   else if (!r.ok()) report(r.error_text());
//
// A file that grows or shrinks while it is read is a file that changed
// (file_changed), whichever way it was read (--hash-io read or mmap) and
// whether or not the read noticed: what decides is its fstat before and after
// the read. Only a read that failed on a file that stayed the same is a
// failure to read it.
#ifndef STGUARD_VERIFY_FILE_READ_H_
#define STGUARD_VERIFY_FILE_READ_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/sha256.h"
#include "verify/folder.h"
#include "verify/value_check.h"
#include "verify/verify.h"

namespace stguard::verify {

struct FileRead {
  base::Sha256Outcome outcome;           // the digest when hashed; the error when the read failed
  int open_err = 0;                      // errno of open_beneath, else 0
  bool changed = false;                  // between the fstat before reading and the one after
  std::optional<FileStamp> stamp;        // the fstat before reading
  std::optional<FileStamp> stamp_after;  // the fstat after
  std::uint64_t read_to = 0;             // bytes read before the read ended

  bool ok() const noexcept { return open_err == 0 && outcome.ok(); }
  // Why it failed, for a message ("" when ok()).
  std::string error_text() const;
};

// What reading the files of a listed folder takes, none of it changed by a
// read: how to open (options, folder) and hash them, the value scanners a
// read feeds (claimed atomically), the reads the layout's own checksums
// already made (the Hub's: not read again), and each shard's stamp from
// when its header was checked (a file that differs since has changed).
struct ReadContext {
  const VerifyOptions& options;
  const Listing& folder;
  const ValueScans& values;
  const std::unordered_map<std::string, FileRead>& read_by_layout;
  const std::unordered_map<std::string, FileStamp>& shard_stamps;
};

// Opens `name` beneath DIR (following symlinks as the options say) and reads
// it once: hashed when `hash`, and every chunk handed to `also` when given.
// `done` (may be null) is advanced by the bytes read.
FileRead read_file_once(const ReadContext& reads, const std::string& name, bool hash,
                        const base::ChunkSink& also, std::atomic<std::uint64_t>* done);

// A test-only injection point: when set, called once per watch_read, from
// the thread reading, after the first chunk of the file was read, with the
// file's descriptor, so that a test can grow or shrink the file in the
// middle of a read. Empty in normal runs; set it only while no verification
// runs.
extern std::function<void(int fd)> g_test_during_read;

// Runs `read` on the file open on `fd` with a sink that counts the bytes
// (into read_to) and hands them on to `also`, between two fstats (stamp,
// stamp_after, changed). The caller fills in `outcome`.
FileRead watch_read(int fd, const base::ChunkSink& also,
                    const std::function<void(const base::ChunkSink&)>& read);

// The message of a file_changed finding about `read`: that it changed while
// verified and, when its size changed during the read, its size when the
// read began, where the read ended and its size now.
std::string changed_message(const FileRead& read);

struct ReadJob {
  std::string name;  // relative to DIR, already checked by base::safe_relative_name
  std::uint64_t size = 0;
};

struct ReadStats {
  std::uint64_t bytes = 0;  // read
  double seconds = 0;       // wall time
  unsigned jobs = 0;        // threads used
};

// read_file_once for each job on base::parallel_for_each (options.jobs
// threads), largest files first so that one big file started last does not
// leave the other threads idle at the end; each read also feeds the file's
// value scan when it has one not yet claimed. With `hash`, a file in
// reads.read_by_layout is not read: its result is taken from there (and not
// counted in *stats). Reports progress through options.progress. Results in
// the order of `jobs`.
std::vector<FileRead> read_all(const ReadContext& reads, const std::vector<ReadJob>& jobs,
                               bool hash, ReadStats* stats);

// True when the file changed while it was read, or is not the file whose
// structure was checked (a shard replaced in between).
bool changed_while_verified(const ReadContext& reads, const std::string& name,
                            const FileRead& read);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_FILE_READ_H_
