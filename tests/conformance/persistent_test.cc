// tests/conformance/persistent_test.cc: the persistent adapter mode
// (conformance/runner/persistent.h): one process answering many files, graded
// exactly as one process per file; a crash, hang, garbage line, second line
// or over-long answer costs only its own file's grade, and the next file gets
// a fresh process.
#include "conformance/runner/persistent.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance/model/manifest.h"
#include "conformance/runner/grade.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/runner.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace conf = stguard::conformance;
using conf::Grade;
using conf::Verdict;
using Status = conf::ProcessResult::Status;

using conformance_test::kCorpusDir;

// A few cases of each verdict (accepted ones with tensors), as the runner
// tests pick them.
const std::vector<conf::Case>& some_cases() {
  static const std::vector<conf::Case> cases = [] {
    const auto manifest = conf::read_manifest(kCorpusDir / "manifest.json");
    std::vector<conf::Case> picked;
    if (!manifest) {
      ADD_FAILURE() << manifest.error().message();
      return picked;
    }
    std::map<Verdict, int> taken;
    for (const conf::Case& c : manifest->cases) {
      const bool has_tensors = c.expected && !c.expected->tensors.empty();
      if (c.verdict != Verdict::kReject && !has_tensors) continue;
      if (taken[c.verdict]++ < 3) picked.push_back(c);
    }
    return picked;
  }();
  return cases;
}

// mixed:MODE=PART,...: the fake reader misbehaves on the files whose path
// holds PART (fake_reader.cc), and answers the others like the manifest.
struct Misbehaviour {
  std::string mode;
  std::size_t case_index;
  Grade grade;
};

const std::vector<Misbehaviour> kMisbehaviours = {
    {"crash", 1, Grade::kCrash},  {"garbage", 3, Grade::kProtocolError},
    {"hang", 4, Grade::kTimeout}, {"two-lines", 6, Grade::kProtocolError},
    {"exit3", 7, Grade::kCrash},
};

std::string mixed_mode() {
  std::string mode = "mixed:";
  for (const Misbehaviour& m : kMisbehaviours) {
    mode += m.mode + "=/" + some_cases()[m.case_index].file + ",";
  }
  return mode;
}

conf::ProcessLimits short_timeout() {
  conf::ProcessLimits limits;
  limits.timeout = std::chrono::milliseconds(500);
  return limits;
}

conf::ReaderSpec mixed_reader() {
  conf::ReaderSpec spec;
  spec.name = "fake-mixed";
  spec.command = {STGUARD_FAKE_READER_PATH, mixed_mode()};
  spec.persistent_command = {STGUARD_FAKE_READER_PATH, "--persistent", mixed_mode()};
  spec.working_dir = std::filesystem::current_path();
  return spec;
}

conf::ReaderRun run_mixed(bool persistent, unsigned jobs) {
  conf::RunOptions options;
  options.jobs = jobs;
  options.limits = short_timeout();
  options.persistent = persistent;
  return conf::run_reader(mixed_reader(), kCorpusDir, some_cases(), options);
}

TEST(ConformPersistent, EachMisbehaviourCostsOnlyItsOwnFile) {
  ASSERT_EQ(some_cases().size(), 9u);
  conf::PersistentReader reader(mixed_reader().persistent_command, std::filesystem::current_path(),
                                short_timeout());
  std::map<std::size_t, Grade> wanted;
  for (const Misbehaviour& m : kMisbehaviours) wanted[m.case_index] = m.grade;
  for (std::size_t i = 0; i < some_cases().size(); ++i) {
    const conf::Case& c = some_cases()[i];
    const conf::ProcessResult answer = reader.answer(kCorpusDir / c.file);
    const conf::CaseResult graded =
        conf::grade_case(c, conf::AdapterMode::kJson, answer, short_timeout());
    const Grade expected = wanted.count(i) != 0            ? wanted[i]
                           : c.verdict == Verdict::kEither ? Grade::kImplAccept
                                                           : Grade::kPass;
    EXPECT_EQ(graded.grade, expected) << c.id << ": " << graded.detail;
  }
  // One start, then one restart after each misbehaviour (garbage is a
  // well-framed line: the process answers on).
  EXPECT_EQ(reader.starts(), 1u + kMisbehaviours.size() - 1u);
}

