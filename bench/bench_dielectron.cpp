// The dielectron benchmark of issue 11: per event the mass of the heaviest electron pair,
// sqrt(2*pt1*pt2*(cosh(eta1 - eta2) - cos(phi1 - phi2))) maximised over the pairs i < j (None for
// fewer than 2 electrons), and the same over opposite-charge pairs only, on the events that
// bench/dielectron_data.py writes (configs A-D; bench/peers_dielectron.py runs Numba-CUDA, CuPy
// and Awkward on the same files). The hand-written CUDA kernels (bench_dielectron_handwritten.cu:
// thread per event, and the hybrid with a warp per event of more than 16 electrons) are the bar:
//
//   python3 bench/dielectron_data.py /tmp/d
//   JF_DIELECTRON_DATA=/tmp/d ./build/cuda/bench/bench_dielectron --benchmark_counters_tabular=true
//
// Every variant runs under the name VARIANT/CONFIG/{all,os}. Before it is timed, its result is
// read back once and checked against numpy's answers (validity equal; values within 1e-4 relative,
// or inside the band a float32 evaluation can give where cosh - cos cancels: see
// dielectron_data::check); a mismatch skips the row with the reason. Counters: us/call,
// events/s, pairs/s (all pairs of the config), GB/s and of_copy (offsets + pt, eta, phi, charge
// per electron + the 4-byte value and 1-byte validity per event, against the device copy measured
// first in the same run), jf_kernels/call (jetfuse launches), max_rel_err and in_band (events
// beyond 1e-4 accepted by the band).
//
// Adding a variant (the jetfuse fused and unfused ones): a function that fills `out` with config
// d's result, then one registration line; the data are loaded once (per config, on first use)
// and shared by every variant:
//
//   void jetfuse_fused(const dielectron_data& d, bool os, jf::option_array<float>& out) {
//     auto [e1, e2] = jf::unzip(jf::combinations(d.electrons, 2));   // d.electrons: jf::jagged_record
//     auto m = jf::sqrt(2 * e1["pt"] * e2["pt"] * (jf::cosh(e1["eta"] - e2["eta"]) - jf::cos(e1["phi"] - e2["phi"])));
//     out = os ? jf::max(m(e1["charge"] != e2["charge"]), -1) : jf::max(m, -1);
//   }
//   DIELECTRON_VARIANT(jetfuse_fused);
//
// Variants are timed in the order they are registered, after BM_CopyRoof. `out` persists between
// the calls of one row (a variant may reuse its buffers, as the hand-written ones do); d.pt,
// d.eta, d.phi, d.charge are the fields as jf::jagged sharing d.offsets (on jf::cuda), d.host the
// same on the host.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/runtime.hpp"
#include "jetfuse/jetfuse.hpp"
#include "jetfuse/record.hpp"
#include "timed_batches.hpp"

#ifdef JF_HAVE_CUDA
#include "dielectron_handwritten.hpp"
#endif

namespace {

using jf_bench::call_seconds;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::array<char, 4> configs = {'A', 'B', 'C', 'D'};
double copy_gbps = 0;

template <class T>
std::vector<T> read_raw(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path + " (written by bench/dielectron_data.py)");
  std::fseek(f, 0, SEEK_END);
  const long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::vector<T> v(static_cast<std::size_t>(bytes) / sizeof(T));
  const bool ok = bytes % static_cast<long>(sizeof(T)) == 0 && std::fread(v.data(), sizeof(T), v.size(), f) == v.size();
  std::fclose(f);
  if (!ok) throw std::runtime_error("cannot read " + path + " as " + std::to_string(sizeof(T)) + "-byte values");
  return v;
}

// What a result's check found.
struct check_report {
  std::string error;  // empty: it passes
  double max_abs = 0, max_rel = 0;
  std::int64_t beyond = 0;   // events more than 1e-4 relative from numpy's value
  std::int64_t in_band = 0;  // of those, the ones inside the float32 band (accepted)
};

// One config's events: read from $JF_DIELECTRON_DATA/X_*, uploaded to jf::cuda once.
struct dielectron_data {
  char name = 'A';
  std::int64_t events = 0, electrons_count = 0, pairs = 0;
  struct host_copy {
    std::vector<std::int64_t> offsets;
    std::vector<float> pt, eta, phi;
    std::vector<std::int32_t> charge;
  } host;
  // numpy's answers, [0] all pairs and [1] opposite-charge pairs (values NaN where not valid).
  std::array<std::vector<float>, 2> ref_max;
  std::array<std::vector<std::uint8_t>, 2> ref_valid;
  // On jf::cuda: the offsets and the four fields as jagged arrays sharing them, and their zip.
  jf::array<std::int64_t> offsets;
  jf::jagged<float> pt, eta, phi;
  jf::jagged<std::int32_t> charge;
  jf::jagged_record electrons{jf::array<std::int64_t>(), {}};

