// conformance/runner/report.cc: the report writers of `stguard conform` and
// the JSON lines reader. Every string that came from a reader (or through a
// JSON lines file) passes through one of the escapers below before it lands
// in an output; the escapers decode UTF-8 themselves so that invalid bytes
// can never slip through as half a character.
#include "runner/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace stguard::conform {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kGradeCount = std::size(kAllGrades);

// ---------------------------------------------------------------------------
// UTF-8 and escaping.

constexpr std::uint32_t kNotUtf8 = 0xFFFF'FFFFu;
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Decodes the code point at text[pos] and advances pos past it. A byte that
// does not start a well-formed sequence (stray continuation, overlong form,
// surrogate, above U+10FFFF, truncated) is consumed alone and yields kNotUtf8.
std::uint32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(text[i]));
  };
  const std::uint32_t lead = byte(pos);
  std::size_t length = 0;
  std::uint32_t code_point = 0;
  std::uint32_t minimum = 0;
  if (lead < 0x80) {
    ++pos;
    return lead;
  } else if ((lead & 0xE0u) == 0xC0u) {
    length = 2;
    code_point = lead & 0x1Fu;
    minimum = 0x80;
  } else if ((lead & 0xF0u) == 0xE0u) {
    length = 3;
    code_point = lead & 0x0Fu;
    minimum = 0x800;
  } else if ((lead & 0xF8u) == 0xF0u) {
    length = 4;
    code_point = lead & 0x07u;
    minimum = 0x10000;
  } else {
    ++pos;
    return kNotUtf8;
  }
  if (text.size() - pos < length) {
    ++pos;
    return kNotUtf8;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const std::uint32_t next = byte(pos + i);
    if ((next & 0xC0u) != 0x80u) {
      ++pos;
      return kNotUtf8;
    }
    code_point = (code_point << 6) | (next & 0x3Fu);
  }
  if (code_point < minimum || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    ++pos;
    return kNotUtf8;
  }
  pos += length;
  return code_point;
}

void append_hex(std::string& out, std::string_view prefix, std::uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += prefix;
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
    out += kHex[(value >> shift) & 0xFu];
  }
}

// Characters that reorder or hide the text around them (the "Trojan Source"
// set) and the Unicode line/paragraph separators.
bool is_invisible_control(std::uint32_t code_point) {
  return code_point == 0x061C || code_point == 0x200E || code_point == 0x200F ||
         (code_point >= 0x202A && code_point <= 0x202E) ||
         (code_point >= 0x2066 && code_point <= 0x2069) || code_point == 0x2028 ||
         code_point == 0x2029;
}

// Number of code points in valid UTF-8.
std::size_t count_chars(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
  }));
}

// Rewrites `text` one code point at a time: piece(out, code_point, raw bytes)
// appends what to emit (valid UTF-8) for it. Pieces are never split; when the
// output would exceed max_chars code points (0: no limit) it is cut after the
// last piece that leaves room for "…", which is appended.
template <typename Piece>
std::string rewrite(std::string_view text, std::size_t max_chars, Piece piece) {
  std::string out;
  std::string buffer;
  std::size_t chars = 0;
  std::size_t cut = 0;  // out.size() when chars last was <= max_chars - 1
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    const std::uint32_t code_point = next_code_point(text, pos);
    buffer.clear();
    piece(buffer, code_point, text.substr(start, pos - start));
    chars += count_chars(buffer);
    out += buffer;
    if (max_chars != 0) {
      if (chars < max_chars) cut = out.size();
      if (chars > max_chars) {
        out.resize(cut);
        out += kEllipsis;
        return out;
      }
    }
  }
  return out;
}

// Display text: controls, bidi marks and invalid bytes as visible escapes.
// keep_newlines keeps LF and tab as they are (multi-line stderr tails shown
// in a <pre>).
std::string safe_text(std::string_view text, std::size_t max_chars, bool keep_newlines) {
  return rewrite(
      text, max_chars,
      [keep_newlines](std::string& out, std::uint32_t code_point, std::string_view raw) {
        if (code_point == kNotUtf8) {
          append_hex(out, "\\x", static_cast<unsigned char>(raw.front()), 2);
        } else if (keep_newlines && (code_point == '\n' || code_point == '\t')) {
          out += raw;
        } else if (code_point == '\n') {
          out += "\\n";
        } else if (code_point == '\t') {
          out += "\\t";
        } else if (code_point == '\r') {
          out += "\\r";
        } else if (code_point < 0x20 || code_point == 0x7F) {
          append_hex(out, "\\x", code_point, 2);
        } else if ((code_point >= 0x80 && code_point <= 0x9F) || is_invisible_control(code_point)) {
          append_hex(out, "\\u", code_point, 4);
        } else {
          out += raw;
        }
      });
}

// XML 1.0 character data or attribute value (in double quotes).
std::string xml_text(std::string_view text, bool attribute, std::size_t max_chars = 0) {
  return rewrite(text, max_chars,
                 [attribute](std::string& out, std::uint32_t code_point, std::string_view raw) {
                   switch (code_point) {
                     case '&':
                       out += "&amp;";
                       return;
                     case '<':
                       out += "&lt;";
                       return;
                     case '>':
                       out += "&gt;";
                       return;
                     case '"':
                       out += "&quot;";
                       return;
                     case '\'':
                       out += "&apos;";
                       return;
                     case '\r':
                       out += "&#13;";
                       return;
                     case '\t':
                       out += attribute ? "&#9;" : "\t";
                       return;
                     case '\n':
                       out += attribute ? "&#10;" : "\n";
                       return;
                     default:
                       break;
                   }
                   if (code_point == kNotUtf8 || code_point == 0xFFFE || code_point == 0xFFFF) {
                     out += kReplacement;
                   } else if (code_point < 0x20) {
                     append_hex(out, "\\x", code_point, 2);
                   } else {
                     out += raw;
                   }
                 });
}

void append_html_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
}

// HTML text or attribute value: display-safe, then entity-escaped.
std::string html_text(std::string_view text, std::size_t max_chars = 0) {
  std::string out;
  append_html_escaped(out, safe_text(text, max_chars, false));
  return out;
}

