#include "base/path.h"

namespace stguard::base {

Result<std::string> safe_relative_name(std::string_view name) {
  const auto reject = [](const char* reason) -> Result<std::string> { return fail(reason); };
  if (name.empty()) return reject("empty name");
  if (name.find('\0') != std::string_view::npos) return reject("contains a NUL byte");
  if (name.find('\\') != std::string_view::npos) return reject("contains a backslash");
  if (name.front() == '/') return reject("absolute path");
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    const std::string_view part = name.substr(start, slash - start);
    if (part == "..") return reject("contains a '..' component (would leave DIR)");
    if (!part.empty() && part != ".") {
      if (!out.empty()) out += '/';
      out += part;
    }
    start = slash + 1;
  }
  if (out.empty()) return reject("names DIR itself, not a file");
  return out;
}

}  // namespace stguard::base
