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
// Sixth session (2026-11-29, H200, copy 506 us, cub 540): persistent blocks that stage tiles in
// shared memory with cp.async ahead of their scan ("staged": 812-3087 us) or publish their next
// tile's aggregate before looking back for the current one ("ahead": 725-4748 us) are far slower:
// a tile claimed ahead makes every later tile wait for its block's current tile. What works is
// "lean" with the input of the tile PrefetchDistance tiles later read into L2 when a block starts
// (cp.async.bulk.prefetch.L2, one instruction): lean768x16/2 with d = 33 / 66 / 99 / 132 / 198
// 449 / 449 / 451 / 460 / 513 us (84.8 % at 66) against 487 without; lean512x16/2 d = 33 / 66 /
// 99 / 132 / 198 481 / 474 / 473 / 476 / 482 (530 without); lean512x16/3 d = 50 / 99 / 198 / 297
// 452 / 450 / 462 / 511; leanS512x16/2 (striped loads, as the generator) d = 66 / 132 479 / 484;
// 256x16/4 d = 66 / 132 / 264 483 / 478 / 475. A quarter of the resident blocks ahead is best;
// the generator takes it (shape_scan.cpp: 547 -> 495 us).
// Seventh session (2026-11-29, H200, copy 503 us, cub 534): leanSpf512/3d99 (striped loads as the
// generator, 3 blocks of 512) 448 us (84.3 %), leanSpf768/2d66 474, leanpf512/3d99 453, leanpf768/2d66
// 454. The generator (bench_scan's CumsumInt32, 493-500 us) tried with run-time switches, not kept:
// 768 x 16 with 2 blocks 514 us (smem-held) / 614 (register-held, 40 registers, spills); 3 blocks of
// 512 505 / 616; int offsets instead of long long in the tile 502; the elements held in registers
// after the transpose (34 KB of shared memory a block instead of 68) 498; CUB's one status word a
// tile for integer scans (flag 1 -> 2 overwritten; two words now) 493; those three together 485
// (one run). Nsight Compute (512 x 3, SM clock locked at 1.5 GHz): 42 % of the warp cycles waiting
// at the barrier behind warp 0's look-back, 1.4 warp instructions an element, achieved occupancy
// 71 %; with 3 blocks the generated tile spills 24-56 bytes at 40 registers, where the hand-written
// one does not. The cause: its stores took a 64-bit address an element (the slot's division hid
// that they are a constant apart); written without it (shape_scan.cpp) the tile needs 40 registers
// with no spill and runs 3 blocks of 512: 463 us (82.9 %), 2 x 768 486, 2 x 512 495.
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

#include "experiment_timing.cuh"  // CK

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

// A tile's lanes' totals of their elements `v` scanned across each warp, warp 0 scanning the warps'
// totals (made exclusive in warp_total), publishing the tile and looking back; `s_prefix` gets the
// tile's exclusive prefix. Returns the lane's exclusive prefix within its warp.
template <int threads, int items>
__device__ __forceinline__ long long scan_tile_totals(const int (&v)[items], long long* warp_total, ulonglong2* st,
                                                      long long t, long long& s_prefix) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long total = 0;
#pragma unroll
  for (int k = 0; k < items; ++k) total += v[k];
  const long long incl = warp_inclusive_sum(total);
  if (lane == 31) warp_total[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    long long aggregate = 0;
    const long long prefix = tile_prefix<threads>(warp_total, st, t, true, aggregate, [&] { return look_back(st, t); });
    if (lane == 0) s_prefix = prefix;
  }
  __syncthreads();
  return incl - total;
}

// A lane's running sums of its `items` elements (onto `run`) stored `parts` pieces at a time,
// turned through the warp's `mine` (blocked in, striped out: coalesced) to the warp's segment at
// `wbase`.
template <int parts, int items>
__device__ __forceinline__ void store_parts(const int (&v)[items], long long run, long long* mine,
                                            long long* __restrict__ out, long long wbase, long long n) {
  constexpr int part = items / parts;
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int h = 0; h < parts; ++h) {
#pragma unroll
    for (int k = 0; k < part; ++k) {
      run += v[h * part + k];
      const int i = lane * part + k;
      mine[i + i / 16] = run;
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < part; ++k) {
      const int i = k * 32 + lane;                             // element (i / part, i % part) of the piece
      const int e = (i / part) * items + h * part + i % part;  // its place in the warp's segment
      if (wbase + e < n) out[wbase + e] = mine[i + i / 16];
    }
    __syncwarp();
  }
}

