// Generator harness: the structured generator (conformance/mutate/structured.h, shared
// with `stguard hunt`) turns the input into a header (tensor names, dtypes,
// shapes, field order, metadata, padding) and, now and then, one or more
// faults (duplicate names, gaps, overlaps, swapped offsets, zero and huge
// dims, sub-byte sizes, unknown/missing/repeated fields, bad dtypes, non-space
// padding, bad metadata); it writes a consistent length prefix and data
// buffer, so most executions reach the size and layout checks that raw byte
// mutation rarely gets to. Checks every invariant (check_all), plus:
// a file built without faults is accepted by both profiles with exactly the
// tensors generated, and a file with a fault the strict profile must refuse
// is refused.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "conformance/mutate/structured.h"
#include "fuzz_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stguard::mutate::StructuredFile generated =
      stguard::mutate::generate_structured(std::span<const std::uint8_t>(data, size));
  const std::vector<std::uint8_t>& file = generated.bytes;
  const std::string& json = generated.header_json;
  const std::uint64_t data_len = generated.data_len;
  const stguard::mutate::FaultPlan& plan = generated.plan;
  const std::vector<stguard::mutate::PlannedTensor>& tensors = generated.tensors;

  stguard_fuzz::check_all(file.data(), file.size());

  stguard::ParseOptions reference_options;
  reference_options.profile = stguard::Profile::kReference;
  const stguard::Result<stguard::Header> strict = stguard::parse(file);
  const stguard::Result<stguard::Header> reference = stguard::parse(file, reference_options);
  // On a broken expectation, show what was generated and both verdicts.
  const auto expect = [&](bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "generated header (%zu bytes, data %llu bytes): %s\n", json.size(),
                 static_cast<unsigned long long>(data_len), json.c_str());
    std::fprintf(stderr, "planned: strict_fault=%d reference_fault=%d unknown=%d\n",
                 plan.strict_fault, plan.reference_fault, plan.unknown);
    std::fprintf(stderr, "strict: %s\nreference: %s\n",
                 strict ? "accept" : strict.error().to_string().c_str(),
                 reference ? "accept" : reference.error().to_string().c_str());
    stguard_fuzz::fail(what);
  };
  if (plan.strict_fault) expect(!strict.has_value(), "strict accepts a file built with a fault");
  if (plan.reference_fault) {
    expect(!reference.has_value(), "reference accepts a file built with a fault");
  }
  if (!plan.strict_fault && !plan.reference_fault && !plan.unknown) {
    expect(reference.has_value(), "reference rejects a file built without faults");
    expect(strict.has_value(), "strict rejects a file built without faults");
    expect(strict->tensors.size() == tensors.size(), "strict reads a different tensor count");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const stguard::TensorInfo& got = strict->tensors[i];
      expect(got.name == tensors[i].name, "strict reads a different name");
      expect(got.dtype == *tensors[i].dtype, "strict reads a different dtype");
      expect(got.shape == tensors[i].shape, "strict reads a different shape");
      expect(got.begin == tensors[i].begin && got.end == tensors[i].end,
             "strict reads different offsets");
    }
  }
  return 0;
}
