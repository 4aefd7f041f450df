// tests/cli/sarif_cli_test.cc: `check --sarif FILE` and `verify --sarif FILE`
// end to end. Each log is held to the parts of SARIF 2.1.0 that consumers
// rely on (version, one run, tool.driver with rules, results with ruleId, a
// ruleIndex that points at that rule, message.text, a location), and to the
// command's own JSON output: one result per rejected file or per finding, the
// same reason and byte offset, none for an accepted file. The rules'
// descriptions are held to the documentation they are read from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "tests/support/file_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using nlohmann::json;
using stguard_test::CliRun;
using stguard_test::entry;
using stguard_test::make_file;
using stguard_test::run_cli;
using stguard_test::TempDir;

json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

// One result: its rule (by ruleIndex, with the same id), level, message and
// location, whose base the run defines.
void expect_valid_result(json run, json result) {
  SCOPED_TRACE(result.dump());
  json& rules = run["tool"]["driver"]["rules"];
  ASSERT_TRUE(result["ruleId"].is_string());
  ASSERT_TRUE(result["ruleIndex"].is_number_unsigned());
  const std::size_t index = result["ruleIndex"];
  ASSERT_LT(index, rules.size());
  EXPECT_EQ(rules[index]["id"], result["ruleId"]);
  const std::set<std::string> levels = {"error", "warning", "note", "none"};
  EXPECT_TRUE(levels.count(result.value("level", "")));
  EXPECT_FALSE(result["message"].value("text", "").empty());
  ASSERT_EQ(result["locations"].size(), 1u);
  json& physical = result["locations"][0]["physicalLocation"];
  EXPECT_TRUE(physical["artifactLocation"]["uri"].is_string());
  // A relative uri names its base, and the run defines every base used.
  const std::string base = physical["artifactLocation"].value("uriBaseId", "");
  if (!base.empty()) {
    EXPECT_TRUE(run["originalUriBaseIds"].contains(base)) << base;
  }
  if (physical.contains("region")) {
    EXPECT_TRUE(physical["region"]["byteOffset"].is_number_unsigned());
    EXPECT_TRUE(physical["region"]["byteLength"].is_number_unsigned());
  }
}

// The structure SARIF 2.1.0 requires of what stguard writes, and the links
// between results and rules; returns the run.
json expect_valid_sarif(json log) {
  EXPECT_EQ(log.value("version", ""), "2.1.0");
  EXPECT_EQ(log.value("$schema", ""), "https://json.schemastore.org/sarif-2.1.0.json");
  EXPECT_TRUE(log["runs"].is_array() && log["runs"].size() == 1) << log.dump();
  if (!log["runs"].is_array() || log["runs"].empty()) return json::object();
  json run = log["runs"][0];
  json& driver = run["tool"]["driver"];
  EXPECT_EQ(driver.value("name", ""), "stguard");
  EXPECT_FALSE(driver.value("version", "").empty());
  EXPECT_EQ(driver.value("informationUri", "").rfind("https://", 0), 0u);
  EXPECT_TRUE(driver["rules"].is_array());
  std::set<std::string> ids;
  for (json& rule : driver["rules"]) {
    const std::string id = rule.value("id", "");
    EXPECT_FALSE(id.empty()) << rule.dump();
    EXPECT_TRUE(ids.insert(id).second) << "rule id twice: " << id;
    EXPECT_FALSE(rule.value("name", "").empty()) << id;
    EXPECT_FALSE(rule["shortDescription"].value("text", "").empty()) << id;
    EXPECT_FALSE(rule["fullDescription"].value("text", "").empty()) << id;
    EXPECT_FALSE(rule["help"].value("text", "").empty()) << id;
  }
  EXPECT_TRUE(run["results"].is_array());
  for (const json& result : run["results"]) expect_valid_result(run, result);
  for (const auto& [id, location] : run["originalUriBaseIds"].items()) {
    const std::string uri = location.value("uri", "");
    EXPECT_FALSE(uri.empty()) << id;
    if (!uri.empty()) {
      EXPECT_EQ(uri.back(), '/') << id;
    }
    // An absolute URI, or a relative one on another base.
    EXPECT_TRUE(uri.rfind("file:///", 0) == 0 || location.contains("uriBaseId")) << id << uri;
  }
  return run;
}