// "lean": the tile's int32 inputs kept as they are loaded (one register an element, not two); a
// lane's total summed from them, and its running sums recomputed at the stores; the stores turned
// through shared memory in halves of items / 2 (half the shared memory), so that 3 or 4 blocks of
// 512 fit an SM: more tiles in flight while some look back.
// Striped: loaded as the generator does (lane l: elements j * 32 + l of its warp's segment, one
// 4-byte load each, coalesced) and turned through shared memory into `items` consecutive a lane.
template <int threads, int items, int MinBlocks, bool Striped = false, int PrefetchDistance = 0>
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
  if (PrefetchDistance > 0 && threadIdx.x == 0 && t + PrefetchDistance < tiles) {
    // the tile a block starting about a wave later will scan, read into L2 now (one instruction)
    const long long b = (t + PrefetchDistance) * tile, e = min(n, b + tile);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + b),
                 "r"(static_cast<unsigned>(4 * (e - b) & ~15ll))
                 : "memory");
  }
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
  const long long lane_before = scan_tile_totals<threads>(v, warp_total, st, t, s_prefix);
  store_parts<2>(v, s_prefix + warp_total[warp] + lane_before, mine, out, t * tile + warp * 32 * items, n);
}

// "staged": persistent blocks (MinBlocks an SM) taking tiles from the counter in order, each tile's
// input copied into shared memory by cp.async (16 bytes a thread an instruction, no registers held)
// `Ahead` tiles before it is scanned: the DRAM reads of the next tiles stay in flight while the
// block waits in its look-back and stores. The tile is then scanned as "lean" (int32 held, lane
// totals, stores through shared memory a quarter at a time, inside the tile's own staging slot).
// Deadlock-free: a block scans its claimed tiles in claim order, so the lowest unfinished tile is
// always some block's current one.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// 16-byte word w of a staged tile lives at swz(w): a thread's 4 consecutive words land in 4
// different bank groups from its 7 neighbours' (conflict-free blocked reads).
__device__ __forceinline__ int swz(int w) { return w ^ ((w >> 3) & 3); }

// The thread's `items` consecutive int32 of a staged tile (its words at swz(w)).
template <int items>
__device__ __forceinline__ void read_staged(int (&v)[items], const int4* slot) {
#pragma unroll
  for (int k = 0; k < items / 4; ++k) {
    const int4 w = slot[swz(threadIdx.x * (items / 4) + k)];
    v[4 * k] = w.x, v[4 * k + 1] = w.y, v[4 * k + 2] = w.z, v[4 * k + 3] = w.w;
  }
}

template <int threads, int items>
__device__ __forceinline__ void stage_tile(int4* slot, const int* __restrict__ in, long long t, long long n) {
  constexpr int tile = threads * items, words = tile / 4;
#pragma unroll
  for (int k = 0; k < words / threads; ++k) {
    const int w = k * threads + threadIdx.x;
    const long long e = t * tile + 4ll * w;
    const long long left = n - e;
    const int bytes = left >= 4 ? 16 : left > 0 ? static_cast<int>(4 * left) : 0;
    cp_async16(slot + swz(w), bytes ? in + e : in, bytes);
  }
}

