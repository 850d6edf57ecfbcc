// The CPU table of issue 14: jetfuse's CPU backend against the loop a C++ user would write by hand
// (one thread, -O3) on the workloads of the GPU benchmarks, at sizes a laptop holds; numpy runs the
// same workloads in bench/peers_cpu.py, and bench/run_all.py puts the three in one table. Runs on any
// machine (no GPU needed):
//
//     ./build/dev/bench/bench_cpu --benchmark_counters_tabular=true
//
// Every row reports the bytes a call must move at least (inputs read once, outputs written once),
// its GB/s and its fraction of the memory copy measured in the same run (BM_Copy: std::memcpy of
// 256 MiB on every hardware thread at once, read + written), and checks its result against the
// hand-written loop's before it is timed (a wrong row aborts the run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "timed_batches.hpp"  // median_per_call, shared with the GPU benchmarks

namespace {

using i64 = std::int64_t;
constexpr i64 n_big = i64{1} << 24;  // elements of the 1-d workloads
double copy_gbps = 0;                // BM_Copy's, for the rows after it
double call_seconds = 0;             // of the last timed(): the median call

// Seconds per call (the CPU backend returns when the work is done): the median of the calls, also
// the counter "median_ms" that bench/run_all.py takes (numpy's rows are medians too).
template <class F>
void timed(benchmark::State& state, F&& call) {
  call();  // warm: fault the pages in (and build the kernels' plans once)
  std::vector<double> per_call;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    per_call.push_back(s);
  }
  call_seconds = jf_bench::median_per_call(state, per_call);
}
// The row's counters: bytes moved per call, GB/s, and the fraction of the copy measured first.
double report(benchmark::State& state, double bytes) {
  const double gbps = call_seconds > 0 ? bytes / call_seconds * 1e-9 : 0;
  state.counters["bytes"] = bytes;
  state.counters["GB/s"] = gbps;
  if (copy_gbps > 0) state.counters["of_copy"] = gbps / copy_gbps;
  return gbps;
}
void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "bench_cpu: %s: jetfuse's result differs from the hand-written loop's\n", what);
    std::abort();
  }
}
template <class T>
bool close(const std::vector<T>& a, const std::vector<T>& b, double rel) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) <=
          rel * (1 + std::abs(static_cast<double>(b[i])))))
      return false;
  return true;
}
template <class T>
std::vector<T> uniform(i64 n, double lo, double hi, unsigned seed) {
  std::mt19937_64 r(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& e : v) e = static_cast<T>(d(r));
  return v;
}

// ---- the roof ------------------------------------------------------------------------------------
void BM_Copy(benchmark::State& state) {
  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  const unsigned t = std::max(1u, std::thread::hardware_concurrency());
  timed(state, [&] {
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < t; ++k)
      pool.emplace_back([&, k] {
        const std::size_t a = bytes * k / t, b = bytes * (k + 1) / t;
        std::memcpy(dst.data() + a, src.data() + a, b - a);
      });
    for (auto& th : pool) th.join();
  });
  copy_gbps = report(state, 2.0 * static_cast<double>(bytes));
}

// ---- element-wise ----------------------------------------------------------------------------------
struct quadratic_data {
  std::vector<double> a = uniform<double>(n_big, 1, 2, 1), b = uniform<double>(n_big, 10, 20, 2),
                      c = uniform<double>(n_big, -1, 1, 3);
};
const quadratic_data& qd() {
  static const quadratic_data d;
  return d;
}
std::vector<double> quadratic_by_hand() {
  const auto& d = qd();
  std::vector<double> x(d.a.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = (-d.b[i] + std::sqrt(d.b[i] * d.b[i] - 4 * d.a[i] * d.c[i])) / (2 * d.a[i]);
  return x;
}
void BM_Quadratic_jetfuse(benchmark::State& state) {
  const jf::array<double> a(qd().a), b(qd().b), c(qd().c);
  jf::array<double> x = jf::zeros<double>({n_big});
  auto e = (-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a);
  x = e;
  require(close(x.to_vector(), quadratic_by_hand(), 1e-15), "quadratic");
  timed(state, [&] { x = e; });
  report(state, 32.0 * n_big);
}
void BM_Quadratic_handwritten(benchmark::State& state) {
  std::vector<double> x;
  timed(state, [&] { x = quadratic_by_hand(); });
  report(state, 32.0 * n_big);
}

void BM_SquareInt32_jetfuse(benchmark::State& state) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n_big));
  std::iota(v.begin(), v.end(), -1000);
  const jf::array<std::int32_t> x(v);
  jf::array<std::int32_t> y = jf::zeros<std::int32_t>({n_big});
  y = x * x;
  require(y.to_vector()[5] == v[5] * v[5], "x**2");
  timed(state, [&] { y = x * x; });
  report(state, 8.0 * n_big);
}
void BM_SquareInt32_handwritten(benchmark::State& state) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n_big)), y(v.size());
  std::iota(v.begin(), v.end(), -1000);
  timed(state, [&] {
    for (std::size_t i = 0; i < v.size(); ++i) y[i] = v[i] * v[i];
    benchmark::DoNotOptimize(y.data());
  });
  report(state, 8.0 * n_big);
}

