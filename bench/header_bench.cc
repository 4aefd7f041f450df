// bench/header_bench.cc: header validation throughput of stguard (strict and
// reference profiles) against nlohmann::json's SAX parser with a handler that
// does nothing, on synthetic Llama-style headers of 10k and 100k tensors.
//
// The SAX baseline is the floor for "read JSON at all": stguard does the same
// tokenising plus UTF-8 validation, duplicate-key detection, dtype/shape
// checks, size arithmetic and the sorted layout walk, and builds the Header.
// The DOM baseline (nlohmann::json::parse) is what a naive reader pays.
// simdjson (a benchmark-only dependency) is the physical anchor: its
// DOM parse of the same bytes, and an on-demand walk that reads every entry's
// dtype, shape and offsets. After the runs the program prints the ratios the
// goals of docs/performance.md are stated in (medians over repetitions when there are any).
//
// The stguard benchmarks run the SIMD path STGUARD_SIMD or the CPU chooses
// (printed first); BM_StguardValidate{Strict,Reference}_<path> run each path
// this CPU has, forced through ParseOptions::simd, in the same process.
//
//   build/release/bench/stguard_header_bench --benchmark_min_time=0.2
//   build/release/bench/stguard_header_bench --benchmark_filter='/100000'
//       --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true   (one line)
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "noop_sax.h"
#include "stguard/header.h"
#include "synthetic_header.h"

namespace {

using stguard::bench::SyntheticHeader;

const SyntheticHeader& cached_header(std::uint64_t tensors, bool shuffled) {
  static std::map<std::pair<std::uint64_t, bool>, SyntheticHeader> cache;
  auto it = cache.find({tensors, shuffled});
  if (it == cache.end()) {
    stguard::bench::SyntheticOptions options;
    options.tensors = tensors;
    options.shuffle_keys = shuffled;
    it = cache.emplace(std::pair(tensors, shuffled), make_synthetic_header(options)).first;
  }
  return it->second;
}

using stguard::bench::NoOpSax;

void set_counters(benchmark::State& state, const SyntheticHeader& h) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(h.header_len));
  state.counters["header_bytes"] = static_cast<double>(h.header_len);
}

// `materialise`: parse_header (builds the TensorInfo list) rather than
// validate_header (the same checks, no per-tensor allocation; what
// `stguard check` runs).
void run_stguard(benchmark::State& state, stguard::Profile profile, bool shuffled, bool materialise,
                 stguard::SimdPath simd = stguard::SimdPath::kAuto) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), shuffled);
  stguard::ParseOptions options;
  options.profile = profile;
  options.simd = simd;
  {
    const stguard::Result<stguard::Header> check =
        stguard::parse_header(h.bytes, h.file_size(), options);
    if (!check) {
      state.SkipWithError(check.error().to_string().c_str());
      return;
    }
    if (check->tensors.size() != static_cast<std::size_t>(state.range(0))) {
      state.SkipWithError("tensor count differs from the generator's");
      return;
    }
  }
  if (materialise) {
    for (auto _ : state) {
      stguard::Result<stguard::Header> result =
          stguard::parse_header(h.bytes, h.file_size(), options);
      benchmark::DoNotOptimize(result);
    }
  } else {
    for (auto _ : state) {
      stguard::Result<stguard::HeaderSummary> result =
          stguard::validate_header(h.bytes, h.file_size(), options);
      benchmark::DoNotOptimize(result);
    }
  }
  set_counters(state, h);
}

void BM_StguardValidateStrict(benchmark::State& state) {
  run_stguard(state, stguard::Profile::kStrict, false, false);
}
void BM_StguardValidateStrictShuffledKeys(benchmark::State& state) {
  run_stguard(state, stguard::Profile::kStrict, true, false);
}
void BM_StguardValidateReference(benchmark::State& state) {
  run_stguard(state, stguard::Profile::kReference, false, false);
}
void BM_StguardParseStrict(benchmark::State& state) {
  run_stguard(state, stguard::Profile::kStrict, false, true);
}
void BM_StguardParseReference(benchmark::State& state) {
  run_stguard(state, stguard::Profile::kReference, false, true);
}

