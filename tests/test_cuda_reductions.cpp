// Reductions on jf::cuda against numpy's table and against the CPU executor (fused and unfused),
// with bit-equality of repeated GPU runs, one kernel where the plan promises one, and bit-equality
// of + - * / maps with the CPU. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "cuda/codegen/nest_emitter.hpp"  // set_row_splits
#include "gpu_test_util.hpp"
#include "reduction_table.hpp"

namespace {

std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const std::uint64_t v = std::random_device{}();
    std::printf("test_cuda_reductions: random seed %llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

template <class T> std::vector<T> random_vector(std::size_t n, std::mt19937_64& r, bool nans = false) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < n; ++i) v[i] = (r() & 3) == 0;
  } else if constexpr (std::is_integral_v<T>) {
    for (auto& x : v) x = static_cast<T>(static_cast<long long>(r() % 2001) - 1000);
  } else {
    std::uniform_real_distribution<double> u(-4, 4);
    for (auto& x : v) x = (nans && r() % 97 == 0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(u(r));
  }
  return v;
}

template <class T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  if constexpr (std::is_same_v<T, bool>) return a == b;
  else return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// got (GPU) against want (CPU executor): exact unless a floating sum's order differs.
template <class T> ::testing::AssertionResult agree(const std::vector<T>& got, const std::vector<T>& want, bool exact,
                                                    double terms) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i]) || std::isnan(got[i])) ok = std::isnan(want[i]) && std::isnan(got[i]);
      else if (exact) ok = got[i] == want[i];
      else
        ok = std::fabs(double(got[i]) - double(want[i])) <=
             (std::is_same_v<T, float> ? 1e-6 : 1e-14) * std::sqrt(terms) * (8 + std::fabs(double(want[i])));
    } else {
      ok = got[i] == want[i];
    }
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": GPU " << got[i] << ", CPU " << want[i];
  }
  return ::testing::AssertionSuccess();
}

TEST(CudaReductions, NumpyTable) {
  JF_REQUIRE_GPU();
  reduction_table::run_table(jf::cuda);
}

// Each reducer on shapes that pick every kernel shape: full, row (1, 31, 33, 1000, 40000 long),
// column, and nests, fused and unfused, against the CPU executor.
template <class T> void against_cpu(const jf::shape_t& shape, std::mt19937_64& r) {
  const auto v = random_vector<T>(static_cast<std::size_t>(shape.product()), r, true);
  const jf::array<T> hx(v, shape, jf::cpu);
  const jf::array<T> dx = jf::to_backend(hx, jf::cuda);
  const std::string what = std::string(jf::name(jf::dtype_v<T>)) + " " + jf::to_string(shape);
  auto check = [&](const char* name, auto make, bool exact) {
    for (int axis = -1; axis < shape.size(); ++axis) {
      auto run = [&](const jf::array<T>& x, bool unfused) {
        if (axis < 0) return unfused ? jf::eval(jf::unfused, make(x, -1)) : jf::eval(make(x, -1));
        return unfused ? jf::eval(jf::unfused, make(x, axis)) : jf::eval(make(x, axis));
      };
      std::vector<typename decltype(run(hx, false))::value_type> want;
      try {
        want = run(hx, false).to_vector();
      } catch (const jf::value_error&) {  // an empty reduction without identity: the GPU raises too
        EXPECT_THROW((void)run(dx, false), jf::value_error) << name << " axis " << axis << " of " << what;
        continue;
      }
      auto got = jf::to_backend(run(dx, false), jf::cpu).to_vector();
      auto again = jf::to_backend(run(dx, false), jf::cpu).to_vector();
      auto unf = jf::to_backend(run(dx, true), jf::cpu).to_vector();
      const double terms = double(axis < 0 ? shape.product() : shape[axis]);
      EXPECT_TRUE(agree(got, want, exact, terms)) << name << " axis " << axis << " of " << what;
      EXPECT_TRUE(agree(unf, want, exact, terms)) << name << " (unfused) axis " << axis << " of " << what;
      EXPECT_TRUE(same_bits(got, again)) << name << " axis " << axis << " of " << what << ": two GPU runs differ";
    }
  };
  auto ax = [](auto f) {
    return [f](const jf::array<T>& x, int axis) { return axis < 0 ? f(x) : f(x, axis); };
  };
  check("sum(x*2)", [](const jf::array<T>& x, int axis) { return axis < 0 ? jf::sum(x * 2) : jf::sum(x * 2, axis); }, std::is_integral_v<T>);
  check("max", ax([](auto&&... a) { return jf::max(a...); }), true);
  check("min", ax([](auto&&... a) { return jf::min(a...); }), true);
  check("argmax", ax([](auto&&... a) { return jf::argmax(a...); }), true);
  check("argmin", ax([](auto&&... a) { return jf::argmin(a...); }), true);
  check("any", ax([](auto&&... a) { return jf::any(a...); }), true);
  check("all", ax([](auto&&... a) { return jf::all(a...); }), true);
  check("count_nonzero", ax([](auto&&... a) { return jf::count_nonzero(a...); }), true);
  if constexpr (!std::is_same_v<T, bool>) {
    check("mean", ax([](auto&&... a) { return jf::mean(a...); }), false);
    check("var", ax([](auto&&... a) { return jf::var(a...); }), false);
    check("nanmax", ax([](auto&&... a) { return jf::nanmax(a...); }), true);
    check("nansum", ax([](auto&&... a) { return jf::nansum(a...); }), std::is_integral_v<T>);
  }
}

