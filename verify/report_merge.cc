// verify/report_merge.cc: one folder's report appended to another's with
// its names prefixed: how the Hub verifier builds a repository's report
// from its snapshots', and the cache root's from its repositories'.
#include "verify/report_merge.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace stguard::verify {
namespace {

void prefix_name(std::string& name, const std::string& prefix) {
  name = name.empty() ? prefix.substr(0, prefix.size() - 1) : prefix + name;
}

// Adds one snapshot's value scan to the repository's.
void merge_values(std::optional<ValuesReport>& into, ValuesReport&& from,
                  const std::string& prefix) {
  if (!into) into.emplace();
  ValuesReport& v = *into;
  v.shards += from.shards;
  v.shards_incomplete += from.shards_incomplete;
  v.tensors += from.tensors;
  v.tensor_bytes += from.tensor_bytes;
  v.tensors_nan += from.tensors_nan;
  v.tensors_inf += from.tensors_inf;
  v.tensors_all_zero += from.tensors_all_zero;
  v.nan += from.nan;
  v.pos_inf += from.pos_inf;
  v.neg_inf += from.neg_inf;
  v.bytes_read += from.bytes_read;
  v.seconds += from.seconds;
  for (ScannedTensor& t : from.noteworthy) {
    prefix_name(t.file, prefix);
    v.noteworthy.push_back(std::move(t));
  }
}

}  // namespace

void merge_report(VerifyReport& into, VerifyReport&& from, const std::string& prefix) {
  for (ShardReport& s : from.shards) {
    prefix_name(s.file, prefix);
    into.shards.push_back(std::move(s));
  }
  for (IndexReport& i : from.indexes) {
    prefix_name(i.file, prefix);
    into.indexes.push_back(std::move(i));
  }
  if (from.checksums) {
    if (!into.checksums) {
      into.checksums = std::move(from.checksums);
      if (!into.checksums->from_option) prefix_name(into.checksums->file, prefix);
    } else {
      ChecksumReport& c = *into.checksums;
      c.entries += from.checksums->entries;
      c.verified += from.checksums->verified;
      c.failed += from.checksums->failed;
      c.bytes_hashed += from.checksums->bytes_hashed;
      c.seconds += from.checksums->seconds;
    }
  }
  for (CheckpointReport& c : from.checkpoints) {
    prefix_name(c.name, prefix);
    prefix_name(c.folder, prefix);
    for (std::string& shard : c.shards) prefix_name(shard, prefix);
    into.checkpoints.push_back(std::move(c));
  }
  if (from.values) merge_values(into.values, std::move(*from.values), prefix);
  for (Finding& f : from.findings) {
    prefix_name(f.file, prefix);
    if (!f.shard.empty()) prefix_name(f.shard, prefix);
    if (!f.checkpoint.empty()) prefix_name(f.checkpoint, prefix);
    into.findings.push_back(std::move(f));
  }
  for (std::string& source : from.checksum_sources) {
    if (std::find(into.checksum_sources.begin(), into.checksum_sources.end(), source) ==
        into.checksum_sources.end()) {
      into.checksum_sources.push_back(std::move(source));
    }
  }
  if (from.hub) {
    if (!into.hub) into.hub.emplace();
    for (SnapshotReport& s : from.hub->snapshots) into.hub->snapshots.push_back(std::move(s));
    for (ContentFile& f : from.hub->files) {
      prefix_name(f.file, prefix);
      for (std::string& u : f.used_by) prefix_name(u, prefix);
      into.hub->files.push_back(std::move(f));
    }
    into.hub->bytes_hashed += from.hub->bytes_hashed;
    into.hub->seconds += from.hub->seconds;
  }
}

}  // namespace stguard::verify