// The first cell of each row of the table under `## heading` in docs/PAGE,
// backticks removed: the codes the page describes.
std::set<std::string> documented_codes(const std::string& page, const std::string& heading,
                                       std::size_t column) {
  std::ifstream in(std::filesystem::path(STGUARD_SOURCE_DIR) / "docs" / page);
  std::set<std::string> codes;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## " + heading;
    if (!in_section || line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    if (cells.size() <= column) continue;
    static const std::regex kCode(R"(^ `([A-Za-z0-9_]+)` $)");
    std::smatch match;
    if (std::regex_match(cells[column], match, kCode)) codes.insert(match[1]);
  }
  return codes;
}

std::set<std::string> rule_ids(const json& run) {
  std::set<std::string> ids;
  for (const json& rule : run["tool"]["driver"]["rules"]) ids.insert(rule.value("id", ""));
  return ids;
}

// The `file` of each of check's JSON lines, to its record.
std::map<std::string, json> check_records(const std::string& out) {
  std::map<std::string, json> records;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const json record = json::parse(line);
    records[record["file"]] = record;
  }
  return records;
}

const std::string kGoodHeader = "{" + entry("a", "F32", "2", 0, 8) + "}";

TEST(SarifCli, CheckOneResultPerRejectedFileAtTheJsonOffset) {
  const TempDir dir;
  const std::string good = dir.write("good.safetensors", make_file(kGoodHeader, 8));
  const std::string gap = dir.write(
      "with gap.safetensors",
      make_file("{" + entry("a", "F32", "1", 0, 4) + "," + entry("b", "F32", "1", 8, 12) + "}",
                12));
  const std::string out_of_bounds =
      dir.write("oob.safetensors", make_file(kGoodHeader, 4));  // ends at the file's end
  const std::string not_json = dir.write("notjson.safetensors", make_file("{\"a\":", 4));
  const std::string missing = dir.file("missing.safetensors");
  const std::string log_path = dir.file("check.sarif");

  const CliRun run = run_cli(
      {"check", "--json", "--sarif", log_path, good, gap, out_of_bounds, not_json, missing});
  ASSERT_EQ(run.exit_code, 2) << run.out << run.err;  // an unreadable file
  const std::map<std::string, json> records = check_records(run.out);
  ASSERT_EQ(records.size(), 5u) << run.out;

  json run_log = expect_valid_sarif(read_json(log_path));
  EXPECT_EQ(run_log["invocations"][0]["exitCode"], 2);
  EXPECT_EQ(run_log["invocations"][0]["executionSuccessful"], false);
  std::map<std::string, json> by_uri;
  for (const json& result : run_log["results"]) {
    const json& artifact = result["locations"][0]["physicalLocation"]["artifactLocation"];
    EXPECT_FALSE(artifact.contains("uriBaseId")) << "absolute paths need no base";
    EXPECT_TRUE(by_uri.emplace(artifact["uri"], result).second) << "two results for one file";
  }
  // The paths are absolute: file URIs, the blank percent-encoded.
  ASSERT_EQ(dir.path().string().find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_.-"),
            std::string::npos);
  const auto uri = [](std::string path) {
    const std::size_t blank = path.find(' ');
    if (blank != std::string::npos) path.replace(blank, 1, "%20");
    return "file://" + path;
  };
  EXPECT_EQ(by_uri.size(), 4u) << "one result per rejected or unreadable file";
  EXPECT_EQ(by_uri.count(uri(good)), 0u) << "an accepted file has no result";
  for (const std::string& file : {gap, out_of_bounds, not_json, missing}) {
    SCOPED_TRACE(file);
    const json& record = records.at(file);
    ASSERT_EQ(by_uri.count(uri(file)), 1u);
    json result = by_uri.at(uri(file));
    EXPECT_EQ(result["ruleId"], record["reason"]);
    EXPECT_EQ(result["level"], "error");
    json physical = result["locations"][0]["physicalLocation"];
    if (record["verdict"] == "error") {
      EXPECT_EQ(result["ruleId"], "IO_ERROR");
      EXPECT_FALSE(physical.contains("region")) << "no byte of an unreadable file is at fault";
      continue;
    }
    ASSERT_TRUE(physical.contains("region")) << result.dump();
    EXPECT_EQ(physical["region"]["byteOffset"], record["offset"]);
    // The bytes a tensor claims beyond the end of the file are a point.
    EXPECT_EQ(physical["region"]["byteLength"], record["reason"] == "OFFSET_OUT_OF_BOUNDS" ? 0 : 1);
  }
  EXPECT_EQ(by_uri.at(uri(gap))["ruleId"], "OFFSET_GAP");
  EXPECT_EQ(by_uri.at(uri(out_of_bounds))["ruleId"], "OFFSET_OUT_OF_BOUNDS");
}