constexpr i64 side = 4000;  // sin(2x+1) on a 4000 x 4000 float32 array
void BM_Sin2d_jetfuse(benchmark::State& state) {
  const std::vector<float> v = uniform<float>(side * side, -3, 3, 4);
  const jf::array<float> x = jf::array<float>(v).reshape({side, side});
  jf::array<float> y = jf::zeros<float>({side, side});
  y = jf::sin(2 * x + 1);
  require(std::abs(y.to_vector()[7] - std::sin(2 * v[7] + 1)) < 1e-5f, "sin(2x+1)");
  timed(state, [&] { y = jf::sin(2 * x + 1); });
  report(state, 8.0 * side * side);
}
void BM_Sin2d_handwritten(benchmark::State& state) {
  const std::vector<float> v = uniform<float>(side * side, -3, 3, 4);
  std::vector<float> y(v.size());
  timed(state, [&] {
    for (std::size_t i = 0; i < v.size(); ++i) y[i] = std::sin(2 * v[i] + 1);
    benchmark::DoNotOptimize(y.data());
  });
  report(state, 8.0 * side * side);
}

void BM_AddInPlace_jetfuse(benchmark::State& state) {
  jf::array<double> x = jf::zeros<double>({n_big});
  timed(state, [&] { x += 1; });
  require(x.to_vector()[3] >= 1, "x += 1");
  report(state, 16.0 * n_big);
}
void BM_AddInPlace_handwritten(benchmark::State& state) {
  std::vector<double> x(static_cast<std::size_t>(n_big), 0.0);
  timed(state, [&] {
    for (double& e : x) e += 1;
    benchmark::DoNotOptimize(x.data());
  });
  report(state, 16.0 * n_big);
}

// The seed's diffusion step with slices on 2000 x 2000 float32: u_new[1:-1, 1:-1] = u[1:-1, 1:-1] +
// k * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]).
constexpr i64 grid = 2000;
constexpr float kappa = 0.1f;
void BM_Diffusion_jetfuse(benchmark::State& state) {
  const std::vector<float> v = uniform<float>(grid * grid, 0, 1, 5);
  const jf::array<float> u = jf::array<float>(v).reshape({grid, grid});
  jf::array<float> un = jf::zeros<float>({grid, grid});
  jf::array<float> inner = un(jf::range(1, -1), jf::range(1, -1));
  const auto mid = jf::range(1, -1);
  auto step = [&] {
    inner = u(mid, mid) +
            kappa * (u(jf::range(2, jf::range::none), mid) + u(jf::range(jf::range::none, -2), mid) +
                     u(mid, jf::range(2, jf::range::none)) + u(mid, jf::range(jf::range::none, -2)) - 4 * u(mid, mid));
  };
  step();
  const std::vector<float> got = un.to_vector();
  const std::size_t i = 1000 * grid + 1000;
  const float want = v[i] + kappa * (v[i + grid] + v[i - grid] + v[i + 1] + v[i - 1] - 4 * v[i]);
  require(std::abs(got[i] - want) < 1e-5f, "diffusion");
  timed(state, step);
  report(state, 8.0 * (grid - 2) * (grid - 2));
}
void BM_Diffusion_handwritten(benchmark::State& state) {
  const std::vector<float> u = uniform<float>(grid * grid, 0, 1, 5);
  std::vector<float> un(u.size(), 0.0f);
  timed(state, [&] {
    for (i64 r = 1; r < grid - 1; ++r)
      for (i64 c = 1; c < grid - 1; ++c) {
        const i64 i = r * grid + c;
        un[static_cast<std::size_t>(i)] =
            u[static_cast<std::size_t>(i)] +
            kappa * (u[static_cast<std::size_t>(i + grid)] + u[static_cast<std::size_t>(i - grid)] +
                     u[static_cast<std::size_t>(i + 1)] + u[static_cast<std::size_t>(i - 1)] -
                     4 * u[static_cast<std::size_t>(i)]);
      }
    benchmark::DoNotOptimize(un.data());
  });
  report(state, 8.0 * (grid - 2) * (grid - 2));
}

