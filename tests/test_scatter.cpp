// Scatters: jf::put, x(indices) = v, x(indices) += v, jf::add_at and its siblings.
//  - numpy's results and errors from tests/data/scatter_table.txt (gen_scatter_table.py): every dtype,
//    duplicate and negative indices, put's modes and cyclic values, 1-3-d targets with broadcasting,
//    Python scalars, the dtype ufunc.at computes in; x untouched after an error; on both backends;
//  - the GPU against the CPU executor on random inputs: sizes 0, 1, odd, 2^20 + 3 (2^24 for the
//    claims' determinism), many duplicates, views as targets, indices and values, expressions
//    computing indices and values in the kernel, untouched elements kept (poisoned targets);
//  - out-of-range indices: jf::index_error with numpy's message, x untouched, the next evaluation
//    fine; the plans (one kernel of shape scatter, its launches) and NVRTC compiles of the kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "jetfuse/ir/codegen.hpp"
#include "test_support.hpp"
#ifdef JF_HAVE_CUDA
#include "nvrtc_units.hpp"
#endif

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;
using test_support::message_of;
using test_support::rand_int;
using test_support::rng;
using test_support::seed;

class Scatter : public test_support::on_backends {
 protected:
  bool gpu() const { return GetParam().kind == jf::device_kind::cuda; }
};

// Bit patterns, so that -0.0 and NaN payloads count (bools as 0/1).
template <class T>
std::vector<std::uint64_t> bits(const std::vector<T>& v) {
  std::vector<std::uint64_t> b;
  for (T x : v) {
    std::uint64_t u = 0;
    if constexpr (std::is_same_v<T, bool>)
      u = x ? 1 : 0;
    else
      std::memcpy(&u, &x, sizeof x);
    b.push_back(u);
  }
  return b;
}

// ---- the numpy table ----------------------------------------------------------------------------

jf::shape_t shape_of(const std::string& s) {
  jf::shape_t sh;
  if (s == "-") return sh;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t x = s.find('x', at);
    sh.push_back(std::stoll(s.substr(at, x == std::string::npos ? std::string::npos : x - at)));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return sh;
}

struct row {
  std::string op, mode, xdt, vkind, vdt;
  jf::shape_t xs, is, vs;
  std::vector<std::string> x, idx, v, expect;
  std::string where() const { return op + " " + mode + " " + xdt + " " + vkind + " " + vdt; }
};

std::vector<row> table() {
  std::vector<row> rows;
  for (const test_support::table_case& c : test_support::read_table(JF_TEST_DATA_DIR "/scatter_table.txt", 4)) {
    row r{c.header[0],           c.header[1],           c.header[2], c.header[3], c.header[4], shape_of(c.header[5]),
          shape_of(c.header[6]), shape_of(c.header[7]), c.lines[0],  c.lines[1],  c.lines[2],  c.lines[3]};
    rows.push_back(std::move(r));
  }
  return rows;
}

// Runs one case: op(x, idx, v) as the table names it.
template <class T, class V>
void apply(const row& c, const jf::array<T>& x, const jf::array<i64>& idx, const V& v) {
  if (c.op == "put") {
    if (c.mode == "wrap")
      jf::put(x, idx, v, jf::mode::wrap);
    else if (c.mode == "clip")
      jf::put(x, idx, v, jf::mode::clip);
    else
      jf::put(x, idx, v);
  } else if (c.op == "setitem") {
    x(idx) = v;
  } else if (c.op == "iadd") {
    if constexpr (jf::can_cast_same_kind(jf::detail::compound_types<jf::op::add, T, V>::result, jf::dtype_v<T>))
      x(idx) += v;
    else
      ADD_FAILURE() << "no such case";
  } else if (c.op == "add_at") {
    jf::add_at(x, idx, v);
  } else if (c.op == "subtract_at") {
    if constexpr (!std::is_same_v<T, bool>) jf::subtract_at(x, idx, v);
  } else if (c.op == "multiply_at") {
    jf::multiply_at(x, idx, v);
  } else if (c.op == "minimum_at") {
    jf::minimum_at(x, idx, v);
  } else if (c.op == "maximum_at") {
    jf::maximum_at(x, idx, v);
  } else {
    ADD_FAILURE() << "unknown operation " << c.op;
  }
}

template <class T, class V>
void run_row(const row& c, jf::device dev, bool exact) {
  const std::vector<T> x0 = test_support::parse_words<T>(c.x);
  const jf::array<T> x(x0, c.xs, dev);
  const jf::array<i64> idx(test_support::parse_words<i64>(c.idx), c.is, dev);
  const std::string& first = c.expect.empty() ? std::string() : c.expect[0];
  auto run = [&] {
    if (c.vkind == "scalar") {
      const V scalar = test_support::parse_words<V>(c.v).at(0);
      apply(c, x, idx, scalar);
    } else {
      apply(c, x, idx, jf::array<V>(test_support::parse_words<V>(c.v), c.vs, dev));
    }
  };
  if (first == "error") {
    std::string message;
    for (std::size_t k = 2; k < c.expect.size(); ++k) message += (k > 2 ? " " : "") + c.expect[k];
    if (c.expect[1] == "IndexError")
      EXPECT_EQ(message_of<jf::index_error>(run), message) << c.where();
    else if (c.expect[1] == "ValueError")
      EXPECT_EQ(message_of<jf::shape_error>(run), message) << c.where();
    else if (c.expect[1] == "OverflowError")
      (void)message_of<jf::dtype_error>(run);
    else
      ADD_FAILURE() << "unexpected numpy error " << c.expect[1] << " in " << c.where();
    EXPECT_EQ(bits(x.to_vector()), bits(x0)) << "x changed by a failed " << c.where();
    return;
  }
  run();
  const std::vector<T> got = x.to_vector(), want = test_support::parse_words<T>(c.expect);
  ASSERT_EQ(got.size(), want.size()) << c.where();
  for (std::size_t k = 0; k < got.size(); ++k) {
    bool both_nan = false;  // the table keeps no NaN's sign (float.hex): any NaN is numpy's NaN
    if constexpr (std::is_floating_point_v<T>) both_nan = std::isnan(got[k]) && std::isnan(want[k]);
    if (exact) {
      if (!both_nan) {
        EXPECT_EQ(bits(std::vector<T>{got[k]}), bits(std::vector<T>{want[k]}))
            << c.where() << " element " << k << ": " << got[k] << " numpy " << want[k];
      }
    } else if constexpr (std::is_floating_point_v<T>) {
      // Atomics add in any order: within a few ulps of the sum's magnitude; -0.0 == 0.0; NaN == NaN.
      EXPECT_TRUE(both_nan || got[k] == want[k] || std::abs(got[k] - want[k]) <= 1e-5 * (1 + std::abs(want[k])))
          << c.where() << " element " << k << ": " << got[k] << " numpy " << want[k];
    } else {
      EXPECT_EQ(got[k], want[k]) << c.where() << " element " << k;
    }
  }
}

