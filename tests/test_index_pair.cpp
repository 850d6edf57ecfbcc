// x(i, j), numpy's x[i, j] with two integer index arrays or expressions, on every backend: numpy's
// values and errors from tests/data/index_pair_table.txt (gen_index_pair_table.py: broadcast index
// arrays, trailing axes, nothing selected, indices out of range on either axis and on both, empty
// indexed axes, shapes that do not broadcast), views of x and index expressions against host loops
// on fresh random inputs (sizes 0, 1, odd, longer than a block), fusion into one kernel, an error
// followed by a working evaluation, the generated kernel compiled by NVRTC, and GPU against CPU;
// the same for x(i, j) = v (numpy's x[i, j] = v, index_pair_setitem_table.txt).
#include <gtest/gtest.h>

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

#include "explained_cuda.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::parse_shape;
using test_support::parse_words;
using test_support::same;
using test_support::values_of;

class IndexPair : public test_support::on_backends {};

TEST_P(IndexPair, MatchesNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/index_pair_table.txt", 8);
  ASSERT_GE(cases.size(), 19u);
  for (const auto& c : cases) {
    const jf::shape_t xs = parse_shape(c.lines[0][0]), is = parse_shape(c.lines[2][0]), js = parse_shape(c.lines[4][0]);
    SCOPED_TRACE("x " + c.lines[0][0] + ", i " + c.lines[2][0] + ", j " + c.lines[4][0]);
    const jf::array<double> x = jf::array<double>(parse_words<double>(values_of(c.lines[1])), dev()).reshape(xs);
    const jf::array<i64> i = jf::array<i64>(parse_words<i64>(values_of(c.lines[3])), dev()).reshape(is);
    const jf::array<i64> j = jf::array<i64>(parse_words<i64>(values_of(c.lines[5])), dev()).reshape(js);
    const std::vector<double> x_before = x.to_vector();
    if (c.lines[6][0] == "error") {
      std::string msg;
      for (std::size_t k = 0; k < c.lines[7].size(); ++k) msg += (k ? " " : "") + c.lines[7][k];
      EXPECT_EQ(
          test_support::trimmed(test_support::message_of<jf::index_error>([&] { jf::array<double> r = x(i, j); })),
          msg);
      EXPECT_EQ(x.to_vector(), x_before);
      continue;
    }
    // Into an existing array of the result's shape, poisoned first.
    jf::array<double> out = jf::full<double>(parse_shape(c.lines[6][0]), -99.0, dev());
    out = x(i, j);
    EXPECT_EQ(out.shape(), parse_shape(c.lines[6][0]));
    EXPECT_TRUE(same(out.to_vector(), parse_words<double>(values_of(c.lines[7]))));
  }
}

