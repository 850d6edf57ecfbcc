// Times jetfuse's generated per-list sum and max kernels against edited variants (make_variants.py)
// on 10M float32 lists of Poisson(2) lengths with int64 offsets (bench_jagged's data: the same
// generator and seed), each checked against a host loop, and a device copy of the same bytes.
// Question: where do the generated sum's 73 us go, when the lock step alone, written by hand
// (../list_sum_variants.cu), takes 57 us? (Ready for the next device call; not yet run: the session
// that wrote it had no device time left. Compiled here with nvcc; registers per ptxas: sum gen /
// noheavy / nolong 48 / 32 / 32, max 40 / 40 / 48.)
// Build and run (after dump_list_kernels and make_variants.py have written /tmp/lkv/variants.cuh):
//   nvcc -O3 -arch=sm_90 -std=c++20 -DJF_NVRTC=1 -fmad=false -I /tmp/lkv harness.cu -o /tmp/lkv/harness && /tmp/lkv/harness
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "variants.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

int main() {
  const long long nl = 10000000;
  std::mt19937_64 rng(1);
  std::poisson_distribution<int> len(2.0);
  std::vector<long long> off(nl + 1, 0);
  for (long long i = 0; i < nl; ++i) off[i + 1] = off[i] + len(rng);
  const long long ne = off[nl];
  std::vector<float> c(ne), sum(nl), mx(nl);
  std::uniform_real_distribution<float> u(0, 100);
  for (auto& x : c) x = u(rng);
  for (long long i = 0; i < nl; ++i) {
    float s = 0, m = -INFINITY;
    for (long long j = off[i]; j < off[i + 1]; ++j) { s += c[j]; m = std::max(m, c[j]); }
    sum[i] = s;
    mx[i] = m;
  }
  long long* d_off; float *d_c, *d_out; char *d_a, *d_b;
  const double bytes = 8.0 * (nl + 1) + 4.0 * ne + 4.0 * nl;
  CK(cudaMalloc(&d_off, 8 * (nl + 1))); CK(cudaMalloc(&d_c, 4 * ne)); CK(cudaMalloc(&d_out, 4 * nl));
  CK(cudaMalloc(&d_a, (size_t)bytes / 2)); CK(cudaMalloc(&d_b, (size_t)bytes / 2));
  CK(cudaMemcpy(d_off, off.data(), 8 * (nl + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_c, c.data(), 4 * ne, cudaMemcpyHostToDevice));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto best_of = [&](auto launch) {
    float best = 1e30f;
    for (int r = 0; r < 7; ++r) {
      cudaEventRecord(e0);
      for (int k = 0; k < 20; ++k) launch();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms / 20);
    }
    return best * 1e3f;
  };
  const float tc = best_of([&] { cudaMemcpyAsync(d_b, d_a, (size_t)bytes / 2, cudaMemcpyDeviceToDevice); });
  printf("copy of the same bytes: %.1f us (%.0f GB/s)\n", tc, bytes / tc * 1e-3);
  auto run = [&]<class Args>(const char* name, void (*kernel)(Args), const std::vector<float>& ref) {
    Args a{};  // (every variant's arguments have the same layout: out0, in0 content, in1 offsets)
    a.out0 = d_out; a.in0 = d_c; a.in1 = d_off;
    a.extents[0] = nl; a.extents[1] = ne;
    a.st_out0[0] = 1; a.st_in0[1] = 1; a.st_in1[0] = 1;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, 0);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, kernel);
    const long long tiles = (nl + 1023) / 1024, grid = std::min<long long>(tiles, 4LL * per_sm * sms);
    auto launch = [&] { kernel<<<(unsigned)grid, 256>>>(a); };
    cudaMemset(d_out, 0xFF, 4 * nl);
    launch();
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("%s: launch failed\n", name); return; }
    std::vector<float> h(nl);
    cudaMemcpy(h.data(), d_out, 4 * nl, cudaMemcpyDeviceToHost);
    long long bad = 0;
    for (long long i = 0; i < nl; ++i) bad += h[i] != ref[i];
    const float t = best_of(launch);
    printf("%-16s %7.1f us  %5.1f %% of copy  %3d registers  %d blocks/SM  grid %lld  %s\n", name, t, 100.0 * tc / t,
           attr.numRegs, per_sm, grid, bad ? "MISMATCH" : "same");
  };
  run("listsum_gen", listsum_gen, sum);
  run("listsum_noheavy", listsum_noheavy, sum);
  run("listsum_nolong", listsum_nolong, sum);
  run("listmax_gen", listmax_gen, mx);
  run("listmax_noheavy", listmax_noheavy, mx);
  run("listmax_nolong", listmax_nolong, mx);
  return 0;
}
