// jf::matmul on jf::cuda: a plain GEMM 8192^3 (float32, float64) against cuBLAS called directly in
// the same run (`of_cublas`: jetfuse's rate over cuBLAS's; the target is >= 0.97), and the seed's
// A (10000 x 5000) @ B (5000 x 7000) then jf::sum(., 0), unrewritten (the rewrite to
// sum(A, 0) @ B is the next step of issue 15), and jf::einsum("ij,jk->k", A, B), which sums i out
// of A first. TFLOP/s counts 2 m n k per product.
//   ./build/cuda/bench/bench_matmul --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

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

template <class T>
jf::array<T> random_on_gpu(i64 rows, i64 cols) {
  std::vector<T> v(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 r(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : v) x = static_cast<T>(u(r));
  return jf::array<T>(v, {rows, cols}, jf::cuda);
}

template <class T>
double cublas_seconds = 0;  // of the last BM_GemmCublas<T>

template <class T>
void BM_GemmJetfuse(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const i64 n = state.range(0);
  const jf::array<T> a = random_on_gpu<T>(n, n), b = random_on_gpu<T>(n, n);
  timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::matmul(a, b)); });
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::mean_seconds * 1e-12;
  if (cublas_seconds < T >> 0) state.counters["of_cublas"] = cublas_seconds<T> / jf_bench::mean_seconds;
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
  timed_batches(state, 3, [&] {
    // Row-major c = a @ b is column-major c^T = b^T a^T.
    if constexpr (std::is_same_v<T, float>)
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data(), ni, a.data(), ni, &zero, c.data(), ni);
    else
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data(), ni, a.data(), ni, &zero, c.data(), ni);
  });
  cublasDestroy(h);
  cublas_seconds<T> = jf_bench::mean_seconds;
  state.counters["TFLOP/s"] = 2.0 * double(n) * double(n) * double(n) / jf_bench::mean_seconds * 1e-12;
}
#endif

// The seed's matmul then column sum, as numpy code reads (no rewrite yet).
template <class T>
void BM_SeedMatmulSum(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000), b = random_on_gpu<T>(5000, 7000);
  timed_batches(state, 3, [&] { benchmark::DoNotOptimize(jf::array<T>(jf::sum(jf::matmul(a, b), 0))); });
  state.counters["TFLOP/s"] = 2.0 * 10000.0 * 5000.0 * 7000.0 / jf_bench::mean_seconds * 1e-12;
}

constexpr double seed_elements = 10000.0 * 5000.0 + 5000.0 * 7000.0;  // A and B
template <class T>
double seed_copy_gbps = 0;  // of the last BM_CopySeedBytes<T>

// A device copy of as many bytes as A and B hold (the unit of `of_copy` below).
template <class T>
void BM_CopySeedBytes(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const auto n = static_cast<i64>(seed_elements);
  const jf::array<T> from = jf::zeros<T>({n}, jf::cuda), to = jf::empty<T>({n}, jf::cuda);
  seed_copy_gbps<T> = jf_bench::copy_roof(state, to.raw_data(), from.raw_data(), static_cast<std::size_t>(n) * sizeof(T));
}

// The same as einsum writes it ("ij,jk->k"): i summed out of A first (a column sum through a
// product with ones), then a vector-matrix product; A and B read once (`of_copy`: that rate over
// the copy's in the same run).
template <class T>
void BM_SeedEinsum(benchmark::State& state) {
  if (!jf::cuda_available()) return state.SkipWithError("no CUDA GPU");
  const jf::array<T> a = random_on_gpu<T>(10000, 5000), b = random_on_gpu<T>(5000, 7000);
  timed_batches(state, 5, [&] { benchmark::DoNotOptimize(jf::einsum("ij,jk->k", a, b)); });
  const double gbps = seed_elements * sizeof(T) / jf_bench::mean_seconds * 1e-9;
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
BENCHMARK(BM_SeedMatmulSum<float>)->Name("BM_SeedMatmulSum/float32")->Apply(seed);
BENCHMARK(BM_SeedMatmulSum<double>)->Name("BM_SeedMatmulSum/float64")->Apply(seed);
BENCHMARK(BM_CopySeedBytes<float>)->Name("BM_CopySeedBytes/float32")->Apply(seed);
BENCHMARK(BM_SeedEinsum<float>)->Name("BM_SeedEinsum/float32")->Apply(seed);
BENCHMARK(BM_CopySeedBytes<double>)->Name("BM_CopySeedBytes/float64")->Apply(seed);
BENCHMARK(BM_SeedEinsum<double>)->Name("BM_SeedEinsum/float64")->Apply(seed);

BENCHMARK_MAIN();
