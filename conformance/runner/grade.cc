// conformance/runner/grade.cc: adapter output -> grade (see grade.h).
#include "conformance/runner/grade.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

#include "conformance/runner/answer.h"

namespace stguard::conformance {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxMessageBytes = 2000;

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
std::string clip(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

// A view, not a copy: `text` can be the whole 16 MiB of an adapter's stdout.
std::string_view trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])) != 0) --end;
  return text.substr(begin, end - begin);
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ",";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::string quoted(const std::string& name) {
  return json(name).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Checks the fields of one reported tensor; "" when each has the protocol's
// type (the values are compared later).
std::string tensor_field_problem(const ReportedTensor& t) {
  if (!t.name) return "a tensor has no string \"name\"";
  const std::string who = "tensor " + quoted(clip(*t.name, 200));
  if (!t.dtype) return who + ": dtype " + t.dtype_shown + ", not a string";
  if (!t.shape_is_array) return who + ": shape is not an array";
  if (!t.offsets_is_array || t.offsets_count != 2) {
    return who + ": data_offsets is not a two-element array";
  }
  if (!t.sha256) return who + ": no string sha256";
  return {};
}

// Compares one reported tensor against its expectation; "" when equal.
std::string compare_tensor(const ReportedTensor& got, const ExpectedTensor& want) {
  const std::string who = "tensor " + quoted(want.name) + ": ";
  if (*got.dtype != want.dtype) {
    return who + "dtype " + quoted(*got.dtype) + ", expected " + want.dtype;
  }
  if (!got.shape_exact || got.shape != want.shape) {
    return who + "shape [" + got.shape_shown + "], expected " + shape_text(want.shape);
  }
  if (!got.begin || !got.end || *got.begin != want.begin || *got.end != want.end) {
    return who + "data_offsets [" + got.offsets_shown + "], expected [" +
           std::to_string(want.begin) + "," + std::to_string(want.end) + "]";
  }
  std::string hash = *got.sha256;
  std::transform(hash.begin(), hash.end(), hash.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  if (hash != want.sha256) return who + "bytes differ (sha256 " + clip(hash, 64) + ")";
  return {};
}

// Matches reported tensors by name against the expected ones as they are
// read, keeping only the first difference and a count.
class TensorMatcher {
 public:
  explicit TensorMatcher(const Case& c) {
    if (!c.expected) return;
    for (const ExpectedTensor& t : c.expected->tensors) expected_.emplace(t.name, Seen{&t, 0});
  }

  void add(const ReportedTensor& t) {
    std::string problem = tensor_field_problem(t);
    if (!problem.empty()) return difference(std::move(problem));
    const std::string& name = *t.name;
    auto it = expected_.find(name);
    if (it == expected_.end()) {
      // Only the first kTrackedUnexpected names are remembered (to tell a
      // repeated one); after that each is one more difference. An answer of
      // 100,000 unexpected tensors would otherwise hold them all.
      if (tracked_unexpected_ == kTrackedUnexpected) {
        return difference("unexpected tensor " + quoted(name));
      }
      if (unexpected_.insert(name)) {
        ++tracked_unexpected_;
        return difference("unexpected tensor " + quoted(name));
      }
      if (unexpected_twice_.insert(name)) difference("tensor " + quoted(name) + " reported twice");
      return;
    }
    if (++it->second.count == 2) difference("tensor " + quoted(name) + " reported twice");
    std::string d = compare_tensor(t, *it->second.tensor);
    if (!d.empty()) difference(std::move(d));
  }

  // The first difference and how many more, "" when none.
  std::string finish(const Case& c) {
    if (c.expected) {
      for (const ExpectedTensor& t : c.expected->tensors) {
        if (expected_.at(t.name).count == 0) difference("missing tensor " + quoted(t.name));
      }
    }
    if (count_ == 0) return {};
    std::string out = first_;
    if (count_ > 1) {
      out += " (and " + std::to_string(count_ - 1) + " more difference" + (count_ > 2 ? "s" : "") +
             ")";
    }
    return out;
  }

 private:
  struct Seen {
    const ExpectedTensor* tensor;
    int count;
  };
  void difference(std::string text) {
    if (count_++ == 0) first_ = std::move(text);
  }

  static constexpr std::size_t kTrackedUnexpected = 1024;

  std::map<std::string, Seen> expected_;
  std::size_t tracked_unexpected_ = 0;
  StringSet unexpected_;
  StringSet unexpected_twice_;
  std::string first_;
  std::size_t count_ = 0;
};

void grade_verdict(const Case& c, bool accepted, CaseResult& result) {
  result.verdict = accepted ? Verdict::kAccept : Verdict::kReject;
  switch (c.verdict) {
    case Verdict::kEither:
      result.grade = accepted ? Grade::kImplAccept : Grade::kImplReject;
      return;
    case Verdict::kAccept:
      result.grade = accepted ? Grade::kPass : Grade::kFailShouldAccept;
      return;
    case Verdict::kReject:
      result.grade = accepted ? Grade::kFailShouldReject : Grade::kPass;
      // The reader has no message for what it let through: say what is wrong
      // with the file.
      if (accepted) {
        result.detail = c.reason.empty() ? "accepted a file that must be rejected"
                                         : "accepted; must be rejected: " + c.reason;
      }
      return;
  }
}

void protocol_error(CaseResult& result, std::string detail) {
  result.grade = Grade::kProtocolError;
  result.verdict.reset();
  result.detail = std::move(detail);
}

void grade_json_output(const Case& c, const ProcessResult& run, CaseResult& result) {
  if (trim(run.stdout_text).empty()) {
    protocol_error(result, "no output on stdout");
    return;
  }
  TensorMatcher matcher(c);
  const AnswerParse parsed =
      parse_answer(run.stdout_text, [&](const ReportedTensor& t) { matcher.add(t); });
  if (!parsed.ok) {
    protocol_error(result, parsed.problem);
    return;
  }
  const Answer& answer = parsed.answer;
  const std::optional<Verdict> verdict =
      answer.verdict ? verdict_from_name(*answer.verdict) : std::nullopt;
  if (!verdict || *verdict == Verdict::kEither) {
    protocol_error(result, "\"verdict\" must be \"accept\" or \"reject\"");
    return;
  }
  if (answer.error_present) {
    if (!answer.error_valid) {
      protocol_error(result, "\"error\" must be a string or null");
      return;
    }
    result.reader_error = clip(answer.error, kMaxMessageBytes);
  }
  const bool accepted = *verdict == Verdict::kAccept;
  if (!accepted) {
    grade_verdict(c, false, result);
    return;
  }
  if (!answer.tensors_present || !answer.tensors_is_array) {
    protocol_error(result, "accepted without a \"tensors\" array");
    return;
  }
  if (answer.tensor_not_object) {
    protocol_error(result, "a \"tensors\" element is not an object");
    return;
  }
  // From here on the reader has accepted: what it reported is graded as
  // content (a reader that hands back an integer dtype accepted a file it
  // should not have, or reports the wrong thing; that is not the adapter's
  // protocol failing).
  grade_verdict(c, true, result);
  if (c.verdict == Verdict::kReject || !c.expected) return;
  std::string difference = matcher.finish(c);
  if (!difference.empty()) {
    result.grade = Grade::kFailWrongContent;
    result.detail = std::move(difference);
  }
}

CaseResult grade_answer(const Case& c, AdapterMode mode, const ProcessResult& run,
                        const ProcessLimits& limits);

}  // namespace

// What a crashing runtime said: the head and tail the capture kept
// (HeadTail), without surrounding blank lines.
std::string stderr_excerpt(const std::string& text) { return std::string(trim(text)); }

bool grade_process_failure(const ProcessResult& run, const ProcessLimits& limits,
                           CaseResult& result) {
  using Status = ProcessResult::Status;
  switch (run.status) {
    case Status::kSpawnFailed:
      result.grade = Grade::kCrash;
      result.detail = "could not start: " + run.spawn_error;
      return true;
    case Status::kTimedOut:
      result.grade = Grade::kTimeout;
      result.detail = "no result within " + std::to_string(limits.timeout.count()) +
                      " ms; the process group was killed";
      result.reader_error = stderr_excerpt(run.stderr_text);
      return true;
    case Status::kInterrupted:
      result.grade = Grade::kCrash;
      result.detail = "interrupted: the run was stopped";
      return true;
    case Status::kSignaled:
      result.grade = Grade::kCrash;
      result.detail = "killed by " + signal_name(run.term_signal);
      result.reader_error = stderr_excerpt(run.stderr_text);
      return true;
    case Status::kExited:
    case Status::kOutputOverflow:  // a protocol error: the answer's to grade
      return false;
  }
  return false;
}

std::string output_overflow_detail(const ProcessLimits& limits) {
  return "the answer exceeded " + std::to_string(limits.max_stdout_bytes) +
         " bytes (the stdout cap): reading stopped there and the adapter was killed";
}

void note_leftovers(const ProcessResult& run, CaseResult& result) {
  result.leftover_processes = run.leftover_processes;
  if (run.leftover_processes != 0) {
    std::string note = "left " + std::to_string(run.leftover_processes) +
                       (run.leftover_processes == 1 ? " process" : " processes") +
                       " running after it exited (killed)";
    if (run.output_held_open) {
      note += "; they held its output open, so the output was read only until " +
              std::to_string(kPipeGrace.count()) + " ms after the exit";
    }
    result.detail = result.detail.empty() ? note : result.detail + "; " + note;
  }
}

CaseResult grade_case(const Case& c, AdapterMode mode, const ProcessResult& run,
                      const ProcessLimits& limits) {
  CaseResult result = grade_answer(c, mode, run, limits);
  note_leftovers(run, result);
  return result;
}

namespace {

CaseResult grade_answer(const Case& c, AdapterMode mode, const ProcessResult& run,
                        const ProcessLimits& limits) {
  CaseResult result;
  result.case_id = c.id;
  result.group = c.group();
  result.expected_verdict = c.verdict;
  result.description = c.description;
  result.tags = c.tags;
  result.rules = c.rules;
  result.duration_ms = run.wall_ms;

  if (grade_process_failure(run, limits, result)) return result;
  if (run.status == ProcessResult::Status::kOutputOverflow) {
    protocol_error(result, output_overflow_detail(limits));
    return result;
  }
  if (mode == AdapterMode::kPlain) {
    if (run.exit_code == 0 || run.exit_code == 1) {
      grade_verdict(c, run.exit_code == 0, result);
      result.reader_error = stderr_excerpt(run.stderr_text);
    } else {
      result.grade = Grade::kCrash;
      result.detail = "exit status " + std::to_string(run.exit_code);
      result.reader_error = stderr_excerpt(run.stderr_text);
    }
    return result;
  }
  if (run.exit_code != 0) {
    result.grade = Grade::kCrash;
    result.detail = "exit status " + std::to_string(run.exit_code) +
                    " (the adapter protocol exits 0 for accept and reject)";
    result.reader_error = stderr_excerpt(run.stderr_text);
    return result;
  }
  if (run.stdout_truncated) {
    protocol_error(result, "stdout ran past " + std::to_string(limits.max_stdout_bytes) + " bytes");
    return result;
  }
  grade_json_output(c, run, result);
  return result;
}

}  // namespace

}  // namespace stguard::conformance
