// Experiment: three ways to compute Philox4x64-10's 64x64->128-bit products on the GPU, timed on
// uniform float32 into an array (2^28 values) and a pi-style reduction of 2^30 float64 pairs.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

constexpr u64 M0 = 0xD2E7470EE14C6C93ULL, M1 = 0xCA5A826395121157ULL;
constexpr u64 W0 = 0x9E3779B97F4A7C15ULL, W1 = 0xBB67AE8584CAA73BULL;

template <u64 M> __device__ __forceinline__ void mul_a(u64 a, u64& lo, u64& hi) { lo = M * a; hi = __umul64hi(M, a); }
template <u64 M> __device__ __forceinline__ void mul_b(u64 a, u64& lo, u64& hi) {
  const u32 a0 = (u32)a, a1 = (u32)(a >> 32);
  constexpr u32 m0 = (u32)M, m1 = (u32)(M >> 32);
  const u64 p00 = (u64)a0 * m0, p01 = (u64)a0 * m1, p10 = (u64)a1 * m0, p11 = (u64)a1 * m1;
  const u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;  // < 3 * 2^32
  lo = (mid << 32) | (u32)p00;
  hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
template <u64 M> __device__ __forceinline__ void mul_c(u64 a, u64& lo, u64& hi) {  // Karatsuba: 3 wide products
  const u32 a0 = (u32)a, a1 = (u32)(a >> 32);
  constexpr u32 m0 = (u32)M, m1 = (u32)(M >> 32);
  constexpr u64 t = (u64)m0 + m1;
  constexpr u32 tl = (u32)t, ct = (u32)(t >> 32);
  const u64 p0 = (u64)a0 * m0, p2 = (u64)a1 * m1;
  const u64 s = (u64)a0 + a1;
  const u32 sl = (u32)s, cs = (u32)(s >> 32);
  const u64 q = (u64)sl * tl;
  // (s)(t) = q + ((cs ? tl : 0) + (ct ? sl : 0)) << 32 + (cs & ct) << 64, as hi:lo of 128 bits
  const u64 add = (cs ? (u64)tl : 0ull) + (ct ? (u64)sl : 0ull);
  u64 qlo = q + (add << 32);
  u64 qhi = (add >> 32) + (qlo < q ? 1u : 0u) + (cs & ct);
  // middle = s t - p0 - p2 (< 2^65)
  u64 mlo = qlo - p0; qhi -= (qlo < p0) ? 1u : 0u;
  const u64 mlo2 = mlo - p2; qhi -= (mlo < p2) ? 1u : 0u;
  lo = p0 + (mlo2 << 32);
  hi = p2 + (mlo2 >> 32) + (qhi << 32) + (lo < p0 ? 1u : 0u);
}

template <int V> __device__ __forceinline__ void mul(u64 a, u64& lo, u64& hi, int which);
template <int V> __device__ __forceinline__ void block(const u64* __restrict__ rk, u64 b, u64 (&o)[4]) {
  u64 c0 = b + 1, c1 = 0, c2 = 0, c3 = 0;
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    u64 lo0, hi0, lo1, hi1;
    if (V == 0) { mul_a<M0>(c0, lo0, hi0); mul_a<M1>(c2, lo1, hi1); }
    if (V == 1) { mul_b<M0>(c0, lo0, hi0); mul_b<M1>(c2, lo1, hi1); }
    if (V == 2) { mul_c<M0>(c0, lo0, hi0); mul_c<M1>(c2, lo1, hi1); }
    c0 = hi1 ^ c1 ^ rk[2 * r]; c1 = lo1; c2 = hi0 ^ c3 ^ rk[2 * r + 1]; c3 = lo0;
  }
  o[0] = c0; o[1] = c1; o[2] = c2; o[3] = c3;
}
struct keys { u64 rk[20]; };

