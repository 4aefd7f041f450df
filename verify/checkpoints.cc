// verify/checkpoints.cc: the shards grouped into checkpoints, duplicate
// tensors within one checkpoint, and each checkpoint's totals.
#include "verify/checkpoints.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/passes.h"

namespace stguard::verify {
namespace {

constexpr std::string_view kIndexInfix = ".safetensors.index";

std::string_view base_name(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// Decimal digits only, at most nine (so that it fits with room to spare).
std::optional<std::uint32_t> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  std::uint32_t n = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return n;
}

// Adds shard `id` to checkpoint `cp` (once).
void claim(const CheckedShards& shards, Checkpoints& checkpoints, std::uint32_t id,
           std::uint32_t cp) {
  std::vector<std::uint32_t>& of = checkpoints.of_shard[id];
  if (std::find(of.begin(), of.end(), cp) != of.end()) return;
  of.push_back(cp);
  checkpoints.reports[cp].shards.push_back(shards.reports[id].file);
}

CheckpointReport new_checkpoint(std::string name, CheckpointKind kind) {
  CheckpointReport cp;
  cp.folder = std::string(folder_of(name));
  cp.name = std::move(name);
  cp.kind = kind;
  return cp;
}

// A set of shards no index covers: `index_missing` unless it is complete by
// itself (one file of one).
void add_shard_set(const CheckedShards& shards, Checkpoints& checkpoints, const std::string& prefix,
                   const std::string& count_text, std::uint32_t count,
                   const std::vector<std::uint32_t>& ids, std::vector<Finding>& findings) {
  const auto cp = static_cast<std::uint32_t>(checkpoints.reports.size());
  checkpoints.reports.push_back(new_checkpoint(
      prefix + "-*-of-" + count_text + std::string(kShardSuffix), CheckpointKind::kShardSet));
  for (const std::uint32_t id : ids) claim(shards, checkpoints, id, cp);
  if (ids.size() == 1 && count == 1) return;
  const CheckpointReport& set = checkpoints.reports[cp];
  const std::string index_name =
      std::string(base_name(prefix)) + std::string(kIndexSuffix);  // variants differ; the usual one
  std::string message = std::to_string(ids.size()) + " of " + std::to_string(count) +
                        " shards of " + set.name + " present, but no index for them (" +
                        index_name + " or a variant's): nothing says which shards belong together";
  Finding f = make_finding(FindingKind::kIndexMissing, Category::kIndex, set.folder, message);
  f.shard = set.shards.front();
  f.checkpoint = set.name;
  findings.push_back(std::move(f));
}

}  // namespace

bool is_index_name(std::string_view name) {
  const std::string_view base = base_name(name);
  const std::size_t at = base.find(kIndexInfix);
  if (at == std::string_view::npos || at == 0) return false;
  const std::string_view rest = base.substr(at + kIndexInfix.size());
  // ".json", or ".VARIANT.json" with a non-empty variant.
  return rest == ".json" ||
         (rest.size() > 6 && rest.front() == '.' && rest.ends_with(".json") && rest[1] != '.');
}

std::optional<std::string> index_shard_prefix(std::string_view index_name) {
  if (!is_index_name(index_name)) return std::nullopt;
  const std::size_t folder_len = index_name.size() - base_name(index_name).size();
  const std::size_t at = index_name.find(kIndexInfix, folder_len);
  std::string prefix(index_name.substr(0, at));
  std::string_view rest = index_name.substr(at + kIndexInfix.size());  // ".json" or ".V.json"
  rest.remove_suffix(std::string_view(".json").size());
  prefix += rest;  // "" or ".VARIANT"
  return prefix;
}

std::optional<ShardSetName> shard_set_name(std::string_view shard_name) {
  if (!shard_name.ends_with(kShardSuffix)) return std::nullopt;
  const std::string_view stem = shard_name.substr(0, shard_name.size() - kShardSuffix.size());
  const std::size_t of = stem.rfind("-of-");
  if (of == std::string_view::npos) return std::nullopt;
  const std::size_t dash = stem.rfind('-', of == 0 ? 0 : of - 1);
  if (dash == std::string_view::npos || dash == 0 || dash >= of) return std::nullopt;
  const std::string_view count_text = stem.substr(of + 4);
  const std::optional<std::uint32_t> number = small_number(stem.substr(dash + 1, of - dash - 1));
  const std::optional<std::uint32_t> count = small_number(count_text);
  if (!number || !count || *number == 0 || *number > *count) return std::nullopt;
  if (base_name(stem.substr(0, dash)).empty()) return std::nullopt;
  ShardSetName out;
  out.prefix = std::string(stem.substr(0, dash));
  out.number = *number;
  out.count = *count;
  out.count_text = std::string(count_text);
  return out;
}

std::string_view folder_of(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : name.substr(0, slash);
}

Checkpoints group_checkpoints(const CheckedShards& checked,
                              const std::vector<IndexUnderCheck>& indexes,
                              std::vector<Finding>& findings) {
  Checkpoints out;
  const std::vector<ShardReport>& shards = checked.reports;
  out.of_shard.assign(shards.size(), {});
  // Shard-set prefix -> the checkpoint of the usable index that should name
  // the set's shards; unusable indexes claim their prefix's shards outright
  // (their own finding explains why nothing was compared).
  std::map<std::string, std::uint32_t> usable_prefix;
  std::map<std::string, std::uint32_t> unusable_prefix;
  for (const IndexUnderCheck& index : indexes) {
    const auto cp = static_cast<std::uint32_t>(out.reports.size());
    out.reports.push_back(new_checkpoint(index.report.file, CheckpointKind::kIndex));
    if (index.report.usable) {
      for (const std::string& name : index.named) {
        const auto it = checked.position.find(name);
        if (it != checked.position.end())
          claim(checked, out, static_cast<std::uint32_t>(it->second), cp);
      }
    }
    if (const std::optional<std::string> prefix = index_shard_prefix(index.report.file)) {
      (index.report.usable ? usable_prefix : unusable_prefix).emplace(*prefix, cp);
    }
  }

  // Sets without an index, keyed by (prefix, count as written): a leftover of
  // an older revision with another count is a set of its own.
  std::map<std::pair<std::string, std::string>,
           std::pair<std::uint32_t, std::vector<std::uint32_t>>>
      sets;
  std::vector<std::uint32_t> singles;
  for (std::uint32_t id = 0; id < shards.size(); ++id) {
    if (!out.of_shard[id].empty()) continue;
    const std::optional<ShardSetName> set = shard_set_name(shards[id].file);
    if (!set) {
      singles.push_back(id);
      continue;
    }
    if (const auto it = unusable_prefix.find(set->prefix); it != unusable_prefix.end()) {
      claim(checked, out, id, it->second);
      continue;
    }
    if (const auto it = usable_prefix.find(set->prefix); it != usable_prefix.end()) {
      const std::string& index_file = out.reports[it->second].name;
      Finding f = make_finding(FindingKind::kShardNotInIndex, Category::kIndex, shards[id].file,
                               "is named like the shards of " + index_file +
                                   " but it does not name this one (left over from another "
                                   "revision?)");
      f.shard = shards[id].file;
      f.checkpoint = index_file;
      findings.push_back(std::move(f));
      claim(checked, out, id, it->second);
      continue;
    }
    auto& entry = sets[{set->prefix, set->count_text}];
    entry.first = set->count;
    entry.second.push_back(id);
  }
  for (const auto& [key, set] : sets)
    add_shard_set(checked, out, key.first, key.second, set.first, set.second, findings);
  for (const std::uint32_t id : singles) {
    const auto cp = static_cast<std::uint32_t>(out.reports.size());
    out.reports.push_back(new_checkpoint(shards[id].file, CheckpointKind::kSingleFile));
    claim(checked, out, id, cp);
  }
  return out;
}

std::vector<Finding> find_duplicate_tensors(const CheckedShards& checked,
                                            const Checkpoints& checkpoints) {
  std::vector<Finding> findings;
  // Tensor name -> its shards, per checkpoint; only names in two or more shards.
  std::map<std::pair<std::uint32_t, std::string>, std::vector<std::uint32_t>> dups;
  for (const auto& [tensor, ids] : checked.tensors) {
    if (ids.size() < 2) continue;
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_checkpoint;
    for (const std::uint32_t id : ids) {
      for (const std::uint32_t cp : checkpoints.of_shard[id]) by_checkpoint[cp].push_back(id);
    }
    for (auto& [cp, in_cp] : by_checkpoint) {
      if (in_cp.size() > 1) dups.emplace(std::make_pair(cp, tensor), std::move(in_cp));
    }
  }
  const std::vector<ShardReport>& shards = checked.reports;
  for (const auto& [key, ids] : dups) {
    std::string where;
    for (const std::uint32_t id : ids) {
      if (!where.empty()) where += ", ";
      where += shards[id].file;
    }
    Finding f = make_finding(FindingKind::kTensorDuplicate, Category::kIndex, shards[ids[0]].file,
                             "tensor " + in_quotes(key.second) + " is in " +
                                 std::to_string(ids.size()) + " shards: " + where);
    f.tensor = key.second;
    f.shard = shards[ids[0]].file;
    f.other = shards[ids[1]].file;
    f.checkpoint = checkpoints.reports[key.first].name;
    findings.push_back(std::move(f));
  }
  return findings;
}

void count_checkpoints(const CheckedShards& shards, Checkpoints& grouped,
                       std::vector<Finding>& findings) {
  std::vector<CheckpointReport>& checkpoints = grouped.reports;
  // Shard or index file -> every checkpoint holding it (a shard two indexes
  // name is in both).
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_file;
  std::unordered_map<std::string, std::uint32_t> by_name;
  for (std::uint32_t cp = 0; cp < checkpoints.size(); ++cp) {
    by_name.emplace(checkpoints[cp].name, cp);
    if (checkpoints[cp].kind == CheckpointKind::kIndex) by_file[checkpoints[cp].name].push_back(cp);
  }
  for (std::uint32_t id = 0; id < shards.reports.size(); ++id) {
    const ShardReport& shard = shards.reports[id];
    for (const std::uint32_t cp : grouped.of_shard[id]) by_file[shard.file].push_back(cp);
    for (const std::uint32_t cp : grouped.of_shard[id]) {
      if (shard.verdict != ShardVerdict::kAccept) continue;
      checkpoints[cp].tensors += shard.tensors;
      checkpoints[cp].tensor_bytes += shard.tensor_bytes;
    }
  }
  for (Finding& f : findings) {
    if (f.checkpoint.empty()) {
      // About a file: it counts against every checkpoint holding the file,
      // and names the first.
      const auto it = by_file.find(f.file);
      if (it == by_file.end()) continue;
      f.checkpoint = checkpoints[it->second.front()].name;
      for (const std::uint32_t cp : it->second) {
        ++(f.severity == Severity::kError ? checkpoints[cp].errors : checkpoints[cp].warnings);
      }
      continue;
    }
    // Named by the pass that found it (a duplicate within one checkpoint):
    // that checkpoint alone.
    const auto it = by_name.find(f.checkpoint);
    if (it == by_name.end()) continue;
    ++(f.severity == Severity::kError ? checkpoints[it->second].errors
                                      : checkpoints[it->second].warnings);
  }
  for (CheckpointReport& cp : checkpoints) std::sort(cp.shards.begin(), cp.shards.end());
}

std::string count_against_checkpoints(const CheckedShards& shards, Checkpoints& checkpoints,
                                      const std::string& file, Severity severity) {
  std::vector<std::uint32_t> holding;
  if (const auto it = shards.position.find(file); it != shards.position.end()) {
    holding = checkpoints.of_shard[it->second];
  }
  for (std::uint32_t cp = 0; cp < checkpoints.reports.size(); ++cp) {
    const CheckpointReport& c = checkpoints.reports[cp];
    if (c.kind == CheckpointKind::kIndex && c.name == file) holding.push_back(cp);
  }
  for (const std::uint32_t cp : holding) {
    CheckpointReport& c = checkpoints.reports[cp];
    ++(severity == Severity::kError ? c.errors : c.warnings);
  }
  return holding.empty() ? std::string() : checkpoints.reports[holding.front()].name;
}

}  // namespace stguard::verify
