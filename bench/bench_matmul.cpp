// jf::matmul on jf::cuda: a plain GEMM 8192^3 (float32, float64) against cuBLAS called directly in
// the same run (`of_cublas`: jetfuse's rate over cuBLAS's; the target is >= 0.97), and the seed's
// A (10000 x 5000) @ B (5000 x 7000) then a sum over axis 0: jf::sum(jf::matmul(A, B), 0) as written
// (rewritten to sum(A, 0) @ B: a fused column sum, then the vector-matrix product through cuBLAS,
// or `_fused` as a fused multiply-reduction), the same not rewritten (the product made an array
// first: cuBLAS's GEMM, then a reduction), and jf::einsum("ij,jk->k", A, B). `of_copy`: A and B's
// bytes read once at the rate of a device copy in the same run. TFLOP/s counts 2 m n k per product.
// BM_GemmAlpha / BM_GemmPlusC: 1.5 * A @ B and A @ B + C (4096^2 float32), rewritten into cuBLAS's
// alpha / beta against the element-wise pass after the gemm.
//   ./build/cuda/bench/bench_matmul --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <vector>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"

#if JF_BENCH_CUBLAS
#include <cublas_v2.h>
#endif

namespace {

using i64 = std::int64_t;
using jf_bench::timed_batches;

// Uniform in [0, 1), as the peers' cp.random / torch.rand draw theirs: a GEMM's speed on this GPU
// depends on its data (its clocks follow the tensor cores' switching), so every implementation of
// a row multiplies values of one distribution (the table of 2026-11-28 had [-1, 1) here: cublasDgemm
// 19.48 ms against torch's 18.12 on [0, 1)).
template <class T>
jf::array<T> random_on_gpu(i64 rows, i64 cols) {
  std::vector<T> v(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 r(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : v) x = static_cast<T>(u(r));
  return jf::array<T>(v, {rows, cols}, jf::cuda);
}

template <class T>
double cublas_seconds = 0;  // of the last BM_GemmCublas<T>

// A GEMM this long is power-bound: the clocks fall as the GPU heats, so a row timed right after a
// pause runs several per cent faster than one timed after other GEMMs. Every GEMM row, here and in
// peers_matmul.py, first runs its call for warm_seconds untimed (the clocks at their steady state).
constexpr double warm_seconds = 2.0;
template <class F>
void warm_up(F&& call) {
  const auto start = std::chrono::steady_clock::now();
  do {
    call();
    jf::synchronize();
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < warm_seconds);
}

template <class T>
void BM_GemmJetfuse(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const i64 n = state.range(0);
  const jf::array<T> a = random_on_gpu<T>(n, n), b = random_on_gpu<T>(n, n);
  warm_up([&] { benchmark::DoNotOptimize(jf::array<T>(jf::matmul(a, b))); });
  timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::matmul(a, b))); });
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::call_seconds * 1e-12;
  if (cublas_seconds < T >> 0) state.counters["of_cublas"] = cublas_seconds<T> / jf_bench::call_seconds;
}

#if JF_BENCH_CUBLAS
template <class T>
void BM_GemmCublas(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const i64 n = state.range(0);
  const jf::array<T> a = random_on_gpu<T>(n, n), b = random_on_gpu<T>(n, n);
  jf::array<T> c = jf::zeros<T>({n, n}, jf::cuda);
  cublasHandle_t h = nullptr;
  cublasCreate(&h);
  cublasSetStream(h, static_cast<cudaStream_t>(jf::cuda_rt::current_stream()));
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  const T one = 1, zero = 0;
  const int ni = static_cast<int>(n);
  const auto gemm = [&] {
    // Row-major c = a @ b is column-major c^T = b^T a^T.
    if constexpr (std::is_same_v<T, float>)
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data(), ni, a.data(), ni, &zero, c.data(), ni);
    else
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data(), ni, a.data(), ni, &zero, c.data(), ni);
  };
  warm_up(gemm);
  timed_batches(state, 3, gemm);
  cublasDestroy(h);
  cublas_seconds<T> = jf_bench::call_seconds;
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::call_seconds * 1e-12;
}
#endif

constexpr double seed_elements = 10000.0 * 5000.0 + 5000.0 * 7000.0;  // A and B
template <class T>
double seed_copy_gbps = 0;  // of the last BM_CopySeedBytes<T>

