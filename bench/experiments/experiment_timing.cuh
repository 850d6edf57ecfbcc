// What the standalone experiments here share: a CUDA error check that ends main, and the time per
// launch timed as bench/timed_batches.hpp times (batches of back-to-back launches, one
// synchronisation each, the median batch). Header-only: each experiment still builds with one nvcc
// command from this directory.
#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x)                                                  \
  do {                                                         \
    cudaError_t e = (x);                                       \
    if (e != cudaSuccess) {                                    \
      printf("%s line %d\n", cudaGetErrorString(e), __LINE__); \
      return 1;                                                \
    }                                                          \
  } while (0)

// Microseconds per call of f (which enqueues one call's work on stream s): the median of `batches`
// batches of `per` calls, events recorded on s, after one untimed call. per = 1 times single launches.
template <class F>
float batch_us_on(cudaStream_t s, F f, int batches = 7, int per = 20) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaStreamSynchronize(s);
  std::vector<float> t;
  for (int k = 0; k < batches; ++k) {
    cudaEventRecord(a, s);
    for (int i = 0; i < per; ++i) f();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000 / static_cast<float>(per));
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
// The same on the legacy default stream.
template <class F>
float batch_us(F f, int batches = 7, int per = 20) {
  return batch_us_on(0, f, batches, per);
}
