// verify/hub_cache.h (internal to verify/): `stguard verify` on the Hugging
// Face cache (~/.cache/huggingface/hub), and telling the layouts apart.
//
//   base::Opened opened = open_dir_argument(dir);
//   Layout layout = detect_layout(dir, opened.fd.get());  // what --layout auto picks
//   if (layout == Layout::kHubRepo) report = verify_hub(dir, std::move(opened), layout, options);
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
#ifndef STGUARD_VERIFY_HUB_CACHE_H_
#define STGUARD_VERIFY_HUB_CACHE_H_

#include <string>
#include <string_view>

#include "base/sandbox.h"
#include "verify/verify.h"

namespace stguard::verify {

// Opens DIR as given, once: detecting its layout and verifying it use this
// descriptor (a folder renamed over DIR meanwhile is not half-looked at).
// fd invalid and err set when it cannot be opened.
base::Opened open_dir_argument(const std::string& dir);

// What `dir`, open on `dir_fd` (-1 when it could not be opened), is, from its
// path and a look at its top level (never reading a file): a path ending
// models--ORG--NAME/snapshots/<commit> is a snapshot; a folder named models--* (datasets--*,
// spaces--*) holding snapshots/ or blobs/ a repository; a folder holding such repositories (or
// symlinks named like one, which the cache root's checks report and never follow) the cache root; a
// folder with .cache/huggingface/download/ a --local-dir download; anything else a plain folder.
Layout detect_layout(const std::string& dir, int dir_fd);

// The layout to verify `dir` as: detect_layout for kAuto; for any Hub
// layout, the Hub layout detected (a repository when none is); else `requested`.
Layout resolve_layout(const std::string& dir, int dir_fd, Layout requested);

// True for "models--ORG--NAME", "datasets--...", "spaces--...".
bool is_hub_repo_name(std::string_view name);

// Verifies a repository, a snapshot or the cache root (`layout` says which),
// `opened` being DIR (open_dir_argument; a snapshot's repository, two levels
// up, is opened by its path).
VerifyReport verify_hub(const std::string& dir, base::Opened opened, Layout layout,
                        const VerifyOptions& options);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_HUB_CACHE_H_
