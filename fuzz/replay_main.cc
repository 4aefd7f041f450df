// A main() for fuzz harnesses in ordinary builds: runs LLVMFuzzerTestOneInput
// over every file given on the command line and every regular file below every
// directory given (recursively, skipping names that start with '.'), then
// prints how many inputs ran. With this, each harness compiles in every build
// and ctest replays the corpus and the regression files under the sanitizers.
//
//   fuzz_parse corpus/ fuzz/regressions/fuzz_parse/ crash-1234
//
// Each input is copied into a heap buffer of exactly its size so that a read
// one byte past the end is an AddressSanitizer report, as under libFuzzer.
// A harness that defines LLVMFuzzerCustomMutator also gets each input mutated
// a few times (fixed seeds; every other one with less room than the input
// has, as libFuzzer's crash minimisation calls it) and the results replayed,
// so the mutator runs under the sanitizers in every build as well.
// STGUARD_REPLAY_MUTATIONS=N sets how many (default 8; 0 replays the inputs
// alone, as ci/coverage.sh does so that coverage counts only what the inputs
// themselves reach).
// STGUARD_SIMD picks the parser's SIMD path as everywhere (stguard/simd.h);
// here a path the CPU lacks is not lowered to one it has but skipped (exit
// 77, which ctest counts as a skip), and the path that ran is printed.
// Exit status: 0 when every input ran, 2 when a path could not be read or the
// environment is wrong, 77 as above, and whatever the sanitizer or a trapped
// invariant gives otherwise.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "stguard/simd.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Defined only by harnesses with a custom mutator.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed)
    __attribute__((weak));

namespace {

std::size_t mutated_runs = 0;
unsigned mutations_per_input = 8;

bool run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (in.bad()) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  // Exact size; a zero-byte input still gets a distinct (empty) allocation.
  auto exact = std::make_unique<std::uint8_t[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), exact.get());
  LLVMFuzzerTestOneInput(exact.get(), bytes.size());
  if (LLVMFuzzerCustomMutator != nullptr) {
    for (unsigned seed = 1; seed <= mutations_per_input; ++seed) {
      // Even seeds: room to grow. Odd seeds: as in libFuzzer's crash
      // minimisation, a max_size below the input's size in a buffer of
      // exactly the input's size, so the mutator may only shrink it.
      const bool shrink = seed % 2 == 1 && bytes.size() > 1;
      const std::size_t max_size = shrink ? bytes.size() - 1 : bytes.size() * 2 + 64;
      auto work = std::make_unique<std::uint8_t[]>(std::max(max_size, bytes.size()));
      std::copy(bytes.begin(), bytes.end(), work.get());
      const std::size_t size = LLVMFuzzerCustomMutator(work.get(), bytes.size(), max_size, seed);
      if (size > max_size) {
        std::fprintf(stderr, "replay: mutator returned %zu > max_size %zu\n", size, max_size);
        std::abort();
      }
      auto mutated = std::make_unique<std::uint8_t[]>(size);
      std::copy(work.get(), work.get() + size, mutated.get());
      LLVMFuzzerTestOneInput(mutated.get(), size);
      ++mutated_runs;
    }
  }
  return true;
}

bool hidden(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name.front() == '.';
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* env = std::getenv("STGUARD_REPLAY_MUTATIONS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long n = std::strtoul(env, &end, 10);
    if (*end != '\0' || n > 1000) {
      std::fprintf(stderr, "replay: STGUARD_REPLAY_MUTATIONS must be 0..1000, not '%s'\n", env);
      return 2;
    }
    mutations_per_input = static_cast<unsigned>(n);
  }
  if (const char* env = std::getenv("STGUARD_SIMD"); env != nullptr && *env != '\0') {
    const std::optional<stguard::SimdPath> path = stguard::simd_path_from_name(env);
    if (!path) {
      std::fprintf(stderr,
                   "replay: STGUARD_SIMD must be auto, baseline, avx2 or avx512, not '%s'\n", env);
      return 2;
    }
    if (!stguard::simd_path_supported(*path)) {
      std::printf("replay: this CPU lacks the %s path; skipped\n", env);
      return 77;
    }
  }
  std::size_t ran = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      // Sorted, so a failing run names the same input first every time.
      std::vector<std::filesystem::path> files;
      for (auto it = std::filesystem::recursive_directory_iterator(arg, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (hidden(it->path())) {
          if (it->is_directory()) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file()) files.push_back(it->path());
      }
      if (ec) {
        std::fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], ec.message().c_str());
        ok = false;
        continue;
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        if (run_file(file)) {
          ++ran;
        } else {
          ok = false;
        }
      }
    } else if (run_file(arg)) {
      ++ran;
    } else {
      ok = false;
    }
  }
  const std::string simd(stguard::simd_path_name(stguard::simd_path_in_use()));
  if (LLVMFuzzerCustomMutator != nullptr) {
    std::printf("replay: %zu inputs ran (and %zu custom-mutated variants), SIMD path %s\n", ran,
                mutated_runs, simd.c_str());
  } else {
    std::printf("replay: %zu inputs ran, SIMD path %s\n", ran, simd.c_str());
  }
  return ok ? 0 : 2;
}
