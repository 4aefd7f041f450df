// conformance/runner/grade.cc: adapter output -> grade (see grade.h).
#include "conformance/runner/grade.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

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

std::string trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])) != 0) --end;
  return std::string(text.substr(begin, end - begin));
}

// The end of stderr, where a crashing runtime says why.
std::string stderr_excerpt(const std::string& tail) {
  std::string text = trim(tail);
  if (text.size() > kMaxMessageBytes) {
    std::size_t start = text.size() - kMaxMessageBytes;
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
      ++start;
    }
    text = "..." + text.substr(start);
  }
  return text;
}

std::optional<std::uint64_t> exact_u64(const json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer()) {
    std::int64_t v = value.get<std::int64_t>();
    if (v >= 0) return static_cast<std::uint64_t>(v);
    return std::nullopt;
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    std::uint64_t v = 0;
    if (text.empty() || text.size() > 20 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
  }
  return std::nullopt;
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

// Compares one reported tensor against its expectation; "" when equal.
std::string compare_tensor(const json& got, const ExpectedTensor& want) {
  const std::string who = "tensor " + quoted(want.name) + ": ";
  if (got["dtype"].get<std::string>() != want.dtype) {
    return who + "dtype " + quoted(got["dtype"].get<std::string>()) + ", expected " + want.dtype;
  }
  const json& shape = got["shape"];
  bool shape_ok = shape.size() == want.shape.size();
  for (std::size_t i = 0; shape_ok && i < shape.size(); ++i) {
    std::optional<std::uint64_t> dim = exact_u64(shape[i]);
    shape_ok = dim && *dim == want.shape[i];
  }
  if (!shape_ok) {
    return who + "shape " + shape.dump(-1, ' ', false, json::error_handler_t::replace) +
           ", expected " + shape_text(want.shape);
  }
  const json& offsets = got["data_offsets"];
  std::optional<std::uint64_t> begin = exact_u64(offsets[0]);
  std::optional<std::uint64_t> end = exact_u64(offsets[1]);
  if (!begin || !end || *begin != want.begin || *end != want.end) {
    return who + "data_offsets " + offsets.dump(-1, ' ', false, json::error_handler_t::replace) +
           ", expected [" + std::to_string(want.begin) + "," + std::to_string(want.end) + "]";
  }
  std::string hash = got["sha256"].get<std::string>();
  std::transform(hash.begin(), hash.end(), hash.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  if (hash != want.sha256) return who + "bytes differ (sha256 " + clip(hash, 64) + ")";
  return {};
}

// Checks the fields of one reported tensor object; "" when each has the
// protocol's type (the values are compared later).
std::string tensor_field_problem(const json& t) {
  auto name = t.find("name");
  auto dtype = t.find("dtype");
  auto shape = t.find("shape");
  auto offsets = t.find("data_offsets");
  auto sha = t.find("sha256");
  const std::string who = name != t.end() && name->is_string()
                              ? "tensor " + quoted(name->get<std::string>())
                              : "a tensor";
  if (name == t.end() || !name->is_string()) return "a tensor has no string \"name\"";
  if (dtype == t.end() || !dtype->is_string()) {
    return who + ": dtype " +
           (dtype == t.end()
                ? "missing"
                : clip(dtype->dump(-1, ' ', false, json::error_handler_t::replace), 80)) +
           ", not a string";
  }
  if (shape == t.end() || !shape->is_array()) return who + ": shape is not an array";
  if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2) {
    return who + ": data_offsets is not a two-element array";
  }
  if (sha == t.end() || !sha->is_string()) return who + ": no string sha256";
  return {};
}

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
  json output = json::parse(run.stdout_text, nullptr, /*allow_exceptions=*/false);
  if (output.is_discarded()) {
    std::string shown = trim(run.stdout_text);
    protocol_error(result, shown.empty() ? "no output on stdout"
                                         : "stdout is not one JSON object: " + clip(shown, 200));
    return;
  }
  if (!output.is_object()) {
    protocol_error(result, "stdout is JSON but not an object");
    return;
  }
  const auto verdict_field = output.find("verdict");
  const std::optional<Verdict> verdict =
      verdict_field != output.end() && verdict_field->is_string()
          ? verdict_from_name(verdict_field->get_ref<const std::string&>())
          : std::nullopt;
  if (!verdict || *verdict == Verdict::kEither) {
    protocol_error(result, "\"verdict\" must be \"accept\" or \"reject\"");
    return;
  }
  if (auto error = output.find("error"); error != output.end()) {
    if (error->is_string()) {
      result.reader_error = clip(error->get_ref<const std::string&>(), kMaxMessageBytes);
    } else if (!error->is_null()) {
      protocol_error(result, "\"error\" must be a string or null");
      return;
    }
  }
  const bool accepted = *verdict == Verdict::kAccept;
  if (!accepted) {
    grade_verdict(c, false, result);
    return;
  }
  auto tensors = output.find("tensors");
  if (tensors == output.end() || !tensors->is_array()) {
    protocol_error(result, "accepted without a \"tensors\" array");
    return;
  }
  for (const json& t : *tensors) {
    if (!t.is_object()) {
      protocol_error(result, "a \"tensors\" element is not an object");
      return;
    }
  }
  // From here on the reader has accepted: what it reported is graded as
  // content (a reader that hands back an integer dtype accepted a file it
  // should not have, or reports the wrong thing; that is not the adapter's
  // protocol failing).
  grade_verdict(c, true, result);
  if (c.verdict == Verdict::kReject || !c.expected) return;

  // Match by name; report the first difference and how many there are.
  std::map<std::string, const ExpectedTensor*> expected;
  for (const ExpectedTensor& t : c.expected->tensors) expected.emplace(t.name, &t);
  std::map<std::string, int> seen;
  std::vector<std::string> differences;
  for (const json& t : *tensors) {
    std::string problem = tensor_field_problem(t);
    if (!problem.empty()) {
      differences.push_back(std::move(problem));
      continue;
    }
    const std::string& name = t["name"].get_ref<const std::string&>();
    if (++seen[name] == 2) differences.push_back("tensor " + quoted(name) + " reported twice");
    auto it = expected.find(name);
    if (it == expected.end()) {
      if (seen[name] == 1) differences.push_back("unexpected tensor " + quoted(name));
      continue;
    }
    std::string difference = compare_tensor(t, *it->second);
    if (!difference.empty()) differences.push_back(std::move(difference));
  }
  for (const ExpectedTensor& t : c.expected->tensors) {
    if (seen.find(t.name) == seen.end()) differences.push_back("missing tensor " + quoted(t.name));
  }
  if (!differences.empty()) {
    result.grade = Grade::kFailWrongContent;
    result.detail = differences.front();
    if (differences.size() > 1) {
      result.detail += " (and " + std::to_string(differences.size() - 1) + " more difference" +
                       (differences.size() > 2 ? "s" : "") + ")";
    }
  }
}

}  // namespace

