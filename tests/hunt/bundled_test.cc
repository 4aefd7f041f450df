// tests/hunt/bundled_test.cc: a short, deterministic `stguard hunt` against the
// bundled safetensors-npm reader (the ctest entry hunt.bundled, label conform,
// beside conform.bundled: both need the JavaScript readers). It must find
// divergences, write each bucket's file, and each file graded again, through
// the same reader, must land in the same bucket: what the hunt writes is a
// reproducible finding, not an accident of the run.
//
// Without `npm ci` (ci/setup-readers.sh) the test is skipped, unless
// STGUARD_REQUIRE_READERS=1 (set by ci/test.sh) makes it a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "conformance/hunt/engine.h"
#include "conformance/hunt/oracle.h"
#include "conformance/hunt/signature.h"
#include "conformance/runner/grader.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
namespace conf = stguard::conformance;

const fs::path kReaderDir = fs::path(STGUARD_ADAPTERS_DIR) / "safetensors-npm";

bool readers_required() {
  const char* value = std::getenv("STGUARD_REQUIRE_READERS");
  return value != nullptr && std::string(value) == "1";
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>());
}

TEST(HuntBundled, ASeededHuntAgainstSafetensorsNpmFindsReproducibleBuckets) {
  const auto spec = conf::load_reader_dir(kReaderDir, STGUARD_CLI_PATH);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_FALSE(spec->persistent_command.empty());
  const conf::ReaderProbe probe = conf::probe_reader(*spec);
  if (!probe.available) {
    if (readers_required()) FAIL() << "safetensors-npm cannot run: " << probe.reason;
    GTEST_SKIP() << "safetensors-npm is not installed (run ci/setup-readers.sh): " << probe.reason;
  }

  const stguard_test::TempDir dir;
  const fs::path out = dir.path() / "hunt";
  // --runs, not --seconds: the same files on every machine. Few minimising
  // runs keep the entry short; the buckets are what it checks.
  const stguard_test::CliRun run = stguard_test::run_cli(
      {"hunt", "--reader", kReaderDir.string(), "--runs", "1500", "--seed", "16", "-j", "2",
       "--minimise-runs", "20", "--corpus", STGUARD_CORPUS_DIR, "--out", out.string(), "-q"});
  ASSERT_EQ(run.exit_code, 1) << run.err << run.out;  // divergences found

  std::vector<nlohmann::json> findings;
  std::ifstream in(out / "findings.jsonl");
  for (std::string line; std::getline(in, line);) findings.push_back(nlohmann::json::parse(line));
  ASSERT_FALSE(findings.empty());

  conf::PersistentGrader grader(*spec, conf::ProcessLimits{});
  for (const nlohmann::json& finding : findings) {
    SCOPED_TRACE(finding.dump());
    const fs::path file = out / finding["file"].get<std::string>();
    ASSERT_TRUE(fs::is_regular_file(file));
    const std::vector<std::uint8_t> bytes = read_bytes(file);
    EXPECT_EQ(bytes.size(), finding["size"].get<std::size_t>());
    // A timeout depends on the machine's load, not only on the file.
    if (finding["kind"] == "timeout") continue;
    const stguard::hunt::Oracle oracle = stguard::hunt::judge(bytes);
    const std::optional<conf::CaseResult> answer = grader.grade(oracle.expected, file);
    ASSERT_TRUE(answer);
    const std::optional<stguard::hunt::Divergence> kind =
        stguard::hunt::divergence_of(answer->grade);
    ASSERT_TRUE(kind) << answer->detail;
    EXPECT_EQ(stguard::hunt::divergence_name(*kind), finding["kind"].get<std::string>());
    EXPECT_EQ(stguard::hunt::make_signature(*kind, oracle, *answer, bytes).bucket(),
              finding["bucket"].get<std::string>());
  }
}

}  // namespace
