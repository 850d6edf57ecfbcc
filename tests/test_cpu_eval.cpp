// The CPU backend's addressing and the evaluation entry points on jf::cpu: broadcasting,
// non-contiguous views (steps, transposes, negative steps, 0-d arrays), assignment into existing
// arrays and views, compound assignment, overlapping in-place assignment, several results in one
// evaluation, output dtypes other than the expression's, and the errors.
#include "cpu_ref_ops.hpp"

namespace {

using namespace cpu_test;

// Row-major elements of a 2-d view read through the element accessor (independent of the evaluator).
template <class T> std::vector<T> elements(const jf::array<T>& a) {
  std::vector<T> v;
  if (a.ndim() == 1) {
    for (std::int64_t i = 0; i < a.shape()[0]; ++i) v.push_back(a(i));
  } else {
    for (std::int64_t i = 0; i < a.shape()[0]; ++i)
      for (std::int64_t j = 0; j < a.shape()[1]; ++j) v.push_back(a(i, j));
  }
  return v;
}

TEST(CpuEval, Broadcasting) {
  const auto xv = random_values<double>(3);
  const auto yv = random_values<float>(4);
  const jf::array<double> x(xv, jf::shape_t{3, 1});
  const jf::array<float> y(yv, jf::shape_t{1, 4});
  const jf::array<double> r = x * y + 1.0;
  ASSERT_EQ(r.shape(), (jf::shape_t{3, 4}));
  const auto g = r.to_vector();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) ASSERT_TRUE(same_value(g[static_cast<std::size_t>(i * 4 + j)], xv[i] * double(yv[j]) + 1.0)) << i << "," << j;
  // A 0-d array broadcasts like a scalar but is a strong operand (its dtype counts).
  const jf::array<std::int64_t> s = jf::full<std::int64_t>(jf::shape_t{}, 5);
  const auto v = random_values<std::int32_t>(1001);
  const jf::array<std::int64_t> r2 = jf::array<std::int32_t>(v) - s;
  const auto g2 = r2.to_vector();
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(g2[i], std::int64_t{v[i]} - 5);
  // 0-d with 0-d gives a 0-d result.
  const jf::array<std::int64_t> r3 = s * s;
  EXPECT_EQ(r3.ndim(), 0);
  EXPECT_EQ(r3.to_vector(), (std::vector<std::int64_t>{25}));
  // Size 0 along an axis broadcasts with 1.
  const jf::array<double> e = jf::zeros<double>({0, 4}) + jf::array<double>(std::vector<double>{1, 2, 3, 4}, jf::shape_t{1, 4});
  EXPECT_EQ(e.shape(), (jf::shape_t{0, 4}));
}

TEST(CpuEval, LargeBroadcastAndTransposeInParallel) {
  const std::int64_t n = 700, m = 900;  // > 64K elements: several chunks on the pool
  const auto av = random_values<double>(static_cast<std::size_t>(n * m));
  const auto bv = random_values<double>(static_cast<std::size_t>(m * n));
  const auto cv = random_values<double>(static_cast<std::size_t>(m));
  const jf::array<double> a(av, jf::shape_t{n, m});
  const jf::array<double> bt = jf::array<double>(bv, jf::shape_t{m, n}).transpose();  // (n, m), strided
  const jf::array<double> c(cv);
  const jf::array<double> r = jf::fmax(a, bt) - c * 2.0;
  const auto g = r.to_vector();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * m + j);
      ASSERT_TRUE(same_value(g[k], std::fmax(av[k], bv[static_cast<std::size_t>(j * n + i)]) - cv[static_cast<std::size_t>(j)] * 2.0)) << i << "," << j;
    }
}