TEST(ConformPersistent, CrashKeepsItsSignalAndStderr) {
  conf::PersistentReader reader({STGUARD_FAKE_READER_PATH, "--persistent", "crash"},
                                std::filesystem::current_path(), short_timeout());
  const conf::ProcessResult answer = reader.answer(kCorpusDir / some_cases()[0].file);
  const conf::CaseResult graded =
      conf::grade_case(some_cases()[0], conf::AdapterMode::kJson, answer, short_timeout());
  EXPECT_EQ(graded.grade, Grade::kCrash);
  EXPECT_EQ(graded.detail, "killed by SIGSEGV");
  EXPECT_EQ(graded.reader_error, "fake reader: about to crash");
}

TEST(ConformPersistent, SameGradesAsOneProcessPerFile) {
  const conf::ReaderRun per_file = run_mixed(false, 2);
  const conf::ReaderRun persistent = run_mixed(true, 2);
  EXPECT_FALSE(per_file.persistent);
  EXPECT_TRUE(persistent.persistent);
  ASSERT_EQ(per_file.results.size(), some_cases().size());
  ASSERT_EQ(persistent.results.size(), per_file.results.size());
  for (std::size_t i = 0; i < per_file.results.size(); ++i) {
    EXPECT_EQ(persistent.results[i].case_id, per_file.results[i].case_id);
    EXPECT_EQ(persistent.results[i].grade, per_file.results[i].grade)
        << per_file.results[i].case_id << ": " << persistent.results[i].detail << " / "
        << per_file.results[i].detail;
  }
  // Two jobs, two processes at the start; the misbehaviours add restarts.
  EXPECT_GE(persistent.adapter_starts, 2u);
  EXPECT_LE(persistent.adapter_starts, 2u + kMisbehaviours.size());
}

TEST(ConformPersistent, OverlongAnswerIsAProtocolErrorAndTheNextFileIsAnswered) {
  conf::ProcessLimits limits = short_timeout();
  limits.max_stdout_bytes = 1 << 20;
  const std::string flood_file = some_cases()[0].file;
  conf::PersistentReader reader(
      {STGUARD_FAKE_READER_PATH, "--persistent", "mixed:flood=" + flood_file},
      std::filesystem::current_path(), limits);
  const conf::ProcessResult flood = reader.answer(kCorpusDir / flood_file);
  EXPECT_TRUE(flood.stdout_truncated);
  EXPECT_EQ(flood.status, Status::kOutputOverflow);
  const conf::CaseResult graded =
      conf::grade_case(some_cases()[0], conf::AdapterMode::kJson, flood, limits);
  EXPECT_EQ(graded.grade, Grade::kProtocolError);
  EXPECT_NE(graded.detail.find("exceeded 1048576 bytes"), std::string::npos) << graded.detail;
  const conf::ProcessResult next = reader.answer(kCorpusDir / some_cases()[1].file);
  EXPECT_EQ(conf::grade_case(some_cases()[1], conf::AdapterMode::kJson, next, limits).grade,
            Grade::kPass);
  EXPECT_EQ(reader.starts(), 2u);
}

// As with one process per file: an answer without end is stopped at the cap,
// long before the timeout.
TEST(ConformPersistent, AnEndlessAnswerIsAProtocolErrorAtTheCap) {
  conf::ProcessLimits limits = short_timeout();
  limits.timeout = std::chrono::seconds(60);
  const std::string endless_file = some_cases()[0].file;
  conf::PersistentReader reader(
      {STGUARD_FAKE_READER_PATH, "--persistent", "mixed:endless-flood=" + endless_file},
      std::filesystem::current_path(), limits);
  const conf::ProcessResult endless = reader.answer(kCorpusDir / endless_file);
  EXPECT_EQ(endless.status, Status::kOutputOverflow);
  const conf::CaseResult graded =
      conf::grade_case(some_cases()[0], conf::AdapterMode::kJson, endless, limits);
  EXPECT_EQ(graded.grade, Grade::kProtocolError);
  EXPECT_NE(graded.detail.find("exceeded 16777216 bytes"), std::string::npos) << graded.detail;
  const conf::ProcessResult next = reader.answer(kCorpusDir / some_cases()[1].file);
  EXPECT_EQ(conf::grade_case(some_cases()[1], conf::AdapterMode::kJson, next, limits).grade,
            Grade::kPass);
}

TEST(ConformPersistent, AnAdapterThatClosedItsStdinDoesNotKillTheRunner) {
  // The adapter closes stdin, answers, and lives on: the second path's write
  // meets a closed pipe (EPIPE, and a SIGPIPE that must not end this
  // process), and the file is graded as the hang it is.
  conf::PersistentReader reader(
      {"/bin/sh", "-c", R"(exec 0<&-; echo '{"verdict":"reject","error":"e"}'; sleep 30)"},
      std::filesystem::current_path(), short_timeout());
  EXPECT_EQ(reader.answer(kCorpusDir / some_cases()[0].file).status, Status::kExited);
  EXPECT_EQ(reader.answer(kCorpusDir / some_cases()[1].file).status, Status::kTimedOut);
}