// A device copy of as many bytes as A and B hold (the unit of `of_copy` below).
template <class T>
void BM_CopySeedBytes(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const auto n = static_cast<i64>(seed_elements);
  const jf::array<T> from = jf::zeros<T>({n}, jf::cuda), to = jf::empty<T>({n}, jf::cuda);
  seed_copy_gbps<T> =
      jf_bench::copy_roof(state, to.raw_data(), from.raw_data(), static_cast<std::size_t>(n) * sizeof(T));
}

// Back-to-back calls per timed batch of the rewritten rows: 10, as peers_matmul.py times the
// peers' einsum (the copy roof too), so the first call's host latency weighs alike in both.
constexpr int seed_reps = 10;

template <class T>
double unrewritten_seconds = 0;  // of the last BM_SeedMatmulThenSum<T>

// A and B's bytes over the time, as a fraction of the copy; the speed-up over the unrewritten form.
template <class T>
void seed_counters(benchmark::State& state) {
  const double gbps = seed_elements * sizeof(T) / jf_bench::call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (seed_copy_gbps < T >> 0) state.counters["of_copy"] = gbps / seed_copy_gbps<T>;
  if (unrewritten_seconds < T >> 0) state.counters["speedup"] = unrewritten_seconds<T> / jf_bench::call_seconds;
}

// Not rewritten: the product made an array (cuBLAS's GEMM), then jf::sum of it (CuPy's and
// torch's matmul + sum).
template <class T>
void BM_SeedMatmulThenSum(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000), b = random_on_gpu<T>(5000, 7000);
  timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::sum(jf::array<T>(jf::matmul(a, b)), 0))); });
  unrewritten_seconds<T> = jf_bench::call_seconds;
  state.counters["TFLOP/s"] = 2.0 * 10000.0 * 5000.0 * 7000.0 / jf_bench::call_seconds * 1e-12;
}

// The seed as numpy code reads: jf::sum(jf::matmul(A, B), axis), rewritten. range(0): the axis;
// range(1): the route of the vector product (0 automatic, 1 through cuBLAS, 2 fused reduction).
template <class T>
void BM_SeedSumOfMatmul(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000), b = random_on_gpu<T>(5000, 7000);
  const int axis = static_cast<int>(state.range(0));
  jf::detail::set_product_route(static_cast<jf::detail::product_route>(state.range(1)));
  timed_batches(state, seed_reps, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::sum(jf::matmul(a, b), axis))); });
  jf::detail::set_product_route(jf::detail::product_route::automatic);
  seed_counters<T>(state);
}

// The same as einsum writes it ("ij,jk->k"): i summed out of A first (a fused column sum), then
// the vector-matrix product (range(0): the route, as above).
template <class T>
void BM_SeedEinsum(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000), b = random_on_gpu<T>(5000, 7000);
  jf::detail::set_product_route(static_cast<jf::detail::product_route>(state.range(0)));
  timed_batches(state, seed_reps, [&] { benchmark::DoNotOptimize(jf::einsum("ij,jk->k", a, b)); });
  jf::detail::set_product_route(jf::detail::product_route::automatic);
  seed_counters<T>(state);
}

// The rewrite's two steps alone: the column sums of A (jf::sum(A, 0), one fused reduction) and the
// vector-matrix product s @ B (cuBLAS); of_copy for each one's own bytes.
template <class T>
void BM_SeedColumnSums(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000);
  timed_batches(state, seed_reps, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::sum(a, 0))); });
  const double gbps = 10000.0 * 5000.0 * sizeof(T) / jf_bench::call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (seed_copy_gbps < T >> 0) state.counters["of_copy"] = gbps / seed_copy_gbps<T>;
}
template <class T>
void BM_SeedVectorMatrix(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> s = random_on_gpu<T>(1, 5000).reshape(jf::shape_t{5000}), b = random_on_gpu<T>(5000, 7000);
  timed_batches(state, seed_reps, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::matmul(s, b))); });
  const double gbps = 5000.0 * 7000.0 * sizeof(T) / jf_bench::call_seconds * 1e-9;
  state.counters["GB/s"] = gbps;
  if (seed_copy_gbps < T >> 0) state.counters["of_copy"] = gbps / seed_copy_gbps<T>;
}

void gemm_size(benchmark::internal::Benchmark* b) {
  b->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
}
void seed(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5); }

}  // namespace

