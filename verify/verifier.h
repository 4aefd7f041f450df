// verify/verifier.h (internal to verify/): the state one run of
// verify_model_folder shares between its passes, and the passes that live in
// files of their own.
//
// The passes run in a fixed order, each appending its findings, so the report
// reads folder, shards, duplicate tensors, indexes, checksums, values:
//   verifier.cc        listing, folder findings, shards, duplicates, totals
//   index_check.cc     each index read and held against the shards
//   checksum_check.cc  the checksum list checked and the files hashed on a pool
//   value_check.cc     the value scan's findings (with scan_values; the
//                      scanners ride on the checksum pass's reads)
#ifndef STGUARD_VERIFY_VERIFIER_H_
#define STGUARD_VERIFY_VERIFIER_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "verify/folder.h"
#include "verify/value_check.h"
#include "verify/verify.h"

namespace stguard::verify {

struct Verification {
  explicit Verification(const VerifyOptions& opts) : options(opts) {}

  const VerifyOptions& options;
  VerifyReport report;
  Listing folder;
  std::unordered_map<std::string, std::size_t> shard_index;  // name -> index in report.shards
  std::unordered_map<std::string, FileStamp> shard_stamps;   // when each shard was checked
  // Tensor name -> the shards (indices in report.shards) that hold it.
  std::unordered_map<std::string, std::vector<std::uint32_t>> tensors;
  std::string checksum_text;  // the --sha256 FILE, read before anything else
  ValueScans values;          // one scanner per accepted shard, with scan_values

  void add(Finding finding) { report.findings.push_back(std::move(finding)); }
};

// Reads --sha256 FILE into v.checksum_text (verifier.cc); false, with
// v.report.fatal set, when it cannot be read.
bool load_checksum_option(Verification& v);

// The passes over v.folder in their order (folder, shards, duplicates,
// indexes, checksums), without the totals (verifier.cc). v.report.ran is set.
void run_folder_passes(Verification& v);

// Tensors and bytes of the accepted shards, errors, warnings and unreadable
// files counted from the findings (verifier.cc). Adds to what is there.
void count_totals(VerifyReport& report);

// Reads every *.safetensors.index.json and holds each usable one against the
// shards found (index_check.cc).
void check_indexes(Verification& v);

// Checks SHA256SUMS, or the --sha256 list in v.checksum_text, and hashes what
// it lists (checksum_check.cc).
void check_checksums(Verification& v);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_VERIFIER_H_
