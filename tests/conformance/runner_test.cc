// tests/conformance/runner_test.cc: the conformance runner: grading rules
// (pure), command splitting, expectation files, case selection, the process
// limits, and whole runs against the fake readers of fake_reader.cc, each of
// which must get its grade.
#include "conformance/runner/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance/model/manifest.h"
#include "conformance/model/release.h"
#include "conformance/runner/expectations.h"
#include "conformance/runner/grade.h"
#include "conformance/runner/grader.h"
#include "conformance/runner/process.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/selection.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/failure_of.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace conf = stguard::conformance;
using conf::Grade;
using conf::Verdict;
using Status = conf::ProcessResult::Status;
using stguard_test::failure_of;

using conformance_test::kCorpusDir;

conf::Case make_case(Verdict verdict) {
  conf::Case c;
  c.id = "group/case";
  c.file = "group/case.safetensors";
  c.verdict = verdict;
  if (verdict != Verdict::kReject) {
    c.expected.emplace();
    c.expected->tensors = {{"a", "F32", {2}, 0, 8, std::string(64, 'a')},
                           {"b", "U8", {}, 8, 9, std::string(64, 'b')}};
  }
  return c;
}

const conf::Manifest& committed_manifest() {
  static const conf::Manifest manifest = [] {
    conf::ManifestResult<conf::Manifest> m = conf::read_manifest(kCorpusDir / "manifest.json");
    if (!m) {
      ADD_FAILURE() << m.error().message();
      return conf::Manifest{};
    }
    return std::move(*m);
  }();
  return manifest;
}

conf::ProcessResult exited(int code, std::string out, std::string err = "") {
  conf::ProcessResult run;
  run.status = Status::kExited;
  run.exit_code = code;
  run.stdout_text = std::move(out);
  run.stderr_text = std::move(err);
  return run;
}

const std::string kGoodTensors =
    R"([{"name":"b","dtype":"U8","shape":[],"data_offsets":[8,9],"sha256":")" +
    std::string(64, 'b') +
    R"("},{"name":"a","dtype":"F32","shape":[2],"data_offsets":[0,8],"sha256":")" +
    std::string(64, 'a') + R"("}])";

std::string accept_with(const std::string& tensors) {
  return R"({"verdict":"accept","error":null,"tensors":)" + tensors + "}\n";
}

conf::CaseResult grade(const conf::Case& c, const conf::ProcessResult& run,
                       conf::AdapterMode mode = conf::AdapterMode::kJson) {
  return conf::grade_case(c, mode, run, conf::ProcessLimits{});
}

// --- Grading rules -------------------------------------------------------

TEST(ConformGrade, VerdictsAgainstExpectedVerdicts) {
  const std::string reject = R"({"verdict":"reject","error":"bad header"})";
  EXPECT_EQ(grade(make_case(Verdict::kAccept), exited(0, accept_with(kGoodTensors))).grade,
            Grade::kPass);
  EXPECT_EQ(grade(make_case(Verdict::kReject), exited(0, reject)).grade, Grade::kPass);
  EXPECT_EQ(grade(make_case(Verdict::kEither), exited(0, accept_with(kGoodTensors))).grade,
            Grade::kImplAccept);
  EXPECT_EQ(grade(make_case(Verdict::kEither), exited(0, reject)).grade, Grade::kImplReject);
  conf::CaseResult should_accept = grade(make_case(Verdict::kAccept), exited(0, reject));
  EXPECT_EQ(should_accept.grade, Grade::kFailShouldAccept);
  EXPECT_EQ(should_accept.reader_error, "bad header");
  EXPECT_EQ(should_accept.verdict, Verdict::kReject);
  EXPECT_EQ(should_accept.group, "group");
  EXPECT_EQ(should_accept.expected_verdict, Verdict::kAccept);
  conf::Case reject_case = make_case(Verdict::kReject);
  reject_case.reason = "OFFSET_GAP";
  conf::CaseResult should_reject = grade(reject_case, exited(0, accept_with("[]")));
  EXPECT_EQ(should_reject.grade, Grade::kFailShouldReject);
  EXPECT_EQ(should_reject.verdict, Verdict::kAccept);
  EXPECT_EQ(should_reject.detail, "accepted; must be rejected: OFFSET_GAP");
}

TEST(ConformGrade, ContentDifferencesAreWrongContent) {
  auto detail_of = [](const std::string& tensors) {
    conf::CaseResult r = grade(make_case(Verdict::kAccept), exited(0, accept_with(tensors)));
    EXPECT_EQ(r.grade, Grade::kFailWrongContent) << tensors;
    return r.detail;
  };
  const std::string b = R"({"name":"b","dtype":"U8","shape":[],"data_offsets":[8,9],"sha256":")" +
                        std::string(64, 'b') + "\"}";
  auto a_with = [](const std::string& dtype, const std::string& shape, const std::string& offsets,
                   const std::string& sha) {
    return R"({"name":"a","dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" +
           offsets + R"(,"sha256":")" + sha + "\"}";
  };
  const std::string sha_a(64, 'a');
  EXPECT_NE(detail_of("[" + a_with("F16", "[2]", "[0,8]", sha_a) + "," + b + "]").find("dtype"),
            std::string::npos);
  EXPECT_NE(detail_of("[" + a_with("F32", "[1,2]", "[0,8]", sha_a) + "," + b + "]").find("shape"),
            std::string::npos);
  EXPECT_NE(
      detail_of("[" + a_with("F32", "[2]", "[1,9]", sha_a) + "," + b + "]").find("data_offsets"),
      std::string::npos);
  EXPECT_NE(detail_of("[" + a_with("F32", "[2]", "[0,8]", std::string(64, 'c')) + "," + b + "]")
                .find("bytes differ"),
            std::string::npos);
  EXPECT_NE(detail_of("[" + b + "]").find("missing tensor \"a\""), std::string::npos);
  const std::string a = a_with("F32", "[2]", "[0,8]", sha_a);
  EXPECT_NE(detail_of("[" + a + "," + b + "," + b + "]").find("reported twice"), std::string::npos);
  const std::string extra =
      R"({"name":"z","dtype":"U8","shape":[],"data_offsets":[9,10],"sha256":")" +
      std::string(64, 'b') + "\"}";
  EXPECT_NE(detail_of("[" + a + "," + b + "," + extra + "]").find("unexpected tensor \"z\""),
            std::string::npos);
  // A float is not an exact integer, even when integral.
  EXPECT_NE(detail_of("[" + a_with("F32", "[2.0]", "[0,8]", sha_a) + "," + b + "]").find("shape"),
            std::string::npos);
  // Several differences: the first is shown, the rest counted.
  EXPECT_NE(detail_of("[" + a_with("F16", "[2]", "[0,8]", sha_a) + "]").find("1 more difference"),
            std::string::npos);
  // Wrong content on an either case is still wrong content, not IMPL_ACCEPT.
  EXPECT_EQ(grade(make_case(Verdict::kEither), exited(0, accept_with("[" + b + "]"))).grade,
            Grade::kFailWrongContent);
}