TEST(CudaReductions, AgainstCpuExecutor) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed());
  const jf::shape_t shapes[] = {{0}, {1}, {7}, {1000}, {1 << 20 | 3}, {3, 1}, {5, 31}, {7, 33}, {4, 1000},
                                {3, 40000}, {40000, 3}, {257, 129}, {2, 3, 513}, {0, 5}, {5, 0}};
  for (const auto& s : shapes) {
    against_cpu<double>(s, r);
    against_cpu<float>(s, r);
    against_cpu<std::int32_t>(s, r);
    against_cpu<std::int64_t>(s, r);
    against_cpu<bool>(s, r);
    if (::testing::Test::HasFailure()) return;
  }
}

// Rows of 2048 and more get a 256-thread block each and a grid of a block for every row (the row
// shape's launch rule): more rows than 4 waves of resident blocks (4224 on an H100 / H200), odd row
// lengths, NaN in some rows; results against the CPU executor, outputs poisoned first.
TEST(CudaReductions, LongRowsBeyondFourWavesOfBlocks) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 4);
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{4999, 2048}, {6000, 2053}}) {
    const auto xv = random_vector<float>(static_cast<std::size_t>(m * n), r, true);
    const jf::array<float> hx(xv, {m, n}, jf::cpu);
    const jf::array<float> dx = jf::to_backend(hx, jf::cuda);
    const std::string what = std::to_string(m) + " x " + std::to_string(n);
    jf::array<float> s = jf::full<float>({m}, -7.f, jf::cuda), mx = jf::full<float>({m}, -7.f, jf::cuda);
    jf::array<std::int64_t> am = jf::full<std::int64_t>({m}, -7, jf::cuda);
    s = jf::sum(dx, 1);
    mx = jf::max(dx, 1);
    am = jf::argmax(dx, 1);
    EXPECT_TRUE(agree(jf::to_backend(s, jf::cpu).to_vector(), jf::eval(jf::sum(hx, 1)).to_vector(), false, double(n)))
        << what;
    EXPECT_TRUE(agree(jf::to_backend(mx, jf::cpu).to_vector(), jf::eval(jf::max(hx, 1)).to_vector(), true, double(n)))
        << what;
    EXPECT_TRUE(
        agree(jf::to_backend(am, jf::cpu).to_vector(), jf::eval(jf::argmax(hx, 1)).to_vector(), true, double(n)))
        << what;
    jf::array<float> c = jf::full<float>({m, n}, -7.f, jf::cuda);
    c = dx - jf::mean(dx, 1, jf::keepdims);
    const jf::array<float> want = hx - jf::mean(hx, 1, jf::keepdims);
    EXPECT_TRUE(agree(jf::to_backend(c, jf::cpu).to_vector(), want.to_vector(), false, double(n))) << what;
  }
}

