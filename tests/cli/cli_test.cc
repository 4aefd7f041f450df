// tests/cli/cli_test.cc: runs the built stguard command (STGUARD_CLI_PATH, set by
// tests/cli/CMakeLists.txt) on files made by hand and holds
// its exit codes and output to the CLI contract in docs/cli.md. Message text is
// never compared, only what the contract fixes: exit status, JSON keys and
// values, reason names and offsets.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stguard/stguard.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

extern char** environ;  // NOLINT: POSIX, for posix_spawn

namespace {

using nlohmann::json;
using stguard_test::CliRun;
using stguard_test::FileBuilder;
using stguard_test::run_cli;
using stguard_test::TempDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every stdout line parsed as one JSON object.
std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  for (const std::string& line : lines_of(text)) {
    json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(value.is_object()) << "not a JSON object line: " << line;
    out.push_back(std::move(value));
  }
  return out;
}

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

const std::set<std::string> kRejectKeys = {"file",   "verdict", "profile",
                                           "reason", "offset",  "message"};
const std::set<std::string> kAcceptKeys = {"file",    "verdict", "profile",    "reason",  "offset",
                                           "message", "tensors", "header_len", "data_len"};

// Seed 000's example: a F32 [2] at [0,8), b I64 [1] at [8,16); 108 bytes of
// JSON, padded to N = 112, so the data buffer starts at byte 120.
constexpr const char* kSeedHeader = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                    R"("b":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}})";

// U8 tensors at [0,2) and [3,5): a hole at data byte 2.
constexpr const char* kGapHeader = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                   R"("b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})";

class CliTest : public ::testing::Test {
 protected:
  std::string valid_file() {
    return dir_.write("valid.safetensors",
                      FileBuilder(kSeedHeader).pad_to_8().data_size(16).build());
  }
  std::string gap_file() {
    return dir_.write("gap.safetensors", FileBuilder(kGapHeader).data_size(5).build());
  }
  std::uint64_t gap_offset() const {
    return 8 + std::string_view(kGapHeader).size() + 2;  // 8 + N + end of a
  }
  std::string missing_file() const { return dir_.file("does-not-exist.safetensors"); }

  TempDir dir_;
};

TEST_F(CliTest, TopLevelHelpAndVersion) {
  for (const char* arg : {"--help", "-h", "help"}) {
    const CliRun r = run_cli({arg});
    EXPECT_EQ(r.exit_code, 0) << arg;
    EXPECT_NE(r.out.find("check"), std::string::npos) << arg;
    EXPECT_NE(r.out.find("inspect"), std::string::npos) << arg;
  }
  const CliRun version = run_cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("stguard ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("\nSIMD path: "), std::string::npos) << version.out;
  // The build tree's command finds the source tree it was built from; the
  // environment wins over it, and a wrong one is named.
  EXPECT_NE(version.out.find("\ndata: " STGUARD_SOURCE_DIR " (source tree)\n"), std::string::npos)
      << version.out;
  const CliRun from_env = run_cli({"--version"}, {{"STGUARD_DATA_DIR", STGUARD_SOURCE_DIR}});
  EXPECT_NE(from_env.out.find("\ndata: " STGUARD_SOURCE_DIR " (STGUARD_DATA_DIR)\n"),
            std::string::npos)
      << from_env.out;
  const CliRun wrong = run_cli({"--version"}, {{"STGUARD_DATA_DIR", "/nonexistent"}});
  EXPECT_EQ(wrong.exit_code, 0);
  EXPECT_NE(wrong.out.find("\ndata: none: STGUARD_DATA_DIR=/nonexistent holds no stguard data"),
            std::string::npos)
      << wrong.out;
}

TEST_F(CliTest, SimdPathFromTheEnvironment) {
  const CliRun forced = run_cli({"--version"}, {{"STGUARD_SIMD", "baseline"}});
  EXPECT_EQ(forced.exit_code, 0);
  EXPECT_NE(forced.out.find("SIMD path: baseline ("), std::string::npos) << forced.out;
  // A typo is refused rather than taken silently as auto.
  const CliRun typo = run_cli({"check", "x.safetensors"}, {{"STGUARD_SIMD", "avx-512"}});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("STGUARD_SIMD must be auto, baseline, avx2 or avx512, not 'avx-512'"),
            std::string::npos)
      << typo.err;
}

