// Boolean-mask compaction against numpy's answers (tests/data/compaction_table.txt, written by
// tests/data/gen_compaction_table.py): x(mask) with masks of x's shape (arrays and expressions) and
// of lower rank (whole rows), flatnonzero, nonzero, argwhere, compress with and without an axis, on
// 0-d, empty, size-1 and 3-d shapes, masks 0 %, one, half and 100 % true, signed zeros and NaN, and
// numpy's errors, on both backends; then jf::cuda against the CPU executor on random inputs of many
// sizes and densities (0, 1, 50, 99, 100 % true), views, expressions, and the launches it costs.
// GPU tests skip without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::parse_shape;

struct compaction_case {
  std::string fn, dtype, xshape, mshape, axis;
  std::vector<std::string> x, mask;
  bool ok = true;
  std::string result_shape, error_type, error;
  std::vector<std::string> result;
};

std::vector<compaction_case> table() {
  std::vector<compaction_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/compaction_table.txt", 4)) {
    compaction_case c;
    c.fn = t.header.at(0);
    c.dtype = t.header.at(1);
    c.xshape = t.header.at(2);
    c.mshape = t.header.at(3);
    c.axis = t.header.at(4);
    auto words = [](const std::vector<std::string>& w) { return w.size() == 1 && w[0] == "-" ? std::vector<std::string>{} : w; };
    c.x = words(t.lines[0]);
    c.mask = words(t.lines[1]);
    c.ok = t.lines[2].at(0) == "ok";
    if (c.ok) {
      c.result_shape = t.lines[2].at(1);
      c.result = words(t.lines[3]);
    } else {
      c.error_type = t.lines[2].at(1);
      for (const std::string& w : t.lines[3]) c.error += (c.error.empty() ? "" : " ") + w;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Bit-equal floats (-0.0 told from 0.0), NaN equal to NaN.
template <class T> bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <class R> void expect_values(const jf::array<R>& r, const std::vector<std::string>& want) {
  const std::vector<R> got = jf::to_backend(r, jf::cpu).to_vector();
  const std::vector<R> w = test_support::parse_words<R>(want);
  ASSERT_EQ(got.size(), w.size());
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same(got[k], w[k])) << "element " << k << ": " << got[k] << " vs " << w[k];
}

template <class F> void expect_error(const compaction_case& c, F&& f) {
  if (c.error_type == "IndexError") EXPECT_EQ(message_of<jf::index_error>(f), c.error);
  else if (c.error_type == "ValueError") EXPECT_EQ(message_of<jf::value_error>(f), c.error);
  else FAIL() << "unexpected numpy error " << c.error_type;
}

template <class T> void check_case(const compaction_case& c, jf::device dev) {
  SCOPED_TRACE(c.fn + " " + c.dtype + " x " + c.xshape + " mask " + c.mshape + " axis " + c.axis + " on " + jf::to_string(dev));
  const jf::shape_t xs = parse_shape(c.xshape);
  const jf::array<T> x(test_support::parse_words<T>(c.x), xs, dev);
  jf::array<bool> m;
  if (c.mshape != "-") m = jf::array<bool>(test_support::parse_words<bool>(c.mask), parse_shape(c.mshape), dev);
  if (c.fn == "select") {
    if (!c.ok) {
      expect_error(c, [&] { const jf::array<T> y = x(m); });
      expect_error(c, [&] { const jf::array<T> y = x(jf::logical_not(jf::logical_not(m))); });
      return;
    }
    const jf::array<T> y = x(m);
    ASSERT_EQ(y.shape(), parse_shape(c.result_shape));
    expect_values(y, c.result);
    // The mask as an expression (fused into both kernels) gives the same.
    const jf::array<T> z = x(jf::logical_not(jf::logical_not(m)));
    ASSERT_EQ(z.shape(), y.shape());
    expect_values(z, c.result);
    EXPECT_EQ(jf::eval(x(m)).shape(), y.shape());
  } else if (c.fn == "flatnonzero") {
    const jf::array<i64> y = jf::flatnonzero(x);
    ASSERT_EQ(y.shape(), parse_shape(c.result_shape));
    expect_values(y, c.result);
    expect_values(jf::flatnonzero(x * 1), c.result);  // an expression operand
  } else if (c.fn == "nonzero") {
    if (!c.ok) return expect_error(c, [&] { (void)jf::nonzero(x); });
    const std::vector<jf::array<i64>> y = jf::nonzero(x);
    ASSERT_EQ(static_cast<int>(y.size()), x.ndim());
    std::vector<i64> all;
    for (const auto& a : y) {
      ASSERT_EQ(a.shape(), (jf::shape_t{std::stoll(c.result_shape)}));
      const auto v = jf::to_backend(a, jf::cpu).to_vector();
      all.insert(all.end(), v.begin(), v.end());
    }
    EXPECT_EQ(all, test_support::parse_words<i64>(c.result));
  } else if (c.fn == "argwhere") {
    const jf::array<i64> y = jf::argwhere(x);
    ASSERT_EQ(y.shape(), parse_shape(c.result_shape));
    expect_values(y, c.result);
  } else if (c.fn == "compress") {
    auto run = [&] { return c.axis == "None" ? jf::compress(m, x) : jf::compress(m, x, std::stoi(c.axis)); };
    if (!c.ok) return expect_error(c, [&] { (void)run(); });
    const jf::array<T> y = run();
    ASSERT_EQ(y.shape(), parse_shape(c.result_shape));
    expect_values(y, c.result);
    // An expression operand (evaluated, or fused when 1-d of the condition's length).
    const jf::array<T> z = c.axis == "None" ? jf::compress(m, x * T(1)) : jf::compress(m, x * T(1), std::stoi(c.axis));
    expect_values(z, c.result);
  } else {
    FAIL() << "unknown function " << c.fn;
  }
}

class CompactionTable : public test_support::on_backends {
};

TEST_P(CompactionTable, MatchesNumpy) {
  const std::vector<compaction_case> cases = table();
  ASSERT_GT(cases.size(), 500u);
  for (const compaction_case& c : cases) {
    test_support::with_dtype(c.dtype, [&]<class T>() { check_case<T>(c, GetParam()); });
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CompactionTable, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// ---- semantics on both backends ------------------------------------------------------------------

class Compaction : public test_support::on_backends {
};

TEST_P(Compaction, ViewsExpressionsAndAssignment) {
  std::vector<double> v(24);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 7) % 11) - 4.5;
  const jf::array<double> m(v, {4, 6}, dev());
  // A predicate of the values themselves, on a transposed view (C order of the view).
  const jf::array<double> t = m.transpose();
  std::vector<double> want;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j)
      if (v[static_cast<std::size_t>(j * 6 + i)] > 0) want.push_back(v[static_cast<std::size_t>(j * 6 + i)]);
  EXPECT_EQ(jf::array<double>(t(t > 0)).to_vector(), want);
  // A reversed, strided view.
  const jf::array<double> r = m(jf::range(3, jf::none, -2), jf::range(0, 6, 2));  // rows 3, 1; columns 0, 2, 4
  std::vector<double> rw;
  for (int i : {3, 1})
    for (int j : {0, 2, 4})
      if (std::fabs(v[static_cast<std::size_t>(i * 6 + j)]) < 3) rw.push_back(v[static_cast<std::size_t>(i * 6 + j)]);
  EXPECT_EQ(jf::array<double>(r(jf::abs(r) < 3)).to_vector(), rw);
  // Values computed in the kernel: compress of an expression of the condition's length.
  const jf::array<double> row = m(2, jf::all);
  const jf::array<bool> keep({true, false, true, true, false, true}, dev());
  std::vector<double> cw;
  for (int j = 0; j < 6; ++j)
    if (j != 1 && j != 4) cw.push_back(std::sqrt(std::fabs(v[static_cast<std::size_t>(12 + j)])) * 2);
  EXPECT_EQ(jf::array<double>(jf::compress(keep, jf::sqrt(jf::abs(row)) * 2.0)).to_vector(), cw);
  // Mask assignment still works on the same proxy, and reading after writing sees the write.
  jf::array<double> y = m.copy();
  y(y < 0) = 0.0;
  for (double e : jf::array<double>(y(y != 0)).to_vector()) EXPECT_GT(e, 0);
  EXPECT_EQ(jf::array<double>(y(y < 0)).size(), 0);
  // A mask whose shape a reduction decides is evaluated first.
  const jf::array<double> above = m(m > jf::mean(m));
  double mean = 0;
  for (double e : v) mean += e;
  mean /= 24;
  std::vector<double> aw;
  for (double e : v)
    if (e > mean) aw.push_back(e);
  EXPECT_EQ(above.to_vector(), aw);
  // nonzero of a 2-d expression: one array per axis.
  const auto nz = jf::nonzero(m > 2);
  ASSERT_EQ(nz.size(), 2u);
  std::vector<i64> rows, cols;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      if (v[static_cast<std::size_t>(i * 6 + j)] > 2) {
        rows.push_back(i);
        cols.push_back(j);
      }
  EXPECT_EQ(jf::to_backend(nz[0], jf::cpu).to_vector(), rows);
  EXPECT_EQ(jf::to_backend(nz[1], jf::cpu).to_vector(), cols);
  EXPECT_EQ(m.to_vector(), v);  // untouched
}

