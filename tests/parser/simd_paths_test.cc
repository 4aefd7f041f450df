// Every SIMD path of the parser (stguard/simd.h) gives the baseline path's
// answer, byte for byte: verdict, reason, offset and message, and for
// accepted headers the tensors and metadata, in both profiles, through
// validate_header and parse_header, on the inputs of path_inputs.h. A path
// this CPU lacks is skipped (the test says so), never run.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "stguard/header.h"
#include "stguard/simd.h"
#include "tests/parser/path_inputs.h"

namespace {

using stguard::Profile;
using stguard::SimdPath;

std::string run(const std::vector<std::uint8_t>& bytes, Profile profile, SimdPath path) {
  stguard::ParseOptions options;
  options.profile = profile;
  options.simd = path;
  const std::span<const std::uint8_t> span(bytes);
  return stguard_test::describe(stguard::validate_header(span, bytes.size(), options)) + "\n--\n" +
         stguard_test::describe(stguard::parse_header(span, bytes.size(), options));
}

TEST(SimdPathVerdicts, EveryPathGivesTheBaselinesAnswers) {
  std::vector<SimdPath> others;
  for (SimdPath path : stguard::supported_simd_paths()) {
    if (path != SimdPath::kBaseline) others.push_back(path);
  }
  if (others.empty()) GTEST_SKIP() << "this CPU has the baseline path only";
  for (SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512}) {
    if (!stguard::simd_path_supported(path)) {
      std::cout << "note: this CPU lacks " << stguard::simd_path_name(path) << "; not compared\n";
    }
  }
  const std::vector<stguard_test::PathInput> inputs = stguard_test::every_path_input();
  ASSERT_GT(inputs.size(), 10'000U + 400U);
  std::size_t compared = 0;
  std::size_t accepted = 0;
  int failures = 0;
  for (const stguard_test::PathInput& input : inputs) {
    for (Profile profile : {Profile::kStrict, Profile::kReference}) {
      const std::string want = run(input.bytes, profile, SimdPath::kBaseline);
      if (want.rfind("ok", 0) == 0) ++accepted;
      for (SimdPath path : others) {
        const std::string got = run(input.bytes, profile, path);
        ++compared;
        if (got != want) {
          ADD_FAILURE() << input.label << ", " << stguard::profile_name(profile) << ", "
                        << stguard::simd_path_name(path) << ":\n"
                        << got << "\nbaseline:\n"
                        << want;
          if (++failures == 10) return;
        }
      }
    }
  }
  std::cout << "compared " << compared << " parses on " << inputs.size() << " inputs (" << accepted
            << " accepted by the baseline, of " << 2 * inputs.size() << ")\n";
}

}  // namespace
