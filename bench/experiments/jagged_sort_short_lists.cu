// Experiment: jf::sort of 10M short lists (bench_sort's JaggedSortF32, Poisson(2) lengths) takes
// 1.78 ms on an H200 where CUB's keys-only segmented sort of the same lists takes 0.46 and Awkward's
// cuda backend 1.64-1.98 (docs/benchmarks.md, 2026-11-30). jetfuse's path (src/cuda/sort/sort.cpp,
// cuda_sort_lists): rebased offsets, order-preserving keys and int64 positions, Awkward's list
// order (NaN first ascending), CUB's DeviceSegmentedSort::StableSortPairs, then the values gathered by
// position. Here, next to it: one thread a list, the list's keys and local positions in registers,
// a stable insertion sort by the same keys, the values (or positions) written once; lists longer
// than the kernel's bound are counted and left to the existing path. Checked bit for bit against
// jf::sort / jf::argsort (NaN payloads, -0.0 and +0.0 in every 97th element), timed by CUDA events
// on jetfuse's stream in batches of 10:
//   jetfuse          jf::sort(x) (ascending), jf::sort(x, -1, descending), jf::argsort(x)
//   thread_list<16>  the thread-a-list kernel, lists of at most 16 (a warp's lists are adjacent)
//   cub_keys         cub::DeviceSegmentedSort::SortKeys on the float32 values (no stable order, no
//                    NaN rule: the bench's own row, a floor)
// Build (from the repository root, after `cmake --build build/cuda`):
//   g++ -std=c++20 -O2 -Iinclude -Isrc -c bench/experiments/jagged_sort_short_lists_host.cpp -o /tmp/jls_host.o
//   nvcc -O3 -arch=sm_90 -std=c++20 -Isrc bench/experiments/jagged_sort_short_lists.cu /tmp/jls_host.o \
//     build/cuda/libjetfuse.a -lnvrtc -lcuda -ldl -o /tmp/jls && /tmp/jls [lists]
// Results: not run yet (written in the fifteenth session, which had spent its device time).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_segmented_sort.cuh>
#include <vector>

#include "cuda/sort/sort_keys.cuh"
#include "experiment_timing.cuh"

long long jls_make(long long lists, long long* longest);
const long long* jls_offsets();
const float* jls_content();
void jls_sort(bool ascending);
const float* jls_sorted();
void jls_argsort();
const long long* jls_order();
void* jls_stream();
void jls_sync();

namespace {

using i64 = long long;
using K = jf::cuda_sort::key_t<float>;

// The key of Awkward's list order (list_passes.cu's list_keys_kernel after the canonical encoding):
// NaN lowest, else the value's key, complemented for a descending sort; sorted ascending, stably.
__device__ __forceinline__ K list_key(float v, bool ascending) {
  constexpr K lowest = K(1) << (8 * sizeof(K) - 1);
  const K k = jf::cuda_sort::key_of<float>::encode(v, true);
  return k == jf::cuda_sort::key_of<float>::nan_key ? lowest : ascending ? k : ~k;
}

// One thread a list of at most L elements: keys and local positions in registers, a stable
// insertion sort, then the values (out_values) or the positions (out_positions) written in order.
template <int L>
__global__ void thread_list(const i64* offsets, i64 lists, const float* content, bool ascending, float* out_values,
                            i64* out_positions, unsigned long long* too_long) {
  const i64 l = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= lists) return;
  const i64 base = offsets[0], b = offsets[l] - base, e = offsets[l + 1] - base;
  const int n = static_cast<int>(e - b);
  if (e - b > L) {
    atomicAdd(too_long, 1ull);
    return;
  }
  K key[L];
  int pos[L];
#pragma unroll
  for (int j = 0; j < L; ++j)
    if (j < n) {
      key[j] = list_key(content[b + j], ascending);
      pos[j] = j;
    }
  for (int j = 1; j < n; ++j) {  // stable: an element moves past larger keys only
    const K k = key[j];
    const int p = pos[j];
    int i = j - 1;
    while (i >= 0 && key[i] > k) {
      key[i + 1] = key[i];
      pos[i + 1] = pos[i];
      --i;
    }
    key[i + 1] = k;
    pos[i + 1] = p;
  }
  for (int j = 0; j < n; ++j) {
    if (out_values) out_values[b + j] = content[b + pos[j]];
    if (out_positions) out_positions[b + j] = pos[j];
  }
}