template <class T>
void run_x(const row& c, jf::device dev, bool exact) {
  if (c.vkind == "array") {
    if (c.vdt == c.xdt) return run_row<T, T>(c, dev, exact);
    if constexpr (!std::is_same_v<T, double>)
      if (c.vdt == "float64") return run_row<T, double>(c, dev, exact);
    if constexpr (std::is_same_v<T, i32>)
      if (c.vdt == "int64") return run_row<T, i64>(c, dev, exact);
  } else {
    if constexpr (std::is_same_v<T, bool>)
      if (c.vdt == "pybool") return run_row<T, bool>(c, dev, exact);
    if constexpr (!std::is_floating_point_v<T>)
      if (c.vdt == "pyint") return run_row<T, i64>(c, dev, exact);
    if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, i64>)
      if (c.vdt == "pyfloat") return run_row<T, double>(c, dev, exact);
  }
  ADD_FAILURE() << "no dispatch for " << c.where();
}

TEST_P(Scatter, NumpyTable) {
  const std::vector<row> rows = table();
  ASSERT_GT(rows.size(), 400u);
  std::map<std::string, int> ops;
  for (const row& c : rows) {
    ++ops[c.op];
    // The GPU's atomic float sums and products follow no order: numpy's bits only up to rounding.
    const bool floats = c.xdt == "float32" || c.xdt == "float64" || c.vdt == "float64" || c.vdt == "pyfloat";
    // (Minimum and maximum: only the sign of a zero result may depend on the order.)
    const bool ordered = c.op == "put" || c.op == "setitem" || c.op == "iadd";
    const bool exact = !gpu() || ordered || !floats;
    if (c.xdt == "bool")
      run_x<bool>(c, dev(), exact);
    else if (c.xdt == "int32")
      run_x<i32>(c, dev(), exact);
    else if (c.xdt == "int64")
      run_x<i64>(c, dev(), exact);
    else if (c.xdt == "float32")
      run_x<float>(c, dev(), exact);
    else
      run_x<double>(c, dev(), exact);
    if (HasFailure()) {
      ADD_FAILURE() << "first failing case: " << c.where();
      return;
    }
  }
  EXPECT_EQ(ops.size(), 8u);  // put, setitem, iadd, and the five ufunc.at
}

// ---- the GPU against the CPU --------------------------------------------------------------------

template <class T>
std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    if constexpr (std::is_same_v<T, bool>)
      v[k] = rand_int(0, 1) != 0;
    else if constexpr (std::is_integral_v<T>)
      v[k] = static_cast<T>(rand_int(-1000000, 1000000));
    else
      v[k] = static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng()));
  }
  return v;
}
std::vector<i64> random_indices(std::size_t count, i64 n, i64 distinct) {
  std::vector<i64> pool(static_cast<std::size_t>(std::max<i64>(1, distinct)));
  for (auto& p : pool) p = rand_int(-n, n - 1);
  std::vector<i64> v(count);
  for (auto& x : v) x = pool[static_cast<std::size_t>(rand_int(0, static_cast<i64>(pool.size()) - 1))];
  return v;
}

// The same scatter on both backends: the results must agree (bits for stores and integer sums).
class ScatterGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU-vs-CPU tests skipped";
  }
};

// x (n rows of `row` elements) with x[iv] = values, on both backends: the same bits.
template <class T>
void both_put_at(i64 n, const std::vector<i64>& iv, const std::string& what, i64 row = 1) {
  const std::vector<T> x0 = random_values<T>(static_cast<std::size_t>(n * row)),
                       v = random_values<T>(iv.size() * static_cast<std::size_t>(row));
  std::vector<T> out[2];
  for (int b = 0; b < 2; ++b) {
    const jf::device dev = b ? jf::cuda : jf::cpu;
    const jf::array<i64> idx(iv, dev);
    if (row == 1) {
      const jf::array<T> x(x0, dev);  // its untouched elements are the poison: they must stay
      jf::put(x, idx, jf::array<T>(v, dev));
      out[b] = x.to_vector();
    } else {
      const jf::array<T> x(x0, jf::shape_t{n, row}, dev);
      x(idx) = jf::array<T>(v, jf::shape_t{static_cast<i64>(iv.size()), row}, dev);
      out[b] = x.to_vector();
    }
  }
  ASSERT_EQ(bits(out[1]), bits(out[0])) << "put " << what << " n " << n << " count " << iv.size() << " row " << row
                                        << " seed " << seed();
}

template <class T>
void both_put(i64 n, std::size_t count, i64 distinct) {
  both_put_at<T>(n, random_indices(count, std::max<i64>(n, 1), distinct), "distinct " + std::to_string(distinct));
}

TEST_F(ScatterGpu, PutLastWriteWins) {
  for (i64 n : {i64(1), i64(7), i64(1000), i64(1 << 20) + 3})
    for (std::size_t count :
         {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(70001), std::size_t(1 << 20) + 3})
      for (i64 distinct : {i64(1), i64(5), n}) {
        if (n < 1 && count > 0) continue;
        both_put<double>(n, count, distinct);
        both_put<float>(n, count, distinct);
        both_put<i32>(n, count, distinct);
        both_put<i64>(n, count, distinct);
        both_put<bool>(n, count, distinct);
        if (HasFatalFailure()) return;
      }
}

// count distinct elements of n in random order, about half of them named by their negative index.
std::vector<i64> distinct_indices(i64 n, std::size_t count) {
  std::vector<i64> all(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) all[static_cast<std::size_t>(k)] = k;
  for (std::size_t k = 0; k < count; ++k) {  // a partial Fisher-Yates shuffle
    std::swap(all[k], all[static_cast<std::size_t>(rand_int(static_cast<i64>(k), n - 1))]);
    if (rand_int(0, 1)) all[k] -= n;
  }
  all.resize(count);
  return all;
}