TEST_F(CliTest, SubcommandHelp) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"check", "--help"},
                                               {"inspect", "--help"},
                                               {"check", "-h"},
                                               {"help", "check"},
                                               {"help", "inspect"},
                                               {"help", "check", "--help"},
                                               {"help", "conform", "report", "-h"}}) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[1];
    EXPECT_NE(r.out.find("usage"), std::string::npos) << args[0] << " " << args[1];
  }
}

TEST_F(CliTest, UsageErrorsExitTwoWithoutOutputOnStdout) {
  const std::string valid = valid_file();
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"--bogus"},
      {"help", "frobnicate"},
      {"check"},
      {"check", "--json"},
      {"check", "--bogus", valid},
      {"check", "--profile", "lenient", valid},
      {"check", "--profile"},
      {"check", "--json=yes", valid},
      {"inspect"},
      {"inspect", valid, valid},
      {"inspect", "--bogus", valid},
      {"inspect", "--profile", "STRICT", valid},
      // A command that only groups others, named alone.
      {"corpus"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << joined;
    EXPECT_EQ(r.out, "") << joined;
    EXPECT_NE(r.err, "") << joined;
  }
}

// CLI11's own texts once leaked through: "json was given a disallowed flag
// override", "not expected: x --adaptor" (its words reversed), no hint.
TEST_F(CliTest, UsageErrorsNameTheWordAsTypedWithTheNearestName) {
  const std::string valid = valid_file();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"check", "--json=yes", valid}, "stguard check: --json is a flag: it takes no value\n"},
      {{"conform", "--adaptor", "foo", "x"},
       "stguard conform: unknown option '--adaptor' (did you mean '--adapter'?)\n"},
      {{"check", "--jsn", valid},
       "stguard check: unknown option '--jsn' (did you mean '--json'?)\n"},
      {{"check", "--profile"}, "stguard check: --profile needs a value\n"},
      {{"hunt", "--reader", "safetensors-npm", "stray"},
       "stguard hunt: unexpected argument 'stray'\n"},
      {{"corpus", "build", "--out", ""},
       "stguard corpus build: --out needs a value, not an empty one\n"},
      {{"chek", valid}, "stguard: unknown command 'chek' (did you mean 'check'?)\n"},
      {{"help", "chek"}, "stguard help: unknown command 'chek' (did you mean 'check'?)\n"},
      // CLI11 once said "At Most 1 required but received 2", and no "did you
      // mean" came for a mistyped subcommand.
      {{"check", "--sarif", "a", "--sarif", "b", valid},
       "stguard check: --sarif was given more than once; give it once\n"},
      {{"corpus", "bild"},
       "stguard corpus: unknown command 'corpus bild' (did you mean 'corpus build'?)\n"},
      {{"hunt", "promot", "x"},
       "stguard hunt: unknown command 'hunt promot' (did you mean 'hunt promote'?)\n"},
      // `--x=` never takes the next word as its value.
      {{"check", "--sarif=", valid, valid},
       "stguard check: --sarif needs a value, not an empty one ('--sarif=' gives none)\n"},
      {{"check", "--json=", valid}, "stguard check: --json is a flag: it takes no value\n"},
  };
  for (const auto& [args, first_line] : cases) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << first_line;
    EXPECT_EQ(r.out, "") << first_line;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), first_line);
  }
}

// A mistyped --case once vanished behind one that matched.
TEST_F(CliTest, ConformFiltersThatSelectNothingAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--case", "layout/gap*", "--case", "layout/nope*"},
       "--case 'layout/nope*' matches no case"},
      {{"--tag", "no-such-tag"}, "--tag 'no-such-tag' matches no case"},
      {{"--case", "layout/gap*", "--tag", "ref:dtype-table"},
       "--case 'layout/gap*' matches no case with the --tag given"},
  };
  for (const auto& [filters, why] : cases) {
    std::vector<std::string> args = {"conform", "--reader", "stguard-strict", "-q"};
    args.insert(args.end(), filters.begin(), filters.end());
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << why;
    EXPECT_EQ(r.out, "") << why;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "stguard conform: " + why);
  }
}