// Views of x (transposed, rows reversed, stepped columns) picked by index expressions (int32 and
// int64, negative positions, one broadcast against the other), against host loops.
TEST_P(IndexPair, ViewsAndExpressionsAgainstHostLoops) {
  auto& r = test_support::rng();
  for (const i64 m : {i64{1}, i64{37}, i64{300}}) {
    const i64 n = 2 * m + 3;
    std::vector<i64> base(static_cast<std::size_t>(m * n));
    for (i64& e : base) e = static_cast<i64>(r() % 100000);
    const jf::array<i64> a = jf::array<i64>(base, dev()).reshape({m, n});
    auto at = [&](i64 p, i64 q) { return base[static_cast<std::size_t>(p * n + q)]; };
    for (const i64 k : {i64{0}, i64{1}, i64{257}, i64{5003}}) {
      SCOPED_TRACE("m " + std::to_string(m) + ", k " + std::to_string(k));
      std::vector<std::int32_t> iv(static_cast<std::size_t>(k));
      std::vector<i64> jv(static_cast<std::size_t>(k));
      for (auto& e : iv)
        e = static_cast<std::int32_t>(r() % static_cast<std::uint64_t>(2 * m)) - static_cast<std::int32_t>(m);
      for (auto& e : jv) e = static_cast<i64>(r() % static_cast<std::uint64_t>(n));
      const jf::array<std::int32_t> iw(iv, dev());
      const jf::array<i64> jw(jv, dev());
      auto norm = [](i64 v, i64 size) { return v < 0 ? v + size : v; };
      // Transposed (n, m): x.T[j, i] = x[i, j]; j reversed by an expression.
      const jf::array<i64> t = a.transpose();
      const std::vector<i64> got = jf::array<i64>(t((n - 1) - jw, iw) * 2 + 1).to_vector();
      ASSERT_EQ(got.size(), static_cast<std::size_t>(k));
      for (i64 e = 0; e < k; ++e) {
        const auto s = static_cast<std::size_t>(e);
        ASSERT_EQ(got[s], at(norm(iv[s], m), n - 1 - jv[s]) * 2 + 1) << "pick " << e;
      }
      // Rows reversed, every other column: shape (m, (n + 1) / 2).
      const i64 half = (n + 1) / 2;
      const jf::array<i64> rs = a(jf::range(jf::range::none, jf::range::none, -1), jf::range(0, n, 2));
      const std::vector<i64> got2 = jf::array<i64>(rs(iw, jw % half)).to_vector();
      for (i64 e = 0; e < k; ++e) {
        const auto s = static_cast<std::size_t>(e);
        ASSERT_EQ(got2[s], at(m - 1 - norm(iv[s], m), 2 * (jv[s] % half))) << "pick " << e;
      }
    }
    // An outer grid: i of shape (m, 1) against j of shape (n,): the whole array, rows reversed.
    std::vector<i64> rows(static_cast<std::size_t>(m)), cols(static_cast<std::size_t>(n));
    for (i64 p = 0; p < m; ++p) rows[static_cast<std::size_t>(p)] = m - 1 - p;
    for (i64 q = 0; q < n; ++q) cols[static_cast<std::size_t>(q)] = q - n;  // all negative
    const jf::array<i64> grid = a(jf::array<i64>(rows, dev()).reshape({m, 1}), jf::array<i64>(cols, dev()));
    ASSERT_EQ(grid.shape(), (jf::shape_t{m, n}));
    const std::vector<i64> gv = grid.to_vector();
    for (i64 p = 0; p < m; ++p)
      for (i64 q = 0; q < n; ++q) ASSERT_EQ(gv[static_cast<std::size_t>(p * n + q)], at(m - 1 - p, q));
  }
}

// One kernel for the indices' producers, the picks and their consumer; an error does not stop a
// later evaluation; the reported index is i's when both are out of range (numpy checks i first).
TEST_P(IndexPair, FusedErrorsAndRecovery) {
  const i64 m = 1000, n = 777;
  std::vector<float> xv(static_cast<std::size_t>(m * n));
  for (std::size_t k = 0; k < xv.size(); ++k) xv[k] = static_cast<float>(k % 1013) * 0.5f;
  const jf::array<float> x = jf::array<float>(xv, dev()).reshape({m, n});
  const jf::array<i64> p = jf::arange<i64>(0, 4096, 1, dev());
  const auto e = jf::sqrt(x((p * 7) % m, (p * 13) % n)) + 1.0f;
  const std::vector<float> got = jf::array<float>(e).to_vector();
  for (i64 k = 0; k < 4096; ++k) {
    ASSERT_EQ(got[static_cast<std::size_t>(k)],
              std::sqrt(xv[static_cast<std::size_t>(((k * 7) % m) * n + (k * 13) % n)]) + 1.0f);
  }
  const std::string plan = jf::explain(e);
  EXPECT_NE(plan.find("check_index"), std::string::npos) << plan;
  if (dev().kind == jf::device_kind::cuda) {
    EXPECT_NE(plan.find("1 kernel"), std::string::npos) << plan;
  }
  // Out of range on both axes: i = 7p % 4000 first fails at p = 143 (1001), j = 13p % 7000 earlier
  // at p = 60 (780), but i's failures come first.
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<float> r = x((p * 7) % 4000, (p * 13) % 7000); }),
            "index 1001 is out of bounds for axis 0 with size 1000");
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<float> r = x(p % m, p - n); }),
            "index 777 is out of bounds for axis 1 with size 777");
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<float> r = x(p % m - 1001, p % n); }),
            "index -1001 is out of bounds for axis 0 with size 1000");
  const std::vector<float> again = jf::array<float>(e).to_vector();
  EXPECT_EQ(again, got);
  // Too few axes: numpy's message; a bool index selects with x(mask) instead (a compile-time error).
  const jf::array<float> v = jf::array<float>(std::vector<float>{1, 2, 3}, dev());
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { auto r = v(p, p); }),
            "too many indices for array: array is 1-dimensional, but 2 were indexed");
}

