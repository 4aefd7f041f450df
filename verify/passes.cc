// verify/passes.cc: the passes over a listed folder in their order: with
// --recursive the subfolders listed, the folder and shard passes, then
// indexes, checkpoints, checksums and values; reading --sha256 FILE, and the
// totals.
#include "verify/passes.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "base/file_io.h"
#include "verify/findings.h"
#include "verify/shards.h"

namespace stguard::verify {

std::function<void()> g_test_between_passes;

// --sha256 FILE is read first: a list that cannot be read is a usage error
// (exit status 2), not a finding about DIR.
bool load_checksum_option(Verification& v) {
  if (!v.options.sha256_file) return true;
  const std::string& path = *v.options.sha256_file;
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) {
    v.report.fatal = "cannot open checksum file " + path + ": " + base::errno_text(errno);
    return false;
  }
  const base::Result<std::string> text = base::read_fd(fd.get(), v.options.max_checksum_file_bytes);
  if (!text) {
    v.report.fatal = "cannot read checksum file " + path + ": " + text.error().message;
    return false;
  }
  v.checksum_text = *text;
  return true;
}

namespace {

void check_shards(Verification& v) {
  for (const Entry& e : v.folder.entries) {
    if (e.role != Role::kShard) continue;
    ShardCheck c = check_shard(v.folder, e, v.options.follow_symlinks, v.options.scan_values);
    if (c.layout) v.values.add(e.name, c.layout->tensors, c.layout->data_offset());
    const auto id = static_cast<std::uint32_t>(v.report.shards.size());
    for (std::string& name : c.tensors) v.tensors[std::move(name)].push_back(id);
    if (c.stamp) v.shard_stamps[e.name] = *c.stamp;
    if (c.finding) v.add(std::move(*c.finding));
    v.shard_index[e.name] = v.report.shards.size();
    v.report.shards.push_back(std::move(c.report));
  }
  if (v.report.shards.empty()) {
    // A diffusers pipeline keeps its checkpoints in subfolders: say how to reach them.
    const bool has_subfolders =
        std::any_of(v.folder.entries.begin(), v.folder.entries.end(),
                    [](const Entry& e) { return e.type == EntryType::kDirectory; });
    v.add(make_finding(
        FindingKind::kNoShards, Category::kFolder, "",
        "no *.safetensors file in " + v.report.dir +
            (has_subfolders && !v.options.recursive ? " (--recursive also checks its subfolders)"
                                                    : "")));
  }
}

// In a Hub snapshot (folder.blobs open) every link was resolved by name
// when the snapshot was walked (hub_cache.cc): a link to a blob of the
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
  check_shards(v);
  read_indexes(v);
  group_checkpoints(v);
  check_duplicates(v);
  compare_indexes(v);
}

void run_content_passes(Verification& v) {
  check_checksums(v);
  check_values(v);
  if (v.report.checksums) v.report.checksum_sources.push_back(v.report.checksums->file);
}

}  // namespace stguard::verify
