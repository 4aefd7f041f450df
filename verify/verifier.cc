// verify/verifier.cc: the plain-folder verifier (and --local-dir's): DIR
// listed, the passes run, a --local-dir download's metadata checked between
// those that read headers and those that read contents, the totals.
#include "verify/verifier.h"

#include <map>
#include <utility>

#include "verify/folder.h"
#include "verify/hub_content.h"
#include "verify/local_dir.h"
#include "verify/passes.h"

namespace stguard::verify {

VerifyReport verify_folder(const std::string& dir, base::Opened opened, Layout layout,
                           const VerifyOptions& options) {
  Verification v(options);
  v.report.dir = dir;
  v.report.layout = layout;
  if (!load_checksum_option(v)) return std::move(v.report);
  base::Result<Listing> folder = open_folder(dir, std::move(opened));
  if (!folder) {
    v.report.fatal = folder.error().message;
    return std::move(v.report);
  }
  v.folder = std::move(*folder);
  run_structure_passes(v);
  if (g_test_between_passes) g_test_between_passes();
  // A --local-dir download's metadata is checked between the passes that
  // read headers and those that read contents, so that each file is read
  // once: hashed against its etag with its values scanned in the same read,
  // its digest reused for SHA256SUMS.
  std::map<std::string, std::string> etag_sha256;
  if (layout == Layout::kLocalDir) etag_sha256 = check_local_dir(v);  // local_dir.cc
  run_content_passes(v);
  if (layout == Layout::kLocalDir) {
    compare_checksum_sources(v, etag_sha256, kLocalDirChecksumName);  // hub_content.cc
    // After SHA256SUMS, which run_content_passes named.
    if (!v.report.hub->files.empty()) v.report.checksum_sources.push_back("local-dir-metadata");
  }
  // Last, so that the layout's own findings about a shard count against
  // its checkpoint too.
  finish_checkpoints(v);
  count_totals(v.report);
  return std::move(v.report);
}

}  // namespace stguard::verify