// One Markdown table cell: display-safe on one line, then every character
// that Markdown or a GFM table would interpret backslash-escaped.
std::string markdown_text(std::string_view text, std::size_t max_chars = 0) {
  const std::string safe = safe_text(text, max_chars, false);
  std::string out;
  for (char c : safe) {
    if (std::string_view("\\`*_[]<>|~&#!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A case id in a code span when that needs no escaping (corpus ids always
// do), escaped text otherwise.
std::string markdown_case_id(std::string_view id) {
  const bool plain = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '/' || c == '+';
  });
  return plain ? "`" + std::string(id) + "`" : markdown_text(id, 120);
}

// JSON text with <, >, & and U+2028/U+2029 written as \u escapes, so that it
// can sit inside a <script> element without ending it. Those characters
// only ever occur inside JSON strings, where the escapes mean the same.
std::string script_safe_json(const Json& value) {
  const std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Grades and counts.

struct GradeStyle {
  Grade grade;
  std::string_view background;
  std::string_view foreground;
  std::string_view meaning;
};

// Okabe-Ito based: the passing grades light (green, sky, lavender), the
// failures saturated and far apart; every cell also carries its text code.
constexpr GradeStyle kGradeStyles[] = {
    {Grade::kCrash, "#1d1d1d", "#ffffff", "the reader crashed: non-zero exit or a signal"},
    {Grade::kTimeout, "#0072b2", "#ffffff", "still running at the timeout, killed"},
    {Grade::kFailShouldReject, "#d55e00", "#ffffff", "accepted a file that must be rejected"},
    {Grade::kFailWrongContent, "#cc79a7", "#1d1d1d",
     "accepted, but a tensor's name, dtype, shape, range or bytes differ"},
    {Grade::kFailShouldAccept, "#e69f00", "#1d1d1d", "rejected a valid file"},
    {Grade::kProtocolError, "#f0e442", "#1d1d1d", "exit 0 but no valid protocol answer"},
    {Grade::kImplAccept, "#a9d8f2", "#1d1d1d",
     "accepted a contested (\"either\") case, with the expected tensors"},
    {Grade::kImplReject, "#d3c8ec", "#1d1d1d", "rejected a contested (\"either\") case"},
    {Grade::kPass, "#cdeedd", "#0b4f36", "the expected verdict (and tensors)"},
};

// Position in kAllGrades (worst first), the index used in arrays and CSS.
std::size_t grade_index(Grade grade) {
  for (std::size_t i = 0; i < kGradeCount; ++i) {
    if (kAllGrades[i] == grade) return i;
  }
  return 0;
}

// Summary tables list grades best first, the passing ones, then the
// verdict failures, then the breakdowns.
constexpr Grade kBestFirst[] = {Grade::kPass,
                                Grade::kImplAccept,
                                Grade::kImplReject,
                                Grade::kFailShouldAccept,
                                Grade::kFailShouldReject,
                                Grade::kFailWrongContent,
                                Grade::kProtocolError,
                                Grade::kTimeout,
                                Grade::kCrash};
static_assert(std::size(kBestFirst) == kGradeCount);

// The expectation as the page's script knows it: 0 none, 1 XFAIL, 2 XPASS,
// 3 another failure.
int expectation_code(Expectation expectation) {
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

std::optional<std::string_view> expectation_name(Expectation expectation) {
  switch (expectation) {
    case Expectation::kNone:
      return std::nullopt;
    case Expectation::kExpectedFailure:
      return "XFAIL";
    case Expectation::kUnexpectedPass:
      return "XPASS";
    case Expectation::kOtherFailure:
      return "OTHER_FAILURE";
  }
  return std::nullopt;
}

struct Counts {
  std::array<std::size_t, kGradeCount> per_grade{};
  std::size_t total = 0;
  std::size_t failing = 0;  // result_fails_run
  std::size_t xfail = 0;
  std::size_t xpass = 0;
};

Counts count_results(const ReaderRun& run) {
  Counts counts;
  for (const CaseResult& result : run.results) {
    ++counts.per_grade[grade_index(result.grade)];
    ++counts.total;
    if (result_fails_run(result)) ++counts.failing;
    if (result.expectation == Expectation::kExpectedFailure) ++counts.xfail;
    if (result.expectation == Expectation::kUnexpectedPass) ++counts.xpass;
  }
  return counts;
}

// The runner's detail and the reader's own message in one line of prose.
std::string failure_message(const CaseResult& result) {
  if (!result.detail.empty() && !result.reader_error.empty()) {
    return result.detail + "; reader: " + result.reader_error;
  }
  if (!result.detail.empty()) return result.detail;
  if (!result.reader_error.empty()) return result.reader_error;
  return "(no message)";
}

// Results of one reader matching `keep`, worst grade first, then by case id.
template <typename Keep>
std::vector<const CaseResult*> worst_first(const ReaderRun& run, Keep keep) {
  std::vector<const CaseResult*> out;
  for (const CaseResult& result : run.results) {
    if (keep(result)) out.push_back(&result);
  }
  std::sort(out.begin(), out.end(), [](const CaseResult* a, const CaseResult* b) {
    const std::size_t ga = grade_index(a->grade);
    const std::size_t gb = grade_index(b->grade);
    return ga != gb ? ga < gb : a->case_id < b->case_id;
  });
  return out;
}

// The matrix: every case id any reader has, grouped by case group (groups
// and ids in sorted order), with each reader's result or null.
struct MatrixCase {
  const CaseResult* info = nullptr;  // the first reader's result: id, description, tags
  std::vector<const CaseResult*> cells;
};

struct MatrixGroup {
  std::string name;
  std::vector<MatrixCase> cases;
};

std::vector<MatrixGroup> build_matrix(std::span<const ReaderRun> runs) {
  std::map<std::string, MatrixCase, std::less<>> by_id;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (const CaseResult& result : runs[r].results) {
      auto [it, inserted] = by_id.try_emplace(result.case_id);
      if (inserted) {
        it->second.info = &result;
        it->second.cells.assign(runs.size(), nullptr);
      }
      it->second.cells[r] = &result;
    }
  }
  std::map<std::string, std::vector<MatrixCase>, std::less<>> by_group;
  for (auto& [id, matrix_case] : by_id) {
    by_group[matrix_case.info->group].push_back(std::move(matrix_case));
  }
  std::vector<MatrixGroup> groups;
  for (auto& [name, cases] : by_group) groups.push_back({name, std::move(cases)});
  return groups;
}

std::string pad_right(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// "0.012": JUnit wants seconds.
std::string seconds_text(double milliseconds) {
  if (!std::isfinite(milliseconds) || milliseconds < 0 || milliseconds > 1e12) {
    milliseconds = 0;
  }
  const auto total = static_cast<std::uint64_t>(std::llround(milliseconds));
  std::string fraction = std::to_string(total % 1000);
  fraction.insert(0, 3 - fraction.size(), '0');
  return std::to_string(total / 1000) + "." + fraction;
}

// ---------------------------------------------------------------------------
// JSON lines reading.

// Deepest [ / { nesting outside strings.
std::size_t nesting_depth(std::string_view line) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : line) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Typed access to one line's fields; the first problem is kept in `problem`.
class Fields {
 public:
  explicit Fields(const Json& object) : object_(object) {}

  const std::string& problem() const { return problem_; }
  bool has(std::string_view key) const { return object_.contains(key); }

  // A required string.
  std::string text(std::string_view key) {
    const Json* value = find(key);
    if (value == nullptr) return {};
    if (!value->is_string()) return fail(key, "must be a string"), std::string();
    return value->get_ref<const std::string&>();
  }

  // A required string or null ("").
  std::string text_or_null(std::string_view key) {
    const Json* value = find(key);
    if (value == nullptr || value->is_null()) return {};
    if (!value->is_string()) return fail(key, "must be a string or null"), std::string();
    return value->get_ref<const std::string&>();
  }

  std::vector<std::string> texts(std::string_view key) {
    std::vector<std::string> out;
    const Json* value = find(key);
    if (value == nullptr) return out;
    if (!value->is_array()) return fail(key, "must be an array of strings"), out;
    for (const Json& item : *value) {
      if (!item.is_string()) return fail(key, "must be an array of strings"), out;
      out.push_back(item.get_ref<const std::string&>());
    }
    return out;
  }

  // An optional number; null or missing is 0.
  double number(std::string_view key) {
    if (!object_.contains(key)) return 0;
    const Json& value = object_.at(key);
    if (value.is_null()) return 0;
    if (!value.is_number()) return fail(key, "must be a number"), 0.0;
    return value.get<double>();
  }

  bool boolean(std::string_view key) {
    const Json* value = find(key);
    if (value == nullptr) return false;
    if (!value->is_boolean()) return fail(key, "must be true or false"), false;
    return value->get<bool>();
  }

  void fail(std::string_view key, std::string_view why) {
    if (problem_.empty()) problem_ = "field \"" + std::string(key) + "\" " + std::string(why);
  }

 private:
  const Json* find(std::string_view key) {
    if (!object_.contains(key)) {
      fail(key, "is missing");
      return nullptr;
    }
    return &object_.at(key);
  }

  const Json& object_;
  std::string problem_;
};

struct PendingReader {
  ReaderRun run;
  std::size_t first_line = 0;
  std::size_t skipped_line = 0;           // 0: no skipped line seen
  std::vector<std::size_t> result_lines;  // parallel to run.results
};

std::optional<std::vector<ReaderRun>> read_json_lines_or_throw(std::string_view text,
                                                               std::string& error) {
  std::vector<PendingReader> readers;
  std::map<std::string, std::size_t, std::less<>> reader_index;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  const auto failure = [&](std::size_t line, const std::string& why) {
    error = "line " + std::to_string(line) + ": " + why;
    return std::nullopt;
  };
  const auto quoted = [](std::string_view name) {
    return "\"" + safe_text(name, 80, false) + "\"";
  };

  while (pos < text.size()) {
    const std::size_t newline = text.find('\n', pos);
    std::string_view line = text.substr(
        pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos);
    pos = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;

    if (nesting_depth(line) > 32) return failure(line_number, "JSON nested deeper than 32");
    Json object;
    try {
      object = Json::parse(line);
    } catch (const Json::parse_error& e) {
      return failure(line_number,
                     "not valid JSON (syntax error near byte " + std::to_string(e.byte) + ")");
    }
    if (!object.is_object()) return failure(line_number, "not a JSON object");

    Fields fields(object);
    std::string name = fields.text("reader");
    std::string version = fields.text("reader_version");
    std::string mode = fields.text("mode");
    const bool skipped = fields.has("skipped") && fields.boolean("skipped");
    std::string skip_reason;
    CaseResult result;
    if (skipped) {
      skip_reason = fields.text("skip_reason");
    } else {
      result.case_id = fields.text("case");
      result.group = fields.text("group");
      result.expected_verdict = fields.text("expected");
      const std::string grade = fields.text("grade");
      result.verdict = fields.text_or_null("verdict");
      result.reader_error = fields.text_or_null("error");
      result.detail = fields.text_or_null("detail");
      const std::string expectation = fields.text_or_null("expectation");
      result.duration_ms = fields.number("duration_ms");
      result.tags = fields.texts("tags");
      result.description = fields.text("description");
      if (fields.problem().empty()) {
        if (const auto parsed = grade_from_name(grade)) {
          result.grade = *parsed;
        } else {
          fields.fail("grade", "is not a grade: " + quoted(grade));
        }
        if (result.case_id.empty()) fields.fail("case", "is empty");
        if (result.expected_verdict != "accept" && result.expected_verdict != "reject" &&
            result.expected_verdict != "either") {
          fields.fail("expected", "must be \"accept\", \"reject\" or \"either\"");
        }
        if (!result.verdict.empty() && result.verdict != "accept" && result.verdict != "reject") {
          fields.fail("verdict", "must be \"accept\", \"reject\" or null");
        }
        if (expectation.empty()) {
          result.expectation = Expectation::kNone;
        } else if (expectation == "XFAIL") {
          result.expectation = Expectation::kExpectedFailure;
        } else if (expectation == "XPASS") {
          result.expectation = Expectation::kUnexpectedPass;
        } else if (expectation == "OTHER_FAILURE") {
          result.expectation = Expectation::kOtherFailure;
        } else {
          fields.fail("expectation", "must be \"XFAIL\", \"XPASS\", \"OTHER_FAILURE\" or null");
        }
      }
    }
    if (!fields.problem().empty()) return failure(line_number, fields.problem());

    auto [it, inserted] = reader_index.try_emplace(name, readers.size());
    if (inserted) {
      PendingReader pending;
      pending.run.name = name;
      pending.run.version = version;
      pending.run.mode = mode;
      pending.first_line = line_number;
      readers.push_back(std::move(pending));
    }
    PendingReader& reader = readers[it->second];
    if (reader.run.version != version) {
      return failure(line_number, "reader " + quoted(name) + ": version " + quoted(version) +
                                      " differs from " + quoted(reader.run.version) + " on line " +
                                      std::to_string(reader.first_line));
    }
    if (reader.run.mode != mode) {
      return failure(line_number, "reader " + quoted(name) + ": mode " + quoted(mode) +
                                      " differs from " + quoted(reader.run.mode) + " on line " +
                                      std::to_string(reader.first_line));
    }
    if (skipped) {
      if (!reader.result_lines.empty()) {
        return failure(line_number, "reader " + quoted(name) +
                                        " is skipped but has results (line " +
                                        std::to_string(reader.result_lines.front()) + ")");
      }
      // The same skip in two concatenated files is harmless; two reasons are not.
      if (reader.skipped_line != 0 && reader.run.skip_reason != skip_reason) {
        return failure(line_number, "reader " + quoted(name) +
                                        " skipped for another reason on line " +
                                        std::to_string(reader.skipped_line));
      }
      reader.run.skipped = true;
      reader.run.skip_reason = std::move(skip_reason);
      if (reader.skipped_line == 0) reader.skipped_line = line_number;
    } else {
      if (reader.skipped_line != 0) {
        return failure(line_number, "reader " + quoted(name) +
                                        " has results but is skipped on line " +
                                        std::to_string(reader.skipped_line));
      }
      reader.run.results.push_back(std::move(result));
      reader.result_lines.push_back(line_number);
    }
  }

  std::vector<ReaderRun> runs;
  runs.reserve(readers.size());
  for (PendingReader& reader : readers) {
    std::vector<std::size_t> order(reader.run.results.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& results = reader.run.results;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return results[a].case_id < results[b].case_id;
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (results[order[i]].case_id == results[order[i - 1]].case_id) {
        const std::size_t first = reader.result_lines[order[i - 1]];
        const std::size_t again = reader.result_lines[order[i]];
        return failure(std::max(first, again), "reader " + quoted(reader.run.name) + ": case " +
                                                   quoted(results[order[i]].case_id) +
                                                   " already on line " +
                                                   std::to_string(std::min(first, again)));
      }
    }
    ReaderRun run;
    run.name = std::move(reader.run.name);
    run.version = std::move(reader.run.version);
    run.mode = std::move(reader.run.mode);
    run.skipped = reader.run.skipped;
    run.skip_reason = std::move(reader.run.skip_reason);
    run.results.reserve(order.size());
    for (std::size_t index : order) run.results.push_back(std::move(reader.run.results[index]));
    runs.push_back(std::move(run));
  }
  return runs;
}

// ---------------------------------------------------------------------------
// HTML: style and script (constant, no data).

constexpr std::string_view kHtmlStyle = R"css(
:root { color-scheme: light; --line: #d9dde3; --muted: #5f6670; --head: #f3f5f8; }
* { box-sizing: border-box; }
body { margin: 0 24px 64px; color: #1d1d1d; background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header h1 { font-size: 22px; margin: 18px 0 2px; }
header p { margin: 0 0 14px; color: var(--muted); }
h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; }
.summary th, .summary td { border: 1px solid var(--line); padding: 3px 8px; }
.summary thead th { background: var(--head); font-size: 12px; }
.summary td.num { text-align: right; font-variant-numeric: tabular-nums; min-width: 44px; }
.summary td.zero { color: #b5bac1; }
.summary td.bad { font-weight: 700; color: #b00020; }
.summary tr.skipped td { color: var(--muted); font-style: italic; }
.chip { display: inline-block; min-width: 34px; padding: 0 5px; border-radius: 3px; text-align: center;
  font: 600 11px/18px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; list-style: none; padding: 0; margin: 8px 0 4px;
  font-size: 12.5px; color: #333; }
.xfail { background-image: repeating-linear-gradient(135deg, rgba(255,255,255,.55) 0 3px, transparent 3px 7px); }
#controls { padding: 8px 0 6px; margin-top: 4px; display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: flex-start; }
#controls fieldset { border: 1px solid var(--line); border-radius: 4px; padding: 3px 8px 5px; margin: 0; }
#controls legend { font-size: 11px; color: var(--muted); padding: 0 3px; }
#controls label { margin-right: 8px; white-space: nowrap; font-size: 12.5px; cursor: pointer; }
#controls input[type=checkbox] { vertical-align: middle; margin: 0 3px 0 0; }
#controls input[type=search] { width: 220px; }
#controls select, #controls input[type=search], #controls button { font: inherit; font-size: 12.5px; }
#controls .count { color: var(--muted); font-size: 11px; margin-left: 2px; }
#status { align-self: center; color: var(--muted); font-size: 12.5px; }
#matrix { margin-top: 8px; width: 100%; }
#matrix th, #matrix td { border: 1px solid #fff; padding: 1px 6px; }
#matrix thead th { position: sticky; top: 0; z-index: 2; background: var(--head);
  vertical-align: bottom; text-align: left; font-size: 12px; border-bottom: 1px solid var(--line); }
#matrix thead th.reader { text-align: center; min-width: 104px; max-width: 180px; }
#matrix .rname { font-weight: 700; overflow-wrap: break-word; }
#matrix .rver { font-weight: 400; color: var(--muted); font-size: 11px; overflow-wrap: break-word; }
#matrix tr.group td { background: #e4e9f0; font-weight: 600; cursor: pointer; padding: 4px 6px; user-select: none;
  border-top: 6px solid #fff; }
#matrix tr.group td.gsum { text-align: center; font-weight: 400; font-size: 11.5px; color: var(--muted); }
#matrix tr.group td.gsum.bad { color: #b00020; font-weight: 600; }
#matrix .arrow { display: inline-block; width: 14px; color: var(--muted); }
#matrix .gcount { font-weight: 400; color: var(--muted); margin-left: 6px; font-size: 12px; }
#matrix td.cid { font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: nowrap;
  cursor: pointer; background: #fafbfc; }
#matrix td.exp { font-size: 11.5px; color: #333; background: #fafbfc; }
#matrix td.exp.either { font-style: italic; }
#matrix td.cell { text-align: center; cursor: pointer; white-space: nowrap;
  font: 600 11px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#matrix td.cell sup { font-size: 8.5px; margin-left: 2px; font-weight: 700; }
#matrix td.none { color: #9aa0a6; background: #f6f7f9; font-weight: 400; }
#matrix td.desc { color: var(--muted); font-size: 12px; width: 100%; max-width: 0; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
#matrix tr.case:hover td.cid, #matrix tr.case:hover td.desc, #matrix tr.case:hover td.exp { background: #eef3fb; }
#matrix tr.case.selected td.cid { box-shadow: inset 3px 0 0 #0072b2; }
#matrix td.cell:hover { outline: 2px solid #1d1d1d; outline-offset: -2px; }
#detail { position: fixed; right: 16px; bottom: 16px; width: min(620px, 46vw); max-height: 72vh; overflow: auto;
  background: #fff; border: 1px solid #aab1bb; border-radius: 6px; box-shadow: 0 6px 24px rgba(0,0,0,.18);
  padding: 10px 14px 12px; z-index: 5; font-size: 13px; }
#detail h3 { margin: 0 26px 4px 0; font: 600 14px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  overflow-wrap: anywhere; }
#detail .close { position: absolute; right: 8px; top: 6px; border: 0; background: none; font-size: 18px;
  cursor: pointer; color: var(--muted); }
#detail .meta { color: var(--muted); margin: 0 0 6px; }
#detail .dr { border-top: 1px solid var(--line); padding: 6px 0 4px; }
#detail .dr.sel { background: #f4f8fd; margin: 0 -14px; padding: 6px 14px 4px; }
#detail .drh { font-weight: 600; }
#detail .drh .sub { font-weight: 400; color: var(--muted); }
#detail .lbl { font-size: 11px; color: var(--muted); margin-top: 3px; }
#detail pre { margin: 1px 0 2px; padding: 4px 6px; background: #f6f7f9; border-radius: 3px; white-space: pre-wrap;
  overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.empty { color: var(--muted); font-style: italic; }
)css";

constexpr std::string_view kHtmlScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('stguard-data').textContent);
  var readers = data.readers, grades = data.grades, cases = data.cases;
  var XMARK = ['', 'XFAIL', 'XPASS', 'listed with another grade'];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fails(cell) { return cell !== null && !grades[cell[0]].passes; }
  function failsUnexpectedly(cell) { return fails(cell) && cell[1] !== 1; }
  function gradeLabel(cell) {
    var g = grades[cell[0]];
    return g.name + (cell[1] ? ' (' + XMARK[cell[1]] + ')' : '');
  }
  function chip(cell) {
    var c = el('span', 'chip g' + cell[0] + (cell[1] === 1 ? ' xfail' : ''), grades[cell[0]].code);
    return c;
  }
  function tooltip(c, r) {
    var cell = c.cells[r];
    var lines = [readers[r].name + ': ' + gradeLabel(cell),
      c.id + '  (expected: ' + c.expected + ', reader said: ' + (cell[2] || 'nothing') + ')'];
    if (cell[3]) lines.push('reader error: ' + cell[3]);
    if (cell[4]) lines.push('detail: ' + cell[4]);
    if (c.description) lines.push('', c.description);
    if (c.tags.length) lines.push('tags: ' + c.tags.join(', '));
    lines.push('', 'click for details');
    return lines.join('\n');
  }

  // ---- controls
  var controls = document.getElementById('controls');
  var gradeTotals = grades.map(function () { return 0; });
  cases.forEach(function (c) {
    c.cells.forEach(function (cell) { if (cell) gradeTotals[cell[0]] += 1; });
  });
  var gradeSet = el('fieldset');
  gradeSet.appendChild(el('legend', '', 'rows with a cell of grade'));
  var gradeBoxes = grades.map(function () { return null; });
  data.order.forEach(function (i) {
    var g = grades[i];
    var label = el('label');
    var box = el('input');
    box.type = 'checkbox';
    box.checked = true;
    label.appendChild(box);
    var c = el('span', 'chip g' + i, g.code);
    c.title = g.name + ': ' + g.meaning;
    label.appendChild(c);
    label.appendChild(el('span', 'count', gradeTotals[i]));
    gradeSet.appendChild(label);
    if (!gradeTotals[i]) label.style.opacity = '0.45';
    gradeBoxes[i] = box;
  });
  var allButton = el('button', '', 'all');
  var failButton = el('button', '', 'failures only');
  gradeSet.appendChild(allButton);
  gradeSet.appendChild(document.createTextNode(' '));
  gradeSet.appendChild(failButton);
  controls.appendChild(gradeSet);

  var readerSet = el('fieldset');
  readerSet.appendChild(el('legend', '', 'reader columns'));
  var readerBoxes = readers.map(function (r) {
    var label = el('label');
    var box = el('input');
    box.type = 'checkbox';
    box.checked = true;
    label.appendChild(box);
    label.appendChild(document.createTextNode(r.name));
    readerSet.appendChild(label);
    return box;
  });
  controls.appendChild(readerSet);

  var rowSet = el('fieldset');
  rowSet.appendChild(el('legend', '', 'rows'));
  var modeSelect = el('select');
  [['all', 'all cases'], ['fail', 'some shown reader fails'],
   ['unexpected', 'some shown reader fails, not XFAIL'],
   ['disagree', 'shown readers disagree on the verdict']].forEach(function (o) {
    var opt = el('option', '', o[1]);
    opt.value = o[0];
    modeSelect.appendChild(opt);
  });
  rowSet.appendChild(modeSelect);
  rowSet.appendChild(document.createTextNode(' '));
  var groupSelect = el('select');
  var anyGroup = el('option', '', 'all groups');
  anyGroup.value = '';
  groupSelect.appendChild(anyGroup);
  rowSet.appendChild(groupSelect);
  rowSet.appendChild(document.createTextNode(' '));
  var search = el('input');
  search.type = 'search';
  search.placeholder = 'case id or description contains';
  rowSet.appendChild(search);
  rowSet.appendChild(document.createTextNode(' '));
  var expandButton = el('button', '', 'expand all');
  var collapseButton = el('button', '', 'collapse all');
  rowSet.appendChild(expandButton);
  rowSet.appendChild(document.createTextNode(' '));
  rowSet.appendChild(collapseButton);
  controls.appendChild(rowSet);
  var status = el('span');
  status.id = 'status';
  controls.appendChild(status);

  // ---- matrix
  var table = document.getElementById('matrix');
  var columns = readers.map(function () { return []; });
  var headRow = table.createTHead().insertRow();
  headRow.appendChild(el('th', '', 'case'));
  headRow.appendChild(el('th', '', 'expected'));
  readers.forEach(function (r, i) {
    var th = el('th', 'reader');
    th.appendChild(el('div', 'rname', r.name));
    th.appendChild(el('div', 'rver', r.skipped ? 'skipped' : (r.version || 'version unknown')));
    th.title = r.name + (r.version ? ' ' + r.version : '') + ' (' + r.mode + ')' +
        (r.skipped ? '\nskipped: ' + r.skip_reason : '');
    headRow.appendChild(th);
    columns[i].push(th);
  });
  headRow.appendChild(el('th', '', 'description'));

  var groups = [];
  var byName = {};
  cases.forEach(function (c, index) {
    var g = byName[c.group];
    if (!g) {
      g = { name: c.group, rows: [], collapsed: false };
      byName[c.group] = g;
      groups.push(g);
      var opt = el('option', '', c.group);
      opt.value = c.group;
      groupSelect.appendChild(opt);
      g.tbody = table.createTBody();
      var head = g.tbody.insertRow();
      head.className = 'group';
      var name = head.insertCell();
      name.colSpan = 2;
      g.arrow = el('span', 'arrow', '\u25be');
      name.appendChild(g.arrow);
      name.appendChild(document.createTextNode(c.group));
      g.count = el('span', 'gcount');
      name.appendChild(g.count);
      g.sums = readers.map(function (r, i) {
        var td = head.insertCell();
        td.className = 'gsum';
        columns[i].push(td);
        return td;
      });
      head.insertCell();
      head.addEventListener('click', function () {
        g.collapsed = !g.collapsed;
        apply();
      });
    }
    var tr = g.tbody.insertRow();
    tr.className = 'case';
    tr.dataset.index = index;
    var id = tr.insertCell();
    id.className = 'cid';
    id.textContent = c.id;
    id.title = c.description;
    var exp = tr.insertCell();
    exp.className = 'exp ' + c.expected;
    exp.textContent = c.expected;
    c.cells.forEach(function (cell, i) {
      var td = tr.insertCell();
      td.dataset.reader = i;
      if (cell === null) {
        td.className = 'cell none';
        td.textContent = readers[i].skipped ? 'skipped' : '\u2014';
      } else {
        td.className = 'cell g' + cell[0] + (cell[1] === 1 ? ' xfail' : '');
        td.textContent = grades[cell[0]].code;
        if (cell[1] === 1) td.appendChild(el('sup', '', 'XF'));
        if (cell[1] === 2) td.appendChild(el('sup', '', 'XP'));
        td.title = tooltip(c, i);
      }
      columns[i].push(td);
    });
    var desc = tr.insertCell();
    desc.className = 'desc';
    desc.textContent = c.description;
    g.rows.push({ tr: tr, c: c });
  });
  if (!cases.length) {
    var none = table.createTBody().insertRow().insertCell();
    none.colSpan = readers.length + 3;
    none.className = 'empty';
    none.textContent = 'no results';
  }

  // ---- detail panel
  var detail = document.getElementById('detail');
  var selected = null;
  function closeDetail() {
    detail.hidden = true;
    if (selected) selected.classList.remove('selected');
    selected = null;
  }
  function showDetail(tr, readerIndex) {
    var c = cases[Number(tr.dataset.index)];
    if (selected) selected.classList.remove('selected');
    selected = tr;
    tr.classList.add('selected');
    detail.replaceChildren();
    var close = el('button', 'close', '\u00d7');
    close.title = 'close (Esc)';
    close.addEventListener('click', closeDetail);
    detail.appendChild(close);
    detail.appendChild(el('h3', '', c.id));
    detail.appendChild(el('p', 'meta', 'group ' + c.group + ' \u00b7 expected verdict: ' + c.expected +
        (c.tags.length ? ' \u00b7 tags: ' + c.tags.join(', ') : '')));
    if (c.description) detail.appendChild(el('p', '', c.description));
    readers.forEach(function (r, i) {
      var cell = c.cells[i];
      var box = el('div', 'dr' + (i === readerIndex ? ' sel' : ''));
      var head = el('div', 'drh');
      if (cell) {
        head.appendChild(chip(cell));
        head.appendChild(document.createTextNode(' ' + r.name + ' '));
        head.appendChild(el('span', 'sub', gradeLabel(cell) + ' \u00b7 said: ' + (cell[2] || 'nothing') +
            ' \u00b7 ' + cell[5] + ' ms'));
      } else {
        head.appendChild(document.createTextNode(r.name + ' '));
        head.appendChild(el('span', 'sub', r.skipped ? 'skipped: ' + r.skip_reason : 'no result'));
      }
      box.appendChild(head);
      if (cell && cell[3]) {
        box.appendChild(el('div', 'lbl', "reader's error"));
        box.appendChild(el('pre', '', cell[3]));
      }
      if (cell && cell[4]) {
        box.appendChild(el('div', 'lbl', 'runner detail'));
        box.appendChild(el('pre', '', cell[4]));
      }
      detail.appendChild(box);
    });
    detail.hidden = false;
  }
  table.addEventListener('click', function (event) {
    var td = event.target.closest('td');
    if (!td) return;
    var tr = td.parentElement;
    if (!tr.classList.contains('case')) return;
    showDetail(tr, td.dataset.reader === undefined ? -1 : Number(td.dataset.reader));
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') closeDetail();
  });

  // ---- filtering
  function apply() {
    var text = search.value.trim().toLowerCase();
    var group = groupSelect.value;
    var mode = modeSelect.value;
    var gradeOn = gradeBoxes.map(function (b) { return b.checked; });
    var allGrades = gradeOn.every(Boolean);
    var shownColumns = readerBoxes.map(function (b) { return b.checked; });
    var total = 0;
    groups.forEach(function (g) {
      var matched = 0;
      var failing = readers.map(function () { return 0; });
      g.rows.forEach(function (row) {
        var c = row.c;
        var ok = !group || g.name === group;
        if (ok && text) {
          ok = c.id.toLowerCase().indexOf(text) >= 0 || c.description.toLowerCase().indexOf(text) >= 0;
        }
        var shown = c.cells.filter(function (cell, i) { return shownColumns[i] && cell !== null; });
        if (ok && !allGrades) ok = shown.some(function (cell) { return gradeOn[cell[0]]; });
        if (ok && mode === 'fail') ok = shown.some(fails);
        if (ok && mode === 'unexpected') ok = shown.some(failsUnexpectedly);
        if (ok && mode === 'disagree') {
          ok = shown.some(function (cell) { return cell[2] !== shown[0][2]; });
        }
        if (ok) {
          matched += 1;
          c.cells.forEach(function (cell, i) { if (fails(cell)) failing[i] += 1; });
        }
        row.tr.hidden = !ok || g.collapsed;
      });
      g.tbody.hidden = matched === 0;
      g.arrow.textContent = g.collapsed ? '\u25b8' : '\u25be';
      g.count.textContent = matched === g.rows.length ? matched + ' cases'
                                                      : matched + ' of ' + g.rows.length + ' cases';
      g.sums.forEach(function (td, i) {
        td.textContent = readers[i].skipped ? '' : failing[i] ? failing[i] + ' failing' : 'ok';
        td.className = 'gsum' + (failing[i] ? ' bad' : '');
      });
      total += matched;
    });
    columns.forEach(function (cells, i) {
      cells.forEach(function (cell) { cell.style.display = shownColumns[i] ? '' : 'none'; });
    });
    status.textContent = total + ' of ' + cases.length + ' cases shown';
  }
  [modeSelect, groupSelect].forEach(function (e) { e.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  gradeBoxes.concat(readerBoxes).forEach(function (b) { b.addEventListener('change', apply); });
  allButton.addEventListener('click', function () {
    gradeBoxes.forEach(function (b) { b.checked = true; });
    apply();
  });
  failButton.addEventListener('click', function () {
    gradeBoxes.forEach(function (b, i) { b.checked = !grades[i].passes; });
    apply();
  });
  expandButton.addEventListener('click', function () {
    groups.forEach(function (g) { g.collapsed = false; });
    apply();
  });
  collapseButton.addEventListener('click', function () {
    groups.forEach(function (g) { g.collapsed = true; });
    apply();
  });
  apply();
})();
)js";

// Reader messages in the page are cut; the JSON lines report has them whole.
constexpr std::size_t kHtmlMessageChars = 600;

Json html_data(std::span<const ReaderRun> runs, const std::vector<MatrixGroup>& groups) {
  Json data = Json::object();
  Json& grades = data["grades"] = Json::array();
  for (const GradeStyle& style : kGradeStyles) {
    grades.push_back({{"name", grade_name(style.grade)},
                      {"code", grade_code(style.grade)},
                      {"passes", grade_passes(style.grade)},
                      {"meaning", style.meaning}});
  }
  Json& order = data["order"] = Json::array();  // of the grade filters
  for (Grade grade : kBestFirst) order.push_back(grade_index(grade));
  Json& readers = data["readers"] = Json::array();
  for (const ReaderRun& run : runs) {
    readers.push_back({{"name", safe_text(run.name, 120, false)},
                       {"version", safe_text(run.version, 120, false)},
                       {"mode", safe_text(run.mode, 40, false)},
                       {"skipped", run.skipped},
                       {"skip_reason", safe_text(run.skip_reason, kHtmlMessageChars, false)}});
  }
  Json& cases = data["cases"] = Json::array();
  for (const MatrixGroup& group : groups) {
    for (const MatrixCase& matrix_case : group.cases) {
      const CaseResult& info = *matrix_case.info;
      Json tags = Json::array();
      for (const std::string& tag : info.tags) tags.push_back(safe_text(tag, 120, false));
      Json cells = Json::array();
      for (const CaseResult* cell : matrix_case.cells) {
        if (cell == nullptr) {
          cells.push_back(nullptr);
          continue;
        }
        const double ms =
            std::isfinite(cell->duration_ms) ? std::round(cell->duration_ms * 10) / 10 : 0.0;
        cells.push_back({grade_index(cell->grade), expectation_code(cell->expectation),
                         safe_text(cell->verdict, 20, false),
                         safe_text(cell->reader_error, kHtmlMessageChars, true),
                         safe_text(cell->detail, kHtmlMessageChars, true), ms});
      }
      cases.push_back({{"id", safe_text(info.case_id, 200, false)},
                       {"group", safe_text(group.name, 120, false)},
                       {"expected", safe_text(info.expected_verdict, 20, false)},
                       {"description", safe_text(info.description, 2000, false)},
                       {"tags", std::move(tags)},
                       {"cells", std::move(cells)}});
    }
  }
  return data;
}

}  // namespace