template <int V> __global__ void __launch_bounds__(256) uniform_f32(keys k, float4* out, u64 blocks) {
  for (u64 b = blockIdx.x * (u64)blockDim.x + threadIdx.x; b < blocks; b += (u64)gridDim.x * blockDim.x) {
    u64 o[4];
    block<V>(k.rk, b, o);
    float f[8];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      f[2 * j] = (float)((u32)o[j] >> 8) * 0x1p-24f;
      f[2 * j + 1] = (float)((u32)(o[j] >> 32) >> 8) * 0x1p-24f;
    }
    out[2 * b] = make_float4(f[0], f[1], f[2], f[3]);
    out[2 * b + 1] = make_float4(f[4], f[5], f[6], f[7]);
  }
}
template <int V> __global__ void __launch_bounds__(256) pi_f64(keys k, unsigned long long* count, u64 blocks) {
  u64 c = 0;
  for (u64 b = blockIdx.x * (u64)blockDim.x + threadIdx.x; b < blocks; b += (u64)gridDim.x * blockDim.x) {
    u64 o[4];
    block<V>(k.rk, b, o);
#pragma unroll
    for (int j = 0; j < 4; j += 2) {
      const double x = (double)(o[j] >> 11) * 0x1p-53, y = (double)(o[j + 1] >> 11) * 0x1p-53;
      c += x * x + y * y < 1.0;
    }
  }
#pragma unroll
  for (int d = 16; d; d >>= 1) c += __shfl_xor_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0) atomicAdd(count, c);
}
__global__ void copy_k(const float4* a, float4* b, u64 n) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) b[i] = a[i];
}

int main() {
  keys k;
  for (int r = 0; r < 20; ++r) k.rk[r] = (r % 2 ? 7 + (r / 2) * W1 : 12345 + (r / 2) * W0);
  const u64 nf = 1ull << 28, nb = nf / 8;
  float4 *out, *out2;
  unsigned long long* cnt;
  CK(cudaMalloc(&out, nf * 4)); CK(cudaMalloc(&out2, nf * 4)); CK(cudaMalloc(&cnt, 8));
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f) { f(); cudaDeviceSynchronize(); float best = 1e9; for (int i = 0; i < 10; ++i) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; } return best * 1000; };
  const float tcopy = time([&] { copy_k<<<sms * 8, 256>>>(out2, out, nf / 4); });
  printf("copy 1 GiB (read+write): %.1f us = %.2f TB/s; write-only roof estimate (half traffic): %.1f us\n", tcopy, 2.0 * nf * 4 / tcopy * 1e-6, tcopy / 2);
  CK(cudaMemset(out, 0, nf * 4));
  const float tset = time([&] { cudaMemsetAsync(out2, 1, nf * 4); });
  printf("memset 1 GiB: %.1f us = %.2f TB/s\n", tset, nf * 4 / tset * 1e-6);
  std::vector<u32> ref(nf), got(nf);
  for (int grid_mul : {4, 8, 16}) {
    for (int v = 0; v < 3; ++v) {
      const unsigned grid = sms * grid_mul;
      float t = v == 0 ? time([&] { uniform_f32<0><<<grid, 256>>>(k, out, nb); }) : v == 1 ? time([&] { uniform_f32<1><<<grid, 256>>>(k, out, nb); }) : time([&] { uniform_f32<2><<<grid, 256>>>(k, out, nb); });
      CK(cudaMemcpy(v == 0 ? ref.data() : got.data(), out, nf * 4, cudaMemcpyDeviceToHost));
      const bool same = v == 0 || std::memcmp(ref.data(), got.data(), nf * 4) == 0;
      printf("uniform f32 2^28 variant %d grid %d x256: %.1f us (%.1f%% of memset, %.1f%% of copy-derived write)  same=%d\n", v, grid_mul, t, 100 * tset / t, 100 * (tcopy / 2) / t, same);
    }
  }
  for (int grid_mul : {4, 8, 16}) {
    for (int v = 0; v < 3; ++v) {
      const unsigned grid = sms * grid_mul;
      const u64 pb = (1ull << 30) / 2;  // 2^30 pairs, 2 pairs per block
      float t = v == 0 ? time([&] { cudaMemsetAsync(cnt, 0, 8); pi_f64<0><<<grid, 256>>>(k, cnt, pb); }) : v == 1 ? time([&] { cudaMemsetAsync(cnt, 0, 8); pi_f64<1><<<grid, 256>>>(k, cnt, pb); }) : time([&] { cudaMemsetAsync(cnt, 0, 8); pi_f64<2><<<grid, 256>>>(k, cnt, pb); });
      unsigned long long c; CK(cudaMemcpy(&c, cnt, 8, cudaMemcpyDeviceToHost));
      printf("pi f64 2^30 pairs variant %d grid %d x256: %.1f us  count=%llu pi~%.6f\n", v, grid_mul, t, c, 4.0 * c / (1ull << 30));
    }
  }
  return 0;
}