// Indices naming each element at most once are stored plainly after the marks' count (launch 3);
// one element named twice, even by -n + j and j, must be found by the count and the last write
// win (a plain store would keep either of the two values). Sizes around the bitmap's 32-bit words.
TEST_F(ScatterGpu, DistinctIndicesAndOneRepeat) {
  for (i64 n : {i64(1), i64(31), i64(32), i64(33), i64(1000), i64(1 << 20) + 3})
    for (std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(32),
                              static_cast<std::size_t>(n / 2), static_cast<std::size_t>(n)}) {
      if (count > static_cast<std::size_t>(n)) continue;
      std::vector<i64> iv = distinct_indices(n, count);
      both_put_at<double>(n, iv, "distinct");
      both_put_at<float>(n, iv, "distinct");
      both_put_at<i32>(n, iv, "distinct");
      both_put_at<bool>(n, iv, "distinct");
      both_put_at<float>(n, iv, "distinct rows", 3);
      if (count >= 2) {
        const i64 a = rand_int(0, static_cast<i64>(count) - 2), b = rand_int(a + 1, static_cast<i64>(count) - 1);
        const i64 j = iv[static_cast<std::size_t>(a)];
        iv[static_cast<std::size_t>(b)] = rand_int(0, 1) ? j : (j < 0 ? j + n : j - n);
        both_put_at<double>(n, iv, "one repeat");
        both_put_at<i32>(n, iv, "one repeat");
        both_put_at<float>(n, iv, "one repeat rows", 3);
      }
      if (HasFatalFailure()) return;
    }
}

// 2^24 stores into 2^10 elements: every element written by ~2^14 positions, the last must win.
TEST_F(ScatterGpu, ClaimsAtScale) {
  const std::size_t count = std::size_t(1) << 24;
  const i64 n = 1024;
  std::vector<i64> iv(count);
  for (auto& x : iv) x = rand_int(-n, n - 1);
  const jf::array<i64> idx(iv, jf::cuda);
  const jf::array<double> x = jf::full<double>({n}, -1.0, jf::cuda);
  // The values are the positions, computed in the kernel (an arange-like leaf: positions as doubles).
  const jf::array<double> pos = jf::arange<double>(0, static_cast<double>(count), 1, jf::cuda);
  jf::put(x, idx, pos * 2.0);
  std::vector<double> want(static_cast<std::size_t>(n), -1.0);
  for (std::size_t k = 0; k < count; ++k)
    want[static_cast<std::size_t>(iv[k] < 0 ? iv[k] + n : iv[k])] = 2.0 * static_cast<double>(k);
  EXPECT_EQ(x.to_vector(), want) << "seed " << seed();
}

template <class T>
void both_add_at(i64 n, std::size_t count, i64 distinct) {
  const std::vector<T> x0 = random_values<T>(static_cast<std::size_t>(n)), v = random_values<T>(count);
  const std::vector<i64> iv = random_indices(count, n, distinct);
  std::vector<T> out[2];
  for (int b = 0; b < 2; ++b) {
    const jf::device dev = b ? jf::cuda : jf::cpu;
    const jf::array<T> x(x0, dev);
    jf::add_at(x, jf::array<i64>(iv, dev), jf::array<T>(v, dev));
    out[b] = x.to_vector();
  }
  if constexpr (std::is_floating_point_v<T>) {
    std::vector<double> mag(static_cast<std::size_t>(n), 0.0);  // the sum of magnitudes per element
    for (std::size_t k = 0; k < count; ++k)
      mag[static_cast<std::size_t>(iv[k] < 0 ? iv[k] + n : iv[k])] += std::abs(double(v[k]));
    const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
    for (std::size_t k = 0; k < out[0].size(); ++k)
      ASSERT_LE(std::abs(double(out[1][k]) - double(out[0][k])), eps * (std::abs(double(x0[k])) + mag[k]) * 4)
          << "add_at element " << k << " n " << n << " count " << count << " seed " << seed();
  } else {
    ASSERT_EQ(bits(out[1]), bits(out[0])) << "add_at n " << n << " count " << count << " seed " << seed();
  }
}

TEST_F(ScatterGpu, AddAtAccumulates) {
  for (i64 n : {i64(1), i64(7), i64(1000), i64(1 << 20) + 3})
    for (std::size_t count :
         {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(70001), std::size_t(1 << 20) + 3})
      for (i64 distinct : {i64(1), i64(5), n}) {
        both_add_at<double>(n, count, distinct);
        both_add_at<float>(n, count, distinct);
        both_add_at<i32>(n, count, distinct);
        both_add_at<i64>(n, count, distinct);
        both_add_at<bool>(n, count, distinct);
        if (HasFatalFailure()) return;
      }
}

// The other ufunc.at on both backends: minimum and maximum exactly (any order gives numpy's
// answer but for the sign of zero), products within rounding, int32 with float values (CAS loops).
TEST_F(ScatterGpu, OtherUfuncAt) {
  for (std::size_t count : {std::size_t(1), std::size_t(5001), std::size_t(1 << 20)}) {
    const i64 n = 97;
    const std::vector<i64> iv = random_indices(count, n, n);
    std::vector<double> v = random_values<double>(count);
    for (auto& x : v) x = x == 0 ? 1.0 : x;  // no zeros: the sign of a zero minimum depends on the order
    std::vector<i32> vi(count);
    for (std::size_t k = 0; k < count; ++k) vi[k] = static_cast<i32>(v[k] * 1000);
    std::vector<double> mult(count);
    for (std::size_t k = 0; k < count; ++k) mult[k] = 1.0 + v[k] * 1e-6;
    std::vector<double> dmin[2], dmax[2], dmul[2];
    std::vector<i32> imin[2], imax[2], imix[2];
    std::vector<bool> bmin[2];
    const std::vector<double> x0 = random_values<double>(static_cast<std::size_t>(n));
    const std::vector<i32> xi0 = random_values<i32>(static_cast<std::size_t>(n));
    for (int b = 0; b < 2; ++b) {
      const jf::device dev = b ? jf::cuda : jf::cpu;
      const jf::array<i64> idx(iv, dev);
      const jf::array<double> a(x0, dev), c(x0, dev), m(x0, dev), vals(v, dev);
      const jf::array<i32> ia(xi0, dev), ic(xi0, dev), ix(xi0, dev), ivals(vi, dev);
      const jf::array<bool> bb = jf::ones<bool>({n}, dev);
      jf::minimum_at(a, idx, vals);
      jf::maximum_at(c, idx, vals);
      jf::multiply_at(m, idx, jf::array<double>(mult, dev));
      jf::minimum_at(ia, idx, ivals);
      jf::maximum_at(ic, idx, ivals);
      jf::add_at(ix, idx, vals * 0.25);     // int32 += float64 (cast back each time: a CAS loop)
      jf::minimum_at(bb, idx, vals > 0.0);  // bool: a CAS loop on the byte's word
      dmin[b] = a.to_vector();
      dmax[b] = c.to_vector();
      dmul[b] = m.to_vector();
      imin[b] = ia.to_vector();
      imax[b] = ic.to_vector();
      imix[b] = ix.to_vector();
      bmin[b] = bb.to_vector();
    }
    EXPECT_EQ(dmin[1], dmin[0]);
    EXPECT_EQ(dmax[1], dmax[0]);
    EXPECT_EQ(imin[1], imin[0]);
    EXPECT_EQ(imax[1], imax[0]);
    EXPECT_EQ(bmin[1], bmin[0]);
    for (std::size_t k = 0; k < dmul[0].size(); ++k) EXPECT_NEAR(dmul[1][k], dmul[0][k], 1e-12 * std::abs(dmul[0][k]));
    // Truncation after each addition makes int32 += float depend on the order: the GPU's within
    // one per addition of the CPU's.
    std::vector<i64> per(static_cast<std::size_t>(n), 0);
    for (i64 i : iv) ++per[static_cast<std::size_t>(i < 0 ? i + n : i)];
    for (std::size_t k = 0; k < imix[0].size(); ++k)
      EXPECT_LE(std::abs(i64(imix[1][k]) - i64(imix[0][k])), per[k]) << "element " << k << " seed " << seed();
  }
}

