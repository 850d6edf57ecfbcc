// jf::sort, jf::argsort and jf::unique on the GPU against cub::DeviceRadixSort::SortKeys called
// directly in the same run (bench_sort_cub.cu: temp storage allocated once, outside the timing):
// 2^27 random float32 (the values numpy's Philox(key=2028).random(2^27, dtype=float32) draws, as
// bench/peers_sort.py does for CuPy and PyTorch), 2^17 rows of 1024 of the same values, and 2^27
// random int32; the rows also against cub::DeviceSegmentedSort (what jetfuse calls) and
// cub::DeviceSegmentedRadixSort called directly. Counters: keys per second, of_cub (the direct
// call's time / this time: 1 = as fast as CUB) and copies (this time in device copies of the same
// keys, measured in the same run). Jagged: jf::sort / jf::argsort of 10M lists of float32 with
// Poisson(2) lengths (each list on its own, Awkward's ak.sort) against DeviceSegmentedSort::SortKeys
// called directly on the same offsets (unstable, keys only: a floor, not the same work), and
// JaggedSortF32GeneralPath: the same lists sorted by the path taken when a list is longer than 16.
//
//   ./build/cuda/bench/bench_sort --benchmark_counters_tabular=true
#include <climits>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"
#include <jetfuse/jetfuse.hpp>

#ifdef JF_HAVE_CUDA
template <class K, class N>
std::size_t cub_sort_keys_bytes(N n);
template <class K, class N>
int cub_sort_keys(void* temp, std::size_t bytes, const void* in, void* out, N n, void* stream);
template <bool Radix>
int cub_sort_rows(void* temp, std::size_t& bytes, const float* in, float* out, std::int64_t n, std::int64_t segments,
                  const std::int64_t* offsets, void* stream);
#endif

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;
using i64 = std::int64_t;

constexpr i64 n = i64(1) << 27;
constexpr i64 rows = i64(1) << 17, row = n / rows;
double copy_seconds = 0, cub_f32_seconds = 0, cub_i32_seconds = 0, cub_rows_seconds = 0;


struct data {
  jf::array<float> f32, f32_out;
  jf::array<std::int32_t> i32, i32_out;
  data() {
    jf::random::philox gen(2028);
    f32 = gen.random<float>({n}, jf::cuda);
    i32 = gen.integers<std::int32_t>({n}, INT32_MIN, i64(INT32_MAX) + 1, jf::cuda);
    f32_out = jf::empty<float>({n}, jf::cuda);
    i32_out = jf::empty<std::int32_t>({n}, jf::cuda);
  }
};
data& get() {
  static data d;
  return d;
}

void report(benchmark::State& state, double cub_seconds) {
  state.counters["Gkeys/s"] = static_cast<double>(n) / call_seconds * 1e-9;
  if (cub_seconds > 0) state.counters["of_cub"] = cub_seconds / call_seconds;
  if (copy_seconds > 0) state.counters["copies"] = call_seconds / copy_seconds;
}

// A device copy of 2^27 4-byte keys (the unit of the `copies` counter).
void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  jf_bench::copy_roof(state, d.f32_out.raw_data(), d.f32.raw_data(), n * sizeof(float));
  copy_seconds = jf_bench::call_seconds;
}

#ifdef JF_HAVE_CUDA
// CUB itself: num_items an int (N = int) or an int64 (as jetfuse calls it).
template <class K, class N>
void BM_CubSortKeys(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const void* in = std::is_same_v<K, float> ? d.f32.raw_data() : d.i32.raw_data();
  void* out = std::is_same_v<K, float> ? d.f32_out.raw_data() : d.i32_out.raw_data();
  const std::size_t bytes = cub_sort_keys_bytes<K, N>(static_cast<N>(n));
  void* temp = jf::cuda_rt::allocate(bytes);
  void* stream = jf::cuda_rt::current_stream();
  timed_batches(state, 10, [&] {
    if (cub_sort_keys<K, N>(temp, bytes, in, out, static_cast<N>(n), stream) != 0) state.SkipWithError("CUB failed");
  });
  jf::cuda_rt::deallocate(temp);
  if (std::is_same_v<N, int>) (std::is_same_v<K, float> ? cub_f32_seconds : cub_i32_seconds) = call_seconds;
  report(state, 0);
}

