// verify/value_check.cc: the value pass of `verify --scan-values`: shards
// that no checksum read went through are read once here, then every
// scanner's results become findings and the report's `values`.
#include "verify/value_check.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verify/file_read.h"
#include "verify/findings.h"
#include "verify/passes.h"

namespace stguard::verify {
namespace {

std::string describe(const TensorValues& t) {
  return "tensor " + in_quotes(t.name) + " (" + std::string(dtype_name(t.dtype)) + ", " +
         std::to_string(t.values) + (t.values == 1 ? " value" : " values") + ")";
}

void add_tensor_findings(const std::string& file, const TensorValues& t,
                         std::vector<Finding>& findings) {
  auto add = [&](FindingKind kind, std::string what, Severity severity) {
    Finding f = make_finding(kind, Category::kValues, file, describe(t) + ": " + what, severity);
    f.tensor = t.name;
    findings.push_back(std::move(f));
  };
  if (t.nan != 0) add(FindingKind::kTensorNan, std::to_string(t.nan) + " NaN", Severity::kError);
  if (t.pos_inf != 0 || t.neg_inf != 0) {
    add(FindingKind::kTensorInf,
        std::to_string(t.pos_inf) + " +Inf, " + std::to_string(t.neg_inf) + " -Inf",
        Severity::kError);
  }
  if (t.all_zero) {
    add(FindingKind::kTensorAllZero,
        "every value is zero (an untrained or wiped tensor? some, such as a LoRA's B matrices, "
        "start at zero on purpose)",
        Severity::kWarning);
  }
}

// Reads the shards with a scanner that no earlier read claimed.
void read_unclaimed(const ReadContext& reads, const std::vector<ShardReport>& shards,
                    ValuesReport& vr, std::vector<Finding>& findings) {
  std::vector<ReadJob> jobs;
  for (const ShardReport& shard : shards) {
    if (!reads.values.has(shard.file) || reads.values.claimed(shard.file)) continue;
    jobs.push_back(ReadJob{shard.file, shard.size});
  }
  ReadStats stats;
  const std::vector<FileRead> done = read_all(reads, jobs, /*hash=*/false, &stats);
  vr.bytes_read = stats.bytes;
  vr.seconds = stats.seconds;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const FileRead& read = done[i];
    // A shard that grew or shrank while read changed; it is not unreadable.
    if (changed_while_verified(reads, jobs[i].name, read)) {
      findings.push_back(make_finding(FindingKind::kFileChanged, Category::kFolder, jobs[i].name,
                                      changed_message(read)));
    } else if (!read.ok()) {
      findings.push_back(
          make_finding(FindingKind::kShardUnreadable, Category::kShard, jobs[i].name,
                       "could not be read to scan its values: " + read.error_text()));
    }
  }
}

}  // namespace

void ValueScans::add(const std::string& name, std::span<const TensorInfo> tensors,
                     std::uint64_t data_offset) {
  shards_[name] = std::make_unique<Shard>(tensors, data_offset);
}

base::ChunkSink ValueScans::claim(const std::string& name) const {
  const auto it = shards_.find(name);
  if (it == shards_.end()) return {};
  Shard* shard = it->second.get();
  if (shard->claimed.exchange(true)) return {};
  return [shard](std::span<const std::uint8_t> chunk) { shard->scanner.feed(chunk); };
}

bool ValueScans::claimed(const std::string& name) const {
  const auto it = shards_.find(name);
  return it != shards_.end() && it->second->claimed.load();
}

std::vector<TensorValues> ValueScans::finish(const std::string& name) {
  const auto it = shards_.find(name);
  if (it == shards_.end()) return {};
  return it->second->scanner.finish();
}

std::optional<ValuesReport> check_values(const ReadContext& reads,
                                         const std::vector<ShardReport>& shards, ValueScans& values,
                                         std::vector<Finding>& findings) {
  if (!reads.options.scan_values) return std::nullopt;
  ValuesReport vr;
  read_unclaimed(reads, shards, vr, findings);
  // Every read is done: the scanners can be finished (`values` is the
  // table reads.values names).
  for (const ShardReport& shard : shards) {
    if (!values.has(shard.file)) continue;
    bool complete = true;
    for (TensorValues& t : values.finish(shard.file)) {
      if (!t.complete) {
        complete = false;
        continue;
      }
      ++vr.tensors;
      vr.tensor_bytes += t.bytes;
      vr.nan += t.nan;
      vr.pos_inf += t.pos_inf;
      vr.neg_inf += t.neg_inf;
      vr.tensors_nan += t.nan != 0 ? 1 : 0;
      vr.tensors_inf += t.pos_inf != 0 || t.neg_inf != 0 ? 1 : 0;
      vr.tensors_all_zero += t.all_zero ? 1 : 0;
      if (!t.noteworthy()) continue;
      add_tensor_findings(shard.file, t, findings);
      vr.noteworthy.push_back(ScannedTensor{shard.file, std::move(t)});
    }
    if (complete) {
      ++vr.shards;
    } else {
      ++vr.shards_incomplete;
    }
  }
  return vr;
}

}  // namespace stguard::verify
