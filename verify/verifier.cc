// verify/verifier.cc: the plain-folder verifier (and --local-dir's): DIR
// listed, the passes run, a --local-dir download's metadata checked between
// those that read headers and those that read contents, the totals.
#include "verify/verifier.h"

#include <map>
#include <utility>

#include "verify/folder.h"
#include "verify/local_dir.h"
#include "verify/passes.h"

namespace stguard::verify {

VerifyReport verify_folder(const std::string& dir, base::Opened opened, Layout layout,
                           const VerifyOptions& options) {
  Verification v(options);
  v.report.dir = dir;
  v.report.layout = layout;
  if (options.sha256_file) {
    base::Result<std::string> list = read_checksum_option(options);
    if (!list) {
      v.report.fatal = list.error().message;
      return std::move(v.report);
    }
    v.checksum_text = std::move(*list);
  }
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
  if (layout == Layout::kLocalDir) {
    LocalDirCheck local = check_local_dir(v.context(), v.shards.values, v.report.findings);
    v.report.hub = std::move(local.hub);
    v.read_by_layout = std::move(local.reads);
    etag_sha256 = std::move(local.etag_sha256);
  }
  run_content_passes(v);
  if (layout == Layout::kLocalDir) {
    for (Finding& f : compare_checksum_sources(v.checksum_text, v.report.checksums, etag_sha256,
                                               kLocalDirChecksumName)) {
      v.add(std::move(f));
    }
    // After SHA256SUMS, which run_content_passes named.
    if (!v.report.hub->files.empty()) v.report.checksum_sources.push_back("local-dir-metadata");
  }
  // Last, so that the layout's own findings about a shard count against
  // its checkpoint too.
  finish_checkpoints(v);
  VerifyReport report = take_report(v);
  count_totals(report);
  return report;
}

}  // namespace stguard::verify
