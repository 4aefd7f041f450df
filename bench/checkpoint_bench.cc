// bench/checkpoint_bench.cc: the parser's speed on headers shaped like real
// checkpoints (checkpoint_headers.h: three families, three entry orders,
// 16 to 100,000 tensors), each against simdjson's DOM parse of the same
// bytes, one call repeated alone: a kept stguard::Parser against a kept
// simdjson parser, both warmed before the timing (calls in turn, and
// one-shot calls: interleaved_bench.cc). After the runs it prints one row per shape with the three
// ratios docs/performance.md holds, and marks a ratio past its goal with "!":
//
//   simdjson DOM / strict validate_header    at least 1.3
//   strict parse_header / validate_header    at most 1.5
//   reference / strict validate_header       at most 1.2
//
// A regression on any one shape shows in its row of one run.
//
//   build/release/bench/stguard_checkpoint_bench
//   taskset -c 1 build/release/bench/stguard_checkpoint_bench
//       --benchmark_filter='/100000/' --benchmark_repetitions=5
//       --benchmark_enable_random_interleaving=true
// (one command line; no backslashes here, which g++ reads as a comment
// continued onto the next line, -Wcomment)
//
// --layers=SPEC runs everything with only some of the parser's fast paths
// (parser/src/layers.h: "none" is the plain path, "-window" all but one);
// the figure against the default "all" is what a layer earns.
//
// --file=PATH (repeatable) also times strict validate_header of that file's
// prefix and header, read once before the runs, as file/PATH/strict_validate:
// the in-process figure whole_process.sh sets beside `stguard check PATH`;
// and validate_file(PATH), the file opened and read at each run, as
// file/PATH/validate_file.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checkpoint_headers.h"
#include "parser/src/layers.h"
#include "ratio_table.h"
#include "stguard/file.h"
#include "stguard/header.h"
#include "stguard/parser.h"

namespace {

using stguard::bench::CheckpointShape;
using stguard::bench::median_of;
using stguard::bench::ratio_cell;
using stguard::bench::SyntheticHeader;

struct Prepared {
  SyntheticHeader header;
  simdjson::padded_string text;  // the JSON alone, padded as simdjson needs
  // The header with the first (last) entry's dtype made unknown: rejected,
  // the first fault at the start (end) of the header, as a fuzzer's or a
  // corrupted file's often are; the layers for rejected headers (the syntax
  // pass after a fault) earn their place on these.
  std::vector<std::uint8_t> first_dtype_bad;
  std::vector<std::uint8_t> last_dtype_bad;
};

// `bytes` with the first letter of the dtype of the first (or last) entry
// replaced by 'X'.
std::vector<std::uint8_t> with_dtype_broken(std::vector<std::uint8_t> bytes, bool last) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  constexpr std::string_view kKey = "\"dtype\":\"";
  const std::size_t at = last ? text.rfind(kKey) : text.find(kKey);
  if (at != std::string_view::npos) bytes[at + kKey.size()] = 'X';
  return bytes;
}

// Made once per shape, outside the timing.
const Prepared& prepared(const CheckpointShape& shape) {
  static std::map<std::string, std::unique_ptr<Prepared>> cache;
  std::unique_ptr<Prepared>& slot = cache[stguard::bench::shape_name(shape)];
  if (!slot) {
    SyntheticHeader header = stguard::bench::make_checkpoint_header(shape);
    const auto* text = reinterpret_cast<const char*>(header.bytes.data() + 8);
    simdjson::padded_string padded(text, header.bytes.size() - 8);
    std::vector<std::uint8_t> first = with_dtype_broken(header.bytes, false);
    std::vector<std::uint8_t> last = with_dtype_broken(header.bytes, true);
    slot = std::make_unique<Prepared>(
        Prepared{std::move(header), std::move(padded), std::move(first), std::move(last)});
  }
  return *slot;
}

enum class Work {
  kStrictValidate,
  kReferenceValidate,
  kStrictParse,
  kSimdjsonDom,
  kRejectFirstDtype,  // strict validate_header of first_dtype_bad
  kRejectLastDtype,   // of last_dtype_bad
  kRejectTruncated,   // of the header, in a file one byte shorter than its data
};
constexpr Work kAllWork[] = {
    Work::kStrictValidate,   Work::kReferenceValidate, Work::kStrictParse,    Work::kSimdjsonDom,
    Work::kRejectFirstDtype, Work::kRejectLastDtype,   Work::kRejectTruncated};

const char* work_name(Work work) {
  switch (work) {
    case Work::kStrictValidate:
      return "strict_validate";
    case Work::kReferenceValidate:
      return "reference_validate";
    case Work::kStrictParse:
      return "strict_parse";
    case Work::kSimdjsonDom:
      return "simdjson_dom";
    case Work::kRejectFirstDtype:
      return "reject_first_dtype";
    case Work::kRejectLastDtype:
      return "reject_last_dtype";
    case Work::kRejectTruncated:
      return "reject_truncated";
  }
  return "";
}

