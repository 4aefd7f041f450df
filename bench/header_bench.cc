// bench/header_bench.cc: header validation throughput of stguard (strict and
// reference profiles) against nlohmann::json's SAX parser with a handler that
// does nothing, on synthetic Llama-style headers of 10k and 100k tensors.
//
// The SAX baseline is the floor for "read JSON at all": stguard does the same
// tokenising plus UTF-8 validation, duplicate-key detection, dtype/shape
// checks, size arithmetic and the sorted layout walk, and builds the Header.
// The DOM baseline (nlohmann::json::parse) is what a naive reader pays.
//
//   build/release/bench/stguard_header_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

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

// Accepts everything, keeps nothing: the cost of tokenising alone.
struct NoOpSax {
  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(std::int64_t /*value*/) { return true; }
  bool number_unsigned(std::uint64_t /*value*/) { return true; }
  bool number_float(double /*value*/, const std::string& /*text*/) { return true; }
  bool string(std::string& /*value*/) { return true; }
  bool binary(nlohmann::json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*elements*/) { return true; }
  bool key(std::string& /*value*/) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t /*elements*/) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*ex*/) {
    return false;
  }
};

void set_counters(benchmark::State& state, const SyntheticHeader& h) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(h.header_len));
  state.counters["header_bytes"] = static_cast<double>(h.header_len);
}

// `materialise`: parse_header (builds the TensorInfo list) rather than
// validate_header (the same checks, no per-tensor allocation; what
// `stguard check` runs).
void run_stguard(benchmark::State& state, stguard::Profile profile, bool shuffled,
                 bool materialise) {
  const SyntheticHeader& h = cached_header(static_cast<std::uint64_t>(state.range(0)), shuffled);
  stguard::ParseOptions options;
  options.profile = profile;
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

// What only the reference profile reads (it has no name, rank or count caps,
// as upstream): one tensor with a name of range(0) bytes, or with a shape of
// range(0) dimensions. Time must grow linearly with the argument: a 4x larger
// argument costs about 4x, never 16x (issue 14, item 7).
std::vector<std::uint8_t> one_tensor_file(const std::string& name, const std::string& shape) {
  const std::string header =
      "{\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[" + shape + "],\"data_offsets\":[0,1]}}";
  std::vector<std::uint8_t> file(8 + header.size() + 1, 0);
  for (int i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
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

}  // namespace

BENCHMARK_MAIN();
