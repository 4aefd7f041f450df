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

// The text of the index `e`: read through its descriptor, or as fetched
// (verify_fetched). Fails with read_fd's reason ("too large: ..." for one
// over max_index_bytes), or with an empty message once a finding about the
// open is added.
base::Result<std::string> read_index_text(const PassContext& context, const Entry& e,
                                          std::vector<Finding>& findings) {
  const VerifyOptions& options = context.options;
  if (context.folder.fetched != nullptr) {
    const auto it = context.folder.fetched->find(e.name);
    if (it == context.folder.fetched->end() || !it->second->error.empty()) {
      findings.push_back(make_finding(FindingKind::kIndexUnreadable, Category::kIndex, e.name,
                                      it == context.folder.fetched->end()
                                          ? std::string("not fetched")
                                          : "cannot fetch: " + it->second->error));
      return base::io_failure("");
    }
    const FetchedFile& f = *it->second;
    if (f.size > options.max_index_bytes) {
      return base::io_failure(base::too_large_text(f.size, options.max_index_bytes));
    }
    return std::string(f.bytes.begin(), f.bytes.end());
  }
  const HeldFile o = open_listed(context.folder, e.name, options.follow_symlinks);
  if (!o) {
    if (e.type == EntryType::kSymlink && (o.err == EXDEV || o.err == ELOOP)) {
      findings.push_back(unfollowable_symlink_finding(e, o.err));
    } else {
      findings.push_back(make_finding(FindingKind::kIndexUnreadable, Category::kIndex, e.name,
                                      "cannot open: " + base::open_error_text(o.err)));
    }
    return base::io_failure("");
  }
  return base::read_fd(o.fd, options.max_index_bytes);
}

// Reads the index `e`; nullopt, with a finding added, when it is not usable.
std::optional<IndexUnderCheck> load_index(const PassContext& context, const Entry& e,
                                          std::vector<Finding>& findings) {
  const VerifyOptions& options = context.options;
  // A symlink that is not followed: folder_findings reported it.
  if (e.type == EntryType::kSymlink && !options.follow_symlinks) return std::nullopt;
  if (e.type != EntryType::kRegular && e.type != EntryType::kSymlink) {
    findings.push_back(make_finding(FindingKind::kNotRegularFile, Category::kIndex, e.name,
                                    "is not a regular file; index not read"));
    return std::nullopt;
  }
  base::Result<std::string> read = read_index_text(context, e, findings);
  if (!read && read.error().message.empty()) return std::nullopt;  // its finding is in
  const std::string err = read ? std::string() : read.error().message;
  const std::string text = read ? *read : std::string();
  if (!err.empty()) {
    // Over max_index_bytes is a verdict on the index; anything else is a
    // failure to read it (exit status 2).
    const bool too_large = err.starts_with("too large");
    findings.push_back(
        make_finding(too_large ? FindingKind::kIndexMalformed : FindingKind::kIndexUnreadable,
                     Category::kIndex, e.name, "cannot read: " + err));
    return std::nullopt;
  }
  stguard::Result<IndexContents, IndexFailure> contents = parse_index(text);
  if (!contents) {
    IndexFailure failure = std::move(contents).error();
    Finding f = make_finding(failure.kind, Category::kIndex, e.name, std::move(failure.message));
    f.offset = failure.offset;
    findings.push_back(std::move(f));
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
void name_shards(IndexUnderCheck& index, std::vector<Finding>& findings) {
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
      findings.push_back(std::move(f));
      index.unusable.insert(raw);
      continue;
    }
    if (!folder.empty()) *name = std::string(folder) + "/" + *name;
    index.normalised[raw] = *name;
    index.named.insert(*name);
  }
  index.report.shards_named = index.named.size();
}