TEST(CpuEval, NonContiguousViews) {
  for (std::int64_t n : {1, 17, 200001}) {
    const auto xv = random_values<std::int32_t>(static_cast<std::size_t>(n));
    const jf::array<std::int32_t> x(xv);
    const auto even = x(jf::range(0, n, 2));
    const auto rev = x(jf::range(n - 1, jf::range::none, -1));
    ASSERT_EQ(rev.size(), n);
    const jf::array<std::int64_t> r = x + rev * std::int64_t{3};
    const jf::array<std::int32_t> r2 = -even;
    const auto g = r.to_vector();
    const auto g2 = r2.to_vector();
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(g[static_cast<std::size_t>(i)],  // int32 arithmetic (the weak 3 is int32), then int64
                std::int64_t{wrap_add(xv[static_cast<std::size_t>(i)], wrap_mul(xv[static_cast<std::size_t>(n - 1 - i)], 3))});
    ASSERT_EQ(static_cast<std::int64_t>(g2.size()), (n + 1) / 2);
    for (std::size_t i = 0; i < g2.size(); ++i) ASSERT_EQ(g2[i], wrap_sub(0, xv[2 * i]));
  }
  // 2-d: a stepped, reversed column view and a transpose, checked against element reads.
  const auto mv = random_values<float>(6 * 8);
  const jf::array<float> m(mv, jf::shape_t{6, 8});
  const auto v = m(jf::range(5, jf::range::none, -2), jf::range(1, 8, 3));  // (3, 3)
  const jf::array<float> r = v * 2.0f + m(jf::range(0, 3), jf::range(0, 3)).transpose();
  const auto a = elements(v), b = elements(jf::array<float>(m(jf::range(0, 3), jf::range(0, 3)).transpose().copy()));
  const auto g = r.to_vector();
  for (std::size_t i = 0; i < 9; ++i) ASSERT_TRUE(same_value(g[i], a[i] * 2.0f + b[i])) << i;
}

TEST(CpuEval, AssignIntoExistingArraysAndViews) {
  const std::int64_t n = 1001;
  const auto xv = random_values<double>(static_cast<std::size_t>(n));
  const jf::array<double> x(xv);
  jf::array<double> r = jf::full<double>({n}, sentinel<double>());
  const auto* before = r.data();
  r = x * 2.0;
  EXPECT_EQ(r.data(), before);  // written in place, not rebound
  auto g = r.to_vector();
  for (std::size_t i = 0; i < xv.size(); ++i) ASSERT_TRUE(same_value(g[i], xv[i] * 2.0));
  // Into a view: only the viewed elements change.
  jf::array<double> w = jf::full<double>({10}, sentinel<double>());
  w(jf::range(2, 8, 2)) = jf::array<double>({1.0, 2.0, 3.0}) + 0.5;
  const double S = sentinel<double>();
  EXPECT_EQ(w.to_vector(), (std::vector<double>{S, S, 1.5, S, 2.5, S, 3.5, S, S, S}));
  // Broadcasting into the target: a (4,) value into a (3, 4) array.
  jf::array<std::int32_t> t = jf::full<std::int32_t>({3, 4}, sentinel<std::int32_t>());
  t = jf::array<std::int32_t>({1, 2, 3, 4}) * 10;
  EXPECT_EQ(t.to_vector(), (std::vector<std::int32_t>{10, 20, 30, 40, 10, 20, 30, 40, 10, 20, 30, 40}));
  // A transposed target (indexed output).
  jf::array<std::int32_t> u = jf::full<std::int32_t>({4, 3}, sentinel<std::int32_t>());
  u.transpose() = jf::array<std::int32_t>(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, jf::shape_t{3, 4}) + 0;
  EXPECT_EQ(u.to_vector(), (std::vector<std::int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  // Compound assignment.
  jf::array<double> acc(xv);
  acc += x * x;
  acc -= 1.0;
  acc *= 2;
  acc /= x;
  g = acc.to_vector();
  for (std::size_t i = 0; i < xv.size(); ++i) ASSERT_TRUE(same_value(g[i], (xv[i] + xv[i] * xv[i] - 1.0) * 2.0 / xv[i], 1)) << i;
}

TEST(CpuEval, OverlappingInPlaceAssignment) {
  for (std::int64_t n : {2, 17, 300001}) {
    const auto xv = random_values<std::int64_t>(static_cast<std::size_t>(n));
    jf::array<std::int64_t> x(xv);
    x(jf::range(1, n)) = x(jf::range(0, n - 1)) * 2;  // numpy: x[1:] = x[:-1] * 2 reads the old values
    const auto g = x.to_vector();
    ASSERT_EQ(g[0], xv[0]);
    for (std::int64_t i = 1; i < n; ++i) ASSERT_EQ(g[static_cast<std::size_t>(i)], wrap_mul<std::int64_t>(xv[static_cast<std::size_t>(i - 1)], 2)) << i;
    // Reversal in place: x[:] = x[::-1] + 0.
    jf::array<std::int64_t> y(xv);
    y = y(jf::range(n - 1, jf::range::none, -1)) + 0;
    const auto h = y.to_vector();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], xv[static_cast<std::size_t>(n - 1 - i)]);
    // Element-for-element aliasing is allowed in place: x = x * x + x.
    jf::array<std::int64_t> z(xv);
    z = z * z + z;
    const auto k = z.to_vector();
    for (std::size_t i = 0; i < xv.size(); ++i) ASSERT_EQ(k[i], wrap_add(wrap_mul(xv[i], xv[i]), xv[i]));
  }
}

