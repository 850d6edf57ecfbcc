// The hand-written CUDA kernel of bench_dielectron (bench_dielectron_handwritten.cu, compiled by
// nvcc when the CUDA backend is built): the heaviest electron pair per event, one thread per event.
#pragma once

#include <cstdint>

// On device buffers: event e holds electrons offsets[e]:offsets[e + 1]; out[e] is the max over its
// pairs i < j (opposite_charge: only pairs with charge[i] != charge[j]) of
// sqrtf(2*pt_i*pt_j*(coshf(eta_i - eta_j) - cosf(phi_i - phi_j))) in float32 IEEE math, -inf when
// it has none, and valid[e] = 1 when it has one, else 0. Launched on `stream` (a CUstream); returns
// the launch's cudaError_t (0: success).
int dielectron_handwritten_thread_per_event(const std::int64_t* offsets, std::int64_t events, const float* pt,
                                            const float* eta, const float* phi, const std::int32_t* charge,
                                            bool opposite_charge, float* out, std::uint8_t* valid, void* stream);

// The same result, hybrid (jagged-anchors.md §7.1-7.2): the thread-per-event kernel takes the
// events of at most `threshold` electrons and appends the others to `queue` (int32 event ids,
// room for every event; `count` one int32, zeroed here), then a warp per queued event (a fixed
// grid of `blocks` blocks that reads the count on the device: no host synchronisation) strides
// over its pairs and reduces with shuffles. Returns the first failing cudaError_t (0: success).
int dielectron_handwritten_hybrid(const std::int64_t* offsets, std::int64_t events, const float* pt, const float* eta,
                                  const float* phi, const std::int32_t* charge, bool opposite_charge, float* out,
                                  std::uint8_t* valid, std::int32_t* queue, std::int32_t* count, int threshold,
                                  int blocks, void* stream);