// Targets, indices and values as views and expressions, n-d targets with broadcast values: the
// GPU's bits are the CPU's, and the CPU's are the loops written out here.
TEST_F(ScatterGpu, ViewsAndExpressions) {
  for (int trial = 0; trial < 20; ++trial) {
    const i64 rows = rand_int(1, 300), cols = rand_int(1, 40);
    const std::vector<double> base = random_values<double>(static_cast<std::size_t>(rows * cols * 2));
    const std::size_t count = static_cast<std::size_t>(rand_int(0, 2000));
    const std::vector<i64> iv = random_indices(count, rows, trial % 2 ? 3 : rows);
    const std::vector<double> vv = random_values<double>(count * static_cast<std::size_t>(cols));
    std::vector<double> out[2];
    for (int b = 0; b < 2; ++b) {
      const jf::device dev = b ? jf::cuda : jf::cpu;
      // A transposed view of every other column of a (2 cols, rows) block: (rows, cols), strided.
      const jf::array<double> block(base, jf::shape_t{cols * 2, rows}, dev);
      const jf::array<double> x = block(jf::range(0, jf::none, 2), jf::all).transpose();
      const jf::array<i64> idx2(std::vector<i64>(iv.rbegin(), iv.rend()), dev);
      const jf::array<i64> idx = idx2(jf::range(jf::none, jf::none, -1));  // reversed view: iv again
      const jf::array<double> vals(vv, jf::shape_t{static_cast<i64>(count), cols}, dev);
      x(idx * 1 + 0) = vals * 2.0 + 1.0;  // indices and values computed in the kernel
      out[b] = block.to_vector();
    }
    ASSERT_EQ(bits(out[1]), bits(out[0])) << "trial " << trial << " seed " << seed();
    std::vector<double> want = base;
    for (std::size_t k = 0; k < count; ++k) {
      const i64 r = iv[k] < 0 ? iv[k] + rows : iv[k];
      for (i64 c = 0; c < cols; ++c)
        want[static_cast<std::size_t>(2 * c * rows + r)] =
            vv[k * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] * 2.0 + 1.0;
    }
    ASSERT_EQ(out[0], want) << "trial " << trial << " seed " << seed();
  }
}

// ---- behaviour on both backends -------------------------------------------------------------------

TEST_P(Scatter, FusedExpressions) {
  // numpy: np.add.at(h, (v * 10).astype(int64), 1.0): the indices computed in the kernel.
  const std::vector<double> vs = random_values<double>(5001);
  std::vector<double> v01(vs.size());
  for (std::size_t k = 0; k < vs.size(); ++k) v01[k] = (vs[k] + 100) / 200.0 * 0.999;
  const jf::array<double> v(v01, dev());
  const jf::array<double> h = jf::zeros<double>({10}, dev());
  jf::add_at(h, jf::astype<i64>(v * 10), 1.0);
  std::vector<double> want(10, 0.0);
  for (double x : v01) want[static_cast<std::size_t>(x * 10)] += 1.0;
  EXPECT_EQ(h.to_vector(), want);
  // Values gathered from another array and indices from a take: y(p(k)) = z(k) * 2.
  const jf::array<i64> p({4, 0, 3}, dev());
  const jf::array<float> z({1.5f, 2.5f, 3.5f}, dev());
  const jf::array<float> y = jf::zeros<float>({5}, dev());
  y(jf::take(p, jf::array<i32>({0, 1, 2}, dev()))) = z * 2.0f;
  EXPECT_EQ(y.to_vector(), (std::vector<float>{5.0f, 0, 0, 7.0f, 3.0f}));
  if (gpu()) {
    const std::string plan = jf::explain_add_at(h, jf::astype<i64>(v * 10), 1.0);
    EXPECT_NE(plan.find("1 kernel(s)"), std::string::npos) << plan;
    EXPECT_NE(plan.find("Kernel shape: scatter"), std::string::npos) << plan;
    const std::uint64_t before = jf::stats().launches;
    jf::add_at(h, jf::astype<i64>(v * 10), 1.0);
    jf::put(h, jf::astype<i64>(v * 10), 2.0, jf::mode::clip);
    // add_at: the checks, then the values; a put: marks, their count, values (then two more launches
    // that return at once when no element was named twice)
    EXPECT_EQ(jf::stats().launches - before, 7u);
  }
}

TEST_P(Scatter, IndicesAndValuesComputedByAReduction) {
  // Evaluated first, as numpy evaluates both operands before it writes.
  const jf::array<i32> y({{1, 5, 2}, {7, 0, 3}, {2, 2, 9}}, dev());
  const jf::array<double> x({10.0, 20.0, 30.0, 40.0}, dev());
  x(jf::argmax(y, 1)) = -1.0;  // numpy: x[np.argmax(y, 1)] = -1 (positions 1, 0, 2)
  EXPECT_EQ(x.to_vector(), (std::vector<double>{-1, -1, -1, 40}));
  jf::put(x, jf::array<i64>({3}, dev()), jf::sum(x));  // x's sum before the put: 37
  EXPECT_EQ(x.to_vector(), (std::vector<double>{-1, -1, -1, 37}));
  // Both: argmin per row (0, 1, 0), each row's minimum times 2 (2, 0, 4): x[0] written last by 4.
  x(jf::argmin(y, 1)) = jf::min(y, 1) * 2.0;
  EXPECT_EQ(x.to_vector(), (std::vector<double>{4, 0, -1, 37}));
  const jf::array<double> h = jf::zeros<double>({3}, dev());
  jf::add_at(h, jf::array<i64>({0, 0, 2}, dev()), jf::max(y, 1));  // 5 + 7 at 0, 9 at 2
  EXPECT_EQ(h.to_vector(), (std::vector<double>{12, 0, 9}));
  // Random rows (odd sizes, many duplicates): each row's maximum added at its position, against
  // the host's loop; an out-of-range index from the reduction raises numpy's message.
  for (const i64 rows : {i64{1}, i64{7}, i64{1001}}) {
    const i64 cols = 37;
    std::vector<i32> yv(static_cast<std::size_t>(rows * cols));
    for (auto& v : yv) v = static_cast<i32>(rand_int(-50, 50));
    const jf::array<i32> yr(yv, jf::shape_t{rows, cols}, dev());
    const jf::array<double> acc = jf::full<double>({cols}, -0.5, dev());  // poisoned: kept where untouched
    jf::add_at(acc, jf::argmax(yr, 1), jf::max(yr, 1));
    std::vector<double> want(static_cast<std::size_t>(cols), -0.5);
    for (i64 r = 0; r < rows; ++r) {
      const auto row = yv.begin() + r * cols;
      const auto best = std::max_element(row, row + cols);  // the first maximum, as argmax
      want[static_cast<std::size_t>(best - row)] += *best;
    }
    EXPECT_EQ(acc.to_vector(), want) << rows << " rows";
  }
  const std::vector<double> before = x.to_vector();
  EXPECT_EQ(message_of<jf::index_error>([&] { x(jf::argmax(y, 1) + 3) = 0.0; }),
            "index 4 is out of bounds for axis 0 with size 4");  // (4, 3, 5): numpy names the first
  EXPECT_EQ(x.to_vector(), before);
}

