// tests/conformance/jsonl_test.cc: the JSON lines of `stguard conform`
// (conformance/report/jsonl.h): what is written reads back field for field,
// concatenated runs merge, and broken input is refused naming the line.
#include "conformance/report/jsonl.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "tests/conformance/report_samples.h"

namespace {

using namespace conformance_test;  // NOLINT(google-build-using-namespace): the samples

// The message reading `text` fails with, or "" when it is read.
std::string refusal(const std::string& text) {
  const auto back = stguard::conformance::read_json_lines(text);
  return back ? "" : back.error().message;
}

void expect_same_case(const CaseResult& a, const CaseResult& b) {
  EXPECT_EQ(a.case_id, b.case_id);
  EXPECT_EQ(a.group, b.group);
  EXPECT_EQ(a.expected_verdict, b.expected_verdict);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.tags, b.tags);
  EXPECT_EQ(a.grade, b.grade);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.reader_error, b.reader_error);
  EXPECT_EQ(a.detail, b.detail);
  EXPECT_EQ(a.expectation, b.expectation);
  EXPECT_EQ(a.duration_ms, b.duration_ms);
}

void expect_same_runs(const std::vector<ReaderRun>& a, const std::vector<ReaderRun>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t r = 0; r < a.size(); ++r) {
    SCOPED_TRACE("reader " + a[r].name);
    EXPECT_EQ(a[r].name, b[r].name);
    EXPECT_EQ(a[r].version, b[r].version);
    EXPECT_EQ(a[r].mode, b[r].mode);
    EXPECT_EQ(a[r].skipped, b[r].skipped);
    EXPECT_EQ(a[r].skip_reason, b[r].skip_reason);
    EXPECT_EQ(a[r].interrupted, b[r].interrupted);
    if (a[r].interrupted) {
      EXPECT_EQ(a[r].cases_planned, b[r].cases_planned);
    }
    ASSERT_EQ(a[r].results.size(), b[r].results.size());
    for (std::size_t i = 0; i < a[r].results.size(); ++i) {
      SCOPED_TRACE("case " + a[r].results[i].case_id);
      expect_same_case(a[r].results[i], b[r].results[i]);
    }
  }
}

