// Combinations on the GPU: the dielectron query of issue 11,
//   max(sqrt(2 * e1.pt * e2.pt * (cosh(e1.eta - e2.eta) - cos(e1.phi - e2.phi))), -1)
// over the pairs of each event, as the pairs kernel runs it (docs/design.md, "Pairs kernels": one
// launch, the mass in registers, the max and its validity written), against a
// hand-written thread-per-event CUDA kernel (the Numba kernel of the seed, in CUDA C++: IEEE coshf
// and cosf, compiled here by NVRTC) on the same data. Events: (A) 10^7, Poisson(1.5) electrons;
// (B) A with every 200th event holding 64 electrons; (C) 2 10^6, Poisson(8); (D) 10^6 Poisson(1.5)
// and one event of 10^4 electrons (5 10^7 pairs); (E, F, G) 5, 4, 3 10^6 events of Poisson(2, 3, 4)
// electrons (where warp segments and the staged runs cross over). pt = 5 + Exp(20), eta U(-2.5, 2.5), phi
// U(-pi, pi), charge +-1, float32 (charge int32). Rows report microseconds per call, pairs/s, and
// the bytes read and written (offsets, three fields, the outputs) as GB/s and as a fraction of a
// device copy measured in the same run. The fused kernels come from hand-built graphs
// (tests/nest_graphs.hpp) through the generator and launcher the engine uses, the list domain's
// longest list and mean length set from the data as the engine's validation of the offsets sets
// them (A's lists are at most 16 long: warp segments; B and D are short on average: warp segments
// and the warp queue; C: staged runs; BM_FusedWarpSegments forces either).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../tests/nest_graphs.hpp"
#include "core/step_bindings.hpp"
#include "cuda/codegen/nest_emitter.hpp"
#include "cuda/launch_nest.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "timed_batches.hpp"

namespace {

namespace rt = jf::cuda_rt;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

double copy_gbps = 0;

struct device_buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class T>
  explicit device_buffer(const std::vector<T>& h) : p(rt::allocate(h.size() * sizeof(T))), bytes(h.size() * sizeof(T)) {
    rt::copy_htod(p, h.data(), bytes);
  }
  explicit device_buffer(std::size_t n) : p(rt::allocate(n)), bytes(n) {}
};

// One set of events: offsets, fields, outputs (never freed: used until exit).
struct events {
  long long n = 0, pairs = 0, longest = 0;
  std::vector<long long> offsets;
  device_buffer *off, *pt, *eta, *phi, *q, *out_max, *out_valid, *copy_to;  // copy_to: the device copy's destination
  events(long long nevents, double lambda, bool tail, long long big) : n(nevents) {
    std::mt19937_64 r(20261125);
    std::poisson_distribution<long long> len(lambda);
    offsets.resize(static_cast<std::size_t>(n + 1));
    for (long long i = 0; i < n; ++i) {
      long long k = len(r);
      if (tail && i % 200 == 17) k = 64;
      if (big > 0 && i == n / 2) k = big;
      offsets[static_cast<std::size_t>(i + 1)] = offsets[static_cast<std::size_t>(i)] + k;
      pairs += k * (k - 1) / 2;
      longest = std::max(longest, k);
    }
    const std::size_t ne = static_cast<std::size_t>(offsets.back());
    std::vector<float> p(ne), e(ne), f(ne);
    std::vector<int> c(ne);
    std::exponential_distribution<float> e20(1.f / 20);
    std::uniform_real_distribution<float> ue(-2.5f, 2.5f), uf(-3.14159265f, 3.14159265f);
    for (std::size_t j = 0; j < ne; ++j) {
      p[j] = 5 + e20(r);
      e[j] = ue(r);
      f[j] = uf(r);
      c[j] = r() % 2 ? 1 : -1;
    }
    off = new device_buffer(offsets);
    pt = new device_buffer(p);
    eta = new device_buffer(e);
    phi = new device_buffer(f);
    q = new device_buffer(c);
    out_max = new device_buffer(static_cast<std::size_t>(n) * 4);
    copy_to = new device_buffer(static_cast<std::size_t>(n) * 8);
    out_valid = new device_buffer(static_cast<std::size_t>(n));
  }
  long long elements() const { return offsets.back(); }
  // Offsets and three float32 fields read once, the max (4 bytes) and validity (1) written.
  double bytes() const {
    return 8.0 * static_cast<double>(n + 1) + 12.0 * static_cast<double>(elements()) + 5.0 * static_cast<double>(n);
  }
};
events& data(char which) {
  static events* a = nullptr;
  static events* b = nullptr;
  static events* c = nullptr;
  static events* d = nullptr;
  static events* e = nullptr;
  static events* f = nullptr;
  static events* gg = nullptr;
  switch (which) {
    case 'A':
      return *(a ? a : a = new events(10000000, 1.5, false, 0));
    case 'B':
      return *(b ? b : b = new events(10000000, 1.5, true, 0));
    case 'C':
      return *(c ? c : c = new events(2000000, 8, false, 0));
    case 'E':
      return *(e ? e : e = new events(5000000, 2, false, 0));
    case 'F':
      return *(f ? f : f = new events(4000000, 3, false, 0));
    case 'G':
      return *(gg ? gg : gg = new events(3000000, 4, false, 0));
    default:
      return *(d ? d : d = new events(1000000, 1.5, false, 10000));
  }
}

