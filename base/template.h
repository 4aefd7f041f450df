// base/template.h: filling @NAME@ placeholders in a text kept as a file (the
// corpus README template, the conformance matrix page).
//
//   const stguard::base::TemplateValue values[] = {{"TITLE", title}, {"DATA", json}};
//   std::string page = stguard::base::fill_template(skeleton, values);
//
// One pass from left to right: each @NAME@ whose NAME is given is replaced by
// its value, and a value is never scanned again, so a value that happens to
// hold "@TITLE@" (text from a reader, a recipe) stays as it is. An '@' that
// does not start a given placeholder is copied unchanged.
#ifndef STGUARD_BASE_TEMPLATE_H_
#define STGUARD_BASE_TEMPLATE_H_

#include <span>
#include <string>
#include <string_view>

namespace stguard::base {

struct TemplateValue {
  std::string_view name;  // without the @s
  std::string_view value;
};

std::string fill_template(std::string_view text, std::span<const TemplateValue> values);

}  // namespace stguard::base

#endif  // STGUARD_BASE_TEMPLATE_H_
