// verify/local_dir.h (internal to verify/): the checksums that
// `hf download --local-dir DIR` (and `huggingface-cli download --local-dir`)
// leaves in DIR/.cache/huggingface/download.
//
//   run_structure_passes(v);  // headers and indexes first
//   LocalDirCheck local = check_local_dir(v.context(), v.shards.values, v.report.findings);
//   v.read_by_layout = local.reads;  // SHA256SUMS and values reuse those reads
//   run_content_passes(v);
//   compare_checksum_sources(v.checksum_text, v.report.checksums, local.etag_sha256, ...);
//   finish_checkpoints(v);    // its findings counted against checkpoints too
//
// For each downloaded file PATH the Hub client keeps
// .cache/huggingface/download/PATH.metadata, three lines: the commit hash,
// the etag (the sha256 of the content for a Git LFS file, the git blob hash
// for a small one) and the Unix time it was written. Each file is hashed
// against its etag; a file modified after its metadata was written (mtime
// later than the timestamp, by more than the second the client allows) is a
// warning, as the client itself then distrusts the metadata; an interrupted
// download leaves PATH.<etag>.incomplete there. Only DIR is opened, below
// its descriptor, never following a symlink; the metadata's own names come
// from file names in DIR and are checked like any untrusted name.
#ifndef STGUARD_VERIFY_LOCAL_DIR_H_
#define STGUARD_VERIFY_LOCAL_DIR_H_

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "verify/passes.h"

namespace stguard::verify {

// Metadata files larger than this are refused unread (a real one is ~120 bytes).
inline constexpr std::uint64_t kMaxDownloadMetadataBytes = 4096;

// What the etags are called in messages.
inline constexpr std::string_view kLocalDirChecksumName = "download metadata's etag";

// What checking the download metadata found out, besides its findings.
struct LocalDirCheck {
  HubReport hub;  // the files described, hashed against their etags
  // The sha256 reads of those files, for the checksum pass to reuse.
  std::unordered_map<std::string, FileRead> reads;
  // The sha256 etags (file -> hex) for compare_checksum_sources, which needs
  // the checksum pass to have run.
  std::map<std::string, std::string> etag_sha256;
};

// Checks the listed folder's download metadata and hashes the files it
// describes, each read once: the read also feeds the file's value scan
// (claimed from `values`). Appends its findings to `findings`, after taking
// out the folder pass's stray_file findings about the download folder's
// .incomplete files, which get a more precise one here.
LocalDirCheck check_local_dir(const PassContext& context, const ValueScans& values,
                              std::vector<Finding>& findings);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_LOCAL_DIR_H_
