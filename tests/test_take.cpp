// jf::take (numpy.take, axis=None) on every backend: values against the indices applied on the
// host, fused with producers and consumers (one kernel: jf::explain), in reductions, from views,
// 2-d index arrays, numpy's wrap/clip modes, and out-of-range indices raising jf::index_error with
// numpy's message (the earliest failing position reported, outputs that existed untouched, the next
// evaluation unaffected).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "explained_cuda.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

using test_support::message_of;
using test_support::rand_int;
using test_support::rng;
using test_support::seed;

template <class T> std::vector<T> values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) v[i] = rand_int(0, 1) != 0;
    else if constexpr (std::is_integral_v<T>) v[i] = static_cast<T>(rand_int(-1000000, 1000000));
    else v[i] = static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng()));
  }
  return v;
}

// Valid positions for a length n (negative ones count from the end, as numpy).
template <class I> std::vector<I> positions(std::size_t count, i64 n) {
  std::vector<I> v(count);
  for (auto& x : v) x = static_cast<I>(rand_int(-n, n - 1));
  return v;
}
i64 normalized(i64 j, i64 n) { return j < 0 ? j + n : j; }

class Take : public test_support::on_backends {
};

template <class T, class I> void check_random(jf::device dev, i64 n, std::size_t count) {
  const std::vector<T> xv = values<T>(static_cast<std::size_t>(n));
  const std::vector<I> iv = positions<I>(count, n);
  const jf::array<T> x(xv, dev);
  const jf::array<I> idx(iv, dev);
  jf::array<T> got = jf::full<T>({static_cast<i64>(count)}, T(1), dev);  // poisoned
  got = jf::take(x, idx);
  const std::vector<T> g = got.to_vector();
  ASSERT_EQ(g.size(), count);
  for (std::size_t k = 0; k < count; ++k)
    ASSERT_EQ(g[k], xv[static_cast<std::size_t>(normalized(iv[k], n))])
        << "n " << n << " position " << k << " index " << iv[k] << " seed " << seed();
}

TEST_P(Take, RandomIndicesEveryDtype) {
  for (i64 n : {i64(1), i64(7), i64(1000), i64(1 << 17) + 3})
    for (std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(70001)}) {
      check_random<double, i64>(dev(), n, count);
      check_random<float, std::int32_t>(dev(), n, count);
      check_random<std::int32_t, i64>(dev(), n, count);
      check_random<i64, std::int32_t>(dev(), n, count);
      check_random<bool, i64>(dev(), n, count);
      if (HasFatalFailure()) return;
    }
}

TEST_P(Take, FusedWithProducerAndConsumer) {
  const i64 n = 5003;
  const std::vector<double> xv = values<double>(static_cast<std::size_t>(n));
  std::vector<i64> perm(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) perm[static_cast<std::size_t>(k)] = (k * 7919) % n;  // a permutation (n prime)
  const jf::array<double> x(xv, dev());
  const jf::array<i64> p(perm, dev());
  // The indices computed in the kernel (reversed: n - 1 - p) and the result consumed by it.
  const auto e = jf::sqrt(jf::abs(jf::take(x, (n - 1) - p))) * 2.0 + 1.0;
  const jf::array<double> y = e;
  const std::vector<double> yv = y.to_vector();
  for (i64 k = 0; k < n; ++k)
    ASSERT_DOUBLE_EQ(yv[static_cast<std::size_t>(k)],
                     std::sqrt(std::abs(xv[static_cast<std::size_t>(n - 1 - perm[static_cast<std::size_t>(k)])])) * 2.0 + 1.0);
  if (dev().kind == jf::device_kind::cuda) {
    const std::string plan = jf::explain(e);
    EXPECT_NE(plan.find("gather"), std::string::npos) << plan;
    EXPECT_NE(plan.find("1 kernel"), std::string::npos) << plan;
  }
  // A reduction of gathered values: sum(x[p] * x) is one expression.
  double expect = 0;
  for (i64 k = 0; k < n; ++k) expect += xv[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])] * xv[static_cast<std::size_t>(k)];
  EXPECT_NEAR(jf::sum(jf::take(x, p) * x).item(), expect, 1e-9 * n * 1e4);
  // The same through the unfused path (a kernel per operation).
  const jf::array<double> u = jf::eval(jf::unfused, jf::take(x, p) * 2.0);
  const std::vector<double> uv = u.to_vector();
  for (i64 k = 0; k < n; ++k) ASSERT_EQ(uv[static_cast<std::size_t>(k)], 2.0 * xv[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])]);
}