void run(benchmark::State& state, const CheckpointShape& shape, Work work) {
  const Prepared& p = prepared(shape);
  const SyntheticHeader& h = p.header;
  stguard::ParseOptions options;
  options.profile =
      work == Work::kReferenceValidate ? stguard::Profile::kReference : stguard::Profile::kStrict;
  // One Parser for the runs (stguard/parser.h), its scratch warmed by the
  // checks below, as simdjson's parser is by a first parse: warm against warm.
  stguard::Parser stguard_parser;
  // Every shape must be accepted, or the figures measure a rejection.
  if (const auto check = stguard_parser.parse_header(h.bytes, h.file_size(), options);
      !check || check->tensors.size() != shape.tensors) {
    state.SkipWithError(check ? "tensor count differs" : check.error().to_string().c_str());
    return;
  }
  // The rejected variants must be rejected, for the reason they are made for.
  const std::vector<std::uint8_t>& rejected = work == Work::kRejectFirstDtype  ? p.first_dtype_bad
                                              : work == Work::kRejectLastDtype ? p.last_dtype_bad
                                                                               : h.bytes;
  const std::uint64_t rejected_size =
      work == Work::kRejectTruncated ? h.file_size() - 1 : h.file_size();
  if (work == Work::kRejectFirstDtype || work == Work::kRejectLastDtype ||
      work == Work::kRejectTruncated) {
    const auto verdict = stguard_parser.validate_header(rejected, rejected_size, options);
    const stguard::Reason expected = work == Work::kRejectTruncated
                                         ? stguard::Reason::kOffsetOutOfBounds
                                         : stguard::Reason::kDtypeInvalid;
    if (verdict || verdict.error().reason != expected) {
      state.SkipWithError(verdict ? "accepted" : verdict.error().to_string().c_str());
      return;
    }
  }
  // Warm against warm: the parser's buffers allocated by a first parse
  // outside the timing, as stguard's scratch is by the check above.
  if (const auto warm = stguard_parser.validate_header(h.bytes, h.file_size(), options); !warm) {
    state.SkipWithError(warm.error().to_string().c_str());
    return;
  }
  simdjson::dom::parser parser;
  if (work == Work::kSimdjsonDom) {
    simdjson::dom::element warm;
    if (parser.parse(p.text).get(warm) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson rejects the header");
      return;
    }
  }
  for (auto _ : state) {
    switch (work) {
      case Work::kStrictValidate:
      case Work::kReferenceValidate: {
        auto result = stguard_parser.validate_header(h.bytes, h.file_size(), options);
        benchmark::DoNotOptimize(result);
        break;
      }
      case Work::kStrictParse: {
        auto result = stguard_parser.parse_header(h.bytes, h.file_size(), options);
        benchmark::DoNotOptimize(result);
        break;
      }
      case Work::kRejectFirstDtype:
      case Work::kRejectLastDtype:
      case Work::kRejectTruncated: {
        auto result = stguard_parser.validate_header(rejected, rejected_size, options);
        benchmark::DoNotOptimize(result);
        break;
      }
      case Work::kSimdjsonDom: {
        simdjson::dom::element doc;
        auto error = parser.parse(p.text).get(doc);
        benchmark::DoNotOptimize(error);
        benchmark::DoNotOptimize(doc);
        break;
      }
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(h.header_len));
  state.counters["header_bytes"] = static_cast<double>(h.header_len);
}

// The console output, then one row of ratios per shape (medians of CPU time
// over the repetitions, or the one run without them).
class ShapeReporter : public benchmark::ConsoleReporter {
 public:
  explicit ShapeReporter(std::vector<CheckpointShape> shapes)
      : ConsoleReporter(OO_Tabular), shapes_(std::move(shapes)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Iteration) {
        times_[r.run_name.str()].push_back(r.GetAdjustedCPUTime());
      } else if (r.aggregate_name == "median") {
        reported_medians_[r.run_name.str()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-28s %9s %12s %16s %16s %14s\n", "shape (CPU time, medians)", "header MB",
                "strict (ms)", "simdjson/strict", "parse/validate", "ref/strict");
    std::printf("%-28s %9s %12s %16s %16s %14s\n", "", "", "", "goal >= 1.3", "goal <= 1.5",
                "goal <= 1.2");
    for (const CheckpointShape& shape : shapes_) {
      const std::string name = stguard::bench::shape_name(shape);
      const auto strict = median(name, Work::kStrictValidate);
      if (!strict) continue;  // filtered out
      const double mb = static_cast<double>(prepared(shape).header.header_len) / 1e6;
      std::printf("%-28s %9.2f %12.3f %16s %16s %14s\n", name.c_str(), mb, *strict,
                  ratio_cell(median(name, Work::kSimdjsonDom), strict, 1.3, true).c_str(),
                  ratio_cell(median(name, Work::kStrictParse), strict, 1.5, false).c_str(),
                  ratio_cell(median(name, Work::kReferenceValidate), strict, 1.2, false).c_str());
    }
  }

 private:
  std::optional<double> median(const std::string& shape, Work work) const {
    const std::string name = shape + "/" + work_name(work);
    if (auto it = times_.find(name); it != times_.end() && !it->second.empty()) {
      return median_of(it->second);
    }
    if (auto it = reported_medians_.find(name); it != reported_medians_.end()) return it->second;
    return std::nullopt;
  }

  std::vector<CheckpointShape> shapes_;
  std::map<std::string, std::vector<double>> times_;
  std::map<std::string, double> reported_medians_;
};

// The prefix and header of the file at `path` and its size, or nullopt.
std::optional<std::pair<std::vector<std::uint8_t>, std::uint64_t>> read_head(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return std::nullopt;
  std::vector<std::uint8_t> head(8);
  std::optional<std::pair<std::vector<std::uint8_t>, std::uint64_t>> result;
  if (std::fread(head.data(), 1, 8, f) == 8 && std::fseek(f, 0, SEEK_END) == 0) {
    const long size = std::ftell(f);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | head[static_cast<std::size_t>(i)];
    if (size >= 8 && n <= static_cast<std::uint64_t>(size) - 8 && n < (std::uint64_t{1} << 32)) {
      head.resize(static_cast<std::size_t>(8 + n));
      if (std::fseek(f, 8, SEEK_SET) == 0 &&
          std::fread(head.data() + 8, 1, static_cast<std::size_t>(n), f) == n) {
        result.emplace(std::move(head), static_cast<std::uint64_t>(size));
      }
    }
  }
  std::fclose(f);
  return result;
}

// Registers file/PATH/strict_validate for each --file=PATH, and takes those
// arguments out of argv for Google Benchmark. False when a file cannot be read.
bool register_files(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--file=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) != kFlag) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::string path(arg.substr(kFlag.size()));
    auto head = read_head(path.c_str());
    if (!head) {
      std::fprintf(stderr, "stguard_checkpoint_bench: cannot read a header from %s\n",
                   path.c_str());
      return false;
    }
    auto shared =
        std::make_shared<std::pair<std::vector<std::uint8_t>, std::uint64_t>>(std::move(*head));
    benchmark::RegisterBenchmark(("file/" + path + "/strict_validate").c_str(),
                                 [shared](benchmark::State& state) {
                                   stguard::Parser parser;
                                   for (auto _ : state) {
                                     auto result =
                                         parser.validate_header(shared->first, shared->second);
                                     benchmark::DoNotOptimize(result);
                                   }
                                 })
        ->Unit(benchmark::kMillisecond);
    // The same file opened and read at each run, as `stguard check` does (from
    // the page cache): the figure the window layer earns its place on.
    benchmark::RegisterBenchmark(("file/" + path + "/validate_file").c_str(),
                                 [path](benchmark::State& state) {
                                   for (auto _ : state) {
                                     auto result = stguard::validate_file(path);
                                     benchmark::DoNotOptimize(result);
                                   }
                                 })
        ->Unit(benchmark::kMillisecond);
  }
  argc = kept;
  return true;
}

}  // namespace

