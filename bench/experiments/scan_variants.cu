// Experiment: cumsum of 2^27 int32 into int64 (numpy's dtypes; bench_scan's BM_CumsumInt32 row,
// 12 bytes per element) written by hand in shapes jetfuse's generator could take, against CUB's
// DeviceScan::InclusiveSum. jetfuse's kernel (512-thread tiles of 8192, loads striped and turned
// through shared memory, a decoupled look-back) measured 573 us = 67 % of the copy on an H200,
// CUB 541 us = 71 % (2026-11-29). Variants (each result compared with CUB's):
//   lb          a decoupled look-back over tiles of 8192 (512 x 16), a block per tile in the order
//               of an atomic counter; each thread loads its 16 consecutive int32 as four 16-byte
//               words (blocked, no transpose), scans them, the block scans the threads' totals;
//               stores turned through shared memory per warp (coalesced).
//   lb_pers     the same with a persistent grid (2 blocks an SM) taking tiles from the counter.
//   lb_pf       persistent, each block claiming its next tile when it starts one and prefetching
//               that tile's input into L2 (cp.async.bulk.prefetch.L2, one instruction a tile): the
//               DRAM reads of the next tile overlap this tile's look-back and stores.
//   lb_pf2      the same, two tiles ahead.
//   none        lb without any look-back (wrong results by design): the roof of the tile pipeline.
//   wideW       lb reading W windows of 32 tiles a look-back step, each lane spinning only on its
//               own words not yet there.
//   ownW        persistent, the look-back stopping at the block's own previous tile (whose
//               inclusive prefix it knows) or an earlier published prefix, W windows a step.
//   lean        the tile's int32 held as loaded (one register an element, not two), each lane's
//               total folded from them and its running values folded again at the stores, which
//               go through shared memory half at a time: 3 blocks of 512 fit an SM (40 registers);
//               leanS loads striped and transposes as the generator does.
// Measured (H200, 2026-11-29, fifth session, copy 506 us): cub 540, lb512x16 540 (70 %), none 408
// (93 %: the look-back costs the rest), wide2 / wide4 / wide8 576 / 624 / 825, own4 / own9 658 /
// 864 (waiting for more tiles' words costs more than the steps it saves), lean512x16/3 489 (77.7 %),
// leanS512x16/3 488, lean768x16/2 486 (78.2 %), lean256x16/6 505, lean384x16/4 497, lean512x8/4
// 557, lean512x12/3 702 and lean512x24/3 867 (spills). The generator's port of lean (shape_scan.cpp)
// spilled with 3 blocks an SM (627 us with the elements held in registers, 549 with them held in
// shared memory) and runs at 547 us with 2 (CUB 540 in the same run).
// Bandwidth counts 4 bytes read and 8 written per element; "copy" is a device copy of 2^27
// float64 in the same run (16 bytes an element), as bench_scan's CopyRoof.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 scan_variants.cu -o /tmp/sv && /tmp/sv
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cub/cub.cuh>
struct widen_op {
  __device__ long long operator()(int x) const { return x; }
};
#include <vector>

#define CK(x)                                                  \
  do {                                                         \
    cudaError_t e = (x);                                       \
    if (e != cudaSuccess) {                                    \
      printf("%s line %d\n", cudaGetErrorString(e), __LINE__); \
      return 1;                                                \
    }                                                          \
  } while (0)

__device__ __forceinline__ void store_word(ulonglong2* p, unsigned long long f, unsigned long long v) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(f), "l"(v) : "memory");
}
__device__ __forceinline__ ulonglong2 load_word(const ulonglong2* p) {
  ulonglong2 w;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
  return w;
}

// A thread's `items` consecutive int32 from `base`: four at a time as 16-byte words, one at a time
// at the end of the input.
template <class V, int items>
__device__ __forceinline__ void load_blocked(const int* __restrict__ in, long long base, long long n, V (&v)[items]) {
  if (base + items <= n) {
    const int4* p = reinterpret_cast<const int4*>(in + base);
#pragma unroll
    for (int k = 0; k < items / 4; ++k) {
      const int4 w = p[k];
      v[4 * k] = w.x, v[4 * k + 1] = w.y, v[4 * k + 2] = w.z, v[4 * k + 3] = w.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < items; ++k) v[k] = base + k < n ? in[base + k] : 0;
  }
}