// CUB's segmented sorts of the 2^17 rows of 1024 called directly (offsets written once).
template <bool Radix>
void BM_CubSortRows(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<i64> offsets = jf::arange<i64>(0, n + 1, row, jf::cuda);
  const auto* in = static_cast<const float*>(d.f32.raw_data());
  auto* out = static_cast<float*>(d.f32_out.raw_data());
  const auto* off = static_cast<const i64*>(offsets.raw_data());
  void* stream = jf::cuda_rt::current_stream();
  std::size_t bytes = 0;
  cub_sort_rows<Radix>(nullptr, bytes, in, out, n, rows, off, stream);
  void* temp = jf::cuda_rt::allocate(bytes);
  timed_batches(state, 10, [&] {
    if (cub_sort_rows<Radix>(temp, bytes, in, out, n, rows, off, stream) != 0) state.SkipWithError("CUB failed");
  });
  jf::cuda_rt::deallocate(temp);
  if (!Radix) cub_rows_seconds = call_seconds;
  report(state, 0);
}
#endif

void BM_SortF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.f32_out = jf::sort(d.f32); });
  report(state, cub_f32_seconds);
}

void BM_SortI32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.i32_out = jf::sort(d.i32); });
  report(state, cub_i32_seconds);
}

// Stable: keys and int64 positions through DeviceRadixSort::SortPairs.
void BM_ArgsortF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  jf::array<i64> p;
  timed_batches(state, 10, [&] { p = jf::argsort(d.f32); });
  report(state, 0);
}

// 2^17 rows of 1024: one DeviceSegmentedSort segment per row.
void BM_SortRowsF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<float> m = d.f32.reshape({rows, row});
  jf::array<float> s;
  timed_batches(state, 10, [&] { s = jf::sort(m); });
  report(state, cub_rows_seconds);
}

void BM_ArgsortRowsF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<float> m = d.f32.reshape({rows, row});
  jf::array<i64> p;
  timed_batches(state, 10, [&] { p = jf::argsort(m); });
  report(state, 0);
}

// 10M lists with Poisson(2) lengths (~2e7 float32 values): the jagged benchmarks' lists. Their
// longest is short (at most 16: jf::cuda's thread-a-list sort); `with_long` is the same lists and
// one more of 17 elements, which sends a sort down the general path (keys, CUB's segmented sort,
// gather): the two paths timed on the same lists in one run.
struct lists_data {
  jf::jagged<float> x, with_long;
  lists_data() {
    const i64 lists = 10'000'000;
    std::mt19937_64 rng(7);
    std::poisson_distribution<i64> length(2.0);
    std::vector<i64> off{0};
    for (i64 i = 0; i < lists; ++i) off.push_back(off.back() + length(rng));
    const jf::array<float> content = jf::random::philox(8).random<float>({off.back() + 17}, jf::cuda);
    x = jf::jagged<float>(jf::array<i64>(off, jf::cuda), content(jf::range(0, off.back())));
    off.push_back(off.back() + 17);
    with_long = jf::jagged<float>(jf::array<i64>(off, jf::cuda), content);
  }
};
lists_data& lists() {
  static lists_data d;
  return d;
}
void report_lists(benchmark::State& state, double cub_seconds) {
  const i64 elements = lists().x.content().size();
  state.counters["Gelem/s"] = static_cast<double>(elements) / call_seconds * 1e-9;
  if (cub_seconds > 0) state.counters["of_cub"] = cub_seconds / call_seconds;
  if (copy_seconds > 0) state.counters["copies"] = call_seconds / (copy_seconds * elements / n);
}
double cub_lists_seconds = 0;

