// conformance/report/jsonl.cc: JSON lines out and back in (jsonl.h). The
// reader type-checks every field before taking it, so that only running out
// of memory can throw inside it.
#include "conformance/report/jsonl.h"

#include <algorithm>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/json.h"
#include "base/text.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

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

  // An optional count (a whole number from 0 to 10^9); null or missing is 0.
  std::size_t count(std::string_view key) {
    const double value = number(key);
    if (value < 0 || value > 1e9 || value != static_cast<double>(static_cast<std::size_t>(value))) {
      fail(key, "must be a count");
      return 0;
    }
    return static_cast<std::size_t>(value);
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
  std::size_t interrupted_line = 0;       // 0: no "interrupted" line seen
  std::vector<std::size_t> result_lines;  // parallel to run.results
};

// Where the texts read together start: the line of the whole each begins
// on, and its name; empty for one text, whose lines are said as "line N".
using TextStarts = std::vector<std::pair<std::size_t, std::string>>;

// "line 3", or "b.jsonl line 3" when the texts are named.
std::string line_name(const TextStarts& starts, std::size_t line) {
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    if (line >= it->first) return it->second + " line " + std::to_string(line - it->first + 1);
  }
  return "line " + std::to_string(line);
}

std::optional<std::vector<ReaderRun>> read_json_lines_or_throw(std::string_view text,
                                                               const TextStarts& starts,
                                                               std::string& error) {
  std::vector<PendingReader> readers;
  std::map<std::string, std::size_t, std::less<>> reader_index;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  const auto where = [&](std::size_t line) { return line_name(starts, line); };
  const auto failure = [&](std::size_t line, const std::string& why) {
    error = where(line) + ": " + why;
    return std::nullopt;
  };
  const auto quoted = [](std::string_view name) {
    return "\"" + base::terminal_safe(name, {.max_chars = 80}) + "\"";
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
    const bool interrupted = fields.has("interrupted") && fields.boolean("interrupted");
    std::string skip_reason;
    std::size_t cases_planned = 0;
    CaseResult result;
    if (skipped && interrupted) {
      fields.fail("interrupted", "cannot be true for a skipped reader");
    } else if (skipped) {
      skip_reason = fields.text("skip_reason");
    } else if (interrupted) {
      if (!fields.has("cases_planned")) fields.fail("cases_planned", "is missing");
      cases_planned = fields.count("cases_planned");
    } else {
      result.case_id = fields.text("case");
      result.group = fields.text("group");
      const std::string expected = fields.text("expected");
      const std::string grade = fields.text("grade");
      const std::string verdict = fields.text_or_null("verdict");
      result.reader_error = fields.text_or_null("error");
      result.detail = fields.text_or_null("detail");
      const std::string expectation = fields.text_or_null("expectation");
      result.duration_ms = fields.number("duration_ms");
      result.leftover_processes = fields.count("leftover_processes");
      result.tags = fields.texts("tags");
      if (fields.has("rules")) result.rules = fields.texts("rules");
      result.description = fields.text("description");
      if (fields.problem().empty()) {
        if (const auto parsed = grade_from_name(grade)) {
          result.grade = *parsed;
        } else {
          fields.fail("grade", "is not a grade: " + quoted(grade));
        }
        if (result.case_id.empty()) fields.fail("case", "is empty");
        if (const auto parsed = verdict_from_name(expected)) {
          result.expected_verdict = *parsed;
        } else {
          fields.fail("expected", "must be \"accept\", \"reject\" or \"either\"");
        }
        if (!verdict.empty()) {
          result.verdict = verdict_from_name(verdict);
          if (!result.verdict || *result.verdict == Verdict::kEither) {
            fields.fail("verdict", "must be \"accept\", \"reject\" or null");
          }
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
                                      " differs from " + quoted(reader.run.version) + " on " +
                                      where(reader.first_line));
    }
    if (reader.run.mode != mode) {
      return failure(line_number, "reader " + quoted(name) + ": mode " + quoted(mode) +
                                      " differs from " + quoted(reader.run.mode) + " on " +
                                      where(reader.first_line));
    }
    if (interrupted) {
      if (reader.skipped_line != 0) {
        return failure(line_number, "reader " + quoted(name) + " is stopped but skipped on " +
                                        where(reader.skipped_line));
      }
      // Two concatenated files of the same stopped run are harmless; two
      // different stops of one reader are not one run.
      if (reader.interrupted_line != 0 && reader.run.cases_planned != cases_planned) {
        return failure(line_number, "reader " + quoted(name) +
                                        " stopped with another case count on " +
                                        where(reader.interrupted_line));
      }
      reader.run.interrupted = true;
      reader.run.cases_planned = cases_planned;
      if (reader.interrupted_line == 0) reader.interrupted_line = line_number;
    } else if (skipped) {
      if (reader.interrupted_line != 0) {
        return failure(line_number, "reader " + quoted(name) + " is skipped but stopped on " +
                                        where(reader.interrupted_line));
      }
      if (!reader.result_lines.empty()) {
        return failure(line_number, "reader " + quoted(name) + " is skipped but has results (" +
                                        where(reader.result_lines.front()) + ")");
      }
      // The same skip in two concatenated files is harmless; two reasons are not.
      if (reader.skipped_line != 0 && reader.run.skip_reason != skip_reason) {
        return failure(line_number, "reader " + quoted(name) + " skipped for another reason on " +
                                        where(reader.skipped_line));
      }
      reader.run.skipped = true;
      reader.run.skip_reason = std::move(skip_reason);
      if (reader.skipped_line == 0) reader.skipped_line = line_number;
    } else {
      if (reader.skipped_line != 0) {
        return failure(line_number, "reader " + quoted(name) + " has results but is skipped on " +
                                        where(reader.skipped_line));
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
                                                   " already on " + where(std::min(first, again)));
      }
    }
    ReaderRun run;
    run.name = std::move(reader.run.name);
    run.version = std::move(reader.run.version);
    run.mode = std::move(reader.run.mode);
    run.skipped = reader.run.skipped;
    run.skip_reason = std::move(reader.run.skip_reason);
    run.interrupted = reader.run.interrupted;
    run.cases_planned = reader.run.cases_planned;
    run.results.reserve(order.size());
    for (std::size_t index : order) run.results.push_back(std::move(reader.run.results[index]));
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

std::string json_lines(std::span<const ReaderRun> runs) {
  std::string out;
  const auto emit = [&out](const Json& line) {
    out += base::json_line(line);
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
      line["expected"] = verdict_name(result.expected_verdict);
      line["grade"] = grade_name(result.grade);
      line["verdict"] = result.verdict ? Json(verdict_name(*result.verdict)) : Json(nullptr);
      line["error"] = text_or_null(result.reader_error);
      line["detail"] = text_or_null(result.detail);
      const auto expectation = expectation_name(result.expectation);
      line["expectation"] = expectation ? Json(*expectation) : Json(nullptr);
      line["duration_ms"] = result.duration_ms;
      // Only when there were any: older readers of these lines never see it.
      if (result.leftover_processes != 0) line["leftover_processes"] = result.leftover_processes;
      line["tags"] = result.tags;
      // Only when there are any (writer cases have none).
      if (!result.rules.empty()) line["rules"] = result.rules;
      line["description"] = result.description;
      emit(line);
    }
    // After the results, so that a file cut short by the same stop still
    // has every finished case.
    if (run.interrupted) {
      emit(Json{{"reader", run.name},
                {"reader_version", run.version},
                {"mode", run.mode},
                {"interrupted", true},
                {"cases_planned", run.cases_planned}});
    }
  }
  return out;
}

namespace {

base::Result<std::vector<ReaderRun>> read_with_starts(std::string_view text,
                                                      const TextStarts& starts) {
  std::string message;
  std::optional<std::vector<ReaderRun>> runs;
  try {
    runs = read_json_lines_or_throw(text, starts, message);
  } catch (const std::exception& e) {
    // Only the allocator can get here: every field access is type-checked.
    message = std::string("cannot read JSON lines: ") + e.what();
    runs.reset();
  }
  if (!runs) return base::fail(std::move(message));
  return std::move(*runs);
}

}  // namespace

base::Result<std::vector<ReaderRun>> read_json_lines(std::string_view text) {
  return read_with_starts(text, {});
}

base::Result<std::vector<ReaderRun>> read_json_lines(std::span<const NamedText> texts) {
  std::string all;
  TextStarts starts;
  std::size_t lines = 0;
  for (const NamedText& t : texts) {
    starts.emplace_back(lines + 1, t.name);
    all += t.text;
    if (!all.empty() && all.back() != '\n') all += '\n';
    lines = static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n'));
  }
  return read_with_starts(all, starts);
}

}  // namespace stguard::conformance