TEST_P(Take, ViewsAndShapes) {
  const std::vector<double> xv = values<double>(24);
  const jf::array<double> x(xv, jf::shape_t{4, 6}, dev());
  const jf::array<i64> idx({{0, 23, -1}, {5, 6, -24}}, dev());
  // A 2-d x is read flattened (numpy's axis=None); the result has the indices' shape.
  const jf::array<double> r = jf::take(x, idx);
  EXPECT_EQ(r.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(r.to_vector(), (std::vector<double>{xv[0], xv[23], xv[23], xv[5], xv[6], xv[0]}));
  // A transposed x flattens in C order of the view: element (i, j) of x.T is x(j, i).
  const jf::array<double> t = jf::take(x.transpose(), jf::array<i64>({0, 1, 4}, dev()));
  EXPECT_EQ(t.to_vector(), (std::vector<double>{xv[0], xv[6], xv[1]}));
  // Strided and reversed 1-d views are read in place (size and stride are kernel arguments).
  const jf::array<double> flat(xv, dev());
  const jf::array<double> every3 = flat(jf::range(1, jf::none, 3));   // 1 4 7 ... 22
  const jf::array<double> back = flat(jf::range(jf::none, jf::none, -2));  // 23 21 ... 1
  const jf::array<i64> k({0, 7, -1, 3}, dev());
  EXPECT_EQ(jf::array<double>(jf::take(every3, k)).to_vector(), (std::vector<double>{xv[1], xv[22], xv[22], xv[10]}));
  EXPECT_EQ(jf::array<double>(jf::take(back, k)).to_vector(), (std::vector<double>{xv[23], xv[9], xv[1], xv[17]}));
  // Indices that broadcast against another operand.
  const jf::array<double> col(std::vector<double>{10.0, 20.0}, jf::shape_t{2, 1}, dev());
  const jf::array<double> s = jf::take(flat, jf::array<i64>({1, 2, 3}, dev())) + col;
  EXPECT_EQ(s.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(s.to_vector(), (std::vector<double>{xv[1] + 10, xv[2] + 10, xv[3] + 10, xv[1] + 20, xv[2] + 20, xv[3] + 20}));
}

TEST_P(Take, CallOperatorIsTake) {
  const jf::array<float> x({1.5f, 2.5f, 3.5f, 4.5f}, dev());
  const jf::array<std::int32_t> i({3, 0, -1, 1}, dev());
  EXPECT_EQ(jf::array<float>(x(i)).to_vector(), (std::vector<float>{4.5f, 1.5f, 4.5f, 2.5f}));
  EXPECT_EQ(jf::array<float>(x(i * 0 + 2) * 2.0f).to_vector(), (std::vector<float>(4, 7.0f)));  // fused
  EXPECT_EQ(x(1), 2.5f);  // integers still read one element
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<float>(x(i + 1)); }), "index 4 is out of bounds for axis 0 with size 4");
  // On an n-d array, x(indices) is numpy's x[indices]: whole rows.
  const jf::array<float> m(std::vector<float>{1, 2, 3, 4, 5, 6}, jf::shape_t{3, 2}, dev());
  const jf::array<float> rows = m(jf::array<std::int32_t>({2, 0}, dev()));
  EXPECT_EQ(rows.shape(), (jf::shape_t{2, 2}));
  EXPECT_EQ(rows.to_vector(), (std::vector<float>{5, 6, 1, 2}));
  // x(indices, jf::all) is numpy's x[indices, :]: the same rows; one jf::all per remaining axis at most.
  const jf::array<float> rows_all = m(jf::array<std::int32_t>({2, 0}, dev()), jf::all);
  EXPECT_EQ(rows_all.shape(), (jf::shape_t{2, 2}));
  EXPECT_EQ(rows_all.to_vector(), (std::vector<float>{5, 6, 1, 2}));
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)m(i, jf::all, jf::all); }),
            "too many indices for array: array is 2-dimensional, but 3 were indexed");
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)x(i, jf::all); }),
            "too many indices for array: array is 1-dimensional, but 2 were indexed");
  // x(jf::all, indices) is numpy's x[:, indices]: take along axis 1 (numpy: m[:, [1, 0, -1]]).
  const jf::array<std::int64_t> cols({1, 0, -1}, dev());
  const jf::array<float> picked = m(jf::all, cols) * 10.0f;
  EXPECT_EQ(picked.shape(), (jf::shape_t{3, 3}));
  EXPECT_EQ(picked.to_vector(), (std::vector<float>{20, 10, 20, 40, 30, 40, 60, 50, 60}));
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<float>(m(jf::all, cols + 2)); }),
            "index 3 is out of bounds for axis 1 with size 2");
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)x(jf::all, i); }),
            "too many indices for array: array is 1-dimensional, but 2 were indexed");
}

