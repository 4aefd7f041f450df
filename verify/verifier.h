// verify/verifier.h (internal to verify/): the plain-folder verifier: a model
// folder as copied or downloaded, and a `--local-dir` download, whose
// metadata (local_dir.h) it checks between the passes that read headers and
// those that read contents. verify_model_folder (verify.cc) calls it for
// every layout but the Hub cache's (hub_cache.h).
//
//   base::Opened opened = open_dir_argument(dir);  // layout.h
//   VerifyReport report = verify_folder(dir, std::move(opened), Layout::kFolder, options);
#ifndef STGUARD_VERIFY_VERIFIER_H_
#define STGUARD_VERIFY_VERIFIER_H_

#include <string>

#include "base/sandbox.h"
#include "verify/verify.h"

namespace stguard::verify {

// Verifies `dir`, open as `opened`, as a plain folder (`layout` kFolder) or
// a --local-dir download (kLocalDir). ran = false, with fatal, when DIR
// cannot be opened or listed or --sha256 FILE cannot be read.
VerifyReport verify_folder(const std::string& dir, base::Opened opened, Layout layout,
                           const VerifyOptions& options);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_VERIFIER_H_
