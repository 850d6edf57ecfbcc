// Experiment: the 2000^2 float32 diffusion step written
// with slices, u(1:-1,1:-1) + k * (u(2:,1:-1) + u(:-2,1:-1) + u(1:-1,2:) + u(1:-1,:-2) - 4 u(1:-1,1:-1)),
// into the interior of a second field. On an H200 (2026-11-28) jetfuse's flat strided map took
// 13.5 us (a grid-stride loop over 4 waves of blocks; a division and five offsets per element),
// the hand-written kernel of bench_elementwise 12.3 us (a 2-d grid, a thread per element), and a
// jetfuse kernel walking whole rows (blockIdx.y the rows, no division) 23.2 us with 4 waves of
// blocks and 27.6 us with the hand-written kernel's grid: slower, unexplained. Variants, each the
// generated kernel's shape written by hand (five operand pointers and their int strides, as jetfuse
// passes the five views; int indices):
//   hand      bench_elementwise's kernel: one pointer, a 2-d grid, a thread per element
//   flat4     jetfuse's flat map: i -> (i / 1998, i % 1998), five offsets, 4 waves, grid-stride
//   flatfull  the same over a block per 256 elements
//   rows4     rows of the last axis: grid (8, 528), each block walks rows y, y + 528, ...
//   rowsfull  grid (8, 1998): a thread per element, as hand but with five operands
//   shared4   flat4 with one offset for the six views (they share their strides), six pointers
//   fastdiv4  flat4 with the division as a multiply-high and shift (magic numbers from the host)
//   both4     both; bothfull both over a block per 256 elements
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -fmad=false strided_map_variants.cu -o /tmp/smv && /tmp/smv
// Measured (H200, 2026-11-28, device call G; every variant equal to hand's result): copy of 1998^2
// float32 8.96 us; hand 12.59 us (71.2 % of the copy), flat4 13.58 (66.0 %), flatfull 17.08,
// rows4 18.29, rowsfull 21.00. The row walks are slower here too (five operand pointers, each row
// a separate short run per block), so the reverted row-walking launch was not a codegen accident;
// flat4 reproduces jetfuse's 13.5 us, and the remaining 1 us to hand is its five views (five
// pointers and strides, a division per element) against hand's one pointer and fixed offsets.
// Measured (H200, 2026-11-29, session call 1, two runs): hand 12.31 / 12.40 us, flat4 13.34 / 13.75,
// shared4 11.98 / 12.13, fastdiv4 12.01 / 12.07, both4 10.76 / 10.87, bothfull 12.45 / 12.70:
// one offset for the views of one stride class and the division as a multiply-high each save
// about 1.3 us, together 2.6 us (below the hand-written kernel). The generator does both since.
#include <cstdio>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

struct views {
  const float* in[5];  // u(mid, mid), u(hi, mid), u(lo, mid), u(mid, hi), u(mid, lo)
  int st0[5], st1[5];  // strides in elements
  float* out;          // un(mid, mid)
  int ost0, ost1;
  int rows, cols;      // 1998 x 1998
  float k;
};

__device__ __forceinline__ float stencil(float c, float n, float s, float e, float w, float k) {
  return c + k * (n + s + e + w - 4.0f * c);
}

__global__ void hand(const float* __restrict__ u, float* __restrict__ un, long long n, float k) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x + 1, r = blockIdx.y + 1;
  if (c >= n - 1) return;
  const long long i = r * n + c;
  un[i] = u[i] + k * (u[i + n] + u[i - n] + u[i + 1] + u[i - 1] - 4.0f * u[i]);
}

__global__ void flat(const views v) {
  const int n = v.rows * v.cols;
  const int start = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
  for (int i = start; i < n; i = (n - i > step) ? i + step : n) {
    const int c1 = i % v.cols, c0 = i / v.cols;
    float x[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) x[q] = v.in[q][c0 * v.st0[q] + c1 * v.st1[q]];
    v.out[c0 * v.ost0 + c1 * v.ost1] = stencil(x[0], x[1], x[2], x[3], x[4], v.k);
  }
}

// One offset for the six views (the same strides), five pointers.
__global__ void flat_shared(const views v) {
  const int n = v.rows * v.cols;
  const int start = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
  for (int i = start; i < n; i = (n - i > step) ? i + step : n) {
    const int c1 = i % v.cols, c0 = i / v.cols;
    const int o = c0 * v.st0[0] + c1 * v.st1[0];
    float x[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) x[q] = v.in[q][o];
    v.out[o] = stencil(x[0], x[1], x[2], x[3], x[4], v.k);
  }
}

