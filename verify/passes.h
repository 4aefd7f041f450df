// verify/passes.h (internal to verify/): the passes over one listed folder,
// the API both verifiers use: the plain-folder one (verifier.cc, also for
// --local-dir) and the Hub cache's (hub_cache.cc), on each snapshot. Use
// goes one way: the verifiers call the passes; the passes include nothing of
// either verifier.
//
// The passes run in a fixed order, each appending its findings, so the report
// reads folder, shards, index reading, checkpoints and duplicate tensors,
// index comparisons, checksums, values. Each pass takes what it reads as
// const references (the options and the listing, PassContext; what earlier
// passes returned), returns what it finds out, and appends its findings to
// the `findings` it is given (some look at earlier ones first):
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
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/failure.h"
#include "verify/file_read.h"
#include "verify/folder.h"
#include "verify/value_check.h"
#include "verify/verify.h"

namespace stguard::verify {

// What every pass reads and none changes: the options and the listed folder.
struct PassContext {
  const VerifyOptions& options;
  const Listing& folder;
};

// What the shard pass found out, read by every pass after it.
struct CheckedShards {
  std::vector<ShardReport> reports;                       // by name; the report's shards
  std::unordered_map<std::string, std::size_t> position;  // name -> index in reports
  std::unordered_map<std::string, FileStamp> stamps;      // when each shard was checked
  // Tensor name -> the shards (indices in reports) that hold it.
  std::unordered_map<std::string, std::vector<std::uint32_t>> tensors;
  ValueScans values;  // with scan_values: one scanner per accepted shard
};

// An index as read: its report, and for a usable one its weight_map and
// the shards it names (checked names, relative to DIR).
struct IndexUnderCheck {
  IndexReport report;
  std::unordered_map<std::string, std::string> weight_map;  // tensor -> shard, as written
  std::unordered_map<std::string, std::string> normalised;  // shard as written -> name in DIR
  std::set<std::string> named;                              // shards it names, in DIR terms
  std::set<std::string> unusable;  // shards as written whose tensors cannot be checked
};

// The shards grouped into checkpoints.
struct Checkpoints {
  std::vector<CheckpointReport> reports;  // indexes first, then sets, then single files
  // Shard id (index in CheckedShards::reports) -> the checkpoints (indices
  // in reports) it belongs to: one, or more when several indexes name it.
  std::vector<std::vector<std::uint32_t>> of_shard;
};

// The checksum list the checksum pass holds DIR against.
struct ChecksumList {
  std::string file;  // "SHA256SUMS", or the --sha256 path as given
  bool from_option = false;
  // Its text; nullopt when it is there but could not be used: a symlink not
  // followed (the folder pass reported it), refused or unreadable (`finding`).
  std::optional<std::string> text;
  std::optional<Finding> finding;
};

// One run of the passes over one folder, as a verifier holds it: the
// options and the listing, what each pass returned, and the report being
// built (its findings in order). Owned by the plain-folder verifier, or by
// the Hub verifier for each snapshot; the passes never see it whole.
struct Verification {
  explicit Verification(const VerifyOptions& opts) : options(opts) {}
  PassContext context() const { return PassContext{options, folder}; }
  ReadContext reads() const {
    return ReadContext{options, folder, shards.values, read_by_layout, shards.stamps};
  }