// The inclusive sum of one value a lane across the warp (Kogge-Stone).
__device__ __forceinline__ long long warp_inclusive_sum(long long v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const long long y = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += y;
  }
  return v;
}

// Warp 0 of a tile's block: the warps' totals scanned (made exclusive in place), the tile's
// aggregate published (when `publish`) and its exclusive prefix found by `look` (tile t > 0), its
// inclusive prefix published. Returns the prefix.
template <int threads, class Look>
__device__ __forceinline__ long long tile_prefix(long long* warp_total, ulonglong2* st, long long t, bool publish,
                                                 long long& aggregate, Look look) {
  const int lane = threadIdx.x & 31;
  const long long w = warp_inclusive_sum(lane < threads / 32 ? warp_total[lane] : 0);
  aggregate = __shfl_sync(0xffffffffu, w, threads / 32 - 1);
  __syncwarp();
  if (lane < threads / 32) warp_total[lane] = w - warp_total[lane];  // exclusive
  if (t == 0) {
    if (lane == 0) store_word(st, 2, aggregate);
    return 0;
  }
  if (publish && lane == 0) store_word(st + t, 1, aggregate);
  const long long prefix = look();
  if (publish && lane == 0) store_word(st + t, 2, prefix + aggregate);
  return prefix;
}

// Warp 0: the exclusive prefix of tile t > 0 from the status words (1: aggregate, 2: inclusive).
// The roof of this traffic: each int32 converted to int64, nothing scanned (4 bytes in, 8 out).
__global__ void widen(const int4* __restrict__ in, longlong2* __restrict__ out, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const int4 w = in[i];
    out[2 * i] = make_longlong2(w.x, w.y);
    out[2 * i + 1] = make_longlong2(w.z, w.w);
  }
}

__device__ long long look_back(const ulonglong2* st, long long t) {
  const int lane = threadIdx.x & 31;
  long long prefix = 0, hi = t - 1;
  while (true) {
    const long long q = hi - lane;
    ulonglong2 w = make_ulonglong2(2, 0);
    if (q >= 0) {  // wait for the tile's word
      w = load_word(st + q);
      while (w.x == 0) w = load_word(st + q);
    }
    const unsigned inc = __ballot_sync(0xffffffffu, w.x == 2);
    const int last = inc ? __ffs(inc) - 1 : 31;
    long long v = lane <= last ? static_cast<long long>(w.y) : 0;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    prefix += v;
    if (inc) return prefix;
    hi -= 32;
  }
}

// W windows of 32 tiles read at once, each lane spinning only on its own words that are not there
// yet; the look-back stops at the latest tile with an inclusive prefix or at tile `stop`, whose
// inclusive prefix `stop_value` the caller knows (its block's previous tile; -1 and 0: none).
template <int W>
__device__ long long look_back_wide(const ulonglong2* st, long long t, long long stop, long long stop_value) {
  const int lane = threadIdx.x & 31;
  long long prefix = 0, hi = t - 1;
  while (true) {
    ulonglong2 w[W];
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const long long q = hi - 32 * u - lane;
      w[u] = q > stop ? load_word(st + q)
                      : make_ulonglong2(2, q == stop ? static_cast<unsigned long long>(stop_value) : 0);
    }
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const long long q = hi - 32 * u - lane;
      while (q > stop && w[u].x == 0) w[u] = load_word(st + q);
    }
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const unsigned inc = __ballot_sync(0xffffffffu, w[u].x == 2);
      const int last = inc ? __ffs(inc) - 1 : 31;
      long long v = lane <= last ? static_cast<long long>(w[u].y) : 0;
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
      prefix += v;
      if (inc) return prefix;
    }
    hi -= 32 * W;
  }
}

