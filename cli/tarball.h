// cli/tarball.h: a reproducible .tar.gz of files held in memory, for
// `stguard corpus export --tarball` (libarchive, Debian's libarchive-dev).
//
//   std::vector<stguard::cli::TarFile> files = {{"stguard-corpus-2/manifest.json", text}};
//   stguard::base::Result<std::string> bytes = stguard::cli::tar_gz(files);
//
// The same files give the same bytes: entries in the order given, every one
// a regular file of mode 0644 owned by uid and gid 0 with no user or group
// name, modification time 0, and no timestamp or name in the gzip header.
#ifndef STGUARD_CLI_TARBALL_H_
#define STGUARD_CLI_TARBALL_H_

#include <span>
#include <string>

#include "base/failure.h"

namespace stguard::cli {

struct TarFile {
  std::string path;   // inside the archive: "stguard-corpus-2/layout/gap.safetensors"
  std::string bytes;  // the file's content
};

// The archive's bytes; fails only when libarchive does ("cannot write the
// tarball: why").
base::Result<std::string> tar_gz(std::span<const TarFile> files);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_TARBALL_H_