TEST_P(Scatter, CallOperatorReadsAndWrites) {
  jf::array<float> x({1.5f, 2.5f, 3.5f, 4.5f}, dev());
  const jf::array<i32> i({3, 0, -1, 1}, dev());
  EXPECT_EQ(jf::array<float>(x(i)).to_vector(), (std::vector<float>{4.5f, 1.5f, 4.5f, 2.5f}));  // still a take
  EXPECT_EQ(jf::array<float>(x(i) * 2.0f).to_vector(), (std::vector<float>{9.0f, 3.0f, 9.0f, 5.0f}));
  EXPECT_EQ(jf::sum(x(i)).item(), 13.0f);
  x(i) = 0.5f;  // a scalar broadcast; index -1 and 3 are one element
  EXPECT_EQ(x.to_vector(), (std::vector<float>{0.5f, 0.5f, 3.5f, 0.5f}));
  // Reads x before writing (numpy's order); x[3] is written by positions 0 and 2: the last wins.
  x(i) = x(i + 0) * 4.0f + jf::array<float>({1, 2, 3, 4}, dev());
  EXPECT_EQ(x.to_vector(), (std::vector<float>{4.0f, 6.0f, 3.5f, 5.0f}));
  x(jf::array<i64>({2, 2, 2}, dev())) += 1.0f;  // buffered: once
  EXPECT_EQ(x.to_vector(), (std::vector<float>{4.0f, 6.0f, 4.5f, 5.0f}));
  jf::add_at(x, jf::array<i64>({2, 2, 2}, dev()), 1.0f);  // unbuffered: three times
  EXPECT_EQ(x.to_vector(), (std::vector<float>{4.0f, 6.0f, 7.5f, 5.0f}));
  const jf::array<float> y = jf::full<float>({4}, 9.0f, dev());
  x(jf::array<i64>({0, 1}, dev())) = y(jf::array<i64>({3, 2}, dev()));  // x(p) = y(q): values, not handles
  EXPECT_EQ(x.to_vector(), (std::vector<float>{9.0f, 9.0f, 7.5f, 5.0f}));
  // Rows of a matrix; the value broadcast along them; a 0-d index picks one row.
  jf::array<i64> m = jf::zeros<i64>({3, 2}, dev());
  m(jf::array<i64>({2, 0}, dev())) = jf::array<i64>({5, 6}, dev());
  m(jf::array<i64>(std::vector<i64>{1}, jf::shape_t{}, dev())) = 7;
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{5, 6, 7, 7, 5, 6}));
  m(jf::array<i64>({1}, dev())) -= jf::array<i64>({{1, 2}}, dev());
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{5, 6, 6, 5, 5, 6}));
}

TEST_P(Scatter, PutOnViewsAndShapes) {
  // A non-contiguous 2-d x is written flat in C order of the view, through a copy written back.
  const jf::array<double> b(std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, jf::shape_t{3, 4}, dev());
  // b.T.flat[1] is b.T(0, 1) = b(1, 0), b.T.flat[5] is b.T(1, 2) = b(2, 1).
  jf::put(b.transpose(), jf::array<i64>({0, 1, 5}, dev()), jf::array<double>({-1.0, -2.0, -3.0}, dev()));
  EXPECT_EQ(b.to_vector(), (std::vector<double>{-1, 1, 2, 3, -2, 5, 6, 7, 8, -3, 10, 11}));
  // A strided 1-d view is written in place; a 2-d contiguous one through its flat view.
  const jf::array<double> f = jf::zeros<double>({10}, dev());
  jf::put(f(jf::range(1, jf::none, 3)), jf::array<i64>({0, -1}, dev()), jf::array<double>({5.0, 6.0}, dev()));
  EXPECT_EQ(f.to_vector(), (std::vector<double>{0, 5, 0, 0, 0, 0, 0, 6, 0, 0}));
  jf::put(f.reshape({2, 5}), jf::array<i64>({{9, 0}, {1, 2}}, dev()), 7.0);
  EXPECT_EQ(f.to_vector(), (std::vector<double>{7, 7, 7, 0, 0, 0, 0, 6, 0, 7}));
  // Values repeat cyclically: an array of another shape; an expression of the indices' shape.
  jf::put(f, jf::array<i64>({0, 1, 2, 3, 4}, dev()), jf::array<double>({1.0, 2.0}, dev()));
  EXPECT_EQ(f.to_vector(), (std::vector<double>{1, 2, 1, 2, 1, 0, 0, 6, 0, 7}));
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::put(f, jf::array<i64>({0, 1, 2}, dev()), jf::array<double>({1.0, 2.0}, dev()) * 2.0);
            }).find("jf::put: values computed by an expression of shape (2,) for indices of shape (3,)"),
            0u);
  // A scalar index (numpy accepts one).
  jf::put(f, 9, -1.0);
  jf::add_at(f, -1, 3.0);
  EXPECT_EQ(f.to_vector().back(), 2.0);
  // An integer value outside the target's dtype raises as numpy's OverflowError; a float is cast.
  const jf::array<i32> k = jf::zeros<i32>({3}, dev());
  EXPECT_THROW(jf::put(k, jf::array<i64>({0}, dev()), i64(1) << 40), jf::dtype_error);
  jf::put(k, jf::array<i64>({0}, dev()), 1.7);
  EXPECT_EQ(k.to_vector(), (std::vector<i32>{1, 0, 0}));
}