CaseResult grade_case(const Case& c, AdapterMode mode, const ProcessResult& run,
                      const ProcessLimits& limits) {
  CaseResult result;
  result.case_id = c.id;
  result.group = c.group();
  result.expected_verdict = c.verdict;
  result.description = c.description;
  result.tags = c.tags;
  result.duration_ms = run.wall_ms;

  using Status = ProcessResult::Status;
  switch (run.status) {
    case Status::kSpawnFailed:
      result.grade = Grade::kCrash;
      result.detail = "could not start: " + run.spawn_error;
      return result;
    case Status::kTimedOut:
      result.grade = Grade::kTimeout;
      result.detail = "no result within " + std::to_string(limits.timeout.count()) +
                      " ms; the process group was killed";
      result.reader_error = stderr_excerpt(run.stderr_tail);
      return result;
    case Status::kSignaled:
      result.grade = Grade::kCrash;
      result.detail = "killed by " + signal_name(run.term_signal);
      result.reader_error = stderr_excerpt(run.stderr_tail);
      return result;
    case Status::kExited:
      break;
  }
  if (mode == AdapterMode::kPlain) {
    if (run.exit_code == 0 || run.exit_code == 1) {
      grade_verdict(c, run.exit_code == 0, result);
      result.reader_error = stderr_excerpt(run.stderr_tail);
    } else {
      result.grade = Grade::kCrash;
      result.detail = "exit status " + std::to_string(run.exit_code);
      result.reader_error = stderr_excerpt(run.stderr_tail);
    }
    return result;
  }
  if (run.exit_code != 0) {
    result.grade = Grade::kCrash;
    result.detail = "exit status " + std::to_string(run.exit_code) +
                    " (the adapter protocol exits 0 for accept and reject)";
    result.reader_error = stderr_excerpt(run.stderr_tail);
    return result;
  }
  if (run.stdout_truncated) {
    protocol_error(result, "stdout ran past " + std::to_string(limits.max_stdout_bytes) + " bytes");
    return result;
  }
  grade_json_output(c, run, result);
  return result;
}

}  // namespace stguard::conformance