// ---------------------------------------------------------------------------

std::string_view grade_code(Grade grade) noexcept {
  switch (grade) {
    case Grade::kCrash:
      return "CRASH";
    case Grade::kTimeout:
      return "TIME";
    case Grade::kFailShouldReject:
      return "SHOULD-REJ";
    case Grade::kFailWrongContent:
      return "WRONG";
    case Grade::kFailShouldAccept:
      return "SHOULD-ACC";
    case Grade::kProtocolError:
      return "PROTO";
    case Grade::kImplAccept:
      return "ACC";
    case Grade::kImplReject:
      return "REJ";
    case Grade::kPass:
      return "PASS";
  }
  return "PROTO";
}

std::string terminal_safe(std::string_view text, std::size_t max_chars) {
  return safe_text(text, max_chars, false);
}

std::string text_summary(std::span<const ReaderRun> runs) {
  std::string out;
  std::size_t failing_total = 0;
  std::size_t skipped_total = 0;
  std::size_t grade_width = 0;
  for (Grade grade : kAllGrades) grade_width = std::max(grade_width, grade_name(grade).size());
  for (const ReaderRun& run : runs) {
    if (!out.empty()) out += '\n';
    std::string head = terminal_safe(run.name, 80);
    if (!run.version.empty()) head += " " + terminal_safe(run.version, 60);
    head += " (" + terminal_safe(run.mode, 20) + ")";
    if (run.skipped) {
      ++skipped_total;
      out += head + ": SKIPPED: " + terminal_safe(run.skip_reason, 200) + "\n";
      continue;
    }
    const Counts counts = count_results(run);
    failing_total += counts.failing;
    out += head + ": " + std::to_string(counts.total) + " cases, " +
           std::to_string(counts.failing) + " failing, " + std::to_string(counts.xfail) +
           " XFAIL, " + std::to_string(counts.xpass) + " XPASS\n";
    std::string grades;
    for (Grade grade : kAllGrades) {
      const std::size_t n = counts.per_grade[grade_index(grade)];
      if (n == 0) continue;
      grades += grades.empty() ? "  " : ", ";
      grades += std::string(grade_name(grade)) + " " + std::to_string(n);
    }
    if (!grades.empty()) out += grades + "\n";
    for (const CaseResult* result : worst_first(run, result_fails_run)) {
      out += "  " + pad_right(std::string(grade_name(result->grade)), grade_width) + "  " +
             terminal_safe(result->case_id, 100) + "  \xE2\x80\x94 " +
             terminal_safe(failure_message(*result), 160);
      if (result->expectation == Expectation::kOtherFailure) {
        out += " [expected failure listed with another grade]";
      }
      out += '\n';
    }
    for (const CaseResult* result : worst_first(run, [](const CaseResult& r) {
           return r.expectation == Expectation::kUnexpectedPass;
         })) {
      out += "  " + pad_right("XPASS", grade_width) + "  " + terminal_safe(result->case_id, 100) +
             "  \xE2\x80\x94 listed as an expected failure, but passes (" +
             std::string(grade_name(result->grade)) + ")\n";
    }
  }
  if (!out.empty()) out += '\n';
  out += std::to_string(runs.size()) + (runs.size() == 1 ? " reader" : " readers");
  if (skipped_total != 0) out += " (" + std::to_string(skipped_total) + " skipped)";
  out += ", " + std::to_string(failing_total) +
         (failing_total == 1 ? " result fails" : " results fail") + " the run\n";
  return out;
}