TEST(ConformGrade, IllTypedTensorFieldsAreContentNotProtocol) {
  // The reader accepted; what it reports is graded as what it read.
  for (const std::string& tensor :
       {std::string(R"({"name":"a","dtype":"F32","shape":[2],"data_offsets":[0,8]})"),
        std::string(R"({"name":"a","dtype":7,"shape":[2],"data_offsets":[0,8],"sha256":"x"})"),
        std::string(R"({"name":"a","dtype":"F32","shape":2,"data_offsets":[0,8],"sha256":"x"})"),
        std::string(R"({"name":"a","dtype":"F32","shape":[2],"data_offsets":[0],"sha256":"x"})"),
        std::string(R"({"name":1,"dtype":"F32","shape":[2],"data_offsets":[0,8],"sha256":"x"})")}) {
    EXPECT_EQ(grade(make_case(Verdict::kAccept), exited(0, accept_with("[" + tensor + "]"))).grade,
              Grade::kFailWrongContent)
        << tensor;
    EXPECT_EQ(grade(make_case(Verdict::kReject), exited(0, accept_with("[" + tensor + "]"))).grade,
              Grade::kFailShouldReject)
        << tensor;
  }
}

TEST(ConformGrade, ExactNumbersMayBeDecimalStringsAndHashesAnyCase) {
  const std::string tensors =
      R"([{"name":"a","dtype":"F32","shape":["2"],"data_offsets":["0","8"],"sha256":")" +
      std::string(64, 'A') +
      R"("},{"name":"b","dtype":"U8","shape":[],"data_offsets":[8,9],"sha256":")" +
      std::string(64, 'b') + "\"}]";
  EXPECT_EQ(grade(make_case(Verdict::kAccept), exited(0, accept_with(tensors))).grade,
            Grade::kPass);
}

TEST(ConformGrade, ProcessFailures) {
  conf::ProcessResult signaled;
  signaled.status = Status::kSignaled;
  signaled.term_signal = 11;
  signaled.stderr_text = "Segmentation fault in parse()\n";
  conf::CaseResult crash = grade(make_case(Verdict::kAccept), signaled);
  EXPECT_EQ(crash.grade, Grade::kCrash);
  EXPECT_EQ(crash.detail, "killed by SIGSEGV");
  EXPECT_EQ(crash.reader_error, "Segmentation fault in parse()");

  conf::ProcessResult timed_out;
  timed_out.status = Status::kTimedOut;
  EXPECT_EQ(grade(make_case(Verdict::kReject), timed_out).grade, Grade::kTimeout);

  conf::ProcessResult not_started;
  not_started.spawn_error = "command not found: x";
  EXPECT_EQ(grade(make_case(Verdict::kReject), not_started).grade, Grade::kCrash);

  // JSON mode: every verdict exits 0, so exit 1 is a crash even with output.
  conf::CaseResult exit1 =
      grade(make_case(Verdict::kReject), exited(1, R"({"verdict":"reject"})", "Traceback ..."));
  EXPECT_EQ(exit1.grade, Grade::kCrash);
  EXPECT_NE(exit1.detail.find("exit status 1"), std::string::npos);
}

TEST(ConformGrade, ProtocolErrors) {
  const conf::Case spec = make_case(Verdict::kReject);
  for (const std::string& out : std::vector<std::string>{
           "", "not json", "[]", "\"reject\"", R"({"verdict":"maybe"})", R"({"error":"x"})",
           R"({"verdict":"either"})", R"({"verdict":"ACCEPT","tensors":[]})",
           R"({"verdict":"reject","error":42})", R"({"verdict":"accept"})",
           R"({"verdict":"accept","tensors":{}})", R"({"verdict":"accept","tensors":[1]})",
           R"({"verdict":"reject"}{"verdict":"reject"})",
           "{\"verdict\":\"reject\",\"error\":\"\xff\"}"}) {
    conf::CaseResult r = grade(spec, exited(0, out));
    EXPECT_EQ(r.grade, Grade::kProtocolError) << out;
    EXPECT_FALSE(r.detail.empty()) << out;
    EXPECT_FALSE(r.verdict.has_value()) << out;
  }
  conf::ProcessResult flood = exited(0, R"({"verdict":"reject"})");
  flood.stdout_truncated = true;
  EXPECT_EQ(grade(spec, flood).grade, Grade::kProtocolError);
  // Surrounding whitespace is fine.
  EXPECT_EQ(grade(spec, exited(0, "\n  {\"verdict\":\"reject\"}  \n\n")).grade, Grade::kPass);
}