// Mode 0: a tile per block, the look-back one window a step; 1: a tile per block, W windows a step;
// 2: persistent, W windows a step stopping at the block's previous tile; 3: no look-back at all
// (wrong results: the roof of the tile pipeline).
template <int threads, int items, int MinBlocks, bool Persistent, bool Prefetch, int Mode = 0, int W = 1>
__global__ void __launch_bounds__(threads, MinBlocks)
    lb(const int* __restrict__ in, long long* __restrict__ out, long long n, unsigned long long* counter,
       ulonglong2* st, long long tiles) {
  constexpr int tile = threads * items;
  extern __shared__ long long xb[];  // per warp: 32 * items slots and one pad slot every 16
  __shared__ long long s_t, s_next, warp_total[threads / 32], s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long* mine = xb + warp * (32 * items + 2 * items);
  if (threadIdx.x == 0) s_t = static_cast<long long>(atomicAdd(counter, 1ull));
  __syncthreads();
  long long last_t = -1, last_incl = 0;  // warp 0: this block's previous tile and its inclusive prefix
  while (true) {
    const long long t = s_t;
    if (t >= tiles) return;
    if (Persistent && Prefetch && threadIdx.x == 0) {  // the next tile, claimed now, prefetched into L2
      s_next = static_cast<long long>(atomicAdd(counter, 1ull));
      if (s_next < tiles) {
        const long long b = s_next * tile, e = min(n, b + tile);
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + b),
                     "r"(static_cast<unsigned>(4 * (e - b) & ~15ll))
                     : "memory");
      }
    }
    const long long base = t * tile + threadIdx.x * items;
    long long v[items];
    load_blocked(in, base, n, v);
#pragma unroll
    for (int k = 1; k < items; ++k) v[k] += v[k - 1];
    const long long incl = warp_inclusive_sum(v[items - 1]);
    if (lane == 31) warp_total[warp] = incl;
    const long long lane_before = incl - v[items - 1];
    __syncthreads();
    if (warp == 0) {
      long long aggregate = 0;
      const long long prefix = tile_prefix<threads>(warp_total, st, t, Mode != 3, aggregate, [&] {
        if (Mode == 0) return look_back(st, t);
        if (Mode == 1) return look_back_wide<W>(st, t, -1, 0);
        if (Mode == 2) return look_back_wide<W>(st, t, last_t, last_incl);
        return 0ll;
      });
      if (lane == 0) s_prefix = prefix;
      last_t = t;
      last_incl = prefix + aggregate;
    }
    if (Persistent && threadIdx.x == 0) s_t = Prefetch ? s_next : static_cast<long long>(atomicAdd(counter, 1ull));
    __syncthreads();
    const long long add = s_prefix + warp_total[warp] + lane_before;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int i = lane * items + k;
      mine[i + i / 16] = v[k] + add;  // 16 int64 a lane: one pad slot every 16
    }
    __syncwarp();
    const long long wbase = t * tile + warp * 32 * items;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int i = k * 32 + lane;
      if (wbase + i < n) out[wbase + i] = mine[i + i / 16];
    }
    if (!Persistent) return;
    __syncthreads();
  }
}

