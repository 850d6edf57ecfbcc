// The timing loop of the GPU benchmarks: a batch of calls, then one synchronisation; the manual
// time of an iteration is the time per call, and call_seconds the median over the run's batches
// (also the counter "median_ms", which bench/run_all.py takes as the row's time: the Python peers
// report the median of their batches too; Google Benchmark's own time column is the mean).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <vector>

#include "cuda/runtime.hpp"

namespace jf_bench {

inline double call_seconds = 0;  // of the last timed_batches or host_batches: the median batch, per call

// The median of the batches' seconds per call; sets the "median_ms" counter.
inline double median_per_call(benchmark::State& state, std::vector<double>& per_call) {
  if (per_call.empty()) return 0;
  std::sort(per_call.begin(), per_call.end());
  const std::size_t m = per_call.size() / 2;
  const double median = per_call.size() % 2 ? per_call[m] : 0.5 * (per_call[m - 1] + per_call[m]);
  state.counters["median_ms"] = median * 1e3;
  return median;
}

// `warm`: one untimed call first (generate, compile or load the kernels); false when the caller
// has made that call already.
template <class F>
void timed_batches(benchmark::State& state, int reps, F&& call, bool warm = true) {
  if (warm) call();
  jf::synchronize();
  std::vector<double> per_call;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) call();
    jf::synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / reps);
    per_call.push_back(s / reps);
  }
  call_seconds = median_per_call(state, per_call);
}

// Host time per call: each iteration synchronises (untimed), then times `reps` calls up to the
// last one's return; the device runs them meanwhile. `reps` stays below the launch queue's depth so
// that the calls never wait for the device.
template <class F> void host_batches(benchmark::State& state, int reps, F&& call) {
  call();  // warm
  std::vector<double> per_call;
  for (auto _ : state) {
    jf::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) call();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / reps);
    per_call.push_back(s / reps);
  }
  jf::synchronize();
  call_seconds = median_per_call(state, per_call);
}

// Skips a benchmark on a machine without a GPU (the benchmarks need one); true when there is one.
inline bool need_gpu(benchmark::State& state) {
  if (jf::cuda_available()) return true;
  state.SkipWithError("no CUDA GPU on this machine");
  return false;
}

// The counters of a row that moved `bytes` per call: GB/s, and its fraction of the device copy
// measured in the same run (`roof_gbps`; none while it is unknown).
inline double report_bandwidth(benchmark::State& state, double bytes, double roof_gbps) {
  const double gbps = bytes / call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (roof_gbps > 0) state.counters["of_copy"] = gbps / roof_gbps;
  return gbps;
}

// The device copy the rows are measured against: `bytes` from src to dst timed as the rows are.
// Returns its GB/s counting the bytes read and written (also the row's counter); call_seconds is
// its time per copy.
inline double copy_roof(benchmark::State& state, void* dst, const void* src, std::size_t bytes) {
  timed_batches(state, 10, [&] { jf::cuda_rt::copy_dtod(dst, src, bytes); });
  const double gbps = 2.0 * static_cast<double>(bytes) / call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  return gbps;
}

}  // namespace jf_bench