// Takes --layers=SPEC out of argv: the fast paths in force, or nullopt (and
// a message) for a SPEC that names no layer.
std::optional<stguard::detail::Layers> take_layers(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--layers=";
  stguard::detail::Layers layers;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) != kFlag) {
      argv[kept++] = argv[i];
      continue;
    }
    const auto parsed = stguard::detail::Layers::parse(arg.substr(kFlag.size()));
    if (!parsed) {
      std::fprintf(stderr,
                   "stguard_checkpoint_bench: %s: not all, none, a list of layers or a list of "
                   "-layers (parser/src/layers.h)\n",
                   argv[i]);
      return std::nullopt;
    }
    layers = *parsed;
  }
  argc = kept;
  return layers;
}

int main(int argc, char** argv) {
  const std::optional<stguard::detail::Layers> layers = take_layers(argc, argv);
  if (!layers) return 1;
  // Benchmarks run on this thread, where the switches are set.
  const stguard::detail::LayersInForce in_force(*layers);
  std::fprintf(stderr, "layers: %s\n", layers->names().c_str());
  if (!register_files(argc, argv)) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const std::vector<CheckpointShape> shapes =
      stguard::bench::all_shapes({16, 300, 10'000, 100'000});
  for (const CheckpointShape& shape : shapes) {
    for (const Work work : kAllWork) {
      const std::string name = stguard::bench::shape_name(shape) + "/" + work_name(work);
      benchmark::RegisterBenchmark(name.c_str(), [shape, work](benchmark::State& state) {
        run(state, shape, work);
      })->Unit(benchmark::kMillisecond);
    }
  }
  ShapeReporter reporter(shapes);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