// x(i, j) = v against numpy's x[i, j] = v (tests/data/index_pair_setitem_table.txt): into x itself
// (its first two axes merge: the scatter writes x in place) and into a view of x with those two
// axes transposed in memory (they do not merge: a copy written back); errors leave x untouched.
TEST_P(IndexPair, AssignmentMatchesNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/index_pair_setitem_table.txt", 10);
  ASSERT_GE(cases.size(), 17u);
  for (const auto& c : cases) {
    const jf::shape_t xs = parse_shape(c.lines[0][0]), is = parse_shape(c.lines[2][0]), js = parse_shape(c.lines[4][0]);
    SCOPED_TRACE("x " + c.lines[0][0] + ", i " + c.lines[2][0] + ", j " + c.lines[4][0] + ", v " + c.lines[6][0]);
    const std::vector<double> xv = parse_words<double>(values_of(c.lines[1]));
    const jf::array<i64> i = jf::array<i64>(parse_words<i64>(values_of(c.lines[3])), dev()).reshape(is);
    const jf::array<i64> j = jf::array<i64>(parse_words<i64>(values_of(c.lines[5])), dev()).reshape(js);
    const jf::array<double> v =
        jf::array<double>(parse_words<double>(values_of(c.lines[7])), dev()).reshape(parse_shape(c.lines[6][0]));
    // x's axes 0 and 1 swapped in memory: the same values seen through a transposed view.
    jf::shape_t swapped = xs, order;
    for (int k = 0; k < xs.size(); ++k) order.push_back(k < 2 ? 1 - k : k);
    if (xs.size() >= 2) {
      swapped[0] = xs[1];
      swapped[1] = xs[0];
    }
    for (const bool view : {false, true}) {
      SCOPED_TRACE(view ? "a view whose first two axes do not merge" : "a contiguous x");
      const jf::array<double> contiguous = jf::array<double>(xv, dev()).reshape(xs);
      const jf::array<double> x =
          view ? jf::array<double>(contiguous.transpose(order).copy().transpose(order)) : contiguous;
      ASSERT_EQ(x.shape(), xs);
      ASSERT_EQ(x.to_vector(), xv);
      if (c.lines[8][0] == "error") {
        std::string msg;
        for (std::size_t k = 0; k < c.lines[9].size(); ++k) msg += (k ? " " : "") + c.lines[9][k];
        if (c.lines[8][1] == "index")
          EXPECT_EQ(test_support::trimmed(test_support::message_of<jf::index_error>([&] { x(i, j) = v; })), msg);
        else
          EXPECT_EQ(test_support::message_of<jf::shape_error>([&] { x(i, j) = v; }), msg);
        EXPECT_EQ(x.to_vector(), xv);
        continue;
      }
      x(i, j) = v;
      EXPECT_EQ(x.shape(), parse_shape(c.lines[8][0]));
      EXPECT_TRUE(same(x.to_vector(), parse_words<double>(values_of(c.lines[9]))));
    }
  }
}