TEST(ConformGrade, PlainModeGradesByExitStatus) {
  using conf::AdapterMode;
  EXPECT_EQ(grade(make_case(Verdict::kAccept), exited(0, ""), AdapterMode::kPlain).grade,
            Grade::kPass);
  EXPECT_EQ(grade(make_case(Verdict::kAccept), exited(1, ""), AdapterMode::kPlain).grade,
            Grade::kFailShouldAccept);
  EXPECT_EQ(grade(make_case(Verdict::kReject), exited(0, ""), AdapterMode::kPlain).grade,
            Grade::kFailShouldReject);
  EXPECT_EQ(grade(make_case(Verdict::kEither), exited(1, ""), AdapterMode::kPlain).grade,
            Grade::kImplReject);
  EXPECT_EQ(grade(make_case(Verdict::kReject), exited(2, ""), AdapterMode::kPlain).grade,
            Grade::kCrash);
}

// The Python example reader accepts a lone surrogate escaped in a tensor
// name (json.loads keeps it) and in a metadata value, and json.dumps writes
// it back escaped in the name it reports. One behaviour, one grade: the
// reader accepted a file it must reject.
TEST(ConformGrade, ThePythonExampleGetsOneGradeForBothLoneSurrogateCases) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    const char* required = std::getenv("STGUARD_REQUIRE_READERS");
    if (required != nullptr && std::string(required) == "1") {
      FAIL() << "python3 is not on PATH (ci/setup-readers.sh installs it)";
    }
    GTEST_SKIP() << "python3 is not on PATH";
  }
  std::vector<conf::Case> cases;
  for (const conf::Case& c : committed_manifest().cases) {
    if (c.id == "json-syntax/lone-high-surrogate" || c.id == "json-syntax/lone-low-surrogate") {
      cases.push_back(c);
    }
  }
  ASSERT_EQ(cases.size(), 2u);
  conf::ReaderSpec spec;
  spec.name = "python-example";
  spec.command = {"python3", STGUARD_RECIPES_DIR "/adapters/example/minimal_reader.py"};
  spec.working_dir = std::filesystem::current_path();
  conf::RunOptions options;
  options.persistent = false;
  const conf::ReaderRun run = conf::run_reader(spec, kCorpusDir, cases, options);
  ASSERT_EQ(run.results.size(), 2u);
  for (const conf::CaseResult& r : run.results) {
    EXPECT_EQ(r.grade, Grade::kFailShouldReject) << r.case_id << ": " << r.detail;
  }
}

// --- Commands, readers, expectations, manifest ---------------------------

TEST(ConformReaderSpec, SplitCommand) {
  using Words = std::vector<std::string>;
  EXPECT_EQ(conf::split_command("node  adapter.mjs").value(), (Words{"node", "adapter.mjs"}));
  EXPECT_EQ(conf::split_command(R"(a 'b c' "d \"e\"" f\ g)").value(),
            (Words{"a", "b c", "d \"e\"", "f g"}));
  EXPECT_EQ(conf::split_command("x ''").value(), (Words{"x", ""}));
  EXPECT_NE(failure_of(conf::split_command("a 'b")).find("unterminated"), std::string::npos);
  EXPECT_NE(failure_of(conf::split_command("   ")), "");
  EXPECT_EQ(conf::command_text({"a", "b c", "it's"}), R"(a 'b c' 'it'\''s')");
}

TEST(ConformReaderSpec, ReaderJson) {
  stguard_test::TempDir dir;
  auto write = [&](const std::string& text) { std::ofstream(dir.file("reader.json")) << text; };
  write(
      R"({"name":"r","command":["${STGUARD}","adapter"],"version_command":["v"],"mode":"plain"})");
  const auto spec = conf::load_reader_dir(dir.path(), "/bin/self");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->command, (std::vector<std::string>{"/bin/self", "adapter"}));
  EXPECT_EQ(spec->mode, conf::AdapterMode::kPlain);
  EXPECT_TRUE(spec->setup.empty());
  EXPECT_EQ(spec->working_dir, std::filesystem::absolute(dir.path()));
  // A repeated key once left one of its values in force silently.
  write(R"({"name":"r","command":["x"],"command":["${STGUARD}","adapter"]})");
  EXPECT_NE(failure_of(conf::load_reader_dir(dir.path(), "/bin/self"))
                .find("reader.json: duplicate key \"command\""),
            std::string::npos);
  for (const std::string& bad :
       {std::string(R"({"command":["x"]})"), std::string(R"({"name":"r","command":[]})"),
        std::string(R"({"name":"r","command":["x"],"mode":"xml"})"), std::string("[")}) {
    write(bad);
    EXPECT_NE(failure_of(conf::load_reader_dir(dir.path(), "/bin/self")).find("reader.json"),
              std::string::npos)
        << bad;
  }
  write(R"({"name":"r","command":["x"],"implements":"0.5"})");
  const auto old = conf::load_reader_dir(dir.path(), "/bin/self");
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->implements, std::optional<std::string>("0.5"));
  for (const char* bad : {R"("0.x")", R"("")", "5", R"("v0.5")"}) {
    write(std::string(R"({"name":"r","command":["x"],"implements":)") + bad + "}");
    EXPECT_NE(failure_of(conf::load_reader_dir(dir.path(), "/bin/self")).find("\"implements\""),
              std::string::npos)
        << bad;
  }
  EXPECT_TRUE(conf::valid_reader_name("safetensors-npm"));
  EXPECT_FALSE(conf::valid_reader_name("two words"));
  EXPECT_FALSE(conf::valid_reader_name(""));
}

