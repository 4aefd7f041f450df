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

// Bytes quoted(name) produces, and writing exactly that many at `out`
// (returns the end of what it wrote).
std::size_t quoted_size(std::string_view name) noexcept;
char* write_quoted(char* out, std::string_view name) noexcept;

namespace message_piece {

// At most this many bytes, then written at `at`; returns the end.
inline std::size_t size(std::string_view text) noexcept { return text.size(); }
inline std::size_t size(std::uint64_t) noexcept { return 20; }  // digits of 2^64-1
inline std::size_t size(Quoted q) noexcept { return quoted_size(q.name); }

inline char* write(char* at, std::string_view text) noexcept {
  std::char_traits<char>::copy(at, text.data(), text.size());
  return at + text.size();
}
inline char* write(char* at, std::uint64_t value) noexcept {
  return std::to_chars(at, at + 20, value).ptr;
}
inline char* write(char* at, Quoted q) noexcept { return write_quoted(at, q.name); }

}  // namespace message_piece

// The concatenation of `pieces`, in one allocation. Written through a plain
// pointer rather than appended: each append re-checks the capacity, and
// fuzzers trace every one of those comparisons.
template <class... Pieces>
std::string message(const Pieces&... pieces) {
  std::string out((message_piece::size(pieces) + ...), '\0');
  char* end = out.data();
  ((end = message_piece::write(end, pieces)), ...);
  out.resize(static_cast<std::size_t>(end - out.data()));
  return out;
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_MESSAGE_H_
