// verify/layout.h (internal to verify/): what DIR is, told before anything in
// it is read, so that verify_model_folder (verify.cc) can hand it to the
// verifier of its layout: the plain-folder one (verifier.h, also for
// --local-dir) or the Hub cache's (hub_cache.h).
//
//   base::Opened opened = open_dir_argument(dir);
//   Layout layout = resolve_layout(dir, opened.fd.get(), options.layout);
//   if (is_hub_layout(layout)) ... else ...
//
// Detection looks at DIR's path and at the names at its top level only
// (never reading a file), on the descriptor the checks then use.
#ifndef STGUARD_VERIFY_LAYOUT_H_
#define STGUARD_VERIFY_LAYOUT_H_

#include <filesystem>
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

// A repository, a snapshot or the cache root: the Hub verifier's to check.
bool is_hub_layout(Layout layout);

// True for "models--ORG--NAME", "datasets--...", "spaces--...".
bool is_hub_repo_name(std::string_view name);

// `dir` without trailing separators, made absolute lexically (no file is
// looked at), so that "." inside a snapshot is recognised and a snapshot's
// repository is found two levels up.
std::filesystem::path normal_path(const std::string& dir);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_LAYOUT_H_