TEST(ConformExpectations, ParseApplyAndWrite) {
  const auto e = conf::Expectations::parse(
      "# known failures\n"
      "layout/overlap-* FAIL_SHOULD_REJECT   # no overlap check\n"
      "other-reader dtypes/x CRASH\n"
      "\n"
      "dtypes/y CRASH,TIMEOUT\n");
  ASSERT_TRUE(e) << e.error().message;
  conf::CaseResult r;
  r.case_id = "layout/overlap-full";
  r.grade = Grade::kFailShouldReject;
  e->apply("me", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kExpectedFailure);
  EXPECT_FALSE(conf::result_fails_run(r));
  r.grade = Grade::kPass;
  e->apply("me", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kUnexpectedPass);
  r.grade = Grade::kCrash;
  e->apply("me", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kOtherFailure);
  EXPECT_TRUE(conf::result_fails_run(r));
  r.case_id = "dtypes/x";  // listed for another reader only
  e->apply("me", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kNone);
  e->apply("other-reader", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kExpectedFailure);
  r.case_id = "dtypes/y";
  r.grade = Grade::kTimeout;
  e->apply("me", r);
  EXPECT_EQ(r.expectation, conf::Expectation::kExpectedFailure);

  EXPECT_NE(failure_of(conf::Expectations::parse("a/b NOT_A_GRADE\n")).find("line 1"),
            std::string::npos);
  EXPECT_NE(failure_of(conf::Expectations::parse("\na/b PASS\n")).find("line 2"),
            std::string::npos);
  EXPECT_NE(failure_of(conf::Expectations::parse("a/b\n")), "");
  EXPECT_NE(failure_of(conf::Expectations::parse("a b c CRASH\n")), "");

  conf::ReaderRun run;
  run.name = "me";
  conf::CaseResult failing;
  failing.case_id = "z/case";
  failing.grade = Grade::kCrash;
  conf::CaseResult passing;
  passing.case_id = "a/case";
  run.results = {passing, failing};
  const std::string text = conf::expectations_text(std::vector<conf::ReaderRun>{run});
  EXPECT_NE(text.find("\nz/case CRASH\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("a/case"), std::string::npos) << text;
  // What it writes, it reads back.
  EXPECT_EQ(failure_of(conf::Expectations::parse(text)), "");
}

TEST(ConformSelection, GlobsOnIdsAndTags) {
  const conf::Manifest& manifest = committed_manifest();
  ASSERT_GT(manifest.cases.size(), 400u);
  const conf::CaseFilter layout{{"layout/*"}, {}};
  const conf::CaseFilter contested{{}, {"contested"}};
  const conf::CaseFilter both{{"layout/*", "dtypes/*"}, {"contested"}};
  const conf::CaseFilter all{};
  for (const conf::Case& c : manifest.cases) {
    const bool is_contested = c.verdict == Verdict::kEither;
    EXPECT_EQ(layout.matches(c), c.group() == "layout") << c.id;
    EXPECT_EQ(contested.matches(c), is_contested) << c.id;
    EXPECT_EQ(both.matches(c), is_contested && (c.group() == "layout" || c.group() == "dtypes"))
        << c.id;
    EXPECT_TRUE(all.matches(c));
  }
}

// --- Processes ------------------------------------------------------------

TEST(ConformProcess, TimeoutKillsTheProcessGroup) {
  conf::ProcessLimits limits;
  limits.timeout = std::chrono::milliseconds(500);
  const auto start = std::chrono::steady_clock::now();
  conf::ProcessResult run = conf::run_process({STGUARD_FAKE_READER_PATH, "hang", "x"},
                                              std::filesystem::current_path(), limits);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.status, Status::kTimedOut);
  // The forked child held the pipes open too: returning at all proves the
  // group was killed; returning promptly proves nobody waited for it.
  EXPECT_LT(seconds, 5.0);
}

TEST(ConformProcess, MissingExecutableAndArguments) {
  conf::ProcessResult run =
      conf::run_process({"stguard-no-such-program"}, std::filesystem::current_path(), {});
  EXPECT_EQ(run.status, Status::kSpawnFailed);
  EXPECT_NE(run.spawn_error.find("not found"), std::string::npos);
  conf::ProcessResult echo =
      conf::run_process({"/bin/echo", "a b", "c"}, std::filesystem::current_path(), {});
  EXPECT_EQ(echo.status, Status::kExited);
  EXPECT_EQ(echo.stdout_text, "a b c\n");
}

TEST(ConformProcess, StdoutIsCappedAndAnAnswerPastTheCapIsStoppedThere) {
  conf::ProcessLimits limits;
  limits.max_stdout_bytes = 1 << 20;
  conf::ProcessResult run = conf::run_process({STGUARD_FAKE_READER_PATH, "flood", "x"},
                                              std::filesystem::current_path(), limits);
  EXPECT_EQ(run.status, Status::kOutputOverflow);
  EXPECT_TRUE(run.stdout_truncated);
  EXPECT_EQ(run.stdout_text.size(), std::size_t{1} << 20);
  // Output that is no answer (plain mode, setup commands) is read to the end.
  limits.stop_at_stdout_cap = false;
  run = conf::run_process({STGUARD_FAKE_READER_PATH, "flood", "x"}, std::filesystem::current_path(),
                          limits);
  EXPECT_EQ(run.status, Status::kExited);
  EXPECT_TRUE(run.stdout_truncated);
  EXPECT_EQ(run.stdout_text.size(), std::size_t{1} << 20);
}

// The capture takes two blocks of two fixed sizes: 64 KiB at the first byte,
// the whole cap once that is full. Growing by doubling left blocks of every
// size that split the space of a freed answer (peak RSS up to 15 MB higher
// over the corpus); reserving the cap at once made a sanitizer build write
// 16 MiB of shadow per answer (a persistent hunt six times slower).
TEST(ConformProcess, TheCaptureIsReservedIn64KiBThenTheCap) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::size_t cap = std::size_t{16} << 20;
  std::string sink;
  bool truncated = false;
  ASSERT_EQ(::write(fds[1], "0123456789", 10), 10);
  ASSERT_TRUE(conf::drain_output(fds[0], sink, cap, truncated));
  EXPECT_EQ(sink, "0123456789");
  EXPECT_GE(sink.capacity(), std::size_t{64} << 10);
  EXPECT_LT(sink.capacity(), std::size_t{1} << 20);
  const std::string more(60 << 10, 'x');
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(::write(fds[1], more.data(), more.size()), static_cast<ssize_t>(more.size()));
    while (sink.size() < 10 + more.size() * static_cast<std::size_t>(i + 1)) {
      ASSERT_TRUE(conf::drain_output(fds[0], sink, cap, truncated));
    }
  }
  EXPECT_GE(sink.capacity(), cap);
  EXPECT_FALSE(truncated);
  ::close(fds[0]);
  ::close(fds[1]);
}

