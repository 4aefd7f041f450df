// base/path.h: names from untrusted files made safe to open below a directory.
//
//   stguard::base::Result<std::string> rel =
//       stguard::base::safe_relative_name("./shards/a.safetensors");
//   // *rel == "shards/a.safetensors"; "../x", "/etc/passwd", "a\\b" fail
//
// Names in a shard index, a checksum list or a corpus manifest are written by
// someone else. A name is judged per component: "a..b" is an ordinary file
// name, only a component that is exactly ".." climbs.
#ifndef STGUARD_BASE_PATH_H_
#define STGUARD_BASE_PATH_H_

#include <string>
#include <string_view>

#include "base/failure.h"

namespace stguard::base {

// `name` normalised ("./a//b" -> "a/b") when it stays below the directory it
// is relative to. Fails, saying why, for an empty name, NUL, a backslash, an
// absolute path, a ".." component, or a name that is the directory itself.
Result<std::string> safe_relative_name(std::string_view name);

}  // namespace stguard::base

#endif  // STGUARD_BASE_PATH_H_
