// conformance/hunt/minimise.cc: delta debugging over header tokens and data bytes
// (minimise.h).
#include "conformance/hunt/minimise.h"

#include <algorithm>
#include <optional>

#include "base/text.h"

namespace stguard::hunt {
namespace {

bool is_punct(char c) {
  return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}

// The test, counted and capped.
class Budget {
 public:
  Budget(const StillHolds& holds, std::size_t max_tests) : holds_(holds), max_(max_tests) {}
  bool spent() const { return used_ >= max_; }
  bool test(std::span<const std::uint8_t> bytes) {
    if (spent()) return false;
    ++used_;
    return holds_(bytes);
  }
  std::size_t used() const { return used_; }

 private:
  const StillHolds& holds_;
  std::size_t max_;
  std::size_t used_ = 0;
};

std::vector<std::uint8_t> assemble(const std::vector<std::string>& tokens,
                                   std::span<const std::uint8_t> data) {
  std::string header;
  for (const std::string& t : tokens) header += t;
  std::vector<std::uint8_t> out(8 + header.size() + data.size());
  std::uint64_t n = header.size();
  for (std::size_t i = 0; i < 8; ++i) {
    out[i] = static_cast<std::uint8_t>(n & 0xff);
    n >>= 8;
  }
  std::copy(header.begin(), header.end(), out.begin() + 8);
  std::copy(data.begin(), data.end(), out.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
  return out;
}

// Complements of ever smaller chunks of `items`, as long as the test holds
// for what is left (`build` turns the items into a file).
template <typename T, typename Build>
void ddmin(std::vector<T>& items, Budget& budget, const Build& build) {
  std::size_t n = 2;
  while (!items.empty() && !budget.spent()) {
    const std::size_t chunk = (items.size() + n - 1) / n;
    bool removed = false;
    for (std::size_t start = 0; start < items.size() && !budget.spent(); start += chunk) {
      std::vector<T> rest(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(start));
      rest.insert(
          rest.end(),
          items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), start + chunk)),
          items.end());
      if (budget.test(build(rest))) {
        items = std::move(rest);
        n = std::max<std::size_t>(n - 1, 2);
        removed = true;
        break;
      }
    }
    if (removed) continue;
    if (chunk <= 1) break;
    n = std::min(n * 2, items.size());
  }
}

// The index one past the value starting at token `i` (a bracketed group is
// one value); nullopt when it does not close.
std::optional<std::size_t> value_end(const std::vector<std::string>& tokens, std::size_t i) {
  if (i >= tokens.size()) return std::nullopt;
  if (tokens[i] != "{" && tokens[i] != "[") return i + 1;
  int depth = 0;
  for (std::size_t k = i; k < tokens.size(); ++k) {
    if (tokens[k] == "{" || tokens[k] == "[") ++depth;
    if (tokens[k] == "}" || tokens[k] == "]") {
      if (--depth == 0) return k + 1;
    }
  }
  return std::nullopt;
}

std::size_t skip_blanks(const std::vector<std::string>& tokens, std::size_t i) {
  while (i < tokens.size() && base::is_blank(tokens[i][0])) ++i;
  return i;
}

// Token ranges [begin, end) of members, each with one adjacent comma, in
// document order.
std::vector<std::pair<std::size_t, std::size_t>> member_spans(
    const std::vector<std::string>& tokens) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i][0] != '"') continue;
    std::size_t before = i;
    while (before > 0 && base::is_blank(tokens[before - 1][0])) --before;
    if (before == 0 || (tokens[before - 1] != "{" && tokens[before - 1] != ",")) continue;
    const std::size_t colon = skip_blanks(tokens, i + 1);
    if (colon >= tokens.size() || tokens[colon] != ":") continue;
    const std::optional<std::size_t> end = value_end(tokens, skip_blanks(tokens, colon + 1));
    if (!end) continue;
    const std::size_t after = skip_blanks(tokens, *end);
    if (after < tokens.size() && tokens[after] == ",") {
      spans.emplace_back(i, after + 1);
    } else if (tokens[before - 1] == ",") {
      spans.emplace_back(before - 1, *end);
    } else {
      spans.emplace_back(i, *end);
    }
  }
  return spans;
}

}  // namespace

std::vector<std::string> header_tokens(std::string_view header) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < header.size()) {
    const char c = header[i];
    std::size_t end = i + 1;
    if (c == '"') {
      while (end < header.size() && header[end] != '"') end += header[end] == '\\' ? 2u : 1u;
      end = std::min(end + 1, header.size());
    } else if (base::is_blank(c)) {
      while (end < header.size() && base::is_blank(header[end])) ++end;
    } else if (!is_punct(c)) {
      while (end < header.size() && !is_punct(header[end]) && !base::is_blank(header[end]) &&
             header[end] != '"') {
        ++end;
      }
    }
    tokens.emplace_back(header.substr(i, end - i));
    i = end;
  }
  return tokens;
}

std::vector<std::uint8_t> minimise(std::span<const std::uint8_t> file, const StillHolds& holds,
                                   const MinimiseOptions& options, std::size_t* tests) {
  Budget budget(holds, options.max_tests);
  std::uint64_t n = 0;
  for (std::size_t i = 8; i-- > 0 && file.size() >= 8;) n = (n << 8) | file[i];
  if (file.size() < 8 || n > file.size() - 8) {
    std::vector<std::uint8_t> bytes(file.begin(), file.end());
    ddmin(bytes, budget, [](const std::vector<std::uint8_t>& b) { return b; });
    if (tests != nullptr) *tests = budget.used();
    return bytes;
  }
  const auto header_begin = file.begin() + 8;
  const auto header_end = header_begin + static_cast<std::ptrdiff_t>(n);
  std::vector<std::string> tokens = header_tokens(std::string(header_begin, header_end));
  std::vector<std::uint8_t> data(header_end, file.end());

  // 1. Whole members, the last first (so earlier spans stay valid).
  for (bool changed = true; changed && !budget.spent();) {
    changed = false;
    const auto spans = member_spans(tokens);
    for (auto it = spans.rbegin(); it != spans.rend() && !budget.spent(); ++it) {
      std::vector<std::string> rest(tokens.begin(),
                                    tokens.begin() + static_cast<std::ptrdiff_t>(it->first));
      rest.insert(rest.end(), tokens.begin() + static_cast<std::ptrdiff_t>(it->second),
                  tokens.end());
      if (budget.test(assemble(rest, data))) {
        tokens = std::move(rest);
        changed = true;
        break;
      }
    }
  }
  // 2. Tokens of the header.
  ddmin(tokens, budget, [&](const std::vector<std::string>& t) { return assemble(t, data); });
  // 3. Data bytes.
  ddmin(data, budget, [&](const std::vector<std::uint8_t>& d) { return assemble(tokens, d); });
  if (tests != nullptr) *tests = budget.used();
  return assemble(tokens, data);
}

}  // namespace stguard::hunt
