// bench/ratio_table.h: the two helpers the benchmark programs print their
// rows of ratios with (checkpoint_bench.cc, interleaved_bench.cc).
#ifndef STGUARD_BENCH_RATIO_TABLE_H_
#define STGUARD_BENCH_RATIO_TABLE_H_

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace stguard::bench {

// The median of `samples`, or nullopt when there are none.
inline std::optional<double> median_of(std::vector<double> samples) {
  if (samples.empty()) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const std::size_t m = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[m] : (samples[m - 1] + samples[m]) / 2;
}

// top / bottom as "1.45x", with " !" when the goal (at least, or at most,
// `goal`) is missed; "-" when either is not measured.
inline std::string ratio_cell(std::optional<double> top, std::optional<double> bottom, double goal,
                              bool at_least) {
  if (!top || !bottom || *bottom <= 0) return "-";
  const double ratio = *top / *bottom;
  const bool missed = at_least ? ratio < goal : ratio > goal;
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx%s", ratio, missed ? " !" : "");
  return text;
}

}  // namespace stguard::bench

#endif  // STGUARD_BENCH_RATIO_TABLE_H_
