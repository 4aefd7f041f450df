// base/parallel.h.
#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace stguard::base {
namespace {

TEST(ParallelForEach, RunsEveryIndexOnce) {
  for (const unsigned jobs : {0u, 1u, 2u, 7u}) {
    std::vector<std::atomic<int>> hits(100);
    const unsigned used =
        parallel_for_each(hits.size(), {.jobs = jobs}, [&](std::size_t i) { ++hits[i]; });
    EXPECT_GE(used, 1u);
    EXPECT_LE(used, effective_jobs(jobs, hits.size()));
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
  EXPECT_EQ(parallel_for_each(0, {}, [](std::size_t) { FAIL(); }), 0u);
}

TEST(ParallelForEach, TicksWhileWorking) {
  std::atomic<bool> release{false};
  std::atomic<int> ticks{0};
  ParallelOptions options{.jobs = 2,
                          .on_tick =
                              [&] {
                                if (++ticks >= 3) release = true;
                              },
                          .tick_interval = std::chrono::milliseconds(1)};
  parallel_for_each(2, options, [&](std::size_t) {
    while (!release) std::this_thread::yield();
  });
  EXPECT_GE(ticks.load(), 3);
}

TEST(ParallelForEach, RethrowsTheFirstExceptionAfterJoining) {
  // On one thread the hand-out stops at the throwing index exactly. (On
  // several, the others go on until the exception is caught, which takes as
  // long as unwinding takes: no count can be asserted there.)
  std::atomic<int> ran{0};
  const auto body = [&](std::size_t i) {
    ++ran;
    if (i == 3) throw std::runtime_error("boom");
  };
  EXPECT_THROW(parallel_for_each(1000, {.jobs = 1}, body), std::runtime_error);
  EXPECT_EQ(ran.load(), 4);
  ran = 0;
  EXPECT_THROW(parallel_for_each(1000, {.jobs = 2}, body), std::runtime_error);
  EXPECT_GE(ran.load(), 4);
}

TEST(EffectiveJobs, Bounds) {
  EXPECT_EQ(effective_jobs(8, 3), 3u);
  EXPECT_EQ(effective_jobs(2, 0), 1u);
  EXPECT_GE(effective_jobs(0, 100), 1u);
}

}  // namespace
}  // namespace stguard::base
