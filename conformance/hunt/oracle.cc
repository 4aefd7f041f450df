// conformance/hunt/oracle.cc: stguard's verdicts as a gradable case (oracle.h).
#include "conformance/hunt/oracle.h"

#include <string>

#include "base/sha256.h"
#include "stguard/stguard.h"

namespace stguard::hunt {
namespace {

conformance::ExpectedOutcome outcome(const Result<Header>& parsed) {
  conformance::ExpectedOutcome out;
  out.accept = parsed.has_value();
  if (!out.accept) {
    out.reason = std::string(reason_name(parsed.error().reason));
    out.offset = parsed.error().offset;
  }
  return out;
}

conformance::ExpectedContent content(const Header& header, std::span<const std::uint8_t> file) {
  conformance::ExpectedContent out;
  out.metadata = header.metadata;
  const std::span<const std::uint8_t> data = file.subspan(header.data_offset());
  for (const TensorInfo& t : header.tensors) {
    conformance::ExpectedTensor e;
    e.name = t.name;
    e.dtype = std::string(dtype_name(t.dtype));
    e.shape = t.shape.to_vector();
    e.begin = t.begin;
    e.end = t.end;
    e.sha256 = base::sha256_hex(data.subspan(t.begin, t.end - t.begin));
    out.tensors.push_back(std::move(e));
  }
  return out;
}

}  // namespace

Oracle judge(std::span<const std::uint8_t> file) {
  ParseOptions reference_options;
  reference_options.profile = Profile::kReference;
  const Result<Header> strict = parse(file);
  const Result<Header> reference = parse(file, reference_options);

  Oracle o;
  o.strict = outcome(strict);
  o.reference = outcome(reference);
  conformance::Case& c = o.expected;
  c.id = "hunt/file";
  c.file = "file.safetensors";
  c.size = file.size();
  c.strict = o.strict.verdict();
  c.reference = o.reference.verdict();
  c.verdict = conformance::case_verdict(c.strict, c.reference);
  c.reason = !o.strict.accept ? o.strict.reason : o.reference.reason;
  if (strict) {
    c.expected = content(*strict, file);
  } else if (reference) {
    c.expected = content(*reference, file);
  }
  return o;
}

}  // namespace stguard::hunt