// x(i, j) = expression and x(i, j) += v with index expressions (int32 and int64, negative
// positions), fresh random inputs of sizes 0, 1, odd, longer than a block, against a host loop in
// numpy's order (the last duplicate wins; += reads x before it writes: a duplicate adds once).
TEST_P(IndexPair, AssignmentOfExpressionsAgainstHostLoops) {
  auto& r = test_support::rng();
  for (const i64 m : {i64{1}, i64{37}, i64{300}}) {
    const i64 n = 2 * m + 3;
    for (const i64 k : {i64{0}, i64{1}, i64{257}, i64{5003}}) {
      SCOPED_TRACE("m " + std::to_string(m) + ", k " + std::to_string(k));
      std::vector<double> xv(static_cast<std::size_t>(m * n));
      for (double& e : xv) e = static_cast<double>(r() % 1000) * 0.25;
      std::vector<std::int32_t> iv(static_cast<std::size_t>(k));
      std::vector<i64> jv(static_cast<std::size_t>(k));
      std::vector<double> vv(static_cast<std::size_t>(k));
      for (auto& e : iv)
        e = static_cast<std::int32_t>(r() % static_cast<std::uint64_t>(2 * m)) - static_cast<std::int32_t>(m);
      for (auto& e : jv) e = static_cast<i64>(r() % static_cast<std::uint64_t>(n));
      for (auto& e : vv) e = static_cast<double>(r() % 1000) + 0.5;
      const jf::array<std::int32_t> iw(iv, dev());
      const jf::array<i64> jw(jv, dev());
      const jf::array<double> vw(vv, dev());
      auto norm = [](i64 q, i64 size) { return q < 0 ? q + size : q; };
      // x(i, n - 1 - j) = sqrt(v) * 2: computed values, reversed columns.
      jf::array<double> x = jf::array<double>(xv, dev()).reshape({m, n});
      x(iw, (n - 1) - jw) = jf::sqrt(vw) * 2.0;
      std::vector<double> want = xv;
      for (i64 e = 0; e < k; ++e) {
        const auto s = static_cast<std::size_t>(e);
        want[static_cast<std::size_t>(norm(iv[s], m) * n + (n - 1 - jv[s]))] = std::sqrt(vv[s]) * 2.0;
      }
      EXPECT_TRUE(same(x.to_vector(), want));
      // x(i, j) += v: x read before the assignment, the last duplicate's value added once.
      x(iw, jw) += vw;
      std::vector<double> plus = want;
      for (i64 e = 0; e < k; ++e) {
        const auto s = static_cast<std::size_t>(e);
        const auto at = static_cast<std::size_t>(norm(iv[s], m) * n + jv[s]);
        plus[at] = want[at] + vv[s];
      }
      EXPECT_TRUE(same(x.to_vector(), plus));
    }
  }
}

// An out-of-range index of a fused assignment raises numpy's IndexError (i's before j's) and
// leaves x untouched; a later assignment works; x(jf::argmax(y, 1), j) = v evaluates the
// reduction first.
TEST_P(IndexPair, AssignmentErrorsAndRecovery) {
  const i64 m = 1000, n = 777;
  std::vector<float> xv(static_cast<std::size_t>(m * n));
  for (std::size_t k = 0; k < xv.size(); ++k) xv[k] = static_cast<float>(k % 1013) * 0.5f;
  jf::array<float> x = jf::array<float>(xv, dev()).reshape({m, n});
  const jf::array<i64> p = jf::arange<i64>(0, 4096, 1, dev());
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { x((p * 7) % 4000, (p * 13) % 7000) = 1.0f; }),
            "index 1001 is out of bounds for axis 0 with size 1000");
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { x(p % m, p - n) = jf::sqrt(x(p % m, p % n)); }),
            "index 777 is out of bounds for axis 1 with size 777");
  EXPECT_EQ(x.to_vector(), xv);
  x((p * 7) % m, (p * 13) % n) = -1.0f;
  std::vector<float> want = xv;
  for (i64 k = 0; k < 4096; ++k) want[static_cast<std::size_t>(((k * 7) % m) * n + (k * 13) % n)] = -1.0f;
  EXPECT_EQ(x.to_vector(), want);
  // Indices from a reduction: each row's first maximum of y.
  const jf::array<float> y = jf::array<float>(std::vector<float>{1, 5, 2, 7, 0, 3}, dev()).reshape({2, 3});
  jf::array<float> z = jf::zeros<float>({3, 2}, dev());
  z(jf::argmax(y, 1), jf::arange<i64>(0, 2, 1, dev())) = 9.0f;  // argmax: (1, 0)
  EXPECT_EQ(z.to_vector(), (std::vector<float>{0, 9, 9, 0, 0, 0}));
}

