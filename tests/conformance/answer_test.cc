// tests/conformance/answer_test.cc: the strict, bounded reading of adapter
// answers (conformance/runner/answer.h): duplicate keys, numbers out of range
// outside a shape or data_offsets, and each limit, all PROTOCOL_ERRORs whose
// message names the field or the limit; sizes beyond 64 bits graded as content.
#include "conformance/runner/answer.h"

#include <gtest/gtest.h>

#include <string>

#include "conformance/runner/grade.h"

namespace {

namespace conf = stguard::conformance;
using conf::Grade;
using conf::Verdict;

conf::Case accept_case() {
  conf::Case c;
  c.id = "group/case";
  c.file = "group/case.safetensors";
  c.verdict = Verdict::kAccept;
  c.expected.emplace();
  c.expected->tensors = {{"a", "F32", {2}, 0, 8, std::string(64, 'a')}};
  return c;
}

conf::CaseResult grade_output(const std::string& out, Verdict verdict = Verdict::kAccept) {
  conf::Case c = accept_case();
  c.verdict = verdict;
  conf::ProcessResult run;
  run.status = conf::ProcessResult::Status::kExited;
  run.stdout_text = out;
  return conf::grade_case(c, conf::AdapterMode::kJson, run, conf::ProcessLimits{});
}

std::string tensor_a(const std::string& shape, const std::string& offsets) {
  return R"({"name":"a","dtype":"F32","shape":)" + shape + R"(,"data_offsets":)" + offsets +
         R"(,"sha256":")" + std::string(64, 'a') + "\"}";
}

std::string accept_with(const std::string& tensors) {
  return R"({"verdict":"accept","tensors":[)" + tensors + "]}";
}