// Holds one usable index against the shards of its checkpoint; its report,
// with computed_size when every shard it names could be read.
IndexReport compare_index(const PassContext& context, const CheckedShards& shards,
                          const IndexUnderCheck& index, std::vector<Finding>& findings) {
  IndexReport report = index.report;
  const std::string& file = index.report.file;
  std::map<std::string, std::uint64_t> tensors_per_shard;  // raw name -> count
  for (const auto& [tensor, shard] : index.weight_map) ++tensors_per_shard[shard];
  // Shards named as written whose tensors cannot be checked: the unsafe
  // names, and those missing or rejected here.
  std::set<std::string> unusable = index.unusable;
  for (const auto& [raw, count] : tensors_per_shard) {
    const auto named = index.normalised.find(raw);
    if (named == index.normalised.end()) continue;  // unsafe_path, reported
    const std::string& name = named->second;
    const auto it = shards.position.find(name);
    if (it == shards.position.end()) {
      std::string message = "names shard " + in_quotes(name) + " for " + std::to_string(count) +
                            " tensor" + (count == 1 ? "" : "s") + ", but it is not in DIR";
      const auto entry = context.folder.by_name.find(name);
      if (entry != context.folder.by_name.end())
        message += " (a file of that name exists but is not *.safetensors)";
      Finding f = make_finding(FindingKind::kIndexShardMissing, Category::kIndex, file, message);
      f.shard = name;
      findings.push_back(std::move(f));
      unusable.insert(raw);
      continue;
    }
    if (shards.reports[it->second].verdict != ShardVerdict::kAccept) {
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
    if (const auto found = shards.tensors.find(tensor); found != shards.tensors.end()) {
      for (const std::uint32_t id : found->second) {
        const std::string& holder = shards.reports[id].file;
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
      findings.push_back(std::move(f));
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
    findings.push_back(std::move(f));
  }

  // Tensors in the shards this index names that it does not list.
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& [tensor, ids] : shards.tensors) {
    if (index.weight_map.count(tensor) != 0) continue;
    for (const std::uint32_t id : ids) {
      if (index.named.count(shards.reports[id].file) != 0) {
        extra.emplace_back(tensor, shards.reports[id].file);
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
    findings.push_back(std::move(f));
  }

  // metadata.total_size: comparable only when every named shard was read.
  if (unusable.empty()) {
    std::uint64_t sum = 0;
    bool overflow = false;
    for (const std::string& name : index.named) {
      overflow |=
          __builtin_add_overflow(sum, shards.reports[shards.position.at(name)].tensor_bytes, &sum);
    }
    if (!overflow) {
      report.computed_size = sum;
      if (report.total_size && *report.total_size != sum) {
        // A warning unless --strict: no loader reads the field (docs/cli.md).
        Finding f = make_finding(
            FindingKind::kTotalSizeMismatch, Category::kIndex, file,
            "metadata.total_size is " + std::to_string(*report.total_size) +
                " but the tensors in its shards add up to " + std::to_string(sum) + " bytes" +
                (context.options.strict
                     ? std::string(" (--strict)")
                     : std::string(" (no loader reads the field; an error with --strict)")),
            context.options.strict ? Severity::kError : Severity::kWarning);
        f.expected_size = *report.total_size;
        f.actual_size = sum;
        findings.push_back(std::move(f));
      }
    }
  }
  return report;
}

}  // namespace

std::vector<IndexUnderCheck> read_indexes(const PassContext& context,
                                          std::vector<Finding>& findings) {
  std::vector<IndexUnderCheck> indexes;
  for (const Entry& e : context.folder.entries) {
    if (e.role != Role::kIndex) continue;
    std::optional<IndexUnderCheck> parsed = load_index(context, e, findings);
    if (parsed) {
      name_shards(*parsed, findings);
      indexes.push_back(std::move(*parsed));
    } else {
      IndexUnderCheck unusable;
      unusable.report.file = e.name;
      indexes.push_back(std::move(unusable));
    }
  }
  return indexes;
}

std::vector<IndexReport> compare_indexes(const PassContext& context, const CheckedShards& shards,
                                         const std::vector<IndexUnderCheck>& indexes,
                                         std::vector<Finding>& findings) {
  std::vector<IndexReport> reports;
  for (const IndexUnderCheck& index : indexes) {
    reports.push_back(index.report.usable ? compare_index(context, shards, index, findings)
                                          : index.report);
  }
  return reports;
}

}  // namespace stguard::verify