// "lean": the tile's int32 inputs kept as they are loaded (one register an element, not two); a
// lane's total summed from them, and its running sums recomputed at the stores; the stores turned
// through shared memory in halves of items / 2 (half the shared memory), so that 3 or 4 blocks of
// 512 fit an SM: more tiles in flight while some look back.
// Striped: loaded as the generator does (lane l: elements j * 32 + l of its warp's segment, one
// 4-byte load each, coalesced) and turned through shared memory into `items` consecutive a lane.
template <int threads, int items, int MinBlocks, bool Striped = false>
__global__ void __launch_bounds__(threads, MinBlocks)
    lean(const int* __restrict__ in, long long* __restrict__ out, long long n, unsigned long long* counter,
         ulonglong2* st, long long tiles) {
  constexpr int tile = threads * items, half = items / 2;
  extern __shared__ long long xb[];  // per warp: 32 * half slots and one pad slot every 16
  __shared__ long long s_t, warp_total[threads / 32], s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long* mine = xb + warp * (32 * half + 2 * half);
  if (threadIdx.x == 0) s_t = static_cast<long long>(atomicAdd(counter, 1ull));
  __syncthreads();
  const long long t = s_t;
  const long long base = t * tile + threadIdx.x * items;
  int v[items];
  if (Striped) {
    const long long seg = t * tile + warp * 32 * items;
    int* ib = reinterpret_cast<int*>(mine);
#pragma unroll
    for (int k = 0; k < items; ++k) v[k] = seg + k * 32 + lane < n ? in[seg + k * 32 + lane] : 0;
#pragma unroll
    for (int k = 0; k < items; ++k) ib[(k * 32 + lane) + (k * 32 + lane) / 32] = v[k];
    __syncwarp();
#pragma unroll
    for (int k = 0; k < items; ++k) v[k] = ib[(lane * items + k) + (lane * items + k) / 32];
    __syncwarp();
  } else {
    load_blocked(in, base, n, v);
  }
  long long total = 0;
#pragma unroll
  for (int k = 0; k < items; ++k) total += v[k];
  const long long incl = warp_inclusive_sum(total);
  if (lane == 31) warp_total[warp] = incl;
  const long long lane_before = incl - total;
  __syncthreads();
  if (warp == 0) {
    long long aggregate = 0;
    const long long prefix = tile_prefix<threads>(warp_total, st, t, true, aggregate, [&] { return look_back(st, t); });
    if (lane == 0) s_prefix = prefix;
  }
  __syncthreads();
  long long run = s_prefix + warp_total[warp] + lane_before;
  const long long wbase = t * tile + warp * 32 * items;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int k = 0; k < half; ++k) {
      run += v[h * half + k];
      const int i = lane * half + k;
      mine[i + i / 16] = run;
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < half; ++k) {
      const int i = k * 32 + lane;                             // element (i / half, i % half) of the half
      const int e = (i / half) * items + h * half + i % half;  // its place in the warp's segment
      if (wbase + e < n) out[wbase + e] = mine[i + i / 16];
    }
    __syncwarp();
  }
}