// An adapter that writes its answer without end: before, the runner read
// and dropped everything past the cap until the timeout, and graded it
// TIMEOUT. The timeout here is far longer than reading 16 MiB takes, so only
// reading on past the cap can reach it.
TEST(ConformProcess, AnEndlessAnswerIsAProtocolErrorAtTheCap) {
  conf::ProcessLimits limits;
  limits.timeout = std::chrono::seconds(60);
  conf::ReaderSpec spec;
  spec.name = "endless";
  spec.command = {STGUARD_FAKE_READER_PATH, "endless-flood"};
  spec.working_dir = std::filesystem::current_path();
  const std::optional<conf::CaseResult> r =
      conf::ProcessGrader(spec, limits).grade(make_case(Verdict::kReject), "/nonexistent");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->grade, Grade::kProtocolError) << r->detail;
  EXPECT_NE(r->detail.find("exceeded 16777216 bytes"), std::string::npos) << r->detail;
  // Plain mode grades the exit status alone: stdout past the cap changes
  // nothing there (the fake reader's flood exits 0: accept).
  spec.command = {STGUARD_FAKE_READER_PATH, "flood"};
  spec.mode = conf::AdapterMode::kPlain;
  const std::optional<conf::CaseResult> plain =
      conf::ProcessGrader(spec, limits).grade(make_case(Verdict::kAccept), "/nonexistent");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->grade, Grade::kPass);
}

TEST(ConformProcess, StderrKeepsItsHeadAndTail) {
  conf::HeadTail small(16);
  small.append("0123");
  small.append("4567");
  EXPECT_EQ(small.text(), "01234567");
  EXPECT_FALSE(small.truncated());
  conf::HeadTail kept(16);
  kept.append("first line\n");
  for (int i = 0; i < 1000; ++i) kept.append("middle ");
  kept.append("last one");
  EXPECT_TRUE(kept.truncated());
  // 8 bytes of head, 8 of tail, and what was dropped between them counted.
  const std::size_t total = 11 + 7000 + 8;
  EXPECT_EQ(kept.text(),
            "first li\n[... " + std::to_string(total - 16) + " bytes dropped ...]\nlast one");
  // A tail that would start inside a UTF-8 sequence starts after it.
  conf::HeadTail utf8(4);
  utf8.append("ab");
  utf8.append("xxxx\xC3\xA9z");  // ... "é" "z": the tail's first byte is \xA9
  EXPECT_EQ(utf8.text(), "ab\n[... 6 bytes dropped ...]\nz");
  // A head that would end inside one ends before it.
  conf::HeadTail head(4);
  head.append("a\xE2\x82\xAC");  // "a€": the head keeps "a" and the euro's first byte
  head.append("......yz");
  EXPECT_EQ(head.text(), "a\n[... 9 bytes dropped ...]\nyz");
}

// A sanitizer's report starts with the line that says what went wrong and
// ends with its summary: with only the last bytes of a long trace kept, the
// first line was lost.
TEST(ConformProcess, ACrashKeepsTheFirstLineOfALongSanitizerReport) {
  const conf::ProcessResult run = conf::run_process(
      {STGUARD_FAKE_READER_PATH, "stderr-report", "x"}, std::filesystem::current_path(), {});
  ASSERT_EQ(run.status, Status::kExited);
  const conf::CaseResult crash = grade(make_case(Verdict::kReject), run);
  EXPECT_EQ(crash.grade, Grade::kCrash);
  EXPECT_NE(crash.reader_error.find("ERROR: AddressSanitizer: heap-buffer-overflow"),
            std::string::npos)
      << crash.reader_error.substr(0, 300);
  EXPECT_NE(crash.reader_error.find("bytes dropped"), std::string::npos);
  EXPECT_NE(crash.reader_error.find("ABORTING"), std::string::npos);
  EXPECT_LE(crash.reader_error.size(), std::size_t{9} << 10);
}

// --- Whole runs with the fake readers ---------------------------------------