INSTANTIATE_TEST_SUITE_P(Backends, Compaction, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// ---- jf::cuda against the CPU executor ---------------------------------------------------------

#define JF_REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

// A mask with the given share of true, values 0, 1, 2, ...
template <class T> void compare_selection(std::size_t n, double share) {
  SCOPED_TRACE(std::string(jf::name(jf::dtype_v<T>)) + " n " + std::to_string(n) + " share " + std::to_string(share));
  auto& r = test_support::rng();
  std::vector<T> v(n);
  std::vector<unsigned char> mv(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = static_cast<T>(k % 100003);
    mv[k] = u(r) < share;
  }
  const jf::shape_t s{static_cast<std::int64_t>(n)};
  const jf::array<T> xc(v, s);
  std::vector<bool> mb(mv.begin(), mv.end());
  const jf::array<bool> mc(mb, s);
  const jf::array<T> xg = jf::to_backend(xc, jf::cuda);
  const jf::array<bool> mg = jf::to_backend(mc, jf::cuda);
  {  // poison the pool: the result's memory held something else before
    const jf::array<T> junk = jf::full<T>({static_cast<std::int64_t>(n) + 1}, T(-7), jf::cuda);
  }
  const jf::array<T> cpu = xc(mc), gpu = xg(mg);
  ASSERT_EQ(gpu.shape(), cpu.shape());
  EXPECT_EQ(host(gpu), cpu.to_vector());
  // Fused predicate and values: (x * 2)[x % 3 == 1]-like selections through compress of a 1-d expression.
  const jf::array<T> fc = jf::compress(xc > T(5), xc * T(2)), fg = jf::compress(xg > T(5), xg * T(2));
  EXPECT_EQ(host(fg), fc.to_vector());
  EXPECT_EQ(host(jf::flatnonzero(mg)), jf::flatnonzero(mc).to_vector());
}

TEST(CudaCompaction, SelectionsMatchTheCpuExecutor) {
  JF_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(33), std::size_t(1000),
                        (std::size_t(1) << 20) + 7, (std::size_t(1) << 24) + 3})
    for (double share : {0.0, 0.01, 0.5, 0.99, 1.0}) {
      compare_selection<double>(n, share);
      if (n <= 4096 || share == 0.5) {
        compare_selection<float>(n, share);
        compare_selection<std::int32_t>(n, share);
        compare_selection<i64>(n, share);
      }
      if (HasFatalFailure()) return;
    }
}

