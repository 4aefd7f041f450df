// bench/interleaved_bench.cc: the parser's speed when calls alternate, as
// in a process that checks and inspects many files, rather than one call
// repeated alone (bench/checkpoint_bench.cc).
//
// A round takes every checkpoint shape of one size (checkpoint_headers.h:
// three families, three entry orders) in turn, and on each makes every
// call kind in turn: strict validate_header, the same again, reference
// validate_header, strict parse_header, simdjson's DOM parse. Each call is
// timed alone. Two ways of calling, each a benchmark of its own:
//
//   one_shot: the free functions of stguard/header.h, and a simdjson
//             dom::parser made for each parse: every call pays for its
//             scratch memory (cold against cold);
//   kept:     one stguard::Parser and one simdjson dom::parser for the
//             whole run, each keeping its scratch (warm against warm).
//
// After the runs it prints, per mode and shape, the median of each call kind
// over the rounds and the ratios of docs/performance.md:
//
//   simdjson DOM / strict validate_header    at least 1.3
//   strict parse_header / validate_header    at most 1.5
//   reference / strict validate_header       at most 1.2
//
//   taskset -c 1 build/release/bench/stguard_interleaved_bench
//       --benchmark_min_time=2
// (one command line). --benchmark_filter='/100000/' keeps one size.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_headers.h"
#include "ratio_table.h"
#include "stguard/header.h"
#include "stguard/parser.h"

namespace {

using stguard::bench::CheckpointShape;
using stguard::bench::median_of;
using stguard::bench::ratio_cell;
using stguard::bench::SyntheticHeader;

enum class Call { kStrictValidate, kStrictValidateAgain, kReferenceValidate, kStrictParse, kDom };
constexpr Call kRound[] = {Call::kStrictValidate, Call::kStrictValidateAgain,
                           Call::kReferenceValidate, Call::kStrictParse, Call::kDom};

const char* call_name(Call call) {
  switch (call) {
    case Call::kStrictValidate:
      return "strict_validate";
    case Call::kStrictValidateAgain:
      return "strict_validate_again";
    case Call::kReferenceValidate:
      return "reference_validate";
    case Call::kStrictParse:
      return "strict_parse";
    case Call::kDom:
      return "simdjson_dom";
  }
  return "";
}

struct Prepared {
  std::string name;
  SyntheticHeader header;
  simdjson::padded_string text;  // the JSON alone, padded as simdjson needs
};

// The shapes of one size, made once, outside the timing.
const std::vector<Prepared>& prepared(std::uint64_t tensors) {
  static std::map<std::uint64_t, std::vector<Prepared>> cache;
  std::vector<Prepared>& headers = cache[tensors];
  if (headers.empty()) {
    for (const CheckpointShape& shape : stguard::bench::all_shapes({tensors})) {
      SyntheticHeader header = stguard::bench::make_checkpoint_header(shape);
      const auto* text = reinterpret_cast<const char*>(header.bytes.data() + 8);
      simdjson::padded_string padded(text, header.bytes.size() - 8);
      headers.push_back({stguard::bench::shape_name(shape), std::move(header), std::move(padded)});
    }
  }
  return headers;
}

// Each call's seconds, by "mode/shape/call".
std::map<std::string, std::vector<double>>& samples() {
  static std::map<std::string, std::vector<double>> all;
  return all;
}

// Whether every header of the size is accepted by both profiles (or the
// figures would time a rejection).
bool all_accepted(const std::vector<Prepared>& headers, benchmark::State& state) {
  for (const Prepared& p : headers) {
    for (const stguard::Profile profile :
         {stguard::Profile::kStrict, stguard::Profile::kReference}) {
      stguard::ParseOptions options;
      options.profile = profile;
      if (auto r = stguard::validate_header(p.header.bytes, p.header.file_size(), options); !r) {
        state.SkipWithError((p.name + ": " + r.error().to_string()).c_str());
        return false;
      }
    }
  }
  return true;
}

void run(benchmark::State& state, std::uint64_t tensors, bool kept) {
  const std::vector<Prepared>& headers = prepared(tensors);
  if (!all_accepted(headers, state)) return;
  stguard::ParseOptions strict;
  stguard::ParseOptions reference;
  reference.profile = stguard::Profile::kReference;
  stguard::Parser parser;
  simdjson::dom::parser dom;
  const std::string mode = kept ? "kept/" : "one_shot/";
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    for (const Prepared& p : headers) {
      const std::vector<std::uint8_t>& bytes = p.header.bytes;
      const std::uint64_t size = p.header.file_size();
      for (const Call call : kRound) {
        const Clock::time_point start = Clock::now();
        switch (call) {
          case Call::kStrictValidate:
          case Call::kStrictValidateAgain:
          case Call::kReferenceValidate: {
            const stguard::ParseOptions& options =
                call == Call::kReferenceValidate ? reference : strict;
            auto r = kept ? parser.validate_header(bytes, size, options)
                          : stguard::validate_header(bytes, size, options);
            benchmark::DoNotOptimize(r);
            break;
          }
          case Call::kStrictParse: {
            auto r = kept ? parser.parse_header(bytes, size, strict)
                          : stguard::parse_header(bytes, size, strict);
            benchmark::DoNotOptimize(r);
            break;
          }
          case Call::kDom: {
            simdjson::dom::element doc;
            if (kept) {
              auto error = dom.parse(p.text).get(doc);
              benchmark::DoNotOptimize(error);
            } else {
              simdjson::dom::parser fresh;
              auto error = fresh.parse(p.text).get(doc);
              benchmark::DoNotOptimize(error);
            }
            benchmark::DoNotOptimize(doc);
            break;
          }
        }
        const std::chrono::duration<double> took = Clock::now() - start;
        samples()[mode + p.name + "/" + call_name(call)].push_back(took.count());
      }
    }
  }
}

