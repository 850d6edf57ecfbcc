// Scans and compaction on the GPU, as a fraction of a device copy of 2^27 doubles measured in the
// same run (16 bytes per element: 8 read, 8 written):
//  - cumsum of 2^27 int32 (numpy's int64 result): 4 bytes read + 8 written per element, and the
//    same bytes moved by astype<int64> (no scan: the roof of that mix of reads and writes);
//  - cumsum of 2^27 float64 (16 bytes), fused cumsum(x * 2 + 1) and the same unfused (a kernel
//    per operation, as an array library without fusion);
//  - rows: cumsum along the rows (2^13 x 2^14, tiles) and along the columns of a 2^14 x 2^13 array;
//  - compaction: x(mask) of 2^27 float64 with 1 %, 50 % and 99 % of a random mask true, counting
//    x (8 bytes), the mask (1 byte) and the selected values written (8 bytes each) per element; the
//    count pass and its read-back are in the time.
// CUB's DeviceScan::InclusiveSum on the same data, called directly (bench_scan_cub.cu), is the
// reference a hand-written scan is measured against. Peers: bench/peers_scan.py (CuPy, PyTorch).
//
//   ./build/cuda/bench/bench_scan --benchmark_counters_tabular=true
#include <cstddef>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <type_traits>
#include <vector>

#include "cuda/runtime.hpp"
#include "timed_batches.hpp"

#ifdef JF_HAVE_CUDA
template <class In, class Out>
int cub_inclusive_sum(void* temp, std::size_t& bytes, const void* in, void* out, std::int64_t n, void* stream);
#endif

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::int64_t n = std::int64_t(1) << 27;
double copy_gbps = 0;

struct data {
  jf::array<double> x, y;
  jf::array<std::int32_t> i;
  jf::array<std::int64_t> j;
  data() {
    x = jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda) * (1.0 / 1024);
    y = jf::empty<double>({n}, jf::cuda);
    i = jf::astype<std::int32_t>(jf::arange<std::int64_t>(0, n, 1, jf::cuda) % 1000);
    j = jf::empty<std::int64_t>({n}, jf::cuda);
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

void BM_CumsumInt32(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.j = jf::cumsum(d.i); });
  bandwidth(state, 12);
}

// The same bytes without a scan: int32 -> int64 element-wise (astype), the roof of a cumsum of
// int32 (4 bytes read, 8 written an element: HBM moves this mix slower than a copy's 8 + 8).
void BM_CastInt32ToInt64(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.j = jf::astype<std::int64_t>(d.i); });
  bandwidth(state, 12);
}

#ifdef JF_HAVE_CUDA
// CUB itself on the same input and output (temp storage allocated once, outside the timing).
template <class In, class Out>
void BM_CubInclusiveSum(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const void* in = std::is_same_v<In, double> ? d.x.raw_data() : d.i.raw_data();
  void* out = std::is_same_v<In, double> ? d.y.raw_data() : d.j.raw_data();
  void* stream = jf::cuda_rt::current_stream();
  std::size_t bytes = 0;
  cub_inclusive_sum<In, Out>(nullptr, bytes, in, out, n, stream);
  void* temp = jf::cuda_rt::allocate(bytes);
  timed_batches(state, 10, [&] {
    if (cub_inclusive_sum<In, Out>(temp, bytes, in, out, n, stream) != 0) state.SkipWithError("CUB failed");
  });
  jf::cuda_rt::deallocate(temp);
  bandwidth(state, static_cast<double>(sizeof(In) + sizeof(Out)));
}
#endif

void BM_CumsumFloat64(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.y = jf::cumsum(d.x); });
  bandwidth(state, 16);
}

void BM_CumsumFused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.y = jf::cumsum(d.x * 2.0 + 1.0); });
  bandwidth(state, 16);
}

void BM_CumsumUnfused(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  timed_batches(state, 10, [&] { d.y = jf::eval(jf::unfused, jf::cumsum(d.x * 2.0 + 1.0)); });
  bandwidth(state, 16);
}

void BM_CumsumRows(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<double> m = d.x.reshape({1 << 13, 1 << 14});
  jf::array<double> out = d.y.reshape({1 << 13, 1 << 14});
  timed_batches(state, 10, [&] { out = jf::cumsum(m, 1); });
  bandwidth(state, 16);
}

void BM_CumsumColumns(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  const jf::array<double> m = d.x.reshape({1 << 14, 1 << 13});
  jf::array<double> out = d.y.reshape({1 << 14, 1 << 13});
  timed_batches(state, 10, [&] { out = jf::cumsum(m, 0); });
  bandwidth(state, 16);
}

template <int Percent>
void BM_MaskSelect(benchmark::State& state) {
  if (!need_gpu(state)) return;
  data& d = get();
  static jf::array<bool> mask;
  // A random mask with Percent % true (uniform hash of the position, the same every run).
  const jf::array<std::int64_t> pos = jf::arange<std::int64_t>(0, n, 1, jf::cuda);
  mask = ((pos * 2654435761LL) % 1000003) < (1000003LL * Percent / 100);
  const std::int64_t count = jf::count_nonzero(mask).item();
  jf::array<double> out;
  timed_batches(state, 10, [&] { out = d.x(mask); });
  const double bytes = 9.0 * static_cast<double>(n) + 8.0 * static_cast<double>(count);
  jf_bench::report_bandwidth(state, bytes, copy_gbps);
  state.counters["selected"] = static_cast<double>(count) / static_cast<double>(n);
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(5); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
BENCHMARK(BM_CumsumInt32)->Apply(one);
BENCHMARK(BM_CastInt32ToInt64)->Apply(one);
#ifdef JF_HAVE_CUDA
BENCHMARK(BM_CubInclusiveSum<std::int32_t, std::int64_t>)->Name("BM_CubInclusiveSumInt32")->Apply(one);
BENCHMARK(BM_CubInclusiveSum<double, double>)->Name("BM_CubInclusiveSumFloat64")->Apply(one);
#endif
BENCHMARK(BM_CumsumFloat64)->Apply(one);
BENCHMARK(BM_CumsumFused)->Apply(one);
BENCHMARK(BM_CumsumUnfused)->Apply(one);
BENCHMARK(BM_CumsumRows)->Apply(one);
BENCHMARK(BM_CumsumColumns)->Apply(one);
BENCHMARK(BM_MaskSelect<1>)->Name("BM_MaskSelect1Percent")->Apply(one);
BENCHMARK(BM_MaskSelect<50>)->Name("BM_MaskSelect50Percent")->Apply(one);
BENCHMARK(BM_MaskSelect<99>)->Name("BM_MaskSelect99Percent")->Apply(one);

BENCHMARK_MAIN();