template <class T>
bool same_bits(const T* got, const T* want, i64 n, const char* what) {
  std::vector<T> g(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n));
  cudaMemcpy(g.data(), got, sizeof(T) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(w.data(), want, sizeof(T) * n, cudaMemcpyDeviceToHost);
  for (i64 i = 0; i < n; ++i)
    if (std::memcmp(&g[i], &w[i], sizeof(T)) != 0) {
      printf("  %s: element %lld differs\n", what, i);
      return false;
    }
  printf("  %s: the same bits as jetfuse's\n", what);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const i64 lists = argc > 1 ? std::atoll(argv[1]) : 10000000;
  i64 longest = 0;
  const i64 n = jls_make(lists, &longest);
  const auto s = static_cast<cudaStream_t>(jls_stream());
  const i64* off = jls_offsets();
  const float* content = jls_content();
  printf("%lld lists, %lld elements, the longest %lld\n", lists, n, longest);
  float* values = nullptr;
  i64* positions = nullptr;
  unsigned long long* too_long = nullptr;
  CK(cudaMalloc(&values, sizeof(float) * n));
  CK(cudaMalloc(&positions, sizeof(i64) * n));
  CK(cudaMalloc(&too_long, sizeof(unsigned long long)));
  CK(cudaMemsetAsync(too_long, 0, sizeof(unsigned long long), s));
  const unsigned blocks = static_cast<unsigned>((lists + 255) / 256);
  bool ok = true;
  for (const bool ascending : {true, false}) {
    jls_sort(ascending);
    jls_sync();
    thread_list<16><<<blocks, 256, 0, s>>>(off, lists, content, ascending, values, nullptr, too_long);
    CK(cudaStreamSynchronize(s));
    unsigned long long skipped = 0;
    CK(cudaMemcpy(&skipped, too_long, sizeof skipped, cudaMemcpyDeviceToHost));
    printf("%s: %llu lists longer than 16 left out\n", ascending ? "ascending" : "descending", skipped);
    if (skipped == 0) ok = same_bits(values, jls_sorted(), n, "thread_list<16> values") && ok;
    const float t_jf = batch_us_on(
        s, [&] { jls_sort(ascending); }, 7, 10);
    const float t_thread = batch_us_on(
        s, [&] { thread_list<16><<<blocks, 256, 0, s>>>(off, lists, content, ascending, values, nullptr, too_long); },
        7, 10);
    printf("  us per call: jetfuse %.1f, thread_list<16> %.1f\n", t_jf, t_thread);
  }
  jls_argsort();
  jls_sync();
  thread_list<16><<<blocks, 256, 0, s>>>(off, lists, content, true, nullptr, positions, too_long);
  CK(cudaStreamSynchronize(s));
  ok = same_bits(positions, jls_order(), n, "thread_list<16> positions (argsort)") && ok;
  const float t_jf_arg = batch_us_on(
      s, [&] { jls_argsort(); }, 7, 10);
  const float t_thread_arg = batch_us_on(
      s, [&] { thread_list<16><<<blocks, 256, 0, s>>>(off, lists, content, true, nullptr, positions, too_long); }, 7,
      10);
  printf("argsort us per call: jetfuse %.1f, thread_list<16> %.1f\n", t_jf_arg, t_thread_arg);

  // CUB's keys-only segmented sort of the values (bench_sort's BM_CubSegmentedSortLists).
  std::size_t temp_bytes = 0;
  CK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, content, values, n, lists, off, off + 1, s));
  void* temp = nullptr;
  CK(cudaMalloc(&temp, temp_bytes));
  const float t_cub = batch_us_on(
      s, [&] { cub::DeviceSegmentedSort::SortKeys(temp, temp_bytes, content, values, n, lists, off, off + 1, s); }, 7,
      10);
  printf("cub_keys us per call: %.1f\n", t_cub);
  cudaFree(temp);
  cudaFree(values);
  cudaFree(positions);
  cudaFree(too_long);
  return ok ? 0 : 1;
}
