// verify/passes.h (internal to verify/): the passes over one listed folder,
// the API both verifiers use: the plain-folder one (verifier.cc, also for
// --local-dir) and the Hub cache's (hub_cache.cc), on each snapshot. Use
// goes one way: the verifiers call the passes; the passes include nothing of
// either verifier.
//
// The passes run in a fixed order, each appending its findings, so the report
// reads folder, shards, index reading, checkpoints and duplicate tensors,
// index comparisons, checksums, values:
//   passes.cc          the order; folder findings, shards, totals
//   tree.cc            with --recursive, the subfolders listed
//   index_check.cc     each index read, then held against its checkpoint's shards
//   checkpoints.cc     the shards grouped into checkpoints, duplicates within one
//   checksum_check.cc  the checksum list checked and the files hashed on a pool
//   value_check.cc     the value scan's findings (with scan_values; the
//                      scanners ride on the checksum pass's reads)
#ifndef STGUARD_VERIFY_PASSES_H_
#define STGUARD_VERIFY_PASSES_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "verify/file_read.h"
#include "verify/folder.h"
#include "verify/value_check.h"
#include "verify/verify.h"

namespace stguard::verify {

// An index as read: its report, and for a usable one its weight_map and
// the shards it names (checked names, relative to DIR).
struct IndexUnderCheck {
  IndexReport report;
  std::unordered_map<std::string, std::string> weight_map;  // tensor -> shard, as written
  std::unordered_map<std::string, std::string> normalised;  // shard as written -> name in DIR
  std::set<std::string> named;                              // shards it names, in DIR terms
  std::set<std::string> unusable;  // shards as written whose tensors cannot be checked
};

struct Verification {
  explicit Verification(const VerifyOptions& opts) : options(opts) {}

  const VerifyOptions& options;
  VerifyReport report;
  Listing folder;
  std::unordered_map<std::string, std::size_t> shard_index;  // name -> index in report.shards
  std::unordered_map<std::string, FileStamp> shard_stamps;   // when each shard was checked
  // Tensor name -> the shards (indices in report.shards) that hold it.
  std::unordered_map<std::string, std::vector<std::uint32_t>> tensors;
  std::string checksum_text;             // the --sha256 FILE, read before anything else
  ValueScans values;                     // one scanner per accepted shard, with scan_values
  std::vector<IndexUnderCheck> indexes;  // by file name
  // Shard id (index in report.shards) -> the checkpoints (indices in
  // report.checkpoints) it belongs to: one, or more when several indexes name it.
  std::vector<std::vector<std::uint32_t>> shard_checkpoints;
  // Files the layout's own checksums (the Hub's) already read, with their
  // sha256: the checksum pass takes the digest from here instead of reading
  // the file again. Filled between run_structure_passes and run_content_passes.
  std::unordered_map<std::string, FileRead> read_by_layout;

  void add(Finding finding) { report.findings.push_back(std::move(finding)); }
};

// A test-only injection point: when set, called once per run between the
// passes that read headers (shards, indexes) and those that read contents
// (the Hub's and --local-dir's hashing, SHA256SUMS, the value scan), on the
// calling thread. Tests replace a file there, to see that its contents are
// read through the descriptor its header came from. Empty in normal runs;
// set it only while no verification runs.
extern std::function<void()> g_test_between_passes;

// Reads --sha256 FILE into v.checksum_text (passes.cc); false, with
// v.report.fatal set, when it cannot be read.
bool load_checksum_option(Verification& v);

// The passes over v.folder come in two steps, without the totals
// (passes.cc); a layout runs its own checks between them, then calls
// finish_checkpoints.
//
// First the passes that read headers and indexes only (folder, shards,
// indexes, checkpoints, duplicates); v.report.ran is set. Afterwards every
// accepted shard has its value scanner in v.values, so that a layout hashing
// the files itself (the Hub's checksums) can feed the scan from its own read
// and leave the digest in v.read_by_layout.
void run_structure_passes(Verification& v);

// The passes that read contents (checksums, values): each file that no
// earlier read covered is read once here.
void run_content_passes(Verification& v);

// Tensors and bytes of the accepted shards, errors, warnings and unreadable
// files counted from the findings (passes.cc). Adds to what is there.
void count_totals(VerifyReport& report);

// Reads every index (*.safetensors.index*.json) into v.indexes, with findings
// for the unusable ones and for shard names that could leave DIR (index_check.cc).
void read_indexes(Verification& v);

// Holds each usable index against the shards of its checkpoint: missing,
// extra and wrong-shard tensors, named shards absent, total_size (index_check.cc).
void compare_indexes(Verification& v);

// Groups the shards into checkpoints (report.checkpoints, shard_checkpoints):
// each index one, each set of X-0000N-of-0000M shards without an index one
// (index_missing), each other file one; a set member that an index for its
// prefix does not name is shard_not_in_index (checkpoints.cc).
void group_checkpoints(Verification& v);

// A tensor name in two or more shards of one checkpoint (checkpoints.cc).
void check_duplicates(Verification& v);

// Gives each finding about a file its checkpoint, and counts each
// checkpoint's tensors, bytes, errors and warnings (checkpoints.cc).
void finish_checkpoints(Verification& v);

// Counts a finding kept outside v.report (the Hub cache's finding about the
// blob that `file` is) against every checkpoint holding `file`, a shard or
// an index relative to DIR; after finish_checkpoints. Returns the name of
// the first such checkpoint, "" when none holds it (checkpoints.cc).
std::string count_against_checkpoints(Verification& v, const std::string& file, Severity severity);

// Checks SHA256SUMS, or the --sha256 list in v.checksum_text, and hashes what
// it lists (checksum_check.cc).
void check_checksums(Verification& v);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_PASSES_H_
