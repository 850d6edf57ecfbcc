// Experiment: x[mask] for 2^27 float64 with a 1-byte mask 1 %, 50 % and 99 % true (bench_scan's
// BM_MaskSelect rows), written by hand in the shapes jetfuse could generate, against CUB's
// DeviceSelect::Flagged. jetfuse's own kernel (a single pass with a decoupled look-back, values
// loaded after the look-back) measured 661 / 864 / 990 us on an H200 (2026-11-29), 48 % of the copy
// at 50 % counting x, the mask and the values written; the time hardly depends on the density.
// Variants (each computes the exact result, compared with CUB's):
//   cub       cub::DeviceSelect::Flagged (the output sized by a count first, as jetfuse must)
//   rts       reduce-then-scan: a kernel counts each tile's selected elements (16 mask bytes per
//             thread, one 16-byte load), a small exclusive scan of the tile counts (CUB), then each
//             tile compacts independently: no look-back. Positions are scanned in shared memory;
//             values are loaded coalesced (striped) and stored at their positions.
//   rts_smem  the same, the selected values staged in shared memory and written out contiguously.
// Bandwidth counts x (8 bytes), the mask (1 byte) and the selected values (8 bytes each) once, as
// bench_scan does; "copy" is a device-to-device copy of x in the same run.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 compaction_variants.cu -o /tmp/cv && /tmp/cv
// Measured (H200, 2026-11-29, session call 3; copy 507 us = 4236 GB/s; every result equal to
// CUB's): 1 % cub 518.6 us (55.5 %), rts 263.6 (109 %: the mask is read twice, counted once),
// rts_smem 365.8; 50 % cub 646.2 (63.7 %), rts 503.3 (81.8 %), rts_smem 774.5 (53.2 %); 99 % cub
// 789.7 (67.9 %), rts 637.9 (84.0 %), rts_smem 901.2 (59.5 %). jetfuse's single-pass kernel in the
// same call (bench_scan): 632 / 930 / 1039 us (46 / 44 / 52 %). Reduce-then-scan with direct stores
// is the fastest at every density, ahead of CUB: no tile waits for another, and the count jetfuse
// needs anyway (the output's size) is the first pass. Staging in shared memory costs more than the
// scattered stores save. But the same two passes built into jetfuse's generator (the compaction's
// scan kernel launched twice, its tile pipeline otherwise as today) were slower than its look-back:
// 828 / 1185 / 1308 us against 632 / 930 / 1039 (session call 4): what makes rts fast here is the
// per-tile work (one 16-byte mask load a thread, one rank table), not the absent look-back.
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cstdio>
#include <cub/cub.cuh>
#include <vector>

#include "experiment_timing.cuh"  // CK

constexpr int threads = 512, items = 16, tile = threads * items;  // tiles of 8192, as jetfuse's

__global__ void make_data(double* x, unsigned char* m, long long n, unsigned pct) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    x[i] = (double)(i % 1000003) * 0.5;
    m[i] = (h % 100) < pct;
  }
}

// Each tile's selected count: one 16-byte load of mask bytes per thread.
__global__ void tile_counts(const unsigned char* __restrict__ m, long long n, unsigned* __restrict__ counts) {
  using R = cub::BlockReduce<unsigned, threads>;
  __shared__ typename R::TempStorage tmp;
  const long long base = (long long)blockIdx.x * tile + (long long)threadIdx.x * items;
  unsigned c = 0;
  if (base + items <= n) {
    const uint4 w = *reinterpret_cast<const uint4*>(m + base);
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) c += __popc(words[k] & 0x01010101u);
  } else {
    for (long long i = base; i < n; ++i) c += m[i] != 0;
  }
  const unsigned total = R(tmp).Sum(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// One tile compacted at its known offset. Staged: the selected values go through shared memory and
// are written out contiguously; else each is stored at its position directly.
template <bool Staged>
__global__ void __launch_bounds__(threads, 2)
    compact(const double* __restrict__ x, const unsigned char* __restrict__ m, long long n,
            const unsigned* __restrict__ offsets, double* __restrict__ out) {
  using S = cub::BlockScan<unsigned, threads>;
  __shared__ typename S::TempStorage tmp;
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned short* rank = reinterpret_cast<unsigned short*>(smem);  // per element: its rank in the tile
  double* staged = reinterpret_cast<double*>(smem + 2 * tile);     // Staged: the selected values
  const long long t0 = (long long)blockIdx.x * tile;
  const long long base = t0 + (long long)threadIdx.x * items;
  unsigned char f[items];
  if (base + items <= n) {
    const uint4 w = *reinterpret_cast<const uint4*>(m + base);
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 16; ++k) f[k] = (words[k / 4] >> (8 * (k % 4))) & 1u;
  } else {
#pragma unroll
    for (int k = 0; k < 16; ++k) f[k] = base + k < n ? m[base + k] != 0 : 0;
  }
  unsigned c = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) c += f[k];
  unsigned before, total;
  S(tmp).ExclusiveSum(c, before, total);
  // Ranks in blocked order into shared memory (0xffff: not selected), read back striped.
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    rank[threadIdx.x * items + k] = f[k] ? (unsigned short)before : 0xffffu;
    before += f[k];
  }
  __syncthreads();
  const long long offset = offsets[blockIdx.x];
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int e = j * threads + (int)threadIdx.x;
    const unsigned short r = rank[e];
    if (r != 0xffffu) {
      const double v = x[t0 + e];  // t0 + e < n when selected
      if (Staged)
        staged[r] = v;
      else
        out[offset + r] = v;
    }
  }
  if (Staged) {
    __syncthreads();
    for (unsigned k = threadIdx.x; k < total; k += threads) out[offset + k] = staged[k];
  }
}

