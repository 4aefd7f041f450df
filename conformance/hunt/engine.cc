// conformance/hunt/engine.cc: generation, grading, bucketing, minimisation (engine.h).
#include "conformance/hunt/engine.h"

#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <system_error>

#include "base/file_io.h"
#include "base/output.h"
#include "base/parallel.h"
#include "conformance/hunt/minimise.h"
#include "conformance/hunt/oracle.h"
#include "conformance/mutate/structured.h"
#include "conformance/mutate/token_mutator.h"
#include "conformance/runner/cleanup.h"

namespace stguard::hunt {
namespace {

namespace fs = std::filesystem;

// std::mt19937_64 and std::seed_seq are specified to the bit, so the same
// seed makes the same files with any standard library; draws use `%`, not
// the distributions, whose algorithms are the library's choice.
std::mt19937_64 run_rng(std::uint64_t seed, std::uint64_t run) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(run >> 32)};
  return std::mt19937_64(seq);
}

std::vector<std::uint8_t> random_choices(std::mt19937_64& rng) {
  std::vector<std::uint8_t> choices(32 + rng() % 480);
  for (std::uint8_t& b : choices) b = static_cast<std::uint8_t>(rng());
  return choices;
}

bool both_accept(std::span<const std::uint8_t> file) {
  const Oracle o = judge(file);
  return o.strict.accept && o.reference.accept;
}

base::Result<void> write_bytes(const fs::path& path, std::span<const std::uint8_t> bytes) {
  return base::write_file(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// The first failure of any worker, kept for the result.
class FirstError {
 public:
  void set(std::string error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_.empty()) error_ = std::move(error);
  }
  bool any() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return !error_.empty();
  }
  std::string take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::move(error_);
  }

 private:
  mutable std::mutex mutex_;
  std::string error_;
};

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SeedPool make_seed_pool(std::vector<std::vector<std::uint8_t>> corpus_files, std::uint64_t seed) {
  SeedPool pool;
  for (std::vector<std::uint8_t>& file : corpus_files) {
    if (file.size() > kMaxSeedBytes) continue;
    if (both_accept(file)) pool.valid.push_back(file);
    pool.all.push_back(std::move(file));
  }
  // Fault-free generated files widen the valid pool beyond the corpus's.
  std::mt19937_64 rng = run_rng(seed, ~std::uint64_t{0});
  for (int i = 0; i < 256; ++i) {
    const mutate::StructuredFile f = mutate::generate_structured(random_choices(rng));
    if (f.bytes.size() > kMaxSeedBytes || !both_accept(f.bytes)) continue;
    pool.valid.push_back(f.bytes);
    pool.all.push_back(f.bytes);
  }
  return pool;
}

std::vector<std::uint8_t> make_candidate(const SeedPool& pool, std::uint64_t seed,
                                         std::uint64_t run, bool from_valid) {
  std::mt19937_64 rng = run_rng(seed, run);
  const auto mutation_seed = [&rng]() { return static_cast<unsigned>(rng()); };
  // One edit in five is a layout edit (mutate_layout), the rest token-level.
  const auto edit = [&](std::span<const std::uint8_t> file) {
    return rng() % 5 == 0 ? mutate::mutate_layout(file, mutation_seed())
                          : mutate::mutate_copy(file, mutation_seed());
  };
  if (from_valid) {
    if (pool.valid.empty()) return {};
    return edit(pool.valid[rng() % pool.valid.size()]);
  }
  if (rng() % 10 < 3 || pool.all.empty()) {
    return mutate::generate_structured(random_choices(rng)).bytes;
  }
  std::vector<std::uint8_t> file = pool.all[rng() % pool.all.size()];
  const std::uint64_t edits = 1 + rng() % 3;
  for (std::uint64_t e = 0; e < edits; ++e) file = edit(file);
  return file;
}