class ConformFakeReaders : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A few of each verdict, some accepted cases with tensors.
    std::map<Verdict, int> taken;
    for (const conf::Case& c : committed_manifest().cases) {
      const bool has_tensors = c.expected && !c.expected->tensors.empty();
      if (c.verdict != Verdict::kReject && !has_tensors) continue;
      if (taken[c.verdict]++ < 3) cases_->push_back(c);
    }
    ASSERT_EQ(cases_->size(), 9u);
  }

  static conf::ReaderRun run(const std::string& mode, conf::ProcessLimits limits = {},
                             conf::AdapterMode adapter_mode = conf::AdapterMode::kJson) {
    conf::ReaderSpec spec;
    spec.name = "fake-" + mode;
    spec.command = {STGUARD_FAKE_READER_PATH, mode};
    spec.mode = adapter_mode;
    spec.working_dir = std::filesystem::current_path();
    conf::RunOptions options;
    options.jobs = 3;
    options.limits = limits;
    return conf::run_reader(spec, kCorpusDir, *cases_, options);
  }

  // The grade each verdict's cases got; fails when cases of one verdict got
  // different grades.
  static std::map<Verdict, Grade> grades_by_verdict(const conf::ReaderRun& run) {
    std::map<Verdict, Grade> grades;
    for (const conf::CaseResult& r : run.results) {
      auto [it, inserted] = grades.emplace(r.expected_verdict, r.grade);
      EXPECT_EQ(it->second, r.grade) << run.name << " " << r.case_id << ": " << r.detail;
    }
    return grades;
  }

  static inline std::vector<conf::Case>* cases_ = new std::vector<conf::Case>();
};

TEST_F(ConformFakeReaders, OraclePassesEverything) {
  conf::ReaderRun r = run("oracle");
  ASSERT_EQ(r.results.size(), 9u);
  for (std::size_t i = 1; i < r.results.size(); ++i) {
    EXPECT_LT(r.results[i - 1].case_id, r.results[i].case_id);  // case order, whatever -j did
  }
  std::map<Verdict, Grade> grades = grades_by_verdict(r);
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kPass);
  EXPECT_EQ(grades[Verdict::kReject], Grade::kPass);
  EXPECT_EQ(grades[Verdict::kEither], Grade::kImplAccept);
}

TEST_F(ConformFakeReaders, AlwaysAccept) {
  std::map<Verdict, Grade> grades = grades_by_verdict(run("accept"));
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kFailWrongContent);  // no tensors reported
  EXPECT_EQ(grades[Verdict::kReject], Grade::kFailShouldReject);
  EXPECT_EQ(grades[Verdict::kEither], Grade::kFailWrongContent);
}

// A case newer than the release a reader implements is run but graded
// NOT_APPLICABLE, which fails nothing; the same run without `implements`, or
// implementing that release, is graded as usual.
TEST_F(ConformFakeReaders, CasesNewerThanTheReadersReleaseAreNotApplicable) {
  std::vector<conf::Case> cases = *cases_;
  for (conf::Case& c : cases) c.since = c.verdict == Verdict::kAccept ? "0.6.0" : "0.2.2";
  conf::ReaderSpec spec;
  spec.name = "fake-reject";
  spec.command = {STGUARD_FAKE_READER_PATH, "reject"};
  spec.working_dir = std::filesystem::current_path();
  const auto graded = [&](std::optional<std::string> implements) {
    spec.implements = std::move(implements);
    return grades_by_verdict(conf::run_reader(spec, kCorpusDir, cases, conf::RunOptions{}));
  };
  std::map<Verdict, Grade> grades = graded("0.5");
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kNotApplicable);  // would be FAIL_SHOULD_ACCEPT
  EXPECT_EQ(grades[Verdict::kReject], Grade::kPass);
  EXPECT_TRUE(conf::grade_passes(Grade::kNotApplicable));
  grades = graded("0.6");
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kFailShouldAccept);
  grades = graded(std::nullopt);
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kFailShouldAccept);
  EXPECT_EQ(grades[Verdict::kReject], Grade::kPass);
}

TEST(ConformSelection, ReleasesCompareNumberByNumber) {
  EXPECT_TRUE(conf::is_release("0.5"));
  EXPECT_TRUE(conf::is_release("0.10.1"));
  for (const char* bad : {"", ".5", "0.", "0..5", "v0.5", "0.5-rc1", "1234567890"}) {
    EXPECT_FALSE(conf::is_release(bad)) << bad;
  }
  EXPECT_EQ(conf::compare_releases("0.5", "0.5.0"), 0);
  EXPECT_LT(conf::compare_releases("0.4.1", "0.10"), 0);
  EXPECT_GT(conf::compare_releases("0.6.0", "0.5.99"), 0);
  conf::Case c = make_case(Verdict::kAccept);
  EXPECT_TRUE(conf::case_applies(c, "0.1"));  // no since: every release
  c.since = "0.6.0";
  EXPECT_FALSE(conf::case_applies(c, "0.5.3"));
  EXPECT_TRUE(conf::case_applies(c, "0.6"));
  EXPECT_TRUE(conf::case_applies(c, std::nullopt));
}

TEST_F(ConformFakeReaders, AlwaysReject) {
  conf::ReaderRun r = run("reject");
  std::map<Verdict, Grade> grades = grades_by_verdict(r);
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kFailShouldAccept);
  EXPECT_EQ(grades[Verdict::kReject], Grade::kPass);
  EXPECT_EQ(grades[Verdict::kEither], Grade::kImplReject);
  EXPECT_EQ(r.results.front().reader_error, "fake reader rejects everything");
}

TEST_F(ConformFakeReaders, CrashIsCrash) {
  conf::ReaderRun r = run("crash");
  for (const conf::CaseResult& result : r.results) {
    EXPECT_EQ(result.grade, Grade::kCrash) << result.case_id;
    EXPECT_EQ(result.detail, "killed by SIGSEGV");
    EXPECT_EQ(result.reader_error, "fake reader: about to crash");
  }
}

TEST_F(ConformFakeReaders, HangIsTimeout) {
  conf::ProcessLimits limits;
  limits.timeout = std::chrono::milliseconds(300);
  for (const conf::CaseResult& result : run("hang", limits).results) {
    EXPECT_EQ(result.grade, Grade::kTimeout) << result.case_id;
  }
}

TEST_F(ConformFakeReaders, GarbageIsProtocolError) {
  for (const conf::CaseResult& result : run("garbage").results) {
    EXPECT_EQ(result.grade, Grade::kProtocolError) << result.case_id;
    EXPECT_NE(result.detail.find("this is not JSON"), std::string::npos) << result.detail;
  }
}