// ---- reductions ----------------------------------------------------------------------------------------
void BM_SumOfProducts_jetfuse(benchmark::State& state) {
  const jf::array<double> a(qd().a), b(qd().b);
  double s = 0;
  timed(state, [&] { s = jf::sum(a * b).item(); });
  double want = 0;
  for (std::size_t i = 0; i < qd().a.size(); ++i) want += qd().a[i] * qd().b[i];
  require(std::abs(s - want) < 1e-9 * want, "sum(a*b)");
  report(state, 16.0 * n_big);
}
void BM_SumOfProducts_handwritten(benchmark::State& state) {
  const auto& a = qd().a;
  const auto& b = qd().b;
  timed(state, [&] {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    benchmark::DoNotOptimize(s);
  });
  report(state, 16.0 * n_big);
}

constexpr i64 rows = 4096, cols = 4096;
const std::vector<double>& matrix() {
  static const std::vector<double> m = uniform<double>(rows * cols, -1, 1, 6);
  return m;
}
void BM_RowSums_jetfuse(benchmark::State& state) {
  const jf::array<double> m = jf::array<double>(matrix()).reshape({rows, cols});
  jf::array<double> s = jf::zeros<double>({rows});
  timed(state, [&] { s = jf::sum(m, 1); });
  double want = 0;
  for (i64 c = 0; c < cols; ++c) want += matrix()[static_cast<std::size_t>(7 * cols + c)];
  require(std::abs(s.to_vector()[7] - want) < 1e-9, "row sums");
  report(state, 8.0 * rows * cols);
}
void BM_RowSums_handwritten(benchmark::State& state) {
  const auto& m = matrix();
  std::vector<double> s(rows);
  timed(state, [&] {
    for (i64 r = 0; r < rows; ++r) {
      double t = 0;
      for (i64 c = 0; c < cols; ++c) t += m[static_cast<std::size_t>(r * cols + c)];
      s[static_cast<std::size_t>(r)] = t;
    }
    benchmark::DoNotOptimize(s.data());
  });
  report(state, 8.0 * rows * cols);
}
void BM_ColumnSums_jetfuse(benchmark::State& state) {
  const jf::array<double> m = jf::array<double>(matrix()).reshape({rows, cols});
  jf::array<double> s = jf::zeros<double>({cols});
  timed(state, [&] { s = jf::sum(m, 0); });
  double want = 0;
  for (i64 r = 0; r < rows; ++r) want += matrix()[static_cast<std::size_t>(r * cols + 7)];
  require(std::abs(s.to_vector()[7] - want) < 1e-9, "column sums");
  report(state, 8.0 * rows * cols);
}
void BM_ColumnSums_handwritten(benchmark::State& state) {
  const auto& m = matrix();
  std::vector<double> s(cols);
  timed(state, [&] {
    std::fill(s.begin(), s.end(), 0.0);
    for (i64 r = 0; r < rows; ++r)
      for (i64 c = 0; c < cols; ++c) s[static_cast<std::size_t>(c)] += m[static_cast<std::size_t>(r * cols + c)];
    benchmark::DoNotOptimize(s.data());
  });
  report(state, 8.0 * rows * cols);
}

void BM_Histogram_jetfuse(benchmark::State& state) {
  const jf::array<double> x(qd().c);  // U(-1, 1)
  timed(state, [&] {
    auto [h, edges] = jf::histogram(x, 100, {-1.0, 1.0});
    benchmark::DoNotOptimize(h);
  });
  report(state, 8.0 * n_big);
}
void BM_Histogram_handwritten(benchmark::State& state) {
  const auto& x = qd().c;
  std::vector<i64> h(100);
  timed(state, [&] {
    std::fill(h.begin(), h.end(), 0);
    for (double e : x) {
      if (!(e >= -1.0 && e <= 1.0)) continue;
      const i64 k = std::min<i64>(99, static_cast<i64>((e + 1.0) * 50.0));
      ++h[static_cast<std::size_t>(k)];
    }
    benchmark::DoNotOptimize(h.data());
  });
  report(state, 8.0 * n_big);
}

