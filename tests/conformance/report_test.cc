// tests/conformance/report_test.cc: the report writers of `stguard conform`
// (conformance/report/), on ReaderRun values built by hand. Each writer is
// held to the property its consumers rely on: JUnit XML is well-formed
// whatever a reader printed, the HTML page loads nothing and cannot be broken
// out of, the Markdown is deterministic with intact tables, the text summary
// counts right. The JSON lines are jsonl_test.cc's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/text.h"
#include "conformance/report/html.h"
#include "conformance/report/jsonl.h"
#include "conformance/report/junit.h"
#include "conformance/report/markdown.h"
#include "conformance/report/tally.h"
#include "conformance/report/text.h"
#include "tests/conformance/report_samples.h"

namespace {

using namespace conformance_test;  // NOLINT(google-build-using-namespace): the samples
using stguard::conformance::MatrixInfo;

// True when `text` is UTF-8 holding only characters XML 1.0 allows.
bool xml_chars_ok(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') return false;
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if ((b & 0xE0u) == 0xC0u) {
      n = 2;
      cp = b & 0x1Fu;
    } else if ((b & 0xF0u) == 0xE0u) {
      n = 3;
      cp = b & 0x0Fu;
    } else if ((b & 0xF8u) == 0xF0u) {
      n = 4;
      cp = b & 0x07u;
    } else {
      return false;
    }
    if (text.size() - i < n) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0u) != 0x80u) return false;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    const std::uint32_t minimum = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE ||
        cp == 0xFFFF) {
      return false;
    }
    i += n;
  }
  return true;
}

