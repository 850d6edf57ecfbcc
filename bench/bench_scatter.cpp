// Scatters on the GPU: jf::put and jf::add_at of 2^26 float64 values into 2^26 elements, by a random
// permutation and by random indices with duplicates (uniform in [0, n): ~37% of the elements never
// named, the others by 1.6 positions on average), and x(p) = v on the permutation. Bandwidth counts
// the index, the value and the element written (24 bytes per value) against a device copy of the
// same 2^26 doubles measured in the same run (16 bytes per element). The deterministic put reads
// the indices twice (checks and claims, then the values) and reads its claim once per value; add_at
// checks the indices first too (numpy raises before anything is written).
// Peers: bench/peers_scatter.py (CuPy x[p] = v and cupyx.scatter_add, PyTorch index_put_ and
// index_add_).
//
//   ./build/cuda/bench/bench_scatter --benchmark_counters_tabular=true
#include <algorithm>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::int64_t n = std::int64_t(1) << 26;
double copy_gbps = 0;


struct data {
  jf::array<double> x, v;
  jf::array<std::int64_t> perm, dup;
  data() {
    std::vector<std::int64_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    std::mt19937_64 rng(2026);
    std::shuffle(p.begin(), p.end(), rng);
    perm = jf::array<std::int64_t>(p, jf::cuda);
    std::uniform_int_distribution<std::int64_t> any(0, n - 1);
    for (auto& i : p) i = any(rng);
    dup = jf::array<std::int64_t>(p, jf::cuda);
    x = jf::zeros<double>({n}, jf::cuda);
    v = jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda);
  }
};
data& get() {
  static data d;
  return d;
}

void bandwidth(benchmark::State& state) { jf_bench::report_bandwidth(state, 24.0 * static_cast<double>(n), copy_gbps); }

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  copy_gbps = jf_bench::copy_roof(state, d.x.raw_data(), d.v.raw_data(), static_cast<std::size_t>(n * 8));
}

template <bool Dup>
void BM_Put(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::put(d.x, Dup ? d.dup : d.perm, d.v); });
  bandwidth(state);
}
// Mode clip: no bound check, still the claims (the last write wins).
void BM_PutPermClip(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::put(d.x, d.perm, d.v, jf::mode::clip); });
  bandwidth(state);
}
// The peers' semantics: indices wrapped, unchecked, and an arbitrary duplicate wins
// (jf::unique_indices: no claims), one launch; the value plain and computed in the kernel.
void BM_PutPermUnique(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::put(d.x, d.perm, d.v, jf::mode::wrap, jf::unique_indices); });
  bandwidth(state);
}
void BM_PutPermUniqueExpression(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::put(d.x, d.perm, d.v * 2.0 + 1.0, jf::mode::wrap, jf::unique_indices); });
  bandwidth(state);
}
// numpy's x[p] = v * 2 + 1: the value computed in the kernel.
void BM_SetItemPermFused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.x(d.perm) = d.v * 2.0 + 1.0; });
  bandwidth(state);
}
template <bool Dup>
void BM_AddAt(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::add_at(d.x, Dup ? d.dup : d.perm, d.v); });
  bandwidth(state);
}
// cupyx.scatter_add's semantics: indices wrapped, no check first (one launch).
template <bool Dup>
void BM_AddAtWrap(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { jf::add_at(d.x, Dup ? d.dup : d.perm, d.v, jf::mode::wrap); });
  bandwidth(state);
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(5); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
BENCHMARK(BM_Put<false>)->Name("BM_PutPerm")->Apply(one);
BENCHMARK(BM_Put<true>)->Name("BM_PutDup")->Apply(one);
BENCHMARK(BM_PutPermClip)->Apply(one);
BENCHMARK(BM_PutPermUnique)->Apply(one);
BENCHMARK(BM_SetItemPermFused)->Apply(one);
BENCHMARK(BM_PutPermUniqueExpression)->Apply(one);
BENCHMARK(BM_AddAt<false>)->Name("BM_AddAtPerm")->Apply(one);
BENCHMARK(BM_AddAt<true>)->Name("BM_AddAtDup")->Apply(one);
BENCHMARK(BM_AddAtWrap<false>)->Name("BM_AddAtPermWrap")->Apply(one);
BENCHMARK(BM_AddAtWrap<true>)->Name("BM_AddAtDupWrap")->Apply(one);

BENCHMARK_MAIN();