template <int threads, int items, int MinBlocks, int Ahead>
__global__ void __launch_bounds__(threads, MinBlocks)
    staged(const int* __restrict__ in, long long* __restrict__ out, long long n, unsigned long long* counter,
           ulonglong2* st, long long tiles) {
  constexpr int tile = threads * items, R = Ahead + 1;
  static_assert(items % 4 == 0 && (tile / 4) % threads == 0, "whole 16-byte words a thread");
  extern __shared__ int4 stage[];  // R slots of tile / 4 words
  __shared__ long long ids[R], warp_total[threads / 32], s_prefix;
  const int warp = threadIdx.x >> 5;
  if (threadIdx.x == 0)
    for (int a = 0; a < Ahead; ++a) ids[a] = static_cast<long long>(atomicAdd(counter, 1ull));
  __syncthreads();
  for (int a = 0; a < Ahead; ++a) {
    if (ids[a] < tiles) stage_tile<threads, items>(stage + a * (tile / 4), in, ids[a], n);
    cp_async_commit();
  }
  for (long long j = 0;; ++j) {
    const int cur = static_cast<int>(j % R), nxt = static_cast<int>((j + Ahead) % R);
    const long long t = ids[cur];
    if (t >= tiles) return;
    if (threadIdx.x == 0) ids[nxt] = static_cast<long long>(atomicAdd(counter, 1ull));
    __syncthreads();
    if (ids[nxt] < tiles) stage_tile<threads, items>(stage + nxt * (tile / 4), in, ids[nxt], n);
    cp_async_commit();
    cp_async_wait<Ahead>();
    __syncthreads();
    int4* slot = stage + cur * (tile / 4);
    int v[items];
    read_staged(v, slot);
    const long long lane_before = scan_tile_totals<threads>(v, warp_total, st, t, s_prefix);
    long long run = s_prefix + warp_total[warp] + lane_before;
    // The warp's own part of the slot (its lanes' words, read above) turns its stores.
    store_parts<4>(v, run, reinterpret_cast<long long*>(slot + warp * 8 * items), out, t * tile + warp * 32 * items, n);
    __syncthreads();
  }
}

