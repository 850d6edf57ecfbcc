// A small hand-written CUDA kernel (out[i] = i * scale + offset) and its argument struct, shared
// by the runtime and module-cache tests that compile, cache and launch a kernel directly.
#pragma once

namespace jf_test {

inline const char* const fill_source_body = R"(
struct fill_args { float* out; float scale; float offset; long long n; };
extern "C" __global__ void jf_test_fill(const fill_args a) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (long long)gridDim.x * blockDim.x)
    a.out[i] = (float)i * a.scale + a.offset;
}
)";
// The host view of the kernel's by-value argument.
struct fill_args {
  float* out;
  float scale;
  float offset;
  long long n;
};

}  // namespace jf_test
