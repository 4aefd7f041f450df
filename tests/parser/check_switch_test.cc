// tests/parser/check_switch_test.cc: every check of the plain path is needed
// by the corpus (parser/src/checks.h).
//
// Against the parser built with STGUARD_CHECK_SWITCHES, the whole corpus is
// read through the plain path (every layer off, parser/src/layers.h) in both
// profiles, once with every check and once with each check left out: always,
// and for the checks that judge one tensor, also only when that tensor is of
// one kind (the conditional mutants: readers' bugs are mostly a check
// skipped in some condition, such as a shape product that stops at rank 8),
// and the trailing-bytes check only when the header has no tensors.
// Some case must then change its answer (verdict, reason, offset, or the
// header read); a check no case needs is one a reader could lack and still
// pass the corpus. The few pairs that no file can tell apart are listed
// below, each with the reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "parser/src/checks.h"
#include "parser/src/layers.h"
#include "stguard/stguard.h"

namespace {

namespace fs = std::filesystem;
using stguard::detail::CheckCondition;
using stguard::detail::CheckId;
using stguard::detail::CheckSwitch;

struct Case {
  std::string id;
  std::vector<std::uint8_t> bytes;
};

const std::vector<Case>& corpus() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out;
    std::ifstream in(fs::path(STGUARD_CORPUS_DIR) / "manifest.json");
    const nlohmann::json manifest = nlohmann::json::parse(in);
    for (const nlohmann::json& c : manifest["cases"]) {
      std::ifstream file(fs::path(STGUARD_CORPUS_DIR) / c["file"].get<std::string>(),
                         std::ios::binary);
      out.push_back({c["id"], std::vector<std::uint8_t>(std::istreambuf_iterator<char>(file),
                                                        std::istreambuf_iterator<char>())});
    }
    return out;
  }();
  return cases;
}

// A case's answer in one profile, as text: the error's reason and offset, or
// the header read (tensors and metadata).
std::string answer(const Case& c, stguard::Profile profile) {
  stguard::ParseOptions options;
  options.profile = profile;
  const stguard::Result<stguard::Header> r = stguard::parse(c.bytes, options);
  if (!r) {
    return std::string(stguard::reason_name(r.error().reason)) + " @ " +
           std::to_string(r.error().offset);
  }
  std::ostringstream out;
  out << "accept";
  for (const stguard::TensorInfo& t : r->tensors) {
    out << " " << t.name << ":" << stguard::dtype_name(t.dtype) << ":" << t.shape.size() << ":"
        << t.begin << "-" << t.end;
  }
  if (r->metadata) {
    for (const auto& [key, value] : *r->metadata) out << " " << key << "=" << value;
  }
  return out.str();
}

// Every case's answers, both profiles, through the plain path, with
// `left_out` (or every check).
std::vector<std::string> answers(std::optional<CheckSwitch> left_out) {
  const stguard::detail::LayersInForce plain(stguard::detail::Layers::plain());
  stguard::detail::leave_out(left_out);
  std::vector<std::string> out;
  for (const Case& c : corpus()) {
    out.push_back(answer(c, stguard::Profile::kStrict));
    out.push_back(answer(c, stguard::Profile::kReference));
  }
  stguard::detail::leave_out(std::nullopt);
  return out;
}

const std::vector<std::string>& baseline() {
  static const std::vector<std::string> all = answers(std::nullopt);
  return all;
}

// The conditions under which `id` is also left out: for the checks that
// judge one tensor, each kind of tensor; for the check after the last one,
// a header without tensors.
std::vector<CheckCondition> conditions_of(CheckId id) {
  switch (id) {
    case CheckId::kBeginAfterEnd:
    case CheckId::kSizeOverflow:
    case CheckId::kSubbyteMisaligned:
    case CheckId::kSizeMismatch:
    case CheckId::kOutOfBounds:
    case CheckId::kGap:
    case CheckId::kOverlap:
      return {CheckCondition::kAlways,        CheckCondition::kRank0,
              CheckCondition::kRank8OrMore,   CheckCondition::kZeroElements,
              CheckCondition::kSubByteDtype,  CheckCondition::kEmptyDataBuffer,
              CheckCondition::kLastInKeyOrder};
    case CheckId::kTrailingData:
      return {CheckCondition::kAlways, CheckCondition::kNoTensors};
    default:
      return {CheckCondition::kAlways};
  }
}

