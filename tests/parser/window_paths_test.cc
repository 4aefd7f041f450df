// A header read a window at a time (parser/src/header_window.h) gives the
// whole header's answer whenever it gives one: verdict, tensors, shapes,
// offsets and metadata, through validate and parse, in both profiles. It
// declines (and the whole header is then checked) at a fault, invalid
// UTF-8, a member longer than the lookahead, a name needed after the window
// let it go, and a failed read. The windows here are a few hundred bytes to
// a few KiB, so that even corpus files move them many times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parser/src/header_window.h"
#include "parser/src/scanned_header.h"
#include "stguard/header.h"
#include "tests/parser/path_inputs.h"
#include "tests/support/random_header.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Profile;
using stguard::detail::BytesHeaderWindow;
using stguard_test::checkpoint;
using stguard_test::CheckpointTensor;
using stguard_test::file_of;
using stguard_test::Order;
using stguard_test::tensors_of;

struct WindowShape {
  std::size_t capacity;
  std::size_t lookahead;
};
constexpr WindowShape kShapes[] = {{256, 96}, {1024, 128}, {4096, 512}};

// What the window gives for `file`, in validate and parse, against the whole
// header's answer.
struct Outcome {
  bool prefix_ok = false;  // the window is only used past a valid prefix
  std::string whole;       // validate, then parse, as describe() gives them
  int accepted = 0;        // of validate and parse, how many the window accepted
  std::string failure;     // a window answer that differs from the whole header's
  int reads = 0;           // of the windows' read() calls
};

Outcome run(const std::vector<std::uint8_t>& file, Profile profile, WindowShape shape,
            std::uint64_t fail_from = std::numeric_limits<std::uint64_t>::max()) {
  stguard::ParseOptions options;
  options.profile = profile;
  const std::span<const std::uint8_t> bytes(file);
  Outcome out;
  const auto whole_summary = stguard::validate_header(bytes, file.size(), options);
  const auto whole_header = stguard::parse_header(bytes, file.size(), options);
  const std::string want_summary = stguard_test::describe(whole_summary);
  const std::string want_header = stguard_test::describe(whole_header);
  out.whole = want_summary + "\n--\n" + want_header;
  const auto n = stguard::parse_header_length(bytes, file.size(), options.limits);
  if (!n) return out;
  out.prefix_ok = true;
  const std::span<const std::uint8_t> header = bytes.subspan(8, static_cast<std::size_t>(*n));
  // One scratch for both, as one Parser's (stguard/parser.h).
  stguard::detail::Scratch scratch;
  BytesHeaderWindow for_validate(header, shape.capacity, shape.lookahead, fail_from);
  if (auto got =
          stguard::detail::validate_header_in_window(file.size(), options, for_validate, scratch)) {
    ++out.accepted;
    const std::string text = stguard_test::describe(stguard::Result<stguard::HeaderSummary>(*got));
    if (text != want_summary) out.failure = "validate in a window:\n" + text;
  }
  BytesHeaderWindow for_parse(header, shape.capacity, shape.lookahead, fail_from);
  if (auto got =
          stguard::detail::parse_header_in_window(file.size(), options, for_parse, scratch)) {
    ++out.accepted;
    const std::string text = stguard_test::describe(stguard::Result<stguard::Header>(*got));
    if (text != want_header) out.failure += "parse in a window:\n" + text;
  }
  out.reads = for_validate.reads() + for_parse.reads();
  return out;
}

// Replaces the first `from` in `file` with `to`, of the same length.
void replace_in_header(std::vector<std::uint8_t>& file, const std::string& from,
                       const std::string& to) {
  ASSERT_EQ(from.size(), to.size());
  const std::vector<std::uint8_t> pattern(from.begin(), from.end());  // bytes, not signed chars
  const auto at = std::search(file.begin(), file.end(), pattern.begin(), pattern.end());
  ASSERT_NE(at, file.end()) << from;
  std::copy(to.begin(), to.end(), at);
}

std::string which(Profile profile, WindowShape shape) {
  return std::string(stguard::profile_name(profile)) + ", window " +
         std::to_string(shape.capacity) + "/" + std::to_string(shape.lookahead);
}

TEST(WindowPaths, AnswerOnlyWithTheWholeHeadersAnswer) {
  std::vector<stguard_test::PathInput> inputs = stguard_test::every_path_input();
  stguard_test::Rng rng(stguard_test::Seed());
  stguard_test::HeaderGenerator generator(rng);
  for (int i = 0; i < 2000; ++i) {
    inputs.push_back({"generated " + std::to_string(i), generator.Generate()});
  }
  std::size_t runs = 0;
  std::size_t accepted = 0;
  std::size_t whole_ok = 0;
  int failures = 0;
  for (const stguard_test::PathInput& input : inputs) {
    for (Profile profile : {Profile::kStrict, Profile::kReference}) {
      for (WindowShape shape : kShapes) {
        const Outcome out = run(input.bytes, profile, shape);
        if (!out.prefix_ok) continue;
        ++runs;
        accepted += static_cast<std::size_t>(out.accepted);
        if (out.whole.rfind("ok", 0) == 0) ++whole_ok;
        if (!out.failure.empty()) {
          ADD_FAILURE() << input.label << ", " << which(profile, shape) << ":\n"
                        << out.failure << "\nthe whole header:\n"
                        << out.whole;
          if (++failures == 10) return;
        }
      }
    }
  }
  std::cout << runs << " windowed checks of " << inputs.size() << " inputs: " << accepted << " of "
            << 2 * runs << " validates and parses accepted in the window; the whole header"
            << " accepted in " << whole_ok << " checks\n";
  // Not vacuous: nearly all that the whole header accepts is accepted in the
  // window too (the rest has a member longer than a small lookahead, or a
  // name out of order after the window moved on).
  EXPECT_GE(accepted * 10, 2 * whole_ok * 9);
}