__device__ __forceinline__ void store_word(ulonglong2* p, unsigned long long f, unsigned long long v) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(f), "l"(v) : "memory");
}
__device__ __forceinline__ ulonglong2 load_word(const ulonglong2* p) {
  ulonglong2 w;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
  return w;
}
// Warp 0: the exclusive prefix of tile t > 0 from the status words (1: aggregate, 2: inclusive).
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
__device__ __forceinline__ bool predicate(double x, unsigned pct) {
  const double f = x * 0.6180339887498949;
  return (f - floor(f)) * 100.0 < pct;
}
struct select_op {
  unsigned pct;
  __device__ bool operator()(double x) const { return predicate(x, pct); }
};
struct count_op {
  unsigned pct;
  __device__ int operator()(double x) const { return predicate(x, pct); }
};

// Each tile's count of a predicate of x (16 consecutive doubles a thread).
__global__ void tile_counts_pred(const double* __restrict__ x, long long n, unsigned pct,
                                 unsigned* __restrict__ counts) {
  using R = cub::BlockReduce<unsigned, threads>;
  __shared__ typename R::TempStorage tmp;
  const long long base = (long long)blockIdx.x * tile + (long long)threadIdx.x * items;
  unsigned c = 0;
  if (base + items <= n) {
    const double2* p = reinterpret_cast<const double2*>(x + base);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const double2 w = p[k];
      c += predicate(w.x, pct) + predicate(w.y, pct);
    }
  } else {
    for (long long i = base; i < n; ++i) c += predicate(x[i], pct);
  }
  const unsigned total = R(tmp).Sum(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// Single pass: each tile's selection as in rts (Pred: computed from x, 16 consecutive doubles a
// thread; else one 16-byte mask load), its count scanned over the block, a decoupled look-back for
// the tile's offset, the ranks through shared memory, the selected values stored striped.
template <bool Pred>
__global__ void __launch_bounds__(threads, 2)
    compact_lb(const double* __restrict__ x, const unsigned char* __restrict__ m, long long n, unsigned pct,
               unsigned long long* counter, ulonglong2* st, double* __restrict__ out,
               const unsigned* __restrict__ offsets = nullptr) {
  using S = cub::BlockScan<unsigned, threads>;
  __shared__ typename S::TempStorage tmp;
  __shared__ unsigned short rank[tile];
  __shared__ long long s_t, s_offset;
  if (threadIdx.x == 0) s_t = offsets ? blockIdx.x : static_cast<long long>(atomicAdd(counter, 1ull));
  __syncthreads();
  const long long t = s_t;
  const long long t0 = t * tile;
  const long long base = t0 + (long long)threadIdx.x * items;
  unsigned char f[items];
  if (Pred) {
    if (base + items <= n) {
      const double2* p = reinterpret_cast<const double2*>(x + base);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const double2 w = p[k];
        f[2 * k] = predicate(w.x, pct), f[2 * k + 1] = predicate(w.y, pct);
      }
    } else {
#pragma unroll
      for (int k = 0; k < 16; ++k) f[k] = base + k < n ? predicate(x[base + k], pct) : 0;
    }
  } else if (base + items <= n) {
    const uint4 w = *reinterpret_cast<const uint4*>(m + base);
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 16; ++k) f[k] = (words[k / 4] >> (8 * (k % 4))) & 1u;
  } else {
#pragma unroll
    for (int k = 0; k < 16; ++k) f[k] = base + k < n ? m[base + k] != 0 : 0;
  }
  unsigned c = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) c += f[k];
  unsigned before, total;
  S(tmp).ExclusiveSum(c, before, total);
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    rank[threadIdx.x * items + k] = f[k] ? (unsigned short)before : 0xffffu;
    before += f[k];
  }
  if (offsets) {  // reduce-then-scan: the tile's offset is known
    if (threadIdx.x == 0) s_offset = offsets[t];
  } else if (threadIdx.x < 32) {
    long long prefix = 0;
    if (t == 0) {
      if (threadIdx.x == 0) store_word(st, 2, total);
    } else {
      if (threadIdx.x == 0) store_word(st + t, 1, total);
      prefix = look_back(st, t);
      if (threadIdx.x == 0) store_word(st + t, 2, prefix + total);
    }
    if (threadIdx.x == 0) s_offset = prefix;
  }
  __syncthreads();
  const long long offset = s_offset;
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int e = j * threads + (int)threadIdx.x;
    const unsigned short r = rank[e];
    if (r != 0xffffu) out[offset + r] = x[t0 + e];
  }
}

