// conformance/report/escape.cc: the report escapers (escape.h), each built
// on base/text.h's display policy.
#include "conformance/report/escape.h"

#include <algorithm>

#include "base/text.h"

namespace stguard::conformance {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The display policy cut to max_chars, then escape(out, c) for each byte of
// it: for media whose own escapes are all ASCII and whose length limit is
// about what is shown, not how it is encoded.
template <typename Escape>
std::string shown_then_escaped(std::string_view text, std::size_t max_chars, Escape escape) {
  const std::string shown = display_text(text, max_chars);
  std::string out;
  out.reserve(shown.size());
  for (const char c : shown) escape(out, c);
  return out;
}

// & < > " and ' as character references (`apostrophe` for '); false, and
// nothing appended, for any other code point.
bool append_markup_escape(std::string& out, char32_t code_point, std::string_view apostrophe) {
  switch (code_point) {
    case '&':
      out += "&amp;";
      return true;
    case '<':
      out += "&lt;";
      return true;
    case '>':
      out += "&gt;";
      return true;
    case '"':
      out += "&quot;";
      return true;
    case '\'':
      out += apostrophe;
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string display_text(std::string_view text, std::size_t max_chars, bool keep_newlines) {
  return base::terminal_safe(text, {.max_chars = max_chars, .keep_newlines = keep_newlines});
}

std::string xml_text(std::string_view text, bool attribute, std::size_t max_chars) {
  const base::SafeTextOptions policy{.keep_newlines = !attribute};
  return base::rewrite_code_points(
      text, max_chars, [&policy](std::string& out, char32_t code_point, std::string_view raw) {
        if (append_markup_escape(out, code_point, "&apos;")) return;
        if (code_point == 0xFFFE || code_point == 0xFFFF) {
          out += kReplacement;
        } else {
          base::append_terminal_safe(out, code_point, raw, policy);
        }
      });
}

std::string html_text(std::string_view text, std::size_t max_chars) {
  return shown_then_escaped(text, max_chars, [](std::string& out, char c) {
    if (!append_markup_escape(out, static_cast<unsigned char>(c), "&#39;")) out += c;
  });
}

std::string markdown_cell(std::string_view text, std::size_t max_chars) {
  return shown_then_escaped(text, max_chars, [](std::string& out, char c) {
    if (std::string_view("\\`*_[]<>|~&#!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  });
}

std::string markdown_case_id(std::string_view id) {
  const bool plain = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '/' || c == '+';
  });
  return plain ? "`" + std::string(id) + "`" : markdown_cell(id, 120);
}

std::string script_safe_json(std::string_view json) {
  return base::rewrite_code_points(json, 0,
                                   [](std::string& out, char32_t code_point, std::string_view raw) {
                                     switch (code_point) {
                                       case '<':
                                         out += "\\u003c";
                                         return;
                                       case '>':
                                         out += "\\u003e";
                                         return;
                                       case '&':
                                         out += "\\u0026";
                                         return;
                                       case 0x2028:
                                         out += "\\u2028";
                                         return;
                                       case 0x2029:
                                         out += "\\u2029";
                                         return;
                                       default:
                                         out += raw;
                                     }
                                   });
}

}  // namespace stguard::conformance