HuntResult run_hunt(conformance::Grader& grader, const SeedPool& pool, const HuntOptions& options) {
  HuntResult result;
  Buckets buckets;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t batch = std::max<std::uint64_t>(8, std::uint64_t{options.jobs} * 4);

  struct Slot {
    std::vector<std::uint8_t> file;
    Oracle oracle;
    std::optional<conformance::CaseResult> answer;
  };
  FirstError failure;
  while (conformance::stop_signal() <= 0 && !failure.any()) {
    if (options.runs != 0 && result.runs >= options.runs) break;
    if (options.seconds > 0 && since(start) >= options.seconds) break;
    const std::uint64_t count =
        options.runs == 0 ? batch : std::min(batch, options.runs - result.runs);
    std::vector<Slot> slots(count);
    base::parallel_for_each(count, {.jobs = options.jobs}, [&](std::size_t i) {
      const std::uint64_t run = result.runs + i;
      Slot& slot = slots[i];
      slot.file = make_candidate(pool, options.seed, run, options.from_valid);
      slot.oracle = judge(slot.file);
      const fs::path path = options.work_dir / (std::to_string(run) + ".safetensors");
      if (base::Result<void> wrote = write_bytes(path, slot.file); !wrote) {
        failure.set(wrote.error().message);
        return;
      }
      slot.answer = grader.grade(slot.oracle.expected, path);
      std::error_code ec;
      fs::remove(path, ec);
    });
    if (conformance::stop_signal() > 0) break;  // the batch's last runs were cut short
    std::uint64_t read = 0;                     // files the reader really got
    for (std::uint64_t i = 0; i < count; ++i) {
      const Slot& slot = slots[i];
      if (!slot.answer) continue;
      ++read;
      const std::optional<Divergence> kind = divergence_of(slot.answer->grade);
      if (!kind) continue;
      ++result.divergences;
      buckets.add(make_signature(*kind, slot.oracle, *slot.answer, slot.file), slot.file,
                  result.runs + i, *slot.answer);
    }
    result.runs += failure.any() ? read : count;
    if (options.on_progress) {
      options.on_progress({result.runs, result.divergences, buckets.size(), since(start)});
    }
  }
  result.generate_seconds = since(start);
  result.stopped = conformance::stop_signal() > 0;

  const std::vector<Bucket*> found = buckets.ordered();
  const auto minimise_start = std::chrono::steady_clock::now();
  if (!result.stopped && !failure.any()) {
    std::mutex count_mutex;
    base::parallel_for_each(found.size(), {.jobs = options.jobs}, [&](std::size_t index) {
      Bucket& bucket = *found[index];
      const std::string wanted = bucket.signature.bucket();
      const fs::path path = options.work_dir / ("min-" + wanted + ".safetensors");
      // What the bucket says of its file follows the file: a crash's
      // signature may hold other reasons than the file it was found on.
      Signature signature = bucket.signature;
      std::string detail = bucket.detail;
      std::string stderr_text = bucket.stderr_text;
      std::size_t reader_runs = 0;  // the budget also counts tests refused at the deadline
      const StillHolds holds = [&](std::span<const std::uint8_t> bytes) {
        if (conformance::stop_signal() > 0) return false;
        if (options.minimise_seconds > 0 && since(minimise_start) >= options.minimise_seconds) {
          return false;
        }
        if (base::Result<void> wrote = write_bytes(path, bytes); !wrote) {
          failure.set(wrote.error().message);
          return false;
        }
        ++reader_runs;
        const Oracle oracle = judge(bytes);
        const std::optional<conformance::CaseResult> answer = grader.grade(oracle.expected, path);
        if (!answer) return false;
        const std::optional<Divergence> kind = divergence_of(answer->grade);
        if (!kind) return false;
        Signature held = make_signature(*kind, oracle, *answer, bytes);
        if (held.bucket() != wanted) return false;
        signature = std::move(held);
        detail = answer->detail;
        stderr_text = kept_stderr(*kind, *answer);
        return true;
      };
      std::vector<std::uint8_t> smaller =
          minimise(bucket.file, holds, {.max_tests = options.minimise_tests});
      std::error_code ec;
      fs::remove(path, ec);
      if (conformance::stop_signal() > 0) return;  // a test cut short proves nothing
      bucket.file = std::move(smaller);
      bucket.signature = std::move(signature);
      bucket.detail = std::move(detail);
      bucket.stderr_text = std::move(stderr_text);
      const std::lock_guard<std::mutex> lock(count_mutex);
      result.minimise_tests += reader_runs;
    });
  }
  result.minimise_seconds = since(minimise_start);
  result.stopped = conformance::stop_signal() > 0;
  result.error = failure.take();
  for (Bucket* bucket : found) result.buckets.push_back(*bucket);
  return result;
}

}  // namespace stguard::hunt
