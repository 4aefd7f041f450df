// base/shared_library.h: a system library opened with dlopen when first
// needed, not linked.
//
// A library linked into the command is loaded, with everything it needs, by
// every process, whether or not that process uses it: libcrypto alone was a
// visible share of each `stguard check`, which never hashes
// (docs/performance.md). The few commands that need such a library open it
// here and call its functions through pointers resolved once.
//
//   struct Zlib { decltype(&crc32) crc32; };
//   base::Result<void*> handle = base::open_shared_library("libz.so.1", "zlib1g");
//   Zlib z{};
//   if (handle && base::resolve_symbol(*handle, "crc32", z.crc32)) ... z.crc32(...);
//
// The handle is never closed: function pointers into it stay valid for the
// life of the process.
#ifndef STGUARD_BASE_SHARED_LIBRARY_H_
#define STGUARD_BASE_SHARED_LIBRARY_H_

#include <string_view>

#include "base/failure.h"

namespace stguard::base {

// Opens `soname` (RTLD_NOW | RTLD_LOCAL). Fails with a sentence naming the
// library, the loader's reason and the Debian package that installs it.
Result<void*> open_shared_library(const char* soname, std::string_view debian_package);

// The address of `name` in `handle`, or null.
void* find_symbol(void* handle, const char* name) noexcept;

// Resolves `name` into the function pointer `out` (typed by the library's own
// declaration, decltype(&function)); false when the library lacks it.
template <typename Function>
bool resolve_symbol(void* handle, const char* name, Function& out) noexcept {
  out = reinterpret_cast<Function>(find_symbol(handle, name));
  return out != nullptr;
}

}  // namespace stguard::base

#endif  // STGUARD_BASE_SHARED_LIBRARY_H_
