// conformance/report/html.cc: the matrix page (html.h): the data and the
// summary tables, filled into the skeleton of assets/matrix.html.
#include "conformance/report/html.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/json.h"
#include "base/template.h"
#include "base/text.h"
#include "conformance/report/assets.h"
#include "conformance/report/escape.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

// Reader messages in the page are cut; the JSON lines report has them whole.
constexpr std::size_t kHtmlMessageChars = 600;

// The skeleton's legend shows SHOULD-REJ hatched as class g2.
static_assert(kAllGrades[2] == Grade::kFailShouldReject);

// What each grade means, for the legend, the column titles and the filters.
std::string_view grade_meaning(Grade grade) noexcept {
  switch (grade) {
    case Grade::kCrash:
      return "the reader crashed: non-zero exit or a signal";
    case Grade::kTimeout:
      return "still running at the timeout, killed";
    case Grade::kFailShouldReject:
      return "accepted a file that must be rejected";
    case Grade::kFailWrongContent:
      return "accepted, but a tensor's name, dtype, shape, range or bytes differ";
    case Grade::kFailShouldAccept:
      return "rejected a valid file";
    case Grade::kFailInvalidOutput:
      return "wrote a file the strict or the reference profile rejects";
    case Grade::kFailShouldRefuse:
      return "wrote a spec that must be refused";
    case Grade::kFailShouldWrite:
      return "refused a spec that must be written";
    case Grade::kProtocolError:
      return "exit 0 but no valid protocol answer";
    case Grade::kImplAccept:
      return "accepted a contested (\"either\") case, with the expected tensors";
    case Grade::kImplReject:
      return "rejected a contested (\"either\") case";
    case Grade::kNotApplicable:
      return "pins behaviour of an upstream release newer than the one the reader implements";
    case Grade::kPass:
      return "the expected verdict (and tensors)";
  }
  return "";
}

// The expectation as the page's script knows it: 0 none, 1 XFAIL, 2 XPASS,
// 3 another failure.
int expectation_code(Expectation expectation) noexcept {
  switch (expectation) {
    case Expectation::kNone:
      return 0;
    case Expectation::kExpectedFailure:
      return 1;
    case Expectation::kUnexpectedPass:
      return 2;
    case Expectation::kOtherFailure:
      return 3;
  }
  return 0;
}

// A cell's message: for a crash or timeout whose stderr has a line of
// interest past what the page shows, that line first, then stderr from its
// start.
std::string html_reader_error(const CaseResult& cell) {
  const std::string_view line = shown_reader_error(cell);
  if (line.data() == cell.reader_error.data()) return cell.reader_error;
  const std::size_t at = static_cast<std::size_t>(line.data() - cell.reader_error.data());
  if (at + line.size() <= kHtmlMessageChars) return cell.reader_error;
  return std::string(line) + "\n\n" + cell.reader_error;
}

Json html_data(std::span<const ReaderRun> runs, const std::vector<MatrixGroup>& groups) {
  Json data = Json::object();
  Json& grades = data["grades"] = Json::array();
  for (const Grade grade : kAllGrades) {
    grades.push_back({{"name", grade_name(grade)},
                      {"code", grade_code(grade)},
                      {"passes", grade_passes(grade)},
                      {"meaning", grade_meaning(grade)}});
  }
  Json& order = data["order"] = Json::array();  // of the grade filters
  for (const Grade grade : kBestFirst) order.push_back(grade_index(grade));
  Json& readers = data["readers"] = Json::array();
  for (const ReaderRun& run : runs) {
    readers.push_back({{"name", display_text(run.name, 120)},
                       {"version", display_text(run.version, 120)},
                       {"mode", display_text(run.mode, 40)},
                       {"skipped", run.skipped},
                       {"skip_reason", display_text(run.skip_reason, kHtmlMessageChars)}});
  }
  Json& cases = data["cases"] = Json::array();
  for (const MatrixGroup& group : groups) {
    for (const MatrixCase& matrix_case : group.cases) {
      const CaseResult& info = *matrix_case.info;
      Json tags = Json::array();
      for (const std::string& tag : info.tags) tags.push_back(display_text(tag, 120));
      Json rules = Json::array();
      for (const std::string& rule : info.rules) rules.push_back(display_text(rule, 40));
      Json cells = Json::array();
      for (std::size_t r = 0; r < matrix_case.cells.size(); ++r) {
        const CaseResult* cell = matrix_case.cells[r];
        if (cell == nullptr) {
          cells.push_back(nullptr);
          continue;
        }
        const double ms =
            std::isfinite(cell->duration_ms) ? std::round(cell->duration_ms * 10) / 10 : 0.0;
        cells.push_back({grade_index(cell->grade), expectation_code(cell->expectation),
                         cell->verdict ? answer_name(*cell->verdict, is_writer_run(runs[r])) : "",
                         display_text(html_reader_error(*cell), kHtmlMessageChars, true),
                         display_text(cell->detail, kHtmlMessageChars, true), ms});
      }
      cases.push_back({{"id", display_text(info.case_id, 200)},
                       {"group", display_text(group.name, 120)},
                       {"expected", expected_name(info.expected_verdict, matrix_case.writer_case)},
                       {"description", display_text(info.description, 2000)},
                       {"tags", std::move(tags)},
                       {"rules", std::move(rules)},
                       {"cells", std::move(cells)}});
    }
  }
  return data;
}