#if JF_BENCH_CUBLAS
BENCHMARK(BM_GemmCublas<float>)->Name("BM_GemmCublas/float32")->Apply(gemm_size);
#endif
BENCHMARK(BM_GemmJetfuse<float>)->Name("BM_GemmJetfuse/float32")->Apply(gemm_size);
#if JF_BENCH_CUBLAS
BENCHMARK(BM_GemmCublas<double>)->Name("BM_GemmCublas/float64")->Apply(gemm_size);
#endif
BENCHMARK(BM_GemmJetfuse<double>)->Name("BM_GemmJetfuse/float64")->Apply(gemm_size);
// alpha * A @ B and A @ B + C (4096^2 float32): range(0) 1 the rewritten form (one gemm with alpha /
// beta; C copied into the result first), 0 the same element-wise after the gemm (the product made an
// array, then one fused kernel), as numpy or CuPy run it. TFLOP/s counts 2 n^3.
template <class T>
void BM_GemmAlpha(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const i64 n = 4096;
  const jf::array<T> a = random_on_gpu<T>(n, n), b = random_on_gpu<T>(n, n);
  if (state.range(0))
    timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(1.5 * jf::matmul(a, b))); });
  else
    timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(1.5 * jf::array<T>(jf::matmul(a, b)))); });
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::call_seconds * 1e-12;
}
template <class T>
void BM_GemmPlusC(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const i64 n = 4096;
  const jf::array<T> a = random_on_gpu<T>(n, n), b = random_on_gpu<T>(n, n), c = random_on_gpu<T>(n, n);
  if (state.range(0))
    timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::matmul(a, b) + c)); });
  else
    timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::array<T>(jf::matmul(a, b)) + c)); });
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::call_seconds * 1e-12;
}
BENCHMARK(BM_GemmAlpha<float>)->Name("BM_GemmAlpha/float32/elementwise")->Arg(0)->Apply(seed);
BENCHMARK(BM_GemmAlpha<float>)->Name("BM_GemmAlpha/float32/rewritten")->Arg(1)->Apply(seed);
BENCHMARK(BM_GemmPlusC<float>)->Name("BM_GemmPlusC/float32/elementwise")->Arg(0)->Apply(seed);
BENCHMARK(BM_GemmPlusC<float>)->Name("BM_GemmPlusC/float32/rewritten")->Arg(1)->Apply(seed);

#define JF_SEED_BENCHMARKS(T, name)                                                                             \
  BENCHMARK(BM_CopySeedBytes<T>)->Name("BM_CopySeedBytes/" name)->Apply(seed);                                  \
  BENCHMARK(BM_SeedMatmulThenSum<T>)->Name("BM_SeedMatmulThenSum/" name)->Apply(seed);                          \
  BENCHMARK(BM_SeedSumOfMatmul<T>)->Name("BM_SeedSumOfMatmul/" name "/axis0")->Args({0, 0})->Apply(seed);       \
  BENCHMARK(BM_SeedSumOfMatmul<T>)->Name("BM_SeedSumOfMatmul/" name "/axis0_fused")->Args({0, 2})->Apply(seed); \
  BENCHMARK(BM_SeedSumOfMatmul<T>)->Name("BM_SeedSumOfMatmul/" name "/axis1")->Args({1, 0})->Apply(seed);       \
  BENCHMARK(BM_SeedSumOfMatmul<T>)->Name("BM_SeedSumOfMatmul/" name "/axis1_gemv")->Args({1, 1})->Apply(seed);  \
  BENCHMARK(BM_SeedEinsum<T>)->Name("BM_SeedEinsum/" name)->Args({0})->Apply(seed);                             \
  BENCHMARK(BM_SeedEinsum<T>)->Name("BM_SeedEinsum/" name "/fused")->Args({2})->Apply(seed);                    \
  BENCHMARK(BM_SeedColumnSums<T>)->Name("BM_SeedColumnSums/" name)->Apply(seed);                                \
  BENCHMARK(BM_SeedVectorMatrix<T>)->Name("BM_SeedVectorMatrix/" name)->Apply(seed);
JF_SEED_BENCHMARKS(float, "float32")
JF_SEED_BENCHMARKS(double, "float64")
#undef JF_SEED_BENCHMARKS

BENCHMARK_MAIN();
