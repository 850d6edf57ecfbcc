// Reductions fused with their producers against unfused execution (one kernel per operation, as
// CuPy without fusion), with the device copy bandwidth measured in the same run as the roof:
// sum(a*b) in f64 at 2^20..2^27, row and column sums of 4096x32768 and 32768x4096 f32,
// x - mean(x, 1, keepdims) on 4096x32768 f32, and the 2-norm. Python peers (CuPy with CUB,
// ReductionKernel, cupy.fuse, PyTorch) are measured by bench/peers_reductions.py.
//
//   ./bench/bench_reductions --benchmark_counters_tabular=true
//
// Every row reports the bytes it must move per call, GB/s and "of_copy": its bandwidth as a
// fraction of the copy bandwidth (read + write bytes per second of cuMemcpyDtoD) measured for the
// same number of bytes in this run. Times are per call: a batch of calls, then one synchronisation.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"
#include <jetfuse/jetfuse.hpp>

namespace {

std::map<std::int64_t, double> copy_gbps;  // measured roof per byte count moved

template <class T> jf::array<T> device_random(const jf::shape_t& s, unsigned seed) {
  std::mt19937_64 r(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(static_cast<std::size_t>(s.product()));
  for (auto& x : v) x = static_cast<T>(u(r));
  return jf::array<T>(v, s, jf::cuda);
}

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

int reps_for(std::int64_t bytes) { return bytes >= (std::int64_t(1) << 28) ? 10 : bytes >= (1 << 22) ? 50 : 200; }

void report(benchmark::State& state, std::int64_t bytes) {
  const double gbps = call_seconds > 0 ? static_cast<double>(bytes) / call_seconds * 1e-9 : 0;
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["GB/s"] = gbps;
  auto it = copy_gbps.find(bytes);
  if (it != copy_gbps.end() && it->second > 0) state.counters["of_copy"] = gbps / it->second;
}


// The roof: a device-to-device copy that reads bytes/2 and writes bytes/2.
void copy_roof(benchmark::State& state, std::int64_t bytes) {
  auto src = jf::empty<double>({bytes / 16}, jf::cuda);
  auto dst = jf::empty<double>({bytes / 16}, jf::cuda);
  timed_batches(state, reps_for(bytes), [&] { jf::cuda_rt::copy_dtod(dst.raw_data(), src.raw_data(), static_cast<std::size_t>(bytes / 2)); });
  const double gbps = static_cast<double>(bytes) / call_seconds * 1e-9;
  copy_gbps[bytes] = gbps;
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["GB/s"] = gbps;
}

// ---- sum(a * b), f64: 16 bytes per element ------------------------------------------------------
void BM_CopyDot(benchmark::State& state) {
  if (need_gpu(state)) copy_roof(state, state.range(0) * 16);
}
void BM_DotFused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = state.range(0);
  auto a = device_random<double>({n}, 1), b = device_random<double>({n}, 2);
  jf::array<double> s = jf::zeros<double>({}, jf::cuda);
  timed_batches(state, reps_for(n * 16), [&] { s = jf::sum(a * b); });
  report(state, n * 16);
}
void BM_DotUnfused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = state.range(0);
  auto a = device_random<double>({n}, 1), b = device_random<double>({n}, 2);
  jf::array<double> s;
  timed_batches(state, reps_for(n * 16), [&] { s = jf::eval(jf::unfused, jf::sum(a * b)); });
  report(state, n * 16);  // useful bytes: what the fused kernel moves
}
void BM_SumOnly(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = state.range(0);
  auto a = device_random<double>({n}, 1);
  jf::array<double> s = jf::zeros<double>({}, jf::cuda);
  timed_batches(state, reps_for(n * 8), [&] { s = jf::sum(a); });
  report(state, n * 8);  // against the copy of as many bytes (n / 2 elements)
}
void BM_Norm2(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = state.range(0);
  auto a = device_random<double>({n}, 3);
  jf::array<double> s = jf::zeros<double>({}, jf::cuda);
  timed_batches(state, reps_for(n * 8), [&] { s = jf::norm(a); });
  report(state, n * 8);  // against the copy of as many bytes (n / 2 elements)
}