void report(benchmark::State& state, const events& d) {
  state.counters["pairs/s"] = static_cast<double>(d.pairs) / jf_bench::call_seconds;
  jf_bench::report_bandwidth(state, d.bytes(), copy_gbps);
}

// The fused query: max mass per event and its validity (some (opposite-charge) pair).
void run_fused(benchmark::State& state, events& d, bool charge, int tile_lists = 0, int stage_bytes = 0,
               int thread_max = 0, int list_weight = 0, int warp_segments = 0, int warp_queue = 0) {
  jf::ir::nest::pairs_schedule_override() = {tile_lists, stage_bytes, thread_max, list_weight, warp_segments,
                                             warp_queue};
  // The engine's graph: the max and its validity (the count of pairs stays in the kernel), its
  // longest list known as the offsets' validation gives it (domain::longest).
  jf::ir::graph g = nest_test::pairs_dielectron(charge, false, false, true, false);
  for (auto& dom : g.domains)
    if (dom.kind == jf::ir::domain_kind::list) {
      dom.longest = jf::ir::list_length_class(d.longest);
      dom.short_on_average = jf::ir::short_on_average(d.n, d.elements());
    }
  const jf::ir::kernel_source k = jf::ir::generate_cuda(g);
  jf::ir::nest::pairs_schedule_override() = {};
  const rt::kernel& kern = *std::addressof(rt::get_kernel(k.name, k.source, {}));
  auto slot = [](int s) {
    std::vector<std::int64_t> st(4, 0);
    st[static_cast<std::size_t>(2 + s)] = 1;
    return st;
  };
  jf::detail::step_bindings b;
  b.extents = {d.n, d.elements(), d.elements(), d.elements()};
  b.inputs = {{d.off->p, {1, 0, 0, 0}}};
  for (int s = 0; s < 2; ++s)
    for (device_buffer* f : {d.pt, d.eta, d.phi}) b.inputs.push_back({f->p, slot(s)});
  if (charge)
    for (int s = 0; s < 2; ++s) b.inputs.push_back({d.q->p, slot(s)});
  b.outputs = {{d.out_max->p, {1, 0, 0, 0}}, {d.out_valid->p, {1, 0, 0, 0}}};
  timed_batches(state, 10, [&] { rt::launch_nest(k, kern, b); });
  report(state, d);
  const jf::ir::launch_config c = jf::ir::configure_launch(k, b.extents.data(), 4, rt::nest_device_limits());
  state.SetLabel(std::string(k.launch.pairs_warp_segments ? "warp segments, " : "staged runs, ") +
                 (k.launch.pairs_warp_queue ? "warp queue over " + std::to_string(k.launch.pairs_warp_queue) + ", "
                                            : std::string()) +
                 "tile " + std::to_string(k.launch.pairs_tile_lists) + ", thread per list up to " +
                 std::to_string(k.launch.pairs_thread_max) + ", list weight " +
                 std::to_string(k.launch.pairs_list_weight) + ", stage " + std::to_string(k.launch.list_stage_items) +
                 ", " + std::to_string(c.grid[0]) + " blocks, " + std::to_string(k.launch.static_shared_bytes) +
                 " B shared");
}

