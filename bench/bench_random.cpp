// jf::random's leaves on the GPU: Monte Carlo pi from 2^30 pairs (float64 and float32) fused into
// one reduction (the random numbers are never stored) against generating the arrays first, and uniform float32
// (and float64) generated into an array against the device's write bandwidth (a memset of as many
// bytes, measured in the same run). Rows ending in 4x32 draw from jf::random::philox4x32 (Random123's
// Philox4x32-10, half the multiply work per random bit) instead of numpy's Philox4x64-10. Peers:
// bench/peers_random.py (CuPy, JAX).
//
//   ./build/cuda/bench/bench_random --benchmark_counters_tabular=true
#include <cstdint>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"
#include <jetfuse/jetfuse.hpp>

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::int64_t pi_n = std::int64_t(1) << 30;
constexpr std::int64_t gen_n = std::int64_t(1) << 28;
double write_gbps = 0;


void samples(benchmark::State& state, std::int64_t n, double pi) {
  state.counters["Gsamples/s"] = static_cast<double>(n) / call_seconds * 1e-9;
  state.counters["pi"] = pi;
}

// 4 * mean(u^2 + v^2 < 1): one kernel, 2^30 pairs generated where they are used.
template <class Gen> void pi_fused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  Gen gen(2026);
  double pi = 0;
  timed_batches(state, 3, [&] {
    auto u = gen.random({pi_n}, jf::cuda);
    auto v = gen.random({pi_n}, jf::cuda);
    pi = (4 * jf::mean(jf::square(u) + jf::square(v) < 1)).item();
  });
  samples(state, pi_n, pi);
}
void BM_PiFused(benchmark::State& state) { pi_fused<jf::random::philox>(state); }
void BM_PiFused4x32(benchmark::State& state) { pi_fused<jf::random::philox4x32>(state); }
// The same in float32 (numpy's random(dtype=np.float32)): 8 draws per block call, not 4.
template <class Gen> void pi_fused_float32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  Gen gen(2026);
  double pi = 0;
  timed_batches(state, 3, [&] {
    auto u = gen.template random<float>({pi_n}, jf::cuda);
    auto v = gen.template random<float>({pi_n}, jf::cuda);
    pi = (4 * jf::mean(jf::square(u) + jf::square(v) < 1)).item();
  });
  samples(state, pi_n, pi);
}
void BM_PiFusedFloat32(benchmark::State& state) { pi_fused_float32<jf::random::philox>(state); }
void BM_PiFusedFloat32_4x32(benchmark::State& state) { pi_fused_float32<jf::random::philox4x32>(state); }
// The same draws written to two arrays first (16 GB), then reduced: what array libraries do.
void BM_PiGenerateThenReduce(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::random::philox gen(2026);
  jf::array<double> u = jf::empty<double>({pi_n}, jf::cuda), v = jf::empty<double>({pi_n}, jf::cuda);
  double pi = 0;
  timed_batches(state, 3, [&] {
    u = gen.random({pi_n}, jf::cuda);
    v = gen.random({pi_n}, jf::cuda);
    pi = (4 * jf::mean(jf::square(u) + jf::square(v) < 1)).item();
  });
  samples(state, pi_n, pi);
}

void BM_WriteRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  auto a = jf::empty<float>({gen_n}, jf::cuda);
  timed_batches(state, 20, [&] { jf::cuda_rt::memset_d8(a.raw_data(), 0, static_cast<std::size_t>(gen_n * 4)); });
  write_gbps = static_cast<double>(gen_n * 4) / call_seconds * 1e-9;
  state.counters["GB/s"] = write_gbps;
}
// uniform float32 in [0, 1) written into an existing array of 2^28 elements.
template <class Gen> void uniform_float32_into_array(benchmark::State& state) {
  if (!need_gpu(state)) return;
  Gen gen(7);
  auto a = jf::empty<float>({gen_n}, jf::cuda);
  timed_batches(state, 20, [&] { a = gen.template random<float>({gen_n}, jf::cuda); });
  const double gbps = static_cast<double>(gen_n * 4) / call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (write_gbps > 0) state.counters["of_write"] = gbps / write_gbps;
}
void BM_UniformFloat32IntoArray(benchmark::State& state) { uniform_float32_into_array<jf::random::philox>(state); }
void BM_UniformFloat32IntoArray4x32(benchmark::State& state) { uniform_float32_into_array<jf::random::philox4x32>(state); }

// uniform float64 in [0, 1) written into an existing array of 2^27 elements (the same bytes): runs
// of 8-byte values go through shared memory (philox_chunks.cpp).
void BM_UniformFloat64IntoArray(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::random::philox gen(7);
  auto a = jf::empty<double>({gen_n / 2}, jf::cuda);
  timed_batches(state, 20, [&] { a = gen.random<double>({gen_n / 2}, jf::cuda); });
  const double gbps = static_cast<double>(gen_n * 4) / call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (write_gbps > 0) state.counters["of_write"] = gbps / write_gbps;
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(3); }

}  // namespace

BENCHMARK(BM_PiFused)->Apply(one);
BENCHMARK(BM_PiFused4x32)->Apply(one);
BENCHMARK(BM_PiFusedFloat32)->Apply(one);
BENCHMARK(BM_PiFusedFloat32_4x32)->Apply(one);
BENCHMARK(BM_PiGenerateThenReduce)->Apply(one);
BENCHMARK(BM_WriteRoof)->Apply(one);
BENCHMARK(BM_UniformFloat32IntoArray)->Apply(one);
BENCHMARK(BM_UniformFloat32IntoArray4x32)->Apply(one);
BENCHMARK(BM_UniformFloat64IntoArray)->Apply(one);

BENCHMARK_MAIN();