// The kernel jf::cuda would generate compiles with NVRTC (on any machine with the toolkit).
TEST(IndexPairCuda, GeneratedKernelCompiles) {
  const jf::array<double> x = jf::zeros<double>({5, 4, 3});
  const jf::array<std::int32_t> i = jf::zeros<std::int32_t>({6, 1});
  const jf::array<i64> j = jf::zeros<i64>({7});
  test_support::expect_explained_cuda_compiles(jf::explain_cuda(jf::exp(x(i * 2 - 1, j)) * 2.0));
  // x(i, j) = v: one scatter kernel (its two launches) whose indices are checked along both axes.
  const std::string put = x(i * 2 - 1, j).explain_assignment(jf::sqrt(x(i, j)) + 1.0);
  EXPECT_NE(put.find("check_index"), std::string::npos) << put;
  test_support::expect_explained_cuda_compiles(put);
}

// x with its values in three memory layouts: C order, the axes reversed in memory (transposed
// strides), axis 1 stepped backwards (negative strides).
std::vector<jf::array<double>> layouts(const std::vector<double>& xv, const jf::shape_t& xs, jf::device dev) {
  const jf::array<double> c = jf::array<double>(xv, dev).reshape(xs);
  jf::shape_t reversed;
  for (int k = xs.size(); k-- > 0;) reversed.push_back(k);
  const jf::range back(jf::range::none, jf::range::none, -1);
  std::vector<jf::array<double>> out{c, jf::array<double>(c.transpose(reversed).copy().transpose(reversed))};
  if (xs.size() == 3) out.push_back(jf::array<double>(c(jf::all, back, jf::all).copy()(jf::all, back, jf::all)));
  return out;
}

// x(i, j, k) against numpy's x[i, j, k] (tests/data/index_triple_table.txt): broadcast indices,
// trailing axes, nothing selected, each axis out of range and several (the first array's failure
// reported), empty indexed axes, shapes that do not broadcast; in every layout of x.
TEST_P(IndexPair, TriplesMatchNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/index_triple_table.txt", 10);
  ASSERT_GE(cases.size(), 18u);
  for (const auto& c : cases) {
    const jf::shape_t xs = parse_shape(c.lines[0][0]);
    SCOPED_TRACE("x " + c.lines[0][0] + ", i " + c.lines[2][0] + ", j " + c.lines[4][0] + ", k " + c.lines[6][0]);
    const std::vector<double> xv = parse_words<double>(values_of(c.lines[1]));
    auto index = [&](int a) {
      return jf::array<i64>(parse_words<i64>(values_of(c.lines[3 + 2 * a])), dev())
          .reshape(parse_shape(c.lines[2 + 2 * a][0]));
    };
    const jf::array<i64> i = index(0), j = index(1), k = index(2);
    for (const jf::array<double>& x : layouts(xv, xs, dev())) {
      ASSERT_EQ(x.to_vector(), xv);
      if (c.lines[8][0] == "error") {
        std::string msg;
        for (std::size_t w = 0; w < c.lines[9].size(); ++w) msg += (w ? " " : "") + c.lines[9][w];
        EXPECT_EQ(
            test_support::trimmed(test_support::message_of<jf::index_error>([&] { jf::array<double> r = x(i, j, k); })),
            msg);
        EXPECT_EQ(x.to_vector(), xv);
        continue;
      }
      jf::array<double> out = jf::full<double>(parse_shape(c.lines[8][0]), -99.0, dev());  // poisoned
      out = x(i, j, k);
      EXPECT_EQ(out.shape(), parse_shape(c.lines[8][0]));
      EXPECT_TRUE(same(out.to_vector(), parse_words<double>(values_of(c.lines[9]))));
    }
  }
}