// Few long rows split over blockIdx.y (configure_row_reduction, on by default): each block reduces
// its split, the row's last block combines the splits in order. Rows fewer than a wave of blocks,
// lengths odd and not multiples of the 256-element runs, NaN in floats, every monoid the row shape
// combines; against the CPU executor, the same bits twice, the outputs poisoned first, and again
// with the splits off (the per-row kernel).
TEST(CudaReductions, FewLongRowsSplitOverBlocks) {
  JF_REQUIRE_GPU();
  struct splits_restored {
    ~splits_restored() { jf::ir::nest::set_row_splits(true); }
  } restore;
  std::mt19937_64 r(seed() + 5);
  // 1100 rows: just past a wave of blocks on a 132-SM H100/H200 (1056), split about 4 ways.
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{2, (1 << 20) + 1},
                             {8, 300001},
                             {3, 20497},
                             {100, 70001},
                             {1100, 16411}}) {
    const std::string what = std::to_string(m) + " x " + std::to_string(n);
    const auto fv = random_vector<float>(static_cast<std::size_t>(m * n), r, true);
    const auto dv = random_vector<double>(static_cast<std::size_t>(m * n), r, false);
    const auto iv = random_vector<std::int32_t>(static_cast<std::size_t>(m * n), r);
    const jf::array<float> hf(fv, {m, n}, jf::cpu);
    const jf::array<double> hd(dv, {m, n}, jf::cpu);
    const jf::array<std::int32_t> hi(iv, {m, n}, jf::cpu);
    const auto df = jf::to_backend(hf, jf::cuda);
    const auto dd = jf::to_backend(hd, jf::cuda);
    const auto di = jf::to_backend(hi, jf::cuda);
    for (int round = 0; round < 2; ++round) {  // splits on, then off
      jf::array<float> fs = jf::full<float>({m}, -7.f, jf::cuda), fm = jf::full<float>({m}, -7.f, jf::cuda);
      jf::array<std::int64_t> fa = jf::full<std::int64_t>({m}, -7, jf::cuda),
                              da = jf::full<std::int64_t>({m}, -7, jf::cuda);
      jf::array<double> dn = jf::full<double>({m}, -7.0, jf::cuda), dm = jf::full<double>({m}, -7.0, jf::cuda);
      jf::array<std::int64_t> is = jf::full<std::int64_t>({m}, -7, jf::cuda),
                              ic = jf::full<std::int64_t>({m}, -7, jf::cuda);
      fs = jf::sum(df, 1);
      fm = jf::max(df, 1);
      fa = jf::argmax(df, 1);
      da = jf::argmin(dd, 1);
      dn = jf::sqrt(jf::sum(dd * dd, 1));  // the row's value computed after the splits are combined
      dm = jf::mean(dd, 1);
      is = jf::sum(di, 1);
      ic = jf::count_nonzero(di > 500, 1);
      const auto cpu = [](const auto& a) { return jf::to_backend(a, jf::cpu).to_vector(); };
      const double nn = double(n);
      EXPECT_TRUE(agree(cpu(fs), jf::eval(jf::sum(hf, 1)).to_vector(), false, nn)) << "float sum, " << what;
      EXPECT_TRUE(agree(cpu(fm), jf::eval(jf::max(hf, 1)).to_vector(), true, nn)) << "float max, " << what;
      EXPECT_TRUE(agree(cpu(fa), jf::eval(jf::argmax(hf, 1)).to_vector(), true, nn)) << "float argmax, " << what;
      EXPECT_TRUE(agree(cpu(da), jf::eval(jf::argmin(hd, 1)).to_vector(), true, nn)) << "double argmin, " << what;
      EXPECT_TRUE(agree(cpu(dn), jf::eval(jf::sqrt(jf::sum(hd * hd, 1))).to_vector(), false, nn)) << "norm, " << what;
      EXPECT_TRUE(agree(cpu(dm), jf::eval(jf::mean(hd, 1)).to_vector(), false, nn)) << "double mean, " << what;
      EXPECT_TRUE(agree(cpu(is), jf::eval(jf::sum(hi, 1)).to_vector(), true, nn)) << "int32 sum, " << what;
      EXPECT_TRUE(agree(cpu(ic), jf::eval(jf::count_nonzero(hi > 500, 1)).to_vector(), true, nn)) << "count, " << what;
      const jf::array<float> again = jf::sum(df, 1);
      EXPECT_TRUE(same_bits(cpu(again), cpu(fs))) << "two GPU runs differ, " << what;
      jf::ir::nest::set_row_splits(false);
    }
    jf::ir::nest::set_row_splits(true);
  }
}

