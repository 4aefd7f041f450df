// verify/passes.cc: the passes over a listed folder in their order: with
// --recursive the subfolders listed, the folder and shard passes, then
// indexes, checkpoints, checksums and values; reading --sha256 FILE, and the
// totals.
#include "verify/passes.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "base/file_io.h"
#include "verify/findings.h"
#include "verify/shards.h"

namespace stguard::verify {

std::function<void()> g_test_between_passes;

base::Result<std::string> read_checksum_option(const VerifyOptions& options) {
  const std::string& path = *options.sha256_file;
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    return base::io_failure("cannot open checksum file " + path + ": " + base::errno_text(errno));
  }
  const base::Result<std::string> text = base::read_fd(fd.get(), options.max_checksum_file_bytes);
  if (!text) {
    return base::io_failure("cannot read checksum file " + path + ": " + text.error().message);
  }
  return *text;
}

CheckedShards check_shards(const PassContext& context, const std::string& dir,
                           std::vector<Finding>& findings) {
  CheckedShards out;
  const VerifyOptions& options = context.options;
  for (const Entry& e : context.folder.entries) {
    if (e.role != Role::kShard) continue;
    ShardCheck c = check_shard(context.folder, e, options.follow_symlinks, options.scan_values);
    if (c.layout) out.values.add(e.name, c.layout->tensors, c.layout->data_offset());
    const auto id = static_cast<std::uint32_t>(out.reports.size());
    for (std::string& name : c.tensors) out.tensors[std::move(name)].push_back(id);
    if (c.stamp) out.stamps[e.name] = *c.stamp;
    if (c.finding) findings.push_back(std::move(*c.finding));
    out.position[e.name] = out.reports.size();
    out.reports.push_back(std::move(c.report));
  }
  if (out.reports.empty()) {
    // A diffusers pipeline keeps its checkpoints in subfolders: say how to reach them.
    const bool has_subfolders =
        std::any_of(context.folder.entries.begin(), context.folder.entries.end(),
                    [](const Entry& e) { return e.type == EntryType::kDirectory; });
    findings.push_back(make_finding(
        FindingKind::kNoShards, Category::kFolder, "",
        "no *.safetensors file in " + dir +
            (has_subfolders && !options.recursive ? " (--recursive also checks its subfolders)"
                                                  : "")));
  }
  return out;
}

namespace {

// In a Hub snapshot (folder.blobs open) every link was resolved by name
// when the snapshot was walked (hub_snapshots.cc): a link to a blob of the
// repository is read as that blob, like a regular file, and any other link
// already has its Hub finding, so the folder passes leave it out. The walk
// of the subfolders lists links as links; this makes them what the top
// level's are.
void read_links_as_blobs(Listing& folder) {
  if (folder.blobs < 0) return;
  std::erase_if(folder.entries, [&](const Entry& e) {
    return e.type == EntryType::kSymlink && folder.blob_of.count(e.name) == 0;
  });
  for (Entry& e : folder.entries) {
    if (e.type == EntryType::kSymlink) e.type = EntryType::kRegular;
  }
  folder.by_name.clear();
  for (std::size_t i = 0; i < folder.entries.size(); ++i)
    folder.by_name[folder.entries[i].name] = i;
}

}  // namespace

void count_totals(VerifyReport& report) {
  for (const ShardReport& shard : report.shards) {
    if (shard.verdict != ShardVerdict::kAccept) continue;
    report.tensors += shard.tensors;
    report.tensor_bytes += shard.tensor_bytes;
  }
  for (const Finding& f : report.findings) {
    if (f.kind == FindingKind::kShardUnreadable || f.kind == FindingKind::kIndexUnreadable ||
        f.kind == FindingKind::kChecksumUnreadable || f.kind == FindingKind::kFolderUnreadable ||
        f.kind == FindingKind::kHubContentUnreadable) {
      ++report.unreadable;
    }
    if (f.severity == Severity::kError) {
      ++report.errors;
    } else {
      ++report.warnings;
    }
  }
}

void run_structure_passes(Verification& v) {
  v.report.ran = true;
  if (v.options.recursive) {
    for (Finding& f : walk_subfolders(v.folder, v.options)) v.add(std::move(f));
    read_links_as_blobs(v.folder);
  }
  for (Finding& f : folder_findings(v.folder, v.options.follow_symlinks)) v.add(std::move(f));
  std::vector<Finding>& findings = v.report.findings;
  v.shards = check_shards(v.context(), v.report.dir, findings);
  v.indexes = read_indexes(v.context(), findings);
  v.checkpoints = group_checkpoints(v.shards, v.indexes, findings);
  for (Finding& f : find_duplicate_tensors(v.shards, v.checkpoints)) v.add(std::move(f));
  v.report.indexes = compare_indexes(v.context(), v.shards, v.indexes, findings);
}

void run_content_passes(Verification& v) {
  std::vector<Finding>& findings = v.report.findings;
  std::optional<ChecksumList> list = read_checksum_list(v.context(), std::move(v.checksum_text));
  if (list && list->finding) v.add(*list->finding);
  v.report.checksums = check_checksums(v.reads(), v.shards.reports, list, findings);
  // Kept for the layout to hold against its own checksums (compare_checksum_sources).
  v.checksum_text = list && list->text ? std::move(*list->text) : std::string();
  v.report.values = check_values(v.reads(), v.shards.reports, v.shards.values, findings);
  if (v.report.checksums) v.report.checksum_sources.push_back(v.report.checksums->file);
}

void finish_checkpoints(Verification& v) {
  count_checkpoints(v.shards, v.checkpoints, v.report.findings);
}

VerifyReport take_report(Verification& v) {
  v.report.shards = std::move(v.shards.reports);
  v.report.checkpoints = std::move(v.checkpoints.reports);
  return std::move(v.report);
}

}  // namespace stguard::verify
