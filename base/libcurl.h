// base/libcurl.h: the libcurl functions stguard fetches with (remote/), opened
// on the first request instead of linked, so that a process that never goes
// over the network (`check` of a local file, `inspect`, an adapter) does not
// load libcurl and the dozen libraries it needs (shared_library.h).
//
//   base::Result<const base::LibCurl*> curl = base::libcurl();
//   if (!curl) return fail(curl.error().message);  // names the Debian package
//   CURL* handle = (*curl)->easy_init();
//
// Debian 12's libcurl4 (the OpenSSL build, whose headers libcurl4-openssl-dev
// installs) holds libcurl.so.4.
#ifndef STGUARD_BASE_LIBCURL_H_
#define STGUARD_BASE_LIBCURL_H_

#include <curl/curl.h>

#include "base/failure.h"

namespace stguard::base {

struct LibCurl {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_reset) easy_reset;
  // curl_easy_setopt and curl_easy_getinfo are variadic; the pointers keep
  // their C signatures (the header's type-checking macros do not apply).
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_version_info) version_info;
};

// Loaded and globally initialised once per process, thread-safe. Fails with
// a sentence naming the library and its Debian package.
Result<const LibCurl*> libcurl();

}  // namespace stguard::base

#endif  // STGUARD_BASE_LIBCURL_H_
