// conformance/runner/selection.h: which corpus cases a run takes
// (`stguard conform --case GLOB --tag TAG`).
//
//   stguard::conformance::CaseFilter filter{.id_globs = {"layout/*"}, .tags = {}};
//   for (const Case& c : manifest.cases) if (filter.matches(c)) run(c);
#ifndef STGUARD_CONFORMANCE_RUNNER_SELECTION_H_
#define STGUARD_CONFORMANCE_RUNNER_SELECTION_H_

#include <string>
#include <vector>

#include "conformance/model/case.h"

namespace stguard::conformance {

// A case is kept when it matches any of `id_globs` (fnmatch on the id, so
// '*' spans '/'; none given = all) and carries any of `tags` (none given = all).
struct CaseFilter {
  std::vector<std::string> id_globs;
  std::vector<std::string> tags;

  bool matches(const Case& c) const;
};

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_RUNNER_SELECTION_H_
