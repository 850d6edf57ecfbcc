// Index arrays mixed with slices and integers (numpy's x[:, i], x[i, 1:3], x[2, :, i], x[i, j, 1:3],
// x[i, 2, j], x[:, mask], ...), read and assigned, on every backend: numpy's values, shapes, placement of the
// index axes and messages from tests/data/mixed_indexing_table.txt (gen_mixed_indexing_table.py);
// fused producers and consumers against host loops on fresh random inputs; an error then a working
// evaluation; the generated kernel compiled by NVRTC; GPU against CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
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

class MixedIndexing : public test_support::on_backends {};

// One table case's operands and how to read or assign through its pattern.
struct mixed_case {
  jf::array<double> x;
  jf::array<i64> i, j;
  i64 n = 0;
  jf::range r;
  // Reads x(pattern) into an array, or assigns v through it.
  template <class F>
  void visit(const std::string& pattern, F&& f) const {
    const auto all = jf::all;
    if (pattern == "all i") return f(x(all, i));
    if (pattern == "i r") return f(x(i, r));
    if (pattern == "r i") return f(x(r, i));
    if (pattern == "n i") return f(x(n, i));
    if (pattern == "i n") return f(x(i, n));
    if (pattern == "n all i") return f(x(n, all, i));
    if (pattern == "all n i") return f(x(all, n, i));
    if (pattern == "i all n") return f(x(i, all, n));
    if (pattern == "i j r") return f(x(i, j, r));
    if (pattern == "i n j") return f(x(i, n, j));
    if (pattern == "i r j") return f(x(i, r, j));
    if (pattern == "n i j") return f(x(n, i, j));
    // Two index arrays after one slice: numpy keeps their axes in place (x[:, i, j]).
    if (pattern == "all i j") return f(x(all, i, j));
    if (pattern == "r i j all") return f(x(r, i, j, all));
    if (pattern == "r n i j") return f(x(r, n, i, j));
    if (pattern == "r i n j") return f(x(r, i, n, j));
    // 1-d bool masks (true where the table's value is nonzero): arrays and lazy expressions.
    const jf::array<bool> b = i != 0;
    if (pattern == "all b") return f(x(all, b));
    if (pattern == "b r") return f(x(i != 0, r));
    if (pattern == "n all b") return f(x(n, all, b));
    if (pattern == "b n") return f(x(i != 0, n));
    if (pattern == "n b") return f(x(n, i != 0));
    if (pattern == "i c") return f(x(i, j != 0));
    if (pattern == "b j r") return f(x(b, j, r));
    if (pattern == "all i c") return f(x(all, i, j != 0));
    // Three or more index arrays, or two after two slices (numpy's general case).
    if (pattern == "i j i") return f(x(i, j, i));
    if (pattern == "i j i j") return f(x(i, j, i, j));
    if (pattern == "all i j i") return f(x(all, i, j, i));
    if (pattern == "r r i j") return f(x(r, r, i, j));
    if (pattern == "all all i j all") return f(x(all, all, i, j, all));
    if (pattern == "all all i j") return f(x(all, all, i, j));
    if (pattern == "i n j i") return f(x(i, n, j, i));
    if (pattern == "i all j i") return f(x(i, all, j, i));
    if (pattern == "all i all j i") return f(x(all, i, all, j, i));
    FAIL() << "no such pattern: " << pattern;
  }
};