std::string chip(Grade grade) {
  return "<span class=\"chip g" + std::to_string(grade_index(grade)) + "\">" +
         std::string(grade_code(grade)) + "</span>";
}

std::string facts_text(std::span<const ReaderRun> runs, const MatrixInfo& info) {
  std::vector<std::string> facts;
  if (!info.corpus_version.empty()) {
    facts.push_back("corpus version " + html_text(info.corpus_version, 60));
  }
  if (const std::string counts = case_counts_text(info); !counts.empty()) facts.push_back(counts);
  facts.push_back(runs_noun(runs));
  if (!info.generated_by.empty()) {
    facts.push_back("generated by " + html_text(info.generated_by, 100));
  }
  if (std::any_of(runs.begin(), runs.end(), [](const ReaderRun& r) { return r.interrupted; })) {
    facts.push_back("incomplete run: stopped by a signal before every case had run");
  }
  std::string out;
  for (std::size_t i = 0; i < facts.size(); ++i) {
    if (i != 0) out += " \xC2\xB7 ";
    out += facts[i];
  }
  return out;
}

// The summary: rendered here so that it reads without JavaScript.
std::string reader_rows(std::span<const ReaderRun> runs) {
  std::string out;
  for (const ReaderRun& run : runs) {
    out += std::string(run.skipped ? "<tr class=\"skipped\">" : "<tr>") + "<td><b>" +
           html_text(run.name, 120) + "</b></td>" +
           // The matrix header says "version unknown" for the same readers.
           (run.version.empty() ? std::string("<td class=\"unknown\">unknown</td>")
                                : "<td>" + html_text(run.version, 120) + "</td>") +
           (run.interrupted ? "<td class=\"bad\">" + html_text(run.mode, 40) + ", incomplete: " +
                                  html_text(incomplete_note(run), kHtmlMessageChars) + "</td>"
                            : "<td>" + html_text(run.mode, 40) + "</td>");
    if (run.skipped) {
      out += "<td colspan=\"" + std::to_string(kGradeCount + 4) +
             "\">skipped: " + html_text(run.skip_reason, kHtmlMessageChars) + "</td></tr>\n";
      continue;
    }
    const Counts counts = count_results(run);
    for (const Grade grade : kBestFirst) {
      const std::size_t index = grade_index(grade);
      const std::size_t n = counts.per_grade[index];
      out += n == 0 ? std::string("<td class=\"num zero\">0</td>")
                    : "<td class=\"num g" + std::to_string(index) + "\">" + std::to_string(n) +
                          "</td>";
    }
    out += "<td class=\"num\">" + std::to_string(counts.total) + "</td><td class=\"num" +
           (counts.failing != 0 ? " bad" : "") + "\">" + std::to_string(counts.failing) +
           "</td><td class=\"num\">" + std::to_string(counts.xfail) + "</td><td class=\"num\">" +
           std::to_string(counts.xpass) + "</td></tr>\n";
  }
  return out;
}

}  // namespace

std::string html_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info) {
  const std::vector<MatrixGroup> groups = build_matrix(runs);
  std::size_t case_total = 0;
  for (const MatrixGroup& group : groups) case_total += group.cases.size();

  std::string grade_heads;
  std::string legend;
  for (const Grade grade : kBestFirst) {
    const std::string meaning = html_text(grade_meaning(grade));
    grade_heads += "<th title=\"" + std::string(grade_name(grade)) + ": " + meaning + "\">" +
                   chip(grade) + "</th>";
    legend +=
        "<li>" + chip(grade) + " " + std::string(grade_name(grade)) + ": " + meaning + "</li>\n";
  }
  const std::string title = html_text(info.title, 200);
  const std::string facts = facts_text(runs, info);
  const std::string rows = reader_rows(runs);
  const std::string cases = std::to_string(case_total);
  const std::string data = script_safe_json(base::json_line(html_data(runs, groups)));
  const base::TemplateValue values[] = {{"TITLE", title},
                                        {"STYLE", assets::matrix_css()},
                                        {"FACTS", facts},
                                        {"GRADE_HEADS", grade_heads},
                                        {"READER_ROWS", rows},
                                        {"LEGEND", legend},
                                        {"CASE_TOTAL", cases},
                                        {"DATA", data},
                                        {"SCRIPT", assets::matrix_js()}};
  return base::fill_template(assets::matrix_html(), values);
}

}  // namespace stguard::conformance
