// tests/cli/limits_cli_test.cc: the limit flags of check, inspect and adapter
// (docs/cli.md, "Limits"). Every limit can be set on the command line,
// "none" lifts it, a bad value is a usage error that states the valid range,
// and without flags each profile keeps its own defaults: strict its caps,
// reference only upstream's header cap (a 70,000-byte name and a rank-2,000
// shape are accepted by --profile reference).
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using nlohmann::json;
using stguard_test::CliRun;
using stguard_test::entry;
using stguard_test::header_at;
using stguard_test::make_file;
using stguard_test::run_cli;
using stguard_test::TempDir;

const std::vector<std::string> kLimitFlags = {"--max-header-bytes", "--max-tensors", "--max-rank",
                                              "--max-name-bytes"};
const std::vector<std::string> kParsingCommands = {"check", "inspect", "adapter"};

std::string ones(int rank) {
  std::string out = "1";
  for (int i = 1; i < rank; ++i) out += ",1";
  return out;
}

// The single JSON line of check --json or inspect --json.
json only_line(const CliRun& run) {
  json value = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(value.is_object()) << run.out;
  return value;
}

class LimitsCliTest : public ::testing::Test {
 protected:
  LimitsCliTest()
      : ranked_header_("{" + entry("t", "U8", ones(2000), 0, 1) + "}"),
        long_name_(
            dir_.write("name-70000.safetensors",
                       make_file("{" + entry(std::string(70'000, 'x'), "U8", "2", 0, 2) + "}", 2))),
        rank_2000_(dir_.write("rank-2000.safetensors", make_file(ranked_header_, 1))),
        small_(dir_.write("small.safetensors", make_file("{" + entry("a", "U8", "1", 0, 1) + "," +
                                                             entry("bb", "U8", "1,1", 1, 2) + "}",
                                                         2))) {}

  // Absolute offset of the 1025th dimension of rank_2000_.
  std::uint64_t rank_fault() const { return header_at(ranked_header_, "[") + 1 + 2 * 1024; }

  TempDir dir_;
  std::string ranked_header_;
  std::string long_name_;
  std::string rank_2000_;
  std::string small_;
};

// The limits bar (a 70,000-byte name, a rank-2,000 shape), through each
// command: the reference profile reads what
// upstream reads; strict keeps its caps and says where.
TEST_F(LimitsCliTest, ReferenceAcceptsTheBarFilesStrictRejectsThem) {
  for (const std::string& file : {long_name_, rank_2000_}) {
    SCOPED_TRACE(file);
    EXPECT_EQ(run_cli({"check", "--profile", "reference", file}).exit_code, 0);
    EXPECT_EQ(run_cli({"inspect", "--json", "--profile", "reference", file}).exit_code, 0);
    const CliRun adapter = run_cli({"adapter", "--profile", "reference", file});
    EXPECT_EQ(adapter.exit_code, 0);
    EXPECT_EQ(only_line(adapter)["verdict"], "accept");
  }
  const CliRun name = run_cli({"check", "--json", long_name_});
  EXPECT_EQ(name.exit_code, 1);
  EXPECT_EQ(only_line(name)["reason"], "LIMIT_EXCEEDED");
  EXPECT_EQ(only_line(name)["offset"], 9);
  const CliRun rank = run_cli({"inspect", "--json", rank_2000_});
  EXPECT_EQ(rank.exit_code, 1);
  EXPECT_EQ(only_line(rank)["reason"], "LIMIT_EXCEEDED");
  EXPECT_EQ(only_line(rank)["offset"], rank_fault());
  const CliRun adapter = run_cli({"adapter", rank_2000_});
  EXPECT_EQ(only_line(adapter)["verdict"], "reject");
  EXPECT_EQ(only_line(adapter)["error"].get<std::string>().rfind(
                "LIMIT_EXCEEDED at byte " + std::to_string(rank_fault()), 0),
            0U);
}

// Each flag reaches the parser, in each command and both profiles.
TEST_F(LimitsCliTest, EveryLimitFlagApplies) {
  struct Tight {
    std::string flag;
    std::string value;
    std::string reason;
  };
  // small_: tensors "a" (rank 1) and "bb" (rank 2), N = the header's length.
  const std::vector<Tight> tight = {{"--max-tensors", "1", "LIMIT_EXCEEDED"},
                                    {"--max-rank", "1", "LIMIT_EXCEEDED"},
                                    {"--max-name-bytes", "1", "LIMIT_EXCEEDED"},
                                    {"--max-header-bytes", "8", "HEADER_TOO_LARGE"}};
  for (const Tight& t : tight) {
    for (const char* profile : {"strict", "reference"}) {
      SCOPED_TRACE(t.flag + " " + profile);
      const CliRun check =
          run_cli({"check", "--json", "--profile", profile, t.flag, t.value, small_});
      EXPECT_EQ(check.exit_code, 1);
      EXPECT_EQ(only_line(check)["reason"], t.reason);
      const CliRun inspect =
          run_cli({"inspect", "--json", "--profile", profile, t.flag + "=" + t.value, small_});
      EXPECT_EQ(inspect.exit_code, 1);
      EXPECT_EQ(only_line(inspect)["reason"], t.reason);
      const CliRun adapter = run_cli({"adapter", "--profile", profile, t.flag, t.value, small_});
      EXPECT_EQ(adapter.exit_code, 0);
      EXPECT_EQ(only_line(adapter)["error"].get<std::string>().rfind(t.reason, 0), 0U);
      // One more and the file is within the limit.
      const std::string looser = std::to_string(std::stoull(t.value) + 1);
      EXPECT_EQ(run_cli({"check", "--profile", profile, t.flag,
                         t.flag == "--max-header-bytes" ? std::string("1000") : looser, small_})
                    .exit_code,
                0);
    }
  }
}

// "none" lifts strict's caps; an explicit number caps the reference profile.
TEST_F(LimitsCliTest, NoneLiftsAndNumbersCap) {
  EXPECT_EQ(run_cli({"check", "--max-name-bytes", "none", long_name_}).exit_code, 0);
  EXPECT_EQ(run_cli({"inspect", "--max-rank=none", rank_2000_}).exit_code, 0);
  EXPECT_EQ(only_line(run_cli({"adapter", "--max-rank", "none", rank_2000_}))["verdict"], "accept");
  EXPECT_EQ(
      run_cli({"check", "--max-tensors", "none", "--max-header-bytes", "none", small_}).exit_code,
      0);
  const CliRun capped =
      run_cli({"check", "--json", "--profile", "reference", "--max-rank", "1024", rank_2000_});
  EXPECT_EQ(capped.exit_code, 1);
  EXPECT_EQ(only_line(capped)["offset"], rank_fault());
  EXPECT_EQ(
      run_cli({"check", "--profile", "reference", "--max-rank", "2000", rank_2000_}).exit_code, 0);
}

// A bad value is a usage error naming the flag and the valid range.
TEST_F(LimitsCliTest, BadValuesAreUsageErrorsWithTheRange) {
  for (const std::string& command : kParsingCommands) {
    for (const std::string& flag : kLimitFlags) {
      for (const char* bad : {"", "-1", "1.5", "0x10", "NONE", "18446744073709551616", "1e3"}) {
        SCOPED_TRACE(command + " " + flag + " '" + bad + "'");
        const CliRun r = run_cli({command, flag, bad, small_});
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.out, "");
        EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
        // An empty value is refused before its range is looked at, as for
        // every option that takes a value.
        EXPECT_NE(r.err.find(*bad == '\0' ? std::string("needs a value, not an empty one")
                                          : std::string("[0, 18446744073709551615] or 'none'")),
                  std::string::npos)
            << r.err;
      }
      // The ends of the range are accepted.
      EXPECT_EQ(run_cli({command, flag, "18446744073709551615", small_}).exit_code, 0)
          << command << " " << flag;
      EXPECT_EQ(run_cli({command, flag + "=none", small_}).exit_code, 0) << command << " " << flag;
    }
  }
}

// --help of each command lists every limit flag with both profiles' defaults.
TEST_F(LimitsCliTest, HelpListsEveryLimitWithItsDefaults) {
  for (const std::string& command : kParsingCommands) {
    const CliRun help = run_cli({command, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    for (const std::string& flag : kLimitFlags) {
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << " " << flag;
    }
    EXPECT_NE(help.out.find("strict 1024, reference none"), std::string::npos) << command;
    EXPECT_NE(help.out.find("strict 65536, reference none"), std::string::npos) << command;
    EXPECT_NE(help.out.find("strict 10000000, reference none"), std::string::npos) << command;
  }
}

}  // namespace