// ---- axis reductions of f32 matrices: 4 bytes per element read -----------------------------------
constexpr std::int64_t big = 32768, small = 4096;
void BM_CopyMatrix(benchmark::State& state) {
  if (need_gpu(state)) copy_roof(state, big * small * 4);
}
// Sums of an (m, n) f32 matrix over `axis`: 1 is the contiguous one (row sums), 0 columns.
void axis_sums(benchmark::State& state, int axis) {
  if (!need_gpu(state)) return;
  const std::int64_t m = state.range(0), n = state.range(1);
  auto x = device_random<float>({m, n}, 4 + static_cast<unsigned>(axis == 0));
  jf::array<float> r = jf::zeros<float>({axis == 1 ? m : n}, jf::cuda);
  timed_batches(state, reps_for(m * n * 4), [&] { r = jf::sum(x, axis); });
  report(state, m * n * 4);
}
void BM_RowSums(benchmark::State& state) { axis_sums(state, 1); }
void BM_ColumnSums(benchmark::State& state) { axis_sums(state, 0); }
// x - mean(x, 1, keepdims): reads x and writes the result, 8 bytes per element, one kernel.
void BM_CopyCentre(benchmark::State& state) {
  if (need_gpu(state)) copy_roof(state, small * big * 8);
}
void BM_CentreRowsFused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto x = device_random<float>({small, big}, 6);
  jf::array<float> y = jf::empty<float>({small, big}, jf::cuda);
  auto call = [&] { y = x - jf::mean(x, 1, jf::keepdims); };
  call();
  jf::synchronize();
  jf::reset_stats();
  call();
  jf::synchronize();
  state.counters["kernels"] = static_cast<double>(jf::stats().launches);
  timed_batches(state, reps_for(small * big * 8), call);
  report(state, small * big * 8);
}
void BM_CentreRowsUnfused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto x = device_random<float>({small, big}, 6);
  jf::array<float> y;
  timed_batches(state, reps_for(small * big * 8), [&] { y = jf::eval(jf::unfused, x - jf::mean(x, 1, jf::keepdims)); });
  report(state, small * big * 8);
}

void dot_sizes(benchmark::internal::Benchmark* b) {
  for (int e = 20; e <= 27; ++e) b->Arg(std::int64_t(1) << e);
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(10);
}
void matrices(benchmark::internal::Benchmark* b) {
  // The same 2^27 floats as few long rows too (8 x 2^24: each row split over the SMs), and 1100 rows
  // of 2^17, just past a wave of 256-thread blocks on a 132-SM GPU (a block a row would leave a last
  // round of 44 blocks; jetfuse splits each row 4 ways).
  b->Args({small, big})->Args({big, small})->Args({8, std::int64_t(1) << 24})->Args({1100, std::int64_t(1) << 17});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(10);
}
void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(10); }

}  // namespace

// ---- histogram of 2^27 doubles into 100 bins: 8 bytes per element read ---------------------------
constexpr std::int64_t hist_n = std::int64_t(1) << 27;
void BM_CopyHistogram(benchmark::State& state) {
  if (need_gpu(state)) copy_roof(state, hist_n * 8);
}
// numpy.histogram(x, 100, (-1, 1)) of uniform values: one kernel (block counts in shared memory).
void BM_Histogram(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto x = device_random<double>({hist_n}, 4);
  jf::array<std::int64_t> h;
  timed_batches(state, 10, [&] { h = jf::histogram(x, 100, {-1.0, 1.0}).hist; });
  report(state, hist_n * 8);
}
// The same bins of an expression, fused (one kernel reads x once) and unfused (a kernel per
// operation of the operand, then the histogram's, as CuPy).
void BM_HistogramOfExpression(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto x = device_random<double>({hist_n}, 4);
  jf::array<std::int64_t> h;
  if (state.range(0))
    timed_batches(state, 10, [&] { h = jf::histogram(jf::unfused, x * x * 2 - 1, 100, {-1.0, 1.0}).hist; });
  else
    timed_batches(state, 10, [&] { h = jf::histogram(x * x * 2 - 1, 100, {-1.0, 1.0}).hist; });
  report(state, hist_n * 8);  // useful bytes: what the fused kernel reads
}
// numpy.histogram(x, 100) with the data's range: a min/max pass, then the counts.
void BM_HistogramAutoRange(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto x = device_random<double>({hist_n}, 4);
  jf::array<std::int64_t> h;
  timed_batches(state, 10, [&] { h = jf::histogram(x, 100).hist; });
  report(state, hist_n * 8);
}

// Registration order: each copy roof before the rows compared with it.
BENCHMARK(BM_CopyDot)->Apply(dot_sizes);
BENCHMARK(BM_DotFused)->Apply(dot_sizes);
BENCHMARK(BM_DotUnfused)->Apply(dot_sizes);
BENCHMARK(BM_SumOnly)->Apply(dot_sizes);
BENCHMARK(BM_Norm2)->Apply(dot_sizes);
BENCHMARK(BM_CopyMatrix)->Apply(one);
BENCHMARK(BM_RowSums)->Apply(matrices);
BENCHMARK(BM_ColumnSums)->Apply(matrices);
BENCHMARK(BM_CopyCentre)->Apply(one);
BENCHMARK(BM_CentreRowsFused)->Apply(one);
BENCHMARK(BM_CentreRowsUnfused)->Apply(one);
BENCHMARK(BM_CopyHistogram)->Apply(one);
BENCHMARK(BM_Histogram)->Apply(one);
BENCHMARK(BM_HistogramOfExpression)->Arg(0)->Arg(1)->Apply(one);
BENCHMARK(BM_HistogramAutoRange)->Apply(one);

int main(int argc, char** argv) {
  if (jf::cuda_available()) {
    const auto& p = jf::cuda_rt::props(0);
    std::printf("device: %s, %d SMs, sm_%d%d\n", p.name.c_str(), p.sm_count, p.cc_major, p.cc_minor);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
