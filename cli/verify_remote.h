// cli/verify_remote.h: what `stguard verify URL` and `stguard verify
// hf://ORG/NAME[@REVISION]` verify: the repository's files fetched (headers
// of shards, whole indexes) for verify::verify_fetched.
//
//   base::Result<RemoteRepository> repo = fetch_repository(address, options, 8);
//   if (!repo) ...;                            // the listing could not be had: exit 2
//   VerifyReport report = verify::verify_fetched(repo->name, repo->files, options);
//
// An hf:// address without a path is the whole repository, from the Hub's
// listing (sizes included); an hf:// address with a path, or an http(s) URL,
// is one file: a .safetensors file alone, or an index with the shards it
// names, found beside it. Files that cannot be fetched are FetchedFile
// errors (verify reports them unreadable); only a listing or an index that
// cannot be had at all fails the whole.
#ifndef STGUARD_CLI_VERIFY_REMOTE_H_
#define STGUARD_CLI_VERIFY_REMOTE_H_

#include <string>
#include <vector>

#include "base/failure.h"
#include "verify/verify.h"

namespace stguard::cli {

struct RemoteRepository {
  std::string name;  // the report's dir: "hf://ORG/NAME@REVISION", or the URL's folder
  std::vector<verify::FetchedFile> files;
};

base::Result<RemoteRepository> fetch_repository(const std::string& address,
                                                const verify::VerifyOptions& options, unsigned jobs,
                                                bool progress);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_VERIFY_REMOTE_H_