// In-place updates read their operand in place (no copy): each element is read by its own block
// before that block's stores, and reductions of the operand run in an earlier group. Integers, so
// that every value is exact.
TEST(CpuEval, InPlaceUpdatesAfterReductionsOfTheSameArray) {
  for (std::int64_t n : {1, 1023, 1025, 300001}) {
    const auto xv = random_values<std::int64_t>(static_cast<std::size_t>(n));
    jf::array<std::int64_t> x(xv);
    x -= jf::sum(x) + x * 3;  // numpy: x -= x.sum() + x * 3 reads the old x everywhere
    std::int64_t total = 0;
    for (auto v : xv) total = wrap_add(total, v);
    const auto g = x.to_vector();
    for (std::size_t i = 0; i < xv.size(); ++i)
      ASSERT_EQ(g[i], static_cast<std::int64_t>(
                          static_cast<std::uint64_t>(xv[i]) -
                          static_cast<std::uint64_t>(wrap_add(total, wrap_mul<std::int64_t>(xv[i], 3)))))
          << i;
  }
  const std::int64_t rows = 37, cols = 2049;
  const auto mv = random_values<std::int32_t>(static_cast<std::size_t>(rows * cols));
  jf::array<std::int32_t> m(mv, {rows, cols});
  m -= jf::max(m, 1, jf::keepdims);  // each row minus its old maximum
  const auto g = m.to_vector();
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int32_t top = mv[static_cast<std::size_t>(r * cols)];
    for (std::int64_t c = 0; c < cols; ++c) top = std::max(top, mv[static_cast<std::size_t>(r * cols + c)]);
    for (std::int64_t c = 0; c < cols; ++c) {
      const auto k = static_cast<std::size_t>(r * cols + c);
      ASSERT_EQ(g[k], static_cast<std::int32_t>(static_cast<std::uint32_t>(mv[k]) - static_cast<std::uint32_t>(top)))
          << r << ", " << c;
    }
  }
}

// Stores of strided rows (slices of a matrix): blocks end at the rows' ends as well, each row read
// in place; rows longer and shorter than a block, chunks that end inside a row, a row of 1024.
TEST(CpuEval, SlicedRowsOfEveryLength) {
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {3, 300}, {40, 1500}, {5, 1025}, {9, 1024}, {2, 5000}, {30, 2049}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const auto av = random_values<std::int64_t>(static_cast<std::size_t>(rows * cols));
    const jf::array<std::int64_t> a(av, {rows, cols});
    jf::array<std::int64_t> out = jf::full<std::int64_t>({rows, cols}, sentinel<std::int64_t>());
    out(jf::range(1, rows), jf::range(0, cols - 1)) =
        a(jf::range(1, rows), jf::range(0, cols - 1)) * 3 + a(jf::range(0, rows - 1), jf::range(1, cols));
    const auto g = out.to_vector();
    const auto at = [&](std::int64_t r, std::int64_t c) { return av[static_cast<std::size_t>(r * cols + c)]; };
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t want = r >= 1 && c < cols - 1
                                      ? wrap_add(wrap_mul<std::int64_t>(at(r, c), 3), at(r - 1, c + 1))
                                      : sentinel<std::int64_t>();
        ASSERT_EQ(g[static_cast<std::size_t>(r * cols + c)], want) << r << ", " << c;
      }
  }
}