int main() {
  const long long n = 1ll << 27;
  const int tiles = (int)((n + tile - 1) / tile);
  double *x, *out, *ref, *copy_dst;
  unsigned char* m;
  unsigned *counts, *offsets;
  int* num;
  unsigned long long* counter;
  ulonglong2* st;
  CK(cudaMalloc(&x, 8 * n));
  CK(cudaMalloc(&out, 8 * n));
  CK(cudaMalloc(&ref, 8 * n));
  CK(cudaMalloc(&copy_dst, 8 * n));
  CK(cudaMalloc(&m, n));
  CK(cudaMalloc(&counts, 4 * (tiles + 1)));
  CK(cudaMalloc(&offsets, 4 * (tiles + 1)));
  CK(cudaMalloc(&num, sizeof(int)));
  CK(cudaMalloc(&counter, 8));
  CK(cudaMalloc(&st, 16 * tiles));
  CK(cudaMemset(counts, 0, 4 * (tiles + 1)));  // counts[tiles] stays 0: offsets[tiles] is the total
  CK(cudaFuncSetAttribute(compact<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * tile));
  CK(cudaFuncSetAttribute(compact<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * tile + 8 * tile));
  size_t select_bytes = 0, scan_bytes = 0, sum_bytes = 0;
  cub::DeviceSelect::Flagged(nullptr, select_bytes, x, m, out, num, n);
  cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, tiles + 1);
  cub::DeviceReduce::Sum(nullptr, sum_bytes, m, num, n);
  void* temp;
  const size_t temp_bytes = std::max(select_bytes, std::max(scan_bytes, sum_bytes));
  CK(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](auto f) {  // mean of 5 calls after one warm-up
    f();
    cudaDeviceSynchronize();
    cudaEventRecord(e0);
    for (int r = 0; r < 5; ++r) f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    return ms * 1000 / 5;
  };
  const float tcopy = time([&] { cudaMemcpyAsync(copy_dst, x, 8 * n, cudaMemcpyDeviceToDevice); });
  const double copy_gbps = 16.0 * n / tcopy * 1e-3;
  printf("copy of 2^27 float64: %.1f us (%.0f GB/s)\n", tcopy, copy_gbps);
  for (unsigned pct : {1u, 50u, 99u}) {
    make_data<<<1024, 256>>>(x, m, n, pct);
    CK(cudaDeviceSynchronize());
    int count = 0;
    // The count first (the output's size), then the selection: what jetfuse has to do.
    auto cub_select = [&] {
      size_t b = temp_bytes;
      cub::DeviceReduce::Sum(temp, b, m, num, n);
      cudaMemcpy(&count, num, sizeof(int), cudaMemcpyDeviceToHost);
      b = temp_bytes;
      cub::DeviceSelect::Flagged(temp, b, x, m, ref, num, n);
    };
    const float tcub = time(cub_select);
    CK(cudaGetLastError());
    std::vector<double> want(count), got(count);
    CK(cudaMemcpy(want.data(), ref, 8 * count, cudaMemcpyDeviceToHost));
    const double bytes = 9.0 * n + 8.0 * count;
    auto row = [&](const char* name, float t) {
      printf("  %2u %%  %-9s %8.1f us  %5.1f %% of the copy\n", pct, name, t, 100.0 * bytes / t * 1e-3 / copy_gbps);
    };
    row("cub", tcub);
    auto rts = [&](auto kernel, size_t shared) {
      return [&, kernel, shared] {
        tile_counts<<<tiles, threads>>>(m, n, counts);
        size_t b = temp_bytes;
        cub::DeviceScan::ExclusiveSum(temp, b, counts, offsets, tiles + 1);
        unsigned total = 0;
        cudaMemcpy(&total, offsets + tiles, sizeof(unsigned), cudaMemcpyDeviceToHost);  // the count (sync)
        kernel<<<tiles, threads, shared>>>(x, m, n, offsets, out);
      };
    };
    for (int staged = 0; staged < 2; ++staged) {
      CK(cudaMemset(out, 0xff, 8 * n));
      const float t = staged ? time(rts(compact<true>, 10 * tile)) : time(rts(compact<false>, 2 * tile));
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), out, 8 * count, cudaMemcpyDeviceToHost));
      row(staged ? "rts_smem" : "rts", t);
      if (got != want) printf("    DIFFERENT from cub\n");
    }
    // Single pass with a look-back, after the count (jetfuse's order: the size first).
    CK(cudaMemset(out, 0xff, 8 * n));
    const float tlb = time([&] {
      size_t b = temp_bytes;
      cub::DeviceReduce::Sum(temp, b, m, num, n);
      cudaMemcpy(&count, num, sizeof(int), cudaMemcpyDeviceToHost);
      cudaMemsetAsync(counter, 0, 8);
      cudaMemsetAsync(st, 0, 16 * tiles);
      compact_lb<false><<<tiles, threads>>>(x, m, n, pct, counter, st, out);
    });
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, 8 * count, cudaMemcpyDeviceToHost));
    row("lb_rank", tlb);
    if (got != want) printf("    DIFFERENT from cub\n");
    // A fused predicate of x (no mask array): CUB's DeviceSelect::If against the look-back kernel,
    // each after its count (a transform-reduce of the predicate).
    {
      const select_op op{pct};
      auto counted = thrust::make_transform_iterator(x, count_op{pct});
      size_t if_bytes = 0, red_bytes = 0;
      cub::DeviceSelect::If(nullptr, if_bytes, x, ref, num, n, op);
      cub::DeviceReduce::Sum(nullptr, red_bytes, counted, num, n);
      void* t2;
      CK(cudaMalloc(&t2, std::max(if_bytes, red_bytes)));
      int pcount = 0;
      const float tif = time([&] {
        size_t b = red_bytes;
        cub::DeviceReduce::Sum(t2, b, counted, num, n);
        cudaMemcpy(&pcount, num, sizeof(int), cudaMemcpyDeviceToHost);
        b = if_bytes;
        cub::DeviceSelect::If(t2, b, x, ref, num, n, op);
      });
      CK(cudaGetLastError());
      std::vector<double> pw(pcount), pg(pcount);
      CK(cudaMemcpy(pw.data(), ref, 8 * pcount, cudaMemcpyDeviceToHost));
      const double pbytes = 8.0 * n + 8.0 * pcount;
      printf("  %2u %%  %-9s %8.1f us  %5.1f %% of the copy (x > p: %d selected)\n", pct, "cub_if", tif,
             100.0 * pbytes / tif * 1e-3 / copy_gbps, pcount);
      CK(cudaMemset(out, 0xff, 8 * n));
      const float tp = time([&] {
        size_t b = red_bytes;
        cub::DeviceReduce::Sum(t2, b, counted, num, n);
        cudaMemcpy(&pcount, num, sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemsetAsync(counter, 0, 8);
        cudaMemsetAsync(st, 0, 16 * tiles);
        compact_lb<true><<<tiles, threads>>>(x, m, n, pct, counter, st, out);
      });
      CK(cudaGetLastError());
      CK(cudaMemcpy(pg.data(), out, 8 * pcount, cudaMemcpyDeviceToHost));
      printf("  %2u %%  %-9s %8.1f us  %5.1f %% of the copy\n", pct, "lb_pred", tp,
             100.0 * pbytes / tp * 1e-3 / copy_gbps);
      if (pg != pw) printf("    DIFFERENT from cub\n");
      // The same as a reduce-then-scan: the tiles counted (the predicate computed), the counts
      // scanned, the tiles compacted at their offsets (the predicate computed again).
      CK(cudaMemset(out, 0xff, 8 * n));
      const float tr = time([&] {
        size_t b = red_bytes;
        cub::DeviceReduce::Sum(t2, b, counted, num, n);
        cudaMemcpy(&pcount, num, sizeof(int), cudaMemcpyDeviceToHost);
        tile_counts_pred<<<tiles, threads>>>(x, n, pct, counts);
        b = temp_bytes;
        cub::DeviceScan::ExclusiveSum(temp, b, counts, offsets, tiles + 1);
        compact_lb<true><<<tiles, threads>>>(x, m, n, pct, counter, st, out, offsets);
      });
      CK(cudaGetLastError());
      CK(cudaMemcpy(pg.data(), out, 8 * pcount, cudaMemcpyDeviceToHost));
      printf("  %2u %%  %-9s %8.1f us  %5.1f %% of the copy\n", pct, "rts_pred", tr,
             100.0 * pbytes / tr * 1e-3 / copy_gbps);
      if (pg != pw) printf("    DIFFERENT from cub\n");
      cudaFree(t2);
    }
  }
  return 0;
}
