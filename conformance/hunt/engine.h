// conformance/hunt/engine.h: the hunt itself: generate files, run each through the
// reader, compare with stguard's verdicts, bucket the divergences, then
// minimise each bucket's file.
//
//   stguard::hunt::SeedPool pool = stguard::hunt::make_seed_pool(corpus_files, seed);
//   std::unique_ptr<conformance::Grader> grader = conformance::make_grader(spec, limits, true);
//   stguard::hunt::HuntResult r = stguard::hunt::run_hunt(*grader, pool, options);
//
// Deterministic: run i's file depends only on the seed, i and the pool, and
// results are bucketed in run order whatever order the -j workers finish in,
// so a fixed --seed and --runs give the same buckets and files (for a reader
// that answers the same file the same way).
#ifndef STGUARD_CONFORMANCE_HUNT_ENGINE_H_
#define STGUARD_CONFORMANCE_HUNT_ENGINE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "conformance/hunt/signature.h"
#include "conformance/runner/grader.h"

namespace stguard::hunt {

// The files mutation starts from: the corpus's, and files the structured
// generator made without faults. `valid` holds those both profiles accept.
struct SeedPool {
  std::vector<std::vector<std::uint8_t>> all;
  std::vector<std::vector<std::uint8_t>> valid;
};

// Files larger than this are left out of the pool (mutants stay small).
inline constexpr std::size_t kMaxSeedBytes = 64 << 10;

SeedPool make_seed_pool(std::vector<std::vector<std::uint8_t>> corpus_files, std::uint64_t seed);

// Run `run`'s file. Default mode: 3 in 10 from the structured generator
// (random choices), the rest a pool file with one to three edits, each a
// token-level mutation or (1 in 5) a layout edit. from_valid: a valid pool
// file with exactly one edit.
std::vector<std::uint8_t> make_candidate(const SeedPool& pool, std::uint64_t seed,
                                         std::uint64_t run, bool from_valid);

struct HuntProgress {
  std::uint64_t runs = 0;
  std::uint64_t divergences = 0;
  std::size_t buckets = 0;
  double seconds = 0;
};

struct HuntOptions {
  std::uint64_t seed = 1;
  std::uint64_t runs = 0;  // stop after this many files; 0: no limit
  double seconds = 0;      // stop generating after this long; 0: no limit
  unsigned jobs = 1;
  bool from_valid = false;
  std::size_t minimise_tests = 300;  // reader runs per bucket at most
  // Minimisation ends after this long (each bucket keeps what it has); 0: no
  // limit. Only --runs hunts are deterministic, so only they go without.
  double minimise_seconds = 0;
  std::filesystem::path work_dir;  // scratch files (must exist); each is removed after use
  std::function<void(const HuntProgress&)> on_progress;  // after each batch
};

struct HuntResult {
  std::uint64_t runs = 0;
  std::uint64_t divergences = 0;
  double generate_seconds = 0;
  double minimise_seconds = 0;
  std::size_t minimise_tests = 0;  // reader runs while minimising
  bool stopped = false;            // a stop request ended it (files not minimised)
  // Why the hunt could not go on: a file for the reader could not be
  // written ("cannot write DIR/.../7.safetensors: No space left on device").
  // Runs and buckets then count only the files the reader really read.
  std::string error;
  std::vector<Bucket> buckets;  // in the order found, files minimised
};

// Each file goes through `grader` exactly as `stguard conform` runs a case
// (conformance/runner/grader.h), from options.jobs threads at once.
HuntResult run_hunt(conformance::Grader& grader, const SeedPool& pool, const HuntOptions& options);

}  // namespace stguard::hunt

#endif  // STGUARD_CONFORMANCE_HUNT_ENGINE_H_