TEST_P(Scatter, OutOfBoundsLeavesXUntouched) {
  const jf::array<double> x({0.0, 1.1, 2.2, 3.3, 4.4, 5.5}, dev());
  const std::vector<double> x0 = x.to_vector();
  const jf::array<i64> bad({2, 3, 5, 6, 7, 8}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { jf::put(x, bad, 9.0); }),
            "index 6 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(message_of<jf::index_error>([&] { x(bad) = 9.0; }), "index 6 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(message_of<jf::index_error>([&] { jf::add_at(x, bad - 9, 1.0); }),
            "index -7 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(message_of<jf::index_error>([&] { x(bad) += 1.0; }), "index 6 is out of bounds for axis 0 with size 6");
  // Many failing positions across blocks: the first one is named.
  std::vector<i64> many(300000, 1);
  for (std::size_t k = 100000; k < many.size(); ++k) many[k] = static_cast<i64>(k);
  EXPECT_EQ(message_of<jf::index_error>([&] { jf::add_at(x, jf::array<i64>(many, dev()), 1.0); }),
            "index 100000 is out of bounds for axis 0 with size 6");
  // A gather among the values fails: nothing is written either.
  EXPECT_EQ(message_of<jf::index_error>([&] {
              jf::put(x, jf::array<i64>({0, 1}, dev()), jf::take(x, jf::array<i64>({0, 9}, dev())));
            }),
            "index 9 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(x.to_vector(), x0);
  // numpy: an empty array cannot be put into (whatever the mode), unless nothing is put.
  const jf::array<double> empty = jf::zeros<double>({0}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { jf::put(empty, jf::array<i64>({0}, dev()), 1.0, jf::mode::wrap); }),
            "cannot replace elements of an empty array");
  jf::put(empty, jf::zeros<i64>({0}, dev()), 1.0);
  // Other errors: a 0-d target, a shape mismatch, a null handle, a read-only view.
  const jf::array<double> zero_d(std::vector<double>{1.0}, jf::shape_t{}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { jf::add_at(zero_d, jf::array<i64>({0}, dev()), 1.0); }),
            "too many indices for array: array is 0-dimensional, but 1 were indexed");
  const jf::array<double> m = jf::zeros<double>({3, 4}, dev());
  EXPECT_EQ(message_of<jf::shape_error>([&] {
              m(jf::array<i64>({0, 1}, dev())) = jf::ones<double>({3}, dev());
            }),
            "shape mismatch: value array of shape (3,) could not be broadcast to indexing result of shape (2,4)");
  EXPECT_THROW(jf::put(jf::array<double>(), jf::array<i64>({0}, dev()), 1.0), jf::value_error);
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::put(jf::broadcast_to(x, {2, 6}), jf::array<i64>({0}, dev()), 1.0);
            }),
            "assignment destination is read-only");
  // The next evaluation works.
  jf::put(x, bad - 5, 9.0);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{9.0, 9.0, 9.0, 9.0, 9.0, 5.5}));  // -3 -2 0 1 2 3
}

