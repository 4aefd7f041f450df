// generator/manifest.h: corpus/manifest.json and corpus/README.md, rendered
// deterministically (fixed key order, cases sorted by id, two-space indent,
// arrays of scalars on one line, UTF-8 kept as is, a final newline).
//
//   std::string text = stguard::conformance::manifest_json(corpus.cases);
//
// Schema (DESIGN.md, "Corpus and manifest"):
//   {"version": "1", "cases": [{"id", "file", "sha256", "size", "description",
//    "rules", "verdict", "strict", "reference", "reason", "tags",
//    "expected": {"metadata": {...} | null,
//                 "tensors": [{"name", "dtype", "shape", "data_offsets",
//                              "sha256"}]} | null}]}
#ifndef STGUARD_CONFORMANCE_GENERATOR_MANIFEST_H_
#define STGUARD_CONFORMANCE_GENERATOR_MANIFEST_H_

#include <span>
#include <string>
#include <string_view>

#include "generator/corpus.h"
#include "generator/recipe.h"

namespace stguard::conformance {

// Bumped only when the manifest schema changes incompatibly.
inline constexpr std::string_view kManifestVersion = "1";

std::string manifest_json(std::span<const BuiltCase> cases);

// corpus/README.md from the template conformance/corpus_readme.md.in, with
// @CASE_TABLE@, @CASE_TOTAL@, @EITHER_TOTAL@, @ON_DEMAND_LIST@ and
// @MANIFEST_VERSION@ filled in from the built corpus.
std::string corpus_readme(const RecipeSet& set, const Corpus& corpus,
                          std::string_view template_text);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_MANIFEST_H_