TEST_F(CliTest, ConformReportNamesTheInputAtFault) {
  const std::string good = dir_.file("good.jsonl");
  ASSERT_EQ(run_cli({"conform", "--reader", "stguard-strict", "-q", "--case", "layout/gap*",
                     "--jsonl", good})
                .exit_code,
            0);
  const std::string bad = dir_.write("bad.jsonl", std::vector<std::uint8_t>{'{', '"', 'x', '\n'});
  const CliRun r = run_cli({"conform", "report", good, bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("stguard conform report: " + bad + " line 1: ", 0), 0u) << r.err;
  // Two files that disagree are both named (the message once said "line 2:
  // ... already on line 1", naming neither).
  const CliRun twice = run_cli({"conform", "report", good, good});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find(good + " line 1"), std::string::npos) << twice.err;
}

// Recipes that cannot be read are work not done (exit 2), not recipes found
// wrong (exit 1).
TEST_F(CliTest, UnreadableRecipesExitTwoWithThePath) {
  const std::string missing = dir_.file("no-recipes");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"corpus", "list", "--recipes", missing},
        std::vector<std::string>{"corpus", "build", "--recipes", missing, "--out",
                                 dir_.file("out")}}) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_EQ(r.err, "stguard corpus " + args[1] + ": cannot read " + missing +
                         "/vocabulary.txt: No such file or directory\n");
  }
}