void BM_NlohmannSaxNoOp(benchmark::State& state) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), false);
  const auto first = h.bytes.begin() + 8;
  const auto last = h.bytes.end();
  {
    NoOpSax sax;
    if (!nlohmann::json::sax_parse(first, last, &sax)) {
      state.SkipWithError("nlohmann rejected the synthetic header");
      return;
    }
  }
  for (auto _ : state) {
    NoOpSax sax;
    bool ok = nlohmann::json::sax_parse(first, last, &sax);
    benchmark::DoNotOptimize(ok);
  }
  set_counters(state, h);
}

void BM_NlohmannDom(benchmark::State& state) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), false);
  const auto first = h.bytes.begin() + 8;
  const auto last = h.bytes.end();
  for (auto _ : state) {
    nlohmann::json doc = nlohmann::json::parse(first, last, nullptr, /*allow_exceptions=*/false);
    benchmark::DoNotOptimize(doc);
  }
  set_counters(state, h);
}

// simdjson needs SIMDJSON_PADDING readable bytes past the input: one padded
// copy of the header (without the length prefix), made outside the timing.
const simdjson::padded_string& cached_padded(std::uint64_t tensors) {
  static std::map<std::uint64_t, simdjson::padded_string> cache;
  auto it = cache.find(tensors);
  if (it == cache.end()) {
    const SyntheticHeader& h = cached_header(tensors, false);
    const auto* text = reinterpret_cast<const char*>(h.bytes.data() + 8);
    it = cache.emplace(tensors, simdjson::padded_string(text, h.bytes.size() - 8)).first;
  }
  return it->second;
}

void BM_SimdjsonDom(benchmark::State& state) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), false);
  const simdjson::padded_string& text = cached_padded(static_cast<std::uint64_t>(state.range(0)));
  simdjson::dom::parser parser;
  {
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson rejected the synthetic header");
      return;
    }
  }
  for (auto _ : state) {
    simdjson::dom::element doc;
    auto error = parser.parse(text).get(doc);
    benchmark::DoNotOptimize(error);
    benchmark::DoNotOptimize(doc);
  }
  set_counters(state, h);
}

// Every tensor's dtype, shape and offsets read through the on-demand API: the
// least a reader that uses the header must do. Returns the tensor count, or
// nullopt when simdjson reports an error.
std::optional<std::uint64_t> simdjson_walk(simdjson::ondemand::parser& parser,
                                           const simdjson::padded_string& text,
                                           std::uint64_t& checksum) {
  simdjson::ondemand::document doc;
  if (parser.iterate(text).get(doc) != simdjson::SUCCESS) return std::nullopt;
  simdjson::ondemand::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return std::nullopt;
  std::uint64_t count = 0;
  for (auto field : root) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return std::nullopt;
    if (key == "__metadata__") continue;
    simdjson::ondemand::object entry;
    if (field.value().get_object().get(entry) != simdjson::SUCCESS) return std::nullopt;
    for (auto member : entry) {
      std::string_view member_key;
      if (member.unescaped_key().get(member_key) != simdjson::SUCCESS) return std::nullopt;
      if (member_key == "dtype") {
        std::string_view dtype;
        if (member.value().get_string().get(dtype) != simdjson::SUCCESS) return std::nullopt;
        checksum += dtype.size();
      } else {  // "shape" and "data_offsets": arrays of unsigned integers
        simdjson::ondemand::array values;
        if (member.value().get_array().get(values) != simdjson::SUCCESS) return std::nullopt;
        for (auto value : values) {
          std::uint64_t number = 0;
          if (value.get_uint64().get(number) != simdjson::SUCCESS) return std::nullopt;
          checksum += number;
        }
      }
    }
    ++count;
  }
  return count;
}