TEST_F(ConformFakeReaders, WrongHashIsWrongContent) {
  std::map<Verdict, Grade> grades = grades_by_verdict(run("wrong-hash"));
  EXPECT_EQ(grades[Verdict::kAccept], Grade::kFailWrongContent);
  EXPECT_EQ(grades[Verdict::kReject], Grade::kPass);
  EXPECT_EQ(grades[Verdict::kEither], Grade::kFailWrongContent);
}

TEST_F(ConformFakeReaders, HugeAllocationHitsTheMemoryLimit) {
  conf::ProcessLimits limits;
  limits.address_space_bytes = std::uint64_t{64} << 20;
  for (const conf::CaseResult& result : run("huge-alloc", limits).results) {
    EXPECT_EQ(result.grade, Grade::kCrash) << result.case_id << ": " << result.detail;
    EXPECT_EQ(result.detail, "killed by SIGABRT");
  }
}

TEST_F(ConformFakeReaders, ExitStatusAndFlood) {
  for (const conf::CaseResult& result : run("exit3").results) {
    EXPECT_EQ(result.grade, Grade::kCrash);
    EXPECT_NE(result.detail.find("exit status 3"), std::string::npos);
  }
  for (const conf::CaseResult& result : run("flood").results) {
    EXPECT_EQ(result.grade, Grade::kProtocolError);
  }
}

TEST_F(ConformFakeReaders, PlainMode) {
  std::map<Verdict, Grade> accept =
      grades_by_verdict(run("plain-accept", {}, conf::AdapterMode::kPlain));
  EXPECT_EQ(accept[Verdict::kAccept], Grade::kPass);  // plain mode cannot see content
  EXPECT_EQ(accept[Verdict::kReject], Grade::kFailShouldReject);
  EXPECT_EQ(accept[Verdict::kEither], Grade::kImplAccept);
  std::map<Verdict, Grade> reject =
      grades_by_verdict(run("plain-reject", {}, conf::AdapterMode::kPlain));
  EXPECT_EQ(reject[Verdict::kAccept], Grade::kFailShouldAccept);
  EXPECT_EQ(reject[Verdict::kReject], Grade::kPass);
}

// --- The command ------------------------------------------------------------

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

std::string fake(const std::string& mode) {
  return std::string("'") + STGUARD_FAKE_READER_PATH + "' " + mode;
}

