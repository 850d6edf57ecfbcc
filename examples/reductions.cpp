// Statistics of a large array and of its rows, in fused reductions, and a histogram: on the GPU
// when there is one, else on the CPU backend. Prints the results, checks them against plain loops,
// and shows with jf::explain how one fused reduction runs.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::int64_t rows = 1000, cols = 4096;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> gauss(2.0, 0.5);
  std::vector<double> h(static_cast<std::size_t>(rows * cols));
  for (auto& v : h) v = gauss(rng);
  jf::array<double> x(h, {rows, cols}, dev);

  // Whole-array statistics: each line is one expression (one kernel on a GPU).
  const double mean = jf::mean(x).item();
  const double sd = jf::std(x).item();
  const double rms = jf::sqrt(jf::mean(x * x)).item();
  const double lo = jf::min(x).item(), hi = jf::max(x).item();
  const std::int64_t at = jf::argmax(x).item();
  const std::int64_t outliers = jf::count_nonzero(jf::abs(x - mean) > 3 * sd).item();
  std::printf("jetfuse reductions on %s: %lld x %lld doubles\n", jf::to_string(dev).c_str(),
              static_cast<long long>(rows), static_cast<long long>(cols));
  std::printf("mean %.6f  std %.6f  rms %.6f  min %.4f  max %.4f at flat index %lld  |x - mean| > 3 std: %lld\n", mean,
              sd, rms, lo, hi, static_cast<long long>(at), static_cast<long long>(outliers));

  // Per-row statistics and the rows centred on their means (reduction + map in one expression).
  jf::array<double> row_means = jf::mean(x, 1);
  jf::array<double> centred = x - jf::mean(x, 1, jf::keepdims);
  const double worst_centred = jf::max(jf::abs(jf::mean(centred, 1))).item();
  std::printf("row means: first %.6f, last %.6f; largest |mean| of a centred row: %.2e\n",
              static_cast<double>(row_means(0)), static_cast<double>(row_means(rows - 1)), worst_centred);

  // A histogram of the standardised values (numpy.histogram's bins; one kernel with the expression).
  const auto [hist, edges] = jf::histogram((x - mean) / sd, 12, {-3.0, 3.0});
  std::printf("histogram of (x - mean) / std in [-3, 3]:\n");
  std::int64_t counted = 0;
  for (std::int64_t b = 0; b < 12; ++b) {
    const auto c = static_cast<std::int64_t>(hist(b));
    counted += c;
    std::printf("  [%5.1f, %5.1f%c %8lld %s\n", static_cast<double>(edges(b)), static_cast<double>(edges(b + 1)),
                b == 11 ? ']' : ')', static_cast<long long>(c), std::string(static_cast<std::size_t>(c / 16000), '#').c_str());
  }

  // The same numbers from plain loops.
  double s = 0, s2 = 0;
  for (double v : h) s += v;
  const double m = s / static_cast<double>(h.size());
  for (double v : h) s2 += (v - m) * (v - m);
  std::int64_t inside = 0;
  for (double v : h) inside += std::abs((v - mean) / sd) <= 3.0;
  const bool ok = std::abs(mean - m) < 1e-9 && std::abs(sd - std::sqrt(s2 / static_cast<double>(h.size()))) < 1e-9 &&
                  worst_centred < 1e-12 && h[static_cast<std::size_t>(at)] == hi && counted == inside;
  std::printf("check against plain loops: %s\n", ok ? "ok" : "MISMATCH");

  // How one fused reduction runs: on this backend, and the kernels a GPU would run for it.
  std::printf("\n%s", jf::explain(jf::sum(x * x, 1)).c_str());
  if (dev == jf::cpu) std::printf("\n(on a GPU)\n%s", jf::explain_cuda(jf::sum(x * x, 1)).c_str());
  return ok ? 0 : 1;
}