// "ahead": persistent blocks with two staging slots; a block reduces and publishes the aggregate of
// its next tile (claimed and staged while the previous one was scanned) before it looks back for
// its current tile, so the tiles a look-back reads have their aggregates a round early; the
// look-back reads W windows of 32 words in one round trip. The tile's int32 are re-read from the
// slot for the stores (no registers held across the look-back).
template <int threads, int items, int MinBlocks, int W>
__global__ void __launch_bounds__(threads, MinBlocks)
    ahead(const int* __restrict__ in, long long* __restrict__ out, long long n, unsigned long long* counter,
          ulonglong2* st, long long tiles) {
  constexpr int tile = threads * items;
  extern __shared__ int4 stage[];  // 2 slots of tile / 4 words
  __shared__ long long ids[2], warp_excl[2][threads / 32], aggr[2], s_prefix;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  auto reduce = [&](int s, long long t) -> long long {  // returns the lane's exclusive prefix in its warp
    const int4* slot = stage + s * (tile / 4);
    long long total = 0;
#pragma unroll
    for (int k = 0; k < items / 4; ++k) {
      const int4 w = slot[swz(threadIdx.x * (items / 4) + k)];
      total += static_cast<long long>(w.x) + w.y + w.z + w.w;
    }
    const long long incl = warp_inclusive_sum(total);
    if (lane == 31) warp_excl[s][warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const long long x = lane < threads / 32 ? warp_excl[s][lane] : 0;
      const long long w = warp_inclusive_sum(x);
      const long long agg = __shfl_sync(0xffffffffu, w, threads / 32 - 1);
      if (lane < threads / 32) warp_excl[s][lane] = w - x;
      if (lane == 0) {
        aggr[s] = agg;
        store_word(st + t, t == 0 ? 2 : 1, agg);
      }
    }
    return incl - total;
  };
  if (threadIdx.x == 0) ids[0] = static_cast<long long>(atomicAdd(counter, 1ull));
  __syncthreads();
  long long t = ids[0];
  if (t >= tiles) return;
  stage_tile<threads, items>(stage, in, t, n);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  long long lane_before = reduce(0, t);
  for (int j = 0;; ++j) {
    const int cur = j & 1, nxt = cur ^ 1;
    if (threadIdx.x == 0) ids[nxt] = static_cast<long long>(atomicAdd(counter, 1ull));
    __syncthreads();
    const long long tn = ids[nxt];
    if (tn < tiles) stage_tile<threads, items>(stage + nxt * (tile / 4), in, tn, n);
    cp_async_commit();
    if (warp == 0) {
      long long prefix = 0;
      if (t > 0) {
        prefix = look_back_wide<W>(st, t, -1, 0);
        if (lane == 0) store_word(st + t, 2, prefix + aggr[cur]);
      }
      if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();
    int4* slot = stage + cur * (tile / 4);
    int v[items];
    read_staged(v, slot);
    __syncwarp();
    long long run = s_prefix + warp_excl[cur][warp] + lane_before;
    store_parts<4>(v, run, reinterpret_cast<long long*>(slot + warp * 8 * items), out, t * tile + warp * 32 * items, n);
    if (tn >= tiles) return;
    cp_async_wait<0>();
    __syncthreads();
    lane_before = reduce(nxt, tn);
    t = tn;
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
  run("lean768x16/2", lean<768, 16, 2>, 768, 16, false, 2, 8);
  auto staged_run = [&](const char* name, auto kernel, int threads, int items, int per_sm, int slots) {
    const long long tile = (long long)threads * items, tiles = (n + tile - 1) / tile;
    const size_t shared = 4 * tile * slots;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CK(cudaMemset(out, 0xff, 8 * n));
    const float t = time([&] {
      cudaMemsetAsync(counter, 0, 8);
      cudaMemsetAsync(st, 0, 16 * tiles);
      kernel<<<per_sm * sms, threads, shared>>>(in, out, n, counter, st, tiles);
    });
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, 8 * n, cudaMemcpyDeviceToHost));
    row(name, t);
    if (got != want) printf("    DIFFERENT from cub\n");
    return 0;
  };
  run("leanpf768/2d33", lean<768, 16, 2, false, 33>, 768, 16, false, 2, 8);
  run("leanpf768/2d66", lean<768, 16, 2, false, 66>, 768, 16, false, 2, 8);
  run("leanpf768/2d99", lean<768, 16, 2, false, 99>, 768, 16, false, 2, 8);
  run("leanpf768/2d132", lean<768, 16, 2, false, 132>, 768, 16, false, 2, 8);
  run("leanpf768/2d198", lean<768, 16, 2, false, 198>, 768, 16, false, 2, 8);
  run("leanpf512/2d33", lean<512, 16, 2, false, 33>, 512, 16, false, 2, 8);
  run("leanpf512/2d66", lean<512, 16, 2, false, 66>, 512, 16, false, 2, 8);
  run("leanpf512/2d99", lean<512, 16, 2, false, 99>, 512, 16, false, 2, 8);
  run("leanpf512/2d132", lean<512, 16, 2, false, 132>, 512, 16, false, 2, 8);
  run("leanpf512/2d198", lean<512, 16, 2, false, 198>, 512, 16, false, 2, 8);
  run("leanpf512/3d50", lean<512, 16, 3, false, 50>, 512, 16, false, 3, 8);
  run("leanpf512/3d99", lean<512, 16, 3, false, 99>, 512, 16, false, 3, 8);
  run("leanpf512/3d198", lean<512, 16, 3, false, 198>, 512, 16, false, 3, 8);
  run("leanpf512/3d297", lean<512, 16, 3, false, 297>, 512, 16, false, 3, 8);
  run("leanSpf512/2d66", lean<512, 16, 2, true, 66>, 512, 16, false, 2, 8);
  run("leanSpf512/2d132", lean<512, 16, 2, true, 132>, 512, 16, false, 2, 8);
  run("leanSpf512/3d99", lean<512, 16, 3, true, 99>, 512, 16, false, 3, 8);
  run("leanSpf768/2d66", lean<768, 16, 2, true, 66>, 768, 16, false, 2, 8);
  run("leanpf256/4d66", lean<256, 16, 4, false, 66>, 256, 16, false, 4, 8);
  run("leanpf256/4d132", lean<256, 16, 4, false, 132>, 256, 16, false, 4, 8);
  run("leanpf256/4d264", lean<256, 16, 4, false, 264>, 256, 16, false, 4, 8);

  staged_run("st512x16/2a1", staged<512, 16, 2, 1>, 512, 16, 2, 2);
  staged_run("st512x16/3a1", staged<512, 16, 3, 1>, 512, 16, 3, 2);
  staged_run("ah512x16/3w1", ahead<512, 16, 3, 1>, 512, 16, 3, 2);
  staged_run("ah512x32/1w8", ahead<512, 32, 1, 8>, 512, 32, 1, 2);
  return 0;
}