void BM_SimdjsonOnDemandWalk(benchmark::State& state) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), false);
  const simdjson::padded_string& text = cached_padded(static_cast<std::uint64_t>(state.range(0)));
  simdjson::ondemand::parser parser;
  {
    std::uint64_t checksum = 0;
    const std::optional<std::uint64_t> count = simdjson_walk(parser, text, checksum);
    if (count != static_cast<std::uint64_t>(state.range(0))) {
      state.SkipWithError("simdjson's walk did not find every tensor");
      return;
    }
  }
  for (auto _ : state) {
    std::uint64_t checksum = 0;
    std::optional<std::uint64_t> count = simdjson_walk(parser, text, checksum);
    benchmark::DoNotOptimize(count);
    benchmark::DoNotOptimize(checksum);
  }
  set_counters(state, h);
}

// What only the reference profile reads (it has no name, rank or count caps,
// as upstream): one tensor with a name of range(0) bytes, or with a shape of
// range(0) dimensions. Time must grow linearly with the argument: a 4x larger
// argument costs about 4x, never 16x (docs/performance.md, "Limits").
std::vector<std::uint8_t> one_tensor_file(const std::string& name, const std::string& shape) {
  const std::string header =
      "{\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[" + shape + "],\"data_offsets\":[0,1]}}";
  std::vector<std::uint8_t> file(8 + header.size() + 1, 0);
  for (std::size_t i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  std::copy(header.begin(), header.end(), file.begin() + 8);
  return file;
}

void run_reference_file(benchmark::State& state, const std::vector<std::uint8_t>& file) {
  stguard::ParseOptions options;
  options.profile = stguard::Profile::kReference;
  {
    const stguard::Result<stguard::Header> check = stguard::parse(file, options);
    if (!check) {
      state.SkipWithError(check.error().to_string().c_str());
      return;
    }
  }
  for (auto _ : state) {
    stguard::Result<stguard::Header> result = stguard::parse(file, options);
    benchmark::DoNotOptimize(result);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(file.size()));
}

void BM_ReferenceLongName(benchmark::State& state) {
  const std::string name(static_cast<std::size_t>(state.range(0)), 'n');
  run_reference_file(state, one_tensor_file(name, "1"));
}

void BM_ReferenceHighRank(benchmark::State& state) {
  std::string shape = "1";
  for (std::int64_t i = 1; i < state.range(0); ++i) shape += ",1";
  run_reference_file(state, one_tensor_file("t", shape));
}

// Headers of 10k tensors (~1 MB) and 100k tensors (~10 MB).
void header_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_StguardValidateStrict)->Apply(header_sizes);
BENCHMARK(BM_StguardValidateStrictShuffledKeys)->Apply(header_sizes);
BENCHMARK(BM_StguardValidateReference)->Apply(header_sizes);
BENCHMARK(BM_StguardParseStrict)->Apply(header_sizes);
BENCHMARK(BM_StguardParseReference)->Apply(header_sizes);
BENCHMARK(BM_NlohmannSaxNoOp)->Apply(header_sizes);
BENCHMARK(BM_ReferenceLongName)
    ->Arg(250'000)
    ->Arg(1'000'000)
    ->Arg(4'000'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReferenceHighRank)
    ->Arg(25'000)
    ->Arg(100'000)
    ->Arg(400'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NlohmannDom)->Apply(header_sizes);
BENCHMARK(BM_SimdjsonDom)->Apply(header_sizes);
BENCHMARK(BM_SimdjsonOnDemandWalk)->Apply(header_sizes);

// The console output, and after it the ratios docs/performance.md holds: each
// benchmark's median over its repetitions (one run without them), of CPU time
// (steadier on a shared machine, where real time includes waiting for a CPU)
// and of real time.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Tabular, without colour codes, so a log file reads as plain text.
  RatioReporter() : ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      if (run.run_type == Run::RT_Iteration) {
        cpu_times_[run.run_name.str()].push_back(run.GetAdjustedCPUTime());
        real_times_[run.run_name.str()].push_back(run.GetAdjustedRealTime());
      } else if (run.aggregate_name == "median") {
        // With --benchmark_report_aggregates_only the repetitions are not
        // reported, only their aggregates: keep the median.
        cpu_medians_[run.run_name.str()] = run.GetAdjustedCPUTime();
        real_medians_[run.run_name.str()] = run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const char* size : {"10000", "100000"}) {
      std::printf(
          "\nratios at %s tensors, medians (below 1: the first is faster)   CPU time  "
          "(ms / ms)   real time\n",
          size);
      ratio("simdjson DOM / strict validate_header", "BM_SimdjsonDom", "BM_StguardValidateStrict",
            size);
      ratio("simdjson on-demand walk / strict validate_header", "BM_SimdjsonOnDemandWalk",
            "BM_StguardValidateStrict", size);
      ratio("strict parse_header / strict validate_header", "BM_StguardParseStrict",
            "BM_StguardValidateStrict", size);
      ratio("reference validate_header / strict validate_header", "BM_StguardValidateReference",
            "BM_StguardValidateStrict", size);
      ratio("reference parse_header / strict parse_header", "BM_StguardParseReference",
            "BM_StguardParseStrict", size);
      ratio("nlohmann SAX / strict validate_header", "BM_NlohmannSaxNoOp",
            "BM_StguardValidateStrict", size);
      for (stguard::SimdPath path : stguard::supported_simd_paths()) {
        const std::string name(stguard::simd_path_name(path));
        ratio(("simdjson DOM / strict validate_header, " + name).c_str(), "BM_SimdjsonDom",
              "BM_StguardValidateStrict_" + name, size);
        ratio(("reference / strict validate_header, " + name).c_str(),
              "BM_StguardValidateReference_" + name, "BM_StguardValidateStrict_" + name, size);
        if (path != stguard::SimdPath::kBaseline) {
          ratio(("strict validate_header, baseline / " + name).c_str(),
                "BM_StguardValidateStrict_baseline", "BM_StguardValidateStrict_" + name, size);
        }
      }
    }
  }

 private:
  static std::optional<double> median(const std::map<std::string, std::vector<double>>& times,
                                      const std::map<std::string, double>& medians,
                                      const std::string& name) {
    auto it = times.find(name);
    if (it == times.end() || it->second.empty()) {
      auto reported = medians.find(name);
      if (reported == medians.end()) return std::nullopt;
      return reported->second;
    }
    std::vector<double> values = it->second;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  void ratio(const char* label, const std::string& numerator, const std::string& denominator,
             const std::string& size) {
    const std::optional<double> top = median(cpu_times_, cpu_medians_, numerator + "/" + size);
    const std::optional<double> bottom = median(cpu_times_, cpu_medians_, denominator + "/" + size);
    const std::optional<double> real_top =
        median(real_times_, real_medians_, numerator + "/" + size);
    const std::optional<double> real_bottom =
        median(real_times_, real_medians_, denominator + "/" + size);
    if (!top || !bottom || !real_top || !real_bottom || *bottom <= 0 || *real_bottom <= 0) {
      return;  // filtered out or skipped
    }
    std::printf("  %-52s %6.2fx  (%.3f / %.3f)  %6.2fx\n", label, *top / *bottom, *top, *bottom,
                *real_top / *real_bottom);
  }

  std::map<std::string, std::vector<double>> cpu_times_;
  std::map<std::string, std::vector<double>> real_times_;
  std::map<std::string, double> cpu_medians_;  // reported medians, when repetitions are not
  std::map<std::string, double> real_medians_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("SIMD path: %s (STGUARD_SIMD or the CPU's best); this CPU has:",
              std::string(stguard::simd_path_name(stguard::simd_path_in_use())).c_str());
  for (stguard::SimdPath path : stguard::supported_simd_paths()) {
    std::printf(" %s", std::string(stguard::simd_path_name(path)).c_str());
    for (stguard::Profile profile : {stguard::Profile::kStrict, stguard::Profile::kReference}) {
      const std::string name =
          std::string(profile == stguard::Profile::kStrict ? "BM_StguardValidateStrict_"
                                                           : "BM_StguardValidateReference_") +
          std::string(stguard::simd_path_name(path));
      benchmark::RegisterBenchmark(name.c_str(), [profile, path](benchmark::State& state) {
        run_stguard(state, profile, false, false, path);
      })->Apply(header_sizes);
    }
  }
  std::printf("\n");
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
