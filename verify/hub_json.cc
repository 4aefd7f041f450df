// verify/hub_json.cc: the layout, checksum sources and Hub sections of the
// JSON report (field names are stable, as in the rest of the report).
#include "verify/hub_json.h"

#include <utility>

#include "base/json.h"

namespace stguard::verify {

void add_layout_json(const VerifyReport& report, nlohmann::ordered_json& doc) {
  using Json = nlohmann::ordered_json;
  doc["layout"] = layout_name(report.layout);
  Json sources = Json::array();
  for (const std::string& s : report.checksum_sources) sources.push_back(s);
  doc["checksum_sources"] = std::move(sources);
  if (!report.hub) {
    doc["hub"] = nullptr;
    return;
  }
  const HubReport& hub = *report.hub;
  Json out = Json::object();
  Json snapshots = Json::array();
  for (const SnapshotReport& s : hub.snapshots) {
    Json j = Json::object();
    base::set_name(j, "commit", s.commit);
    Json refs = Json::array();
    for (const std::string& r : s.refs) refs.push_back(r);
    j["refs"] = std::move(refs);
    j["files"] = s.files;
    j["verified"] = s.verified;
    snapshots.push_back(std::move(j));
  }
  out["snapshots"] = std::move(snapshots);
  Json files = Json::array();
  for (const ContentFile& f : hub.files) {
    Json j = Json::object();
    base::set_name(j, "file", f.file);
    j["algorithm"] = f.algorithm.empty() ? Json(nullptr) : Json(f.algorithm);
    base::set_name(j, "expected", f.expected);
    j["actual"] = f.actual.empty() ? Json(nullptr) : Json(f.actual);
    j["size"] = f.size;
    j["verdict"] = content_verdict_name(f.verdict);
    if (!f.error.empty()) j["error"] = f.error;
    Json used = Json::array();
    for (const std::string& u : f.used_by) used.push_back(u);
    j["used_by"] = std::move(used);
    Json refs = Json::array();
    for (const std::string& r : f.refs) refs.push_back(r);
    j["refs"] = std::move(refs);
    files.push_back(std::move(j));
  }
  out["files"] = std::move(files);
  Json repos = Json::array();
  for (const RepositorySummary& r : hub.repositories) {
    Json j = Json::object();
    base::set_name(j, "name", r.name);
    j["exit_code"] = r.exit_code;
    j["errors"] = r.errors;
    j["warnings"] = r.warnings;
    j["snapshots"] = r.snapshots;
    j["files"] = r.files;
    j["files_verified"] = r.files_verified;
    repos.push_back(std::move(j));
  }
  out["repositories"] = std::move(repos);
  out["bytes_hashed"] = hub.bytes_hashed;
  out["seconds"] = hub.seconds;
  doc["hub"] = std::move(out);
}

}  // namespace stguard::verify
