// verify/index_check.cc: each index (*.safetensors.index*.json) read, its
// shard names checked, and then held against the shards of its checkpoint:
// missing, extra, wrong-shard tensors, shards named but absent,
// metadata.total_size.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "base/file_io.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "verify/checkpoints.h"
#include "verify/findings.h"
#include "verify/index.h"
#include "verify/passes.h"

namespace stguard::verify {
namespace {

// Reads the index `e`; nullopt, with a finding added, when it is not usable.
std::optional<IndexUnderCheck> load_index(Verification& v, const Entry& e) {
  // A symlink that is not followed: folder_findings reported it.
  if (e.type == EntryType::kSymlink && !v.options.follow_symlinks) return std::nullopt;
  if (e.type != EntryType::kRegular && e.type != EntryType::kSymlink) {
    v.add(make_finding(FindingKind::kNotRegularFile, Category::kIndex, e.name,
                       "is not a regular file; index not read"));
    return std::nullopt;
  }
  const HeldFile o = open_listed(v.folder, e.name, v.options.follow_symlinks);
  if (!o) {
    if (e.type == EntryType::kSymlink && (o.err == EXDEV || o.err == ELOOP)) {
      v.add(unfollowable_symlink_finding(e, o.err));
    } else {
      v.add(make_finding(FindingKind::kIndexUnreadable, Category::kIndex, e.name,
                         "cannot open: " + base::open_error_text(o.err)));
    }
    return std::nullopt;
  }
  const base::Result<std::string> read = base::read_fd(o.fd, v.options.max_index_bytes);
  const std::string err = read ? std::string() : read.error().message;
  const std::string text = read ? *read : std::string();
  if (!err.empty()) {
    // Over max_index_bytes is a verdict on the index; anything else is a
    // failure to read it (exit status 2).
    const bool too_large = err.starts_with("too large");
    v.add(make_finding(too_large ? FindingKind::kIndexMalformed : FindingKind::kIndexUnreadable,
                       Category::kIndex, e.name, "cannot read: " + err));
    return std::nullopt;
  }
  IndexFailure failure;
  std::optional<IndexContents> contents = parse_index(text, &failure);
  if (!contents) {
    Finding f = make_finding(failure.kind, Category::kIndex, e.name, std::move(failure.message));
    f.offset = failure.offset;
    v.add(std::move(f));
    return std::nullopt;
  }
  IndexUnderCheck index;
  index.report.file = e.name;
  index.report.usable = true;
  index.report.entries = contents->weight_map.size();
  index.report.total_size = contents->total_size;
  index.weight_map = std::move(contents->weight_map);
  return index;
}

// The shards a usable index names, checked: names that could leave DIR or
// its folder are unsafe_path and never opened; the rest, in DIR terms
// (prefixed with the index's folder), go to index.named.
void name_shards(Verification& v, IndexUnderCheck& index) {
  const std::string& file = index.report.file;
  // Shard names: validate each distinct one once.
  std::set<std::string> raw_names;
  for (const auto& item : index.weight_map) raw_names.insert(item.second);
  const std::string_view folder = folder_of(file);
  for (const std::string& raw : raw_names) {
    const base::Result<std::string> safe = base::safe_relative_name(raw);
    std::optional<std::string> name;
    std::string why;
    if (!safe) {
      why = safe.error().message;
    } else if (safe->find('/') != std::string::npos) {
      why = "not a file directly in the index's folder (shards must sit next to their index)";
    } else {
      name = *safe;
    }
    if (!name) {
      Finding f =
          make_finding(FindingKind::kUnsafePath, Category::kIndex, file,
                       "weight_map names shard " + in_quotes(raw) + ": " + why + "; not opened");
      f.shard = raw;
      v.add(std::move(f));
      index.unusable.insert(raw);
      continue;
    }
    if (!folder.empty()) *name = std::string(folder) + "/" + *name;
    index.normalised[raw] = *name;
    index.named.insert(*name);
  }
  index.report.shards_named = index.named.size();
}

// Holds one usable index against the shards of its checkpoint.
void compare_index(Verification& v, IndexUnderCheck& index) {
  const std::string& file = index.report.file;
  std::map<std::string, std::uint64_t> tensors_per_shard;  // raw name -> count
  for (const auto& [tensor, shard] : index.weight_map) ++tensors_per_shard[shard];
  std::set<std::string>& unusable = index.unusable;
  for (const auto& [raw, count] : tensors_per_shard) {
    const auto named = index.normalised.find(raw);
    if (named == index.normalised.end()) continue;  // unsafe_path, reported
    const std::string& name = named->second;
    const auto it = v.shard_index.find(name);
    if (it == v.shard_index.end()) {
      std::string message = "names shard " + in_quotes(name) + " for " + std::to_string(count) +
                            " tensor" + (count == 1 ? "" : "s") + ", but it is not in DIR";
      const auto entry = v.folder.by_name.find(name);
      if (entry != v.folder.by_name.end())
        message += " (a file of that name exists but is not *.safetensors)";
      Finding f = make_finding(FindingKind::kIndexShardMissing, Category::kIndex, file, message);
      f.shard = name;
      v.add(std::move(f));
      unusable.insert(raw);
      continue;
    }
    if (v.report.shards[it->second].verdict != ShardVerdict::kAccept) {
      unusable.insert(raw);  // its own finding explains why
    }
  }

  // Tensors named by the index, in name order for a stable report.
  std::vector<const std::pair<const std::string, std::string>*> entries;
  entries.reserve(index.weight_map.size());
  for (const auto& item : index.weight_map) entries.push_back(&item);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* item : entries) {
    const std::string& tensor = item->first;
    const std::string& raw_shard = item->second;
    const auto norm = index.normalised.find(raw_shard);
    const std::string shard = norm != index.normalised.end() ? norm->second : raw_shard;
    // Where the tensor is among the shards this index names: a tensor of the
    // same name in another checkpoint (the fp32 copy of an fp16 variant) is
    // not this one.
    const std::string* actual = nullptr;
    bool in_named = false;
    if (const auto found = v.tensors.find(tensor); found != v.tensors.end()) {
      for (const std::uint32_t id : found->second) {
        const std::string& holder = v.report.shards[id].file;
        if (index.named.count(holder) == 0) continue;
        in_named |= holder == shard;
        if (actual == nullptr) actual = &holder;
      }
    }
    if (in_named) continue;
    if (actual != nullptr) {
      Finding f = make_finding(FindingKind::kTensorWrongShard, Category::kIndex, file,
                               "tensor " + in_quotes(tensor) + " is mapped to " + shown(shard) +
                                   " but found in " + *actual);
      f.tensor = tensor;
      f.shard = shard;
      f.other = *actual;
      v.add(std::move(f));
      continue;
    }
    // Not found anywhere. When its shard is missing or broken, the shard's
    // own finding covers it (listing every tensor of a missing 5 GB shard
    // would bury the one line that matters).
    if (unusable.count(raw_shard) != 0) continue;
    Finding f = make_finding(FindingKind::kTensorMissing, Category::kIndex, file,
                             "tensor " + in_quotes(tensor) + " is mapped to " + shown(shard) +
                                 " but no shard contains it");
    f.tensor = tensor;
    f.shard = shard;
    v.add(std::move(f));
  }