std::string json_lines(std::span<const ReaderRun> runs) {
  std::string out;
  const auto emit = [&out](const Json& line) {
    out += line.dump(-1, ' ', false, Json::error_handler_t::replace);
    out += '\n';
  };
  const auto text_or_null = [](const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
  };
  for (const ReaderRun& run : runs) {
    if (run.skipped) {
      emit(Json{{"reader", run.name},
                {"reader_version", run.version},
                {"mode", run.mode},
                {"skipped", true},
                {"skip_reason", run.skip_reason}});
      continue;
    }
    for (const CaseResult& result : run.results) {
      Json line = Json::object();
      line["reader"] = run.name;
      line["reader_version"] = run.version;
      line["mode"] = run.mode;
      line["case"] = result.case_id;
      line["group"] = result.group;
      line["expected"] = result.expected_verdict;
      line["grade"] = grade_name(result.grade);
      line["verdict"] = text_or_null(result.verdict);
      line["error"] = text_or_null(result.reader_error);
      line["detail"] = text_or_null(result.detail);
      const auto expectation = expectation_name(result.expectation);
      line["expectation"] = expectation ? Json(*expectation) : Json(nullptr);
      line["duration_ms"] = result.duration_ms;
      line["tags"] = result.tags;
      line["description"] = result.description;
      emit(line);
    }
  }
  return out;
}