// numpy.take(x, idx, axis) for x of 1 to 3 dimensions, every axis, 0- to 2-d indices, views:
// element (i..., j..., l...) of the result is x(i..., idx(j...), l...).
TEST_P(Take, AlongAnAxis) {
  for (int trial = 0; trial < 40; ++trial) {
    const int nd = static_cast<int>(rand_int(1, 3));
    jf::shape_t xs;
    for (int k = 0; k < nd; ++k) xs.push_back(rand_int(1, 5));
    const std::vector<double> xv = values<double>(static_cast<std::size_t>(xs.product()));
    jf::array<double> x(xv, xs, dev());
    const bool transposed = trial % 3 == 1 && nd > 1;
    if (transposed) x = x.transpose();  // a view: read in place with its strides
    const jf::shape_t shape = x.shape();
    const int axis = static_cast<int>(rand_int(-nd, nd - 1));
    const int ax = axis < 0 ? axis + nd : axis;
    const int ni = static_cast<int>(rand_int(0, 2));
    jf::shape_t is;
    for (int k = 0; k < ni; ++k) is.push_back(rand_int(1, 4));
    std::vector<i64> iv(static_cast<std::size_t>(is.product()));
    for (auto& v : iv) v = rand_int(-shape[ax], shape[ax] - 1);
    const jf::array<i64> idx(iv, is, dev());
    // Fused with a consumer and with the indices' producer (idx + 0 is computed in the kernel).
    const jf::array<double> r = jf::take(x, idx + 0, axis) * 2.0;
    jf::shape_t expect_shape;
    for (int k = 0; k < ax; ++k) expect_shape.push_back(shape[k]);
    for (int k = 0; k < ni; ++k) expect_shape.push_back(is[k]);
    for (int k = ax + 1; k < nd; ++k) expect_shape.push_back(shape[k]);
    ASSERT_EQ(r.shape(), expect_shape) << "seed " << seed();
    const std::vector<double> rv = r.to_vector();
    const jf::strides_t xst = jf::contiguous_strides(xs);
    std::vector<i64> at(static_cast<std::size_t>(expect_shape.size()), 0);
    for (std::size_t f = 0; f < rv.size(); ++f) {
      i64 ipos = 0;
      for (int k = 0; k < ni; ++k) ipos = ipos * is[k] + at[static_cast<std::size_t>(ax + k)];
      std::vector<i64> xi;  // the index into x (the view)
      for (int k = 0; k < ax; ++k) xi.push_back(at[static_cast<std::size_t>(k)]);
      xi.push_back(normalized(iv[static_cast<std::size_t>(ipos)], shape[ax]));
      for (int k = ax + 1; k < nd; ++k) xi.push_back(at[static_cast<std::size_t>(k - 1 + ni)]);
      i64 off = 0;  // into the original contiguous data
      for (int k = 0; k < nd; ++k) off += xi[static_cast<std::size_t>(k)] * xst[transposed ? nd - 1 - k : k];
      ASSERT_EQ(rv[f], 2.0 * xv[static_cast<std::size_t>(off)]) << "trial " << trial << " element " << f << " seed " << seed();
      for (int k = expect_shape.size() - 1; k >= 0; --k) {
        if (++at[static_cast<std::size_t>(k)] < expect_shape[k]) break;
        at[static_cast<std::size_t>(k)] = 0;
      }
    }
  }
  // Columns of a matrix, reduced per row in the same kernel; the message names the axis.
  const jf::array<double> m(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}, jf::shape_t{2, 4}, dev());
  const jf::array<i64> cols({3, 0, -1}, dev());
  EXPECT_EQ(jf::array<double>(jf::sum(jf::take(m, cols, 1), 1)).to_vector(), (std::vector<double>{4 + 1 + 4, 8 + 5 + 8}));
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<double>(jf::take(m, cols + 2, 1)); }),
            "index 5 is out of bounds for axis 1 with size 4");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::take(m, cols, 2); }), "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(jf::array<double>(jf::take(m, cols + 2, 1, jf::mode::wrap)).to_vector(), (std::vector<double>{2, 3, 2, 6, 7, 6}));
  // Indices computed by a reduction: x[argmax(y, 1)] in one evaluation.
  const jf::array<double> y(std::vector<double>{0, 9, 1, 7, 2, 3}, jf::shape_t{2, 3}, dev());
  const jf::array<double> v({10.0, 20.0, 30.0}, dev());
  EXPECT_EQ(jf::array<double>(jf::take(v, jf::argmax(y, 1))).to_vector(), (std::vector<double>{20.0, 10.0}));
}