  dielectron_data(const std::string& dir, char config) : name(config) {
    const std::string p = dir + "/" + std::string(1, config) + "_";
    host.offsets = read_raw<std::int64_t>(p + "offsets.i64");
    host.pt = read_raw<float>(p + "pt.f32");
    host.eta = read_raw<float>(p + "eta.f32");
    host.phi = read_raw<float>(p + "phi.f32");
    host.charge = read_raw<std::int32_t>(p + "charge.i32");
    ref_max[0] = read_raw<float>(p + "max.f32");
    ref_valid[0] = read_raw<std::uint8_t>(p + "max_valid.u8");
    ref_max[1] = read_raw<float>(p + "max_os.f32");
    ref_valid[1] = read_raw<std::uint8_t>(p + "max_os_valid.u8");
    if (host.offsets.empty() || host.offsets.front() != 0)
      throw std::runtime_error(p + "offsets.i64: n + 1 offsets starting at 0 expected");
    events = static_cast<std::int64_t>(host.offsets.size()) - 1;
    electrons_count = host.offsets.back();
    const auto m = static_cast<std::size_t>(electrons_count), n = static_cast<std::size_t>(events);
    if (host.pt.size() != m || host.eta.size() != m || host.phi.size() != m || host.charge.size() != m)
      throw std::runtime_error(p + "*: the fields do not hold offsets[n] electrons");
    for (int k = 0; k < 2; ++k)
      if (ref_max[k].size() != n || ref_valid[k].size() != n)
        throw std::runtime_error(p + "max*: not one answer per event");
    for (std::int64_t e = 0; e < events; ++e) {
      const std::int64_t c = host.offsets[static_cast<std::size_t>(e) + 1] - host.offsets[static_cast<std::size_t>(e)];
      pairs += c * (c - 1) / 2;
    }
    offsets = jf::array<std::int64_t>(host.offsets.data(), {events + 1}, jf::cuda);
    const auto field = [&](const auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      return jf::jagged<T>(offsets, jf::array<T>(v.data(), {electrons_count}, jf::cuda));
    };
    pt = field(host.pt);
    eta = field(host.eta);
    phi = field(host.phi);
    charge = field(host.charge);
    electrons = jf::zip({{"pt", pt}, {"eta", eta}, {"phi", phi}, {"charge", charge}});
    jf::synchronize();
  }

  // Bytes a variant has to move at least: the offsets, 16 bytes per electron, 5 per event.
  double bytes() const {
    return 8.0 * static_cast<double>(events + 1) + 16.0 * static_cast<double>(electrons_count) +
           5.0 * static_cast<double>(events);
  }

  // The interval of event e's max that any float32 evaluation may give, from its pairs in double:
  // a transcendental term within a few ulps (CUDA's coshf and cosf: 2; numpy's: up to 4) moves
  // cosh - cos by up to 1e-6 * (cosh + |cos|), which cancels for nearby electrons; then 1e-4
  // relative for the rest.
  std::pair<double, double> band(std::int64_t e, bool os) const {
    const auto s = static_cast<std::size_t>(host.offsets[static_cast<std::size_t>(e)]);
    const auto t = static_cast<std::size_t>(host.offsets[static_cast<std::size_t>(e) + 1]);
    double lo = -INFINITY, hi = -INFINITY;
    for (std::size_t i = s; i < t; ++i)
      for (std::size_t j = i + 1; j < t; ++j) {
        if (os && host.charge[i] == host.charge[j]) continue;
        const double ch = std::cosh(static_cast<double>(host.eta[i]) - host.eta[j]);
        const double c = std::cos(static_cast<double>(host.phi[i]) - host.phi[j]);
        const double x = ch - c, dx = 1e-6 * (ch + std::fabs(c)),
                     w = 2.0 * host.pt[i] * static_cast<double>(host.pt[j]);
        lo = std::max(lo, std::sqrt(w * std::max(x - dx, 0.0)) * (1 - 1e-4));
        hi = std::max(hi, std::sqrt(w * (x + dx)) * (1 + 1e-4));
      }
    return {lo, hi};
  }

