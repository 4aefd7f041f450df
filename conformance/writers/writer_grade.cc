// conformance/writers/writer_grade.cc: a writer's run -> grade
// (writer_grade.h).
#include "conformance/writers/writer_grade.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <span>

#include "base/failure.h"
#include "base/json.h"
#include "conformance/runner/answer.h"
#include "conformance/runner/grade.h"
#include "stguard/dtype.h"
#include "stguard/header.h"
#include "stguard/lint.h"

namespace stguard::conformance {
namespace {

// A name as a JSON string, quoted and escaped.
std::string json_quoted(std::string_view text) {
  return base::json_line(nlohmann::ordered_json(text));
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i == 0 ? "" : ",") + std::to_string(shape[i]);
  return out + "]";
}

// The answer on stdout: nullopt and *why when it is not one.
struct WriterAnswer {
  bool written = false;
  std::string error;
};

// The writer's answer, or why it is not one (a protocol error).
base::Result<WriterAnswer> read_answer(const ProcessResult& run) {
  if (run.stdout_truncated) {
    return base::fail("stdout ran past its cap");
  }
  if (run.stdout_text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return base::fail("nothing on stdout");
  }
  // The readers' bounded, strict reading (answer.h), not a document tree:
  // a writer printing 110,000 objects cost 250 MB that way.
  const AnswerParse parsed = parse_answer(run.stdout_text, [](const ReportedTensor&) {});
  if (!parsed.ok) {
    return base::fail(parsed.problem);
  }
  const std::optional<std::string>& outcome = parsed.answer.outcome;
  if (!outcome || (*outcome != "written" && *outcome != "refused")) {
    return base::fail("\"outcome\" must be \"written\" or \"refused\"");
  }
  if (parsed.answer.error_present && !parsed.answer.error_valid) {
    return base::fail("\"error\" must be a string or null");
  }
  if (!parsed.answer.reason_valid) {
    return base::fail("\"reason\" must be a string or null");
  }
  WriterAnswer answer;
  answer.written = *outcome == "written";
  answer.error = parsed.answer.error;
  return answer;
}

// The spec's metadata as the file must hold it: string pairs by key (the
// spec of a written case has string values only).
std::map<std::string, std::string> spec_metadata(const WriterSpec& spec) {
  std::map<std::string, std::string> out;
  if (!spec.metadata) return out;
  for (const auto& [key, value] : *spec.metadata) {
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

// The differences between the file and the spec; empty when none.
std::string content_difference(const WriterSpec& spec, const Header& header,
                               std::string_view bytes) {
  std::map<std::string, const TensorInfo*> by_name;
  for (const TensorInfo& t : header.tensors) by_name[std::string(t.name)] = &t;
  if (header.tensors.size() != spec.tensors.size()) {
    return "the file has " + std::to_string(header.tensors.size()) + " tensors, the spec " +
           std::to_string(spec.tensors.size());
  }
  for (const SpecTensor& want : spec.tensors) {
    const auto it = by_name.find(want.name);
    if (it == by_name.end()) return "tensor " + json_quoted(want.name) + " is missing";
    const TensorInfo& got = *it->second;
    if (dtype_name(got.dtype) != want.dtype) {
      return "tensor " + json_quoted(want.name) + ": dtype " + std::string(dtype_name(got.dtype)) +
             ", the spec " + want.dtype;
    }
    if (got.shape != want.shape) {
      return "tensor " + json_quoted(want.name) + ": shape " + shape_text(got.shape) +
             ", the spec " + shape_text(want.shape);
    }
    const std::string_view data = bytes.substr(header.data_offset() + got.begin, got.byte_size());
    if (data.size() != want.data.size() ||
        !std::equal(data.begin(), data.end(), want.data.begin(),
                    [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; })) {
      return "tensor " + json_quoted(want.name) + ": the data bytes differ from the spec's";
    }
  }
  std::map<std::string, std::string> got_metadata;
  if (header.metadata) {
    for (const auto& [key, value] : *header.metadata) got_metadata[key] = value;
  }
  const std::map<std::string, std::string> want_metadata = spec_metadata(spec);
  if (got_metadata != want_metadata) {
    for (const auto& [key, value] : want_metadata) {
      const auto it = got_metadata.find(key);
      if (it == got_metadata.end()) return "metadata " + json_quoted(key) + " is missing";
      if (it->second != value) return "metadata " + json_quoted(key) + ": the value differs";
    }
    for (const auto& [key, value] : got_metadata) {
      if (!want_metadata.count(key)) return "metadata " + json_quoted(key) + " is not in the spec";
    }
  }
  return "";
}

// The lints of a valid file with the right content: what a conforming
// reader accepts but a careful writer avoids. The header's are the parser's
// (stguard/lint.h, as `stguard inspect` shows them; the first misaligned
// tensor only), then the file's mode.
std::string lints(const Header& header, mode_t mode) {
  std::string padding, order, alignment, listing;
  for (const Lint& lint : lint_header(header)) {
    switch (lint.code) {
      case LintCode::kHeaderNotAligned:
        padding = "header not padded to a multiple of 8 bytes (" +
                  std::to_string(header.header_len) + ")";
        break;
      case LintCode::kDataMisaligned:
        if (alignment.empty()) {
          const TensorInfo& t = header.tensors[*lint.tensor];
          alignment = "tensor " + json_quoted(t.name) + "'s data not aligned to its " +
                      std::to_string(dtype_bits(t.dtype) / 8) + "-byte elements";
        }
        break;
      case LintCode::kNonCanonicalOrder:
        order = "tensors not in the canonical order (dtype, then name)";
        break;
      case LintCode::kOffsetsNotInOrder:
        listing = "tensors not listed in data order in the header";
        break;
    }
  }
  std::vector<std::string> found;
  for (std::string* said : {&padding, &order, &alignment, &listing}) {
    if (!said->empty()) found.push_back(std::move(*said));
  }
  if ((mode & S_IROTH) == 0)
    found.push_back("file not readable by others (mode " + [&] {
      char text[8];
      std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
      return std::string(text);
    }() + ")");
  std::string out;
  for (const std::string& lint : found) out += (out.empty() ? "lint: " : "; lint: ") + lint;
  return out;
}

}  // namespace

CaseResult grade_writer_case(const WriterCaseEntry& c, const WriterSpec& spec,
                             const ProcessResult& run, const WrittenFile& out,
                             const ProcessLimits& limits) {
  CaseResult result;
  result.case_id = c.id;
  result.group = c.id.substr(0, c.id.find('/'));
  result.expected_verdict = c.expect_write ? Verdict::kAccept : Verdict::kReject;
  result.description = c.description;
  result.tags = c.tags;
  result.duration_ms = run.wall_ms;
  note_leftovers(run, result);
  const std::string leftovers = result.detail;
  const auto finish = [&](Grade grade, std::string detail) {
    result.grade = grade;
    result.detail = leftovers.empty() ? std::move(detail)
                    : detail.empty()  ? leftovers
                                      : detail + "; " + leftovers;
    return result;
  };
  if (grade_process_failure(run, limits, result)) return finish(result.grade, result.detail);
  if (run.status == ProcessResult::Status::kOutputOverflow) {
    result.reader_error = stderr_excerpt(run.stderr_text);
    return finish(Grade::kProtocolError, output_overflow_detail(limits));
  }
  if (run.exit_code != 0) {
    result.reader_error = stderr_excerpt(run.stderr_text);
    return finish(Grade::kCrash, "exit status " + std::to_string(run.exit_code));
  }
  const base::Result<WriterAnswer> answer = read_answer(run);
  if (!answer) {
    result.reader_error = stderr_excerpt(run.stderr_text);
    return finish(Grade::kProtocolError, answer.error().message);
  }
  result.verdict = answer->written ? Verdict::kAccept : Verdict::kReject;
  result.reader_error = answer->error;
  if (!answer->written) {
    return c.expect_write ? finish(Grade::kFailShouldWrite, "refused a spec that must be written")
                          : finish(Grade::kPass, "");
  }
  if (!c.expect_write) {
    return finish(Grade::kFailShouldRefuse, "wrote a spec that must be refused (" + c.reason + ")");
  }
  if (!out.exists) return finish(Grade::kProtocolError, "said \"written\" but left no file");
  if (out.too_large) return finish(Grade::kFailInvalidOutput, "the file is larger than the cap");
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(out.bytes.data()),
                                            out.bytes.size());
  std::optional<Header> strict_header;
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    ParseOptions options;
    options.profile = profile;
    Result<Header> header = parse_header(bytes, bytes.size(), options);
    if (!header) {
      return finish(Grade::kFailInvalidOutput,
                    "the " + std::string(profile_name(profile)) +
                        " profile rejects the file: " + header.error().to_string());
    }
    if (profile == Profile::kStrict) strict_header = std::move(*header);
  }
  const std::string difference = content_difference(spec, *strict_header, out.bytes);
  if (!difference.empty()) return finish(Grade::kFailWrongContent, difference);
  return finish(Grade::kPass, lints(*strict_header, out.mode));
}

}  // namespace stguard::conformance
