// conformance/runner/selection.cc: case selection (selection.h).
#include "conformance/runner/selection.h"

#include <fnmatch.h>

#include <algorithm>

namespace stguard::conformance {

bool CaseFilter::matches(const Case& c) const {
  const bool id_ok = id_globs.empty() ||
                     std::any_of(id_globs.begin(), id_globs.end(), [&](const std::string& glob) {
                       return ::fnmatch(glob.c_str(), c.id.c_str(), 0) == 0;
                     });
  const bool tag_ok =
      tags.empty() || std::any_of(tags.begin(), tags.end(), [&](const std::string& tag) {
        return std::find(c.tags.begin(), c.tags.end(), tag) != c.tags.end();
      });
  return id_ok && tag_ok;
}

}  // namespace stguard::conformance