TEST(ConformPersistent, AnAdapterThatEndedBetweenFilesIsRestartedWithoutBlame) {
  // Answers one file, then exits 0 (stdin still open): the next file goes to
  // a new process and is answered.
  conf::PersistentReader reader(
      {"/bin/sh", "-c", R"(read -r path; echo '{"verdict":"reject","error":"e"}')"},
      std::filesystem::current_path(), short_timeout());
  for (int i = 0; i < 3; ++i) {
    const conf::ProcessResult answer = reader.answer(kCorpusDir / some_cases()[0].file);
    EXPECT_EQ(answer.status, Status::kExited);
    EXPECT_EQ(answer.stdout_text, "{\"verdict\":\"reject\",\"error\":\"e\"}\n");
  }
}

TEST(ConformPersistent, PathsWithNewlinesAreRefused) {
  conf::PersistentReader reader({STGUARD_FAKE_READER_PATH, "--persistent", "oracle"},
                                std::filesystem::current_path(), short_timeout());
  const conf::ProcessResult answer = reader.answer("/tmp/two\nlines");
  EXPECT_EQ(answer.status, Status::kSpawnFailed);
  EXPECT_EQ(reader.starts(), 0u);
}

TEST(ConformPersistent, ReaderJsonDeclaresIt) {
  stguard_test::TempDir dir;
  auto write = [&](const std::string& text) { std::ofstream(dir.file("reader.json")) << text; };
  write(R"({"name":"r","command":["${STGUARD}","a"],"persistent_command":["${STGUARD}","p"]})");
  const auto spec = conf::load_reader_dir(dir.path(), "/bin/self");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->persistent_command, (std::vector<std::string>{"/bin/self", "p"}));
  write(R"({"name":"r","command":["a"],"persistent_command":["p"],"mode":"plain"})");
  const auto both = conf::load_reader_dir(dir.path(), "/bin/self");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("persistent_command"), std::string::npos)
      << both.error().message;
  write(R"({"name":"r","command":["a"],"persistent_command":"p"})");
  EXPECT_FALSE(conf::load_reader_dir(dir.path(), "/bin/self"));
}

TEST(ConformPersistent, TheCommandUsesItUnlessToldNot) {
  // A reader directory whose reader.json declares a persistent command that
  // crashes on one file: conform says which mode ran, and grades alike.
  stguard_test::TempDir dir;
  // One job: one start, and one restart after the crash (not the last case).
  const std::string crash_file = "/layout/gap-between.safetensors";
  const nlohmann::json reader = {
      {"name", "fake-persistent"},
      {"command", {STGUARD_FAKE_READER_PATH, "mixed:crash=" + crash_file}},
      {"persistent_command",
       {STGUARD_FAKE_READER_PATH, "--persistent", "mixed:crash=" + crash_file}}};
  std::ofstream(dir.file("reader.json")) << reader.dump();
  auto grades = [&](const std::string& jsonl) {
    std::map<std::string, std::string> by_case;
    std::ifstream in(jsonl);
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json j = nlohmann::json::parse(line);
      by_case[j["case"]] = j["grade"];
    }
    return by_case;
  };
  const stguard_test::CliRun persistent =
      stguard_test::run_cli({"conform", "--reader", dir.path().string(), "--case", "layout/*", "-j",
                             "1", "--jsonl", dir.file("p.jsonl")});
  EXPECT_NE(persistent.err.find("persistent, 2 adapter starts"), std::string::npos)
      << persistent.err;
  const stguard_test::CliRun per_file =
      stguard_test::run_cli({"conform", "--reader", dir.path().string(), "--case", "layout/*", "-j",
                             "1", "--no-persistent", "--jsonl", dir.file("n.jsonl")});
  EXPECT_NE(per_file.err.find("one process per file"), std::string::npos) << per_file.err;
  EXPECT_EQ(persistent.exit_code, per_file.exit_code);
  const std::map<std::string, std::string> persistent_grades = grades(dir.file("p.jsonl"));
  EXPECT_FALSE(persistent_grades.empty());
  EXPECT_EQ(persistent_grades, grades(dir.file("n.jsonl")));
}

}  // namespace