TEST_P(MixedIndexing, MatchesNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/mixed_indexing_table.txt", 13);
  ASSERT_GE(cases.size(), 97u);
  for (const auto& c : cases) {
    std::string pattern;
    for (std::size_t k = 0; k < c.lines[0].size(); ++k) pattern += (k ? " " : "") + c.lines[0][k];
    SCOPED_TRACE(pattern + ", x " + c.lines[1][0] + ", i " + c.lines[3][0] + ", " + c.lines[8][0]);
    const std::vector<double> xv = parse_words<double>(values_of(c.lines[2]));
    mixed_case m;
    m.x = jf::array<double>(xv, dev()).reshape(parse_shape(c.lines[1][0]));
    m.i = jf::array<i64>(parse_words<i64>(values_of(c.lines[4])), dev()).reshape(parse_shape(c.lines[3][0]));
    if (c.lines[5][0] != "-")
      m.j = jf::array<i64>(parse_words<i64>(values_of(c.lines[6])), dev()).reshape(parse_shape(c.lines[5][0]));
    const std::vector<i64> scalars = parse_words<i64>(c.lines[7]);
    m.n = scalars[0];
    m.r = jf::range(scalars[1], scalars[2]);
    const bool set = c.lines[8][0] == "set";
    jf::array<double> v;
    if (set)
      v = jf::array<double>(parse_words<double>(values_of(c.lines[10])), dev()).reshape(parse_shape(c.lines[9][0]));
    auto run = [&] {
      m.visit(pattern, [&](auto&& e) {
        if (set) {
          e = v;
        } else {
          jf::array<double> out = e;
          m.x = out;  // the result replaces x for the comparison below
        }
      });
    };
    if (c.lines[11][0] == "error") {
      std::string msg;
      for (std::size_t k = 0; k < c.lines[12].size(); ++k) msg += (k ? " " : "") + c.lines[12][k];
      const jf::array<double> before = m.x;
      if (c.lines[11][1] == "index")
        EXPECT_EQ(test_support::trimmed(test_support::message_of<jf::index_error>(run)), msg);
      else
        EXPECT_EQ(test_support::message_of<jf::shape_error>(run), msg);
      EXPECT_EQ(before.to_vector(), xv);  // untouched
      continue;
    }
    run();
    EXPECT_EQ(m.x.shape(), parse_shape(c.lines[11][0]));
    EXPECT_TRUE(same(m.x.to_vector(), parse_words<double>(values_of(c.lines[12]))));
  }
}

// Index expressions (int32 with negative positions) into views (stepped, reversed), their picks
// consumed by an expression, and the assignments x(jf::all, i) = expression and x(i, r) += v, on
// fresh random inputs of sizes 0, 1, odd and longer than a block, against host loops.
TEST_P(MixedIndexing, ExpressionsAndViewsAgainstHostLoops) {
  auto& rng = test_support::rng();
  for (const i64 rows : {i64{1}, i64{9}, i64{300}}) {
    const i64 cols = 2 * rows + 5;
    std::vector<double> base(static_cast<std::size_t>(rows * cols));
    for (double& e : base) e = static_cast<double>(rng() % 10000) * 0.5;
    auto at = [&](i64 p, i64 q) { return base[static_cast<std::size_t>(p * cols + q)]; };
    for (const i64 k : {i64{0}, i64{1}, i64{257}, i64{1031}}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", k " + std::to_string(k));
      std::vector<std::int32_t> iv(static_cast<std::size_t>(k));
      for (auto& e : iv)
        e = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(2 * cols)) - static_cast<std::int32_t>(cols);
      const jf::array<std::int32_t> iw(iv, dev());
      auto norm = [&](i64 q) { return q < 0 ? q + cols : q; };
      const jf::array<double> x = jf::array<double>(base, dev()).reshape({rows, cols});
      // x(jf::range(rows - 1, none, -1), -(i + 1) - 1 ...): rows reversed, columns from an expression.
      const jf::array<double> got = jf::sqrt(x(jf::range(rows - 1, jf::range::none, -1), (iw + 1) - 1)) * 2.0;
      ASSERT_EQ(got.shape(), (jf::shape_t{rows, k}));
      const std::vector<double> gv = got.to_vector();
      for (i64 p = 0; p < rows; ++p)
        for (i64 e = 0; e < k; ++e)
          ASSERT_EQ(gv[static_cast<std::size_t>(p * k + e)],
                    std::sqrt(at(rows - 1 - p, norm(iv[static_cast<std::size_t>(e)]))) * 2.0);
      // x(jf::all, i) = 10 * row + position: v of shape (rows, k) computed, the last duplicate wins.
      jf::array<double> y = x.copy();
      const jf::array<double> pos = jf::arange<double>(0, static_cast<double>(k), 1, dev());
      const jf::array<double> row = jf::arange<double>(0, static_cast<double>(rows), 1, dev()).reshape({rows, 1});
      y(jf::all, iw) = row * 10000.0 + pos;
      std::vector<double> want = base;
      for (i64 p = 0; p < rows; ++p)
        for (i64 e = 0; e < k; ++e)
          want[static_cast<std::size_t>(p * cols + norm(iv[static_cast<std::size_t>(e)]))] =
              static_cast<double>(p) * 10000.0 + static_cast<double>(e);
      EXPECT_TRUE(same(y.to_vector(), want));
      // x(i % rows, jf::range(1, cols, 2)) += 1: buffered, a duplicate row adds once.
      jf::array<double> z = x.copy();
      z(iw % static_cast<std::int32_t>(rows), jf::range(1, cols, 2)) += 1.0;
      std::vector<double> plus = base;
      for (i64 e = 0; e < k; ++e) {
        i64 p = iv[static_cast<std::size_t>(e)] % rows;
        if (p < 0) p += rows;
        for (i64 q = 1; q < cols; q += 2) plus[static_cast<std::size_t>(p * cols + q)] = at(p, q) + 1.0;
      }
      EXPECT_TRUE(same(z.to_vector(), plus));
    }
  }
}