// jf::put(..., jf::unique_indices) (JAX's promise: no claims) and the ufuncs' wrap and clip, against
// the loops written out here: a permutation put exactly (with negative indices; clip's positions
// in range), repeated indices put one of their values and nothing else, add_at / minimum_at with
// indices far outside [-n, n) wrapped or clipped; mode raise still checks first.
TEST_P(Scatter, UniqueIndicesAndUfuncModes) {
  auto wrap = [](i64 j, i64 n) { return ((j % n) + n) % n; };
  auto clip = [](i64 j, i64 n) { return j < 0 ? 0 : (j >= n ? n - 1 : j); };
  for (const i64 n : {i64(1), i64(7), i64(1000), i64(1 << 20) + 3}) {
    const std::vector<double> x0 = random_values<double>(static_cast<std::size_t>(n));  // the poison
    std::vector<i64> perm(static_cast<std::size_t>(n));
    for (i64 k = 0; k < n; ++k) perm[static_cast<std::size_t>(k)] = k;
    std::shuffle(perm.begin(), perm.end(), rng());
    // Part of the permutation (every element of the rest stays x0), some named from the end.
    const std::size_t count = static_cast<std::size_t>(n > 1 ? n - n / 3 : 1);
    std::vector<i64> part(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(count));
    std::vector<i64> negative = part, far = part;
    for (std::size_t k = 0; k < count; k += 2) negative[k] -= n;            // in [-n, n)
    for (std::size_t k = 0; k < count; ++k) far[k] += n * rand_int(-3, 3);  // wraps to part
    const std::vector<double> v = random_values<double>(count);
    std::vector<double> want = x0;
    for (std::size_t k = 0; k < count; ++k) want[static_cast<std::size_t>(part[k])] = v[k];
    const jf::array<double> va(v, dev());
    for (int m = 0; m < 3; ++m) {
      const jf::array<double> x(x0, dev());
      if (m == 0) jf::put(x, jf::array<i64>(negative, dev()), va, jf::unique_indices);
      if (m == 1) jf::put(x, jf::array<i64>(far, dev()), va, jf::mode::wrap, jf::unique_indices);
      if (m == 2) jf::put(x, jf::array<i64>(part, dev()), va, jf::mode::clip, jf::unique_indices);
      ASSERT_EQ(bits(x.to_vector()), bits(want)) << "unique put, mode " << m << ", n " << n << ", seed " << seed();
    }
    // Indices repeated after all: each element named gets one of its values, the others keep x0.
    std::vector<i64> dup(count);
    for (auto& j : dup) j = rand_int(-3 * n, 3 * n);
    {
      const jf::array<double> x(x0, dev());
      jf::put(x, jf::array<i64>(dup, dev()), va, jf::mode::wrap, jf::unique_indices);
      const std::vector<double> got = x.to_vector();
      std::vector<std::vector<double>> may(static_cast<std::size_t>(n));
      for (std::size_t k = 0; k < count; ++k) may[static_cast<std::size_t>(wrap(dup[k], n))].push_back(v[k]);
      for (std::size_t e = 0; e < got.size(); ++e) {
        const bool ok = may[e].empty() ? bits(std::vector<double>{got[e]}) == bits(std::vector<double>{x0[e]})
                                       : std::find(may[e].begin(), may[e].end(), got[e]) != may[e].end();
        ASSERT_TRUE(ok) << "repeated unique put, element " << e << ", n " << n << ", seed " << seed();
      }
    }
    // add_at / minimum_at, wrap and clip: every index counts (int64: exact on both backends).
    const std::vector<i64> xi0 = random_values<i64>(static_cast<std::size_t>(n)), vi = random_values<i64>(count);
    const jf::array<i64> dup_a(dup, dev()), vi_a(vi, dev());
    for (int m = 0; m < 2; ++m) {
      std::vector<i64> sum = xi0, low = xi0;
      for (std::size_t k = 0; k < count; ++k) {
        const auto e = static_cast<std::size_t>(m == 0 ? wrap(dup[k], n) : clip(dup[k], n));
        sum[e] += vi[k];
        low[e] = std::min(low[e], vi[k]);
      }
      const jf::array<i64> xs(xi0, dev()), xl(xi0, dev());
      if (m == 0) {
        jf::add_at(xs, dup_a, vi_a, jf::mode::wrap);
        jf::minimum_at(xl, dup_a, vi_a, jf::mode::wrap);
      } else {
        jf::add_at(xs, dup_a, vi_a, jf::mode::clip);
        jf::minimum_at(xl, dup_a, vi_a, jf::mode::clip);
      }
      ASSERT_EQ(xs.to_vector(), sum) << "add_at mode " << (m ? "clip" : "wrap") << ", n " << n << ", seed " << seed();
      ASSERT_EQ(xl.to_vector(), low) << "minimum_at mode " << (m ? "clip" : "wrap") << ", n " << n << ", seed "
                                     << seed();
    }
  }
  // Mode raise with unique indices still checks every index before any write.
  const jf::array<double> x({0.0, 1.1, 2.2, 3.3}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] {
              jf::put(x, jf::array<i64>({1, 0, 4}, dev()), 9.0, jf::unique_indices);
            }),
            "index 4 is out of bounds for axis 0 with size 4");
  EXPECT_EQ(message_of<jf::index_error>([&] {
              jf::put(x, jf::array<i64>({1, -5}, dev()), 9.0, jf::mode::raise, jf::unique_indices);
            }),
            "index -5 is out of bounds for axis 0 with size 4");
  EXPECT_EQ(x.to_vector(), (std::vector<double>{0.0, 1.1, 2.2, 3.3}));
  if (gpu()) {  // no claims: one launch without checks, two with them
    const jf::array<i64> p({2, 0, 3}, dev());
    const std::uint64_t before = jf::stats().launches;
    jf::put(x, p, 5.0, jf::mode::wrap, jf::unique_indices);
    EXPECT_EQ(jf::stats().launches - before, 1u);
    jf::add_at(x, p, 1.0, jf::mode::clip);
    EXPECT_EQ(jf::stats().launches - before, 2u);
    jf::put(x, p, 7.0, jf::unique_indices);
    EXPECT_EQ(jf::stats().launches - before, 4u);
    EXPECT_EQ(x.to_vector(), (std::vector<double>{7.0, 1.1, 7.0, 7.0}));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Scatter, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// ---- plans and kernels (no GPU needed) ------------------------------------------------------------

// jf::cuda's plans of scatters, for every rule and dtype (no GPU needed).
template <class T>
void plans_of(std::vector<std::string>& p) {
  const jf::array<T> x = jf::zeros<T>({6});
  const jf::array<i64> idx({0, 2, 2, -1});
  const jf::array<T> v = jf::ones<T>({4});
  std::string s;
  jf::detail::put_values<jf::ir::gather_mode::raise>(x, idx, v, &s);
  p.push_back(s);
  jf::detail::put_values<jf::ir::gather_mode::wrap>(x, idx, v, &s);
  p.push_back(s);
  jf::detail::put_values<jf::ir::gather_mode::clip>(x, idx, v, &s);
  p.push_back(s);
  p.push_back(jf::explain_add_at(x, idx, v));
  if constexpr (!std::is_same_v<T, bool>) {
    jf::detail::ufunc_at<jf::op::subtract, jf::ir::put_rule::subtract>(x, idx, v, &s);
    p.push_back(s);
  }
  jf::detail::ufunc_at<jf::op::multiply, jf::ir::put_rule::multiply>(x, idx, v, &s);
  p.push_back(s);
  jf::detail::ufunc_at<jf::op::minimum, jf::ir::put_rule::minimum>(x, idx, v, &s);
  p.push_back(s);
  jf::detail::ufunc_at<jf::op::maximum, jf::ir::put_rule::maximum>(x, idx, v, &s);
  p.push_back(s);
  p.push_back(jf::explain_add_at(x, idx, jf::ones<double>({4})));  // computed in float64, cast back
  jf::detail::put_values<jf::ir::gather_mode::wrap, jf::ir::put_rule::store_any>(x, idx, v, &s);  // unique
  p.push_back(s);
  jf::detail::put_values<jf::ir::gather_mode::raise, jf::ir::put_rule::store_any>(x, idx, v, &s);
  p.push_back(s);
  jf::detail::ufunc_at<jf::op::maximum, jf::ir::put_rule::maximum, jf::ir::gather_mode::clip>(x, idx, v, &s);
  p.push_back(s);
}

std::vector<std::string> plans() {
  std::vector<std::string> p;
  const jf::array<double> x = jf::zeros<double>({6});
  const jf::array<i64> idx({0, 2, 2, -1});
  const jf::array<float> m = jf::zeros<float>({3, 4});
  const jf::array<float> m3 = jf::zeros<float>({3, 4, 5});
  // Indices and values computed in the kernel; rows; a 3-d target; a raising gather among the values
  // (checked in launch 1); a scalar index; a non-contiguous target of put (a copy).
  p.push_back(jf::explain_put(x, idx * 2, jf::array<double>({1.0, 2.0, 3.0, 4.0}) + 1.0));
  p.push_back(m(idx).explain_assignment(jf::ones<float>({4})));
  p.push_back(m3(idx).explain_assignment(jf::ones<float>({4, 1, 5})));
  p.push_back(m(idx).explain_assignment(jf::take(jf::ones<float>({4}), jf::array<i64>({3, 2, 1, 0}))));
  p.push_back(jf::explain_add_at(x, idx, jf::take(x, idx)));
  p.push_back(jf::explain_put(x, 3, 1.0));
  p.push_back(jf::explain_put(m.transpose(), jf::astype<i64>(jf::array<float>({1.5f})), 2.0f));
  // More than 2^31 iterations (views of one element, nothing allocated): 64-bit offsets and claims.
  const i64 huge = (i64(1) << 31) + 5;
  const jf::array<double> big = jf::broadcast_to(jf::zeros<double>({1}), {huge});
  p.push_back(jf::explain_put(big, jf::broadcast_to(jf::zeros<i64>({1}), {huge}), 1.0));
  plans_of<bool>(p);
  plans_of<i32>(p);
  plans_of<i64>(p);
  plans_of<float>(p);
  plans_of<double>(p);
  return p;
}

TEST(ScatterPlans, OneKernelOfShapeScatter) {
  for (const std::string& plan : plans()) {
    EXPECT_NE(plan.find("--- plan: 1 kernel(s), 0 temporaries"), std::string::npos) << plan;
    EXPECT_NE(plan.find("Kernel shape: scatter"), std::string::npos) << plan;
  }
  const std::vector<std::string> p = plans();
  EXPECT_NE(p[0].find("put store f64"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("launched 5 times"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("atomicOr(jf_bits + (jf_j >> 5)"), std::string::npos) << p[0];               // the marks
  EXPECT_NE(p[0].find("__popc(jf_nest::load_volatile(jf_bits + k))"), std::string::npos) << p[0];  // their count
  EXPECT_NE(p[0].find("atomicMax(jf_claims"), std::string::npos) << p[0];
  EXPECT_NE(p[3].find("The values' raising gathers"), std::string::npos) << p[3];
  EXPECT_NE(p[7].find("unsigned long long* const jf_claims"), std::string::npos) << p[7];  // 64-bit claims
  const std::string add = jf::explain_add_at(jf::zeros<float>({3, 4}), jf::array<i64>({1}), 1.5f);
  EXPECT_NE(add.find("jf_scatter::combine<1, float>"), std::string::npos) << add;
  // Only stores and checks need a first launch.
  std::string one;
  jf::detail::ufunc_at<jf::op::add, jf::ir::put_rule::add>(jf::zeros<float>({3}), jf::array<i64>({1}), 1.0f, &one);
  EXPECT_NE(one.find("launched twice"), std::string::npos) << one;  // add_at raises
  jf::detail::ufunc_at<jf::op::add, jf::ir::put_rule::add, jf::ir::gather_mode::wrap>(jf::zeros<float>({3}),
                                                                                      jf::array<i64>({1}), 1.0f, &one);
  EXPECT_NE(one.find("scatter: one launch"), std::string::npos) << one;  // nothing to check
  // Unique indices: stored without claims; checked first only in mode raise.
  const jf::array<double> x = jf::zeros<double>({6});
  const jf::array<i64> idx({0, 2, 3, -1});
  jf::detail::put_values<jf::ir::gather_mode::clip, jf::ir::put_rule::store_any>(x, idx, 2.0, &one);
  EXPECT_NE(one.find("put store_any f64"), std::string::npos) << one;
  EXPECT_NE(one.find("One launch: each value stored"), std::string::npos) << one;
  EXPECT_EQ(one.find("jf_claims"), std::string::npos) << one;
  jf::detail::put_values<jf::ir::gather_mode::raise, jf::ir::put_rule::store_any>(x, idx, 2.0, &one);
  EXPECT_NE(one.find("launched twice"), std::string::npos) << one;
  EXPECT_EQ(one.find("jf_claims"), std::string::npos) << one;
}

TEST(ScatterPlans, LaunchRule) {
  // A put into 1000 elements of 5000 values: five launches over the same grid; 16 bytes of counters,
  // a bit an element (128 bytes for 1000: 32 words, 16-byte aligned), then 4 bytes a claim; only the
  // counters and the bitmap zeroed by the launcher.
  const jf::array<double> x = jf::zeros<double>({1000});
  const std::string plan = jf::explain_put(x, jf::zeros<i64>({5000}), jf::zeros<double>({5000}));
  EXPECT_NE(plan.find("scatter: launched 5 times"), std::string::npos) << plan;
  jf::ir::launch_info li;
  li.shape = jf::ir::kernel_shape::scatter;
  li.launches = 5;
  li.outer_axes = {1};
  li.reduced_axes = {1};
  li.scatter_axis = 0;
  li.claim_bytes = 4;
  jf::ir::kernel_source k;
  k.launch = li;
  const std::int64_t ext[2] = {1000, 5000};
  const jf::ir::launch_config c = jf::ir::configure_launch(k, ext, 2, jf::ir::device_limits{132, 2048, 65535});
  EXPECT_EQ(c.launches, 5);
  EXPECT_EQ(c.scratch_bytes, 16u + 128u + 4u * 1000u);
  EXPECT_EQ(c.scratch_zero_bytes, 16u + 128u);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.grid[0], (5000u + 255u) / 256u);
  // 10 values into 2^24 elements: a block per 256 of the bitmap's 2^19 words, which it counts.
  const std::int64_t sparse[2] = {std::int64_t(1) << 24, 10};
  const jf::ir::launch_config cs = jf::ir::configure_launch(k, sparse, 2, jf::ir::device_limits{132, 2048, 65535});
  EXPECT_EQ(cs.grid[0], (1u << 19) / 256u);
  EXPECT_EQ(cs.scratch_bytes, 16u + (1u << 21) + 4u * (1u << 24));
  li.launches = 2;  // checks, then the values combined: 16 bytes of counters
  li.claim_bytes = 0;
  k.launch = li;
  const jf::ir::launch_config two = jf::ir::configure_launch(k, ext, 2, jf::ir::device_limits{132, 2048, 65535});
  EXPECT_EQ(two.launches, 2);
  EXPECT_EQ(two.scratch_bytes, 16u);
  EXPECT_EQ(two.grid[0], (5000u + 255u) / 256u);
  li.launches = 1;  // combining, nothing to check: one launch, no scratch
  li.claim_bytes = 0;
  k.launch = li;
  const jf::ir::launch_config one = jf::ir::configure_launch(k, ext, 2, jf::ir::device_limits{132, 2048, 65535});
  EXPECT_EQ(one.launches, 1);
  EXPECT_EQ(one.scratch_bytes, 0u);
}

#ifdef JF_HAVE_CUDA
// The CUDA sources of a plan (the prelude added back).
std::vector<std::string> kernels_of(const std::string& plan) {
  std::vector<std::string> out;
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  for (std::size_t at = plan.find(mark); at != std::string::npos; at = plan.find(mark, at + 1)) {
    const std::size_t from = at + mark.size(), to = plan.find("\n--- ", from);
    out.push_back(std::string(jf::ir::scalar_ops_source()) +
                  plan.substr(from, to == std::string::npos ? std::string::npos : to - from));
  }
  return out;
}
TEST(ScatterPlans, KernelsCompileWithNvrtc) {
  int compiled = 0;
  for (const std::string& plan : plans())
    for (const std::string& src : kernels_of(plan)) {
      try {
        (void)test_support::nvrtc_unit(src);  // a cubin, or PTX without a GPU
        ++compiled;
      } catch (const jf::compile_error& e) {
        ADD_FAILURE() << e.log() << "\n" << plan;
      }
    }
  EXPECT_EQ(compiled, static_cast<int>(plans().size()));
}
#endif

}  // namespace