// numpy's x[mask] = value: one fused where, in place, on arrays, views and expression masks.
TEST_P(Take, MaskAssignment) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(37), std::size_t(70001)}) {
    const std::vector<double> xv = values<double>(n);
    std::vector<bool> mv(n);
    for (std::size_t k = 0; k < n; ++k) mv[k] = rand_int(0, 2) == 0;
    jf::array<double> x(xv, dev());
    const jf::array<bool> mask(mv, dev());
    x(mask) = -1.5;
    const std::vector<double> got = x.to_vector();
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], mv[k] ? -1.5 : xv[k]) << "n " << n << " element " << k << " seed " << seed();
    // An expression mask (numpy x[x > 50] = 50: clipping from above), computed in the same kernel.
    x(x > 50.0) = 50;
    const std::vector<double> clipped = x.to_vector();
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(clipped[k], std::min(got[k], 50.0));
  }
  // Into a view; the value cast to the array's dtype (numpy: 2.7 into int64 is 2); bool arrays.
  jf::array<i64> m(std::vector<i64>{1, 2, 3, 4, 5, 6}, jf::shape_t{2, 3}, dev());
  m(jf::all, jf::range(0, 3, 2))(jf::array<bool>({{true, false}, {false, true}}, dev())) = 2.7;
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{2, 2, 3, 4, 5, 2}));
  // A mask of lower rank selects along the first axes (numpy: whole rows).
  m(jf::array<bool>({false, true}, dev())) = 0;
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{2, 2, 3, 0, 0, 0}));
  jf::array<bool> b({true, false, true}, dev());
  b(b) = false;
  EXPECT_EQ(b.to_vector(), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(message_of<jf::index_error>([&] { m(jf::array<bool>({true, false, true}, dev())) = 1; }),
            "boolean index did not match indexed array along axis 0; size of axis is 2 but size of corresponding "
            "boolean axis is 3");
  const jf::array<bool> deep = jf::ones<bool>({2, 3, 1}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { m(deep) = 1; }),
            "too many indices for array: array is 2-dimensional, but 3 were indexed");
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{2, 2, 3, 0, 0, 0}));  // untouched by the failures
}

