// tests/support/byte_edits.h: the small random edits the syntax tests make
// to JSON text.
//
//   std::mt19937 rng(1);
//   stguard_test::EditRandomBytes(text, "{}[],:\"", [&](std::size_t n) { return rng() % n; });
#ifndef STGUARD_TESTS_SUPPORT_BYTE_EDITS_H_
#define STGUARD_TESTS_SUPPORT_BYTE_EDITS_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace stguard_test {

// Makes 1 to 3 edits to `text`, each replacing, inserting or erasing one
// byte at a random place, the new bytes drawn from `alphabet`; stops early
// when the text becomes empty. `below(n)` gives a random number in [0, n);
// the draws are made in a fixed order, so a seeded generator gives the same
// edits everywhere.
template <class Below>
void EditRandomBytes(std::string& text, std::string_view alphabet, Below&& below) {
  if (text.empty()) return;
  const std::size_t edits = static_cast<std::size_t>(below(3)) + 1;
  for (std::size_t e = 0; e < edits; ++e) {
    const auto at = static_cast<std::size_t>(below(text.size()));
    const char c = alphabet[static_cast<std::size_t>(below(alphabet.size()))];
    switch (below(3)) {
      case 0:
        text[at] = c;
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        text.erase(at, 1);
        break;
    }
    if (text.empty()) break;
  }
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_BYTE_EDITS_H_