// x(i, j, k) = v against numpy's x[i, j, k] = v (tests/data/index_triple_setitem_table.txt), into
// x in every layout (the scatter writes x's memory in place); errors leave x untouched.
TEST_P(IndexPair, TripleAssignmentMatchesNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/index_triple_setitem_table.txt", 12);
  ASSERT_GE(cases.size(), 14u);
  for (const auto& c : cases) {
    const jf::shape_t xs = parse_shape(c.lines[0][0]);
    SCOPED_TRACE("x " + c.lines[0][0] + ", i " + c.lines[2][0] + ", j " + c.lines[4][0] + ", k " + c.lines[6][0] +
                 ", v " + c.lines[8][0]);
    const std::vector<double> xv = parse_words<double>(values_of(c.lines[1]));
    auto index = [&](int a) {
      return jf::array<i64>(parse_words<i64>(values_of(c.lines[3 + 2 * a])), dev())
          .reshape(parse_shape(c.lines[2 + 2 * a][0]));
    };
    const jf::array<i64> i = index(0), j = index(1), k = index(2);
    const jf::array<double> v =
        jf::array<double>(parse_words<double>(values_of(c.lines[9])), dev()).reshape(parse_shape(c.lines[8][0]));
    for (const jf::array<double>& x : layouts(xv, xs, dev())) {
      if (c.lines[10][0] == "error") {
        std::string msg;
        for (std::size_t w = 0; w < c.lines[11].size(); ++w) msg += (w ? " " : "") + c.lines[11][w];
        if (c.lines[10][1] == "index")
          EXPECT_EQ(test_support::trimmed(test_support::message_of<jf::index_error>([&] { x(i, j, k) = v; })), msg);
        else
          EXPECT_EQ(test_support::message_of<jf::shape_error>([&] { x(i, j, k) = v; }), msg);
        EXPECT_EQ(x.to_vector(), xv);
        continue;
      }
      x(i, j, k) = v;
      EXPECT_EQ(x.shape(), parse_shape(c.lines[10][0]));
      EXPECT_TRUE(same(x.to_vector(), parse_words<double>(values_of(c.lines[11]))));
    }
  }
}

// x(i, j, k) with index expressions (int32 and int64, negative positions) on fresh random inputs
// of sizes 0, 1, odd and longer than a block, against host loops; read, fused into one kernel with
// its consumer, and += (a duplicate adds once); a broadcast x reads but refuses assignments; bool
// masks are their positions; j's failure is reported before k's whatever their positions.
TEST_P(IndexPair, TriplesOfExpressionsAgainstHostLoops) {
  auto& r = test_support::rng();
  const i64 n0 = 5, n1 = 7, n2 = 9;
  std::vector<double> xv(static_cast<std::size_t>(n0 * n1 * n2));
  for (double& e : xv) e = static_cast<double>(r() % 1000) * 0.25;
  auto at = [&](i64 a, i64 b, i64 c) { return xv[static_cast<std::size_t>((a * n1 + b) * n2 + c)]; };
  auto norm = [](i64 v, i64 size) { return v < 0 ? v + size : v; };
  for (const i64 m : {i64{0}, i64{1}, i64{257}, i64{5003}}) {
    SCOPED_TRACE("m " + std::to_string(m));
    std::vector<std::int32_t> iv(static_cast<std::size_t>(m));
    std::vector<i64> jv(static_cast<std::size_t>(m)), kv(static_cast<std::size_t>(m));
    for (auto& e : iv) e = static_cast<std::int32_t>(r() % (2 * n0)) - static_cast<std::int32_t>(n0);
    for (auto& e : jv) e = static_cast<i64>(r() % n1);
    for (auto& e : kv) e = static_cast<i64>(r() % (2 * n2)) - n2;
    const jf::array<std::int32_t> i(iv, dev());
    const jf::array<i64> j(jv, dev()), k(kv, dev());
    for (const jf::array<double>& x : layouts(xv, {n0, n1, n2}, dev())) {
      const auto e = jf::sqrt(x(i, (n1 - 1) - j, k)) * 2.0;
      const std::vector<double> got = jf::array<double>(e).to_vector();
      ASSERT_EQ(got.size(), static_cast<std::size_t>(m));
      for (i64 p = 0; p < m; ++p) {
        const auto s = static_cast<std::size_t>(p);
        ASSERT_EQ(got[s], std::sqrt(at(norm(iv[s], n0), n1 - 1 - jv[s], norm(kv[s], n2))) * 2.0) << "pick " << p;
      }
      if (dev().kind == jf::device_kind::cuda) {
        const std::string plan = jf::explain(e);
        EXPECT_NE(plan.find("1 kernel"), std::string::npos) << plan;
      }
      // += in numpy's buffered order: each distinct triple gets its value once (the last one's).
      const jf::array<double> y = x.copy();
      y(i, j, k) += 1.5;
      std::vector<double> want = xv;
      for (i64 p = 0; p < m; ++p) {
        const auto s = static_cast<std::size_t>(p);
        want[static_cast<std::size_t>((norm(iv[s], n0) * n1 + jv[s]) * n2 + norm(kv[s], n2))] =
            at(norm(iv[s], n0), jv[s], norm(kv[s], n2)) + 1.5;
      }
      ASSERT_EQ(y.to_vector(), want);
    }
  }
  const jf::array<double> x = jf::array<double>(xv, dev()).reshape({n0, n1, n2});
  const jf::array<i64> p = jf::arange<i64>(0, 64, 1, dev());
  // j fails at p = 7 (index 7 of 7), k earlier at p = 3 (index 9 of 9): j's is reported.
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<double> t = x(p % n0, p, p * 3); }),
            "index 7 is out of bounds for axis 1 with size 7");
  EXPECT_EQ(jf::array<double>(x(p % n0, p % n1, p % n2)).to_vector()[10], at(0, 3, 1));  // works again
  // A 1-d bool mask is its positions (numpy's x[mask, j, k]).
  const jf::array<bool> mask({false, true, false, true, true}, dev());
  const jf::array<i64> three({6, 0, -1}, dev());
  EXPECT_EQ(jf::array<double>(x(mask, three, three)).to_vector(),
            (std::vector<double>{at(1, 6, 6), at(3, 0, 0), at(4, 6, 8)}));
  // A broadcast x reads (numpy) and refuses assignments: numpy's "read-only".
  const jf::array<double> row = jf::array<double>(std::vector<double>{1.0, 2.0, 3.0}, dev());
  const jf::array<double> b = jf::broadcast_to(row, {4, 2, 3});
  EXPECT_EQ(jf::array<double>(b(three % 4, three % 2, three % 3)).to_vector(), (std::vector<double>{1.0, 1.0, 3.0}));
  EXPECT_EQ(test_support::message_of<jf::value_error>([&] { b(three % 4, three % 2, three % 3) = 0.0; }),
            "assignment destination is read-only");
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { (void)row(three, three, three); }),
            "too many indices for array: array is 1-dimensional, but 3 were indexed");
  test_support::expect_explained_cuda_compiles(jf::explain_cuda(jf::exp(x(p % n0, p % n1, -(p % n2))) * 2.0));
}

