#include "base/libcrypto.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/shared_library.h"

namespace stguard::base {
namespace {

// OpenSSL 3's soname (Debian 12: libssl3); the EVP calls used are in every 3.x.
constexpr const char* kLibCrypto = "libcrypto.so.3";

[[noreturn]] void stop(const std::string& why) {
  std::fprintf(stderr, "stguard: %s; hashing needs it\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(2);
}

LibCrypto load() {
  const Result<void*> handle = open_shared_library(kLibCrypto, "libssl3");
  if (!handle) stop(handle.error().message);
  LibCrypto lib{};
  const bool all = resolve_symbol(*handle, "EVP_MD_CTX_new", lib.md_ctx_new) &&
                   resolve_symbol(*handle, "EVP_MD_CTX_free", lib.md_ctx_free) &&
                   resolve_symbol(*handle, "EVP_DigestInit_ex", lib.digest_init) &&
                   resolve_symbol(*handle, "EVP_DigestUpdate", lib.digest_update) &&
                   resolve_symbol(*handle, "EVP_DigestFinal_ex", lib.digest_final) &&
                   resolve_symbol(*handle, "EVP_sha256", lib.sha256) &&
                   resolve_symbol(*handle, "EVP_sha1", lib.sha1);
  if (!all) stop(std::string(kLibCrypto) + " lacks an EVP function stguard calls");
  return lib;
}

}  // namespace

const LibCrypto& libcrypto() {
  static const LibCrypto loaded = load();
  return loaded;
}

}  // namespace stguard::base
