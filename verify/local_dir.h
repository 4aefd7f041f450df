// verify/local_dir.h (internal to verify/): the checksums that
// `hf download --local-dir DIR` (and `huggingface-cli download --local-dir`)
// leaves in DIR/.cache/huggingface/download.
//
//   run_structure_passes(v);          // headers and indexes first
//   auto etags = check_local_dir(v);  // the download metadata, files hashed
//   run_content_passes(v);            // SHA256SUMS and values reuse those reads
//   compare_checksum_sources(v, etags, kLocalDirChecksumName);
//   finish_checkpoints(v);            // its findings counted against checkpoints too
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

#include "verify/passes.h"

namespace stguard::verify {

// Metadata files larger than this are refused unread (a real one is ~120 bytes).
inline constexpr std::uint64_t kMaxDownloadMetadataBytes = 4096;

// What the etags are called in messages.
inline constexpr std::string_view kLocalDirChecksumName = "download metadata's etag";

// Checks v.folder's download metadata and hashes the files it describes,
// each read once: the read also feeds the file's value scan and leaves its
// sha256 in v.read_by_layout for the checksum pass. Adds findings,
// v.report.hub. Returns the sha256 etags (file -> hex) for
// compare_checksum_sources, which needs the checksum pass to have run.
std::map<std::string, std::string> check_local_dir(Verification& v);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_LOCAL_DIR_H_