TEST(CpuEval, SeveralResultsAndOutputDtypes) {
  const auto xv = random_values<double>(5000);
  const auto iv = random_values<std::int32_t>(5000);
  const jf::array<double> x(xv);
  const jf::array<std::int32_t> i32(iv);
  auto [a, b, c] = jf::eval(x * 0.5, i32 > 3, jf::astype<float>(x) + i32);
  static_assert(std::is_same_v<decltype(a), jf::array<double>>);
  static_assert(std::is_same_v<decltype(b), jf::array<bool>>);
  static_assert(std::is_same_v<decltype(c), jf::array<double>>);
  const auto ga = a.to_vector();
  const auto gb = b.to_vector();
  const auto gc = c.to_vector();
  for (std::size_t k = 0; k < xv.size(); ++k) {
    ASSERT_TRUE(same_value(ga[k], xv[k] * 0.5));
    ASSERT_EQ(gb[k], iv[k] > 3);
    ASSERT_TRUE(same_value(gc[k], double(float(xv[k])) + double(iv[k])));
  }
  // A result dtype other than the expression's: computed in float64, then numpy's cast.
  jf::array<float> f = x * 3.0;
  jf::array<std::int32_t> t = jf::full<std::int32_t>({5000}, sentinel<std::int32_t>());
  t = x * 1000.0;
  jf::array<bool> bo = x - x;  // NaN - NaN and inf - inf are NaN -> true
  const auto gf = f.to_vector();
  const auto gt = t.to_vector();
  const auto gbo = bo.to_vector();
  for (std::size_t k = 0; k < xv.size(); ++k) {
    ASSERT_TRUE(same_value(gf[k], static_cast<float>(xv[k] * 3.0)));
    ASSERT_EQ(gt[k], ref_cast<std::int32_t>(xv[k] * 1000.0));
    ASSERT_EQ(gbo[k], ref_cast<bool>(xv[k] - xv[k]));
  }
  // Into a strided view of another dtype.
  jf::array<float> w = jf::full<float>({10}, sentinel<float>());
  w(jf::range(9, jf::range::none, -3)) = jf::array<double>({1.0 / 3, 2.0, 1e300, -0.5}) + 0.0;
  const float S = sentinel<float>();
  EXPECT_TRUE(same_values(w.to_vector(), std::vector<float>{-0.5f, S, S, INFINITY, S, S, 2.0f, S, S, float(1.0 / 3)}));
  // Unfused mode evaluates the same values on the CPU.
  const auto u = jf::eval(jf::unfused, jf::sqrt(x * x + 1.0) - x);
  const auto gu = u.to_vector();
  for (std::size_t k = 0; k < xv.size(); ++k) ASSERT_TRUE(same_value(gu[k], std::sqrt(xv[k] * xv[k] + 1.0) - xv[k], 2));
}

TEST(CpuEval, Errors) {
  const jf::array<double> a = jf::zeros<double>({3, 4});
  const jf::array<double> b = jf::zeros<double>({5});
  try {
    jf::array<double> r = a + b;
    FAIL() << "no shape_error";
  } catch (const jf::shape_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(3, 4)"), std::string::npos) << m;
    EXPECT_NE(m.find("(5,)"), std::string::npos) << m;
  }
  // A value that does not broadcast to the target.
  jf::array<double> t = jf::zeros<double>({4});
  try {
    t = a * 2.0;
    FAIL() << "no shape_error";
  } catch (const jf::shape_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(3, 4)"), std::string::npos) << m;
    EXPECT_NE(m.find("(4,)"), std::string::npos) << m;
  }
}

TEST(CpuEval, BackendMismatch) {
  if (!jf::cuda_available()) GTEST_SKIP() << "jf::cuda arrays need a GPU: no backend_mismatch test here";
  const jf::array<double> a = jf::zeros<double>({3});
  const jf::array<double> g = jf::to_backend(a, jf::cuda);
  EXPECT_THROW(jf::eval(a + g), jf::backend_mismatch);
}

}  // namespace