TEST(ConformReportJsonLines, RoundTripsFieldByField) {
  std::vector<ReaderRun> runs = sample_runs();
  // Text that must survive: quotes, backslashes, newlines, non-ASCII, a
  // control character, an empty tag list and a fractional duration.
  runs[1].results[0].reader_error = "bad \"header\"\\\n\tline 2 \xC3\xA9\xE2\x80\xAE \x01";
  runs[1].results[1].tags.clear();
  runs[1].results[2].duration_ms = 0.1 + 0.2;
  runs[1].results[3].expectation = Expectation::kOtherFailure;
  runs[1].version = "";
  const std::string text = stguard::conformance::json_lines(runs);
  EXPECT_EQ(lines_of(text).size(), 11u);  // 5 + 5 cases + 1 skipped reader
  const auto back = stguard::conformance::read_json_lines(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  expect_same_runs(runs, *back);
  // Writing it again gives the same bytes.
  EXPECT_EQ(stguard::conformance::json_lines(*back), text);
}

TEST(ConformReportJsonLines, WritesTheDocumentedFields) {
  const std::vector<ReaderRun> runs = sample_runs();
  const std::vector<std::string> lines = lines_of(stguard::conformance::json_lines(runs));
  ASSERT_EQ(lines.size(), 11u);
  const auto crash = nlohmann::json::parse(lines[5]);  // loose: json-syntax/bom
  EXPECT_EQ(crash["reader"], "loose");
  EXPECT_EQ(crash["reader_version"], "1.2.3");
  EXPECT_EQ(crash["mode"], "json");
  EXPECT_EQ(crash["case"], "json-syntax/bom");
  EXPECT_EQ(crash["group"], "json-syntax");
  EXPECT_EQ(crash["expected"], "reject");
  EXPECT_EQ(crash["grade"], "CRASH");
  EXPECT_TRUE(crash["verdict"].is_null());
  EXPECT_EQ(crash["error"], "Segmentation fault");
  EXPECT_EQ(crash["detail"], "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(crash["expectation"], "XFAIL");
  EXPECT_EQ(crash["duration_ms"], 12.25);
  EXPECT_EQ(crash["tags"], nlohmann::json::array({"tag-a", "tag-b"}));
  EXPECT_EQ(crash["description"], "description of json-syntax/bom");
  const auto pass = nlohmann::json::parse(lines[1]);  // strict: layout/canonical
  EXPECT_TRUE(pass["error"].is_null());
  EXPECT_TRUE(pass["detail"].is_null());
  EXPECT_TRUE(pass["expectation"].is_null());
  const auto skipped = nlohmann::json::parse(lines[10]);
  EXPECT_EQ(skipped, nlohmann::json::parse(R"({"reader": "absent", "reader_version": "",
      "mode": "json", "skipped": true, "skip_reason": "node not found in PATH"})"));
}

TEST(ConformReportJsonLines, SkippedReaderRoundTrips) {
  const std::vector<ReaderRun> runs = {make_skipped("gone", "version command exited with 127")};
  const auto back = stguard::conformance::read_json_lines(stguard::conformance::json_lines(runs));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  expect_same_runs(runs, *back);
  EXPECT_TRUE((*back)[0].skipped);
}

TEST(ConformReportJsonLines, InvalidUtf8IsReplacedNotThrown) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[0].results[0].reader_error = "bad \xFF\xC0\x80 bytes \xE2\x82";
  runs[0].name = "name\xFE";
  std::string text;
  ASSERT_NO_THROW(text = stguard::conformance::json_lines(runs));
  EXPECT_EQ(text.find('\xFF'), std::string::npos);
  EXPECT_EQ(text.find('\xFE'), std::string::npos);
  EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
  const auto back = stguard::conformance::read_json_lines(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ((*back)[0].name, "name\xEF\xBF\xBD");
}

TEST(ConformReportJsonLines, GarbageNamesTheLine) {
  const std::vector<ReaderRun> runs = sample_runs();
  const std::vector<std::string> good = lines_of(stguard::conformance::json_lines(runs));
  // Each bad line goes in as line 3, after a good line and a blank line.
  const std::vector<std::string> bad_lines = {
      "{not json",
      "[1, 2, 3]",
      "\"just a string\"",
      "null",
      "{}",
      R"({"reader": 7, "reader_version": "", "mode": "json"})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "case": "a/b", "group": "a",
          "expected": "reject", "grade": "SORT_OF", "verdict": null, "error": null,
          "detail": null, "expectation": null, "duration_ms": 1, "tags": [],
          "description": ""})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "case": "a/b", "group": "a",
          "expected": "reject", "grade": "PASS", "verdict": "maybe", "error": null,
          "detail": null, "expectation": null, "duration_ms": 1, "tags": [],
          "description": ""})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "case": "a/b", "group": "a",
          "expected": "reject", "grade": "PASS", "verdict": null, "error": null,
          "detail": null, "expectation": null, "duration_ms": "fast", "tags": [],
          "description": ""})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "case": "a/b", "group": "a",
          "expected": "reject", "grade": "PASS", "verdict": null, "error": null,
          "detail": null, "expectation": null, "duration_ms": 1, "tags": [1],
          "description": ""})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "skipped": "yes"})",
      R"({"reader": "x", "reader_version": "", "mode": "json", "skipped": true})",
      std::string(100000, '[') + std::string(100000, ']'),
      "{\"reader\": \"\xFF\"}",
      std::string("{\"reader\"\0: 1}", 14),
      "{\"a\": 1} {\"b\": 2}",
  };
  // Flatten the raw strings above onto one line each.
  for (std::string bad : bad_lines) {
    std::replace(bad.begin(), bad.end(), '\n', ' ');
    SCOPED_TRACE(bad.substr(0, 80));
    const std::string text = good[0] + "\n\n" + bad + "\n" + good[1] + "\n";
    std::string error;
    ASSERT_NO_THROW(error = refusal(text));
    EXPECT_EQ(error.rfind("line 3: ", 0), 0u) << error;
  }
}

