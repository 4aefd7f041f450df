// base/text.h: UTF-8 decoding and the one policy for showing untrusted text.
//
//   std::cout << stguard::base::terminal_safe(tensor_name) << "\n";
//   std::string cell = stguard::base::terminal_safe(reader_error, {.max_chars = 120});
//
// Tensor names, metadata, file names and readers' messages come from files and
// programs stguard does not trust. Printed raw they could move the cursor,
// rewrite the terminal's title, hide text behind bidirectional overrides
// ("Trojan Source") or split one name into two lines. Every output that shows
// such text (terminal, text reports, HTML, Markdown, JUnit) starts from
// terminal_safe(), so a hostile name reads the same everywhere.
//
// The policy, one code point at a time:
//   LF, TAB, CR              -> \n \t \r (kept as they are with keep_newlines)
//   other C0 controls, DEL   -> \xNN (two lower-case hex digits)
//   C1 controls U+0080..U+009F, the invisible and reordering marks (U+061C,
//   U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, U+2028, U+2029, U+FEFF)
//                            -> \u{XXXX} (lower-case hex, at least four digits)
//   a byte that is not part of well-formed UTF-8 -> \xNN
//   backslash                -> \\ (unless keep_backslash: text that already went
//                               through an escaper, such as the parser's messages)
//   everything else          -> as is
#ifndef STGUARD_BASE_TEXT_H_
#define STGUARD_BASE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stguard::base {

// Space, tab, line feed or carriage return: JSON's whitespace, and the blanks
// that separate words in the messages readers print.
constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// "1 tensor", "3 tensors": a count and a noun whose plural adds an 's'.
std::string plural(std::uint64_t n, std::string_view word);

// What next_code_point() returns for a byte that does not start well-formed
// UTF-8 (stray continuation, overlong form, surrogate, above U+10FFFF,
// truncated sequence). Such a byte is consumed alone.
inline constexpr char32_t kNotUtf8 = 0xFFFF'FFFF;

// Decodes the code point at text[pos] and advances pos past it (by one byte
// for kNotUtf8). Precondition: pos < text.size().
char32_t next_code_point(std::string_view text, std::size_t& pos) noexcept;

// Appends `code_point` (at most U+10FFFF, not a surrogate) as UTF-8.
void append_utf8(std::string& out, char32_t code_point);

// Whether the whole of `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text) noexcept;

// `text` with each byte that is not part of well-formed UTF-8 replaced by
// U+FFFD (for outputs such as JSON that must be UTF-8).
std::string lossy_utf8(std::string_view text);

// Code points in `text` (for table columns); a byte of invalid UTF-8 counts as one.
std::size_t code_point_count(std::string_view text) noexcept;

// Code points that change how the text around them is displayed without being
// visible themselves: C1 controls, bidirectional marks, embeddings, overrides
// and isolates, line and paragraph separators, the zero-width no-break space.
bool is_invisible_control(char32_t code_point) noexcept;

struct SafeTextOptions {
  // Cut to at most this many code points of output, ending with "…"; 0: no limit.
  std::size_t max_chars = 0;
  // Leave backslashes alone (for text whose escapes were already made).
  bool keep_backslash = false;
  // Keep LF and TAB (a multi-line tail of stderr shown in a <pre>).
  bool keep_newlines = false;
};

// `text` made safe to show: the policy at the top of this file.
std::string terminal_safe(std::string_view text, const SafeTextOptions& options = {});

// Appends what terminal_safe() shows for one code point, as next_code_point()
// decoded it from `raw` (kNotUtf8 for one invalid byte). For escapers of
// other media that apply the policy first and then their own escapes to each
// piece (options.max_chars is not looked at: cutting is the caller's).
void append_terminal_safe(std::string& out, char32_t code_point, std::string_view raw,
                          const SafeTextOptions& options);

// Calls piece(out, code_point, raw_bytes) for each code point of `text`
// (kNotUtf8 for an invalid byte, raw_bytes being that byte); `piece` appends
// what to emit for it. When the output would pass max_chars code points (0:
// no limit), it is cut after the last whole piece that leaves room for "…",
// which is appended. The building block of every escaper, so that a cut never
// splits an escape or a character.
template <typename Piece>
std::string rewrite_code_points(std::string_view text, std::size_t max_chars, Piece piece) {
  std::string out;
  std::string buffer;
  std::size_t chars = 0;
  std::size_t cut = 0;  // out.size() while chars stayed below max_chars
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    const char32_t code_point = next_code_point(text, pos);
    buffer.clear();
    piece(buffer, code_point, text.substr(start, pos - start));
    chars += code_point_count(buffer);
    out += buffer;
    if (max_chars != 0) {
      if (chars < max_chars) cut = out.size();
      if (chars > max_chars) {
        out.resize(cut);
        out += "\xE2\x80\xA6";  // U+2026 HORIZONTAL ELLIPSIS
        return out;
      }
    }
  }
  return out;
}

}  // namespace stguard::base

#endif  // STGUARD_BASE_TEXT_H_
