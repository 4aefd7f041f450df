// base/git_blob.h: the git blob hash, sha1("blob <size>\0" + content), which
// the Hugging Face Hub uses to name small files (those not stored with Git
// LFS) in its cache and as their etag. One implementation, OpenSSL's libcrypto.
//
//   std::string id = stguard::base::git_blob_hex("hello\n");  // "ce0136..."
//
//   int fd = ...;  // the caller opens (it decides how names resolve)
//   stguard::base::GitBlobOutcome h = stguard::base::git_blob_fd(fd);
//   if (h.ok()) use(stguard::base::to_hex(std::span(h.digest)));
//
// SHA-1 here is a name, not a defence: it tells an interrupted or damaged
// download from the file the Hub served, as git itself does.
#ifndef STGUARD_BASE_GIT_BLOB_H_
#define STGUARD_BASE_GIT_BLOB_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/sha256.h"

namespace stguard::base {

using GitBlobDigest = std::array<std::uint8_t, 20>;

// The git blob hash of `content`, 40 lower-case hex digits.
std::string git_blob_hex(std::string_view content);

// 40 hex digits (either case); nullopt for anything else.
std::optional<GitBlobDigest> git_blob_from_hex(std::string_view hex) noexcept;

struct GitBlobOutcome {
  GitBlobDigest digest{};
  std::uint64_t bytes = 0;  // content bytes hashed
  std::string error;        // empty on success: what failed

  bool ok() const noexcept { return error.empty(); }
};

// Hashes the regular file open on `fd` from offset 0, its size taken by
// fstat when hashing starts (the size is part of what is hashed); a file that
// shrinks or grows meanwhile is an error. `progress`, when given, is advanced
// by the bytes hashed. `also`, when given, is handed every chunk after it was
// hashed (as sha256_fd does), so that another pass costs no second read.
// Does not close `fd`.
GitBlobOutcome git_blob_fd(int fd, std::atomic<std::uint64_t>* progress = nullptr,
                           const ChunkSink& also = {});

}  // namespace stguard::base

#endif  // STGUARD_BASE_GIT_BLOB_H_
