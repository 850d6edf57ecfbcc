// Experiment: where does uniform float32 from Philox4x32-10 into an array (2^28 values) lose time
// against a memset of the same bytes? Store layout or generator arithmetic? Variants:
//   pair    a lane computes two blocks (8 values, jetfuse's lane run) and stores two 16-byte vectors
//           32 bytes apart (each warp store covers half of every sector it touches)
//   shfl    the same blocks, values exchanged in the warp so each store is 512 contiguous bytes
//   single  a lane computes one block (4 values) and stores one 16-byte vector (ideal layout)
//   none    the pair's arithmetic, stored only if impossible (the generator's time alone)
//   hilo    pair with __umulhi + a low product instead of one 32x32->64 product
//   split   jetfuse's lane runs since 2026-11-28: blocks l and 32 + l of a 256-value chunk, stored
//           as two 512-byte warp stores 512 bytes apart (philox_chunks.cpp)
// Measured (H200, 2026-11-28, memset 236.4 us; grid 32 x SMs = jetfuse's 4 waves): pair 392.7 us,
// shfl 291.9, single 279.6, none 264.1, hilo 588.2, split 258.1 (91.6 % of the memset). jetfuse's
// split kernel took 300 us then: 164 SASS instructions a chunk against split's 139 (guards and the
// kept-half check in every chunk, a selected 0 or 1/2 subtracted); now 139 (philox_chunks.cpp).
// Build: nvcc -O3 -arch=sm_90 -std=c++17 philox4x32_fill_variants.cu -o /tmp/pfv && /tmp/pfv
#include <cstdio>
#include <cstring>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

constexpr u32 M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
struct keys { u32 k0, k1; };

template <bool HILO> __device__ __forceinline__ void round4(u32& c0, u32& c1, u32& c2, u32& c3, u32 k0, u32 k1) {
  u32 h0, l0, h1, l1;
  if (HILO) { h0 = __umulhi(M0, c0); l0 = M0 * c0; h1 = __umulhi(M1, c2); l1 = M1 * c2; }
  else { const u64 p0 = (u64)M0 * c0, p1 = (u64)M1 * c2; h0 = p0 >> 32; l0 = (u32)p0; h1 = p1 >> 32; l1 = (u32)p1; }
  c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0;
}
template <bool HILO> __device__ __forceinline__ void block(keys k, u64 ctr, u32 (&o)[4]) {
  u32 c0 = (u32)ctr, c1 = (u32)(ctr >> 32), c2 = 0, c3 = 0;
#pragma unroll
  for (int r = 0; r < 10; ++r) round4<HILO>(c0, c1, c2, c3, k.k0 + r * W0, k.k1 + r * W1);
  o[0] = c0; o[1] = c1; o[2] = c2; o[3] = c3;
}
// jetfuse's conversion: top 24 bits / 2^24 without an integer-to-float instruction.
__device__ __forceinline__ float to_f32(u32 x) {
  const float v = __uint_as_float(0x3F000000u | ((x >> 8) & 0x7FFFFFu));
  return (x >> 31) ? v : v - 0.5f;
}

// V: 0 pair, 1 shfl, 2 single, 3 none, 4 hilo, 5 split
template <int V> __global__ void __launch_bounds__(256) fill(keys k, float* out, u64 n) {
  const u32 lane = threadIdx.x & 31;
  const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
  const int per = V == 2 ? 4 : 8;
  const u64 chunks = n / (32 * per);
  for (u64 c = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
    const u64 first = c * 32 * per;
    if (V == 2) {
      u32 w[4];
      block<false>(k, first / 4 + lane, w);
      reinterpret_cast<float4*>(out + first)[lane] = make_float4(to_f32(w[0]), to_f32(w[1]), to_f32(w[2]), to_f32(w[3]));
      continue;
    }
    if (V == 5) {
      u32 a[4], b[4];
      block<false>(k, first / 4 + lane, a);
      block<false>(k, first / 4 + 32 + lane, b);
      reinterpret_cast<float4*>(out + first)[lane] = make_float4(to_f32(a[0]), to_f32(a[1]), to_f32(a[2]), to_f32(a[3]));
      reinterpret_cast<float4*>(out + first + 128)[lane] = make_float4(to_f32(b[0]), to_f32(b[1]), to_f32(b[2]), to_f32(b[3]));
      continue;
    }
    u32 a[4], b[4];
    block<V == 4>(k, 2 * (first / 8 + lane), a);
    block<V == 4>(k, 2 * (first / 8 + lane) + 1, b);
    float f[8] = {to_f32(a[0]), to_f32(a[1]), to_f32(a[2]), to_f32(a[3]), to_f32(b[0]), to_f32(b[1]), to_f32(b[2]), to_f32(b[3])};
    if (V == 3) {
      if (f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] == -1.0f) out[first] = f[0];
      continue;
    }
    if (V == 1) {
      // Store s (0, 1) covers the chunk's values 128 s + 4 lane ..: held by lane 16 s + lane / 2, half lane % 2.
      for (int s = 0; s < 2; ++s) {
        const int src = 16 * s + (lane >> 1);
        float g[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float lo = __shfl_sync(0xffffffffu, f[j], src), hi = __shfl_sync(0xffffffffu, f[4 + j], src);
          g[j] = (lane & 1) ? hi : lo;
        }
        reinterpret_cast<float4*>(out + first + 128 * s)[lane] = make_float4(g[0], g[1], g[2], g[3]);
      }
      continue;
    }
    reinterpret_cast<float4*>(out + first + 8 * lane)[0] = make_float4(f[0], f[1], f[2], f[3]);
    reinterpret_cast<float4*>(out + first + 8 * lane)[1] = make_float4(f[4], f[5], f[6], f[7]);
  }
}

int main() {
  const u64 n = 1ull << 28;
  float *out;
  CK(cudaMalloc(&out, n * 4));
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto f) { f(); cudaDeviceSynchronize(); float best = 1e9; for (int i = 0; i < 10; ++i) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; } return best * 1000; };
  const float tset = time([&] { cudaMemsetAsync(out, 1, n * 4); });
  printf("memset 1 GiB: %.1f us = %.2f TB/s\n", tset, n * 4 / tset * 1e-6);
  const keys k{12345u, 7u};
  const char* names[] = {"pair", "shfl", "single", "none", "hilo", "split"};
  std::vector<float> ref(n), got(n);
  for (int grid_mul : {4, 8, 16, 32, 64}) {
    for (int v = 0; v < 6; ++v) {
      const unsigned grid = sms * grid_mul;
      auto run = [&] {
        switch (v) {
          case 0: fill<0><<<grid, 256>>>(k, out, n); break;
          case 1: fill<1><<<grid, 256>>>(k, out, n); break;
          case 2: fill<2><<<grid, 256>>>(k, out, n); break;
          case 3: fill<3><<<grid, 256>>>(k, out, n); break;
          case 5: fill<5><<<grid, 256>>>(k, out, n); break;
          default: fill<4><<<grid, 256>>>(k, out, n); break;
        }
      };
      CK(cudaMemset(out, 0, n * 4));
      const float t = time(run);
      CK(cudaGetLastError());
      int same = -1;
      if (v == 0) CK(cudaMemcpy(ref.data(), out, n * 4, cudaMemcpyDeviceToHost));
      if (v == 1 || v == 4) {
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        same = std::memcmp(ref.data(), got.data(), n * 4) == 0;
      }
      printf("grid %3d x SMs  %-6s %7.1f us  %5.1f%% of memset  same-as-pair=%d\n", grid_mul, names[v], t, 100 * tset / t, same);
    }
  }
  return 0;
}
