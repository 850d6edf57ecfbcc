// Experiment: per-list sum of 10M float32 lists of Poisson(2) lengths with int64 offsets (issue 10:
// >= 70 % of the copy bandwidth wanted; jetfuse's list kernel measured 57 % on an H200). Bytes
// counted as bench_jagged counts them: offsets + content read once, one float per list written.
// Each variant is a shape the code generator could emit, written by hand:
//   lockstep4   jetfuse's list kernel today: 256-thread blocks, 4 lists per lane (l, l + 32, ...),
//               the warp's lanes in lock step over element m of each list, grid-stride over 4 waves
//   lockstep4f  the same with a block per tile (no grid-stride)
//   lockstep4p  the same (4 waves) with the next tile's offsets loaded before this tile's content
//   lane1       a thread per list, a block per 256 lists, serial loop
//   stage<K>    a block per 256 K lists: offsets to shared memory, the block's content window copied
//               coalesced to shared memory, each thread sums its K lists (t, t + 256, ...) there;
//               windows over the staging capacity read global memory in place
// Build: nvcc -O3 -arch=sm_90 -std=c++17 list_sum_variants.cu -o /tmp/lsv && /tmp/lsv
// Measured (H200, 2026-11-28, device call G; all variants equal the host loop): copy of the same
// bytes 54.8 us; lockstep4 57.3 us (95.6 %), lockstep4f 59.4, lockstep4p 58.6, lockstep2f 68.0,
// lockstep1f 92.2, lane1 68.8, stage1 102.5, stage2 72.1, stage4 64.8. jetfuse's generated list
// kernel (the lockstep4 shape) took 82.7 us in bench_jagged in the same call: its SASS consumed
// each lock-step load before issuing the next (plain loads; the hand kernel's are __restrict__
// parameters, LDG.CONSTANT); with __ldg 73.3 us (docs/design.md, "Loads in flight").
#include <cstdio>
#include <cstdint>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

typedef long long ll;

template <int K, bool Prefetch>
__global__ void lockstep(const ll* __restrict__ off, const float* __restrict__ c, float* __restrict__ out, ll nl) {
  const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
  const ll tl = 256LL * K, ntiles = (nl + tl - 1) / tl;
  ll tile = blockIdx.x;
  ll jb[K], nb[K];
  auto load = [&](ll t, ll* dst) {
    const ll iw = t * tl + wp * 32LL * K;
#pragma unroll
    for (int k = 0; k < K; ++k) { const ll i = iw + lane + 32 * k; dst[k] = off[i < nl ? i : nl]; }
  };
  if (tile < ntiles) load(tile, jb);
  for (; tile < ntiles; tile += gridDim.x) {
    const ll iw = tile * tl + wp * 32LL * K;
    const ll wend = off[iw + 32 * K < nl ? iw + 32 * K : nl];
    if (Prefetch && tile + gridDim.x < ntiles) load(tile + gridDim.x, nb);
    ll je[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const ll down = __shfl_down_sync(~0u, jb[k], 1);
      const ll next = k + 1 < K ? __shfl_sync(~0u, jb[(k + 1) % K], 0) : wend;
      je[k] = lane == 31 ? next : down;
    }
    const ll wb = __shfl_sync(~0u, jb[0], 0);
    int jn[K], steps = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) { jn[k] = (int)(je[k] - jb[k]); steps = max(steps, jn[k]); }
    steps = __reduce_max_sync(~0u, steps);
    float acc[K];
#pragma unroll
    for (int k = 0; k < K; ++k) acc[k] = 0.0f;
    for (int m = 0; m < steps; ++m) {
      float v[K];
#pragma unroll
      for (int k = 0; k < K; ++k) v[k] = c[m < jn[k] ? jb[k] + m : wb];
#pragma unroll
      for (int k = 0; k < K; ++k) acc[k] += m < jn[k] ? v[k] : -0.0f;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) { const ll i = iw + lane + 32 * k; if (i < nl) out[i] = acc[k]; }
    if (Prefetch) {
#pragma unroll
      for (int k = 0; k < K; ++k) jb[k] = nb[k];
    } else if (tile + gridDim.x < ntiles) load(tile + gridDim.x, jb);
  }
}

__global__ void lane1(const ll* __restrict__ off, const float* __restrict__ c, float* __restrict__ out, ll nl) {
  const ll i = (ll)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nl) return;
  const ll b = off[i], e = off[i + 1];
  float s = 0;
  for (ll j = b; j < e; ++j) s += c[j];
  out[i] = s;
}