TEST_P(Take, WrapAndClipModes) {
  const jf::array<i64> x({10, 11, 12, 13, 14}, dev());
  const jf::array<i64> idx({-7, -6, -5, -1, 0, 4, 5, 6, 12, -12}, dev());
  // numpy: np.take(x, idx, mode='wrap') / mode='clip' (clip sends negative indices to 0).
  EXPECT_EQ(jf::array<i64>(jf::take(x, idx, jf::mode::wrap)).to_vector(),
            (std::vector<i64>{13, 14, 10, 14, 10, 14, 10, 11, 12, 13}));
  EXPECT_EQ(jf::array<i64>(jf::take(x, idx, jf::mode::clip)).to_vector(),
            (std::vector<i64>{10, 10, 10, 10, 10, 14, 14, 14, 14, 10}));
}

TEST_P(Take, OutOfBoundsRaisesNumpysIndexError) {
  const jf::array<double> x({0.0, 1.1, 2.2, 3.3, 4.4, 5.5}, dev());
  // The seed's example: CuPy wraps array[cp.array([2, 3, 5, 6, 7, 8])]; numpy raises.
  const jf::array<i64> bad({2, 3, 5, 6, 7, 8}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<double>(jf::take(x, bad)); }),
            "index 6 is out of bounds for axis 0 with size 6");
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<double>(jf::take(x, jf::array<i64>({0, -7}, dev()))); }),
            "index -7 is out of bounds for axis 0 with size 6");
  // Fused: the index computed in the kernel, the first failing position in order reported.
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::sum(jf::take(x, bad * 2 + 1)).item(); }),
            "index 7 is out of bounds for axis 0 with size 6");
  // Many failing positions across blocks: still the first one.
  std::vector<i64> many(300000, 1);
  for (std::size_t k = 100000; k < many.size(); ++k) many[k] = static_cast<i64>(k);
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<double>(jf::take(x, jf::array<i64>(many, dev()))); }),
            "index 100000 is out of bounds for axis 0 with size 6");
  // An output that is also an input is untouched (it is written through a temporary, copied back
  // only after the check: raised at once on both backends); the next evaluation works.
  jf::array<double> out = jf::full<double>({6}, -1.0, dev());
  EXPECT_THROW(out = jf::take(out, bad), jf::index_error);
  EXPECT_EQ(out.to_vector(), std::vector<double>(6, -1.0));
  // Otherwise the CPU raises before returning (no array is handed out); the GPU at the thread's
  // next synchronisation: reading the result raises.
  jf::array<double> fresh;
  if (dev().kind == jf::device_kind::cpu) {
    EXPECT_THROW(fresh = jf::take(x, bad), jf::index_error);
    EXPECT_TRUE(fresh.is_null());
  } else {
    fresh = jf::take(x, bad);
    EXPECT_EQ(message_of<jf::index_error>([&] { (void)fresh.to_vector(); }),
              "index 6 is out of bounds for axis 0 with size 6");
    fresh = jf::take(x, bad);
    EXPECT_EQ(message_of<jf::index_error>([] { jf::synchronize(); }),
              "index 6 is out of bounds for axis 0 with size 6");
    // Two failing evaluations before a wait: the earlier one is raised, the later one dropped.
    fresh = jf::take(x, bad - 9);
    fresh = jf::take(x, bad);
    EXPECT_EQ(message_of<jf::index_error>([] { jf::synchronize(); }),
              "index -7 is out of bounds for axis 0 with size 6");
    jf::synchronize();  // nothing pending
  }
  out = jf::take(x, bad - 3);
  EXPECT_EQ(out.to_vector(), (std::vector<double>{5.5, 0.0, 2.2, 3.3, 4.4, 5.5}));
  // numpy: an empty axis cannot be taken from unless no index is given.
  const jf::array<double> empty = jf::zeros<double>({0}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)jf::array<double>(jf::take(empty, jf::array<i64>({0}, dev()))); }),
            "cannot do a non-empty take from an empty axes.");
  EXPECT_EQ(jf::array<double>(jf::take(empty, jf::zeros<i64>({0}, dev()))).size(), 0);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{0.0, 1.1, 2.2, 3.3, 4.4, 5.5}));  // inputs untouched
}