// Full reductions whose loop reads only one-byte inputs take 16 elements a thread per 16-byte load
// (shape_full_reduction.cpp) when the inputs are aligned and row-major, and the laned loop takes
// the rest: sizes around 16-element vectors and two vectors a trip, views that are not aligned
// (x[1:]), not row-major (a column window, a transpose), two masks of which one is not aligned,
// bool and int8 through every monoid kind (sums, extrema, positions: the first true, any, all);
// against the CPU executor, outputs poisoned first.
TEST(CudaReductions, OneByteInputsSixteenAtATime) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 6);
  const auto open = jf::range::none;
  for (std::int64_t n : {0, 1, 15, 16, 17, 31, 33, 4095, 8192 * 16 + 7, 1 << 20, (1 << 22) + 19}) {
    const std::string what = "n = " + std::to_string(n);
    std::vector<bool> mv(static_cast<std::size_t>(n)), kv(static_cast<std::size_t>(n));
    const bool rare = n % 2 == 1;  // a first true far in (argmax) or none
    for (std::size_t i = 0; i < mv.size(); ++i) {
      mv[i] = rare ? r() % 100000 == 0 : (r() & 3) == 0;
      kv[i] = (r() & 1) == 0;
    }
    const auto iv = random_vector<std::int8_t>(static_cast<std::size_t>(n), r);
    const jf::array<bool> hm(mv, {n}, jf::cpu), hk(kv, {n}, jf::cpu);
    const jf::array<std::int8_t> hi(iv, {n}, jf::cpu);
    const auto dm = jf::to_backend(hm, jf::cuda), dk = jf::to_backend(hk, jf::cuda);
    const auto di = jf::to_backend(hi, jf::cuda);
    auto check = [&](const std::string& name, auto gpu, auto cpu) {
      using T = typename decltype(jf::eval(cpu))::value_type;
      jf::array<T> got = jf::full<T>({}, T(7), jf::cuda);
      if (n == 0 && (name.find("arg") != std::string::npos || name.find("max") != std::string::npos)) {
        EXPECT_THROW(got = gpu, jf::value_error) << name << ": no identity, numpy raises";  // as the CPU does
        EXPECT_THROW((void)jf::eval(cpu), jf::value_error) << name;
        return;
      }
      got = gpu;
      EXPECT_EQ(jf::to_backend(got, jf::cpu).to_vector(), jf::eval(cpu).to_vector()) << name << ", " << what;
    };
    check("count_nonzero", jf::count_nonzero(dm), jf::count_nonzero(hm));
    check("any", jf::any(dm), jf::any(hm));
    check("all", jf::all(dk | dm), jf::all(hk | hm));
    check("argmax (first true)", jf::argmax(dm), jf::argmax(hm));
    check("argmin", jf::argmin(dk), jf::argmin(hk));
    check("two masks", jf::count_nonzero(dm & !dk), jf::count_nonzero(hm & !hk));
    check("int8 sum", jf::sum(di), jf::sum(hi));
    check("int8 max", jf::max(di * 2), jf::max(hi * 2));
    check("int8 argmin", jf::argmin(di), jf::argmin(hi));
    check("int8 where", jf::sum(jf::where(dm, di, std::int8_t(1))), jf::sum(jf::where(hm, hi, std::int8_t(1))));
    if (n < 2) continue;
    check("unaligned view", jf::count_nonzero(dm(jf::range(1, open))), jf::count_nonzero(hm(jf::range(1, open))));
    check("one mask unaligned", jf::count_nonzero(dm(jf::range(1, open)) & dk(jf::range(open, -1))),
          jf::count_nonzero(hm(jf::range(1, open)) & hk(jf::range(open, -1))));
    check("unaligned int8", jf::sum(di(jf::range(3, open))), jf::sum(hi(jf::range(3, open))));
    if (n % 16 != 0) continue;
    const std::int64_t rows = n / 16;  // 2-D: row-major, a column window, a transpose
    const auto dm2 = dm.reshape({rows, 16}), hm2 = hm.reshape({rows, 16});
    check("2-D", jf::count_nonzero(dm2), jf::count_nonzero(hm2));
    check("2-D argmax", jf::argmax(dm2), jf::argmax(hm2));
    check("column window", jf::count_nonzero(dm2(jf::all, jf::range(open, 8))),
          jf::count_nonzero(hm2(jf::all, jf::range(open, 8))));
    check("transpose", jf::argmax(dm2.transpose()), jf::argmax(hm2.transpose()));
  }
}