  // Tensors in the shards this index names that it does not list.
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& [tensor, ids] : v.tensors) {
    if (index.weight_map.count(tensor) != 0) continue;
    for (const std::uint32_t id : ids) {
      if (index.named.count(v.report.shards[id].file) != 0) {
        extra.emplace_back(tensor, v.report.shards[id].file);
        break;
      }
    }
  }
  std::sort(extra.begin(), extra.end());
  for (const auto& [tensor, shard] : extra) {
    Finding f = make_finding(
        FindingKind::kTensorExtra, Category::kIndex, file,
        "tensor " + in_quotes(tensor) + " in " + shard + " is not in the index's weight_map");
    f.tensor = tensor;
    f.shard = shard;
    v.add(std::move(f));
  }

  // metadata.total_size: comparable only when every named shard was read.
  if (unusable.empty()) {
    std::uint64_t sum = 0;
    bool overflow = false;
    for (const std::string& name : index.named) {
      overflow |=
          __builtin_add_overflow(sum, v.report.shards[v.shard_index.at(name)].tensor_bytes, &sum);
    }
    if (!overflow) {
      index.report.computed_size = sum;
      if (index.report.total_size && *index.report.total_size != sum) {
        // A warning unless --strict: no loader reads the field (docs/cli.md).
        Finding f = make_finding(
            FindingKind::kTotalSizeMismatch, Category::kIndex, file,
            "metadata.total_size is " + std::to_string(*index.report.total_size) +
                " but the tensors in its shards add up to " + std::to_string(sum) + " bytes" +
                (v.options.strict
                     ? std::string(" (--strict)")
                     : std::string(" (no loader reads the field; an error with --strict)")),
            v.options.strict ? Severity::kError : Severity::kWarning);
        f.expected_size = *index.report.total_size;
        f.actual_size = sum;
        v.add(std::move(f));
      }
    }
  }
}

}  // namespace

void read_indexes(Verification& v) {
  for (const Entry& e : v.folder.entries) {
    if (e.role != Role::kIndex) continue;
    std::optional<IndexUnderCheck> parsed = load_index(v, e);
    if (parsed) {
      name_shards(v, *parsed);
      v.indexes.push_back(std::move(*parsed));
    } else {
      IndexUnderCheck unusable;
      unusable.report.file = e.name;
      v.indexes.push_back(std::move(unusable));
    }
  }
}

void compare_indexes(Verification& v) {
  for (IndexUnderCheck& index : v.indexes) {
    if (index.report.usable) compare_index(v, index);
    v.report.indexes.push_back(index.report);
  }
}

}  // namespace stguard::verify
