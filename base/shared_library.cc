#include "base/shared_library.h"

#include <dlfcn.h>

#include <string>

namespace stguard::base {

Result<void*> open_shared_library(const char* soname, std::string_view debian_package) {
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return fail("cannot load " + std::string(soname) + " (" +
                (why != nullptr ? std::string(why) : std::string("not found")) +
                "); install it (Debian: " + std::string(debian_package) + ")");
  }
  return handle;
}

void* find_symbol(void* handle, const char* name) noexcept { return ::dlsym(handle, name); }

}  // namespace stguard::base
