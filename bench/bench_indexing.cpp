// jf::take on the GPU: 2^27 doubles gathered by an identity and a random permutation (int64), with
// the bound check (mode raise: checked in the kernel, reported after it) and without it (mode clip),
// and fused with a consumer, and as an index pair m[p // cols, p % cols]; bandwidth counts x +
// indices + result (24 bytes per element) against a device copy of the same 2^27 doubles measured
// in the same run (16 bytes per element).
// Peers: bench/peers_indexing.py (CuPy, PyTorch, JAX).
//
//   ./build/cuda/bench/bench_indexing --benchmark_counters_tabular=true
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"
#include <jetfuse/jetfuse.hpp>

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::int64_t n = std::int64_t(1) << 27;
double copy_gbps = 0;


struct data {
  jf::array<double> x, y;
  jf::array<std::int64_t> identity, random;
  data() {
    std::vector<std::int64_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    identity = jf::array<std::int64_t>(p, jf::cuda);
    std::shuffle(p.begin(), p.end(), std::mt19937_64(2026));
    random = jf::array<std::int64_t>(p, jf::cuda);
    x = jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda);
    y = jf::empty<double>({n}, jf::cuda);
  }
};
data& get() {
  static data d;
  return d;
}

void bandwidth(benchmark::State& state, double bytes_per_element) {
  jf_bench::report_bandwidth(state, bytes_per_element * static_cast<double>(n), copy_gbps);
}

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  copy_gbps = jf_bench::copy_roof(state, d.y.raw_data(), d.x.raw_data(), static_cast<std::size_t>(n * 8));
}

template <bool Random, bool Checked> void BM_Take(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<std::int64_t>& p = Random ? d.random : d.identity;
  if constexpr (Checked) timed_batches(state, 10, [&] { d.y = jf::take(d.x, p); });
  else timed_batches(state, 10, [&] { d.y = jf::take(d.x, p, jf::mode::clip); });
  bandwidth(state, 24);
}

// A consumer in the same kernel: y = sqrt(x[p] * 2 + 1).
void BM_TakeFusedRandom(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.y = jf::sqrt(jf::take(d.x, d.random) * 2.0 + 1.0); });
  bandwidth(state, 24);
}
// The same unfused (a kernel per operation, temporaries): what an array library without fusion does.
void BM_TakeUnfusedRandom(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.y = jf::eval(jf::unfused, jf::sqrt(jf::take(d.x, d.random) * 2.0 + 1.0)); });
  bandwidth(state, 24);
}

// Rows of a matrix: m(p) (numpy m[p]) with 2^23 rows of 16 doubles and a random row permutation
// (2^23 int64): 8 B of index per 128 B row read and written.
void BM_TakeRowsRandom(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const std::int64_t rows = n / 16;
  const jf::array<double> m = d.x.reshape({rows, 16});
  jf::array<double> out = jf::empty<double>({rows, 16}, jf::cuda);
  std::vector<std::int64_t> p(static_cast<std::size_t>(rows));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), std::mt19937_64(7));
  const jf::array<std::int64_t> perm(p, jf::cuda);
  timed_batches(state, 10, [&] { out = m(perm); });
  jf_bench::report_bandwidth(state, 16.0 * static_cast<double>(n) + 8.0 * static_cast<double>(rows), copy_gbps);
}

// numpy's m[p // cols, p % cols] on x viewed as a 2^14 x 2^13 matrix: the same elements as
// take(x, p), each pick's two indices computed in the kernel and checked along their own axes.
template <bool Random>
void BM_IndexPair(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const std::int64_t cols = std::int64_t(1) << 13;
  const jf::array<double> m = d.x.reshape({n / cols, cols});
  const jf::array<std::int64_t>& p = Random ? d.random : d.identity;
  timed_batches(state, 10, [&] { d.y = m(jf::floor_divide(p, cols), p % cols); });
  bandwidth(state, 24);
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(5); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
BENCHMARK(BM_Take<false, true>)->Name("BM_TakeIdentity")->Apply(one);
BENCHMARK(BM_Take<false, false>)->Name("BM_TakeIdentityUnchecked")->Apply(one);
BENCHMARK(BM_Take<true, true>)->Name("BM_TakeRandom")->Apply(one);
BENCHMARK(BM_Take<true, false>)->Name("BM_TakeRandomUnchecked")->Apply(one);
BENCHMARK(BM_TakeFusedRandom)->Apply(one);
BENCHMARK(BM_TakeUnfusedRandom)->Apply(one);
BENCHMARK(BM_TakeRowsRandom)->Apply(one);
BENCHMARK(BM_IndexPair<false>)->Name("BM_IndexPairIdentity")->Apply(one);
BENCHMARK(BM_IndexPair<true>)->Name("BM_IndexPairRandom")->Apply(one);

BENCHMARK_MAIN();