TEST_F(CliTest, MaxHeaderBytesIsParsedStrictly) {
  const std::string valid = valid_file();
  for (const char* bad : {"", "12a", "-1", "+5", " 5", "5 ", "0x10", "1e3", "18446744073709551616",
                          "99999999999999999999999"}) {
    const CliRun r = run_cli({"check", "--max-header-bytes", bad, valid});
    EXPECT_EQ(r.exit_code, 2) << "'" << bad << "'";
    EXPECT_EQ(r.out, "") << "'" << bad << "'";
  }
  EXPECT_EQ(run_cli({"check", "--max-header-bytes", "18446744073709551615", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", "--max-header-bytes=112", valid}).exit_code, 0);
}

TEST_F(CliTest, MaxHeaderBytesApplies) {
  const std::string valid = valid_file();  // N = 112
  const CliRun over = run_cli({"check", "--json", "--max-header-bytes", "111", valid});
  EXPECT_EQ(over.exit_code, 1);
  const std::vector<json> lines = json_lines(over.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["reason"], "HEADER_TOO_LARGE");
  EXPECT_EQ(lines[0]["offset"], 0);

  const CliRun at_limit = run_cli({"check", "--json", "--max-header-bytes", "112", valid});
  EXPECT_EQ(at_limit.exit_code, 0);
  ASSERT_EQ(json_lines(at_limit.out).size(), 1u);
  EXPECT_EQ(json_lines(at_limit.out)[0]["verdict"], "accept");
}

TEST_F(CliTest, CheckJsonAccept) {
  const std::string valid = valid_file();
  const CliRun r = run_cli({"check", "--json", valid});
  EXPECT_EQ(r.exit_code, 0);
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  const json& v = lines[0];
  EXPECT_EQ(keys_of(v), kAcceptKeys);
  EXPECT_EQ(v["file"], valid);
  EXPECT_EQ(v["verdict"], "accept");
  EXPECT_EQ(v["profile"], "strict");
  EXPECT_TRUE(v["reason"].is_null());
  EXPECT_TRUE(v["offset"].is_null());
  EXPECT_EQ(v["tensors"], 2);
  EXPECT_EQ(v["header_len"], 112);
  EXPECT_EQ(v["data_len"], 16);
}

TEST_F(CliTest, CheckJsonReject) {
  const std::string gap = gap_file();
  const CliRun r = run_cli({"check", "--json", gap});
  EXPECT_EQ(r.exit_code, 1);
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  const json& v = lines[0];
  EXPECT_EQ(keys_of(v), kRejectKeys);
  EXPECT_EQ(v["file"], gap);
  EXPECT_EQ(v["verdict"], "reject");
  EXPECT_EQ(v["profile"], "strict");
  EXPECT_EQ(v["reason"], "OFFSET_GAP");
  EXPECT_EQ(v["offset"], gap_offset());
  EXPECT_TRUE(v["message"].is_string());
}

// check and inspect --json: a file name that is not UTF-8 gets "file_hex"
// with its bytes; a UTF-8 name gets none.
TEST_F(CliTest, JsonFileNamesThatAreNotUtf8CarryTheirBytes) {
  const std::vector<std::uint8_t> bytes = FileBuilder(kSeedHeader).pad_to_8().data_size(16).build();
  const std::string a = dir_.write("a\xff", bytes);
  const std::string b = dir_.write("a\xfe", bytes);
  const std::string good = valid_file();
  // The bytes of a path are its characters' codes, as lower-case hex.
  const auto hex_of = [](const std::string& path) {
    std::string out;
    for (const char c : path) {
      out += "0123456789abcdef"[static_cast<unsigned char>(c) >> 4];
      out += "0123456789abcdef"[static_cast<unsigned char>(c) & 15];
    }
    return out;
  };
  const CliRun check = run_cli({"check", "--json", a, b, good});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const std::vector<json> records = json_lines(check.out);
  ASSERT_EQ(records.size(), 3U) << check.out;
  EXPECT_EQ(records[0].value("file_hex", ""), hex_of(a));
  EXPECT_EQ(records[1].value("file_hex", ""), hex_of(b));
  EXPECT_EQ(records[0]["file"], records[1]["file"]);  // the display forms alone collide
  EXPECT_FALSE(records[2].contains("file_hex"));

  const CliRun inspect = run_cli({"inspect", "--json", a});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_EQ(json::parse(inspect.out).value("file_hex", ""), hex_of(a));
  const CliRun plain = run_cli({"inspect", "--json", good});
  EXPECT_FALSE(json::parse(plain.out).contains("file_hex"));
}

TEST_F(CliTest, CheckOneLinePerFileInOrderAndIoErrors) {
  const std::string valid = valid_file();
  const std::string gap = gap_file();
  const std::string missing = missing_file();
  std::filesystem::create_directory(dir_.file("a-directory"));
  const std::string directory = dir_.file("a-directory");

  const CliRun r = run_cli({"check", "--json", valid, gap, missing, directory, valid});
  EXPECT_EQ(r.exit_code, 2);  // an unopenable file wins over a rejection
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 5u);
  const char* expected_verdicts[] = {"accept", "reject", "error", "error", "accept"};
  const std::string files[] = {valid, gap, missing, directory, valid};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(lines[i]["file"], files[i]) << i;
    EXPECT_EQ(lines[i]["verdict"], expected_verdicts[i]) << i;
  }
  for (std::size_t i : {2u, 3u}) {
    EXPECT_EQ(keys_of(lines[i]), kRejectKeys) << i;
    EXPECT_EQ(lines[i]["reason"], "IO_ERROR") << i;
    EXPECT_TRUE(lines[i]["offset"].is_null()) << i;
  }
}

TEST_F(CliTest, CheckExitCodes) {
  const std::string valid = valid_file();
  const std::string gap = gap_file();
  EXPECT_EQ(run_cli({"check", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", valid, valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", gap}).exit_code, 1);
  EXPECT_EQ(run_cli({"check", valid, gap}).exit_code, 1);
  EXPECT_EQ(run_cli({"check", missing_file()}).exit_code, 2);
  EXPECT_EQ(run_cli({"check", gap, missing_file()}).exit_code, 2);
  EXPECT_EQ(run_cli({"check", "--", valid}).exit_code, 0);
  // Why the status is 2 is said on stderr too, naming the file: the
  // verdicts on stdout may be going to a script.
  const CliRun missing = run_cli({"check", "--json", valid, missing_file()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            "stguard check: could not read " + missing_file() + " (IO_ERROR, exit 2)\n");
  const CliRun inspected = run_cli({"inspect", missing_file()});
  EXPECT_EQ(inspected.err,
            "stguard inspect: could not read " + missing_file() + " (IO_ERROR, exit 2)\n");
}

TEST_F(CliTest, CheckTextNamesVerdictReasonAndOffset) {
  const std::string valid = valid_file();
  const std::string gap = gap_file();
  const CliRun r = run_cli({"check", valid, gap, missing_file()});
  EXPECT_EQ(r.exit_code, 2);
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find(valid), std::string::npos);
  EXPECT_NE(lines[0].find("accept"), std::string::npos);
  EXPECT_NE(lines[1].find(gap), std::string::npos);
  EXPECT_NE(lines[1].find("reject"), std::string::npos);
  EXPECT_NE(lines[1].find("OFFSET_GAP"), std::string::npos);
  EXPECT_NE(lines[1].find(std::to_string(gap_offset())), std::string::npos);
  EXPECT_NE(lines[2].find("IO_ERROR"), std::string::npos);
}

TEST_F(CliTest, ReferenceProfileAcceptsWhatStrictRejects) {
  // Leading whitespace before '{' is contested: upstream accepts it.
  const std::string contested =
      dir_.write("leading-space.safetensors",
                 FileBuilder(std::string(" ") + kSeedHeader).data_size(16).build());
  const CliRun strict = run_cli({"check", "--json", contested});
  EXPECT_EQ(strict.exit_code, 1);
  ASSERT_EQ(json_lines(strict.out).size(), 1u);
  EXPECT_EQ(json_lines(strict.out)[0]["reason"], "HEADER_BAD_START");
  EXPECT_EQ(json_lines(strict.out)[0]["offset"], 8);

  const CliRun reference = run_cli({"check", "--json", "--profile", "reference", contested});
  EXPECT_EQ(reference.exit_code, 0);
  const std::vector<json> lines = json_lines(reference.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["verdict"], "accept");
  EXPECT_EQ(lines[0]["profile"], "reference");
  EXPECT_EQ(lines[0]["tensors"], 2);

  EXPECT_EQ(run_cli({"check", "--profile=reference", contested}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", "--profile", "strict", contested}).exit_code, 1);
}

// Lint codes of an inspect --json object.
std::multiset<std::string> lint_codes(const json& v) {
  std::multiset<std::string> codes;
  for (const json& lint : v["lints"]) codes.insert(lint["code"].get<std::string>());
  return codes;
}

TEST_F(CliTest, InspectJsonShowsRelativeAndAbsoluteRanges) {
  const CliRun r = run_cli({"inspect", "--json", valid_file()});
  EXPECT_EQ(r.exit_code, 0);
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  const json& v = lines[0];
  EXPECT_EQ(v["verdict"], "accept");
  EXPECT_EQ(v["header_len"], 112);
  EXPECT_EQ(v["data_offset"], 120);
  EXPECT_TRUE(v["metadata"].is_null());
  ASSERT_EQ(v["tensors"].size(), 2u);
  const json& a = v["tensors"][0];
  const json& b = v["tensors"][1];
  EXPECT_EQ(a["name"], "a");
  EXPECT_EQ(a["dtype"], "F32");
  EXPECT_EQ(a["shape"], json::array({2}));
  EXPECT_EQ(a["data_offsets"], json::array({0, 8}));
  EXPECT_EQ(a["absolute_offsets"], json::array({120, 128}));
  EXPECT_EQ(a["bytes"], 8);
  EXPECT_EQ(b["name"], "b");
  EXPECT_EQ(b["data_offsets"], json::array({8, 16}));
  EXPECT_EQ(b["absolute_offsets"], json::array({128, 136}));
  // The upstream writer puts I64 before F32; nothing else is unusual.
  EXPECT_EQ(lint_codes(v), std::multiset<std::string>{"NON_CANONICAL_ORDER"});
}

TEST_F(CliTest, InspectLintsAreWarningsNotRejections) {
  // Unpadded: N = 108, data at byte 116, so I64 b starts at 124 (not 8-aligned).
  const std::string unaligned =
      dir_.write("unaligned.safetensors", FileBuilder(kSeedHeader).data_size(16).build());
  const CliRun r = run_cli({"inspect", "--json", unaligned});
  EXPECT_EQ(r.exit_code, 0);
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(
      lint_codes(lines[0]),
      (std::multiset<std::string>{"HEADER_NOT_ALIGNED", "DATA_MISALIGNED", "NON_CANONICAL_ORDER"}));
  for (const json& lint : lines[0]["lints"]) {
    if (lint["code"] == "DATA_MISALIGNED") {
      EXPECT_EQ(lint["tensor"], "b");
    }
  }
  EXPECT_EQ(run_cli({"check", unaligned}).exit_code, 0);

  // The data in canonical order (a, then b), the header listing b first.
  const std::string out_of_order =
      dir_.write("out-of-order.safetensors",
                 FileBuilder(R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                             R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})")
                     .pad_to_8()
                     .data_size(2)
                     .build());
  const CliRun o = run_cli({"inspect", "--json", out_of_order});
  EXPECT_EQ(o.exit_code, 0);
  ASSERT_EQ(json_lines(o.out).size(), 1u);
  EXPECT_EQ(lint_codes(json_lines(o.out)[0]), std::multiset<std::string>{"OFFSETS_NOT_IN_ORDER"});
  // The header in canonical order, the data not: canonical order is judged
  // on the data (as writer grading judges it), so both lints.
  const std::string data_out_of_order =
      dir_.write("data-out-of-order.safetensors",
                 FileBuilder(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                             R"("b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})")
                     .pad_to_8()
                     .data_size(2)
                     .build());
  const CliRun d = run_cli({"inspect", "--json", data_out_of_order});
  ASSERT_EQ(json_lines(d.out).size(), 1u);
  EXPECT_EQ(lint_codes(json_lines(d.out)[0]),
            (std::multiset<std::string>{"NON_CANONICAL_ORDER", "OFFSETS_NOT_IN_ORDER"}));
}

TEST_F(CliTest, InspectCanonicalWriterOutputHasNoLints) {
  const std::vector<std::uint8_t> a_bytes(8, 1);
  const std::vector<std::uint8_t> b_bytes(8, 2);
  const std::vector<stguard::TensorToWrite> tensors = {{"a", stguard::Dtype::kF32, {2}, a_bytes},
                                                       {"b", stguard::Dtype::kI64, {1}, b_bytes}};
  const stguard::Result<std::vector<std::uint8_t>> file =
      stguard::write_safetensors(tensors, {{"format", "pt"}});
  ASSERT_TRUE(file.has_value()) << file.error().to_string();
  const std::string path = dir_.write("canonical.safetensors", *file);
  const CliRun r = run_cli({"inspect", "--json", path});
  EXPECT_EQ(r.exit_code, 0);
  const std::vector<json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0]["lints"].empty()) << lines[0]["lints"].dump();
  EXPECT_EQ(lines[0]["metadata"], json({{"format", "pt"}}));
  ASSERT_EQ(lines[0]["tensors"].size(), 2u);
  EXPECT_EQ(lines[0]["tensors"][0]["name"], "b");  // I64 first, as written
}

