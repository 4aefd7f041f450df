// cli/reader_cache.h: where the bundled readers of an installed stguard are
// set up.
//
// An installed data directory (share/stguard next to the executable)
// belongs to the package: root's, and removed by `dpkg -r`, so nothing is
// ever installed into it. `stguard conform --setup` copies such a reader's
// own files (its node_modules aside) into a per-user cache,
//   $XDG_CACHE_HOME/stguard/readers/NAME   (~/.cache/stguard/readers/NAME),
// and runs the reader's setup command there. Later runs (conform and hunt)
// use that copy while its files are still those of the installed reader; a
// stale copy (stguard upgraded since) is passed over until the next --setup.
// Readers of a source tree, --data-dir or STGUARD_DATA_DIR are set up in
// place, as before (ci/setup-readers.sh).
#ifndef STGUARD_CLI_READER_CACHE_H_
#define STGUARD_CLI_READER_CACHE_H_

#include <filesystem>
#include <optional>

#include "base/failure.h"

namespace stguard::cli {

// True for a reader directory inside the installed data directory.
bool is_installed_reader(const std::filesystem::path& dir);

// The cache copy of the installed reader `dir`, refreshed from it: its files
// copied over (node_modules and what setup made are kept). Fails naming the
// cache when it cannot be made.
base::Result<std::filesystem::path> refresh_cache_copy(const std::filesystem::path& dir);

// The cache copy of the installed reader `dir` when it exists and holds
// `dir`'s files unchanged.
std::optional<std::filesystem::path> current_cache_copy(const std::filesystem::path& dir);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_READER_CACHE_H_