TEST(CudaReductions, FusedExpressionsAndKernelCounts) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 1);
  const std::int64_t m = 300, n = 4099;
  const auto xv = random_vector<float>(static_cast<std::size_t>(m * n), r);
  const jf::array<float> hx(xv, {m, n}, jf::cpu);
  const jf::array<float> dx = jf::to_backend(hx, jf::cuda);
  // Poisoned output: every element must be written.
  jf::array<float> y = jf::full<float>({m, n}, std::numeric_limits<float>::quiet_NaN(), jf::cuda);
  jf::synchronize();
  jf::reset_stats();
  y = dx - jf::mean(dx, 1, jf::keepdims);
  jf::synchronize();
  EXPECT_EQ(jf::stats().launches, 1u) << jf::explain(dx - jf::mean(dx, 1, jf::keepdims));
  const jf::array<float> want = hx - jf::mean(hx, 1, jf::keepdims);
  EXPECT_TRUE(agree(jf::to_backend(y, jf::cpu).to_vector(), want.to_vector(), false, double(n)));

  const jf::array<double> a = jf::to_backend(jf::array<double>(random_vector<double>(1 << 20, r)), jf::cuda);
  const jf::array<double> b = jf::to_backend(jf::array<double>(random_vector<double>(1 << 20, r)), jf::cuda);
  jf::array<double> s = jf::zeros<double>({}, jf::cuda);
  jf::synchronize();
  jf::reset_stats();
  s = jf::sum(a * b);
  jf::synchronize();
  EXPECT_EQ(jf::stats().launches, 1u) << jf::explain(jf::sum(a * b));
  const double cpu = jf::sum(jf::to_backend(a, jf::cpu) * jf::to_backend(b, jf::cpu)).item();
  EXPECT_NEAR(s.item(), cpu, 1e-9);
  EXPECT_EQ(jf::sum(a * b).item(), s.item());  // the same bits again
  EXPECT_NEAR(jf::sqrt(jf::sum(a * a)).item(), jf::norm(jf::to_backend(a, jf::cpu)).item(), 1e-9);

  // Column means used by every row: a stored temporary, two kernels; nested reductions.
  const jf::array<float> cm = hx - jf::mean(hx, 0);
  jf::array<float> dcm = dx - jf::mean(dx, 0);
  EXPECT_TRUE(agree(jf::to_backend(dcm, jf::cpu).to_vector(), cm.to_vector(), false, double(m)));
  // float32 sums of 1.2 million squares: each backend against a float64 reference of the same.
  double ss_ref = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    float rs = 0;  // the row mean as jetfuse computes it: float32 sum / n
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += xv[static_cast<std::size_t>(i * n + j)];
    rs = static_cast<float>(s / double(n));
    for (std::int64_t j = 0; j < n; ++j) {
      const double d = double(xv[static_cast<std::size_t>(i * n + j)] - rs);
      ss_ref += d * d;
    }
  }
  const float ss_cpu = jf::sum(jf::square(hx - jf::mean(hx, 1, jf::keepdims))).item();
  const float ss_gpu = jf::sum(jf::square(dx - jf::mean(dx, 1, jf::keepdims))).item();
  EXPECT_NEAR(ss_gpu, ss_ref, 1e-4 * ss_ref);
  EXPECT_NEAR(ss_cpu, ss_ref, 1e-3 * ss_ref);
  auto [lo, hi] = jf::eval(jf::min(dx, 1), jf::max(dx, 1));
  EXPECT_EQ(jf::to_backend(lo, jf::cpu).to_vector(), jf::eval(jf::min(hx, 1)).to_vector());
  EXPECT_EQ(jf::to_backend(hi, jf::cpu).to_vector(), jf::eval(jf::max(hx, 1)).to_vector());
  // A transposed (strided) operand and an in-place update through a temporary.
  jf::array<float> ct = jf::sum(dx.transpose(), 1);
  EXPECT_TRUE(agree(jf::to_backend(ct, jf::cpu).to_vector(), jf::eval(jf::sum(hx, 0)).to_vector(), false, double(m)));
  jf::array<float> z = dx.copy();
  z = z - jf::mean(z, 1, jf::keepdims);
  EXPECT_TRUE(agree(jf::to_backend(z, jf::cpu).to_vector(), want.to_vector(), false, double(n)));
}

