// The parser's fast paths (parser/src/layers.h) never change an answer: the
// plain path alone, each layer alone off, each layer alone on, and drawn
// combinations read every input as all the layers together do (the same
// verdict, reason, offset, message, tensors and metadata, through parse and
// validate, in both profiles). The fuzzers compare a drawn combination on
// every input they make (fuzz/fuzz_invariants.h, check_layers); here the
// same comparison runs over fixed inputs in the test command: the corpus,
// the fuzz regressions, 10,000 mutated corpus files, generated headers, and
// checkpoint-shaped headers large enough for every layer to engage (in and
// out of offset order, valid and with one fault late in the header).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parser/src/layers.h"
#include "stguard/header.h"
#include "tests/parser/path_inputs.h"
#include "tests/support/random_header.h"

namespace {

using stguard::Profile;
using stguard::detail::Layers;
using stguard::detail::LayersInForce;
using stguard_test::CheckpointTensor;
using stguard_test::Order;

// Everything parse and validate give for `file` with `layers` in force.
std::string answer(const std::vector<std::uint8_t>& file, Profile profile, const Layers& layers) {
  const LayersInForce in_force(layers);
  stguard::ParseOptions options;
  options.profile = profile;
  const std::span<const std::uint8_t> bytes(file);
  return stguard_test::describe(stguard::validate_header(bytes, file.size(), options)) + "\n--\n" +
         stguard_test::describe(stguard::parse_header(bytes, file.size(), options));
}

// Each layer alone off, each alone on, and the plain path.
std::vector<Layers> one_at_a_time() {
  std::vector<Layers> out = {Layers::plain()};
  for (int i = 0; i < Layers::kCount; ++i) {
    out.push_back(Layers::from_bits(~(1U << i)));  // all but layer i
    out.push_back(Layers::from_bits(1U << i));     // layer i alone
  }
  return out;
}

// Compares `file` under each of `combinations` with all layers on; false
// (and a failure) at the first difference.
bool same_under(const std::string& label, const std::vector<std::uint8_t>& file,
                const std::vector<Layers>& combinations) {
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    const std::string all = answer(file, profile, Layers{});
    for (const Layers& layers : combinations) {
      const std::string got = answer(file, profile, layers);
      if (got == all) continue;
      ADD_FAILURE() << label << ", " << stguard::profile_name(profile)
                    << ", layers on: " << layers.names() << ":\n"
                    << got.substr(0, 2000) << "\nwith all layers:\n"
                    << all.substr(0, 2000);
      return false;
    }
  }
  return true;
}

TEST(LayerPaths, EveryPathInputReadsAsWithAllLayers) {
  std::vector<stguard_test::PathInput> inputs = stguard_test::every_path_input();
  stguard_test::Rng rng(stguard_test::Seed());
  stguard_test::HeaderGenerator generator(rng);
  for (int i = 0; i < 2000; ++i) {
    inputs.push_back({"generated " + std::to_string(i), generator.Generate()});
  }
  std::mt19937_64 draw(stguard_test::Seed());
  int failures = 0;
  for (const stguard_test::PathInput& input : inputs) {
    const Layers drawn = Layers::from_bits(static_cast<std::uint32_t>(draw()));
    if (!same_under(input.label, input.bytes, {Layers::plain(), drawn}) && ++failures == 10) {
      return;
    }
  }
  std::cout << inputs.size() << " inputs, both profiles, the plain path and a drawn combination\n";
  EXPECT_GT(inputs.size(), 10000u);
}

// `file` with the last occurrence of `from` in its header replaced by `to`,
// and the length prefix rewritten for the new header.
std::vector<std::uint8_t> edited(const std::vector<std::uint8_t>& file, const std::string& from,
                                 const std::string& to) {
  std::uint64_t n = 0;
  for (int b = 7; b >= 0; --b) n = n << 8 | file[static_cast<std::size_t>(b)];
  std::string header(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  const std::size_t at = header.rfind(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return file;
  header.replace(at, from.size(), to);
  std::vector<std::uint8_t> out(8);
  for (std::size_t b = 0; b < 8; ++b) out[b] = static_cast<std::uint8_t>(header.size() >> (8 * b));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), file.begin() + 8 + static_cast<std::ptrdiff_t>(n), file.end());
  return out;
}