  // A result against numpy's answers (os: the opposite-charge ones), read back from its backend.
  check_report check(const jf::option_array<float>& got, bool os) const {
    check_report r;
    if (got.values().is_null() || got.size() != events) {
      r.error = "the result has " + std::to_string(got.values().is_null() ? 0 : got.size()) + " entries for " +
                std::to_string(events) + " events";
      return r;
    }
    const std::vector<float> v = got.values().to_vector();
    const std::vector<bool> ok = got.valid().to_vector();
    const auto& ref = ref_max[os];
    const auto& ref_ok = ref_valid[os];
    std::int64_t wrong_valid = 0, off = 0;
    std::string first;
    for (std::size_t e = 0; e < v.size(); ++e) {
      if (ok[e] != (ref_ok[e] != 0)) {
        if (!wrong_valid++ && first.empty())
          first = "event " + std::to_string(e) + " is " + (ok[e] ? "valid" : "None") + ", numpy's " +
                  (ref_ok[e] ? "valid" : "None");
        continue;
      }
      if (!ref_ok[e]) continue;
      const double a = v[e], b = ref[e], err = std::fabs(a - b);
      const double rel = b > 0 ? err / b : (err > 0 ? INFINITY : 0.0);
      r.max_abs = std::max(r.max_abs, std::isnan(err) ? INFINITY : err);
      r.max_rel = std::max(r.max_rel, std::isnan(rel) ? INFINITY : rel);
      if (rel <= 1e-4) continue;
      ++r.beyond;
      const auto [lo, hi] = band(static_cast<std::int64_t>(e), os);
      if (lo <= a && a <= hi) {
        ++r.in_band;
      } else if (!off++ && first.empty()) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "event %zu: %.9g, numpy's %.9g (band [%.9g, %.9g])", e, a, b, lo, hi);
        first = buf;
      }
    }
    if (wrong_valid || off)
      r.error = std::to_string(wrong_valid) + " events with another validity, " + std::to_string(off) +
                " values off; first: " + first;
    return r;
  }
};

// Config `c` of $JF_DIELECTRON_DATA, loaded on first use and kept for every later row.
const dielectron_data& get(char c) {
  static std::map<char, std::unique_ptr<dielectron_data>> loaded;
  auto& slot = loaded[c];
  if (!slot) {
    const char* dir = std::getenv("JF_DIELECTRON_DATA");
    if (!dir || !*dir)
      throw std::runtime_error(
          "JF_DIELECTRON_DATA is not set: write the events with `python3 bench/dielectron_data.py DIR` and set "
          "JF_DIELECTRON_DATA=DIR");
    slot = std::make_unique<dielectron_data>(dir, c);
  }
  return *slot;
}

using variant_fn = void (*)(const dielectron_data&, bool, jf::option_array<float>&);