TEST_F(CliTest, InspectTextTableHasBothRanges) {
  const CliRun r = run_cli({"inspect", valid_file()});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("[0,8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[120,128)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[128,136)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NON_CANONICAL_ORDER"), std::string::npos) << r.out;
}

TEST_F(CliTest, InspectRejectedAndUnreadableFiles) {
  const CliRun rejected = run_cli({"inspect", "--json", gap_file()});
  EXPECT_EQ(rejected.exit_code, 1);
  const std::vector<json> lines = json_lines(rejected.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(keys_of(lines[0]), kRejectKeys);
  EXPECT_EQ(lines[0]["reason"], "OFFSET_GAP");
  EXPECT_EQ(lines[0]["offset"], gap_offset());

  const CliRun text = run_cli({"inspect", gap_file()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("OFFSET_GAP"), std::string::npos);
  EXPECT_NE(text.out.find(std::to_string(gap_offset())), std::string::npos);

  const CliRun missing = run_cli({"inspect", "--json", missing_file()});
  EXPECT_EQ(missing.exit_code, 2);
  ASSERT_EQ(json_lines(missing.out).size(), 1u);
  EXPECT_EQ(json_lines(missing.out)[0]["reason"], "IO_ERROR");
  EXPECT_EQ(run_cli({"inspect", dir_.path().string()}).exit_code, 2);
}

TEST_F(CliTest, TextOutputNeverPrintsRawControlCharacters) {
  // A tensor name with ESC and a bidi override (legal JSON escapes).
  const std::string header =
      R"({"\u001b[2Jevil\u202e":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  const std::string bad_header =  // SIZE_MISMATCH: the message may name the tensor
      R"({"\u001b[2Jevil\u202e":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}})";
  const std::string accepted =
      dir_.write("escape.safetensors", FileBuilder(header).pad_to_8().data_size(1).build());
  const std::string rejected =
      dir_.write("escape-bad.safetensors", FileBuilder(bad_header).pad_to_8().data_size(1).build());
  for (const std::vector<std::string>& args : {std::vector<std::string>{"inspect", accepted},
                                               {"check", accepted},
                                               {"check", rejected},
                                               {"inspect", rejected}}) {
    const CliRun r = run_cli(args);
    EXPECT_LE(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args[0] << ": " << r.out;
    EXPECT_EQ(r.out.find("\u202e"), std::string::npos) << args[0] << ": " << r.out;
  }
  // JSON keeps the exact name.
  const CliRun j = run_cli({"inspect", "--json", accepted});
  ASSERT_EQ(json_lines(j.out).size(), 1u);
  EXPECT_EQ(json_lines(j.out)[0]["tensors"][0]["name"], "\x1b[2Jevil\u202e");
}

// What a rejected file really is, in check and inspect, text and JSON: the
// reason, offset and exit status stay the parser's; "content" and "hint" (and
// "; this is ..." in text) say what the file is and what to do.
TEST_F(CliTest, RejectedFilesThatAreNotSafetensorsAreNamed) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* content;
    const char* hint_mentions;
  };
  const std::vector<Case> cases = {
      {"lfs",
       "version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') +
           "\nsize 548105171\n",
       "git_lfs_pointer", "548105171"},
      {"html", "<!DOCTYPE html><html><head><title>Access denied</title>", "html_page",
       "Access denied"},
      {"json", R"({"error":"Repository Not Found"})", "json_text", "Repository Not Found"},
      {"zip", std::string("PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0", 16), "zip_archive", "PyTorch"},
      {"pickle", std::string("\x80\x02}q\0(X\x01\0\0\0aq\x01", 14), "pickle", "pickle"},
      {"gguf", std::string("GGUF\x03\0\0\0\0\0\0\0\0\0\0\0", 16), "gguf", "GGUF"},
      {"zeros", std::string(8192, '\0'), "zeros", "zero bytes"},
  };
  for (const Case& c : cases) {
    const std::string file = dir_.write(
        std::string(c.name) + ".safetensors",
        std::span(reinterpret_cast<const std::uint8_t*>(c.bytes.data()), c.bytes.size()));
    for (const char* command : {"check", "inspect"}) {
      const CliRun j = run_cli({command, "--json", file});
      EXPECT_EQ(j.exit_code, 1) << c.name << " " << command;
      const std::vector<json> lines = json_lines(j.out);
      ASSERT_EQ(lines.size(), 1u) << c.name;
      EXPECT_EQ(lines[0]["verdict"], "reject") << c.name;
      EXPECT_EQ(lines[0]["content"], c.content) << c.name << " " << command;
      EXPECT_NE(lines[0]["hint"].get<std::string>().find(c.hint_mentions), std::string::npos)
          << c.name << ": " << lines[0]["hint"];
      const CliRun t = run_cli({command, file});
      EXPECT_EQ(t.exit_code, 1) << c.name;
      EXPECT_NE(t.out.find("; this is "), std::string::npos) << c.name << ": " << t.out;
      EXPECT_NE(t.out.find(c.hint_mentions), std::string::npos) << c.name << ": " << t.out;
    }
  }
  // An ordinary damaged safetensors file gets no such note.
  const CliRun gap = run_cli({"check", "--json", gap_file()});
  ASSERT_EQ(json_lines(gap.out).size(), 1u);
  EXPECT_EQ(keys_of(json_lines(gap.out)[0]), kRejectKeys);
}

// Every subcommand takes --opt=value and "--", and help reaches every command.
TEST_F(CliTest, OptionConventionsHoldInEverySubcommand) {
  const std::string valid = valid_file();
  EXPECT_EQ(run_cli({"check", "--profile=reference", "--", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"check", valid, "--", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"inspect", "--max-header-bytes=112", "--", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"adapter", "--profile=strict", "--", valid}).exit_code, 0);
  EXPECT_EQ(run_cli({"verify", "--hash-io=mmap", "--", dir_.path().string()}).exit_code, 0);
  for (const char* command : {"check", "inspect", "verify", "adapter", "corpus", "conform"}) {
    const CliRun help = run_cli({"help", command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_EQ(help.out.rfind("usage: stguard ", 0), 0u) << command << ": " << help.out;
  }
  // A file named like a command is a file.
  const std::string named =
      dir_.write("inspect", FileBuilder(kSeedHeader).pad_to_8().data_size(16).build());
  EXPECT_EQ(run_cli({"check", named}).exit_code, 0);
}

}  // namespace
