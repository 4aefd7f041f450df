// verify/local_dir.h (internal to verify/): the checksums that
// `hf download --local-dir DIR` (and `huggingface-cli download --local-dir`)
// leaves in DIR/.cache/huggingface/download.
//
//   run_folder_passes(v);   // the ordinary checks on DIR first
//   check_local_dir(v);     // then the download metadata
//   finish_checkpoints(v);  // its findings counted against checkpoints too
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

#include "verify/verifier.h"

namespace stguard::verify {

// Metadata files larger than this are refused unread (a real one is ~120 bytes).
inline constexpr std::uint64_t kMaxDownloadMetadataBytes = 4096;

// Checks v.folder's download metadata; adds findings, v.report.hub and the
// checksum source "local-dir-metadata".
void check_local_dir(Verification& v);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_LOCAL_DIR_H_
