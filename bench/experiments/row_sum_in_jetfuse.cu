// Experiment: bench_reductions' RowSums 32768x4096 takes 129 us where the same kernel written out
// (row_sum_variants.cu's jetfuse_w4) takes 123 batched and CuPy's CUB kernel 121 (H200,
// 2026-11-29/30). Here jetfuse's own jf::sum(x, 1) runs on the same matrix, on jetfuse's stream,
// next to the written-out kernels and CUB, all timed by CUDA events in batches of 20 (and jf::sum
// also by the host clock in batches of 10, as bench/timed_batches.hpp times): does the gap come
// from the generated kernel, its launch (graph launch, scratch memset), or the harness? And the
// generated source itself compiled by NVRTC here with jetfuse's options, as is and changed, next
// to the written-out kernel compiled by NVRTC with the same options (nvcc against NVRTC):
//   gen            jf::explain_cuda's source, as jetfuse compiles it
//   gen_unroll1    with "#pragma unroll 1" on the 8-loads-a-trip loop (NVVM unrolls it 4 times)
//   gen_ldg        with every in0[...] read through jf_nest::ld (__ldg)
//   written_nvrtc  row_sum_variants.cu's jetfuse_rows compiled by NVRTC
// Build (from the repository root, after `cmake --build build/cuda`):
//   g++ -std=c++20 -O2 -Iinclude -Isrc -c bench/experiments/row_sum_in_jetfuse_host.cpp -o /tmp/rsj_host.o
//   nvcc -O3 -arch=sm_90 -std=c++20 bench/experiments/row_sum_in_jetfuse.cu /tmp/rsj_host.o \
//     build/cuda/libjetfuse.a -lnvrtc -lcuda -ldl -o /tmp/rsj && /tmp/rsj [cubin directory or "" [ROWSxCOLS,...]]
//
// Results (H200, 2026-11-30, us per call; 32768 x 4096 / 4096 x 32768, copy 255.5):
//   before (50261c8): jf::sum 128.4 (events) / 128.9 (host clock) and 123.6 / 124.9; written out:
//   jetfuse_w4 123.7 / 123.6, jetfuse_all 120.8 / 123.6, vec4_all 121.0 / 121.2; the generated source
//   through NVRTC: gen w4 129.1, gen all 130.8 (and 123.8 / 123.9); gen_unroll1 w4 123.5, all 120.7;
//   gen_ldg w4 123.1, all 120.6; written_nvrtc w4 123.5; cub_segmented 120.7 / 124.2.
//   SASS: gen 536 instructions with 57 loads (NVVM unrolled the 8-loads trip loop 4 times: a row of 4096
//   floats is 2 trips, run by the remainder code, 8-load blocks behind branches), gen_unroll1 296 and
//   9 loads, gen_ldg 264 and 9 (NVVM does not unroll around __ldg). Nsight Compute: 131.7 us and 85 %
//   of DRAM for gen against 122.7 and 91 % for the same kernel compiled by nvcc.
//   after (the trip loop "#pragma unroll 1", a block for every row): jf::sum 120.3 / 121.0 and
//   123.2 / 123.8 (cub_segmented 120.5 / 123.5): at CUB's time.
// Also 8 x 2^24 (few long rows) with and without the rows split over blockIdx.y. Thirteenth session
// (H200, at b3dd5ae, splits still off by default): a block a row 4219.5 us (3.1 % of the copy),
// split 8 x 264 134.2 us (96.2 %), CUB's segmented reduce 3576.7; 32768 x 4096 118.4 / 118.5 and
// 4096 x 32768 120.8 / 120.8 (no split there, the same kernel), cub_segmented 118.9 / 121.6. The
// splits are on by default since. For few rows the generated kernel also runs with about 1, 2 and
// 4 waves of split blocks ("gen NVRTC S splits"): does one wave beat the rule's two, as it did for
// the column sums (column_sum_in_jetfuse.cu)? And 1100 rows of 2^17 (just past a wave of blocks on
// an H200: a block a row leaves a second round of 44 blocks) split 1, 2, 4, 8, 16 ways: should
// the launch rule split rows past a wave too? Fourteenth session (H200, at 61611ed, two calls):
// 8 x 2^24 in 132 / 264 / 528 splits (1 / 2 / 4 waves) 132.4 / 136.3 / 149.3 us and 133.7 / 136.9 /
// 149.8; 1100 x 2^17 in 1 / 2 / 4 / 8 / 16 splits 157.0 / 145.3 / 138.8 / 137.9 / 138.6 and 155.9 /
// 144.1 / 137.8 / 137.1 / 138.9 (CUB 136.2 and 154.0); 4096 x 2^15 in 1 / 2 / 4 / 8 splits 123.5 /
// 129.6 / 133.7 / 141.9. So the rule (shape_row_reduction.cpp) now splits fewer rows than a wave
// into one wave and rows just past whole waves into about 4 waves: jf::sum 132.8 us for 8 x 2^24
// and 138.1 for 1100 x 2^17 (155.2 whole). Run with "" 8x16777216,1100x131072 to time only those.
#include <cuda.h>
#include <nvrtc.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#define ROW_SUM_VARIANTS_KERNELS_ONLY
#include "row_sum_variants.cu"