TEST(LayerPaths, CheckpointsReadAsWithAllLayersWithEachLayerOffAndAlone) {
  const std::vector<Layers> combinations = one_at_a_time();
  std::size_t files = 0;
  // 20 tensors: a header under 4 KiB (UTF-8 first); 600: past it; 2,100:
  // past the packed walk's 2,048 tensors, where it sorts in radix passes.
  for (const std::size_t count : {std::size_t{20}, std::size_t{600}, std::size_t{2100}}) {
    for (const Order order :
         {Order::kSorted, Order::kWriter, Order::kStateDict, Order::kShuffled}) {
      for (const bool out_of_offset_order : {false, true}) {
        // The larger headers in fewer of the eight orders (the test's time):
        // 600 tensors sorted and in writer order as listed, and state_dict
        // and shuffled names out of offset order; 2,100 in writer order as
        // listed and state_dict names out of offset order, with the faults
        // of the layout, names and UTF-8 only.
        const bool listed_in_order = order == Order::kSorted || order == Order::kWriter;
        if (count >= 600 && listed_in_order == out_of_offset_order) continue;
        if (count == 2100 && order != Order::kWriter && order != Order::kStateDict) continue;
        std::vector<CheckpointTensor> tensors = stguard_test::tensors_of(count, order);
        if (out_of_offset_order) std::shuffle(tensors.begin(), tensors.end(), std::mt19937_64(11));
        const std::string label = std::to_string(count) + " tensors, order " +
                                  std::to_string(static_cast<int>(order)) +
                                  (out_of_offset_order ? ", out of offset order" : "");
        const std::size_t late = count - count / 8;  // a tensor late in the header
        std::vector<std::pair<std::string, std::vector<std::uint8_t>>> variants;
        variants.emplace_back("valid", stguard_test::file_of(tensors));
        {
          std::vector<CheckpointTensor> gap = tensors;
          gap.erase(gap.begin() + static_cast<std::ptrdiff_t>(late));
          variants.emplace_back("a gap", stguard_test::file_of(gap));
        }
        {
          std::vector<CheckpointTensor> overlap = tensors;
          overlap[late].begin += 8;
          variants.emplace_back("an overlap", stguard_test::file_of(overlap));
        }
        {
          std::vector<CheckpointTensor> repeat = tensors;
          repeat[late].name = repeat[late / 2].name;
          variants.emplace_back("a repeated name", stguard_test::file_of(repeat));
        }
        const std::vector<std::uint8_t> valid = variants.front().second;
        const std::string last_name = "\"" + tensors.back().name + "\"";
        const std::string renamed = "\"" + tensors.back().name + "_x\"";
        variants.emplace_back("an unknown dtype late", edited(valid, "\"BF16\"", "\"BX16\""));
        variants.emplace_back(
            "a non-ASCII name late",
            edited(valid, last_name, renamed.substr(0, renamed.size() - 1) + "\xC3\xA9\""));
        variants.emplace_back(
            "invalid UTF-8 late",
            edited(valid, last_name, renamed.substr(0, renamed.size() - 1) + "\xC3\""));
        variants.emplace_back(
            "an escaped name late",
            edited(valid, last_name, renamed.substr(0, renamed.size() - 1) + "\\u0041\""));
        variants.emplace_back("whitespace in an entry late",
                              edited(valid, "\":{\"dtype\"", "\": {\"dtype\" "));
        variants.emplace_back("a syntax error at the end", edited(valid, "]}}", "]}]"));
        variants.emplace_back("a syntax error after a fault",
                              edited(edited(valid, "]}}", "]}]"), "\"BF16\"", "\"BX16\""));
        variants.emplace_back("a second value", edited(valid, "]}}", "]}}{}"));
        for (const auto& [what, file] : variants) {
          if (count == 2100 && what != "valid" && what != "a gap" && what != "an overlap" &&
              what != "a repeated name" && what != "a non-ASCII name late") {
            continue;
          }
          ++files;
          if (!same_under(label + ", " + what, file, combinations)) return;
        }
      }
    }
  }
  std::cout << files << " checkpoint files, both profiles, " << combinations.size()
            << " combinations of layers\n";
}

TEST(LayerPaths, LayersParseRoundTrips) {
  for (int i = 0; i < Layers::kCount; ++i) {
    const Layers alone = Layers::from_bits(1U << i);
    ASSERT_EQ(Layers::parse(alone.names()), alone) << alone.names();
    const Layers all_but = Layers::from_bits(~(1U << i));
    ASSERT_EQ(Layers::parse("-" + alone.names()), all_but) << alone.names();
  }
  EXPECT_EQ(Layers::parse("all"), Layers{});
  EXPECT_EQ(Layers::parse("none"), Layers::plain());
  EXPECT_EQ(Layers::parse("window,-u64_words"), std::nullopt);  // mixed
  EXPECT_EQ(Layers::parse("no_such_layer"), std::nullopt);
  EXPECT_EQ(Layers::parse(""), std::nullopt);
}

}  // namespace
