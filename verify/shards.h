// verify/shards.h (internal to verify/): checking one shard.
//
//   stguard::verify::ShardCheck c = stguard::verify::check_shard(folder, entry, follow);
//   report.shards.push_back(c.report);
//   if (c.finding) report.findings.push_back(*c.finding);
//
// The verdict is the strict parser's, from the shard's first 8 + N bytes.
// When it rejects the file, base::sniff_content says what the file really is
// (a Git LFS pointer, an HTML page, a ZIP or pickle checkpoint, zeros left by
// a preallocating download, ...), so that check, inspect and verify describe a
// file the same way; a truncation is measured against what the header says.
#ifndef STGUARD_VERIFY_SHARDS_H_
#define STGUARD_VERIFY_SHARDS_H_

#include <optional>
#include <string>
#include <vector>

#include "stguard/header.h"
#include "verify/folder.h"
#include "verify/verify.h"

namespace stguard::verify {

struct ShardCheck {
  ShardReport report;
  // What explains a reject or a skip: a shard finding, or a folder finding
  // (a symlink resolving outside DIR). None for an accepted shard, nor for a
  // symlink that is not followed (folder_findings reports those).
  std::optional<Finding> finding;
  std::vector<std::string> tensors;  // names in header order, when accepted
  std::optional<FileStamp> stamp;    // when it was checked (a regular file was opened)
  std::optional<Header> layout;      // the accepted header, when asked for (the value scan)
};

// Checks the shard `entry` (role kShard) of `folder`. With keep_layout, an
// accepted shard's header is kept in layout.
ShardCheck check_shard(const Listing& folder, const Entry& entry, bool follow_symlinks,
                       bool keep_layout = false);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_SHARDS_H_
