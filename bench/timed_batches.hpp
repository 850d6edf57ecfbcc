// The timing loop of the GPU benchmarks: a batch of calls, then one synchronisation; the manual
// time of an iteration is the time per call, and mean_seconds the mean over the run.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include <jetfuse/jetfuse.hpp>

namespace jf_bench {

inline double mean_seconds = 0;  // of the last timed_batches, per call

template <class F> void timed_batches(benchmark::State& state, int reps, F&& call) {
  call();  // warm: generate, compile or load the kernels
  jf::synchronize();
  double total = 0;
  std::int64_t calls = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) call();
    jf::synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / reps);
    total += s;
    calls += reps;
  }
  mean_seconds = calls ? total / static_cast<double>(calls) : 0;
}

}  // namespace jf_bench