TEST(WindowPaths, CheckpointsOfEveryOrderAreAcceptedInTheWindow) {
  for (Order order : {Order::kSorted, Order::kWriter, Order::kStateDict, Order::kShuffled}) {
    for (Profile profile : {Profile::kStrict, Profile::kReference}) {
      // Not the smallest window: two entries fill it, and validate declines
      // when the first name out of order comes after the window moved on (the
      // names before it, to be hashed then, are gone).
      for (WindowShape shape : {kShapes[1], kShapes[2]}) {
        const Outcome out = run(checkpoint(3000, order), profile, shape);
        SCOPED_TRACE(which(profile, shape) + ", order " + std::to_string(static_cast<int>(order)));
        ASSERT_EQ(out.whole.rfind("ok", 0), 0U) << out.whole;
        EXPECT_EQ(out.accepted, 2);
        EXPECT_EQ(out.failure, "");
        EXPECT_GT(out.reads, 50);  // the window moved on many times
      }
    }
  }
}

TEST(WindowPaths, PaddingAfterTheValueIsReadToTheEnd) {
  for (std::size_t pad : {std::size_t{1}, std::size_t{300}, std::size_t{5000}}) {
    const Outcome out = run(file_of(tensors_of(1000, Order::kSorted), R"({"format":"pt"})", pad),
                            Profile::kStrict, {1024, 128});
    ASSERT_EQ(out.whole.rfind("ok", 0), 0U) << out.whole;
    EXPECT_EQ(out.failure, "");
    // Padding longer than the window: the rest of the header does not fit.
    EXPECT_EQ(out.accepted, pad < 1024 ? 2 : 0) << pad;
  }
}

TEST(WindowPaths, DeclinesWhereTheWholeHeaderIsNeeded) {
  struct Case {
    std::string what;
    std::vector<std::uint8_t> file;
    Profile profile;
    bool whole_accepts;
    int accepted_in_window;  // of validate and parse
  };
  std::vector<Case> cases;
  {
    auto file = checkpoint(3000, Order::kStateDict);
    replace_in_header(file, "[47984,48000]", "[47984,48001]");
    cases.push_back(
        {"a size fault at the last tensor", std::move(file), Profile::kStrict, false, 0});
  }
  {
    auto file = checkpoint(3000, Order::kShuffled);
    replace_in_header(file, "[47984,", "[47984;");
    cases.push_back(
        {"a syntax fault at the last tensor", std::move(file), Profile::kReference, false, 0});
  }
  {
    // The last tensor repeats tensor 1000, with its data: strict refuses the
    // repeat; the reference profile merges it, comparing names the window let
    // go of (validate declines; parse keeps names, and decides).
    std::vector<CheckpointTensor> tensors = tensors_of(3000, Order::kStateDict);
    tensors.back() = tensors[1000];
    const auto file = file_of(tensors);
    cases.push_back({"a repeated name, strict", file, Profile::kStrict, false, 0});
    cases.push_back({"a repeated name, reference", file, Profile::kReference, true, 1});
    // Both in the last window: found by name, but the reference merge
    // compares every name, some of them let go.
    tensors = tensors_of(3000, Order::kStateDict);
    tensors.push_back(tensors.back());
    const auto last = file_of(tensors);
    cases.push_back(
        {"a name repeated in the last window, strict", last, Profile::kStrict, false, 0});
    cases.push_back(
        {"a name repeated in the last window, reference", last, Profile::kReference, true, 1});
  }
  {
    // Valid UTF-8 is accepted in the window; invalid declines, whether in
    // bytes the window let go of or in its last bytes.
    auto file = checkpoint(3000, Order::kStateDict);
    replace_in_header(file, "model.layers.9.self", "model.layers.9.s\xC3\xA9l");
    replace_in_header(file, "model.layers.599.self", "model.layers.599.s\xC3\xA9l");
    cases.push_back({"non-ASCII names", file, Profile::kStrict, true, 2});
    auto early = file;
    replace_in_header(early, "model.layers.9.s\xC3\xA9l", "model.layers.9.s\xC3\xC3l");
    cases.push_back({"invalid UTF-8 in a window let go", early, Profile::kStrict, false, 0});
    replace_in_header(file, "model.layers.599.input", "model.layers.599.inpu\xFF");
    cases.push_back({"invalid UTF-8 in the last window", file, Profile::kReference, false, 0});
  }
  cases.push_back({"a metadata value longer than the window",
                   file_of(tensors_of(3000, Order::kSorted),
                           R"({"format":"pt","notes":")" + std::string(3000, 'x') + "\"}"),
                   Profile::kStrict, true, 0});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Outcome out = run(c.file, c.profile, {1024, 128});
    ASSERT_TRUE(out.prefix_ok);
    EXPECT_EQ(out.whole.rfind(c.whole_accepts ? "ok" : "error", 0), 0U) << out.whole;
    EXPECT_EQ(out.accepted, c.accepted_in_window);
    EXPECT_EQ(out.failure, "");
  }
}

TEST(WindowPaths, DeclinesAfterAFailedRead) {
  const auto file = checkpoint(3000, Order::kStateDict);
  const std::uint64_t n = stguard::parse_header_length(file, file.size()).value();
  for (std::uint64_t fail_from : {std::uint64_t{0}, std::uint64_t{100}, n / 2, n - 1}) {
    const Outcome out = run(file, Profile::kStrict, {1024, 128}, fail_from);
    ASSERT_EQ(out.whole.rfind("ok", 0), 0U) << out.whole;
    EXPECT_EQ(out.accepted, 0) << fail_from;
  }
}

}  // namespace
