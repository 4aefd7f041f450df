#include "base/template.h"

namespace stguard::base {

std::string fill_template(std::string_view text, std::span<const TemplateValue> values) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t at = text.find('@', pos);
    if (at == std::string_view::npos) break;
    out.append(text, pos, at - pos);
    pos = at + 1;
    const std::size_t close = text.find('@', pos);
    const TemplateValue* match = nullptr;
    if (close != std::string_view::npos) {
      const std::string_view name = text.substr(pos, close - pos);
      for (const TemplateValue& value : values) {
        if (value.name == name) match = &value;
      }
    }
    if (match == nullptr) {
      out += '@';  // the closing '@' may open the next placeholder
      continue;
    }
    out += match->value;
    pos = close + 1;
  }
  out.append(text, pos);
  return out;
}

}  // namespace stguard::base
