// Consumer of an installed jetfuse: evaluates a few expressions on jf::cpu (and on jf::cuda when a
// GPU is present), compares every element with plain C++, and exits non-zero on any mismatch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include <jetfuse/jetfuse.hpp>

namespace {

int failures = 0;

void expect(bool ok, const char* what, std::size_t n, std::size_t i) {
  if (!ok && failures++ < 10) std::fprintf(stderr, "mismatch: %s, n = %zu, element %zu\n", what, n, i);
}

void check_on(jf::device dev, std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::uniform_int_distribution<std::int32_t> k(-50, 50);
  std::vector<double> hx(n), hy(n);
  std::vector<std::int32_t> hi(n), hj(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = u(rng);
    hy[i] = u(rng);
    hi[i] = k(rng);
    hj[i] = k(rng);
    if (hj[i] == 0) hj[i] = 7;
  }
  jf::array<double> x(hx, dev), y(hy, dev);
  jf::array<std::int32_t> i32(hi, dev), j32(hj, dev);

  // Float arithmetic and a function: one fused evaluation.
  const jf::array<double> r = x * y + 2.0 * jf::sqrt(jf::abs(x)) - 1;
  // NEP 50: weak integer scalars keep int32; floor division and remainder follow Python.
  const auto lin = i32 * 3 + 1;
  static_assert(std::is_same_v<jf::value_type_t<decltype(lin)>, std::int32_t>);
  const jf::array<std::int32_t> l = lin;
  const jf::array<std::int32_t> fd = jf::floor_divide(i32, j32);
  const jf::array<std::int32_t> md = i32 % j32;
  const jf::array<double> w = jf::where(x > y, x, y);

  // A sort (the CUB sorts on jf::cuda: the static CUDA runtime links into the consumer too).
  const std::vector<double> sorted = jf::sort(x * y).to_vector();
  std::vector<double> hsorted(n);
  for (std::size_t i = 0; i < n; ++i) hsorted[i] = hx[i] * hy[i];
  std::sort(hsorted.begin(), hsorted.end());
  expect(sorted == hsorted, "sort(x * y)", n, 0);

  const auto vr = r.to_vector();
  const auto vl = l.to_vector();
  const auto vfd = fd.to_vector();
  const auto vmd = md.to_vector();
  const auto vw = w.to_vector();
  if (vr.size() != n || vl.size() != n || vfd.size() != n || vmd.size() != n || vw.size() != n) {
    std::fprintf(stderr, "wrong result sizes for n = %zu\n", n);
    ++failures;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double want = hx[i] * hy[i] + 2.0 * std::sqrt(std::abs(hx[i])) - 1;
    expect(std::abs(vr[i] - want) <= 1e-12 * (1 + std::abs(want)), "x*y + 2*sqrt(|x|) - 1", n, i);
    const std::int32_t a = hi[i], b = hj[i];
    std::int32_t f = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --f;
    expect(vl[i] == a * 3 + 1, "int32 * 3 + 1", n, i);
    expect(vfd[i] == f, "floor_divide", n, i);
    expect(vmd[i] == a - f * b, "remainder", n, i);
    expect(vw[i] == std::max(hx[i], hy[i]), "where(x > y, x, y)", n, i);
  }
}

}  // namespace

int main() {
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1001)}) check_on(jf::cpu, n, rng);

  // Broadcasting a column against a row gives a 2-d result.
  const jf::array<double> col = jf::array<double>({1.0, 2.0, 3.0}).reshape({3, 1});
  const jf::array<double> row({10.0, 20.0});
  const jf::array<double> grid = col * row + 0.5;
  const auto g = grid.to_vector();
  const double want[] = {10.5, 20.5, 20.5, 40.5, 30.5, 60.5};
  if (grid.shape() != jf::shape_t{3, 2} || g.size() != 6) {
    std::fprintf(stderr, "broadcast shape %s, expected (3, 2)\n", jf::to_string(grid.shape()).c_str());
    ++failures;
  } else {
    for (std::size_t i = 0; i < 6; ++i) expect(g[i] == want[i], "col * row + 0.5", 6, i);
  }

  if (jf::cuda_available()) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100001)})
      check_on(jf::cuda, n, rng);
  } else {
    // Without a GPU, jf::cuda must fail with the typed exception, not crash.
    bool threw = false;
    try {
      jf::array<double> on_gpu({1.0, 2.0}, jf::cuda);
    } catch (const jf::no_device&) {
      threw = true;
    }
    expect(threw, "jf::cuda without a GPU throws jf::no_device", 0, 0);
  }

#ifdef JF_HAVE_CUDA
  const char* built = "with the CUDA backend";
#else
  const char* built = "CPU only";
#endif
  std::printf("consumer: jetfuse %s, GPU %s: %s\n", built, jf::cuda_available() ? "present" : "absent",
              failures ? "FAILED" : "all values correct");
  return failures ? 1 : 0;
}
