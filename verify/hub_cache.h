// verify/hub_cache.h (internal to verify/): the Hub verifier, `stguard
// verify` on the Hugging Face cache (~/.cache/huggingface/hub): a cache
// root, a repository or one snapshot. verify_model_folder (verify.cc) calls
// it once layout.h has told the layout.
//
//   base::Opened opened = open_dir_argument(dir);                // layout.h
//   Layout layout = resolve_layout(dir, opened.fd.get(), kAuto);  // layout.h
//   if (is_hub_layout(layout)) report = verify_hub(dir, std::move(opened), layout, options);
//
// A cache repository models--ORG--NAME holds snapshots/<commit>/<path>
// symlinks to ../../blobs/<hash>, refs/<branch> files naming a commit, and
// blobs/<hash>(.incomplete). Snapshot links are resolved by reading them, not
// by following them: a link counts only when its target, taken lexically,
// is exactly blobs/<name> of the same repository, and that blob is then
// opened below blobs/ without following anything (a blob that is itself a
// link is refused). Nothing outside the repository is opened; given a
// snapshot, its repository (two levels up) is opened for blobs/ and refs/.
// Each blob is hashed once, however many snapshots use it; then each
// snapshot's top level gets the ordinary checks (shards, index, SHA256SUMS).
// Names in the report are relative to the repository (to the cache root for
// the cache root).
//
// The Hub code, one job a file: hub_cache.cc (this entry point, the cache
// root walk), hub_repository.cc (one repository, its checks in order),
// hub_snapshots.cc (refs and snapshots), hub_blobs.cc (blobs/ and their
// hashing), hub_content.cc (hashing against Hub checksums, shared with
// --local-dir), report_merge.cc (snapshot and repository reports merged).
#ifndef STGUARD_VERIFY_HUB_CACHE_H_
#define STGUARD_VERIFY_HUB_CACHE_H_

#include <string>

#include "base/sandbox.h"
#include "verify/verify.h"

namespace stguard::verify {

// Verifies a repository, a snapshot or the cache root (`layout` says which),
// `opened` being DIR (open_dir_argument; a snapshot's repository, two levels
// up, is opened by its path).
VerifyReport verify_hub(const std::string& dir, base::Opened opened, Layout layout,
                        const VerifyOptions& options);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_HUB_CACHE_H_