TEST(ConformReportJsonLines, ConcatenatedRunsMergeByReader) {
  const std::vector<ReaderRun> runs = sample_runs();
  // The strict reader's cases split over two files, each with other readers.
  ReaderRun first = runs[0];
  ReaderRun second = runs[0];
  first.results.erase(first.results.begin() + 2, first.results.end());
  second.results.erase(second.results.begin(), second.results.begin() + 2);
  const std::vector<ReaderRun> part_a = {runs[1], second};
  const std::vector<ReaderRun> part_b = {first, runs[2], runs[2]};
  std::string text =
      stguard::conformance::json_lines(part_a) + "\r\n" + stguard::conformance::json_lines(part_b);
  const auto back = stguard::conformance::read_json_lines(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  // First-seen order: loose, strict, absent; strict's cases sorted again.
  expect_same_runs({runs[1], runs[0], runs[2]}, *back);
}

TEST(ConformReportJsonLines, SameCaseTwiceIsAnError) {
  const std::vector<ReaderRun> runs = {sample_runs()[0]};
  const std::string once = stguard::conformance::json_lines(runs);
  const std::string error = refusal(once + once);
  // The duplicate of the first case ends up on line 6 (5 cases per copy).
  EXPECT_EQ(error.rfind("line 6: ", 0), 0u) << error;
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;
}

TEST(ConformReportJsonLines, ConflictingReaderLinesAreErrors) {
  const std::vector<ReaderRun> runs = sample_runs();
  const std::string strict = stguard::conformance::json_lines(std::span(runs).first(1));
  std::vector<ReaderRun> other_version = {runs[0]};
  other_version[0].version = "9.9";
  other_version[0].results.resize(1);
  other_version[0].results[0].case_id = "zz/new";
  std::string error;
  error = refusal(strict + stguard::conformance::json_lines(other_version));
  EXPECT_EQ(error.rfind("line 6: ", 0), 0u) << error;

  std::vector<ReaderRun> skipped_strict = {make_skipped("strict", "gone")};
  skipped_strict[0].version = runs[0].version;
  error = refusal(strict + stguard::conformance::json_lines(skipped_strict));
  EXPECT_EQ(error.rfind("line 6: ", 0), 0u) << error;
}

TEST(ConformReportJsonLines, InterruptedRunKeepsItsMark) {
  std::vector<ReaderRun> runs = sample_runs();
  runs[1].interrupted = true;
  runs[1].cases_planned = 440;
  const std::string text = stguard::conformance::json_lines(runs);
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 12u);  // 5 + 5 cases + the stop + 1 skipped reader
  EXPECT_EQ(nlohmann::json::parse(lines[10]),
            nlohmann::json::parse(R"({"reader":"loose","reader_version":"1.2.3","mode":"json",)"
                                  R"("interrupted":true,"cases_planned":440})"));
  const auto back = stguard::conformance::read_json_lines(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  expect_same_runs(runs, *back);
  EXPECT_FALSE((*back)[0].interrupted);
  EXPECT_EQ(stguard::conformance::json_lines(*back), text);

  // A stop alone (no case finished) is still the reader's line.
  const std::string only_stop =
      R"({"reader":"r","reader_version":"","mode":"json","interrupted":true,"cases_planned":3})";
  const auto alone = stguard::conformance::read_json_lines(only_stop);
  ASSERT_TRUE(alone.has_value()) << alone.error().message;
  ASSERT_EQ(alone->size(), 1u);
  EXPECT_TRUE((*alone)[0].interrupted);
  EXPECT_EQ((*alone)[0].cases_planned, 3u);
  EXPECT_TRUE((*alone)[0].results.empty());

  // Broken stops are refused, naming the line and the field.
  const auto refused = [&](const std::string& input, std::string_view why) {
    const std::string error = refusal(input);
    EXPECT_NE(error.find(why), std::string::npos) << input << ": " << error;
  };
  refused(R"({"reader":"r","reader_version":"","mode":"json","interrupted":true})",
          "line 1: field \"cases_planned\" is missing");
  refused(
      R"({"reader":"r","reader_version":"","mode":"json","interrupted":true,"cases_planned":-1})",
      "field \"cases_planned\" must be a count");
  refused(
      R"({"reader":"r","reader_version":"","mode":"json","interrupted":true,"cases_planned":2.5})",
      "field \"cases_planned\" must be a count");
  refused(R"({"reader":"r","reader_version":"","mode":"json","skipped":true,"skip_reason":"x",)"
          R"("interrupted":true,"cases_planned":1})",
          "field \"interrupted\" cannot be true for a skipped reader");
  refused(
      only_stop + "\n" +
          R"({"reader":"r","reader_version":"","mode":"json","interrupted":true,"cases_planned":4})",
      "line 2: reader \"r\" stopped with another case count on line 1");
  refused(
      only_stop + "\n" +
          R"({"reader":"r","reader_version":"","mode":"json","skipped":true,"skip_reason":"x"})",
      "line 2: reader \"r\" is skipped but stopped on line 1");
  // The same stop twice (one file concatenated with itself) is one stop.
  EXPECT_EQ(refusal(only_stop + "\n" + only_stop), "");
}

TEST(ConformReportJsonLines, EmptyInputIsNoReaders) {
  const auto back = stguard::conformance::read_json_lines("\n  \n");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_TRUE(back->empty());
}

}  // namespace