// A small XML 1.0 well-formedness check (elements, attributes, entities, a
// leading declaration); returns "" or what is wrong.
std::string xml_problem(std::string_view xml) {
  if (!xml_chars_ok(xml)) return "characters XML 1.0 does not allow";
  const auto is_name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == ':';
  };
  const auto entity_ok = [](std::string_view rest) {
    for (std::string_view e : {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"}) {
      if (rest.substr(0, e.size()) == e) return true;
    }
    if (rest.substr(0, 2) != "&#") return false;
    const std::size_t semi = rest.find(';');
    return semi != std::string_view::npos && semi > 2 && semi < 10;
  };
  std::size_t pos = 0;
  if (xml.substr(0, 5) == "<?xml") {
    pos = xml.find("?>");
    if (pos == std::string_view::npos) return "unterminated declaration";
    pos += 2;
  }
  std::vector<std::string> stack;
  int roots = 0;
  while (pos < xml.size()) {
    const char c = xml[pos];
    if (c == '&') {
      if (!entity_ok(xml.substr(pos))) return "bad entity at " + std::to_string(pos);
      ++pos;
    } else if (c != '<') {
      if (stack.empty() && c != '\n' && c != ' ') return "text outside the root";
      ++pos;
    } else if (xml.substr(pos, 2) == "</") {
      const std::size_t end = xml.find('>', pos);
      if (end == std::string_view::npos) return "unterminated end tag";
      const std::string name(xml.substr(pos + 2, end - pos - 2));
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
      pos = end + 1;
    } else {
      ++pos;
      const std::size_t start = pos;
      while (pos < xml.size() && is_name_char(xml[pos])) ++pos;
      if (pos == start) return "bad tag name at " + std::to_string(start);
      const std::string name(xml.substr(start, pos - start));
      std::set<std::string> attributes;
      while (true) {
        while (pos < xml.size() && (xml[pos] == ' ' || xml[pos] == '\n')) ++pos;
        if (pos >= xml.size()) return "unterminated tag <" + name;
        if (xml.substr(pos, 2) == "/>") {
          if (stack.empty()) ++roots;
          pos += 2;
          break;
        }
        if (xml[pos] == '>') {
          if (stack.empty()) ++roots;
          stack.push_back(name);
          ++pos;
          break;
        }
        const std::size_t attribute_start = pos;
        while (pos < xml.size() && is_name_char(xml[pos])) ++pos;
        if (pos == attribute_start) return "bad attribute in <" + name;
        const std::string attribute(xml.substr(attribute_start, pos - attribute_start));
        if (!attributes.insert(attribute).second) return "duplicate attribute " + attribute;
        if (xml.substr(pos, 2) != "=\"") return "unquoted attribute " + attribute;
        pos += 2;
        const std::size_t close = xml.find('"', pos);
        if (close == std::string_view::npos) return "unterminated attribute " + attribute;
        const std::string_view value = xml.substr(pos, close - pos);
        if (value.find('<') != std::string_view::npos) return "< in attribute " + attribute;
        for (std::size_t k = 0; k < value.size(); ++k) {
          if (value[k] == '&' && !entity_ok(value.substr(k))) return "bad entity in attribute";
        }
        pos = close + 1;
      }
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

// ---------------------------------------------------------------------------

TEST(ConformReportText, CountsAndListsFailuresWorstFirst) {
  const std::string text = stguard::conformance::text_summary(sample_runs());
  const std::vector<std::string> lines = lines_of(text);
  EXPECT_NE(text.find("strict 1.2.3 (json): 5 cases, 0 failing, 0 XFAIL, 0 XPASS\n"
                      "  IMPL_REJECT 1, PASS 4\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("loose 1.2.3 (json): 5 cases, 2 failing, 1 XFAIL, 1 XPASS\n"
                      "  CRASH 1, FAIL_SHOULD_REJECT 1, FAIL_WRONG_CONTENT 1, IMPL_ACCEPT 1, "
                      "PASS 1\n"),
            std::string::npos)
      << text;
  const std::size_t should_reject = text.find("  FAIL_SHOULD_REJECT   layout/gap  ");
  const std::size_t wrong = text.find("  FAIL_WRONG_CONTENT   layout/canonical  ");
  ASSERT_NE(should_reject, std::string::npos) << text;
  ASSERT_NE(wrong, std::string::npos) << text;
  EXPECT_LT(should_reject, wrong);  // worse grade first
  EXPECT_NE(text.find("accepted a file with a gap"), std::string::npos);
  // The expected failure (a CRASH) is counted but not listed as failing.
  EXPECT_EQ(text.find("json-syntax/bom"), std::string::npos) << text;
  EXPECT_NE(text.find("  XPASS                numbers/big  "), std::string::npos) << text;
  EXPECT_NE(text.find("absent (json): SKIPPED: node not found in PATH\n"), std::string::npos);
  EXPECT_EQ(lines.back(), "3 readers (1 skipped), 2 results fail the run");
  // Deterministic.
  EXPECT_EQ(stguard::conformance::text_summary(sample_runs()), text);
}

TEST(ConformReportText, UntrustedTextIsTerminalSafeAndCut) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[1].name = "evil\x1b]0;title\x07";
  case_of(runs[1], "layout/gap").detail = "";
  case_of(runs[1], "layout/gap").reader_error =
      "\x1b[2J\xE2\x80\xAEreversed\nsecond line\r\x9b\xC2\x9b " + std::string(500, 'x');
  const std::string text = stguard::conformance::text_summary(runs);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find("\xE2\x80\xAE"), std::string::npos);  // U+202E
  EXPECT_EQ(text.find("\xC2\x9B"), std::string::npos);      // U+009B (CSI)
  // The one display policy (base::terminal_safe): lower-case \xNN, \u{NNNN}.
  EXPECT_NE(text.find("evil\\x1b]0;title\\x07 1.2.3"), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b[2J\\u{202e}reversed\\nsecond line\\r\\x9b\\u{009b} x"),
            std::string::npos)
      << text;
  for (const std::string& line : lines_of(text)) {
    if (line.find("layout/gap") == std::string::npos) continue;
    EXPECT_LT(line.size(), 260u) << line;  // message cut at ~160 characters
    EXPECT_EQ(line.substr(line.size() - 3), "\xE2\x80\xA6");
  }
}

// The reports cut with base::terminal_safe: a cut never splits an escape.
TEST(ConformReportText, TerminalSafeCutsWholeEscapes) {
  const auto cut = [](std::string_view text, std::size_t max_chars) {
    return stguard::base::terminal_safe(text, {.max_chars = max_chars});
  };
  EXPECT_EQ(cut("plain", 0), "plain");
  EXPECT_EQ(cut("abcdef", 4), "abc\xE2\x80\xA6");
  EXPECT_EQ(cut("abcd", 4), "abcd");
  EXPECT_EQ(cut("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(cut("ab\x1b", 4), "ab\xE2\x80\xA6");         // "\x1b" does not fit: not split
  EXPECT_EQ(cut("\xED\xA0\x80", 0), "\\xed\\xa0\\x80");  // a UTF-8 encoded surrogate
  // A reader's name in the summary is exactly what the policy shows.
  std::vector<ReaderRun> runs = sample_runs();
  runs[0].name = "x\\y\xE2\x80\xAE" + std::string(100, 'n');
  EXPECT_NE(stguard::conformance::text_summary(runs).find(cut(runs[0].name, 80) + " 1.2.3 (json)"),
            std::string::npos);
}

// ---------------------------------------------------------------------------

TEST(ConformReportJunit, WellFormedWithCounts) {
  const std::string xml = stguard::conformance::junit_xml(sample_runs());
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_NE(xml.find("<testsuites name=\"stguard conform\" tests=\"11\" failures=\"2\" "
                     "errors=\"0\" skipped=\"2\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"loose\" tests=\"5\" failures=\"2\" errors=\"0\" "
                     "skipped=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"layout\" name=\"layout/gap\" time=\"0.012\""),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"FAIL_SHOULD_REJECT\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"FAIL_WRONG_CONTENT\""), std::string::npos);
  EXPECT_EQ(xml.find("<failure type=\"CRASH\""), std::string::npos);  // it is an XFAIL
  EXPECT_NE(xml.find("<skipped message=\"expected failure: CRASH\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"absent\" tests=\"1\" failures=\"0\" errors=\"0\" "
                     "skipped=\"1\">"),
            std::string::npos);
  EXPECT_EQ(count_of(xml, "<failure "), 2u);
  EXPECT_EQ(count_of(xml, "<testcase "), 11u);
}

TEST(ConformReportJunit, EscapesMarkupAndReplacesInvalidCharacters) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[1].name = "a<b>&\"c'";
  CaseResult& gap = case_of(runs[1], "layout/gap");
  gap.reader_error = "</failure><x a=\"1\">&amp; \x01\x1b[1m\x7f \xFF\xEF\xBF\xBE";
  gap.case_id = "layout/<&\">";
  gap.detail = "line 1\r\nline 2\tend ]]>";
  runs[2].skip_reason = "no \x02 <node>";
  const std::string xml = stguard::conformance::junit_xml(runs);
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_NE(xml.find("name=\"a&lt;b&gt;&amp;&quot;c&apos;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"layout/&lt;&amp;&quot;&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("&lt;/failure&gt;&lt;x a=&quot;1&quot;&gt;&amp;amp; \\x01\\x1b[1m\\x7f "
                     "\\xff\xEF\xBF\xBD"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("]]>"), std::string::npos);
  EXPECT_EQ(xml.find('\xFF'), std::string::npos);
  EXPECT_EQ(xml.find("\xEF\xBF\xBE"), std::string::npos);
  EXPECT_NE(xml.find("no \\x02 &lt;node&gt;"), std::string::npos) << xml;
}

// ---------------------------------------------------------------------------

MatrixInfo sample_info() {
  MatrixInfo info;
  info.corpus_version = "1";
  info.reader_cases = 5;
  info.generated_by = "stguard 0.1.0";
  return info;
}

// The JSON the page embeds, decoded.
nlohmann::json embedded_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"stguard-data\">";
  const std::size_t start = html.find(open);
  if (start == std::string::npos) return nullptr;
  const std::size_t end = html.find("</script>", start);
  if (end == std::string::npos) return nullptr;
  return nlohmann::json::parse(html.substr(start + open.size(), end - start - open.size()), nullptr,
                               false);
}

TEST(ConformReportHtml, SelfContained) {
  const std::string html = stguard::conformance::html_matrix(sample_runs(), sample_info());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  for (std::string_view external : {"http://", "https://", "src=", "href=", "url(", "@import",
                                    "<link", "<iframe", "<img", "<object", "//cdn"}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
  EXPECT_EQ(count_of(html, "<script"), 2u);  // the data and the code
  EXPECT_EQ(count_of(html, "</script>"), 2u);
  const nlohmann::json data = embedded_data(html);
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["readers"].size(), 3u);
  EXPECT_EQ(data["cases"].size(), 5u);
  EXPECT_EQ(data["grades"].size(), 13u);  // the writers' three included
  // The summary (rendered without script) counts per reader.
  EXPECT_NE(html.find("<td><b>loose</b></td><td>1.2.3</td><td>json</td>"), std::string::npos);
  EXPECT_NE(html.find("skipped: node not found in PATH"), std::string::npos);
}

TEST(ConformReportHtml, WideTablesScrollAndUnknownVersionsSaySo) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[0].version = "";  // as for an --adapter reader
  const std::string html = stguard::conformance::html_matrix(runs, sample_info());
  // Both tables sit in boxes that scroll sideways instead of being cut off
  // in a narrow window.
  EXPECT_NE(html.find(".scroll { overflow-x: auto;"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"scroll\">\n<table class=\"summary\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"scroll matrix-box\">\n<table id=\"matrix\">"),
            std::string::npos);
  EXPECT_EQ(count_of(html, "<div class=\"scroll"), count_of(html, "</table>\n</div>"));
  // A reader without a version: the summary cell says so, as the matrix
  // header does ("version unknown").
  EXPECT_NE(html.find("<td><b>strict</b></td><td class=\"unknown\">unknown</td>"),
            std::string::npos);
  EXPECT_NE(html.find("'version unknown'"), std::string::npos);
}

TEST(ConformReportHtml, HostileTextStaysData) {
  std::vector<ReaderRun> runs = sample_runs();
  const std::string hostile_error = "</script><script>alert(1)</script><!-- \xE2\x80\xA8 &amp;";
  const std::string hostile_description = "<img src=x onerror=alert(2)> </SCRIPT >";
  case_of(runs[1], "layout/gap").reader_error = hostile_error;
  case_of(runs[1], "layout/gap").description = hostile_description;
  case_of(runs[0], "layout/gap").description = hostile_description;
  runs[1].name = "<b onmouseover=alert(3)>reader</b>";
  runs[2].skip_reason = "<script>alert(4)</script>";
  MatrixInfo info = sample_info();
  info.title = "<title>x</title>";
  const std::string html = stguard::conformance::html_matrix(runs, info);
  EXPECT_EQ(count_of(html, "<script"), 2u);
  EXPECT_EQ(count_of(html, "</script"), 2u);
  EXPECT_EQ(count_of(html, "</SCRIPT"), 0u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b onmouseover"), std::string::npos);
  EXPECT_EQ(html.find("<title>x"), std::string::npos);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_EQ(html.find("\xE2\x80\xA8"), std::string::npos);  // U+2028 ends a JS line
  EXPECT_NE(html.find("&lt;b onmouseover=alert(3)&gt;reader&lt;/b&gt;"), std::string::npos);
  // Escaped, not lost: the page's data decodes to the original text (the
  // line separator shown as an escape).
  const nlohmann::json data = embedded_data(html);
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["readers"][1]["name"], runs[1].name);
  bool found_error = false;
  bool found_description = false;
  for (const auto& c : data["cases"]) {
    if (c["id"] != "layout/gap") continue;
    EXPECT_EQ(c["cells"][1][3], "</script><script>alert(1)</script><!-- \\u{2028} &amp;");
    found_error = true;
    found_description = c["description"] == hostile_description;
  }
  EXPECT_TRUE(found_error);
  EXPECT_TRUE(found_description);
}

TEST(ConformReportHtml, LongMessagesAreCut) {
  std::vector<ReaderRun> runs = sample_runs();
  for (CaseResult& result : runs[1].results) result.reader_error = std::string(100000, 'e');
  const std::string html = stguard::conformance::html_matrix(runs, sample_info());
  EXPECT_LT(html.size(), 60000u);
  EXPECT_EQ(html.find(std::string(601, 'e')), std::string::npos);
  EXPECT_NE(html.find(std::string(599, 'e')), std::string::npos);
}

// ---------------------------------------------------------------------------

// Number of '|' in a line that are not backslash-escaped.
std::size_t unescaped_pipes(std::string_view line) {
  std::size_t n = 0;
  std::size_t backslashes = 0;
  for (char c : line) {
    if (c == '|' && backslashes % 2 == 0) ++n;
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
  return n;
}

// Every Markdown table (a block of lines starting with '|') has the same
// number of cells on each line.
void expect_tables_intact(const std::string& markdown) {
  std::size_t expected = 0;
  std::size_t tables = 0;
  for (const std::string& line : lines_of(markdown)) {
    if (line.empty() || line[0] != '|') {
      expected = 0;
      continue;
    }
    if (expected == 0) {
      expected = unescaped_pipes(line);
      ++tables;
    }
    EXPECT_EQ(unescaped_pipes(line), expected) << line;
  }
  EXPECT_GT(tables, 0u);
}

TEST(ConformReport, InterruptedRunIsMarkedIncompleteEverywhere) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[1].interrupted = true;
  runs[1].cases_planned = 440;
  runs[2] = make_skipped("absent", "not run: the run was stopped by SIGINT");
  const std::string note = "stopped after 5 of 440 cases (the others did not run)";

  const std::string text = stguard::conformance::text_summary(runs);
  EXPECT_NE(text.find("loose 1.2.3 (json): 5 cases, 2 failing"), std::string::npos) << text;
  EXPECT_NE(text.find("  incomplete: " + note + "\n"), std::string::npos) << text;
  EXPECT_EQ(count_of(text, "  incomplete: "), 1u) << text;  // only the stopped reader
  EXPECT_NE(text.find("absent (json): SKIPPED: not run: the run was stopped by SIGINT\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(lines_of(text).back(),
            "the run is incomplete: it was stopped by a signal before every case had run");

  const std::string xml = stguard::conformance::junit_xml(runs);
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_NE(xml.find("<testsuites name=\"stguard conform\" tests=\"12\" failures=\"2\" "
                     "errors=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"loose\" tests=\"6\" failures=\"2\" errors=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"run incomplete\">\n      <error type=\"INCOMPLETE\" "
                     "message=\"run incomplete: " +
                     note + "\"/>"),
            std::string::npos)
      << xml;
  EXPECT_EQ(count_of(xml, "<error "), 1u);

  const std::string markdown = stguard::conformance::markdown_matrix(runs, sample_info());
  EXPECT_NE(markdown.find("| loose | 1.2.3 | json (incomplete) |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**This run is incomplete:** it was stopped by a signal. loose: " + note +
                          ".\n"),
            std::string::npos)
      << markdown;

  const std::string html = stguard::conformance::html_matrix(runs, sample_info());
  EXPECT_NE(html.find("incomplete run: stopped by a signal before every case had run"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"bad\">json, incomplete: " + note + "</td>"), std::string::npos);

  // A complete run says none of it.
  const std::vector<ReaderRun> whole = sample_runs();
  EXPECT_EQ(stguard::conformance::text_summary(whole).find("incomplete"), std::string::npos);
  EXPECT_EQ(stguard::conformance::junit_xml(whole).find("INCOMPLETE"), std::string::npos);
  EXPECT_EQ(stguard::conformance::markdown_matrix(whole, sample_info()).find("incomplete"),
            std::string::npos);
  EXPECT_EQ(stguard::conformance::html_matrix(whole, sample_info()).find("incomplete"),
            std::string::npos);
}

TEST(ConformReportMarkdown, DeterministicWithoutDurations) {
  std::vector<ReaderRun> runs = sample_runs();
  const std::string markdown = stguard::conformance::markdown_matrix(runs, sample_info());
  // Other durations and another input order change nothing.
  for (ReaderRun& run : runs) {
    for (CaseResult& result : run.results) result.duration_ms = 999.5;
    std::reverse(run.results.begin(), run.results.end());
  }
  EXPECT_EQ(stguard::conformance::markdown_matrix(runs, sample_info()), markdown);
  EXPECT_EQ(markdown.find("12.25"), std::string::npos);
  EXPECT_EQ(markdown.find("ms"), std::string::npos);
  EXPECT_NE(markdown.find("Generated by `stguard conform report --markdown` (stguard 0.1.0), "
                          "do not edit."),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("Corpus version 1, 5 reader cases."), std::string::npos);
  EXPECT_NE(markdown.find(
                "| loose | 1.2.3 | json | 1 | 1 | 0 | 0 | 0 | 1 | 1 | 0 | 0 | 1 | 5 | 2 | 1 | 1 |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| absent |  | json | skipped: node not found in PATH |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| `layout/gap` | reject | PASS | **SHOULD-REJ** |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| `json-syntax/bom` | reject | PASS | CRASH (xfail) |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| `numbers/big` | accept | PASS | PASS (xpass) |"), std::string::npos);
  EXPECT_NE(markdown.find("### layout (2 cases)"), std::string::npos);
  expect_tables_intact(markdown);
}

// The sample readers plus a writer over two writer cases.
std::vector<ReaderRun> runs_with_a_writer() {
  std::vector<ReaderRun> runs = sample_runs();
  ReaderRun writer = conformance_test::make_reader(
      "my-writer",
      {conformance_test::make_case("writers/dup", "reject", Grade::kFailShouldRefuse, "accept"),
       conformance_test::make_case("writers/f32", "accept", Grade::kPass, "accept")});
  writer.mode = std::string(stguard::conformance::kWriterMode);
  runs.push_back(std::move(writer));
  return runs;
}

TEST(ConformReportWriters, WritersHaveTheirOwnTableColumnsAndCounts) {
  const std::vector<ReaderRun> runs = runs_with_a_writer();
  MatrixInfo info = sample_info();
  info.writer_cases = 2;
  const std::string markdown = stguard::conformance::markdown_matrix(runs, info);
  expect_tables_intact(markdown);
  EXPECT_NE(markdown.find("Corpus version 1, 5 reader cases, 2 writer cases."), std::string::npos)
      << markdown;
  // Each kind its own table, with the grades it can have.
  EXPECT_NE(markdown.find("## Readers\n\n| reader | version | mode | PASS | ACC | REJ | N/A | "
                          "SHOULD-ACC | SHOULD-REJ | WRONG | PROTO | TIME | CRASH |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("## Writers\n\n| writer | version | mode | PASS | SHOULD-WRI | "
                          "SHOULD-REF | INVALID | WRONG | PROTO | TIME | CRASH |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| my-writer | 1.2.3 | writer | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 2 | 1 "
                          "| 0 | 0 |"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(count_of(markdown, "| my-writer | 1.2.3 |"), 1u);  // not in the readers' table
  // A group's table has the runs with results in it, and writer cases say
  // write or refuse.
  EXPECT_NE(markdown.find("| case | expected | my-writer |\n|---|---|:-:|\n"
                          "| `writers/dup` | refuse | **SHOULD-REF** |\n"
                          "| `writers/f32` | write | PASS |\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| case | expected | strict | loose |\n"), std::string::npos) << markdown;

  const std::vector<std::string> lines = lines_of(stguard::conformance::text_summary(runs));
  EXPECT_EQ(lines.back(), "3 readers and 1 writer (1 skipped), 3 results fail the run");

  const std::string html = stguard::conformance::html_matrix(runs, info);
  EXPECT_NE(html.find("5 reader cases, 2 writer cases \xC2\xB7 3 readers and 1 writer"),
            std::string::npos);
  const nlohmann::json data = embedded_data(html);
  ASSERT_TRUE(data.is_object());
  bool seen = false;
  for (const nlohmann::json& c : data["cases"]) {
    if (c["id"] != "writers/dup") continue;
    seen = true;
    EXPECT_EQ(c["expected"], "refuse");
    EXPECT_EQ(c["cells"][3][2], "written");
  }
  EXPECT_TRUE(seen);
}

// A crash's message is the head and tail of stderr; a report line has room
// for one line of it: the one that says what went wrong, even when the
// program wrote kilobytes before it. And a writer's message is the writer's,
// not "reader:".
TEST(ConformReport, CrashesShowTheirLineOfInterestAndWritersSayWriter) {
  std::vector<ReaderRun> runs = runs_with_a_writer();
  const std::string noise(3000, 'n');
  const std::string asan =
      "==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011";
  runs[0].results.push_back(conformance_test::make_case(
      "layout/overlap", "reject", Grade::kCrash, "", noise + "\n" + asan + "\nREAD of size 1\n",
      "exit status 1 (the adapter protocol exits 0 for accept and reject)"));
  runs.back().results.push_back(conformance_test::make_case(
      "writers/zero", "accept", Grade::kCrash, "", "Traceback (most recent call last):\n  ...",
      "killed by SIGSEGV"));
  EXPECT_EQ(stguard::conformance::stderr_line_of_interest(noise + "\n" + asan + "\nmore\n"), asan);
  EXPECT_EQ(stguard::conformance::stderr_line_of_interest(
                "x\n/src/a.cc:3:5: runtime error: load of null pointer\r\nSUMMARY: "
                "UndefinedBehaviorSanitizer: undefined-behavior /src/a.cc:3:5 in\n"),
            "/src/a.cc:3:5: runtime error: load of null pointer");
  EXPECT_EQ(stguard::conformance::stderr_line_of_interest(
                "SUMMARY: AddressSanitizer: SEGV\nthread 'main' panicked at src/lib.rs:3:5:\n"),
            "thread 'main' panicked at src/lib.rs:3:5:");
  EXPECT_EQ(stguard::conformance::stderr_line_of_interest("Traceback\nValueError: x\n"), "");

  const std::string text = stguard::conformance::text_summary(runs);
  EXPECT_NE(text.find("layout/overlap  \xE2\x80\x94 exit status 1 (the adapter protocol exits 0 "
                      "for accept and reject); reader: ==42==ERROR: AddressSanitizer"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("writers/zero  \xE2\x80\x94 killed by SIGSEGV; writer: Traceback"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("; reader: Traceback"), std::string::npos) << text;

  const std::string markdown = stguard::conformance::markdown_matrix(runs, sample_info());
  EXPECT_NE(markdown.find("| grade | case | writer's error |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("killed by SIGSEGV; writer: Traceback"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("reader: ==42==ERROR: AddressSanitizer"), std::string::npos) << markdown;

  const std::string xml = stguard::conformance::junit_xml(runs);
  EXPECT_NE(xml.find("writer error: Traceback"), std::string::npos) << xml;
  EXPECT_NE(xml.find("killed by SIGSEGV; writer: Traceback"), std::string::npos) << xml;

  // The page shows 600 characters of a message: the line comes first there.
  const nlohmann::json data = embedded_data(stguard::conformance::html_matrix(runs, sample_info()));
  bool seen = false;
  for (const nlohmann::json& c : data["cases"]) {
    if (c["id"] != "layout/overlap") continue;
    seen = true;
    EXPECT_EQ(c["cells"][0][3].get<std::string>().rfind(asan, 0), 0u) << c["cells"][0][3];
  }
  EXPECT_TRUE(seen);
}

TEST(ConformReportMarkdown, EscapesTableCells) {
  std::vector<ReaderRun> runs = sample_runs();
  case_of(runs[1], "layout/gap").detail = "";
  case_of(runs[1], "layout/gap").reader_error =
      "a | b\nc `d` *e* <br> [l](x) \\ " + std::string(300, 'z');
  runs[1].name = "pipe|name";
  runs[2].skip_reason = "why | not";
  const std::string markdown = stguard::conformance::markdown_matrix(runs, sample_info());
  expect_tables_intact(markdown);
  // The policy doubles the backslash, then Markdown escapes both.
  EXPECT_NE(markdown.find("a \\| b\\\\nc \\`d\\` \\*e\\* \\<br\\> \\[l\\](x) \\\\\\\\ zzz"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find(std::string(130, 'z')), std::string::npos);  // cut at ~120
  EXPECT_NE(markdown.find("pipe\\|name"), std::string::npos);
  EXPECT_EQ(markdown.find("<br>"), std::string::npos);
}

// The report card: each format shows the rules a reader breaks with the
// failing cases under each, and NOT_APPLICABLE apart from passes and
// failures.
TEST(ConformReport, RulesBrokenAndNotApplicableInEveryFormat) {
  CaseResult gap = make_case("layout/gap", "reject", Grade::kFailShouldReject, "accept");
  gap.rules = {"ST-LAY-2"};
  CaseResult overlap = make_case("layout/overlap", "reject", Grade::kFailShouldReject, "accept");
  overlap.rules = {"ST-LAY-3", "ST-LAY-2"};
  CaseResult fine = make_case("layout/fine", "accept", Grade::kPass, "accept");
  fine.rules = {"ST-LAY-2"};
  CaseResult newer = make_case("dtypes/f4", "accept", Grade::kNotApplicable, "reject");
  newer.rules = {"ST-DTYPE-2"};
  const std::vector<ReaderRun> runs = {make_reader("old", {gap, overlap, fine, newer})};

  const std::vector<stguard::conformance::BrokenRule> broken =
      stguard::conformance::broken_rules(runs[0]);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_EQ(broken[0].rule, "ST-LAY-2");
  ASSERT_EQ(broken[0].failures.size(), 2u);
  EXPECT_EQ(broken[0].failures[0]->case_id, "layout/gap");
  EXPECT_EQ(broken[1].rule, "ST-LAY-3");

  const std::string text = stguard::conformance::text_summary(runs);
  EXPECT_NE(text.find("4 cases, 2 failing"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT_APPLICABLE 1"), std::string::npos) << text;
  EXPECT_NE(text.find("rules broken (docs/spec.md): 2\n    ST-LAY-2    2 cases: layout/gap, "
                      "layout/overlap\n    ST-LAY-3    1 case: layout/overlap\n"),
            std::string::npos)
      << text;
  const std::string markdown = stguard::conformance::markdown_matrix(runs, sample_info());
  EXPECT_NE(markdown.find("| old | ST-LAY-2 | 2 | `layout/gap`, `layout/overlap` |"),
            std::string::npos)
      << markdown;
  const std::string xml = stguard::conformance::junit_xml(runs);
  EXPECT_NE(xml.find("failures=\"2\" errors=\"0\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"not applicable"), std::string::npos) << xml;
  const std::string lines = stguard::conformance::json_lines(runs);
  EXPECT_NE(lines.find("\"rules\":[\"ST-LAY-3\",\"ST-LAY-2\"]"), std::string::npos) << lines;
  const auto back = stguard::conformance::read_json_lines(lines);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(stguard::conformance::broken_rules((*back)[0]).size(), 2u);
  const std::string html = stguard::conformance::html_matrix(runs, sample_info());
  EXPECT_NE(html.find("\"rules\":[\"ST-LAY-3\",\"ST-LAY-2\"]"), std::string::npos);
}

}  // namespace
