// The course page's matmul -> sum: np.sum(A @ B, axis=0) for A 10000 x 5000 and B 5000 x 7000
// float32 (on the CPU backend, without a GPU, a fifth of each extent). Written as numpy code reads,
// jf::sum(jf::matmul(A, B), 0) is rewritten to sum(A, 0) @ B: a fused column sum, then a
// vector-matrix product, never forming the n x m product. Timed beside the unrewritten form (the
// product made an array first: cuBLAS's GEMM on a GPU, then a reduction) and jf::einsum, each with
// its largest relative difference from a float64 reference computed on the host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using i64 = std::int64_t;

// The best of `reps` runs of f, in milliseconds (each run waits for the device).
template <class F>
double best_ms(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    jf::synchronize();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

double max_relative(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t j = 0; j < got.size(); ++j)
    worst = std::max(worst, std::abs(double(got[j]) - want[j]) / std::max(std::abs(want[j]), 1e-300));
  return worst;
}

}  // namespace

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  const i64 scale = dev.kind == jf::device_kind::cuda ? 1 : 5;
  const i64 n = 10000 / scale, k = 5000 / scale, m = 7000 / scale;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);  // the seed's np.random.rand
  std::vector<float> ha(static_cast<std::size_t>(n * k)), hb(static_cast<std::size_t>(k * m));
  for (float& x : ha) x = u(rng);
  for (float& x : hb) x = u(rng);
  const jf::array<float> a(ha, {n, k}, dev), b(hb, {k, m}, dev);

  // The float64 reference: column sums of A, then their product with B, on the host.
  std::vector<double> col(static_cast<std::size_t>(k), 0.0), want(static_cast<std::size_t>(m), 0.0);
  for (i64 i = 0; i < n; ++i)
    for (i64 l = 0; l < k; ++l) col[static_cast<std::size_t>(l)] += ha[static_cast<std::size_t>(i * k + l)];
  for (i64 l = 0; l < k; ++l)
    for (i64 j = 0; j < m; ++j)
      want[static_cast<std::size_t>(j)] += col[static_cast<std::size_t>(l)] * hb[static_cast<std::size_t>(l * m + j)];

  std::printf("sum(A @ B, axis=0), A %lld x %lld, B %lld x %lld float32, on %s\n", static_cast<long long>(n),
              static_cast<long long>(k), static_cast<long long>(k), static_cast<long long>(m),
              jf::to_string(dev).c_str());
  jf::array<float> rewritten, unrewritten, summed_out;
  const double t_rewritten = best_ms(5, [&] { rewritten = jf::sum(jf::matmul(a, b), 0); });
  const double t_unrewritten = best_ms(dev.kind == jf::device_kind::cuda ? 3 : 1,
                                       [&] { unrewritten = jf::sum(jf::array<float>(jf::matmul(a, b)), 0); });
  const double t_einsum = best_ms(5, [&] { summed_out = jf::einsum("ij,jk->k", a, b); });
  const double r1 = max_relative(rewritten.to_vector(), want), r2 = max_relative(unrewritten.to_vector(), want),
               r3 = max_relative(summed_out.to_vector(), want);
  std::printf("  jf::sum(jf::matmul(A, B), 0)   (rewritten)     %9.3f ms   max rel. diff %.2e\n", t_rewritten, r1);
  std::printf("  the product first, then jf::sum (not rewritten) %9.3f ms   max rel. diff %.2e\n", t_unrewritten, r2);
  std::printf("  jf::einsum(\"ij,jk->k\", A, B)                    %9.3f ms   max rel. diff %.2e\n", t_einsum, r3);
  std::printf("  the rewrite is %.0fx faster than the product and its sum\n", t_unrewritten / t_rewritten);

  const std::string plan = jf::explain(jf::sum(jf::matmul(a, b), 0));
  std::printf("jf::explain:\n%s", plan.substr(0, plan.find("--- step 1 ---")).c_str());
  // Every value is positive here, so (n + k) eps32 bounds the relative error of either order.
  const double bound = double(n + k) * 1.2e-7;
  const bool ok = r1 <= bound && r2 <= bound && r3 <= bound;
  std::printf("within (n + k) eps32 = %.1e of the float64 reference: %s\n", bound, ok ? "ok" : "NO");
  return ok ? 0 : 1;
}
