// The timing loop of the GPU benchmarks: a batch of calls, then one synchronisation; the manual
// time of an iteration is the time per call, and mean_seconds the mean over the run.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include <jetfuse/jetfuse.hpp>

#include "cuda/runtime.hpp"

namespace jf_bench {

inline double mean_seconds = 0;  // of the last timed_batches, per call

// `warm`: one untimed call first (generate, compile or load the kernels); false when the caller
// has made that call already.
template <class F>
void timed_batches(benchmark::State& state, int reps, F&& call, bool warm = true) {
  if (warm) call();
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

// Host time per call: each iteration synchronises (untimed), then times `reps` calls up to the
// last one's return; the device runs them meanwhile. `reps` stays below the launch queue's depth so
// that the calls never wait for the device.
template <class F> void host_batches(benchmark::State& state, int reps, F&& call) {
  call();  // warm
  double total = 0;
  std::int64_t calls = 0;
  for (auto _ : state) {
    jf::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) call();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s / reps);
    total += s;
    calls += reps;
  }
  jf::synchronize();
  mean_seconds = calls ? total / static_cast<double>(calls) : 0;
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
  const double gbps = bytes / mean_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (roof_gbps > 0) state.counters["of_copy"] = gbps / roof_gbps;
  return gbps;
}

// The device copy the rows are measured against: `bytes` from src to dst timed as the rows are.
// Returns its GB/s counting the bytes read and written (also the row's counter); mean_seconds is
// its time per copy.
inline double copy_roof(benchmark::State& state, void* dst, const void* src, std::size_t bytes) {
  timed_batches(state, 10, [&] { jf::cuda_rt::copy_dtod(dst, src, bytes); });
  const double gbps = 2.0 * static_cast<double>(bytes) / mean_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  return gbps;
}

}  // namespace jf_bench