// The seed's Numba kernel in CUDA C++: a thread per event, nested loops, fmaxf of the mass.
constexpr const char* thread_per_event_source = R"(
struct jf_bench_tpe_args {
  const long long* off;
  const float* pt;
  const float* eta;
  const float* phi;
  float* out;
  unsigned char* valid;
  long long n;
};
extern "C" __global__ void jf_bench_thread_per_event(const jf_bench_tpe_args a) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= a.n) return;
  const long long s = a.off[i], e = a.off[i + 1];
  float best = __int_as_float(0xff800000);  // -inf
  for (long long p = s; p < e; ++p) {
    const float pt0 = a.pt[p], eta0 = a.eta[p], phi0 = a.phi[p];
    for (long long q = p + 1; q < e; ++q)
      best = fmaxf(best, sqrtf(2.0f * pt0 * a.pt[q] * (coshf(eta0 - a.eta[q]) - cosf(phi0 - a.phi[q]))));
  }
  a.out[i] = best;
  a.valid[i] = e - s > 1;
}
)";

void run_thread_per_event(benchmark::State& state, events& d) {
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_bench_thread_per_event", thread_per_event_source, {}));
  struct {
    const void* off;
    const void* pt;
    const void* eta;
    const void* phi;
    void* out;
    void* valid;
    long long n;
  } args{d.off->p, d.pt->p, d.eta->p, d.phi->p, d.out_max->p, d.out_valid->p, d.n};
  const unsigned blocks = static_cast<unsigned>((d.n + 255) / 256);
  timed_batches(state, 10, [&] { rt::launch(k, blocks, 256, &args, sizeof(args)); });
  report(state, d);
}

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  events& d = data('A');
  copy_gbps = jf_bench::copy_roof(state, d.copy_to->p, d.pt->p, d.pt->bytes);
}

