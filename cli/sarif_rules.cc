// cli/sarif_rules.cc: the SARIF rules of check and verify, read from the
// tables of docs/reasons.md and docs/findings.md as compiled into the command
// (docs.h). A row is `| cell | cell | ... |`; a cell may hold `\|`, code in
// backticks and relative links, which become plain text (text) or absolute
// links (markdown).
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "docs.h"
#include "sarif.h"
#include "stguard/error.h"
#include "verify/verify.h"

namespace stguard::cli::sarif {
namespace {

// Where the documentation is read on the web, for links out of the log.
constexpr std::string_view kDocsUri = "https://github.com/stguard/stguard/blob/main/docs/";

// The cells of a table row, `\|` unescaped, blanks trimmed.
std::vector<std::string> row_cells(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {  // line[0] is the leading '|'
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const std::size_t begin = cell.find_first_not_of(' ');
      const std::size_t end = cell.find_last_not_of(' ');
      cells.push_back(begin == std::string::npos ? "" : cell.substr(begin, end - begin + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The rows of the table under the heading `## heading` of `page`, the
// header row and the separator left out.
std::vector<std::vector<std::string>> table_rows(std::string_view page, std::string_view heading) {
  std::vector<std::vector<std::string>> rows;
  bool in_section = false;
  bool seen_separator = false;
  std::size_t at = 0;
  while (at < page.size()) {
    std::size_t end = page.find('\n', at);
    if (end == std::string_view::npos) end = page.size();
    const std::string_view line = page.substr(at, end - at);
    at = end + 1;
    if (line.rfind("## ", 0) == 0) {
      in_section = line.substr(3) == heading;
      continue;
    }
    if (!in_section || line.empty() || line[0] != '|') continue;
    if (line.rfind("|---", 0) == 0) {
      seen_separator = true;
      continue;
    }
    if (seen_separator) rows.push_back(row_cells(line));
  }
  return rows;
}

// "`OFFSET_GAP`" -> "OFFSET_GAP".
std::string unquote(std::string_view cell) {
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') {
    cell = cell.substr(1, cell.size() - 2);
  }
  return std::string(cell);
}

// Markdown as plain text: backticks dropped, `[text](target)` as text.
std::string plain(std::string_view markdown) {
  std::string out;
  bool in_code = false;
  for (std::size_t i = 0; i < markdown.size(); ++i) {
    const char c = markdown[i];
    if (c == '`') {
      in_code = !in_code;
      continue;
    }
    if (!in_code && c == '[') {
      // A link only when the first ']' after the '[' opens its target.
      const std::size_t middle = markdown.find("](", i);
      const std::size_t close = middle == std::string_view::npos || markdown.find(']', i) != middle
                                    ? std::string_view::npos
                                    : markdown.find(')', middle);
      if (close != std::string_view::npos) {
        out += plain(markdown.substr(i + 1, middle - i - 1));
        i = close;
        continue;
      }
    }
    out += c;
  }
  return out;
}

// Relative links of `page` made absolute, so that they work where the log is
// shown: `(reasons.md)`, `(#order-of-checks)`.
std::string absolute_links(std::string_view markdown, std::string_view page) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t link = markdown.find("]("); link != std::string_view::npos;
       link = markdown.find("](", at)) {
    out += markdown.substr(at, link + 2 - at);
    at = link + 2;
    const std::string_view target = markdown.substr(at);
    if (target.rfind("http", 0) == 0) continue;
    out += kDocsUri;
    if (!target.empty() && target.front() == '#') out += page;
  }
  out += markdown.substr(at);
  return out;
}

// A full stop, and a capital first letter unless the text starts with code
// (`dtype`, `weight_map`), which keeps its case.
std::string sentence(std::string text, bool capital) {
  if (capital && !text.empty())
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  if (!text.empty() && text.back() != '.') text += '.';
  return text;
}

// "OFFSET_GAP" and "shard_truncated" -> "OffsetGap", "ShardTruncated".
std::string camel_case(std::string_view id) {
  std::string out;
  bool upper = true;
  for (const char c : id) {
    if (c == '_') {
      upper = true;
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    out += static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
    upper = false;
  }
  return out;
}

// The first clause of a description: up to the first "; " (and ": " when
// `at_colon`) outside code and parentheses, as plain text with a capital and a
// full stop, for shortDescription.
std::string first_clause(std::string_view markdown, bool at_colon) {
  int depth = 0;
  bool in_code = false;
  std::size_t end = markdown.size();
  for (std::size_t i = 0; i + 1 < markdown.size(); ++i) {
    const char c = markdown[i];
    if (c == '`') in_code = !in_code;
    if (in_code) continue;
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth == 0 && markdown[i + 1] == ' ' && (c == ';' || (at_colon && c == ':'))) {
      end = i;
      break;
    }
  }
  return sentence(plain(markdown.substr(0, end)), !markdown.starts_with('`'));
}

}  // namespace

std::vector<Rule> reason_rules() {
  // | # | `NAME` | strict | reference | offset |
  const std::vector<std::vector<std::string>> rows = table_rows(docs::reasons_md(), "The codes");
  std::vector<Rule> rules;
  for (const Reason reason : all_reasons()) {
    Rule rule;
    rule.id = std::string(reason_name(reason));
    rule.name = camel_case(rule.id);
    rule.help_uri = std::string(kDocsUri) + "reasons.md#the-codes";
    rule.default_level = Level::kError;
    rule.tags = {reason == Reason::kIoError ? "io" : "format"};
    for (const std::vector<std::string>& row : rows) {
      if (row.size() < 5 || unquote(row[1]) != rule.id) continue;
      const std::string reference = row[3] == "same" ? "the same" : row[3];
      rule.short_text = first_clause(row[2], true);
      rule.full_text = "Strict profile: " + plain(row[2]) +
                       ". Reference profile: " + plain(reference) + ". Offset: " + plain(row[4]) +
                       ".";
      rule.full_markdown =
          absolute_links("**Strict profile:** " + row[2] + "\n\n**Reference profile:** " +
                             reference + "\n\n**Offset:** " + row[4],
                         "reasons.md");
    }
    if (rule.short_text.empty()) rule.short_text = rule.full_text = rule.full_markdown = rule.id;
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::vector<Rule> finding_rules() {
  // | `kind` | category | severity | meaning |
  const std::vector<std::vector<std::string>> rows = table_rows(docs::findings_md(), "The kinds");
  std::vector<Rule> rules;
  // The kinds are numbered sparsely by category; every number that has a
  // name is a kind.
  for (unsigned n = 0; n <= 0xff; ++n) {
    const auto kind = static_cast<verify::FindingKind>(n);
    const std::string_view name = verify::finding_kind_name(kind);
    if (name == "unknown") continue;
    Rule rule;
    rule.id = std::string(name);
    rule.name = camel_case(rule.id);
    rule.help_uri = std::string(kDocsUri) + "findings.md#the-kinds";
    for (const std::vector<std::string>& row : rows) {
      if (row.size() < 4 || unquote(row[0]) != rule.id) continue;
      rule.short_text = first_clause(row[3], false);
      const bool capital = !row[3].starts_with('`');
      rule.full_text = sentence(plain(row[3]), capital) + " Category: " + row[1] +
                       ". Severity: " + plain(row[2]) + ".";
      rule.full_markdown = absolute_links(
          sentence(row[3], capital) + "\n\n**Category:** " + row[1] + "; **severity:** " + row[2],
          "findings.md");
      rule.default_level = row[2].rfind("warning", 0) == 0 ? Level::kWarning : Level::kError;
      rule.tags = {row[1]};
    }
    if (rule.short_text.empty()) rule.short_text = rule.full_text = rule.full_markdown = rule.id;
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace stguard::cli::sarif
