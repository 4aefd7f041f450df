// conformance/generator/readme.cc: corpus/README.md (readme.h).
#include "conformance/generator/readme.h"

#include <map>

#include "base/template.h"
#include "conformance/model/manifest.h"

namespace stguard::conformance {
namespace {

struct Counts {
  int accept = 0, reject = 0, either = 0, on_demand = 0;
};

int& count_of(Counts& counts, Verdict verdict) {
  switch (verdict) {
    case Verdict::kAccept:
      return counts.accept;
    case Verdict::kReject:
      return counts.reject;
    case Verdict::kEither:
      return counts.either;
  }
  return counts.either;
}

}  // namespace

std::string corpus_readme(const RecipeSet& set, const Corpus& corpus,
                          std::string_view template_text) {
  std::map<std::string, Counts> by_group;
  Counts total;
  const auto count = [&](const BuiltCase& c, bool on_demand) {
    Counts& g = by_group[c.recipe->group];
    if (on_demand) {
      ++g.on_demand;
      ++total.on_demand;
      return;
    }
    ++count_of(g, c.entry.verdict);
    ++count_of(total, c.entry.verdict);
  };
  for (const BuiltCase& c : corpus.cases) count(c, false);
  for (const BuiltCase& c : corpus.on_demand) count(c, true);

  std::string table =
      "| group | what it covers | cases | accept | reject | either | on demand |\n"
      "|---|---|---:|---:|---:|---:|---:|\n";
  for (const Group& g : set.groups) {
    const Counts& n = by_group[g.name];
    table += "| `" + g.name + "` | " + g.about + " | " +
             std::to_string(n.accept + n.reject + n.either) + " | " + std::to_string(n.accept) +
             " | " + std::to_string(n.reject) + " | " + std::to_string(n.either) + " | " +
             std::to_string(n.on_demand) + " |\n";
  }
  const int committed = total.accept + total.reject + total.either;
  table += "| **total** | | **" + std::to_string(committed) + "** | " +
           std::to_string(total.accept) + " | " + std::to_string(total.reject) + " | " +
           std::to_string(total.either) + " | " + std::to_string(total.on_demand) + " |\n";

  std::string on_demand;
  for (const BuiltCase& c : corpus.on_demand) {
    const Case& e = c.entry;
    on_demand += "- `" + e.id + "` (" + std::string(verdict_name(e.verdict)) +
                 (e.reason.empty() ? "" : ", " + e.reason) + ", " + std::to_string(e.size) +
                 " bytes): " + e.description + "\n";
  }

  const std::string case_total = std::to_string(committed);
  const std::string either_total = std::to_string(total.either);
  const base::TemplateValue values[] = {{"CASE_TABLE", table},
                                        {"CASE_TOTAL", case_total},
                                        {"EITHER_TOTAL", either_total},
                                        {"ON_DEMAND_LIST", on_demand},
                                        {"MANIFEST_VERSION", kManifestVersion}};
  return base::fill_template(template_text, values);
}

}  // namespace stguard::conformance