float* jf_make_matrix(long long rows, long long cols, unsigned seed);
void jf_row_sum();
const float* jf_row_sum_result();
void* jf_stream();
void jf_sync();
void jf_set_row_splits(bool on);
std::string jf_row_sum_source();

// NVRTC with jetfuse's options (src/cuda/nvrtc.cpp) to a cubin; written to dir/name.cubin when dir is given.
std::string nvrtc_cubin(const std::string& src, const char* name, const char* dir) {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90", "-std=c++17", "-DJF_NVRTC=1", "--fmad=false"};
  if (nvrtcCompileProgram(p, 4, opts) != NVRTC_SUCCESS) {
    size_t n;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, 0);
    nvrtcGetProgramLog(p, log.data());
    printf("NVRTC failed for %s:\n%s\n", name, log.c_str());
    return {};
  }
  size_t n;
  nvrtcGetCUBINSize(p, &n);
  std::string cubin(n, 0);
  nvrtcGetCUBIN(p, cubin.data());
  nvrtcDestroyProgram(&p);
  if (dir) std::ofstream(std::string(dir) + "/" + name + ".cubin", std::ios::binary) << cubin;
  return cubin;
}
CUfunction load_kernel(const std::string& cubin, const std::string& kernel) {
  CUmodule m;
  CUfunction f = nullptr;
  if (cubin.empty() || cuModuleLoadData(&m, cubin.data()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&f, m, kernel.c_str()) != CUDA_SUCCESS)
    printf("could not load %s\n", kernel.c_str());
  return f;
}

