#include "base/libcurl.h"

#include <string>

#include "base/shared_library.h"

namespace stguard::base {
namespace {

constexpr const char* kLibCurlSoname = "libcurl.so.4";

Result<LibCurl> load_libcurl() {
  const Result<void*> handle = open_shared_library(kLibCurlSoname, "libcurl4");
  if (!handle) return handle.error();
  LibCurl lib{};
  const bool all = resolve_symbol(*handle, "curl_global_init", lib.global_init) &&
                   resolve_symbol(*handle, "curl_easy_init", lib.easy_init) &&
                   resolve_symbol(*handle, "curl_easy_cleanup", lib.easy_cleanup) &&
                   resolve_symbol(*handle, "curl_easy_reset", lib.easy_reset) &&
                   resolve_symbol(*handle, "curl_easy_setopt", lib.easy_setopt) &&
                   resolve_symbol(*handle, "curl_easy_getinfo", lib.easy_getinfo) &&
                   resolve_symbol(*handle, "curl_easy_perform", lib.easy_perform) &&
                   resolve_symbol(*handle, "curl_easy_strerror", lib.easy_strerror) &&
                   resolve_symbol(*handle, "curl_slist_append", lib.slist_append) &&
                   resolve_symbol(*handle, "curl_slist_free_all", lib.slist_free_all) &&
                   resolve_symbol(*handle, "curl_version_info", lib.version_info);
  if (!all) return io_failure(std::string(kLibCurlSoname) + " lacks a function stguard calls");
  // Once, before any thread makes a handle (curl_global_init is not
  // thread-safe); the function-local static below runs it exactly once.
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return io_failure(std::string(kLibCurlSoname) + ": curl_global_init failed");
  }
  return lib;
}

}  // namespace

Result<const LibCurl*> libcurl() {
  static const Result<LibCurl> loaded = load_libcurl();
  if (!loaded) {
    Failure failure = loaded.error();
    failure.io = true;
    return failure;
  }
  return &*loaded;
}

}  // namespace stguard::base