INSTANTIATE_TEST_SUITE_P(Backends, IndexPair, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// jf::cuda against jf::cpu on a large random case (2^20 picks, every index in range, some negative).
TEST(IndexPairGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& r = test_support::rng();
  const i64 m = 3001, n = 2003, k = i64{1} << 20;
  std::vector<double> xv(static_cast<std::size_t>(m * n));
  for (double& e : xv) e = static_cast<double>(r() % 100003) * 0.5;
  std::vector<i64> iv(static_cast<std::size_t>(k)), jv(static_cast<std::size_t>(k));
  for (auto& e : iv) e = static_cast<i64>(r() % static_cast<std::uint64_t>(2 * m)) - m;
  for (auto& e : jv) e = static_cast<i64>(r() % static_cast<std::uint64_t>(2 * n)) - n;
  auto run = [&](jf::device dev) {
    const jf::array<double> x = jf::array<double>(xv, dev).reshape({m, n});
    const jf::array<i64> i(iv, dev), j(jv, dev);
    return jf::array<double>(jf::sqrt(x(i, j)) + x(j % m, i % n)).to_vector();
  };
  EXPECT_TRUE(same(run(jf::cuda), run(jf::cpu)));
  // x(i, j) = v with 2^20 pairs (many duplicates: the last one wins on both backends).
  auto assign = [&](jf::device dev) {
    jf::array<double> x = jf::array<double>(xv, dev).reshape({m, n});
    const jf::array<i64> i(iv, dev), j(jv, dev);
    x(i % 97, j) = jf::arange<double>(0, static_cast<double>(k), 1, dev) * 0.5;
    return x.to_vector();
  };
  EXPECT_TRUE(same(assign(jf::cuda), assign(jf::cpu)));
}

}  // namespace
