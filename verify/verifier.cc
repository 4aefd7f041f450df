// verify/verifier.cc: verify_model_folder: reading --sha256 FILE, listing
// DIR (and with --recursive its subfolders), the folder and shard passes,
// then indexes, checkpoints and checksums, and the totals.
#include "verify/verifier.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "base/file_io.h"
#include "verify/findings.h"
#include "verify/shards.h"

namespace stguard::verify {
namespace {

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
  const std::string err =
      base::read_fd(fd.get(), v.options.max_checksum_file_bytes, &v.checksum_text);
  if (!err.empty()) {
    v.report.fatal = "cannot read checksum file " + path + ": " + err;
    return false;
  }
  return true;
}

void check_shards(Verification& v) {
  for (const Entry& e : v.folder.entries) {
    if (e.role != Role::kShard) continue;
    ShardCheck c = check_shard(v.folder.dir.get(), e, v.options.follow_symlinks);
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

void count_totals(VerifyReport& report) {
  for (const ShardReport& shard : report.shards) {
    if (shard.verdict != ShardVerdict::kAccept) continue;
    report.tensors += shard.tensors;
    report.tensor_bytes += shard.tensor_bytes;
  }
  for (const Finding& f : report.findings) {
    if (f.kind == FindingKind::kShardUnreadable || f.kind == FindingKind::kIndexUnreadable ||
        f.kind == FindingKind::kChecksumUnreadable || f.kind == FindingKind::kFolderUnreadable) {
      ++report.unreadable;
    }
    if (f.severity == Severity::kError) {
      ++report.errors;
    } else {
      ++report.warnings;
    }
  }
}

}  // namespace

VerifyReport verify_model_folder(const std::string& dir, const VerifyOptions& options) {
  Verification v(options);
  v.report.dir = dir;
  if (!load_checksum_option(v)) return std::move(v.report);
  std::optional<Listing> folder = open_folder(dir, &v.report.fatal);
  if (!folder) return std::move(v.report);
  v.folder = std::move(*folder);
  v.report.ran = true;
  if (options.recursive) {
    for (Finding& f : walk_subfolders(v.folder, options)) v.add(std::move(f));
  }
  for (Finding& f : folder_findings(v.folder, options.follow_symlinks)) v.add(std::move(f));
  check_shards(v);
  read_indexes(v);
  group_checkpoints(v);
  check_duplicates(v);
  compare_indexes(v);
  check_checksums(v);
  finish_checkpoints(v);
  count_totals(v.report);
  return std::move(v.report);
}

}  // namespace stguard::verify
