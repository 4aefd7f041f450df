// verify/hub_content.h (internal to verify/): contents checked against the
// checksums the Hugging Face Hub leaves on disk, shared by the cache
// (hub_cache.cc: blob names) and --local-dir downloads (local_dir.cc: etags).
//
//   std::vector<ContentFile> files = ...;  // file, expected set; algorithm from hub_algorithm
//   hash_contents(files, [&](const ContentFile& f) { return open_listed(folder, f.file, false); },
//                 options, &hub);
//   for (const ContentFile& f : files) if (auto finding = content_finding(f)) add(*finding);
//
// A 64-hex name or etag is the sha256 of the content (every Git LFS file,
// hence every safetensors file on the Hub); 40 hex digits are the git blob
// hash of a small file kept in git itself.
#ifndef STGUARD_VERIFY_HUB_CONTENT_H_
#define STGUARD_VERIFY_HUB_CONTENT_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verify/file_read.h"
#include "verify/open_files.h"
#include "verify/verify.h"

namespace stguard::verify {

inline constexpr std::string_view kSha256Algorithm = "sha256";
inline constexpr std::string_view kGitBlobAlgorithm = "git-blob-sha1";

// "sha256" for 64 hex digits, "git-blob-sha1" for 40, "" for anything else.
std::string hub_algorithm(std::string_view hex);

// Where else a file's bytes go while it is hashed (the value scans of the
// shards it is): an empty sink when nothing else wants them.
using ContentSinks = std::function<base::ChunkSink(const ContentFile&)>;

// Hashes every file with an algorithm (on options.jobs threads, largest
// first), setting size, actual and verdict; files that `open` cannot open
// are kUnreadable. `open` hands out descriptors it keeps (OpenFiles), so that
// the file hashed is the one whose header the other passes read. Each file
// is read once: its chunks also go to also(file) when given. Adds the bytes
// and time to *hub.
void hash_contents(std::vector<ContentFile>& files,
                   const std::function<HeldFile(const ContentFile&)>& open,
                   const VerifyOptions& options, HubReport* hub, const ContentSinks& also = {});

// A sha256-hashed file (verdict kVerified or kMismatch) as the read the
// checksum pass would have made of it, for Verification::read_by_layout; nullopt for
// anything else (a git blob hash, an unreadable file).
std::optional<FileRead> sha256_read_of(const ContentFile& file);

// The finding a hashed file deserves (mismatch naming both hashes,
// unreadable, unverifiable), or none when verified. `shown_from` is put
// before the paths that use the file in the message (the repository folder
// at the cache root, where file names are relative to the root).
std::optional<Finding> content_finding(const ContentFile& file, std::string_view source,
                                       std::string_view shown_from = "");

// The warning for a leftover .incomplete file: an interrupted download of
// `size` bytes so far.
Finding interrupted_download(FindingKind kind, std::string file, std::uint64_t size);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_HUB_CONTENT_H_