TEST(ConformCli, UsageErrors) {
  using stguard_test::run_cli;
  EXPECT_EQ(run_cli({"conform", "--help"}).exit_code, 0);
  EXPECT_EQ(run_cli({"conform", "report", "--help"}).exit_code, 0);
  stguard_test::CliRun none = run_cli({"conform"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no reader"), std::string::npos);
  stguard_test::CliRun missing = run_cli({"conform", "--adapter", "/nonexistent/reader"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot find"), std::string::npos);
  EXPECT_EQ(run_cli({"conform", "--name", "x"}).exit_code, 2);
  EXPECT_EQ(run_cli({"conform", "--adapter", fake("oracle"), "-j", "0"}).exit_code, 2);
  stguard_test::CliRun no_case =
      run_cli({"conform", "--adapter", fake("oracle"), "--case", "no/such-*"});
  EXPECT_EQ(no_case.exit_code, 2);
  EXPECT_EQ(
      run_cli({"conform", "--adapter", fake("oracle"), "--expectations", "/nonexistent"}).exit_code,
      2);
}

TEST(ConformCli, TimeoutsAreDecimalSecondsInARange) {
  using stguard_test::run_cli;
  // A fraction is accepted (generous: a sanitizer build of the fake adapter
  // on a loaded machine can take most of a second to answer).
  stguard_test::CliRun fraction = run_cli(
      {"conform", "-q", "--adapter", fake("oracle"), "--case", "layout/*", "--timeout", "5.5"});
  EXPECT_EQ(fraction.exit_code, 0) << fraction.err;
  for (const char* bad : {"-1", "0", "abc", "0.0001", "86401"}) {
    stguard_test::CliRun run = run_cli({"conform", "--adapter", fake("oracle"), "--timeout", bad});
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_NE(run.err.find("from 0.001 to 86400"), std::string::npos) << bad << ": " << run.err;
  }
}

TEST(ConformCli, AnAdapterThatIsNotExecutableIsNamedSo) {
  using stguard_test::run_cli;
  stguard_test::TempDir dir;
  const std::string script = dir.file("adapter.sh");
  std::ofstream(script) << "#!/bin/sh\necho '{\"verdict\":\"reject\"}'\n";
  std::filesystem::permissions(
      script, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  stguard_test::CliRun run = run_cli({"conform", "--adapter", script});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("is not an executable file"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("cannot find"), std::string::npos) << run.err;
}

// A bare word is looked up on PATH; a file of that name there that cannot
// run is named as such, not "cannot find".
TEST(ConformCli, AnAdapterOnPathThatIsNotExecutableIsNamedSo) {
  using stguard_test::run_cli;
  stguard_test::TempDir dir;
  const std::string name = "stguard-test-not-executable-adapter";
  std::ofstream(dir.file(name)) << "#!/bin/sh\necho '{\"verdict\":\"reject\"}'\n";
  std::filesystem::permissions(
      dir.file(name), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (dir.path().string() + ":" + saved).c_str(), 1);
  stguard_test::CliRun run = run_cli({"conform", "--adapter", name});
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("is not an executable file"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("cannot find"), std::string::npos) << run.err;
}

TEST(ConformCli, ReportsAreNeverWrittenIntoMissingDirectories) {
  using stguard_test::run_cli;
  stguard_test::TempDir dir;
  const std::string results = dir.file("r.jsonl");
  ASSERT_EQ(run_cli({"conform", "-q", "--adapter", fake("oracle"), "--case", "layout/*", "--jsonl",
                     results})
                .exit_code,
            0);
  const std::filesystem::path missing = dir.path() / "missing";
  for (const char* option : {"--html", "--junit", "--markdown", "--text"}) {
    stguard_test::CliRun run =
        run_cli({"conform", "report", option, (missing / "x.out").string(), results});
    EXPECT_EQ(run.exit_code, 2) << option;
    EXPECT_NE(run.err.find((missing / "x.out").string()), std::string::npos)
        << option << ": " << run.err;
    EXPECT_FALSE(std::filesystem::exists(missing)) << option;
  }
  stguard_test::CliRun html =
      run_cli({"conform", "report", "--html", "/nonexistent/dir/x.html", results});
  EXPECT_EQ(html.exit_code, 2);
  EXPECT_NE(html.err.find("/nonexistent/dir/x.html"), std::string::npos) << html.err;
  EXPECT_FALSE(std::filesystem::exists("/nonexistent"));
  // The same for `conform` itself.
  stguard_test::CliRun run = run_cli({"conform", "-q", "--adapter", fake("oracle"), "--case",
                                      "layout/*", "--html", (missing / "m.html").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(ConformCli, RunsWritesReportsAndHonoursExpectations) {
  using stguard_test::run_cli;
  stguard_test::TempDir dir;
  const std::string out_dir = dir.file("out");
  stguard_test::CliRun oracle = run_cli({"conform", "-q", "--adapter", fake("oracle"), "--name",
                                         "oracle", "--case", "layout/*", "--out-dir", out_dir});
  EXPECT_EQ(oracle.exit_code, 0) << oracle.out << oracle.err;
  for (const char* name : {"results.jsonl", "junit.xml", "matrix.html", "summary.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / name)) << name;
  }
  std::vector<nlohmann::json> lines = read_jsonl(out_dir + "/results.jsonl");
  ASSERT_FALSE(lines.empty());
  for (const nlohmann::json& line : lines) {
    EXPECT_EQ(line["reader"], "oracle");
    EXPECT_EQ(line["grade"], "PASS") << line.dump();
    EXPECT_EQ(line["group"], "layout");
  }

  // A failing reader fails the run; its failures written as expectations
  // make the same run pass; a reader that then passes is XPASS, not a failure.
  const std::string expectations = dir.file("known.txt");
  stguard_test::CliRun failing =
      run_cli({"conform", "-q", "--adapter", fake("reject"), "--name", "r", "--case", "layout/*",
               "--write-expectations", expectations});
  EXPECT_EQ(failing.exit_code, 1) << failing.err;
  EXPECT_NE(failing.out.find("FAIL_SHOULD_ACCEPT"), std::string::npos) << failing.out;
  stguard_test::CliRun expected =
      run_cli({"conform", "-q", "--adapter", fake("reject"), "--name", "r", "--case", "layout/*",
               "--expectations", expectations});
  EXPECT_EQ(expected.exit_code, 0) << expected.out;
  stguard_test::CliRun xpass =
      run_cli({"conform", "-q", "--adapter", fake("oracle"), "--name", "r", "--case", "layout/*",
               "--expectations", expectations, "--jsonl", dir.file("xpass.jsonl")});
  EXPECT_EQ(xpass.exit_code, 0) << xpass.out;
  bool saw_xpass = false;
  for (const nlohmann::json& line : read_jsonl(dir.file("xpass.jsonl"))) {
    saw_xpass = saw_xpass || line["expectation"] == "XPASS";
  }
  EXPECT_TRUE(saw_xpass);
  // A crash is a new failure even with the expectations.
  EXPECT_EQ(run_cli({"conform", "-q", "--adapter", fake("crash"), "--name", "r", "--case",
                     "layout/*", "--expectations", expectations})
                .exit_code,
            1);

  // Saved results of two runs combine into one matrix.
  const std::string a = dir.file("a.jsonl");
  const std::string b = dir.file("b.jsonl");
  run_cli({"conform", "-q", "--adapter", fake("oracle"), "--name", "a", "--case", "layout/*",
           "--jsonl", a});
  run_cli({"conform", "-q", "--adapter", fake("plain-accept"), "--plain", "--name", "b", "--case",
           "layout/*", "--jsonl", b});
  stguard_test::CliRun report = run_cli(
      {"conform", "report", "--html", dir.file("m.html"), "--markdown", dir.file("m.md"), a, b});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  std::ifstream md(dir.file("m.md"));
  std::string markdown((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(markdown.find("| a"), std::string::npos);
  EXPECT_NE(markdown.find("| b"), std::string::npos);
  EXPECT_EQ(run_cli({"conform", "report", dir.file("known.txt")}).exit_code, 2);
}

TEST(ConformCli, SkipsAReaderThatIsNotInstalled) {
  using stguard_test::run_cli;
  stguard_test::TempDir dir;
  std::filesystem::create_directory(dir.path() / "r");
  std::ofstream(dir.path() / "r" / "reader.json")
      << R"({"name":"absent","command":["/bin/true"],"version_command":["/bin/false"]})";
  const std::string reader_dir = (dir.path() / "r").string();
  stguard_test::CliRun run = run_cli({"conform", "-q", "--reader", reader_dir, "--case", "layout/*",
                                      "--jsonl", dir.file("r.jsonl")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("SKIPPED"), std::string::npos) << run.out;
  std::vector<nlohmann::json> lines = read_jsonl(dir.file("r.jsonl"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["skipped"], true);
  EXPECT_EQ(
      run_cli({"conform", "-q", "--reader", reader_dir, "--case", "layout/*", "--require-readers"})
          .exit_code,
      2);
}

}  // namespace