// A bool array as the mask is read 16 bytes a thread where it is C-contiguous and 16-byte aligned,
// element by element otherwise: both, at the edges of a thread's 16 elements and of a tile's 8192.
// The count before (count_true_fast: 16-byte words between a head and a tail of single bytes) the
// same: misaligned heads, tails, masks shorter than a word.
TEST(CudaCompaction, BoolMaskArraysAlignedOrNot) {
  JF_REQUIRE_GPU();
  auto& r = test_support::rng();
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t n : {0, 1, 15, 16, 17, 31, 33, 8191, 8192, 8193, 3 * 8192 + 5, (1 << 20) + 9, (1 << 22) + 3})
    for (double share : {0.5, 1.0}) {
      SCOPED_TRACE("n " + std::to_string(n) + " share " + std::to_string(share));
      std::vector<double> v(static_cast<std::size_t>(n) + 1);
      std::vector<bool> mb(v.size());
      for (std::size_t k = 0; k < v.size(); ++k) {
        v[k] = static_cast<double>(k) * 0.5 - 3;
        mb[k] = u(r) < share;
      }
      const jf::array<double> xc(v, {n + 1}), xg = jf::to_backend(xc, jf::cuda);
      const jf::array<bool> mc(mb, {n + 1}), mg = jf::to_backend(mc, jf::cuda);
      EXPECT_EQ(host(jf::array<double>(xg(mg))), jf::array<double>(xc(mc)).to_vector()) << "aligned";
      // From element 1: the mask's address is not 16-byte aligned.
      const jf::array<double> xs = xg(jf::range(1, n + 1)), xsc = xc(jf::range(1, n + 1));
      const jf::array<bool> ms = mg(jf::range(1, n + 1)), msc = mc(jf::range(1, n + 1));
      EXPECT_EQ(host(jf::array<double>(xs(ms))), jf::array<double>(xsc(msc)).to_vector()) << "misaligned";
      if (n % 2 == 1) {  // every other element: a strided mask
        const std::int64_t h = (n + 1) / 2;
        const jf::array<double> xh = xg.reshape({h, 2})(jf::all, 0), xhc = xc.reshape({h, 2})(jf::all, 0);
        const jf::array<bool> mh = mg.reshape({h, 2})(jf::all, 1), mhc = mc.reshape({h, 2})(jf::all, 1);
        EXPECT_EQ(host(jf::array<double>(xh(mh))), jf::array<double>(xhc(mhc)).to_vector()) << "strided";
      }
      if (HasFatalFailure()) return;
    }
  // 2-d: C-contiguous (words over both axes, rows of 1000 not a multiple of 16) and transposed.
  std::vector<bool> mb(300 * 1000);
  std::vector<float> v(mb.size());
  for (std::size_t k = 0; k < mb.size(); ++k) {
    mb[k] = u(r) < 0.3;
    v[k] = static_cast<float>(k);
  }
  const jf::array<bool> mc(mb, {300, 1000}), mg = jf::to_backend(mc, jf::cuda);
  const jf::array<float> xc(v, {300, 1000}), xg = jf::to_backend(xc, jf::cuda);
  EXPECT_EQ(host(jf::array<float>(xg(mg))), jf::array<float>(xc(mc)).to_vector());
  EXPECT_EQ(host(jf::array<float>(xg.transpose()(mg.transpose()))),
            jf::array<float>(xc.transpose()(mc.transpose())).to_vector());
  EXPECT_EQ(host(jf::flatnonzero(mg)), jf::flatnonzero(mc).to_vector());
}

