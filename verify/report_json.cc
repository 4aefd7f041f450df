// verify/report_json.cc: the report as one JSON document (report_to_json).
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "base/json.h"
#include "verify/hub_json.h"
#include "verify/verify.h"

namespace stguard::verify {
namespace {

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  if (!value) return nullptr;
  return *value;
}

// The value scan: counts, then only the tensors with something to say.
nlohmann::ordered_json values_json(const ValuesReport& vr) {
  using Json = nlohmann::ordered_json;
  Json j = Json::object();
  j["shards"] = vr.shards;
  j["shards_incomplete"] = vr.shards_incomplete;
  j["tensors_scanned"] = vr.tensors;
  j["tensor_bytes"] = vr.tensor_bytes;
  j["tensors_nan"] = vr.tensors_nan;
  j["tensors_inf"] = vr.tensors_inf;
  j["tensors_all_zero"] = vr.tensors_all_zero;
  j["nan"] = vr.nan;
  j["pos_inf"] = vr.pos_inf;
  j["neg_inf"] = vr.neg_inf;
  j["bytes_read"] = vr.bytes_read;
  j["seconds"] = vr.seconds;
  Json tensors = Json::array();
  for (const ScannedTensor& s : vr.noteworthy) {
    Json t = Json::object();
    base::set_name(t, "file", s.file);
    t["tensor"] = s.values.name;
    t["dtype"] = dtype_name(s.values.dtype);
    t["values"] = s.values.values;
    t["nan"] = s.values.nan;
    t["pos_inf"] = s.values.pos_inf;
    t["neg_inf"] = s.values.neg_inf;
    t["all_zero"] = s.values.all_zero;
    tensors.push_back(std::move(t));
  }
  j["tensors"] = std::move(tensors);
  return j;
}

}  // namespace

nlohmann::ordered_json report_to_json(const VerifyReport& report) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::object();
  base::set_name(doc, "dir", report.dir);
  doc["ok"] = report.ok();
  doc["exit_code"] = report.exit_code();
  doc["fatal"] = report.ran ? Json(nullptr) : Json(report.fatal);
  add_layout_json(report, doc);

  Json shards = Json::array();
  std::uint64_t accepted = 0;
  std::uint64_t rejected = 0;
  std::uint64_t skipped = 0;
  for (const ShardReport& s : report.shards) {
    Json j = Json::object();
    base::set_name(j, "file", s.file);
    j["verdict"] = shard_verdict_name(s.verdict);
    j["kind"] = s.kind ? Json(finding_kind_name(*s.kind)) : Json(nullptr);
    j["reason"] = s.reason ? Json(reason_name(*s.reason)) : Json(nullptr);
    j["offset"] = optional_json(s.offset);
    j["message"] = s.message.empty() ? Json(nullptr) : Json(s.message);
    j["size"] = s.size;
    j["header_len"] = s.header_len;
    j["tensors"] = s.tensors;
    j["tensor_bytes"] = s.tensor_bytes;
    j["via_symlink"] = s.via_symlink;
    shards.push_back(std::move(j));
    accepted += s.verdict == ShardVerdict::kAccept ? 1 : 0;
    rejected += s.verdict == ShardVerdict::kReject ? 1 : 0;
    skipped += s.verdict == ShardVerdict::kSkipped ? 1 : 0;
  }
  doc["shards"] = std::move(shards);

  Json indexes = Json::array();
  for (const IndexReport& i : report.indexes) {
    Json j = Json::object();
    base::set_name(j, "file", i.file);
    j["usable"] = i.usable;
    j["entries"] = i.entries;
    j["shards_named"] = i.shards_named;
    j["total_size"] = optional_json(i.total_size);
    j["computed_size"] = optional_json(i.computed_size);
    indexes.push_back(std::move(j));
  }
  doc["indexes"] = std::move(indexes);

  Json checkpoints = Json::array();
  for (const CheckpointReport& c : report.checkpoints) {
    Json j = Json::object();
    base::set_name(j, "name", c.name);
    j["kind"] = checkpoint_kind_name(c.kind);
    base::set_name(j, "folder", c.folder);
    Json files = Json::array();
    for (const std::string& shard : c.shards)
      files.push_back(shard);  // json_line makes it valid UTF-8
    j["shards"] = std::move(files);
    j["tensors"] = c.tensors;
    j["tensor_bytes"] = c.tensor_bytes;
    j["status"] = c.ok() ? "ok" : "failed";
    j["errors"] = c.errors;
    j["warnings"] = c.warnings;
    checkpoints.push_back(std::move(j));
  }
  doc["checkpoints"] = std::move(checkpoints);

  if (report.checksums) {
    const ChecksumReport& c = *report.checksums;
    Json j = Json::object();
    base::set_name(j, "file", c.file);
    j["from_option"] = c.from_option;
    j["entries"] = c.entries;
    j["verified"] = c.verified;
    j["failed"] = c.failed;
    j["bytes_hashed"] = c.bytes_hashed;
    j["seconds"] = c.seconds;
    j["jobs"] = c.jobs;
    doc["checksums"] = std::move(j);
  } else {
    doc["checksums"] = nullptr;
  }

  doc["values"] = report.values ? values_json(*report.values) : Json(nullptr);

  Json findings = Json::array();
  std::map<std::string_view, std::uint64_t> by_kind;
  for (const Finding& f : report.findings) {
    Json j = Json::object();
    j["kind"] = finding_kind_name(f.kind);
    j["severity"] = severity_name(f.severity);
    j["category"] = category_name(f.category);
    base::set_name(j, "file", f.file);
    if (!f.tensor.empty()) j["tensor"] = f.tensor;
    if (!f.shard.empty()) base::set_name(j, "shard", f.shard);
    if (!f.other.empty()) base::set_name(j, "other", f.other);
    if (!f.checkpoint.empty()) base::set_name(j, "checkpoint", f.checkpoint);
    if (f.reason) j["reason"] = reason_name(*f.reason);
    if (f.offset) j["offset"] = *f.offset;
    if (f.line) j["line"] = *f.line;
    if (f.expected_size) j["expected_size"] = *f.expected_size;
    if (f.actual_size) j["actual_size"] = *f.actual_size;
    if (!f.expected_sha256.empty()) j["expected_sha256"] = f.expected_sha256;
    if (!f.actual_sha256.empty()) j["actual_sha256"] = f.actual_sha256;
    j["message"] = f.message;
    findings.push_back(std::move(j));
    ++by_kind[finding_kind_name(f.kind)];
  }
  doc["findings"] = std::move(findings);

  Json summary = Json::object();
  summary["checkpoints"] = report.checkpoints.size();
  summary["shards"] = report.shards.size();
  summary["shards_accepted"] = accepted;
  summary["shards_rejected"] = rejected;
  summary["shards_skipped"] = skipped;
  summary["tensors"] = report.tensors;
  summary["tensor_bytes"] = report.tensor_bytes;
  summary["errors"] = report.errors;
  summary["warnings"] = report.warnings;
  Json kinds = Json::object();
  for (const auto& [kind, n] : by_kind) kinds[std::string(kind)] = n;
  summary["by_kind"] = std::move(kinds);
  doc["summary"] = std::move(summary);
  return doc;
}

}  // namespace stguard::verify
