// verify/report_merge.h (internal to verify/): one folder's report appended
// to another's, every name in it prefixed with where that folder sits: a
// snapshot's report into its repository's ("snapshots/<commit>/"), a
// repository's into the cache root's ("models--ORG--NAME/").
//
//   merge_report(repo_report, std::move(snapshot_report), "snapshots/" + commit + "/");
#ifndef STGUARD_VERIFY_REPORT_MERGE_H_
#define STGUARD_VERIFY_REPORT_MERGE_H_

#include <string>

#include "verify/verify.h"

namespace stguard::verify {

// Appends `from` to `into` with every file name prefixed by `prefix` (which
// ends with '/'; an empty name becomes the prefix without it): shards,
// indexes, checkpoints, checksums, the value scan, findings and the Hub's
// own parts. Totals are not merged: they are counted once, at the end, over
// everything (count_totals).
void merge_report(VerifyReport& into, VerifyReport&& from, const std::string& prefix);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_REPORT_MERGE_H_