// A fused read's out-of-range index raises numpy's IndexError naming x's axis; x is untouched by a
// failing assignment; later evaluations work.
TEST_P(MixedIndexing, ErrorsAndRecovery) {
  const jf::array<float> x = jf::arange<float>(0, 3 * 4 * 500, 1, dev()).reshape({3, 4, 500});
  const jf::array<i64> p = jf::arange<i64>(0, 2048, 1, dev());
  const auto e = x(1, jf::all, (p * 7) % 600) * 2.0f;
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<float> r = e; }),
            "index 504 is out of bounds for axis 2 with size 500");  // p = 72
  const std::vector<float> before = x.to_vector();
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { x(1, jf::all, p - 1000) = 0.0f; }),
            "index -1000 is out of bounds for axis 2 with size 500");
  EXPECT_EQ(x.to_vector(), before);
  const std::vector<float> got = jf::array<float>(x(1, jf::all, (p * 7) % 500) * 2.0f).to_vector();
  ASSERT_EQ(got.size(), std::size_t{2048 * 4});
  for (i64 k = 0; k < 2048; ++k)
    for (i64 q = 0; q < 4; ++q)
      ASSERT_EQ(got[static_cast<std::size_t>(k * 4 + q)],
                static_cast<float>(1 * 2000 + q * 500 + (k * 7) % 500) * 2.0f);
  // A bool mask of two axes as the only index array: numpy's nonzero() of it over x's axes 0 and 1.
  const jf::array<bool> m2 = jf::arange<i64>(0, 12, 1, dev()).reshape({3, 4}) % 5 == 0;  // (0, 0), (1, 1), (2, 2)
  EXPECT_EQ(jf::array<float>(x(m2, 7)).to_vector(), (std::vector<float>{7.0f, 2507.0f, 5007.0f}));
  // Where those axes do not merge in x's memory (a transposed view): a clear error.
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)x.transpose({1, 0, 2})(m2.transpose(), 7);
            }).find("to merge into one"),
            std::string::npos);
  // Among other index arrays: numpy's nonzero() arrays, not taken here.
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)x(m2, p); }).find("must be 1-d"), std::string::npos);
  // A mask whose length is not its axis's, then one that is: every third column of the 500 (the
  // integer and the mask are separated by a slice: numpy puts their axis first, shape (167, 2)).
  const jf::array<bool> third = jf::arange<i64>(0, 500, 1, dev()) % 3 == 0;
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { (void)x(0, third, jf::all); }),
            "boolean index did not match indexed array along axis 1; size of axis is 4 but size of corresponding "
            "boolean axis is 500");
  const std::vector<float> cols = jf::array<float>(x(2, jf::range(1, 3), third) + 1.0f).to_vector();
  ASSERT_EQ(cols.size(), std::size_t{2 * 167});
  for (i64 k = 0; k < 167; ++k)
    for (i64 r = 0; r < 2; ++r)
      ASSERT_EQ(cols[static_cast<std::size_t>(k * 2 + r)], static_cast<float>(2 * 2000 + (r + 1) * 500 + 3 * k) + 1.0f);
}