TEST(SarifCli, CheckRelativeNamesStayRelativeToTheWorkingDirectory) {
  const TempDir dir;
  std::filesystem::create_directory(dir.path() / "sub dir");
  dir.write("sub dir/bad.safetensors", make_file(kGoodHeader, 4));
  dir.write("good.safetensors", make_file(kGoodHeader, 8));
  stguard_test::CliRunOptions options;
  options.working_dir = dir.path().string();
  const stguard_test::CliRunAs run = stguard_test::run_cli_as(
      {"check", "--sarif", "out.sarif", "sub dir/bad.safetensors", "good.safetensors"}, options);
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  json run_log = expect_valid_sarif(read_json(dir.file("out.sarif")));
  ASSERT_EQ(run_log["results"].size(), 1u);
  json& artifact = run_log["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(artifact["uri"], "sub%20dir/bad.safetensors");
  EXPECT_EQ(artifact["uriBaseId"], "CWD");
  EXPECT_EQ(run_log["originalUriBaseIds"]["CWD"]["uri"], "file://" + dir.path().string() + "/");
  EXPECT_EQ(run_log["invocations"][0]["exitCode"], 1);
  EXPECT_EQ(run_log["invocations"][0]["executionSuccessful"], true);
}

// Every reason code is a rule, in the order of the codes, and each rule's
// description is its row of docs/reasons.md; an accepted run has no result.
TEST(SarifCli, CheckRulesAreTheReasonCodesOfDocsReasonsMd) {
  const TempDir dir;
  const std::string good = dir.write("good.safetensors", make_file(kGoodHeader, 8));
  const CliRun run = run_cli({"check", "--sarif", dir.file("out.sarif"), good});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json run_log = expect_valid_sarif(read_json(dir.file("out.sarif")));
  EXPECT_TRUE(run_log["results"].empty());
  const std::set<std::string> documented = documented_codes("reasons.md", "The codes", 1);
  ASSERT_GE(documented.size(), 23u);
  EXPECT_EQ(rule_ids(run_log), documented);
  const json& rules = run_log["tool"]["driver"]["rules"];
  EXPECT_EQ(rules[0]["id"], "HEADER_TOO_SMALL");
  for (json rule : rules) {
    // A code without its row gets its name alone as a description.
    EXPECT_NE(rule["fullDescription"]["text"], rule["id"]) << rule["id"];
    EXPECT_EQ(rule["defaultConfiguration"]["level"], "error");
  }
  EXPECT_EQ(rules[0]["shortDescription"]["text"], "The file is shorter than 8 bytes.");
}

TEST(SarifCli, VerifyFindingsMapOneToOne) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  stguard_test::write_sums(dir);
  stguard_test::truncate_file(dir.file(stguard_test::kShard3), 100);
  dir.write("model.safetensors.part", stguard_test::bytes_of("x"));
  const std::string log_path = (dir.path().parent_path() / "verify.sarif").string();
  const CliRun run = run_cli({"verify", "-q", "--json", "--sarif", log_path, dir.path().string()});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  json report = json::parse(run.out);
  json& findings = report["findings"];
  ASSERT_GE(findings.size(), 3u) << run.out;

  const json log = read_json(log_path);
  std::filesystem::remove(log_path);
  json run_log = expect_valid_sarif(log);
  EXPECT_EQ(run_log["invocations"][0]["exitCode"], 1);
  json& results = run_log["results"];
  ASSERT_EQ(results.size(), findings.size()) << "one result per finding";
  std::set<std::string> levels;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    json finding = findings[i];
    json result = results[i];
    SCOPED_TRACE(finding.dump());
    EXPECT_EQ(result["ruleId"], finding["kind"]);
    EXPECT_EQ(result["level"], finding["severity"]);
    levels.insert(result["level"]);
    EXPECT_EQ(result["message"]["text"], finding["message"]);
    const json& physical = result["locations"][0]["physicalLocation"];
    const std::string file = finding["file"];
    EXPECT_EQ(physical["artifactLocation"]["uri"], file.empty() ? "." : file);
    EXPECT_EQ(physical["artifactLocation"]["uriBaseId"], "VERIFY_DIR");
    EXPECT_EQ(result["properties"]["category"], finding["category"]);
    if (finding.contains("offset")) {
      EXPECT_EQ(physical["region"]["byteOffset"], finding["offset"]);
    } else {
      EXPECT_FALSE(physical.contains("region"));
    }
  }
  EXPECT_EQ(levels, (std::set<std::string>{"error", "warning"}));
  // DIR is absolute here: a file URI of its own.
  EXPECT_EQ(run_log["originalUriBaseIds"]["VERIFY_DIR"]["uri"],
            "file://" + dir.path().string() + "/");
}