// The grade is PROTOCOL_ERROR and the detail holds each of `needles`.
void expect_protocol_error(const std::string& out, std::initializer_list<std::string> needles) {
  const conf::CaseResult r = grade_output(out);
  EXPECT_EQ(r.grade, Grade::kProtocolError) << out.substr(0, 200) << "\n" << r.detail;
  for (const std::string& needle : needles) {
    EXPECT_NE(r.detail.find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.detail;
  }
}

TEST(ConformAnswer, TheWellFormedAnswerPasses) {
  EXPECT_EQ(grade_output(accept_with(tensor_a("[2]", "[0,8]"))).grade, Grade::kPass);
  EXPECT_EQ(grade_output(accept_with(tensor_a(R"(["2"])", R"(["0","8"])"))).grade, Grade::kPass);
  // Unknown members, nested a little, are allowed.
  EXPECT_EQ(grade_output(R"({"extra":{"x":[[1,2],{"y":null}]},"verdict":"accept","tensors":[)" +
                         tensor_a("[2]", "[0,8]") + "]}")
                .grade,
            Grade::kPass);
}

TEST(ConformAnswer, DuplicateKeysAreProtocolErrors) {
  // Before: the last one won, and this graded as accept.
  expect_protocol_error(R"({"verdict":"reject","verdict":"accept","tensors":[]})",
                        {"duplicate key \"verdict\"", "the answer object"});
  expect_protocol_error(R"({"verdict":"accept","tensors":[{"name":"a","name":"b","dtype":"F32"}]})",
                        {"duplicate key \"name\"", "tensors[0]"});
  expect_protocol_error(R"({"verdict":"accept","x":{"k":1,"k":2},"tensors":[]})",
                        {"duplicate key \"k\"", "in x"});
}

TEST(ConformAnswer, NumbersOutOfRangeOutsideSizesAreProtocolErrorsNamingTheField) {
  expect_protocol_error(R"({"verdict":"accept","count":-9223372036854775809,"tensors":[]})",
                        {"count", "64-bit range"});
  expect_protocol_error(R"({"verdict":"accept","count":18446744073709551616,"tensors":[]})",
                        {"count", "64-bit range"});
  // A double too large to be finite.
  expect_protocol_error(accept_with(tensor_a("[1e400]", "[0,8]")),
                        {"tensors[0].shape[0]", "number overflow"});
  // NaN and Infinity are not JSON.
  expect_protocol_error(accept_with(tensor_a("[NaN]", "[0,8]")), {"tensors[0].shape[0]"});
  expect_protocol_error(accept_with(tensor_a("[2]", "[0,Infinity]")),
                        {"tensors[0].data_offsets[1]"});
}

// A size of 2^64 or more in a shape or data_offsets, as a JSON integer or a
// decimal string, is what the reader reported (a reader that does not wrap
// the size it read): content, which never equals an expected size. Before:
// PROTOCOL_ERROR, which blamed the adapter for the reader's behaviour.
TEST(ConformAnswer, SizesBeyond64BitsAreGradedAsContent) {
  for (const std::string& huge :
       {std::string("18446744073709551616"), std::string("\"99999999999999999999999\"")}) {
    const conf::CaseResult shape = grade_output(accept_with(tensor_a("[" + huge + "]", "[0,8]")));
    EXPECT_EQ(shape.grade, Grade::kFailWrongContent) << huge << "\n" << shape.detail;
    EXPECT_NE(shape.detail.find(huge.substr(huge[0] == '"' ? 1 : 0, 20)), std::string::npos)
        << shape.detail;
    const conf::CaseResult offsets = grade_output(accept_with(tensor_a("[2]", "[0," + huge + "]")));
    EXPECT_EQ(offsets.grade, Grade::kFailWrongContent) << huge << "\n" << offsets.detail;
    // Where the file must be rejected, the accept is what counts.
    EXPECT_EQ(
        grade_output(accept_with(tensor_a("[" + huge + "]", "[0,8]")), Verdict::kReject).grade,
        Grade::kFailShouldReject)
        << huge;
  }
  // The largest value is exact (and here wrong); a string that is not digits is content.
  EXPECT_EQ(grade_output(accept_with(tensor_a(R"(["18446744073709551615"])", "[0,8]"))).grade,
            Grade::kFailWrongContent);
  EXPECT_EQ(grade_output(accept_with(tensor_a(R"(["2x"])", "[0,8]"))).grade,
            Grade::kFailWrongContent);
}

TEST(ConformAnswer, DepthLimit) {
  const std::size_t limit = conf::kMaxAnswerDepth;
  // The answer object counts as one level.
  const std::string ok_nest = std::string(limit - 1, '[') + std::string(limit - 1, ']');
  EXPECT_EQ(grade_output(R"({"verdict":"accept","x":)" + ok_nest + R"(,"tensors":[)" +
                         tensor_a("[2]", "[0,8]") + "]}")
                .grade,
            Grade::kPass);
  const std::string deep = std::string(limit, '[') + std::string(limit, ']');
  expect_protocol_error(R"({"verdict":"accept","x":)" + deep + R"(,"tensors":[]})",
                        {"nests deeper than the limit of 64"});
  // 8 million brackets stop at the limit, without reading them all into a tree.
  expect_protocol_error(R"({"x":)" + std::string(8'000'000, '['), {"limit of 64"});
}

TEST(ConformAnswer, TensorCountLimit) {
  std::string many;
  for (std::size_t i = 0; i <= conf::kMaxAnswerTensors; ++i) many += i == 0 ? "{}" : ",{}";
  expect_protocol_error(accept_with(many),
                        {"more than the limit of 100000 elements in \"tensors\""});
  // At the limit: graded as content (these are not the expected tensors).
  many.resize(many.size() - 3);
  EXPECT_EQ(grade_output(accept_with(many)).grade, Grade::kFailWrongContent);
}

TEST(ConformAnswer, NameLengthLimit) {
  const std::string long_name(conf::kMaxAnswerNameBytes + 1, 'n');
  expect_protocol_error(accept_with(R"({"name":")" + long_name + "\"}"),
                        {"tensors[0].name", "longer than the limit of 1048576 bytes"});
  const std::string at_limit(conf::kMaxAnswerNameBytes, 'n');
  EXPECT_EQ(grade_output(accept_with(R"({"name":")" + at_limit + "\"}")).grade,
            Grade::kFailWrongContent);
}

TEST(ConformAnswer, StringAndRunLimits) {
  const std::size_t string_limit = conf::kMaxAnswerStringBytes;
  const std::size_t run_limit = conf::kMaxAnswerRunBytes;
  const std::string reject = R"({"verdict":"reject","error":")";
  // At the limits: read as usual.
  EXPECT_EQ(grade_output(reject + std::string(string_limit, 'x') + "\"}", Verdict::kReject).grade,
            Grade::kPass);
  // (the blanks and the opening brace make the stretch)
  EXPECT_EQ(
      grade_output(std::string(run_limit - 1, ' ') + reject + "no\"}", Verdict::kReject).grade,
      Grade::kPass);
  // One byte past: a protocol error that names the limit and where.
  expect_protocol_error(
      reject + std::string(string_limit + 1, 'x') + "\"}",
      {"a string longer than 2097152 bytes at byte 28", "limit of one JSON string"});
  expect_protocol_error(std::string(run_limit, ' ') + reject + "no\"}",
                        {"more than 4194304 bytes outside strings", "from byte 0"});
  // A whole answer, then too many blanks: still the limit, not accepted.
  expect_protocol_error(reject + "no\"}" + std::string(run_limit + 1, '\n'),
                        {"more than 4194304 bytes outside strings", "from byte 32"});
  // A number that long is such a stretch too.
  expect_protocol_error(R"({"verdict":"reject","x":)" + std::string(run_limit + 1, '1') + "}",
                        {"more than 4194304 bytes outside strings"});
  // Escaped quotes do not end a string.
  expect_protocol_error(reject + std::string(string_limit, '\\') + "\\\"" + "\"}",
                        {"limit of one JSON string"});
  // A fault before the cut still wins.
  expect_protocol_error(R"({"verdict":"reject","verdict":"reject","error":")" +
                            std::string(string_limit + 1, 'x') + "\"}",
                        {"duplicate key \"verdict\""});
}