// (check, condition) pairs that no file can tell from the check in force,
// with the reason. Each must stay true: the test fails when one of them
// turns out to change a case after all (the reason was wrong).
const std::map<std::pair<CheckId, CheckCondition>, const char*> kEquivalent = {
    {{CheckId::kSubbyteMisaligned, CheckCondition::kZeroElements},
     "zero elements are zero bits, a whole number of bytes"},
    {{CheckId::kSizeOverflow, CheckCondition::kZeroElements},
     "an element count that overflowed is not zero (the facts say no elements only for a count "
     "that fits)"},
    {{CheckId::kSizeOverflow, CheckCondition::kRank0},
     "a scalar has one element, whose bits always fit"},
    {{CheckId::kGap, CheckCondition::kEmptyDataBuffer},
     "an empty buffer has no byte to leave uncovered: a tensor starting past it ends past it, and "
     "is out of bounds first"},
    {{CheckId::kOverlap, CheckCondition::kEmptyDataBuffer},
     "in an empty buffer every tensor in bounds is [0,0), and an empty range overlaps nothing"},
    {{CheckId::kTooManyTensors, CheckCondition::kAlways},
     "under the default limits a strict entry takes at least 47 bytes, so more than max_tensors "
     "(10,000,000) tensors need a header above max_header_bytes (100,000,000), which both "
     "profiles reject first; tests/parser/limits_test.cc checks the count with a lowered cap"},
};

class CheckSwitchTest : public ::testing::TestWithParam<CheckId> {};

TEST_P(CheckSwitchTest, SomeCaseNeedsIt) {
  const CheckId id = GetParam();
  ASSERT_GE(corpus().size(), 600u);
  for (const CheckCondition when : conditions_of(id)) {
    const std::vector<std::string> got = answers(CheckSwitch{id, when});
    std::size_t changed = 0;
    std::string example;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] == baseline()[i]) continue;
      if (changed++ == 0) {
        example = corpus()[i / 2].id + (i % 2 == 0 ? " (strict): " : " (reference): ") +
                  baseline()[i] + " -> " + got[i];
      }
    }
    const auto equivalent = kEquivalent.find({id, when});
    std::cout << stguard::detail::check_name(id) << " left out, "
              << stguard::detail::condition_name(when) << ": " << changed << " answers change"
              << (example.empty() ? "" : ", e.g. " + example) << "\n";
    if (equivalent != kEquivalent.end()) {
      EXPECT_EQ(changed, 0u) << stguard::detail::check_name(id) << " / "
                             << stguard::detail::condition_name(when)
                             << " is listed as equivalent (" << equivalent->second
                             << "), yet it changes an answer: " << example;
      continue;
    }
    EXPECT_GT(changed, 0u) << "no corpus case needs the check " << stguard::detail::check_name(id)
                           << " when the tensor has " << stguard::detail::condition_name(when)
                           << ": a reader lacking it there passes the corpus";
  }
}

std::vector<CheckId> all_checks() {
  std::vector<CheckId> out;
  for (int i = 0; i < static_cast<int>(CheckId::kCount); ++i)
    out.push_back(static_cast<CheckId>(i));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Checks, CheckSwitchTest, ::testing::ValuesIn(all_checks()),
                         [](const ::testing::TestParamInfo<CheckId>& param_info) {
                           return std::string(stguard::detail::check_name(param_info.param));
                         });

// The switch itself: with nothing left out, the plain path of the switch
// build gives every case the verdict the manifest records for each profile,
// and strict's reason (the one the manifest names).
TEST(CheckSwitchBuild, NothingLeftOutReadsTheCorpusAsTheManifestSays) {
  std::ifstream in(fs::path(STGUARD_CORPUS_DIR) / "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  const std::vector<std::string>& got = baseline();
  ASSERT_EQ(got.size(), 2 * manifest["cases"].size());
  for (std::size_t i = 0; i < manifest["cases"].size(); ++i) {
    const nlohmann::json& c = manifest["cases"][i];
    const std::string strict = got[2 * i], reference = got[2 * i + 1];
    EXPECT_EQ(strict.rfind("accept", 0) == 0, c["strict"] == "accept") << c["id"] << ": " << strict;
    EXPECT_EQ(reference.rfind("accept", 0) == 0, c["reference"] == "accept")
        << c["id"] << ": " << reference;
    if (c["strict"] == "reject" && c["reason"].is_string()) {
      EXPECT_EQ(strict.rfind(c["reason"].get<std::string>() + " @ ", 0), 0u)
          << c["id"] << ": " << strict;
    }
  }
}

}  // namespace