TEST(CudaCompaction, NdMasksRowsAndIndices) {
  JF_REQUIRE_GPU();
  auto& r = test_support::rng();
  std::vector<float> v(64 * 300 * 7);
  std::normal_distribution<double> g(0, 1);
  for (auto& e : v) e = static_cast<float>(g(r));
  const jf::array<float> xc(v, {64, 300, 7});
  const jf::array<float> xg = jf::to_backend(xc, jf::cuda);
  EXPECT_EQ(host(jf::array<float>(xg(xg > 0.5f))), jf::array<float>(xc(xc > 0.5f)).to_vector());
  const jf::array<float> tc = xc.transpose(), tg = xg.transpose();
  EXPECT_EQ(host(jf::array<float>(tg(tg < -1.0f))), jf::array<float>(tc(tc < -1.0f)).to_vector());
  // A dense selection (about 70 %) whose values come from other, strided operands than the mask:
  // the kernel prefetches their lines (3 axes unravelled, transposed strides).
  const jf::array<float> wc = xc * 3.0f, wg = jf::to_backend(wc, jf::cuda);
  EXPECT_EQ(host(jf::array<float>(wg.transpose()(tg > -0.5f))), jf::array<float>(wc.transpose()(tc > -0.5f)).to_vector());
  const auto nc = jf::nonzero(xc > 1.0f), ng = jf::nonzero(xg > 1.0f);
  ASSERT_EQ(ng.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(host(ng[static_cast<std::size_t>(k)]), nc[static_cast<std::size_t>(k)].to_vector());
  EXPECT_EQ(host(jf::argwhere(xg > 2.0f)), jf::argwhere(xc > 2.0f).to_vector());
  // Rows by a 1-d mask, columns by compress along an axis.
  std::vector<bool> rows(64);
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = (k * 5) % 3 == 0;
  const jf::array<bool> rc(rows, {64}), rg = jf::to_backend(rc, jf::cuda);
  EXPECT_EQ(host(jf::array<float>(xg(rg))), jf::array<float>(xc(rc)).to_vector());
  std::vector<bool> cols(300);
  for (std::size_t k = 0; k < cols.size(); ++k) cols[k] = k % 7 < 3;
  const jf::array<bool> cc(cols, {300}), cg = jf::to_backend(cc, jf::cuda);
  EXPECT_EQ(host(jf::compress(cg, xg, 1)), jf::compress(cc, xc, 1).to_vector());
}

TEST(CudaCompaction, CountThenOneFusedKernel) {
  JF_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const jf::array<double> x = jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda);
  jf::array<double> y = x(x * 3 < 1000);  // compiled once
  jf::synchronize();
  jf::reset_stats();
  y = x(jf::sin(x) > 0.5);
  jf::synchronize();
  // The count (a full reduction of the mask), then the compaction's kernel launched twice (each
  // tile's selected elements counted, then stored at the tile's offset): three.
  EXPECT_EQ(jf::stats().launches, 3u) << jf::to_string(jf::stats());
  EXPECT_EQ(jf::stats().temporaries, 0u);
  // A bool array as the mask: counted by count_true_fast's kernel (not a generated one, so not
  // among the launches), then the same two launches; the same selection.
  const jf::array<bool> m = jf::sin(x) > 0.5;
  jf::synchronize();
  jf::reset_stats();
  const jf::array<double> z = x(m);
  jf::synchronize();
  EXPECT_EQ(jf::stats().launches, 2u) << jf::to_string(jf::stats());
  ASSERT_GT(z.size(), 1000);
  EXPECT_EQ(host(z), host(y));
}

}  // namespace