// ---- indexing and scans -----------------------------------------------------------------------------
const std::vector<i64>& permutation() {
  static const std::vector<i64> p = [] {
    std::vector<i64> v(static_cast<std::size_t>(n_big));
    std::iota(v.begin(), v.end(), 0);
    std::shuffle(v.begin(), v.end(), std::mt19937_64(7));
    return v;
  }();
  return p;
}
void BM_TakeRandom_jetfuse(benchmark::State& state) {
  const jf::array<double> x(qd().b);
  const jf::array<i64> p(permutation());
  jf::array<double> y = jf::zeros<double>({n_big});
  y = jf::take(x, p);
  require(y.to_vector()[11] == qd().b[static_cast<std::size_t>(permutation()[11])], "take");
  timed(state, [&] { y = jf::take(x, p); });
  report(state, 24.0 * n_big);
}
void BM_TakeRandom_handwritten(benchmark::State& state) {
  const auto& x = qd().b;
  const auto& p = permutation();
  std::vector<double> y(x.size());
  timed(state, [&] {
    for (std::size_t i = 0; i < y.size(); ++i) {
      const i64 k = p[i];
      if (k < 0 || k >= static_cast<i64>(x.size())) std::abort();  // numpy checks every index too
      y[i] = x[static_cast<std::size_t>(k)];
    }
    benchmark::DoNotOptimize(y.data());
  });
  report(state, 24.0 * n_big);
}

void BM_Mask50_jetfuse(benchmark::State& state) {
  const jf::array<double> x(qd().c);
  i64 kept = 0;
  timed(state, [&] {
    const jf::array<double> y = x(x > 0.0);
    kept = y.size();
  });
  report(state, 8.0 * n_big + 8.0 * static_cast<double>(kept));
}
void BM_Mask50_handwritten(benchmark::State& state) {
  const auto& x = qd().c;
  i64 kept = 0;
  timed(state, [&] {
    std::vector<double> y;
    y.reserve(x.size());
    for (double e : x)
      if (e > 0.0) y.push_back(e);
    kept = static_cast<i64>(y.size());
    benchmark::DoNotOptimize(y.data());
  });
  report(state, 8.0 * n_big + 8.0 * static_cast<double>(kept));
}

void BM_CumsumInt32_jetfuse(benchmark::State& state) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n_big));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i % 7) - 3;
  const jf::array<std::int32_t> x(v);
  jf::array<i64> y = jf::zeros<i64>({n_big});
  timed(state, [&] { y = jf::cumsum(x); });
  i64 want = 0;
  for (std::size_t i = 0; i <= 100; ++i) want += v[i];
  require(y.to_vector()[100] == want, "cumsum");
  report(state, 12.0 * n_big);
}
void BM_CumsumInt32_handwritten(benchmark::State& state) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n_big));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i % 7) - 3;
  std::vector<i64> y(v.size());
  timed(state, [&] {
    i64 s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) y[i] = s += v[i];
    benchmark::DoNotOptimize(y.data());
  });
  report(state, 12.0 * n_big);
}

// ---- jagged: per-list max of 2^22 Poisson(2) lists, float32 -----------------------------------------------
struct lists_data {
  std::vector<i64> offsets;
  std::vector<float> content;
  lists_data() {
    std::mt19937_64 r(8);
    std::poisson_distribution<int> len(2.0);
    offsets.push_back(0);
    for (i64 i = 0; i < (i64{1} << 22); ++i) offsets.push_back(offsets.back() + len(r));
    content = uniform<float>(offsets.back(), 0, 100, 9);
  }
};
const lists_data& lists() {
  static const lists_data d;
  return d;
}
double list_bytes() {
  return 8.0 * static_cast<double>(lists().offsets.size()) + 4.0 * static_cast<double>(lists().content.size());
}
void BM_ListMax_jetfuse(benchmark::State& state) {
  const jf::jagged<float> x(jf::array<i64>(lists().offsets), jf::array<float>(lists().content));
  timed(state, [&] {
    jf::option_array<float> m = jf::max(x * 2, -1);
    benchmark::DoNotOptimize(m);
  });
  report(state, list_bytes() + 5.0 * static_cast<double>(lists().offsets.size() - 1));
}
void BM_ListMax_handwritten(benchmark::State& state) {
  const auto& d = lists();
  const std::size_t n = d.offsets.size() - 1;
  std::vector<float> m(n);
  std::vector<char> valid(n);
  timed(state, [&] {
    for (std::size_t i = 0; i < n; ++i) {
      float best = -INFINITY;
      for (i64 j = d.offsets[i]; j < d.offsets[i + 1]; ++j)
        best = std::max(best, 2 * d.content[static_cast<std::size_t>(j)]);
      m[i] = best;
      valid[i] = d.offsets[i + 1] > d.offsets[i];
    }
    benchmark::DoNotOptimize(m.data());
  });
  report(state, list_bytes() + 5.0 * static_cast<double>(n));
}

