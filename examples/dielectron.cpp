// The mass of the heaviest dielectron in each event — the query of the seed "Python on GPUs"
// (Awkward on its cuda backend: ak.combinations, np.sqrt, np.max) in C++, on synthetic events like
// the seed's file: Poisson(1.4) electrons per event, pt = 5 + Exp(20), |eta| < 2.5, phi in
// [-pi, pi), charge +-1. Each per-event maximum is ONE loop nest over the event's pairs (one CUDA
// kernel on a GPU, `jf::explain` shows it): the pairs are never materialised.
//
//   dielectron [cpu|cuda] [events]   (default: cuda when a GPU is available, else cpu; 299973)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

// Synthetic electrons, the seed's fields and types (float32, charge int32).
jf::jagged_record electrons(std::int64_t events, jf::device dev) {
  std::mt19937_64 rng(20261125);
  std::poisson_distribution<int> multiplicity(1.4);
  std::exponential_distribution<float> exp20(1.f / 20);
  std::uniform_real_distribution<float> eta(-2.5f, 2.5f), phi(-3.14159265f, 3.14159265f);
  std::vector<std::int64_t> offsets{0};
  std::vector<float> pt_, eta_, phi_;
  std::vector<std::int32_t> charge_;
  for (std::int64_t e = 0; e < events; ++e) {
    const int n = multiplicity(rng);
    for (int k = 0; k < n; ++k) {
      pt_.push_back(5 + exp20(rng));
      eta_.push_back(eta(rng));
      phi_.push_back(phi(rng));
      charge_.push_back(rng() % 2 ? 1 : -1);
    }
    offsets.push_back(offsets.back() + n);
  }
  const jf::array<std::int64_t> off(offsets, dev);
  return jf::zip({{"pt", jf::jagged<float>(off, jf::array<float>(pt_, dev))},
                  {"eta", jf::jagged<float>(off, jf::array<float>(eta_, dev))},
                  {"phi", jf::jagged<float>(off, jf::array<float>(phi_, dev))},
                  {"charge", jf::jagged<std::int32_t>(off, jf::array<std::int32_t>(charge_, dev))}});
}

// Microseconds per call of f (after one call that compiles), the device synchronised.
template <class F> double time_us(F&& f) {
  f();
  jf::synchronize();
  const int reps = 20;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f();
  jf::synchronize();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace

int main(int argc, char** argv) {
  const bool want_cpu = argc > 1 && std::strcmp(argv[1], "cpu") == 0;
  const jf::device dev = !want_cpu && jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::int64_t events = argc > 2 ? std::atoll(argv[2]) : 299973;

  const jf::jagged_record ev = electrons(events, dev);
  std::printf(">>> electrons\n%s\n", jf::display(ev).c_str());

  // print(ak.combinations(electrons, 2)): the first and last pairs, as Awkward prints them (only
  // the shown pairs are gathered; the pairs are never materialised).
  std::printf(">>> print(ak.combinations(electrons, 2))\n%s\n", jf::to_string(jf::combinations(ev, 2)).c_str());
  // e1, e2 = ak.unzip(ak.combinations(electrons, 2))
  auto [e1, e2] = jf::unzip(jf::combinations(ev, 2));
  const auto pt1 = e1.field<float>("pt");
  const auto pt2 = e2.field<float>("pt");
  const auto eta1 = e1.field<float>("eta");
  const auto eta2 = e2.field<float>("eta");
  const auto phi1 = e1.field<float>("phi");
  const auto phi2 = e2.field<float>("phi");
  const auto q1 = e1.field<std::int32_t>("charge");
  const auto q2 = e2.field<std::int32_t>("charge");
  // z_mass = np.sqrt(2*e1.pt*e2.pt * (np.cosh(e1.eta - e2.eta) - np.cos(e1.phi - e2.phi)))
  const auto z_mass = jf::sqrt(2 * pt1 * pt2 * (jf::cosh(eta1 - eta2) - jf::cos(phi1 - phi2)));

  // np.max(z_mass, axis=-1): one ?float32 per event, None without a pair.
  jf::option_array<float> best = jf::max(z_mass, -1);
  std::printf(">>> np.max(z_mass, axis=-1)\n%s\n", jf::display(best).c_str());
  // The seed's Numba kernel keeps opposite-charge pairs only: a mask, a guard in the same loop.
  jf::option_array<float> best_os = jf::max(z_mass(q1 != q2), -1);
  std::printf(">>> np.max(z_mass[e1.charge != e2.charge], axis=-1)\n%s\n", jf::display(best_os).c_str());

  jf::reset_stats();
  const double us = time_us([&] { best = jf::max(z_mass, -1); });
  const double us_os = time_us([&] { best_os = jf::max(z_mass(q1 != q2), -1); });
  std::printf("\n%lld events on %s: heaviest pair %.1f us per call (%.2f ns per event), opposite-charge %.1f us\n",
              static_cast<long long>(events), jf::to_string(dev).c_str(), us, us * 1e3 / static_cast<double>(events),
              us_os);
  if (dev.kind == jf::device_kind::cuda)
    std::printf("kernels launched per call: %.1f\n", static_cast<double>(jf::stats().launches) / 42);
  return 0;
}