int main() {
  const long long n = 1ll << 27;
  int* in;
  long long *out, *ref;
  double *cx, *cy;
  unsigned long long* counter;
  ulonglong2* st;
  CK(cudaMalloc(&in, 4 * n));
  CK(cudaMalloc(&out, 8 * n));
  CK(cudaMalloc(&ref, 8 * n));
  CK(cudaMalloc(&cx, 8 * n));
  CK(cudaMalloc(&cy, 8 * n));
  CK(cudaMalloc(&counter, 8));
  CK(cudaMalloc(&st, 16 * (n / 1024 + 1)));  // tiles of at least 1024
  {
    std::vector<int> h(n);
    unsigned s = 12345;
    for (auto& x : h) x = static_cast<int>((s = s * 1664525u + 1013904223u) >> 8) - (1 << 23);
    CK(cudaMemcpy(in, h.data(), 4 * n, cudaMemcpyHostToDevice));
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  size_t temp_bytes = 0;
  // CUB with an int64 accumulator (numpy's): the input read through a widening iterator.
  auto wide = thrust::make_transform_iterator(in, widen_op{});
  cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, wide, ref, n);
  void* temp;
  CK(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](auto f) {  // median-free: mean of 10 calls after two warm-ups
    f();
    f();
    cudaDeviceSynchronize();
    cudaEventRecord(e0);
    for (int r = 0; r < 10; ++r) f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    return ms * 100;
  };
  const float tcopy = time([&] { cudaMemcpyAsync(cy, cx, 8 * n, cudaMemcpyDeviceToDevice); });
  const double copy_gbps = 16.0 * n / tcopy * 1e-3;
  printf("copy of 2^27 float64: %.1f us (%.0f GB/s), %d SMs\n", tcopy, copy_gbps, sms);
  auto row = [&](const char* name, float t) {
    printf("  %-8s %8.1f us  %5.1f %% of the copy\n", name, t, 100.0 * 12.0 * n / t * 1e-3 / copy_gbps);
  };
  row("cub", time([&] {
        size_t b = temp_bytes;
        cub::DeviceScan::InclusiveSum(temp, b, wide, ref, n);
      }));
  std::vector<long long> want(n), got(n);
  CK(cudaMemcpy(want.data(), ref, 8 * n, cudaMemcpyDeviceToHost));
  row("widen", time([&] {
        widen<<<4 * sms * 4, 512>>>(reinterpret_cast<const int4*>(in), reinterpret_cast<longlong2*>(out), n / 4);
      }));
  auto run = [&](const char* name, auto kernel, int threads, int items, bool persistent, int per_sm,
                 int shared_items = 0) {  // shared_items: the elements a lane turns through shared memory at once
    const long long tile = (long long)threads * items, tiles = (n + tile - 1) / tile;
    if (shared_items == 0) shared_items = items;
    const size_t shared = sizeof(long long) * (threads / 32) * (32 * shared_items + 2 * shared_items);
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CK(cudaMemset(out, 0xff, 8 * n));
    const float t = time([&] {
      cudaMemsetAsync(counter, 0, 8);
      cudaMemsetAsync(st, 0, 16 * tiles);
      kernel<<<persistent ? per_sm * sms : tiles, threads, shared>>>(in, out, n, counter, st, tiles);
    });
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, 8 * n, cudaMemcpyDeviceToHost));
    row(name, t);
    if (got != want)
      printf("    DIFFERENT from cub%s\n", strncmp(name, "none", 4) == 0 ? " (no look-back: by design)" : "");
    return 0;
  };
  run("lb512x16", lb<512, 16, 2, false, false>, 512, 16, false, 2);
  run("lean512x16/3", lean<512, 16, 3>, 512, 16, false, 3, 8);
  run("leanS512x16/3", lean<512, 16, 3, true>, 512, 16, false, 3, 8);
  run("lean512x8/4", lean<512, 8, 4>, 512, 8, false, 4, 4);
  run("leanS512x8/4", lean<512, 8, 4, true>, 512, 8, false, 4, 4);
  run("lean384x16/4", lean<384, 16, 4>, 384, 16, false, 4, 8);
  run("leanS384x16/4", lean<384, 16, 4, true>, 384, 16, false, 4, 8);
  run("lean768x16/2", lean<768, 16, 2>, 768, 16, false, 2, 8);
  run("lean512x12/3", lean<512, 12, 3>, 512, 12, false, 3, 6);
  run("lean256x16/6", lean<256, 16, 6>, 256, 16, false, 6, 8);
  run("lean512x16/2", lean<512, 16, 2>, 512, 16, false, 2, 8);
  run("lean512x24/3", lean<512, 24, 3>, 512, 24, false, 3, 12);
  run("lean512x32/2", lean<512, 32, 2>, 512, 32, false, 2, 16);
  run("lean256x32/4", lean<256, 32, 4>, 256, 32, false, 4, 16);
  run("none512", lb<512, 16, 2, false, false, 3>, 512, 16, false, 2);
  run("noneP512", lb<512, 16, 2, true, false, 3>, 512, 16, true, 2);
  run("wide2", lb<512, 16, 2, false, false, 1, 2>, 512, 16, false, 2);
  run("wide4", lb<512, 16, 2, false, false, 1, 4>, 512, 16, false, 2);
  run("wide8", lb<512, 16, 2, false, false, 1, 8>, 512, 16, false, 2);
  run("own4", lb<512, 16, 2, true, false, 2, 4>, 512, 16, true, 2);
  run("own9", lb<512, 16, 2, true, false, 2, 9>, 512, 16, true, 2);
  run("own12", lb<512, 16, 2, true, false, 2, 12>, 512, 16, true, 2);
  run("own256x9", lb<256, 16, 4, true, false, 2, 9>, 256, 16, true, 4);
  run("own256x17", lb<256, 16, 4, true, false, 2, 17>, 256, 16, true, 4);
  run("lb512x8", lb<512, 8, 2, false, false>, 512, 8, false, 2);
  run("lb256x16", lb<256, 16, 4, false, false>, 256, 16, false, 4);
  run("lb256x24", lb<256, 24, 3, false, false>, 256, 24, false, 3);
  run("lb512x24", lb<512, 24, 1, false, false>, 512, 24, false, 1);
  run("lb128x16", lb<128, 16, 8, false, false>, 128, 16, false, 8);
  run("pers512", lb<512, 16, 2, true, false>, 512, 16, true, 2);
  run("pf512", lb<512, 16, 2, true, true>, 512, 16, true, 2);
  run("pf256", lb<256, 16, 4, true, true>, 256, 16, true, 4);

  return 0;
}