// Events on jetfuse's stream: microseconds per call, median of 7 batches of `per`.
template <class F>
float stream_us(cudaStream_t s, F f, int per = 20) {
  return batch_us_on(s, f, 7, per);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const char* cubin_dir = argc > 1 && argv[1][0] != '\0' ? argv[1] : nullptr;
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  // The shapes: argv[2] "ROWSxCOLS,..." when given, else these four.
  std::vector<std::pair<i64, i64>> shapes = {{32768, 4096}, {4096, 32768}, {8, i64(1) << 24}, {1100, 131072}};
  if (argc > 2) {
    shapes.clear();
    for (const char* p = argv[2]; *p;) {
      char* end = nullptr;
      const i64 rows = std::strtoll(p, &end, 10);
      const i64 cols = std::strtoll(end + 1, &end, 10);
      shapes.push_back({rows, cols});
      p = *end == ',' ? end + 1 : end;
    }
  }
  for (auto [rows, cols] : shapes) {
    const i64 n = rows * cols;
    float* x = jf_make_matrix(rows, cols, 4);
    const auto s = static_cast<cudaStream_t>(jf_stream());
    float *y, *z;
    CK(cudaMalloc(&y, rows * 4));
    CK(cudaMalloc(&z, n * 4));
    printf("%lld x %lld (x at %p)\n", rows, cols, (void*)x);
    const float copy = stream_us(s, [&] { cudaMemcpyAsync(z, x, n * 4, cudaMemcpyDeviceToDevice, s); });
    const double roof = 2.0 * n * 4 / copy;
    auto report = [&](const char* name, float us) {
      printf("  %-26s %8.1f us  %5.1f %% of copy\n", name, us, 100.0 * (n * 4.0 / us) / roof);
    };
    printf("  copy %.1f us\n", copy);
    jf_set_row_splits(false);  // a block a row
    report("jf::sum(x, 1) events", stream_us(s, jf_row_sum));
    jf_set_row_splits(true);  // the default: few long rows split over blockIdx.y (8 x 2^24: 132 splits on an H200)
    report("jf::sum(x, 1) rows split", stream_us(s, jf_row_sum));
    {
      std::vector<float> split(rows), whole(rows);
      CK(cudaMemcpy(split.data(), jf_row_sum_result(), rows * 4, cudaMemcpyDeviceToHost));
      jf_set_row_splits(false);
      jf_row_sum();
      jf_sync();
      CK(cudaMemcpy(whole.data(), jf_row_sum_result(), rows * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (i64 r = 0; r < rows; ++r) worst = std::max(worst, (double)std::abs(split[r] - whole[r]));
      printf("  largest |split - whole row| over the rows: %.2e\n", worst);
      jf_set_row_splits(true);
    }
    {  // the bench's way: host clock, batches of 10, median of 10
      std::vector<double> t;
      jf_row_sum();
      jf_sync();
      for (int k = 0; k < 10; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 10; ++i) jf_row_sum();
        jf_sync();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 10 * 1e6);
      }
      std::sort(t.begin(), t.end());
      report("jf::sum(x, 1) host clock", (float)t[5]);
    }
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jetfuse_rows, 256, 0);
    const i64 grid_w4 = std::min<i64>(rows, (i64)sms * per_sm * 4);
    report("jetfuse_w4 written out",
           stream_us(s, [&] { jetfuse_rows<<<(unsigned)grid_w4, 256, 0, s>>>(y, x, rows, cols, (int)cols, 1); }));
    report("jetfuse_all written out",
           stream_us(s, [&] { jetfuse_rows<<<(unsigned)rows, 256, 0, s>>>(y, x, rows, cols, (int)cols, 1); }));
    report("vec4_all",
           stream_us(s, [&] { vec4_rows<<<(unsigned)rows, 256, 0, s>>>(y, (const float4*)x, rows, cols / 4); }));
    {  // the generated source through NVRTC here, as is and changed
      const std::string gen = jf_row_sum_source();
      std::smatch m;
      std::regex_search(gen, m, std::regex("__global__ void (jf_[0-9a-f]+_reduce)"));
      const std::string name = m[1];
      const std::string trip = "    for (; j < n_len - 7 * lanes; j += 8 * lanes) {";
      std::string unroll1 = gen,
                  ldg = std::regex_replace(gen, std::regex("\\bin0\\[([^\\]]*)\\]"), "jf_nest::ld(in0 + $1)");
      if (unroll1.find(trip) != std::string::npos) unroll1.replace(unroll1.find(trip), 0, "#pragma unroll 1\n");
      struct {
        float* out0;
        const float* in0;
        long long extents[2], st_out0[2], st_in0[2];
        void* scratch;
        void* err;
      } args{y, x, {rows, cols}, {1, 0}, {cols, 1}, nullptr, nullptr};
      void* params[] = {&args};
      for (auto [label, src] :
           {std::pair<const char*, const std::string*>{"gen", &gen}, {"gen_unroll1", &unroll1}, {"gen_ldg", &ldg}}) {
        CUfunction f = load_kernel(nvrtc_cubin(*src, label, cubin_dir), name);
        if (!f) continue;
        for (auto [grid_label, grid] : {std::pair<const char*, i64>{"w4", grid_w4}, {"all", rows}}) {
          const std::string row = std::string(label) + " NVRTC " + grid_label;
          report(row.c_str(),
                 stream_us(s, [&] { cuLaunchKernel(f, (unsigned)grid, 1, 1, 256, 1, 1, 0, s, params, nullptr); }));
        }
        // The as-is kernel with its rows split over blockIdx.y: for few rows into about 1 (the rule), 2 (the
        // rule until 61611ed) and 4 waves of blocks; for rows just past a wave (1100 on an H200, where a
        // block a row leaves a second round of 44 blocks) into 1, 2, 4, 8 and 16 splits. Scratch as
        // the launcher lays it out (a counter per row, 16-byte aligned, then rows x splits
        // partials), zeroed once (the kernel resets it).
        if (label == std::string("gen") && rows < 4 * (i64)sms * per_sm) {
          std::vector<i64> counts;
          if (rows < (i64)sms * per_sm)
            for (int waves : {1, 2, 4}) counts.push_back(((i64)waves * sms * per_sm + rows - 1) / rows);
          else
            counts = {1, 2, 4, 8, 16};
          for (i64 splits : counts) {
            splits = std::max<i64>(1, std::min<i64>(splits, cols / 4096));
            const size_t bytes = (rows * 4 + 15) / 16 * 16 + (size_t)rows * splits * 4;
            void* scratch = nullptr;
            CK(cudaMalloc(&scratch, bytes));
            CK(cudaMemset(scratch, 0, bytes));
            args.scratch = scratch;
            const std::string row = "gen NVRTC " + std::to_string(splits) + " splits";
            report(row.c_str(), stream_us(s, [&] {
                     cuLaunchKernel(f, (unsigned)rows, (unsigned)splits, 1, 256, 1, 1, 0, s, params, nullptr);
                   }));
            CK(cudaDeviceSynchronize());
            args.scratch = nullptr;
            cudaFree(scratch);
          }
        }
      }
      std::ifstream k("bench/experiments/row_sum_variants.cu");
      std::string text((std::istreambuf_iterator<char>(k)), std::istreambuf_iterator<char>());
      const auto b = text.find("// jetfuse's generated row reduction"), e = text.find("// The same with float4 loads");
      if (b != std::string::npos && e != std::string::npos) {
        std::string w = "typedef long long i64;\n" + text.substr(b, e - b);
        w.replace(w.find("__global__ void jetfuse_rows"), 0, "extern \"C\" ");
        if (CUfunction f = load_kernel(nvrtc_cubin(w, "written_nvrtc", cubin_dir), "jetfuse_rows")) {
          i64 r_ = rows, c_ = cols;
          int st0 = (int)cols, st1 = 1;
          void* p[] = {&y, &x, &r_, &c_, &st0, &st1};
          report("written_nvrtc w4",
                 stream_us(s, [&] { cuLaunchKernel(f, (unsigned)grid_w4, 1, 1, 256, 1, 1, 0, s, p, nullptr); }));
        }
      }
    }
    auto starts = thrust::make_transform_iterator(thrust::counting_iterator<i64>(0), row_start{cols});
    size_t temp_bytes = 0;
    cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, x, y, (int)rows, starts, starts + 1, s);
    void* temp = nullptr;
    CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    report("cub_segmented", stream_us(s, [&] {
             cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, x, y, (int)rows, starts, starts + 1, s);
           }));
    // jetfuse's result against CUB's (both a fixed tree order over the row; not the same tree).
    std::vector<float> a(rows), b(rows);
    jf_row_sum();
    jf_sync();
    CK(cudaMemcpy(a.data(), jf_row_sum_result(), rows * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), y, rows * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (i64 r = 0; r < rows; ++r) worst = std::max(worst, (double)std::abs(a[r] - b[r]));
    printf("  largest |jetfuse - cub| over the rows: %.2e\n", worst);
    CK(cudaGetLastError());
    cudaFree(temp);
    cudaFree(y);
    cudaFree(z);
  }
  return 0;
}
