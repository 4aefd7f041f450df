// Helpers for error messages. Names in a hostile header may hold terminal
// escape sequences, newlines or megabytes of text; messages quote them with
// non-printable bytes escaped and long names shortened.
//
// Messages are built by message(), which sizes the whole text first and
// allocates once. Most fuzzed and most broken inputs end in an error, so the
// cost of building its message is the cost of a rejection: under
// AddressSanitizer each allocation costs about as much as scanning a short
// header, and `"a" + quoted(x) + "b"` chains made three to five of them.
#ifndef STGUARD_SRC_MESSAGE_H_
#define STGUARD_SRC_MESSAGE_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace stguard::detail {

// "name" with \n, \xNN escapes, cut to about 80 bytes with "..." after it.
std::string quoted(std::string_view name);

// The pieces message() takes: text, an unsigned number in decimal, or a name
// to quote as quoted() does.
struct Quoted {
  std::string_view name;
};

// Bytes quoted(name) produces, and appending them to `out`.
std::size_t quoted_size(std::string_view name) noexcept;
void append_quoted(std::string& out, std::string_view name);

namespace message_piece {

inline std::size_t size(std::string_view text) noexcept { return text.size(); }
inline std::size_t size(std::uint64_t) noexcept { return 20; }  // digits of 2^64-1
inline std::size_t size(Quoted q) noexcept { return quoted_size(q.name); }

inline void append(std::string& out, std::string_view text) { out.append(text); }
inline void append(std::string& out, std::uint64_t value) {
  char digits[20];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end.ptr);
}
inline void append(std::string& out, Quoted q) { append_quoted(out, q.name); }

}  // namespace message_piece

// The concatenation of `pieces`, in one allocation.
template <class... Pieces>
std::string message(const Pieces&... pieces) {
  std::string out;
  out.reserve((message_piece::size(pieces) + ...));
  (message_piece::append(out, pieces), ...);
  return out;
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_MESSAGE_H_