// One row: load, run once and check, then time; the counters of the header comment.
void run_variant(benchmark::State& state, char config, bool os, variant_fn fn) {
  if (!need_gpu(state)) return;
  const dielectron_data* d = nullptr;
  jf::option_array<float> out;
  double call_s = 0;  // one call's time, compiled and warm
  try {
    d = &get(config);
    fn(*d, os, out);
    jf::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    fn(*d, os, out);
    jf::synchronize();
    call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const check_report r = d->check(out, os);
  if (!r.error.empty()) {
    state.SkipWithError(("result differs from numpy's: " + r.error).c_str());
    return;
  }
  // Batches of 10 calls, fewer for calls of more than 2 ms (the materialised variant takes up to
  // 1.3 s a call on config B: 10 a batch made this program 200 s, too long for the table's run).
  const int reps = std::clamp(static_cast<int>(0.02 / std::max(call_s, 1e-9)), 1, 10);
  const std::uint64_t before = jf::stats().launches;
  timed_batches(
      state, reps, [&] { fn(*d, os, out); }, /*warm=*/false);  // warm since the calls above
  const auto calls = static_cast<double>(state.iterations() * reps);
  state.counters["jf_kernels/call"] = static_cast<double>(jf::stats().launches - before) / calls;
  state.counters["us/call"] = call_seconds * 1e6;
  state.counters["events/s"] = static_cast<double>(d->events) / call_seconds;
  state.counters["pairs/s"] = static_cast<double>(d->pairs) / call_seconds;
  jf_bench::report_bandwidth(state, d->bytes(), copy_gbps);
  state.counters["max_rel_err"] = r.max_rel;
  state.counters["in_band"] = static_cast<double>(r.in_band);
}

// Registers `fn` as NAME/X/all and NAME/X/os for every config X, timed over `iterations` batches.
int register_variant(const char* name, variant_fn fn, int iterations = 5) {
  for (char c : configs)
    for (bool os : {false, true}) {
      const std::string row = std::string(name) + "/" + c + (os ? "/os" : "/all");
      benchmark::RegisterBenchmark(row.c_str(), [c, os, fn](benchmark::State& s) { run_variant(s, c, os, fn); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(iterations);
    }
  return 0;
}
#define DIELECTRON_VARIANT(fn, ...) \
  [[maybe_unused]] const int fn##_registered = register_variant(#fn, fn, ##__VA_ARGS__)

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = std::int64_t(1) << 27;
  jf::array<double> a = jf::zeros<double>({n}, jf::cuda), b = jf::zeros<double>({n}, jf::cuda);
  copy_gbps = jf_bench::copy_roof(state, b.raw_data(), a.raw_data(), static_cast<std::size_t>(n * 8));
}
BENCHMARK(BM_CopyRoof)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(5);

#ifdef JF_HAVE_CUDA
// bench_dielectron_handwritten.cu: one thread per event (no heavy-event path), and the hybrid.
void handwritten_thread_per_event(const dielectron_data& d, bool os, jf::option_array<float>& out) {
  if (out.values().is_null() || out.size() != d.events)
    out = jf::option_array<float>(jf::empty<float>({d.events}, jf::cuda), jf::empty<bool>({d.events}, jf::cuda));
  const int rc = dielectron_handwritten_thread_per_event(
      d.offsets.data(), d.events, d.pt.content().data(), d.eta.content().data(), d.phi.content().data(),
      d.charge.content().data(), os, static_cast<float*>(out.values().raw_data()),
      static_cast<std::uint8_t*>(out.valid().raw_data()), jf::cuda_rt::current_stream());
  if (rc != 0) throw std::runtime_error("the hand-written kernel's launch failed: cudaError_t " + std::to_string(rc));
}
DIELECTRON_VARIANT(handwritten_thread_per_event);

// The hybrid: events of more than 16 electrons (120 pairs) go to a warp each, through a queue on
// the device (its room, one int32 per event, and its count are allocated once per config).
void handwritten_hybrid(const dielectron_data& d, bool os, jf::option_array<float>& out) {
  static std::map<const dielectron_data*, jf::array<std::int32_t>> queues;
  jf::array<std::int32_t>& queue = queues[&d];
  if (queue.is_null()) {
    if (d.events >= (std::int64_t(1) << 31)) throw std::runtime_error("the hybrid queues int32 event ids");
    queue = jf::empty<std::int32_t>({d.events + 1}, jf::cuda);  // [0]: the count
  }
  if (out.values().is_null() || out.size() != d.events)
    out = jf::option_array<float>(jf::empty<float>({d.events}, jf::cuda), jf::empty<bool>({d.events}, jf::cuda));
  std::int32_t* q = queue.data();
  const int rc = dielectron_handwritten_hybrid(
      d.offsets.data(), d.events, d.pt.content().data(), d.eta.content().data(), d.phi.content().data(),
      d.charge.content().data(), os, static_cast<float*>(out.values().raw_data()),
      static_cast<std::uint8_t*>(out.valid().raw_data()), q + 1, q, 16, 8 * jf::cuda_rt::props().sm_count,
      jf::cuda_rt::current_stream());
  if (rc != 0) throw std::runtime_error("the hand-written hybrid failed: cudaError_t " + std::to_string(rc));
}
DIELECTRON_VARIANT(handwritten_hybrid);
#endif

// jetfuse, fused: ONE loop nest over each event's pairs (jf::combinations), the mass in registers,
// the max the accumulator; the opposite-charge mask a guard in the same loop.
template <class A, class B> auto pair_mass(const A& e1, const B& e2) {
  const auto pt1 = e1.template field<float>("pt");
  const auto pt2 = e2.template field<float>("pt");
  const auto eta1 = e1.template field<float>("eta");
  const auto eta2 = e2.template field<float>("eta");
  const auto phi1 = e1.template field<float>("phi");
  const auto phi2 = e2.template field<float>("phi");
  return jf::sqrt(2 * pt1 * pt2 * (jf::cosh(eta1 - eta2) - jf::cos(phi1 - phi2)));
}
void jetfuse_fused(const dielectron_data& d, bool os, jf::option_array<float>& out) {
  auto [e1, e2] = jf::unzip(jf::combinations(d.electrons, 2));
  const auto m = pair_mass(e1, e2);
  if (os) {
    out = jf::max(m(e1.field<std::int32_t>("charge") != e2.field<std::int32_t>("charge")), -1);
  } else {
    out = jf::max(m, -1);
  }
}
DIELECTRON_VARIANT(jetfuse_fused);

// jetfuse with the pairs materialised, as a CuPy or Awkward user computes them: every pair's mass
// assigned to a jagged array (count, scan, search, unrank, the six fields gathered per pair, the
// mass), then the per-event max over it (the opposite-charge mask materialised the same way).
void jetfuse_materialised(const dielectron_data& d, bool os, jf::option_array<float>& out) {
  auto [e1, e2] = jf::unzip(jf::combinations(d.electrons, 2));
  const jf::jagged<float> m = pair_mass(e1, e2);
  if (os) {
    const jf::jagged<bool> opposite = e1.field<std::int32_t>("charge") != e2.field<std::int32_t>("charge");
    out = jf::max(m(opposite), -1);
  } else {
    out = jf::max(m, -1);
  }
}
// 0.2-1.3 s a call on the H200: two timed calls a row (five made this program 200 s of the table's run).
DIELECTRON_VARIANT(jetfuse_materialised, 2);

}  // namespace

BENCHMARK_MAIN();