// ---- Monte Carlo: pi from 2^24 pairs, nothing stored ---------------------------------------------------------
void BM_MonteCarloPi_jetfuse(benchmark::State& state) {
  double pi = 0;
  timed(state, [&] {
    jf::random::philox gen(2026);
    auto u1 = gen.uniform<double>({n_big}, 0, 1);
    auto u2 = gen.uniform<double>({n_big}, 0, 1);
    pi = 4 * jf::mean(u1 * u1 + u2 * u2 < 1.0).item();
  });
  require(std::abs(pi - 3.14159) < 0.01, "pi");
  state.counters["samples/s"] = static_cast<double>(n_big) / call_seconds;
}
void BM_MonteCarloPi_handwritten(benchmark::State& state) {
  double pi = 0;
  timed(state, [&] {
    std::mt19937_64 r(2026);
    std::uniform_real_distribution<double> d(0, 1);
    i64 in = 0;
    for (i64 i = 0; i < n_big; ++i) {
      const double x = d(r), y = d(r);
      in += x * x + y * y < 1.0;
    }
    pi = 4.0 * static_cast<double>(in) / static_cast<double>(n_big);
  });
  require(std::abs(pi - 3.14159) < 0.01, "pi by hand");
  state.counters["samples/s"] = static_cast<double>(n_big) / call_seconds;
}

// ---- a small call: the quadratic formula on 1000 float64 into a new array (the host's cost) ------
constexpr i64 n_small = 1000;
struct small_data {
  std::vector<double> a = uniform<double>(n_small, 1, 2, 11), b = uniform<double>(n_small, 10, 20, 12),
                      c = uniform<double>(n_small, -1, 1, 13);
};
void BM_SmallCall_jetfuse(benchmark::State& state) {
  const small_data d;
  const jf::array<double> a(d.a), b(d.b), c(d.c);
  std::vector<double> want(static_cast<std::size_t>(n_small));
  for (std::size_t i = 0; i < want.size(); ++i)
    want[i] = (-d.b[i] + std::sqrt(d.b[i] * d.b[i] - 4 * d.a[i] * d.c[i])) / (2 * d.a[i]);
  require(close(jf::array<double>((-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a)).to_vector(), want, 1e-15), "small call");
  timed(state, [&] {
    jf::array<double> x = (-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a);
    benchmark::DoNotOptimize(x.data());
  });
  report(state, 0);
}
void BM_SmallCall_handwritten(benchmark::State& state) {
  const small_data d;
  timed(state, [&] {
    std::vector<double> x(static_cast<std::size_t>(n_small));
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = (-d.b[i] + std::sqrt(d.b[i] * d.b[i] - 4 * d.a[i] * d.c[i])) / (2 * d.a[i]);
    benchmark::DoNotOptimize(x.data());
  });
  report(state, 0);
}

}  // namespace

// Registered in this order: the copy first (the rows after it report their fraction of it).
#define JF_ROW(f) BENCHMARK(f)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.3)
JF_ROW(BM_Copy);
JF_ROW(BM_Quadratic_jetfuse);
JF_ROW(BM_Quadratic_handwritten);
JF_ROW(BM_SquareInt32_jetfuse);
JF_ROW(BM_SquareInt32_handwritten);
JF_ROW(BM_Sin2d_jetfuse);
JF_ROW(BM_Sin2d_handwritten);
JF_ROW(BM_AddInPlace_jetfuse);
JF_ROW(BM_AddInPlace_handwritten);
JF_ROW(BM_Diffusion_jetfuse);
JF_ROW(BM_Diffusion_handwritten);
JF_ROW(BM_SumOfProducts_jetfuse);
JF_ROW(BM_SumOfProducts_handwritten);
JF_ROW(BM_RowSums_jetfuse);
JF_ROW(BM_RowSums_handwritten);
JF_ROW(BM_ColumnSums_jetfuse);
JF_ROW(BM_ColumnSums_handwritten);
JF_ROW(BM_Histogram_jetfuse);
JF_ROW(BM_Histogram_handwritten);
JF_ROW(BM_TakeRandom_jetfuse);
JF_ROW(BM_TakeRandom_handwritten);
JF_ROW(BM_Mask50_jetfuse);
JF_ROW(BM_Mask50_handwritten);
JF_ROW(BM_CumsumInt32_jetfuse);
JF_ROW(BM_CumsumInt32_handwritten);
JF_ROW(BM_ListMax_jetfuse);
JF_ROW(BM_ListMax_handwritten);
JF_ROW(BM_MonteCarloPi_jetfuse);
JF_ROW(BM_MonteCarloPi_handwritten);
JF_ROW(BM_SmallCall_jetfuse);
JF_ROW(BM_SmallCall_handwritten);
BENCHMARK_MAIN();