// numpy's general case on fresh random inputs against host loops: four index expressions (int32,
// negative positions) into a 4-d array and into its transpose, two after two slices (one reversed),
// the assignment of a scalar through separated indices (their axis first), and the error naming
// the fourth axis followed by a working evaluation.
TEST_P(MixedIndexing, FourIndicesAndTwoAfterSlicesAgainstHostLoops) {
  auto& rng = test_support::rng();
  const i64 n[4] = {3, 5, 4, 6};
  std::vector<double> base(static_cast<std::size_t>(n[0] * n[1] * n[2] * n[3]));
  for (double& e : base) e = static_cast<double>(rng() % 10000) * 0.5;
  auto at = [&](i64 a, i64 b, i64 c, i64 d) {
    return base[static_cast<std::size_t>(((a * n[1] + b) * n[2] + c) * n[3] + d)];
  };
  auto norm = [](i64 v, i64 size) { return v < 0 ? v + size : v; };
  const jf::array<double> x = jf::array<double>(base, dev()).reshape({n[0], n[1], n[2], n[3]});
  for (const i64 m : {i64{0}, i64{1}, i64{257}}) {
    SCOPED_TRACE("m " + std::to_string(m));
    std::vector<std::int32_t> v[4];
    for (int a = 0; a < 4; ++a) {
      v[a].resize(static_cast<std::size_t>(m));
      for (auto& e : v[a]) e = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(2 * n[a]) - n[a]);
    }
    const jf::array<std::int32_t> i(v[0], dev()), j(v[1], dev()), k(v[2], dev()), l(v[3], dev());
    // x(i, j, k, l) with expressions as indices: (i + 1) - 1 stays i.
    const std::vector<double> got = jf::array<double>(jf::sqrt(x((i + 1) - 1, j, k, l)) * 2.0).to_vector();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(m));
    for (i64 p = 0; p < m; ++p) {
      const auto s = static_cast<std::size_t>(p);
      ASSERT_EQ(got[s],
                std::sqrt(at(norm(v[0][s], n[0]), norm(v[1][s], n[1]), norm(v[2][s], n[2]), norm(v[3][s], n[3]))) * 2.0)
          << "pick " << p;
    }
    // The transpose (axes reversed in memory): x.T(l, k, j, i) picks the same elements.
    const jf::array<double> xt = x.transpose();
    EXPECT_EQ(jf::array<double>(xt(l, k, j, i)).to_vector(), jf::array<double>(x(i, j, k, l)).to_vector());
    // x(range(n0 - 1, none, -1), all, k, l): shape (n0, n1, m), numpy's axes in place.
    const jf::array<double> two = x(jf::range(n[0] - 1, jf::range::none, -1), jf::all, k, l);
    ASSERT_EQ(two.shape(), (jf::shape_t{n[0], n[1], m}));
    const std::vector<double> tv = two.to_vector();
    for (i64 a = 0; a < n[0]; ++a)
      for (i64 b = 0; b < n[1]; ++b)
        for (i64 p = 0; p < m; ++p) {
          const auto s = static_cast<std::size_t>(p);
          ASSERT_EQ(tv[static_cast<std::size_t>((a * n[1] + b) * m + p)],
                    at(n[0] - 1 - a, b, norm(v[2][s], n[2]), norm(v[3][s], n[3])));
        }
    // y(i, all, k, l) = 7.5: every element (i[p], b, k[p], l[p]).
    const jf::array<double> y = x.copy();
    y(i, jf::all, k, l) = 7.5;
    std::vector<double> want = base;
    for (i64 p = 0; p < m; ++p)
      for (i64 b = 0; b < n[1]; ++b) {
        const auto s = static_cast<std::size_t>(p);
        want[static_cast<std::size_t>(((norm(v[0][s], n[0]) * n[1] + b) * n[2] + norm(v[2][s], n[2])) * n[3] +
                                      norm(v[3][s], n[3]))] = 7.5;
      }
    ASSERT_EQ(y.to_vector(), want);
    // y(all, all, k, l) += 1.5 in numpy's buffered order: each distinct element once.
    const jf::array<double> z = x.copy();
    z(jf::all, jf::all, k, l) += 1.5;
    std::vector<double> added = base;
    for (i64 p = 0; p < m; ++p)
      for (i64 a = 0; a < n[0]; ++a)
        for (i64 b = 0; b < n[1]; ++b) {
          const auto s = static_cast<std::size_t>(p);
          const i64 c = norm(v[2][s], n[2]), d = norm(v[3][s], n[3]);
          added[static_cast<std::size_t>(((a * n[1] + b) * n[2] + c) * n[3] + d)] = at(a, b, c, d) + 1.5;
        }
    ASSERT_EQ(z.to_vector(), added);
    // A 1-d bool mask as the third of four (its one true position broadcast with the others).
    const jf::array<bool> one({false, false, true, false}, dev());
    const std::vector<double> masked = jf::array<double>(x(i, j, one, l)).to_vector();
    ASSERT_EQ(masked.size(), static_cast<std::size_t>(m));
    for (i64 p = 0; p < m; ++p) {
      const auto s = static_cast<std::size_t>(p);
      ASSERT_EQ(masked[s], at(norm(v[0][s], n[0]), norm(v[1][s], n[1]), 2, norm(v[3][s], n[3])));
    }
  }
  // A broadcast x reads and refuses assignments (numpy's "read-only").
  const jf::array<double> row = jf::arange<double>(0, 6, 1, dev());
  const jf::array<double> wide = jf::broadcast_to(row, {2, 3, 4, 6});
  const jf::array<i64> three({1, 0, -1}, dev());
  EXPECT_EQ(jf::array<double>(wide(three % 2, three, three, three)).to_vector(), (std::vector<double>{1.0, 0.0, 5.0}));
  EXPECT_EQ(test_support::message_of<jf::value_error>([&] { wide(three % 2, three, three, three) = 0.0; }),
            "assignment destination is read-only");
  const jf::array<i64> p = jf::arange<i64>(0, 40, 1, dev());
  EXPECT_EQ(test_support::message_of<jf::index_error>([&] { jf::array<double> t = x(p % 3, p % 5, p % 4, p); }),
            "index 6 is out of bounds for axis 3 with size 6");
  EXPECT_EQ(jf::array<double>(x(p % 3, p % 5, p % 4, p % 6)).to_vector()[7], at(1, 2, 3, 1));
}

