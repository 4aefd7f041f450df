// verify/fetched.cc: a remote repository verified from its fetched files
// (verify_fetched): the listing made from the names, the structure passes
// reading the fetched bytes instead of descriptors (Listing::fetched), the
// sizes held against the listing's.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/path.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/index.h"
#include "verify/passes.h"
#include "verify/verify.h"

namespace stguard::verify {

VerifyReport verify_fetched(const std::string& name, const std::vector<FetchedFile>& files,
                            const VerifyOptions& options) {
  // The listing is given whole: no subfolder walk, no reads of contents.
  VerifyOptions structure_only = options;
  structure_only.recursive = false;
  structure_only.scan_values = false;
  structure_only.follow_symlinks = false;
  Verification v(structure_only);
  v.report.dir = name;
  v.report.layout = Layout::kRemote;

  std::unordered_map<std::string, const FetchedFile*> by_name;
  for (const FetchedFile& f : files) {
    if (!options.recursive && f.name.find('/') != std::string::npos) continue;
    if (!by_name.emplace(f.name, &f).second) continue;  // a name listed twice: the first
    Entry e;
    e.name = f.name;
    e.type = EntryType::kRegular;
    e.role = role_of(e.name);
    v.folder.entries.push_back(std::move(e));
  }
  std::sort(v.folder.entries.begin(), v.folder.entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < v.folder.entries.size(); ++i) {
    v.folder.by_name[v.folder.entries[i].name] = i;
  }
  v.folder.fetched = &by_name;

  // What the listing says against what the server sent, before the passes
  // (a folder-level finding, as a stray file is).
  for (const Entry& e : v.folder.entries) {
    const FetchedFile& f = *by_name.at(e.name);
    if (e.role != Role::kShard || !f.error.empty() || !f.listed_size || *f.listed_size == f.size) {
      continue;
    }
    Finding finding = make_finding(
        FindingKind::kShardSizeMismatch, Category::kShard, e.name,
        "the server sends " + std::to_string(f.size) + " bytes, the repository's listing says " +
            std::to_string(*f.listed_size) + " (a file changed on the server, or a proxy's)");
    finding.expected_size = *f.listed_size;
    finding.actual_size = f.size;
    v.add(std::move(finding));
  }
  run_structure_passes(v);
  finish_checkpoints(v);
  VerifyReport report = take_report(v);
  count_totals(report);
  return report;
}

FetchNeed fetch_need(std::string_view name) {
  switch (role_of(name)) {
    case Role::kShard:
      return FetchNeed::kHead;
    case Role::kIndex:
      return FetchNeed::kWhole;
    case Role::kChecksums:
    case Role::kOther:
      return FetchNeed::kNothing;
  }
  return FetchNeed::kNothing;
}

std::vector<std::string> shards_named_in_index(std::string_view text) {
  const auto index = parse_index(text);
  if (!index) return {};
  std::set<std::string> names;
  for (const auto& [tensor, shard] : index->weight_map) {
    if (base::Result<std::string> safe = base::safe_relative_name(shard)) names.insert(*safe);
  }
  return {names.begin(), names.end()};
}

}  // namespace stguard::verify