template <char Which>
void BM_Fused(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false);
}
template <char Which>
void BM_FusedOppositeCharge(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), true);
}
template <char Which>
void BM_FusedTile512(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false, 512);
}
template <char Which>
void BM_FusedTile512Stage24K(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false, 512, 24576);
}
// Lists of at most state.range(0) elements by a thread each (pairs_schedule::thread_max), the
// others in the staged runs: the shape the hand-written hybrid suggests (measured slower).
template <char Which>
void BM_FusedThreadPerShortList(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false, 0, 0, static_cast<int>(state.range(0)));
}
// The runs split by weight (pairs_schedule::list_weight = state.range(0): 4 per combination, that
// much per list), so that threads over many short lists take fewer combinations (measured slower).
template <char Which>
void BM_FusedListWeight(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false, 0, 0, 0, static_cast<int>(state.range(0)));
}
// The light lists in warp segments (1; lists of more than 16 elements in the warp queue) or staged
// runs (-1) whatever the lists' lengths (pairs_schedule::warp_segments; the generator's choice:
// warp segments where every list has at most 16 elements or the mean is at most 1.875).
template <char Which>
void BM_FusedWarpSegments(benchmark::State& state) {
  if (need_gpu(state)) run_fused(state, data(Which), false, 0, 0, 0, 0, static_cast<int>(state.range(0)));
}
// Lists of more than state.range(1) elements queued and combined after the tiles, a warp each
// (pairs_schedule::warp_queue; -1: none, lists of more than 16 elements walked by their warp
// inside the tile), beside warp segments (state.range(0) = 1) or staged runs (-1).
template <char Which>
void BM_FusedWarpQueue(benchmark::State& state) {
  if (need_gpu(state))
    run_fused(state, data(Which), false, 0, 0, 0, 0, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
}
template <char Which>
void BM_ThreadPerEvent(benchmark::State& state) {
  if (need_gpu(state)) run_thread_per_event(state, data(Which));
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
BENCHMARK(BM_Fused<'A'>)->Name("BM_Fused/A")->Apply(one);
BENCHMARK(BM_ThreadPerEvent<'A'>)->Name("BM_ThreadPerEvent/A")->Apply(one);
BENCHMARK(BM_FusedOppositeCharge<'A'>)->Name("BM_FusedOppositeCharge/A")->Apply(one);
BENCHMARK(BM_FusedTile512<'A'>)->Name("BM_FusedTile512/A")->Apply(one);
BENCHMARK(BM_Fused<'B'>)->Name("BM_Fused/B")->Apply(one);
BENCHMARK(BM_ThreadPerEvent<'B'>)->Name("BM_ThreadPerEvent/B")->Apply(one);
BENCHMARK(BM_FusedOppositeCharge<'B'>)->Name("BM_FusedOppositeCharge/B")->Apply(one);
BENCHMARK(BM_Fused<'C'>)->Name("BM_Fused/C")->Apply(one);
BENCHMARK(BM_ThreadPerEvent<'C'>)->Name("BM_ThreadPerEvent/C")->Apply(one);
BENCHMARK(BM_FusedTile512<'C'>)->Name("BM_FusedTile512/C")->Apply(one);
BENCHMARK(BM_FusedTile512Stage24K<'A'>)->Name("BM_FusedTile512Stage24K/A")->Apply(one);
BENCHMARK(BM_FusedTile512Stage24K<'C'>)->Name("BM_FusedTile512Stage24K/C")->Apply(one);
BENCHMARK(BM_Fused<'D'>)->Name("BM_Fused/D")->Apply(one);
BENCHMARK(BM_FusedThreadPerShortList<'A'>)->Name("BM_FusedThreadPerShortList/A")->Arg(4)->Arg(8)->Arg(16)->Apply(one);
BENCHMARK(BM_FusedThreadPerShortList<'B'>)->Name("BM_FusedThreadPerShortList/B")->Arg(4)->Arg(8)->Arg(16)->Apply(one);
BENCHMARK(BM_FusedThreadPerShortList<'C'>)->Name("BM_FusedThreadPerShortList/C")->Arg(4)->Arg(8)->Arg(16)->Apply(one);
BENCHMARK(BM_FusedListWeight<'A'>)->Name("BM_FusedListWeight/A")->Arg(2)->Arg(4)->Arg(8)->Apply(one);
BENCHMARK(BM_FusedListWeight<'B'>)->Name("BM_FusedListWeight/B")->Arg(2)->Arg(4)->Arg(8)->Apply(one);
BENCHMARK(BM_FusedListWeight<'C'>)->Name("BM_FusedListWeight/C")->Arg(2)->Arg(4)->Arg(8)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'A'>)->Name("BM_FusedWarpSegments/A")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'B'>)->Name("BM_FusedWarpSegments/B")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'C'>)->Name("BM_FusedWarpSegments/C")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'D'>)->Name("BM_FusedWarpSegments/D")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'E'>)->Name("BM_FusedWarpSegments/E")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'F'>)->Name("BM_FusedWarpSegments/F")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpSegments<'G'>)->Name("BM_FusedWarpSegments/G")->Arg(1)->Arg(-1)->Apply(one);
BENCHMARK(BM_FusedWarpQueue<'B'>)->Name("BM_FusedWarpQueue/B")->Args({1, -1})->Args({1, 32})->Args({-1, 16})->Apply(one);
BENCHMARK(BM_FusedWarpQueue<'C'>)->Name("BM_FusedWarpQueue/C")->Args({-1, 16})->Apply(one);
BENCHMARK(BM_FusedWarpQueue<'D'>)->Name("BM_FusedWarpQueue/D")->Args({-1, 16})->Apply(one);

BENCHMARK_MAIN();