#ifdef JF_HAVE_CUDA
void BM_CubSegmentedSortLists(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const jf::jagged<float>& x = lists().x;
  jf::array<float> out = jf::empty<float>({x.content().size()}, jf::cuda);
  const auto* in = static_cast<const float*>(x.content().raw_data());
  const auto* off = static_cast<const i64*>(x.offsets().raw_data());
  void* stream = jf::cuda_rt::current_stream();
  std::size_t bytes = 0;
  cub_sort_rows<false>(nullptr, bytes, in, static_cast<float*>(out.raw_data()), x.content().size(), x.size(), off,
                       stream);
  void* temp = jf::cuda_rt::allocate(bytes);
  timed_batches(state, 10, [&] {
    if (cub_sort_rows<false>(temp, bytes, in, static_cast<float*>(out.raw_data()), x.content().size(), x.size(), off,
                             stream) != 0)
      state.SkipWithError("CUB failed");
  });
  jf::cuda_rt::deallocate(temp);
  cub_lists_seconds = call_seconds;
  report_lists(state, 0);
}
#endif

void BM_JaggedSortF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::jagged<float> s;
  timed_batches(state, 10, [&] { s = jf::sort(lists().x); });
  report_lists(state, cub_lists_seconds);
}
void BM_JaggedSortF32GeneralPath(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::jagged<float> s;
  timed_batches(state, 10, [&] { s = jf::sort(lists().with_long); });
  report_lists(state, cub_lists_seconds);
}
void BM_JaggedSortDescendingF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::jagged<float> s;
  timed_batches(state, 10, [&] { s = jf::sort(lists().x, -1, jf::sort_order::descending); });
  report_lists(state, cub_lists_seconds);
}
void BM_JaggedArgsortF32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  jf::jagged<i64> s;
  timed_batches(state, 10, [&] { s = jf::argsort(lists().x); });
  report_lists(state, cub_lists_seconds);
}

// Sort, run-length encoding and the one read-back of the number of distinct values.
void BM_UniqueI32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  jf::array<std::int32_t> u;
  timed_batches(state, 5, [&] { u = jf::unique(d.i32); });
  report(state, 0);
  state.counters["distinct"] = static_cast<double>(u.size());
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(5); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
#ifdef JF_HAVE_CUDA
BENCHMARK(BM_CubSortKeys<float, int>)->Name("BM_CubSortKeysF32")->Apply(one);
BENCHMARK(BM_CubSortKeys<float, std::int64_t>)->Name("BM_CubSortKeysF32_int64_items")->Apply(one);
BENCHMARK(BM_CubSortKeys<std::int32_t, int>)->Name("BM_CubSortKeysI32")->Apply(one);
BENCHMARK(BM_CubSortRows<false>)->Name("BM_CubSegmentedSortRowsF32")->Apply(one);
BENCHMARK(BM_CubSortRows<true>)->Name("BM_CubSegmentedRadixSortRowsF32")->Apply(one);
#endif
BENCHMARK(BM_SortF32)->Apply(one);
BENCHMARK(BM_SortI32)->Apply(one);
BENCHMARK(BM_ArgsortF32)->Apply(one);
BENCHMARK(BM_SortRowsF32)->Apply(one);
BENCHMARK(BM_ArgsortRowsF32)->Apply(one);
BENCHMARK(BM_UniqueI32)->Apply(one);
#ifdef JF_HAVE_CUDA
BENCHMARK(BM_CubSegmentedSortLists)->Apply(one);
#endif
BENCHMARK(BM_JaggedSortF32)->Apply(one);
BENCHMARK(BM_JaggedSortF32GeneralPath)->Apply(one);
BENCHMARK(BM_JaggedSortDescendingF32)->Apply(one);
BENCHMARK(BM_JaggedArgsortF32)->Apply(one);

BENCHMARK_MAIN();
