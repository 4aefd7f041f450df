// conformance/report/escape.h: untrusted text made safe for each report
// medium. Every escaper starts from the one display policy,
// base::terminal_safe (controls, bidirectional marks, invisible characters
// and invalid UTF-8 become visible escapes; backslashes are doubled), so a
// hostile reader message reads the same in the terminal, the HTML page, the
// Markdown matrix and the JUnit report; then each adds its medium's escapes.
//
//   out += "<td>" + html_text(reader_name, 120) + "</td>";
//   out += "| " + markdown_cell(message, 120) + " |";
//   out += "<failure message=\"" + xml_text(message, true, 300) + "\">";
//
// max_chars cuts the shown text to that many characters with a final "…"
// (0: no limit), never inside an escape.
#ifndef STGUARD_CONFORMANCE_REPORT_ESCAPE_H_
#define STGUARD_CONFORMANCE_REPORT_ESCAPE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace stguard::conformance {

// Display-safe text (base::terminal_safe), cut to max_chars: what the
// terminal report prints and the HTML page's data holds, before any escape
// of a medium. keep_newlines leaves LF as it is, for multi-line messages.
std::string display_text(std::string_view text, std::size_t max_chars, bool keep_newlines = false);

// XML 1.0 character data, or an attribute value in double quotes. In
// character data LF and TAB stay as they are (multi-line text); in an
// attribute they are shown as \n and \t like any other control. & < > " '
// become entities; U+FFFE and U+FFFF, which XML forbids, become U+FFFD. The
// cut counts characters of the escaped output.
std::string xml_text(std::string_view text, bool attribute, std::size_t max_chars = 0);

// HTML text or attribute value: display-safe (cut to max_chars), then
// & < > " ' as entities.
std::string html_text(std::string_view text, std::size_t max_chars = 0);

// One Markdown (GFM) table cell: display-safe on one line (cut to
// max_chars), then every character Markdown or a table would interpret
// (\ ` * _ [ ] < > | ~ & # !) backslash-escaped.
std::string markdown_cell(std::string_view text, std::size_t max_chars = 0);

// A case id in a code span when it needs no escaping (corpus ids never do),
// else markdown_cell(id, 120).
std::string markdown_case_id(std::string_view id);

// JSON text (valid UTF-8) with <, >, & and U+2028/U+2029 written as \u
// escapes, so that it can sit in a <script> element without ending it or,
// in older JavaScript, a line. Those characters only occur inside JSON
// strings, where the escapes mean the same.
std::string script_safe_json(std::string_view json);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_REPORT_ESCAPE_H_