// Column and full reductions share one scratch buffer per thread, their counters reset by the
// kernels (launch_nest.cpp): interleaved reductions with more and fewer counters than the previous
// one (whose partials lie where the next one's counters are) must each see zeroed counters.
TEST(CudaReductions, ReusedScratchAcrossShapes) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 3);
  const jf::shape_t shapes[] = {{2000, 5000}, {3000, 700}, {1 << 20 | 3}, {4000, 300}, {600, 4100}};
  std::vector<jf::array<float>> hf, df;
  std::vector<jf::array<double>> hd, dd;
  for (const auto& s : shapes) {
    const std::size_t n = static_cast<std::size_t>(s.product());
    hf.emplace_back(random_vector<float>(n, r), s);
    df.push_back(jf::to_backend(hf.back(), jf::cuda));
    hd.emplace_back(random_vector<double>(n, r), s);
    dd.push_back(jf::to_backend(hd.back(), jf::cuda));
  }
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < std::size(shapes); ++i) {
      const std::size_t k = (i * 3 + static_cast<std::size_t>(round)) % std::size(shapes);  // a new order each round
      const double rows = double(shapes[k][0]);
      EXPECT_TRUE(agree(jf::to_backend(jf::eval(jf::sum(df[k], 0)), jf::cpu).to_vector(),
                        jf::eval(jf::sum(hf[k], 0)).to_vector(), false, rows))
          << "float32 sum axis 0 of shape " << k << " round " << round;
      EXPECT_TRUE(agree(jf::to_backend(jf::eval(jf::sum(dd[k])), jf::cpu).to_vector(), jf::eval(jf::sum(hd[k])).to_vector(),
                        false, double(shapes[k].product())))
          << "float64 sum of shape " << k << " round " << round;
      EXPECT_TRUE(agree(jf::to_backend(jf::eval(jf::max(dd[k], 0)), jf::cpu).to_vector(),
                        jf::eval(jf::max(hd[k], 0)).to_vector(), true, rows))
          << "float64 max axis 0 of shape " << k << " round " << round;
    }
}

TEST(CudaReductions, MapsAreBitIdenticalWithTheCpu) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 2);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1001), std::int64_t(1) << 20}) {
    const auto av = random_vector<double>(static_cast<std::size_t>(n), r), bv = random_vector<double>(static_cast<std::size_t>(n), r);
    const jf::array<double> ha(av), hb(bv);
    const jf::array<double> da = jf::to_backend(ha, jf::cuda), db = jf::to_backend(hb, jf::cuda);
    auto cmp = [&](auto h, auto d, const char* op) {
      EXPECT_TRUE(same_bits(jf::to_backend(jf::eval(d), jf::cpu).to_vector(), jf::eval(h).to_vector())) << op << " n=" << n;
    };
    cmp(ha + hb, da + db, "+");
    cmp(ha - hb, da - db, "-");
    cmp(ha * hb, da * db, "*");
    cmp(ha / hb, da / db, "/");
    cmp(ha * hb + ha / (hb - 1.5), da * db + da / (db - 1.5), "a*b + a/(b-1.5)");
  }
}

}  // namespace