INSTANTIATE_TEST_SUITE_P(Backends, Take, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// A raising gather's kernel keeps the thread's earliest failure in registers and reports it once at
// the end (a call in the loop kept the compiler from batching its loads: 5.5 % slower than clip).
TEST(TakeKernel, RaisingGathersReportAtTheKernelsEnd) {
  const jf::array<double> x = jf::zeros<double>({1000});
  const jf::array<i64> p = jf::zeros<i64>({1000});
  const std::string raise = jf::explain_cuda(jf::sqrt(jf::take(x, p)));
  EXPECT_NE(raise.find("jf_nest::thread_failure jf_fail;"), std::string::npos) << raise;
  EXPECT_NE(raise.find("jf_nest::gather<0>(in0 + (0), v0, v1, v2, jf_fail,"), std::string::npos) << raise;
  EXPECT_NE(raise.find("  jf_fail.report(a.err);\n}"), std::string::npos) << raise;
  test_support::expect_explained_cuda_compiles(raise);
  const std::string clip = jf::explain_cuda(jf::take(x, p, jf::mode::clip));
  EXPECT_EQ(clip.find("jf_fail"), std::string::npos) << clip;
}

// The GPU's checks are deferred to the thread's next synchronisation; each evaluation that checks
// takes a record, and the thread waits (raising what the records hold) when all 256 are taken.
TEST(TakeOnTheGpu, MoreCheckedEvaluationsThanRecordsBeforeAWait) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine";
  const jf::array<double> x({0.5, 1.5, 2.5, 3.5}, jf::cuda);
  const jf::array<i64> good({3, 0, -1}, jf::cuda), bad({1, 4, 9}, jf::cuda);
  jf::array<double> y;
  for (int k = 0; k < 3 * 256 + 5; ++k) y = jf::take(x, good);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{3.5, 0.5, 3.5}));
  // One failure among 600: raised by the wait of a full ring (the evaluations after it still run)
  // or by the last one; either way once.
  for (const int failing : {0, 100, 255, 256, 300, 599}) {
    std::string message;
    int reached = 0;
    try {
      for (int k = 0; k < 600; ++k, reached = k) y = jf::take(x, k == failing ? bad : good);
      jf::synchronize();
    } catch (const jf::index_error& e) {
      message = e.what();
    }
    EXPECT_EQ(message, "index 4 is out of bounds for axis 0 with size 4") << "failing evaluation " << failing;
    EXPECT_GE(reached, failing) << "raised before the failing evaluation ran";
    jf::synchronize();  // what was left pending (after a full ring's raise) checks clean
    EXPECT_EQ(jf::array<double>(jf::take(x, good)).to_vector(), (std::vector<double>{3.5, 0.5, 3.5}));
  }
}

// Each host thread has its own stream and records: another thread's waits do not raise this
// thread's error, and this thread's next wait does.
TEST(TakeOnTheGpu, IndexErrorsBelongToTheThreadThatLaunched) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine";
  const jf::array<double> x({0.5, 1.5, 2.5, 3.5}, jf::cuda);
  const jf::array<i64> good({3, 0, -1}, jf::cuda), bad({1, 4, 9}, jf::cuda);
  jf::array<double> y = jf::take(x, bad);  // pending on this thread
  std::string other = "not run";
  std::thread t([&] {
    try {
      const jf::array<double> z = jf::take(x, good);
      other = std::to_string(z.to_vector()[0]);
      jf::synchronize();
    } catch (const std::exception& e) {
      other = e.what();
    }
  });
  t.join();
  EXPECT_EQ(other, "3.500000");
  EXPECT_EQ(message_of<jf::index_error>([] { jf::synchronize(); }), "index 4 is out of bounds for axis 0 with size 4");
}

}  // namespace
