// The hand-written kernels bench_dielectron measures jetfuse against (shared/research/
// jagged-anchors.md §7.1 and §10): thread per event — nested i < j loops over an event's
// electrons, the row's fields held in registers, float32 IEEE math (no fast math), the max from
// -inf with fmaxf, valid = at least one pair seen — and the hybrid that sends events of more than
// `threshold` electrons to a device-side queue worked by a warp per event.
#include <cmath>
#include <cstdint>

#include "dielectron_handwritten.hpp"

namespace {

constexpr float minus_infinity = -INFINITY;  // the identity of max

// numpy's order of evaluation: ((2 * pt1) * pt2) * (cosh(deta) - cos(dphi)).
__device__ __forceinline__ float pair_mass(float pt1, float eta1, float phi1, float pt2, float eta2, float phi2) {
  return sqrtf(2.f * pt1 * pt2 * (coshf(eta1 - eta2) - cosf(phi1 - phi2)));
}

// Queue != null: events of more than `threshold` electrons are appended to it and left alone.
template <bool OppositeCharge>
__global__ void __launch_bounds__(256)
    heaviest_pair_per_event(const std::int64_t* __restrict__ offsets, std::int64_t events, const float* __restrict__ pt,
                            const float* __restrict__ eta, const float* __restrict__ phi,
                            const std::int32_t* __restrict__ charge, float* __restrict__ out,
                            std::uint8_t* __restrict__ valid, std::int32_t* __restrict__ queue,
                            std::int32_t* __restrict__ count, int threshold) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= events) return;
  const std::int64_t s = offsets[e];
  const int n = static_cast<int>(offsets[e + 1] - s);
  if (queue && n > threshold) {
    queue[atomicAdd(count, 1)] = static_cast<std::int32_t>(e);
    return;
  }
  float best = minus_infinity;
  int pairs = 0;
  for (int i = 0; i + 1 < n; ++i) {
    const float pti = pt[s + i], etai = eta[s + i], phii = phi[s + i];
    const std::int32_t qi = OppositeCharge ? charge[s + i] : 0;
    for (int j = i + 1; j < n; ++j) {
      if (OppositeCharge && charge[s + j] == qi) continue;
      best = fmaxf(best, pair_mass(pti, etai, phii, pt[s + j], eta[s + j], phi[s + j]));
      ++pairs;
    }
  }
  out[e] = best;
  valid[e] = pairs > 0;
}

// A warp per queued event: lane l takes the pair ranks l, l + 32, ... (Awkward's order), advancing
// (i, j) incrementally, then a shuffle max; the grid strides over the queue, whose length it reads.
template <bool OppositeCharge>
__global__ void __launch_bounds__(256)
    heaviest_pair_warp_per_event(const std::int64_t* __restrict__ offsets, const float* __restrict__ pt,
                                 const float* __restrict__ eta, const float* __restrict__ phi,
                                 const std::int32_t* __restrict__ charge, float* __restrict__ out,
                                 std::uint8_t* __restrict__ valid, const std::int32_t* __restrict__ queue,
                                 const std::int32_t* __restrict__ count) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
  const int queued = *count;
  for (int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32); w < queued; w += warps) {
    const std::int64_t e = queue[w], s = offsets[e];
    const int n = static_cast<int>(offsets[e + 1] - s);
    float best = minus_infinity;
    int seen = 0;
    int i = 0, j = 1 + lane;
    const auto advance = [&] {
      while (j >= n && i < n - 1) {
        const int over = j - n;
        ++i;
        j = i + 1 + over;
      }
    };
    advance();
    while (i < n - 1) {
      if (!OppositeCharge || charge[s + i] != charge[s + j]) {
        best = fmaxf(best, pair_mass(pt[s + i], eta[s + i], phi[s + i], pt[s + j], eta[s + j], phi[s + j]));
        seen = 1;
      }
      j += 32;
      advance();
    }
    for (int k = 16; k; k >>= 1) best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, k));
    seen = __any_sync(0xffffffffu, seen);
    if (lane == 0) {
      out[e] = best;
      valid[e] = seen != 0;
    }
  }
}

constexpr int block = 256;

template <bool OppositeCharge>
int launch_thread_per_event(const std::int64_t* offsets, std::int64_t events, const float* pt, const float* eta,
                            const float* phi, const std::int32_t* charge, float* out, std::uint8_t* valid,
                            std::int32_t* queue, std::int32_t* count, int threshold, cudaStream_t s) {
  const auto grid = static_cast<unsigned>((events + block - 1) / block);
  heaviest_pair_per_event<OppositeCharge>
      <<<grid, block, 0, s>>>(offsets, events, pt, eta, phi, charge, out, valid, queue, count, threshold);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int dielectron_handwritten_thread_per_event(const std::int64_t* offsets, std::int64_t events, const float* pt,
                                            const float* eta, const float* phi, const std::int32_t* charge,
                                            bool opposite_charge, float* out, std::uint8_t* valid, void* stream) {
  if (events <= 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  return opposite_charge
             ? launch_thread_per_event<true>(offsets, events, pt, eta, phi, charge, out, valid, nullptr, nullptr, 0, s)
             : launch_thread_per_event<false>(offsets, events, pt, eta, phi, charge, out, valid, nullptr, nullptr, 0,
                                              s);
}

int dielectron_handwritten_hybrid(const std::int64_t* offsets, std::int64_t events, const float* pt, const float* eta,
                                  const float* phi, const std::int32_t* charge, bool opposite_charge, float* out,
                                  std::uint8_t* valid, std::int32_t* queue, std::int32_t* count, int threshold,
                                  int blocks, void* stream) {
  if (events <= 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  if (const cudaError_t rc = cudaMemsetAsync(count, 0, sizeof(std::int32_t), s); rc != cudaSuccess)
    return static_cast<int>(rc);
  const int rc = opposite_charge ? launch_thread_per_event<true>(offsets, events, pt, eta, phi, charge, out, valid,
                                                                 queue, count, threshold, s)
                                 : launch_thread_per_event<false>(offsets, events, pt, eta, phi, charge, out, valid,
                                                                  queue, count, threshold, s);
  if (rc != 0) return rc;
  if (opposite_charge)
    heaviest_pair_warp_per_event<true>
        <<<blocks, block, 0, s>>>(offsets, pt, eta, phi, charge, out, valid, queue, count);
  else
    heaviest_pair_warp_per_event<false>
        <<<blocks, block, 0, s>>>(offsets, pt, eta, phi, charge, out, valid, queue, count);
  return static_cast<int>(cudaGetLastError());
}