template <int K>
__global__ void stage(const ll* __restrict__ off, const float* __restrict__ c, float* __restrict__ out, ll nl) {
  constexpr int T = 256, L = T * K, CAP = L * 4;  // elements staged: 4 per list on average
  __shared__ ll s_off[L + 1];
  __shared__ float s_c[CAP];
  const ll i0 = (ll)blockIdx.x * L;
  const int n = (int)min((ll)L, nl - i0);
  for (int t = threadIdx.x; t <= n; t += T) s_off[t] = off[i0 + t];
  __syncthreads();
  const ll wb = s_off[0], we = s_off[n];
  const bool staged = we - wb <= CAP;
  if (staged) {
    for (ll j = wb + threadIdx.x; j < we; j += T) s_c[j - wb] = c[j];
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int t = threadIdx.x + T * k;
    if (t >= n) break;
    const ll b = s_off[t], e = s_off[t + 1];
    float s = 0;
    if (staged)
      for (ll j = b; j < e; ++j) s += s_c[j - wb];
    else
      for (ll j = b; j < e; ++j) s += c[j];
    out[i0 + t] = s;
  }
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, ll n) {
  for (ll i = (ll)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (ll)gridDim.x * blockDim.x) b[i] = a[i];
}

int main() {
  const ll nl = 10000000;
  std::mt19937_64 rng(1);
  std::poisson_distribution<int> len(2.0);
  std::vector<ll> off(nl + 1, 0);
  for (ll i = 0; i < nl; ++i) off[i + 1] = off[i] + len(rng);
  const ll ne = off[nl];
  std::vector<float> c(ne), ref(nl);
  std::uniform_real_distribution<float> u(0, 100);
  for (auto& x : c) x = u(rng);
  for (ll i = 0; i < nl; ++i) { float s = 0; for (ll j = off[i]; j < off[i + 1]; ++j) s += c[j]; ref[i] = s; }
  ll *d_off; float *d_c, *d_out; float4 *d_a, *d_b;
  const double bytes = 8.0 * (nl + 1) + 4.0 * ne + 4.0 * nl;
  const ll n4 = (ll)(bytes / 2 / 16);
  CK(cudaMalloc(&d_off, 8 * (nl + 1))); CK(cudaMalloc(&d_c, 4 * ne)); CK(cudaMalloc(&d_out, 4 * nl));
  CK(cudaMalloc(&d_a, 16 * n4)); CK(cudaMalloc(&d_b, 16 * n4));
  CK(cudaMemcpy(d_off, off.data(), 8 * (nl + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_c, c.data(), 4 * ne, cudaMemcpyHostToDevice));
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto timeit = [&](const char* name, auto launch, bool check) {
    std::vector<float> h(nl);
    cudaMemset(d_out, 0xFF, 4 * nl);
    launch();
    cudaDeviceSynchronize();
    if (check) {
      cudaMemcpy(h.data(), d_out, 4 * nl, cudaMemcpyDeviceToHost);
      for (ll i = 0; i < nl; ++i) if (h[i] != ref[i]) { printf("%s: MISMATCH at %lld: %g vs %g\n", name, i, h[i], ref[i]); break; }
    }
    float best = 1e30f;
    for (int r = 0; r < 7; ++r) {
      cudaEventRecord(e0);
      for (int k = 0; k < 20; ++k) launch();
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); best = std::min(best, ms / 20);
    }
    return best * 1e3f;
  };
  const float tc = timeit("copy", [&] { copy4<<<sms * 8, 256>>>(d_a, d_b, n4); }, false);
  printf("copy of the same bytes (read+write halves): %.1f us\n", tc);
  auto row = [&](const char* name, float us) { printf("%-12s %8.1f us  %5.1f %% of copy\n", name, us, 100.0 * tc / us); };
  const ll t4 = (nl + 1023) / 1024;
  row("lockstep4", timeit("lockstep4", [&] { lockstep<4, false><<<std::min<ll>(t4, sms * 8 * 4), 256>>>(d_off, d_c, d_out, nl); }, true));
  row("lockstep4f", timeit("lockstep4f", [&] { lockstep<4, false><<<t4, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("lockstep4p", timeit("lockstep4p", [&] { lockstep<4, true><<<std::min<ll>(t4, sms * 8 * 4), 256>>>(d_off, d_c, d_out, nl); }, true));
  row("lockstep2f", timeit("lockstep2f", [&] { lockstep<2, false><<<(nl + 511) / 512, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("lockstep1f", timeit("lockstep1f", [&] { lockstep<1, false><<<(nl + 255) / 256, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("lane1", timeit("lane1", [&] { lane1<<<(nl + 255) / 256, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("stage1", timeit("stage1", [&] { stage<1><<<(nl + 255) / 256, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("stage2", timeit("stage2", [&] { stage<2><<<(nl + 511) / 512, 256>>>(d_off, d_c, d_out, nl); }, true));
  row("stage4", timeit("stage4", [&] { stage<4><<<(nl + 1023) / 1024, 256>>>(d_off, d_c, d_out, nl); }, true));
  return 0;
}