// A mask of two axes as the only index array on views: reversed axes (negative strides, which
// still merge) read and assigned, a length-1 axis, against host loops.
TEST_P(MixedIndexing, TwoAxisMaskOnViewsAgainstHostLoops) {
  const jf::array<double> x = jf::arange<double>(0, 24, 1, dev()).reshape({2, 3, 4});
  const jf::array<bool> m = jf::arange<i64>(0, 12, 1, dev()).reshape({3, 4}) % 3 == 1;
  const jf::array<double> xr = x(jf::all, jf::range(2, jf::range::none, -1), jf::range(3, jf::range::none, -1));
  std::vector<double> want;
  for (i64 a = 0; a < 2; ++a)
    for (i64 k = 0; k < 12; ++k)
      if (k % 3 == 1) want.push_back(static_cast<double>(a * 12 + (2 - k / 4) * 4 + (3 - k % 4)));
  const jf::array<double> got = xr(jf::all, m);
  EXPECT_EQ(got.shape(), (jf::shape_t{2, 4}));
  EXPECT_EQ(got.to_vector(), want);
  const jf::array<bool> late = jf::arange<i64>(0, 4, 1, dev()).reshape({1, 4}) > 1;
  EXPECT_EQ(jf::array<double>(x(jf::all, jf::range(1, 2), jf::all)(jf::all, late)).to_vector(),
            (std::vector<double>{6, 7, 18, 19}));
  xr(jf::all, m) = -1.0;  // through the reversed view into x
  std::vector<double> after(24);
  for (i64 e = 0; e < 24; ++e) {
    const i64 k = (2 - (e % 12) / 4) * 4 + (3 - e % 4);  // e's position in xr's last two axes
    after[static_cast<std::size_t>(e)] = k % 3 == 1 ? -1.0 : static_cast<double>(e);
  }
  EXPECT_EQ(x.to_vector(), after);
}

