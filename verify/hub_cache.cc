// verify/hub_cache.cc: the Hub verifier's entry point and the cache root
// walk: DIR as a snapshot (its repository opened two levels up), as a
// repository, or as the cache root, each models--* (datasets--*, spaces--*)
// repository in it verified on its own and summarised in one line.
#include "verify/hub_cache.h"

#include <fcntl.h>

#include <cerrno>
#include <filesystem>
#include <utility>

#include "base/file_io.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_repository.h"
#include "verify/layout.h"
#include "verify/passes.h"
#include "verify/report_merge.h"

namespace stguard::verify {
namespace {

// Fails (an I/O failure) with "PATH: cannot open: why".
base::Result<base::UniqueFd> open_directory(const std::string& path) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return base::io_failure(path + ": cannot open: " + base::errno_text(errno));
  return fd;
}

// The cache root open on `root_fd`: each repository in it verified on its
// own, its report merged with its folder name before every path and
// summarised in report.hub->repositories. A symlink named like a repository
// is reported, never followed.
void verify_cache_root(int root_fd, const VerifyOptions& options, VerifyReport& report) {
  report.hub.emplace();
  bool linked_repositories = false;
  for (const std::string& name : sorted_names(root_fd)) {
    if (is_hub_repo_name(name) && is_symlink_at(root_fd, name)) {
      // Never followed, as no symlinked folder is: said, not skipped.
      report.findings.push_back(
          unfollowed_folder_link(root_fd, name, name, "this repository is not verified"));
      linked_repositories = true;
      continue;
    }
    if (!is_hub_repo_name(name) || !is_directory_at(root_fd, name)) continue;
    base::Opened repo =
        base::open_beneath(root_fd, name, {.follow_symlinks = false, .directory = true});
    if (!repo.fd) continue;
    VerifyReport sub = verify_repository(std::move(repo.fd), "", options, name + "/");
    count_totals(sub);
    RepositorySummary summary;
    summary.name = name;
    summary.exit_code = sub.exit_code();
    summary.errors = sub.errors;
    summary.warnings = sub.warnings;
    if (sub.hub) {
      summary.snapshots = sub.hub->snapshots.size();
      summary.files = sub.hub->files.size();
      for (const ContentFile& f : sub.hub->files) {
        if (f.verdict == ContentVerdict::kVerified) ++summary.files_verified;
      }
    }
    report.hub->repositories.push_back(summary);
    merge_report(report, std::move(sub), name + "/");
  }
  if (report.hub->repositories.empty() && !linked_repositories) {
    report.findings.push_back(make_finding(FindingKind::kHubNoSnapshots, Category::kHub, "",
                                           "no models--*, datasets--* or spaces--* "
                                           "repository in this cache folder"));
  }
}

}  // namespace

VerifyReport verify_hub(const std::string& dir, base::Opened opened, Layout layout,
                        const VerifyOptions& options) {
  VerifyReport report;
  report.dir = dir;
  report.layout = layout;
  if (layout == Layout::kHubSnapshot) {
    const std::filesystem::path p = normal_path(dir);
    base::Result<base::UniqueFd> repo = open_directory(p.parent_path().parent_path().string());
    if (!repo) {
      report.fatal = repo.error().message;
      return report;
    }
    merge_report(report, verify_repository(std::move(*repo), p.filename().string(), options, ""),
                 "");
  } else {
    base::UniqueFd root = std::move(opened.fd);
    if (!root) {
      report.fatal = dir + ": cannot open: " + base::errno_text(opened.err);
      return report;
    }
    if (layout == Layout::kHubRepo) {
      merge_report(report, verify_repository(std::move(root), "", options, ""), "");
    } else {
      verify_cache_root(root.get(), options, report);
    }
  }
  report.ran = true;
  count_totals(report);
  return report;
}

}  // namespace stguard::verify