  const VerifyOptions& options;
  Listing folder;
  // dir, layout, findings; indexes, checksums and values as their passes
  // return them; shards and checkpoints once take_report moves them in.
  VerifyReport report;
  // The checksum list's text once read: --sha256 FILE (read before DIR is
  // listed) or SHA256SUMS; empty when there is none.
  std::string checksum_text;
  CheckedShards shards;
  std::vector<IndexUnderCheck> indexes;  // by file name
  Checkpoints checkpoints;
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

// ------------------------------------------------------------ for layouts --
// What a verifier calls, in this order (passes.cc).

// The text of --sha256 FILE, read before anything else: one that cannot be
// read fails (an I/O failure: "cannot open checksum file PATH: ..."), a
// usage error (exit status 2), not a finding about DIR. Call only when
// options.sha256_file is set.
base::Result<std::string> read_checksum_option(const VerifyOptions& options);

// The passes that read headers and indexes only (folder, shards, indexes,
// checkpoints, duplicates); v.report.ran is set. Afterwards every accepted
// shard has its value scanner in v.shards.values, so that a layout hashing
// the files itself (the Hub's checksums) can feed the scan from its own read
// and leave the digest in v.read_by_layout.
void run_structure_passes(Verification& v);

// The passes that read contents (checksums, values): each file that no
// earlier read covered is read once here.
void run_content_passes(Verification& v);

// Last, once the layout's own findings are in v.report: gives each finding
// about a file its checkpoint and counts each checkpoint's tensors, bytes,
// errors and warnings.
void finish_checkpoints(Verification& v);

// The report, with the shards and checkpoints moved in; after finish_checkpoints
// (and count_against_checkpoints). Without the totals (count_totals).
VerifyReport take_report(Verification& v);

// Tensors and bytes of the accepted shards, errors, warnings and unreadable
// files counted from the findings. Adds to what is there.
void count_totals(VerifyReport& report);

// ------------------------------------------------------------- the passes --

// Each shard's structure checked (a symlink not followed skipped), the
// value scanners set up; no_shards when there is none. `dir` names DIR in
// that finding (passes.cc).
CheckedShards check_shards(const PassContext& context, const std::string& dir,
                           std::vector<Finding>& findings);

// Every index (*.safetensors.index*.json) read, with findings for the
// unusable ones and for shard names that could leave DIR (index_check.cc).
std::vector<IndexUnderCheck> read_indexes(const PassContext& context,
                                          std::vector<Finding>& findings);

// Each usable index held against the shards of its checkpoint: missing,
// extra and wrong-shard tensors, named shards absent, total_size. Returns
// every index's report, with computed_size when it could be summed (index_check.cc).
std::vector<IndexReport> compare_indexes(const PassContext& context, const CheckedShards& shards,
                                         const std::vector<IndexUnderCheck>& indexes,
                                         std::vector<Finding>& findings);

// The shards grouped into checkpoints: each index one, each set of
// X-0000N-of-0000M shards without an index one (index_missing), each other
// file one; a set member that an index for its prefix does not name is
// shard_not_in_index (checkpoints.cc).
Checkpoints group_checkpoints(const CheckedShards& shards,
                              const std::vector<IndexUnderCheck>& indexes,
                              std::vector<Finding>& findings);

// A tensor name in two or more shards of one checkpoint (checkpoints.cc).
std::vector<Finding> find_duplicate_tensors(const CheckedShards& shards,
                                            const Checkpoints& checkpoints);

// Gives each finding about a file its checkpoint, and counts each
// checkpoint's tensors, bytes, errors and warnings (checkpoints.cc).
void count_checkpoints(const CheckedShards& shards, Checkpoints& checkpoints,
                       std::vector<Finding>& findings);

// Counts a finding kept outside the report (the Hub cache's finding about
// the blob that `file` is) against every checkpoint holding `file`, a shard
// or an index relative to DIR; after count_checkpoints. Returns the name of
// the first such checkpoint, "" when none holds it (checkpoints.cc).
std::string count_against_checkpoints(const CheckedShards& shards, Checkpoints& checkpoints,
                                      const std::string& file, Severity severity);

// The checksum list: --sha256 FILE (its text read first, `option_text`) or
// DIR's SHA256SUMS read; nullopt when there is neither (checksum_check.cc).
std::optional<ChecksumList> read_checksum_list(const PassContext& context, std::string option_text);

// Holds DIR against the list and hashes what it lists; nullopt when there
// is no list (checksum_check.cc).
std::optional<ChecksumReport> check_checksums(const ReadContext& reads,
                                              const std::vector<ShardReport>& shards,
                                              const std::optional<ChecksumList>& list,
                                              std::vector<Finding>& findings);

// The checksum list (its text, and the checksum pass's report naming it)
// held against a layout's own sha256 checksums (Hub blob names, --local-dir
// etags), once the checksum pass ran: each name in both with different
// digests is checksum_sources_disagree. `layout_sha256` maps names (relative
// to the listed folder) to 64 hex digits; `layout_source` names them in
// messages (checksum_check.cc).
std::vector<Finding> compare_checksum_sources(
    const std::string& checksum_text, const std::optional<ChecksumReport>& checksums,
    const std::map<std::string, std::string>& layout_sha256, std::string_view layout_source);

// With options.scan_values: reads the shards that no earlier read claimed
// (on a pool, as hashing does), then the value findings and the report's
// `values`; nullopt without scan_values (value_check.cc).
std::optional<ValuesReport> check_values(const ReadContext& reads,
                                         const std::vector<ShardReport>& shards, ValueScans& values,
                                         std::vector<Finding>& findings);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_PASSES_H_
