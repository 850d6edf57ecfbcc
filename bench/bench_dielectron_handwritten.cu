// The hand-written thread-per-event kernel bench_dielectron measures jetfuse against (the shape of
// shared/research/jagged-anchors.md §7.1 without its heavy-event queue): nested i < j loops over an
// event's electrons, the row's fields held in registers, float32 IEEE math (no fast math), the max
// from -inf with fmaxf, valid = at least one pair seen.
#include <cmath>
#include <cstdint>

#include "dielectron_handwritten.hpp"

namespace {

template <bool OppositeCharge>
__global__ void __launch_bounds__(256)
    heaviest_pair_per_event(const std::int64_t* __restrict__ offsets, std::int64_t events, const float* __restrict__ pt,
                            const float* __restrict__ eta, const float* __restrict__ phi,
                            const std::int32_t* __restrict__ charge, float* __restrict__ out,
                            std::uint8_t* __restrict__ valid) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= events) return;
  const std::int64_t s = offsets[e];
  const int n = static_cast<int>(offsets[e + 1] - s);
  float best = -INFINITY;  // the identity of max
  int pairs = 0;
  for (int i = 0; i + 1 < n; ++i) {
    const float pti = pt[s + i], etai = eta[s + i], phii = phi[s + i];
    const std::int32_t qi = OppositeCharge ? charge[s + i] : 0;
    for (int j = i + 1; j < n; ++j) {
      if (OppositeCharge && charge[s + j] == qi) continue;
      // numpy's order of evaluation: ((2 * pt1) * pt2) * (cosh(deta) - cos(dphi))
      const float m = sqrtf(2.f * pti * pt[s + j] * (coshf(etai - eta[s + j]) - cosf(phii - phi[s + j])));
      best = fmaxf(best, m);
      ++pairs;
    }
  }
  out[e] = best;
  valid[e] = pairs > 0;
}

}  // namespace

int dielectron_handwritten_thread_per_event(const std::int64_t* offsets, std::int64_t events, const float* pt,
                                            const float* eta, const float* phi, const std::int32_t* charge,
                                            bool opposite_charge, float* out, std::uint8_t* valid, void* stream) {
  if (events <= 0) return 0;
  constexpr int block = 256;
  const auto grid = static_cast<unsigned>((events + block - 1) / block);
  const auto s = static_cast<cudaStream_t>(stream);
  if (opposite_charge)
    heaviest_pair_per_event<true><<<grid, block, 0, s>>>(offsets, events, pt, eta, phi, charge, out, valid);
  else
    heaviest_pair_per_event<false><<<grid, block, 0, s>>>(offsets, events, pt, eta, phi, charge, out, valid);
  return static_cast<int>(cudaGetLastError());
}