// Every finding kind is a rule, each described by its row of docs/findings.md.
TEST(SarifCli, VerifyRulesAreTheKindsOfDocsFindingsMd) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  const std::string log_path = (dir.path().parent_path() / "rules.sarif").string();
  const CliRun run = run_cli({"verify", "-q", "--sarif", log_path, dir.path().string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json log = read_json(log_path);
  std::filesystem::remove(log_path);
  json run_log = expect_valid_sarif(log);
  EXPECT_TRUE(run_log["results"].empty());
  const std::set<std::string> documented = documented_codes("findings.md", "The kinds", 0);
  ASSERT_GE(documented.size(), 50u);
  EXPECT_EQ(rule_ids(run_log), documented);
  for (json rule : run_log["tool"]["driver"]["rules"]) {
    EXPECT_NE(rule["fullDescription"]["text"], rule["id"]) << rule["id"];
    EXPECT_TRUE(rule.contains("defaultConfiguration")) << rule["id"];
  }
}

TEST(SarifCli, VerifyThatCouldNotRunSaysSoInTheLog) {
  const TempDir dir;
  const CliRun run = run_cli({"verify", "--sarif", dir.file("out.sarif"), dir.file("absent")});
  ASSERT_EQ(run.exit_code, 2) << run.err;
  json run_log = expect_valid_sarif(read_json(dir.file("out.sarif")));
  EXPECT_TRUE(run_log["results"].empty());
  EXPECT_EQ(run_log["invocations"][0]["executionSuccessful"], false);
  ASSERT_EQ(run_log["invocations"][0]["toolExecutionNotifications"].size(), 1u);
}

// The log is written as every output file is (base/output.h): through the
// command's own stdout for /dev/stdout, and a failed write is exit status 2.
TEST(SarifCli, WrittenAsOtherOutputFiles) {
  const TempDir dir;
  const std::string bad = dir.write("bad.safetensors", make_file(kGoodHeader, 4));
  const CliRun to_stdout = run_cli({"check", "--sarif", "/dev/stdout", bad});
  EXPECT_EQ(to_stdout.exit_code, 1) << to_stdout.err;
  // The verdict line first, then the log.
  const std::size_t brace = to_stdout.out.find("\n{");
  ASSERT_NE(brace, std::string::npos) << to_stdout.out;
  EXPECT_NE(to_stdout.out.substr(0, brace).find("reject OFFSET_OUT_OF_BOUNDS"), std::string::npos)
      << to_stdout.out;
  expect_valid_sarif(json::parse(to_stdout.out.substr(brace + 1)));

  const CliRun to_dir = run_cli({"check", "--sarif", dir.path().string(), bad});
  EXPECT_EQ(to_dir.exit_code, 2);
  EXPECT_NE(to_dir.err.find("cannot write"), std::string::npos) << to_dir.err;
  const CliRun verify_to_dir =
      run_cli({"verify", "--sarif", dir.path().string(), dir.path().string()});
  EXPECT_EQ(verify_to_dir.exit_code, 2);
  EXPECT_NE(verify_to_dir.err.find("cannot write"), std::string::npos) << verify_to_dir.err;
  const CliRun empty = run_cli({"check", "--sarif", "", bad});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
}

}  // namespace