TEST(ConformAnswer, RankAndMemberLimits) {
  std::string shape = "[0";
  for (std::size_t i = 0; i < conf::kMaxAnswerRank; ++i) shape += ",0";
  shape += "]";
  expect_protocol_error(accept_with(tensor_a(shape, "[0,8]")),
                        {"tensors[0].shape", "more than the limit of 1048576 elements"});
  std::string members = R"({"verdict":"accept","tensors":[])";
  for (std::size_t i = 0; i < conf::kMaxAnswerMembers; ++i) {
    members += ",\"k" + std::to_string(i) + "\":0";
  }
  expect_protocol_error(members + "}", {"more than the limit of 1000 members"});
}

TEST(ConformAnswer, ErrorsAndNonObjects) {
  expect_protocol_error("[]", {"not an object"});
  expect_protocol_error("{\"verdict\":\"reject\"} trailing", {"not one JSON object", "trailing"});
  const conf::CaseResult reject = grade_output(R"({"verdict":"reject","error":"bad"})");
  EXPECT_EQ(reject.grade, Grade::kFailShouldAccept);
  EXPECT_EQ(reject.reader_error, "bad");
}

// A lone surrogate escaped in a string (\ud800 with no low surrogate after
// it, \udc00 with no high one before it) is JSON by its grammar, and what
// Python's json.dumps writes for a name it read from a file holding one. It
// is read as U+FFFD, so the answer is graded by what the reader did: before,
// a lone surrogate in a reported name made a PROTOCOL_ERROR, while the same
// reader accepting one in metadata (not part of the answer) was graded
// FAIL_SHOULD_REJECT.
TEST(ConformAnswer, ALoneSurrogateIsReadAsAReplacementCharacterNotAProtocolError) {
  for (const std::string name : {R"(a\ud800)", R"(a\udc00)", R"(\ud800\u0041)", R"(\udbff)",
                                 R"(\ud800\ud800\udc00)", R"(x\udc00\ud800)"}) {
    const std::string answer = R"({"verdict":"accept","tensors":[{"name":")" + name +
                               R"(","dtype":"F32","shape":[2],"data_offsets":[0,8],"sha256":")" +
                               std::string(64, 'a') + "\"}]}";
    const conf::CaseResult must_reject = grade_output(answer, Verdict::kReject);
    EXPECT_EQ(must_reject.grade, Grade::kFailShouldReject) << name << ": " << must_reject.detail;
    // On a file with a name "a", it is another name: wrong content.
    const conf::CaseResult content = grade_output(answer, Verdict::kAccept);
    EXPECT_EQ(content.grade, Grade::kFailWrongContent) << name << ": " << content.detail;
    EXPECT_NE(content.detail.find("\xEF\xBF\xBD"), std::string::npos) << content.detail;
  }
  const conf::CaseResult message =
      grade_output(R"({"verdict":"reject","error":"bad name \udc00 in \"x\""})");
  EXPECT_EQ(message.grade, Grade::kFailShouldAccept);
  EXPECT_EQ(message.reader_error, "bad name \xEF\xBF\xBD in \"x\"");
  // A pair is one code point; an escaped backslash before "ud800" is no
  // escape; a key is read the same way.
  EXPECT_EQ(grade_output(R"({"verdict":"reject","error":"\ud83d\ude00 \\ud800"})").reader_error,
            "\xF0\x9F\x98\x80 \\ud800");
  EXPECT_EQ(grade_output(R"({"verdict":"reject","error":"e","k\ud800":1})").grade,
            Grade::kFailShouldAccept);
  // Byte offsets in messages are those of the text as written.
  expect_protocol_error(R"({"verdict":"reject","error":"\u0041", x})", {"byte 39)"});
  expect_protocol_error(R"({"verdict":"reject","error":"\ud800", x})", {"byte 39)"});
}

TEST(ConformAnswer, StringSetKeepsLongStringsExactly) {
  conf::StringSet set;
  const std::string long_a(1000, 'a');
  std::string long_b = long_a;
  long_b.back() = 'b';
  EXPECT_TRUE(set.insert(long_a));
  EXPECT_TRUE(set.insert(long_b));
  EXPECT_FALSE(set.insert(long_a));
  EXPECT_TRUE(set.insert("short"));
  EXPECT_FALSE(set.insert("short"));
}

}  // namespace
