// base/libcrypto.h: the OpenSSL libcrypto functions the project hashes with
// (SHA-256 in sha256.cc, SHA-1 for git blobs in git_blob.cc), opened on the
// first hash instead of linked, so that a process that never hashes (`check`,
// `inspect`, an adapter) does not load it (shared_library.h).
//
//   const base::LibCrypto& c = base::libcrypto();
//   EVP_MD_CTX* ctx = c.md_ctx_new();
//
// The .deb depends on libssl3, which holds libcrypto.so.3, as when it was
// linked. Without it a process that hashes stops where it would first hash,
// with a message saying so and exit status 2: the way a linked library's
// absence stopped every process at start, narrowed to those that need it.
#ifndef STGUARD_BASE_LIBCRYPTO_H_
#define STGUARD_BASE_LIBCRYPTO_H_

#include <openssl/evp.h>

namespace stguard::base {

struct LibCrypto {
  decltype(&EVP_MD_CTX_new) md_ctx_new;
  decltype(&EVP_MD_CTX_free) md_ctx_free;
  decltype(&EVP_DigestInit_ex) digest_init;
  decltype(&EVP_DigestUpdate) digest_update;
  decltype(&EVP_DigestFinal_ex) digest_final;
  decltype(&EVP_sha256) sha256;
  decltype(&EVP_sha1) sha1;
};

// Loaded once per process, thread-safe.
const LibCrypto& libcrypto();

}  // namespace stguard::base

#endif  // STGUARD_BASE_LIBCRYPTO_H_