// The median of `key`'s samples, in milliseconds.
std::optional<double> median_ms(const std::string& key) {
  const auto it = samples().find(key);
  if (it == samples().end()) return std::nullopt;
  const std::optional<double> seconds = median_of(it->second);
  if (!seconds) return std::nullopt;
  return 1e3 * *seconds;
}

void print_table(const std::vector<std::uint64_t>& sizes) {
  std::printf("\n%-36s %10s %10s %10s %10s %10s %9s %9s %9s\n", "mode/shape (medians, ms)",
              "strict", "again", "reference", "parse", "simdjson", "dom/str", "parse/v", "ref/str");
  std::printf("%-36s %10s %10s %10s %10s %10s %9s %9s %9s\n", "", "", "", "", "", "", ">= 1.3",
              "<= 1.5", "<= 1.2");
  for (const char* mode : {"one_shot/", "kept/"}) {
    for (const std::uint64_t tensors : sizes) {
      for (const Prepared& p : prepared(tensors)) {
        const std::string key = mode + p.name + "/";
        const auto strict = median_ms(key + call_name(Call::kStrictValidate));
        if (!strict) continue;  // filtered out
        const auto again = median_ms(key + call_name(Call::kStrictValidateAgain));
        const auto reference = median_ms(key + call_name(Call::kReferenceValidate));
        const auto parse = median_ms(key + call_name(Call::kStrictParse));
        const auto dom = median_ms(key + call_name(Call::kDom));
        std::printf("%-36s %10.3f %10.3f %10.3f %10.3f %10.3f %9s %9s %9s\n",
                    (mode + p.name).c_str(), *strict, again.value_or(0), reference.value_or(0),
                    parse.value_or(0), dom.value_or(0), ratio_cell(dom, strict, 1.3, true).c_str(),
                    ratio_cell(parse, strict, 1.5, false).c_str(),
                    ratio_cell(reference, strict, 1.2, false).c_str());
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const std::vector<std::uint64_t> sizes = {300, 10'000, 100'000};
  for (const std::uint64_t tensors : sizes) {
    for (const bool kept : {false, true}) {
      const std::string name =
          "interleaved/" + std::to_string(tensors) + (kept ? "/kept" : "/one_shot");
      benchmark::RegisterBenchmark(name.c_str(), [tensors, kept](benchmark::State& state) {
        run(state, tensors, kept);
      })->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_table(sizes);
  return 0;
}
