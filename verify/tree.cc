// verify/tree.cc: with --recursive, DIR's subfolders listed, breadth first
// and bounded (walk_subfolders, declared in folder.h).
#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>

#include "base/sandbox.h"
#include "verify/findings.h"
#include "verify/folder.h"

namespace stguard::verify {
namespace {

struct Pending {
  std::string path;    // relative to DIR
  unsigned depth = 0;  // 1 for a folder directly in DIR
};

// Folders a walk does not enter: hidden ones hold a VCS's or a tool's own
// files (.git's objects, .cache/huggingface's metadata), not checkpoints.
bool worth_entering(const Entry& e) {
  if (e.type != EntryType::kDirectory) return false;  // a symlinked folder is kSymlink
  const std::size_t slash = e.name.rfind('/');
  const std::string_view base =
      std::string_view(e.name).substr(slash == std::string::npos ? 0 : slash + 1);
  return !base.starts_with(".");
}

}  // namespace

std::vector<Finding> walk_subfolders(Listing& folder, const VerifyOptions& options) {
  std::vector<Finding> findings;
  std::deque<Pending> pending;
  for (const Entry& e : folder.entries) {
    if (worth_entering(e)) pending.push_back(Pending{e.name, 1});
  }
  std::uint64_t names_seen = 0;
  while (!pending.empty()) {
    const Pending next = std::move(pending.front());
    pending.pop_front();
    if (next.depth > options.max_depth) {
      findings.push_back(make_finding(FindingKind::kTreeLimit, Category::kFolder, next.path,
                                      "is " + std::to_string(next.depth) +
                                          " folders deep, past the limit of " +
                                          std::to_string(options.max_depth) + "; not looked into"));
      continue;
    }
    const base::Opened sub = base::open_beneath(folder.dir.get(), next.path,
                                                {.follow_symlinks = false, .directory = true});
    base::Result<std::vector<std::string>> listed =
        sub.fd ? list_dir(sub.fd.get())
               : base::Result<std::vector<std::string>>(
                     base::io_failure(base::open_error_text(sub.err)));
    if (!listed) {
      const std::string why =
          sub.fd ? "cannot list: " + listed.error().message : listed.error().message;
      findings.push_back(make_finding(FindingKind::kFolderUnreadable, Category::kFolder, next.path,
                                      "subfolder not checked: " + why));
      continue;
    }
    std::vector<std::string> names = std::move(*listed);
    if (names.size() > options.max_tree_names - std::min(names_seen, options.max_tree_names)) {
      // Stop here rather than hold an unbounded listing: what is left is
      // named, so that nobody takes the folder for checked.
      std::string rest = next.path;
      if (!pending.empty()) rest += " and " + std::to_string(pending.size()) + " more folder(s)";
      findings.push_back(make_finding(
          FindingKind::kTreeLimit, Category::kFolder, next.path,
          "the walk stopped after " + std::to_string(names_seen) + " names below DIR (limit " +
              std::to_string(options.max_tree_names) + "); " + rest + " not looked into"));
      break;
    }
    names_seen += names.size();
    std::sort(names.begin(), names.end());
    for (std::string& name : names) {
      Entry e = entry_of(sub.fd.get(), std::move(name));
      e.name = next.path + "/" + e.name;
      // Only DIR's own SHA256SUMS is the checksum list.
      if (e.role == Role::kChecksums) e.role = Role::kOther;
      if (worth_entering(e)) pending.push_back(Pending{e.name, next.depth + 1});
      folder.entries.push_back(std::move(e));
    }
  }
  std::sort(folder.entries.begin(), folder.entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  folder.by_name.clear();
  for (std::size_t i = 0; i < folder.entries.size(); ++i)
    folder.by_name[folder.entries[i].name] = i;
  return findings;
}

}  // namespace stguard::verify
