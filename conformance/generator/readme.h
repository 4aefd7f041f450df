// conformance/generator/readme.h: corpus/README.md, rendered from the
// template conformance/corpus_readme.md.in and the built corpus.
//
//   std::string text = stguard::conformance::corpus_readme(set, corpus, template_text);
#ifndef STGUARD_CONFORMANCE_GENERATOR_README_H_
#define STGUARD_CONFORMANCE_GENERATOR_README_H_

#include <string>
#include <string_view>

#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"

namespace stguard::conformance {

// The template with @CASE_TABLE@, @CASE_TOTAL@, @EITHER_TOTAL@,
// @ON_DEMAND_LIST@ and @MANIFEST_VERSION@ filled in from the built corpus.
std::string corpus_readme(const RecipeSet& set, const Corpus& corpus,
                          std::string_view template_text);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_README_H_