std::optional<std::vector<ReaderRun>> read_json_lines(std::string_view text, std::string* error) {
  std::string message;
  std::optional<std::vector<ReaderRun>> runs;
  try {
    runs = read_json_lines_or_throw(text, message);
  } catch (const std::exception& e) {
    // Only the allocator can get here: every field access is type-checked.
    message = std::string("cannot read JSON lines: ") + e.what();
    runs.reset();
  }
  if (!runs && error != nullptr) *error = std::move(message);
  return runs;
}

std::string junit_xml(std::span<const ReaderRun> runs) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t skipped = 0;
  std::string suites;
  for (const ReaderRun& run : runs) {
    const std::string name = xml_text(run.name, true, 200);
    std::string properties = "    <properties>\n      <property name=\"reader_version\" value=\"" +
                             xml_text(run.version, true, 200) +
                             "\"/>\n      <property name=\"mode\" value=\"" +
                             xml_text(run.mode, true, 40) + "\"/>\n";
    if (run.skipped) {
      properties += "    </properties>\n";
      ++tests;
      ++skipped;
      suites += "  <testsuite name=\"" + name +
                "\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n" + properties +
                "    <testcase classname=\"" + name +
                "\" name=\"reader skipped\">\n      <skipped message=\"" +
                xml_text("reader skipped: " + run.skip_reason, true, 1000) +
                "\"/>\n    </testcase>\n  </testsuite>\n";
      continue;
    }
    properties += "    </properties>\n";
    const Counts counts = count_results(run);
    tests += counts.total;
    failures += counts.failing;
    skipped += counts.xfail;
    double total_ms = 0;
    std::string cases;
    for (const CaseResult& result : run.results) {
      if (std::isfinite(result.duration_ms) && result.duration_ms > 0) {
        total_ms += result.duration_ms;
      }
      cases += "    <testcase classname=\"" + xml_text(result.group, true, 200) + "\" name=\"" +
               xml_text(result.case_id, true, 200) + "\" time=\"" +
               seconds_text(result.duration_ms) + "\"";
      const std::string_view grade = grade_name(result.grade);
      if (result_fails_run(result)) {
        std::string body =
            "grade: " + std::string(grade) + "\nexpected verdict: " + result.expected_verdict +
            "\nreader verdict: " + (result.verdict.empty() ? "none" : result.verdict);
        if (result.expectation == Expectation::kOtherFailure) {
          body += "\nexpectation file: listed with another grade";
        }
        if (!result.detail.empty()) body += "\ndetail: " + result.detail;
        if (!result.reader_error.empty()) body += "\nreader error: " + result.reader_error;
        if (!result.description.empty()) body += "\ncase: " + result.description;
        cases += ">\n      <failure type=\"" + std::string(grade) + "\" message=\"" +
                 xml_text(std::string(grade) + ": " + failure_message(result), true, 300) + "\">" +
                 xml_text(body, false, 20000) + "</failure>\n    </testcase>\n";
      } else if (result.expectation == Expectation::kExpectedFailure) {
        cases += ">\n      <skipped message=\"expected failure: " + std::string(grade) +
                 "\"/>\n    </testcase>\n";
      } else if (result.expectation == Expectation::kUnexpectedPass) {
        cases += ">\n      <system-out>XPASS: listed as an expected failure, but " +
                 std::string(grade) + "</system-out>\n    </testcase>\n";
      } else {
        cases += "/>\n";
      }
    }
    suites += "  <testsuite name=\"" + name + "\" tests=\"" + std::to_string(counts.total) +
              "\" failures=\"" + std::to_string(counts.failing) + "\" errors=\"0\" skipped=\"" +
              std::to_string(counts.xfail) + "\" time=\"" + seconds_text(total_ms) + "\">\n" +
              properties + cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"stguard conform\" "
         "tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\">\n" + suites +
         "</testsuites>\n";
}

