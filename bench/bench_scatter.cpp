// Scatters on the GPU: jf::put and jf::add_at of 2^26 float64 values into 2^26 elements, by a random
// permutation and by random indices with duplicates (uniform in [0, n): ~37% of the elements never
// named, the others by 1.6 positions on average), and x(p) = v on the permutation. Bandwidth counts
// the index, the value and the element written (24 bytes per value) against a device copy of the
// same 2^26 doubles measured in the same run (16 bytes per element). numpy's semantics (every index
// checked before a write, the last write winning) cost a pass over the indices first (checks and
// marks); from the second call on an index array that nothing has written since, the engine
// remembers that they were in bounds and distinct (or not) and skips it (remembered_indices.hpp).
// The *Checked rows use copies of the index arrays whose memory was handed out (raw_data(), as to
// another library): nothing is remembered about them, so every call checks.
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
  jf::array<std::int64_t> perm, dup, perm_out, dup_out;  // *_out: handed out (never remembered)
  data() {
    std::vector<std::int64_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    std::mt19937_64 rng(2026);
    std::shuffle(p.begin(), p.end(), rng);
    perm = jf::array<std::int64_t>(p, jf::cuda);
    std::uniform_int_distribution<std::int64_t> any(0, n - 1);
    for (auto& i : p) i = any(rng);
    dup = jf::array<std::int64_t>(p, jf::cuda);
    perm_out = perm + 0;
    dup_out = dup + 0;
    (void)perm_out.raw_data();
    (void)dup_out.raw_data();
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

template <bool Dup, bool Checked = false>
void BM_Put(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<std::int64_t>& p = Checked ? (Dup ? d.dup_out : d.perm_out) : (Dup ? d.dup : d.perm);
  timed_batches(state, 10, [&] { jf::put(d.x, p, d.v); });
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
template <bool Checked = false>
void BM_SetItemPermFused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<std::int64_t>& p = Checked ? d.perm_out : d.perm;
  timed_batches(state, 10, [&] { d.x(p) = d.v * 2.0 + 1.0; });
  bandwidth(state);
}
template <bool Dup, bool Checked = false>
void BM_AddAt(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<std::int64_t>& p = Checked ? (Dup ? d.dup_out : d.perm_out) : (Dup ? d.dup : d.perm);
  timed_batches(state, 10, [&] { jf::add_at(d.x, p, d.v); });
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
BENCHMARK(BM_SetItemPermFused<false>)->Name("BM_SetItemPermFused")->Apply(one);
BENCHMARK(BM_Put<false, true>)->Name("BM_PutPermChecked")->Apply(one);
BENCHMARK(BM_Put<true, true>)->Name("BM_PutDupChecked")->Apply(one);
BENCHMARK(BM_SetItemPermFused<true>)->Name("BM_SetItemPermFusedChecked")->Apply(one);
BENCHMARK(BM_AddAt<false, true>)->Name("BM_AddAtPermChecked")->Apply(one);
BENCHMARK(BM_AddAt<true, true>)->Name("BM_AddAtDupChecked")->Apply(one);
BENCHMARK(BM_PutPermUniqueExpression)->Apply(one);
BENCHMARK(BM_AddAt<false>)->Name("BM_AddAtPerm")->Apply(one);
BENCHMARK(BM_AddAt<true>)->Name("BM_AddAtDup")->Apply(one);
BENCHMARK(BM_AddAtWrap<false>)->Name("BM_AddAtPermWrap")->Apply(one);
BENCHMARK(BM_AddAtWrap<true>)->Name("BM_AddAtDupWrap")->Apply(one);

BENCHMARK_MAIN();