// Division by the row length as a multiply-high and shift (magic numbers computed on the host;
// numerators < 2^31): q = (umulhi(i, m) + i) >> l.
struct fastdiv {
  unsigned m, l;
};
__device__ __forceinline__ int divide(int i, fastdiv d) {
  return (int)((__umulhi((unsigned)i, d.m) + (unsigned)i) >> d.l);
}
__global__ void flat_fastdiv(const views v, const fastdiv cols) {
  const int n = v.rows * v.cols;
  const int start = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
  for (int i = start; i < n; i = (n - i > step) ? i + step : n) {
    const int c0 = divide(i, cols), c1 = i - c0 * v.cols;
    float x[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) x[q] = v.in[q][c0 * v.st0[q] + c1 * v.st1[q]];
    v.out[c0 * v.ost0 + c1 * v.ost1] = stencil(x[0], x[1], x[2], x[3], x[4], v.k);
  }
}
__global__ void flat_both(const views v, const fastdiv cols) {
  const int n = v.rows * v.cols;
  const int start = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
  for (int i = start; i < n; i = (n - i > step) ? i + step : n) {
    const int c0 = divide(i, cols), c1 = i - c0 * v.cols;
    const int o = c0 * v.st0[0] + c1 * v.st1[0];
    float x[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) x[q] = v.in[q][o];
    v.out[o] = stencil(x[0], x[1], x[2], x[3], x[4], v.k);
  }
}

__global__ void rows(const views v) {
  const int start = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
  for (int r = blockIdx.y; r < v.rows; r += gridDim.y) {
    int b[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) b[q] = r * v.st0[q];
    const int ob = r * v.ost0;
    for (int c = start; c < v.cols; c += step) {
      float x[5];
#pragma unroll
      for (int q = 0; q < 5; ++q) x[q] = v.in[q][b[q] + c * v.st1[q]];
      v.out[ob + c * v.ost1] = stencil(x[0], x[1], x[2], x[3], x[4], v.k);
    }
  }
}

int main() {
  const int N = 2000, R = N - 2;
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int waves4 = sms * 8 * 4;
  float *u, *un, *ref;
  CK(cudaMalloc(&u, sizeof(float) * N * N));
  CK(cudaMalloc(&un, sizeof(float) * N * N));
  CK(cudaMalloc(&ref, sizeof(float) * N * N));
  std::vector<float> h(N * N);
  for (int i = 0; i < N * N; ++i) h[i] = (i * 2654435761u % 1000) / 1000.0f;
  CK(cudaMemcpy(u, h.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
  views v{};
  const float* base = u + N + 1;  // u(1, 1)
  const float* at[5] = {base, base + N, base - N, base + 1, base - 1};
  for (int q = 0; q < 5; ++q) {
    v.in[q] = at[q];
    v.st0[q] = N;
    v.st1[q] = 1;
  }
  v.out = un + N + 1;
  v.ost0 = N;
  v.ost1 = 1;
  v.rows = R;
  v.cols = R;
  v.k = 0.1f;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](auto f) {  // mean of 5 batches of 20 back-to-back calls
    f();
    cudaDeviceSynchronize();
    float total = 0;
    for (int b = 0; b < 5; ++b) {
      cudaEventRecord(e0);
      for (int r = 0; r < 20; ++r) f();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      total += ms;
    }
    return total * 1000 / 100;
  };
  const float tcopy = time([&] { cudaMemcpyAsync(ref, u, sizeof(float) * R * R, cudaMemcpyDeviceToDevice); });
  printf("copy of 1998^2 float32: %.2f us\n", tcopy);
  std::vector<float> want(N * N), got(N * N);
  auto row = [&](const char* name, float t, bool first) {
    CK(cudaGetLastError());
    CK(cudaMemcpy((first ? want : got).data(), un, sizeof(float) * N * N, cudaMemcpyDeviceToHost));
    const bool same = first || want == got;
    printf("  %-9s %7.2f us  %5.1f %% of the copy  %s\n", name, t, 100 * tcopy / t, same ? "same" : "DIFFERENT");
    return 0;
  };
  const dim3 g2((R + 255) / 256, R);
  row("hand", time([&] { hand<<<g2, 256>>>(u, un, N, 0.1f); }), true);
  const int flat_blocks = (R * R + 255) / 256;
  row("flat4", time([&] { flat<<<flat_blocks < waves4 ? flat_blocks : waves4, 256>>>(v); }), false);
  row("flatfull", time([&] { flat<<<flat_blocks, 256>>>(v); }), false);
  fastdiv fd{0, 0};
  {
    unsigned l = 0;
    while ((1ull << l) < (unsigned long long)R) ++l;
    fd.l = l;
    fd.m = (unsigned)(((1ull << 32) * ((1ull << l) - R)) / R + 1);
  }
  const int fb = flat_blocks < waves4 ? flat_blocks : waves4;
  row("shared4", time([&] { flat_shared<<<fb, 256>>>(v); }), false);
  row("fastdiv4", time([&] { flat_fastdiv<<<fb, 256>>>(v, fd); }), false);
  row("both4", time([&] { flat_both<<<fb, 256>>>(v, fd); }), false);
  row("bothfull", time([&] { flat_both<<<flat_blocks, 256>>>(v, fd); }), false);
  const int x = (R + 255) / 256;
  row("rows4", time([&] { rows<<<dim3(x, waves4 / x), 256>>>(v); }), false);
  row("rowsfull", time([&] { rows<<<dim3(x, R), 256>>>(v); }), false);
  return 0;
}