std::string html_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info) {
  const std::vector<MatrixGroup> groups = build_matrix(runs);
  std::size_t case_total = 0;
  for (const MatrixGroup& group : groups) case_total += group.cases.size();

  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched: the page is one file, and an escaping mistake
  // must not be able to load anything either.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + html_text(info.title, 200) + "</title>\n<style>";
  out += kHtmlStyle;
  for (const GradeStyle& style : kGradeStyles) {
    out += ".g" + std::to_string(grade_index(style.grade)) +
           " { background-color: " + std::string(style.background) +
           "; color: " + std::string(style.foreground) + "; }\n";
  }
  out += "</style>\n</head>\n<body>\n<header>\n<h1>" + html_text(info.title, 200) + "</h1>\n<p>";
  std::vector<std::string> facts;
  if (!info.corpus_version.empty()) {
    facts.push_back("corpus version " + html_text(info.corpus_version, 60));
  }
  if (info.corpus_cases != 0) facts.push_back(std::to_string(info.corpus_cases) + " cases");
  facts.push_back(std::to_string(runs.size()) + (runs.size() == 1 ? " reader" : " readers"));
  if (!info.generated_by.empty()) {
    facts.push_back("generated by " + html_text(info.generated_by, 100));
  }
  for (std::size_t i = 0; i < facts.size(); ++i) {
    if (i != 0) out += " \xC2\xB7 ";
    out += facts[i];
  }
  out += "</p>\n</header>\n";

  // Summary: rendered here so that it reads without JavaScript.
  out +=
      "<h2>Readers</h2>\n<table class=\"summary\">\n<thead><tr><th>reader</th>"
      "<th>version</th><th>mode</th>";
  for (Grade grade : kBestFirst) {
    const std::size_t index = grade_index(grade);
    out += "<th title=\"" + std::string(grade_name(grade)) + ": " +
           html_text(kGradeStyles[index].meaning) + "\"><span class=\"chip g" +
           std::to_string(index) + "\">" + std::string(grade_code(grade)) + "</span></th>";
  }
  out +=
      "<th>total</th><th title=\"results that fail the run\">failing</th>"
      "<th title=\"expected failures\">XFAIL</th>"
      "<th title=\"listed as expected failures, but passing\">XPASS</th></tr></thead>\n"
      "<tbody>\n";
  for (const ReaderRun& run : runs) {
    out += std::string(run.skipped ? "<tr class=\"skipped\">" : "<tr>") + "<td><b>" +
           html_text(run.name, 120) + "</b></td><td>" + html_text(run.version, 120) + "</td><td>" +
           html_text(run.mode, 40) + "</td>";
    if (run.skipped) {
      out += "<td colspan=\"" + std::to_string(kGradeCount + 4) +
             "\">skipped: " + html_text(run.skip_reason, kHtmlMessageChars) + "</td></tr>\n";
      continue;
    }
    const Counts counts = count_results(run);
    for (Grade grade : kBestFirst) {
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
  out += "</tbody>\n</table>\n<ul class=\"legend\">\n";
  for (Grade grade : kBestFirst) {
    const std::size_t index = grade_index(grade);
    out += "<li><span class=\"chip g" + std::to_string(index) + "\">" +
           std::string(grade_code(grade)) + "</span> " + std::string(grade_name(grade)) + ": " +
           html_text(kGradeStyles[index].meaning) + "</li>\n";
  }
  out += "<li><span class=\"chip g" + std::to_string(grade_index(Grade::kFailShouldReject)) +
         " xfail\">SHOULD-REJ</span> hatched, <b>XF</b>: an expected failure (XFAIL), listed "
         "in the expectation file; <b>XP</b>: listed, but passes (XPASS)</li>\n</ul>\n";

  out += "<h2>Matrix <span class=\"gcount\">" + std::to_string(case_total) +
         " cases; hover a cell for the reader's message, click for everything</span></h2>\n";
  out += "<div id=\"controls\"></div>\n<table id=\"matrix\"></table>\n";
  out +=
      "<noscript><p class=\"empty\">The matrix needs JavaScript; the summary above and the "
      "JSON lines report hold the same results.</p></noscript>\n";
  out += "<aside id=\"detail\" hidden></aside>\n";
  out += "<script type=\"application/json\" id=\"stguard-data\">";
  out += script_safe_json(html_data(runs, groups));
  out += "</script>\n<script>";
  out += kHtmlScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string markdown_matrix(std::span<const ReaderRun> runs, const MatrixInfo& info) {
  const std::vector<MatrixGroup> groups = build_matrix(runs);
  std::string out = "# " + markdown_text(info.title, 200) + "\n\n";
  out += "Generated by `stguard conform report --markdown`";
  if (!info.generated_by.empty()) out += " (" + markdown_text(info.generated_by, 100) + ")";
  out += ", do not edit.\n\n";
  std::vector<std::string> facts;
  if (!info.corpus_version.empty()) {
    facts.push_back("Corpus version " + markdown_text(info.corpus_version, 60));
  }
  if (info.corpus_cases != 0) facts.push_back(std::to_string(info.corpus_cases) + " cases");
  if (!facts.empty()) {
    out += facts[0];
    for (std::size_t i = 1; i < facts.size(); ++i) out += ", " + facts[i];
    out += ".\n\n";
  }

  out += "## Readers\n\n| reader | version | mode |";
  std::string rule = "|---|---|---|";
  for (Grade grade : kBestFirst) {
    out += " " + std::string(grade_code(grade)) + " |";
    rule += "--:|";
  }
  out += " total | failing | XFAIL | XPASS |\n" + rule + "--:|--:|--:|--:|\n";
  for (const ReaderRun& run : runs) {
    out += "| " + markdown_text(run.name, 120) + " | " + markdown_text(run.version, 120) + " | " +
           markdown_text(run.mode, 40) + " |";
    if (run.skipped) {
      out += " skipped: " + markdown_text(run.skip_reason, 200) + " |";
      for (std::size_t i = 1; i < kGradeCount + 4; ++i) out += " |";
      out += "\n";
      continue;
    }
    const Counts counts = count_results(run);
    for (Grade grade : kBestFirst) {
      out += " " + std::to_string(counts.per_grade[grade_index(grade)]) + " |";
    }
    out += " " + std::to_string(counts.total) + " | " + std::to_string(counts.failing) + " | " +
           std::to_string(counts.xfail) + " | " + std::to_string(counts.xpass) + " |\n";
  }
  out += "\nGrades:";
  for (Grade grade : kBestFirst) {
    out += " `" + std::string(grade_code(grade)) + "` " + std::string(grade_name(grade)) + ",";
  }
  out.back() = '.';
  out +=
      " Failing is what fails the run: a failing grade that the expectation file does not "
      "list (an expected failure is XFAIL; a listed case that passes is XPASS).\n";

  out += "\n## Non-passing results\n";
  for (const ReaderRun& run : runs) {
    out += "\n### " + markdown_text(run.name, 120) + "\n\n";
    if (run.skipped) {
      out += "Skipped: " + markdown_text(run.skip_reason, 200) + "\n";
      continue;
    }
    const auto failing =
        worst_first(run, [](const CaseResult& r) { return !grade_passes(r.grade); });
    if (failing.empty()) {
      out += "All " + std::to_string(run.results.size()) + " results pass.\n";
      continue;
    }
    out += "| grade | case | reader's error |\n|---|---|---|\n";
    for (const CaseResult* result : failing) {
      std::string grade = std::string(grade_name(result->grade));
      if (result->expectation == Expectation::kExpectedFailure) {
        grade += " (XFAIL)";
      } else {
        grade = "**" + grade + "**";
      }
      out += "| " + grade + " | " + markdown_case_id(result->case_id) + " | " +
             markdown_text(failure_message(*result), 120) + " |\n";
    }
  }

  out += "\n## Matrix\n\nOne table per case group; one column per reader";
  bool any_skipped = false;
  for (const ReaderRun& run : runs) any_skipped = any_skipped || run.skipped;
  out += any_skipped ? " (skipped readers have none)" : "";
  out += ". Failing cells are bold.\n";
  for (const MatrixGroup& group : groups) {
    out += "\n### " + markdown_text(group.name, 120) + " (" + std::to_string(group.cases.size()) +
           (group.cases.size() == 1 ? " case" : " cases") + ")\n\n| case | expected |";
    std::string header_rule = "|---|---|";
    for (const ReaderRun& run : runs) {
      if (run.skipped) continue;
      out += " " + markdown_text(run.name, 60) + " |";
      header_rule += ":-:|";
    }
    out += "\n" + header_rule + "\n";
    for (const MatrixCase& matrix_case : group.cases) {
      out += "| " + markdown_case_id(matrix_case.info->case_id) + " | " +
             markdown_text(matrix_case.info->expected_verdict, 20) + " |";
      for (std::size_t r = 0; r < runs.size(); ++r) {
        if (runs[r].skipped) continue;
        const CaseResult* cell = matrix_case.cells[r];
        if (cell == nullptr) {
          out += " \xE2\x80\x94 |";
          continue;
        }
        std::string code(grade_code(cell->grade));
        if (cell->expectation == Expectation::kExpectedFailure) {
          code += " (xfail)";
        } else if (cell->expectation == Expectation::kUnexpectedPass) {
          code += " (xpass)";
        } else if (!grade_passes(cell->grade)) {
          code = "**" + code + "**";
        }
        out += " " + code + " |";
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace stguard::conform