INSTANTIATE_TEST_SUITE_P(Backends, MixedIndexing, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// The kernels jf::cuda would generate (a read fused with its consumer, an assignment's scatter)
// compile with NVRTC.
TEST(MixedIndexingCuda, GeneratedKernelsCompile) {
  const jf::array<double> x = jf::zeros<double>({5, 4, 3});
  const jf::array<i64> i = jf::zeros<i64>({6});
  test_support::expect_explained_cuda_compiles(jf::explain_cuda(jf::exp(x(2, jf::all, i * 2 - 1)) * 2.0));
  const std::string put = x(jf::all, i).explain_assignment(jf::sqrt(x(jf::all, i)) + 1.0);
  EXPECT_NE(put.find("put store"), std::string::npos) << put;
  test_support::expect_explained_cuda_compiles(put);
  // numpy's general case: four index arrays, two after two slices.
  const jf::array<double> x4 = jf::zeros<double>({3, 4, 5, 6});
  test_support::expect_explained_cuda_compiles(jf::explain_cuda(jf::exp(x4(i % 3, i % 4, i % 5, i)) * 2.0));
  const std::string put4 = x4(jf::all, jf::all, i % 5, i).explain_assignment(jf::sqrt(x4(jf::all, jf::all, i, i)));
  EXPECT_NE(put4.find("put store"), std::string::npos) << put4;
  test_support::expect_explained_cuda_compiles(put4);
}

// jf::cuda against jf::cpu on 2^20 picks of a 3-d array.
TEST(MixedIndexingGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& rng = test_support::rng();
  const i64 k = i64{1} << 20;
  std::vector<double> xv(static_cast<std::size_t>(7 * 301 * 203));
  for (double& e : xv) e = static_cast<double>(rng() % 100003) * 0.5;
  std::vector<i64> iv(static_cast<std::size_t>(k));
  for (auto& e : iv) e = static_cast<i64>(rng() % 406) - 203;
  auto run = [&](jf::device dev) {
    const jf::array<double> x = jf::array<double>(xv, dev).reshape({7, 301, 203});
    const jf::array<i64> i(iv, dev);
    jf::array<double> r = jf::sqrt(x(3, jf::range(0, 301, 100), i)) + 1.0;
    jf::array<double> y = x.copy();
    y(jf::all, 5, i) = jf::arange<double>(0, static_cast<double>(k), 1, dev) * 0.5;
    std::vector<double> out = r.to_vector(), yv = y.to_vector();
    out.insert(out.end(), yv.begin(), yv.end());
    return out;
  };
  EXPECT_TRUE(same(run(jf::cuda), run(jf::cpu)));
}

}  // namespace
