// jf::matmul against numpy's answers (tests/data/matmul_table.txt, written by
// tests/data/gen_matmul_table.py: 1-d, 2-d, batched, broadcast and empty shapes, dtype pairs with
// promotion and integer wrap-around, numpy's errors) on every backend; jf::cuda against the CPU
// on random sizes (odd, > 1000, a product of >= 2^24 elements), views (transposed, strided,
// reversed, broadcast) and expressions as operands; results poisoned before each product.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::rand_int;

struct matmul_case {
  std::vector<std::string> header;  // dtype a, dtype b, result dtype, then the three shapes
  std::vector<std::string> a, b, r;
  jf::shape_t sa, sb, sr;
};

jf::shape_t read_shape(const std::vector<std::string>& h, std::size_t& at) {
  const int nd = std::stoi(h.at(at++));
  jf::shape_t s = jf::shape_t::of_rank(nd);
  for (int d = 0; d < nd; ++d) s[d] = std::stoll(h.at(at++));
  return s;
}

std::vector<matmul_case> table(bool errors, const std::string& file = "matmul_table.txt") {
  std::vector<matmul_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/" + file, 3)) {
    if ((t.header.at(0) == "error") != errors) continue;
    matmul_case c{t.header, t.lines[0], t.lines[1], t.lines[2], {}, {}, {}};
    std::size_t at = errors ? 1 : 3;
    c.sa = read_shape(t.header, at);
    c.sb = read_shape(t.header, at);
    if (!errors) c.sr = read_shape(t.header, at);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Best effort: fills and frees an array of n elements of T with a poison value, so that the pool
// is likely to hand its memory to the next result of that size (elements not written show up).
template <class T>
void poison_pool(i64 n, jf::device dev) {
  const T poison = std::is_floating_point_v<T> ? std::numeric_limits<T>::quiet_NaN() : T(-77);
  (void)jf::full<T>({n}, poison, dev);
}

template <class T>
std::string dtype_name() {
  return std::string(jf::name(jf::dtype_v<T>));
}

// Float results: |got - want| <= 4 k eps (max|a| max|b| k), a bound on any order of summation.
template <class R>
::testing::AssertionResult close(const std::vector<R>& got, const std::vector<R>& want, double bound) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " vs " << want.size() << " elements";
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok =
        std::is_floating_point_v<R> ? std::abs(double(got[i]) - double(want[i])) <= bound : got[i] == want[i];
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs numpy " << want[i];
  }
  return ::testing::AssertionSuccess();
}

template <class T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (T x : v) m = std::max(m, std::abs(double(x)));
  return m;
}

template <class A, class B>
void check(const matmul_case& c, jf::device dev, bool dot) {
  using R = jf::detail::matmul_result_t<jf::array<A>, jf::array<B>>;
  ASSERT_EQ(dtype_name<R>(), c.header.at(2)) << "numpy's result dtype";
  const std::vector<A> av = test_support::parse_words<A>(c.a);
  const std::vector<B> bv = test_support::parse_words<B>(c.b);
  const jf::array<A> a(av, c.sa, dev);
  const jf::array<B> b(bv, c.sb, dev);
  poison_pool<R>(c.sr.product(), dev);
  const jf::array<R> r = dot ? jf::array<R>(jf::dot(a, b)) : jf::array<R>(jf::matmul(a, b));
  const std::string what = std::string(dot ? "dot " : "") + c.header.at(0) + " " + jf::to_string(c.sa) + " @ " +
                           c.header.at(1) + " " + jf::to_string(c.sb);
  ASSERT_EQ(r.shape(), c.sr) << what;
  ASSERT_EQ(r.device(), dev) << what;
  const double k = c.sa[c.sa.size() - 1];
  const double eps = std::numeric_limits<std::conditional_t<std::is_same_v<R, float>, float, double>>::epsilon();
  EXPECT_TRUE(close(r.to_vector(), test_support::parse_words<R>(c.r), 4 * k * eps * max_abs(av) * max_abs(bv) * k))
      << what;
}

template <class A>
void dispatch(const matmul_case& c, jf::device dev, bool dot) {
  const std::string& t = c.header.at(1);
  if (t == "float64")
    check<A, double>(c, dev, dot);
  else if (t == "float32")
    check<A, float>(c, dev, dot);
  else if (t == "int64")
    check<A, i64>(c, dev, dot);
  else if (t == "int32")
    check<A, std::int32_t>(c, dev, dot);
  else if (t == "bool")
    check<A, bool>(c, dev, dot);
  else
    FAIL() << "unknown dtype " << t;
}

class Matmul : public test_support::on_backends {};

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

std::string squeezed(const std::string& text) {  // whitespace runs as one space (the table's words)
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return joined(words);
}

void table_products(const std::string& file, std::size_t at_least, jf::device dev, bool dot) {
  const std::vector<matmul_case> cases = table(false, file);
  ASSERT_GT(cases.size(), at_least);
  for (const matmul_case& c : cases) {
    const std::string& t = c.header.at(0);
    if (t == "float64")
      dispatch<double>(c, dev, dot);
    else if (t == "float32")
      dispatch<float>(c, dev, dot);
    else if (t == "int64")
      dispatch<i64>(c, dev, dot);
    else if (t == "int32")
      dispatch<std::int32_t>(c, dev, dot);
    else if (t == "bool")
      dispatch<bool>(c, dev, dot);
    else
      FAIL() << "unknown dtype " << t;
  }
}

TEST_P(Matmul, MatchesNumpyTable) { table_products("matmul_table.txt", 150, dev(), false); }

// numpy.dot (tests/data/dot_table.txt): 1-d . 1-d fused, 2-d = matmul, 2-d . 1-d, N-d by dot's rule,
// empty; numpy's "not aligned" messages (jf::shape_error), 0-d operands refused (jf::value_error).
TEST_P(Matmul, DotMatchesNumpyTable) {
  table_products("dot_table.txt", 100, dev(), true);
  const std::vector<matmul_case> errors = table(true, "dot_table.txt");
  ASSERT_EQ(errors.size(), 5u);
  for (const matmul_case& c : errors) {
    try {
      (void)jf::dot(jf::ones<double>(c.sa, dev()), jf::ones<double>(c.sb, dev()));
      ADD_FAILURE() << "no error for dot " << jf::to_string(c.sa) << " " << jf::to_string(c.sb);
    } catch (const jf::shape_error& e) {
      EXPECT_EQ(squeezed(e.what()), joined(c.r));
    }
  }
  EXPECT_THROW((void)jf::dot(jf::ones<double>({}, dev()), jf::ones<double>({3}, dev())), jf::value_error);
  // Expressions and views as operands; a.dot's 1-d form is still one fused reduction.
  const jf::array<double> m(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}, dev());
  EXPECT_EQ(jf::eval(jf::dot(m * 2.0, m.transpose())).to_vector(), (std::vector<double>{28, 64, 64, 154}));
  const std::string x = jf::explain(jf::dot(m(0, jf::all), m(1, jf::all)));
  EXPECT_NE(x.find("one fused multiply-reduction"), std::string::npos) << x;
  EXPECT_EQ(jf::dot(m(0, jf::all), m(1, jf::all)).item(), 32.0);
}

TEST_P(Matmul, NumpysErrors) {
  const std::vector<matmul_case> cases = table(true);
  ASSERT_EQ(cases.size(), 9u);
  for (const matmul_case& c : cases) {
    const jf::array<double> a = jf::ones<double>(c.sa, dev()), b = jf::ones<double>(c.sb, dev());
    const bool zero_d = c.sa.size() == 0 || c.sb.size() == 0;
    std::string message;
    try {
      (void)jf::matmul(a, b);
      ADD_FAILURE() << "no error for " << jf::to_string(c.sa) << " @ " << jf::to_string(c.sb);
    } catch (const jf::value_error& e) {
      EXPECT_TRUE(zero_d) << "0-d operands are value_error, the rest shape_error: " << e.what();
      message = e.what();
    } catch (const jf::shape_error& e) {
      EXPECT_FALSE(zero_d) << e.what();
      message = e.what();
    }
    EXPECT_EQ(squeezed(message), joined(c.r));
    EXPECT_EQ(message.find("  and") != std::string::npos, joined(c.r).find("operands could not") == 0)
        << "numpy's two spaces before 'and requested shape'";
  }
  // Inputs untouched; mixed backends are refused.
  const jf::array<float> x = jf::ones<float>({2, 3}, dev());
  EXPECT_THROW((void)jf::matmul(x, x), jf::shape_error);
  EXPECT_EQ(x.to_vector(), std::vector<float>(6, 1.0f));
  if (dev().kind == jf::device_kind::cuda) {
    EXPECT_THROW((void)jf::matmul(x, jf::ones<float>({3, 2}, jf::cpu)), jf::backend_mismatch);
  }
}

// Views and expressions as operands give the products of their contiguous copies (the CPU sums
// in one order whatever the strides, so exactly; the GPU within the float bound).
TEST_P(Matmul, ViewsAndExpressions) {
  std::vector<double> v(40 * 30);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = double(rand_int(-1000, 1000)) / 64;  // exact products
  const jf::array<double> a(v, {40, 30}, dev());
  const jf::array<double> at = a.transpose();                                     // 30 x 40, column-major
  const jf::array<double> strided = a(jf::range(0, 40, 3), jf::range(0, 30, 2));  // 14 x 15
  const jf::array<double> reversed = jf::flip(a);                                 // negative strides
  const auto same = [&](const jf::array<double>& got, const jf::array<double>& x, const jf::array<double>& y) {
    poison_pool<double>(got.size(), dev());
    const jf::array<double> want = jf::matmul(x.copy(), y.copy());
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_EQ(got.to_vector(), want.to_vector());  // small integers / 64: every sum is exact
  };
  same(jf::matmul(at, a), at, a);               // a.T @ a
  same(jf::matmul(a, at), a, at);               // a @ a.T
  same(jf::matmul(at, at.transpose()), at, a);  // both transposed views
  same(jf::matmul(strided, strided.transpose()), strided, strided.transpose());
  same(jf::matmul(reversed, at), reversed, at);
  same(jf::matmul(a(jf::all, 7), a), a(jf::all, 7), a);              // strided 1-d
  const jf::array<double> stack = jf::broadcast_to(a, {3, 40, 30});  // batch stride 0
  same(jf::matmul(stack, at), stack, at);
  const jf::array<double> swapped = jf::swapaxes(jf::array<double>(v, {4, 10, 30}, dev()), 0, 1);  // 10 x 4 x 30
  same(jf::matmul(swapped, at), swapped, at);  // batch axes that need a copy
  // Expressions: evaluated (fused) into a temporary, converted to the promoted dtype.
  const jf::array<double> e = jf::matmul(a * 2.0 + 1.0, at);
  same(e, jf::array<double>(a * 2.0 + 1.0), at);
  const jf::array<double> mixed = jf::matmul(jf::astype<std::int32_t>(a * 64.0), at);  // int32 @ float64
  same(mixed, jf::array<double>(jf::astype<double>(jf::astype<std::int32_t>(a * 64.0))), at);
}

INSTANTIATE_TEST_SUITE_P(Backends, Matmul, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// ---- jf::cuda against the CPU reference ----------------------------------------------------

template <class T>
jf::array<T> random_matrix(const jf::shape_t& s) {
  std::vector<T> v(static_cast<std::size_t>(s.product()));
  for (auto&& x : v) {
    if constexpr (std::is_same_v<T, bool>)
      x = rand_int(0, 3) == 0;
    else if constexpr (std::is_floating_point_v<T>)
      x = T(rand_int(-1'000'000, 1'000'000)) / T(1'000'000);
    else
      x = T(rand_int(-1000, 1000)) * (rand_int(0, 50) == 0 ? T(1) << (sizeof(T) * 4) : T(1));  // some wrap
  }
  return jf::array<T>(v, s, jf::cpu);
}

// GPU product of the operands (moved to jf::cuda, then `view` applied on each side) vs the CPU's.
template <class T, class V>
void gpu_vs_cpu(const jf::shape_t& sa, const jf::shape_t& sb, V view) {
  const jf::array<T> a = random_matrix<T>(sa), b = random_matrix<T>(sb);
  const jf::array<T> ca = view(a), cb = view(b);
  const jf::array<T> ga = view(jf::to_backend(a, jf::cuda)), gb = view(jf::to_backend(b, jf::cuda));
  const jf::array<T> want = jf::matmul(ca, cb);
  poison_pool<T>(want.size(), jf::cuda);
  const jf::array<T> got = jf::matmul(ga, gb);
  const std::string what = dtype_name<T>() + " " + jf::to_string(ca.shape()) + " @ " + jf::to_string(cb.shape());
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if constexpr (std::is_floating_point_v<T>) {
    // |err| <= 2 k eps (|a| @ |b|) for any order of summation (both sides' rounding).
    const i64 k = ca.shape()[ca.ndim() - 1];
    const std::vector<double> mag =
        jf::eval(jf::matmul(jf::abs(jf::astype<double>(ca)), jf::abs(jf::astype<double>(cb)))).to_vector();
    const std::vector<T> g = got.to_vector(), w = want.to_vector();
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::size_t i = 0; i < g.size(); ++i)
      ASSERT_LE(std::abs(double(g[i]) - double(w[i])), 2.0 * double(k) * eps * mag[i] + 1e-300)
          << what << " element " << i << ": " << g[i] << " vs " << w[i];
  } else {
    EXPECT_EQ(got.to_vector(), want.to_vector()) << what;
  }
}

class MatmulCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  }
};

template <class T>
void random_shapes() {
  const auto plain = [](const jf::array<T>& x) { return x; };
  const auto transposed = [](const jf::array<T>& x) { return jf::swapaxes(x, -1, -2); };
  const auto strided = [](const jf::array<T>& x) {
    return x(jf::range(jf::none, jf::none, -1), jf::range(0, jf::none, 2));
  };
  for (int rep = 0; rep < 4; ++rep) {
    const i64 m = rand_int(1, 300) | 1, n = rand_int(1, 300), k = rand_int(1, 300) | 1;
    gpu_vs_cpu<T>({m, k}, {k, n}, plain);
    gpu_vs_cpu<T>({k, m}, {n, k}, transposed);       // a.T @ b.T: op flags, no copy
    gpu_vs_cpu<T>({m, 2 * k}, {k, 2 * n}, strided);  // reversed rows, every other column
    gpu_vs_cpu<T>({3, 1, m, k}, {4, k, n}, plain);   // broadcast batches
    gpu_vs_cpu<T>({k}, {5, k, n}, plain);            // 1-d @ batch
    gpu_vs_cpu<T>({2, m, k}, {k}, plain);            // batch @ 1-d
  }
  gpu_vs_cpu<T>({1031, 1100}, {1100, 1013}, plain);  // > 1000, odd
  gpu_vs_cpu<T>({1100, 1031}, {1013, 1100}, transposed);
  gpu_vs_cpu<T>({4099, 40}, {40, 4097}, plain);  // >= 2^24 elements of result
}

TEST_F(MatmulCuda, Float32MatchesCpu) { random_shapes<float>(); }
TEST_F(MatmulCuda, Float64MatchesCpu) { random_shapes<double>(); }
TEST_F(MatmulCuda, Int32MatchesCpu) { random_shapes<std::int32_t>(); }
TEST_F(MatmulCuda, Int64MatchesCpu) { random_shapes<i64>(); }
TEST_F(MatmulCuda, BoolMatchesCpu) { random_shapes<bool>(); }

// ---- sum(a @ b, axes): the rewrite and the lazy product ------------------------------------

// Multiples of 1/4 in [-2, 2]: every product and sum below is exact in float32 and float64, so
// rewritten and unrewritten orders give the same bits as the host's.
std::vector<double> quarters(i64 n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = double(rand_int(-8, 8)) / 4;
  return v;
}

// numpy's sum of the n x m product a @ b over its rows (axis 0: m values), columns (axis 1: n
// values) or both (one value), on the host in double.
std::vector<double> host_product_sums(const std::vector<double>& a, const std::vector<double>& b, i64 n, i64 k, i64 m,
                                      bool rows, bool cols) {
  std::vector<double> p(static_cast<std::size_t>(n * m), 0.0);
  for (i64 i = 0; i < n; ++i)
    for (i64 l = 0; l < k; ++l)
      for (i64 j = 0; j < m; ++j)
        p[static_cast<std::size_t>(i * m + j)] +=
            a[static_cast<std::size_t>(i * k + l)] * b[static_cast<std::size_t>(l * m + j)];
  if (!rows && !cols) return p;
  std::vector<double> out(static_cast<std::size_t>(rows && cols ? 1 : rows ? m : n), 0.0);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j)
      out[static_cast<std::size_t>(rows && cols ? 0 : rows ? j : i)] += p[static_cast<std::size_t>(i * m + j)];
  return out;
}

template <class T, class E>
void expect_exact(const E& e, const jf::shape_t& shape, const std::vector<double>& want, const std::string& what,
                  jf::device dev) {
  static_assert(std::is_same_v<jf::value_type_t<E>, T>, "numpy's result dtype");
  poison_pool<T>(shape.product(), dev);
  const jf::array<T> got = e;
  ASSERT_EQ(got.shape(), shape) << what;
  ASSERT_EQ(got.device(), dev) << what;
  const std::vector<T> g = got.to_vector();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (std::size_t i = 0; i < g.size(); ++i) ASSERT_EQ(double(g[i]), want[i]) << what << " element " << i;
}

class MatmulSum : public test_support::on_backends {};

template <class T>
void sums_of_products(jf::device dev) {
  const i64 sizes[][3] = {{0, 3, 4}, {3, 0, 4}, {3, 4, 0}, {1, 1, 1}, {1, 7, 1}, {37, 29, 41}, {300, 257, 129}};
  for (const auto& s : sizes) {
    const i64 n = s[0], k = s[1], m = s[2];
    const std::vector<double> av = quarters(n * k), bv = quarters(k * m);
    const jf::array<T> a = jf::astype<T>(jf::array<double>(av, {n, k}, dev)),
                       b = jf::astype<T>(jf::array<double>(bv, {k, m}, dev));
    const auto p = jf::matmul(a, b);
    static_assert(std::is_same_v<decltype(jf::sum(p, 0)), jf::matmul_expr<T>>, "a float sum of a product is rewritten");
    const std::string what = dtype_name<T>() + " " + std::to_string(n) + "x" + std::to_string(k) + " @ " +
                             std::to_string(k) + "x" + std::to_string(m);
    const std::vector<double> rows = host_product_sums(av, bv, n, k, m, true, false);
    const std::vector<double> cols = host_product_sums(av, bv, n, k, m, false, true);
    const std::vector<double> all = host_product_sums(av, bv, n, k, m, true, true);
    expect_exact<T>(jf::sum(p, 0), {m}, rows, what + " axis 0", dev);
    expect_exact<T>(jf::sum(p, -2), {m}, rows, what + " axis -2", dev);
    expect_exact<T>(jf::sum(p, 0, jf::keepdims), {1, m}, rows, what + " axis 0 keepdims", dev);
    expect_exact<T>(jf::sum(p, 1), {n}, cols, what + " axis 1", dev);
    expect_exact<T>(jf::sum(p, -1, jf::keepdims), {n, 1}, cols, what + " axis -1 keepdims", dev);
    expect_exact<T>(jf::sum(p), {}, all, what + " axis None", dev);
    expect_exact<T>(jf::sum(p, {1, 0}), {}, all, what + " axes (1, 0)", dev);
    expect_exact<T>(jf::sum(p, jf::keepdims), {1, 1}, all, what + " keepdims", dev);
    expect_exact<T>(p, {n, m}, host_product_sums(av, bv, n, k, m, false, false), what + " product", dev);
    // Every route of the vector products (matmul_node.hpp): cuBLAS's gemv or the fused reductions.
    for (auto route : {jf::detail::product_route::matmul, jf::detail::product_route::fused}) {
      jf::detail::set_product_route(route);
      const std::string how = route == jf::detail::product_route::matmul ? " via matmul" : " fused";
      expect_exact<T>(jf::sum(p, 0), {m}, rows, what + " axis 0" + how, dev);
      expect_exact<T>(jf::sum(p, 1), {n}, cols, what + " axis 1" + how, dev);
    }
    jf::detail::set_product_route(jf::detail::product_route::automatic);
  }
}

TEST_P(MatmulSum, RewrittenSumsEqualTheHost) {
  sums_of_products<float>(dev());
  sums_of_products<double>(dev());
}

// Views, expressions, 1-d and batched operands, nested sums and element-wise consumers.
TEST_P(MatmulSum, ViewsExpressionsAndConsumers) {
  const i64 n = 23, k = 17, m = 19;
  const std::vector<double> av = quarters(n * k), bv = quarters(k * m);
  const jf::array<double> a(av, {n, k}, dev()), b(bv, {k, m}, dev());
  const std::vector<double> rows = host_product_sums(av, bv, n, k, m, true, false);
  const std::vector<double> cols = host_product_sums(av, bv, n, k, m, false, true);
  const std::vector<double> all = host_product_sums(av, bv, n, k, m, true, true);
  // a as a transposed view of its transpose, b as a strided view, and reversed rows of b.
  const jf::array<double> at = jf::array<double>(a.transpose().copy()).transpose();
  std::vector<double> wide(static_cast<std::size_t>(k * m * 2), 99.0);
  for (i64 l = 0; l < k; ++l)
    for (i64 j = 0; j < m; ++j)
      wide[static_cast<std::size_t>(l * 2 * m + 2 * j)] = bv[static_cast<std::size_t>(l * m + j)];
  const jf::array<double> bs = jf::array<double>(wide, {k, 2 * m}, dev())(jf::all, jf::range(0, jf::none, 2));
  expect_exact<double>(jf::sum(jf::matmul(at, bs), 0), {m}, rows, "views axis 0", dev());
  expect_exact<double>(jf::sum(jf::matmul(at, bs), 1), {n}, cols, "views axis 1", dev());
  const jf::array<double> bflip = jf::flip(jf::flip(b, 0).copy(), 0);  // negative row stride
  expect_exact<double>(jf::sum(jf::matmul(a, bflip), 0), {m}, rows, "reversed view", dev());
  // Expressions as operands (evaluated when matmul is called); float32 @ int32 is float64.
  std::vector<double> a2(av.size());
  for (std::size_t i = 0; i < av.size(); ++i) a2[i] = av[i] * 2 + 1;
  expect_exact<double>(jf::sum(jf::matmul(a * 2.0 + 1.0, b), 0), {m}, host_product_sums(a2, bv, n, k, m, true, false),
                       "expression operand", dev());
  const jf::array<float> af = jf::astype<float>(a);
  const jf::array<std::int32_t> bi = jf::astype<std::int32_t>(b * 4.0);
  std::vector<double> b4(bv.size());
  for (std::size_t i = 0; i < bv.size(); ++i) b4[i] = bv[i] * 4;
  expect_exact<double>(jf::sum(jf::matmul(af, bi), 1), {n}, host_product_sums(av, b4, n, k, m, false, true),
                       "float32 @ int32", dev());
  // 1-d operands: v @ b is (m,), a @ w is (n,); their sums are all of the product.
  const jf::array<double> v = a(0, jf::all), w = b(jf::all, 0);
  const std::vector<double> v_rows(av.begin(), av.begin() + k);
  std::vector<double> w_col(static_cast<std::size_t>(k));
  for (i64 l = 0; l < k; ++l) w_col[static_cast<std::size_t>(l)] = bv[static_cast<std::size_t>(l * m)];
  expect_exact<double>(jf::sum(jf::matmul(v, b), 0), {}, host_product_sums(v_rows, bv, 1, k, m, true, true),
                       "1-d @ 2-d", dev());
  expect_exact<double>(jf::sum(jf::matmul(a, w), 0), {}, host_product_sums(av, w_col, n, k, 1, true, true), "2-d @ 1-d",
                       dev());
  expect_exact<double>(jf::sum(jf::matmul(v, w)), {}, host_product_sums(v_rows, w_col, 1, k, 1, true, true),
                       "1-d @ 1-d", dev());
  // Batched (not rewritten: the product, then the reduction): 3 copies of a.
  const jf::array<double> stack = jf::broadcast_to(a, {3, n, k});
  std::vector<double> rows3(rows.size());
  for (std::size_t j = 0; j < rows.size(); ++j) rows3[j] = 3 * rows[j];
  expect_exact<double>(jf::sum(jf::matmul(stack, b), {0, 1}), {m}, rows3, "batched, axes (0, 1)", dev());
  // Nested sums, consumers of a rewritten sum and of a product, another reduction of a product.
  expect_exact<double>(jf::sum(jf::sum(jf::matmul(a, b), 0)), {}, all, "sum(sum(p, 0))", dev());
  expect_exact<double>(jf::sum(jf::sum(jf::matmul(a, b), 1, jf::keepdims), 0), {1}, all, "sum(sum(p, 1, keepdims), 0)",
                       dev());
  std::vector<double> rows21(rows.size());
  for (std::size_t j = 0; j < rows.size(); ++j) rows21[j] = rows[j] * 2 + 1;
  expect_exact<double>(jf::sum(jf::matmul(a, b), 0) * 2.0 + 1.0, {m}, rows21, "sum(p, 0) * 2 + 1", dev());
  const std::vector<double> prod = host_product_sums(av, bv, n, k, m, false, false);
  std::vector<double> prod_minus(prod.size());
  for (std::size_t i = 0; i < prod.size(); ++i) prod_minus[i] = prod[i] - 0.5;
  expect_exact<double>(jf::matmul(a, b) - 0.5, {n, m}, prod_minus, "p - 0.5", dev());
  std::vector<double> maxes(static_cast<std::size_t>(m), -1e300);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j)
      maxes[static_cast<std::size_t>(j)] =
          std::max(maxes[static_cast<std::size_t>(j)], prod[static_cast<std::size_t>(i * m + j)]);
  expect_exact<double>(jf::max(jf::matmul(a, b), 0), {m}, maxes, "max(p, 0)", dev());
  // An expression evaluated twice sees its operands' current values (no stale product).
  jf::array<double> c = b.copy();
  const auto s = jf::sum(jf::matmul(a, c), 0);
  expect_exact<double>(s, {m}, rows, "before", dev());
  c *= 2.0;  // in place: s reads c's memory, so its next evaluation doubles
  std::vector<double> rows2(rows.size());
  for (std::size_t j = 0; j < rows.size(); ++j) rows2[j] = 2 * rows[j];
  expect_exact<double>(s, {m}, rows2, "after c *= 2", dev());
}

// (a @ b).T is b.T @ a.T: the product of transposed views, written in the transposed order.
TEST_P(MatmulSum, TransposedProduct) {
  const i64 n = 13, k = 9, m = 11;
  const std::vector<double> av = quarters(n * k), bv = quarters(k * m);
  const jf::array<double> a(av, {n, k}, dev()), b(bv, {k, m}, dev());
  const std::vector<double> p = host_product_sums(av, bv, n, k, m, false, false);
  std::vector<double> pt(p.size());
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j) pt[static_cast<std::size_t>(j * n + i)] = p[static_cast<std::size_t>(i * m + j)];
  const auto t = jf::transpose(jf::matmul(a, b));
  expect_exact<double>(t, {m, n}, pt, "(a @ b).T", dev());
  const jf::array<double> tv = t;
  EXPECT_TRUE(tv.is_contiguous()) << "written in the transposed order, not a view";
  EXPECT_NE(jf::explain(t).find("a (11, 9) and b (9, 13)"), std::string::npos) << jf::explain(t);  // b.T @ a.T
  std::vector<double> pt3(pt.size());
  for (std::size_t i = 0; i < pt.size(); ++i) pt3[i] = pt[i] * 3;
  expect_exact<double>(jf::transpose(jf::matmul(a, b)) * 3.0, {m, n}, pt3, "(a @ b).T * 3", dev());
  std::vector<double> rows_of_t(static_cast<std::size_t>(n), 0.0);  // sum((a @ b).T, 0): a @ b summed over columns
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j) rows_of_t[static_cast<std::size_t>(i)] += p[static_cast<std::size_t>(i * m + j)];
  expect_exact<double>(jf::sum(jf::transpose(jf::matmul(a, b)), 0), {n}, rows_of_t, "sum((a @ b).T, 0)", dev());
  const jf::array<double> v = a(0, jf::all);  // 1-d products are their own transpose
  expect_exact<double>(jf::transpose(jf::matmul(v, b)), {m},
                       host_product_sums(std::vector<double>(av.begin(), av.begin() + k), bv, 1, k, m, false, false),
                       "(v @ b).T", dev());
  EXPECT_THROW((void)jf::transpose(jf::matmul(jf::broadcast_to(a, {2, n, k}), b)), jf::value_error);
  EXPECT_THROW((void)jf::transpose(jf::sum(jf::matmul(a, b), 0, jf::keepdims)), jf::value_error);
  EXPECT_EQ(jf::transpose(a).shape(), (jf::shape_t{k, n}));  // numpy.transpose of an array: a view
}

// Integer products are not rewritten: numpy's int32 product wraps before its sum (in int64).
TEST_P(MatmulSum, IntegerSumsWrapAsNumpys) {
  const i64 n = 5, k = 3, m = 4;
  std::vector<std::int32_t> av(static_cast<std::size_t>(n * k)), bv(static_cast<std::size_t>(k * m));
  for (auto& x : av) x = static_cast<std::int32_t>(rand_int(40000, 60000));
  for (auto& x : bv) x = static_cast<std::int32_t>(rand_int(40000, 60000));
  const jf::array<std::int32_t> a(av, {n, k}, dev()), b(bv, {k, m}, dev());
  const auto s = jf::sum(jf::matmul(a, b), 0);
  static_assert(std::is_same_v<jf::value_type_t<decltype(s)>, i64>, "numpy: sum of int32 is int64");
  std::vector<i64> want(static_cast<std::size_t>(m), 0);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j) {
      std::uint32_t p = 0;
      for (i64 l = 0; l < k; ++l)
        p += static_cast<std::uint32_t>(av[static_cast<std::size_t>(i * k + l)]) *
             static_cast<std::uint32_t>(bv[static_cast<std::size_t>(l * m + j)]);
      want[static_cast<std::size_t>(j)] += static_cast<std::int32_t>(p);
    }
  EXPECT_EQ(jf::eval(s).to_vector(), want);
  const std::string x = jf::explain(s);
  EXPECT_NE(x.find("evaluated first"), std::string::npos) << x;
  EXPECT_EQ(x.find("rewritten"), std::string::npos) << x;
}

TEST_P(MatmulSum, ErrorsAndExplain) {
  const jf::array<float> a = jf::ones<float>({6, 5}, dev()), b = jf::ones<float>({5, 4}, dev());
  EXPECT_THROW((void)jf::sum(jf::matmul(a, b), 2), jf::axis_error);
  EXPECT_THROW((void)jf::sum(jf::matmul(a, b), -3), jf::axis_error);
  try {
    (void)jf::sum(jf::matmul(a, b), {0, -2});
    ADD_FAILURE() << "no error for a duplicate axis";
  } catch (const jf::axis_error& e) {
    EXPECT_STREQ(e.what(), "duplicate value in 'axis'");
  }
  EXPECT_THROW((void)jf::matmul(a, a), jf::shape_error);  // when called, not when evaluated
  const std::string x = jf::explain(jf::sum(jf::matmul(a, b), 0));
  EXPECT_NE(x.find("rewritten as matmul(sum(a, axis=0), b)"), std::string::npos) << x;
  EXPECT_NE(x.find("step 2 the vector-matrix product"), std::string::npos) << x;
  EXPECT_NE(x.find("no (6, 4) product is formed"), std::string::npos) << x;
  EXPECT_NE(x.find("--- step 1 ---"), std::string::npos) << x;
  const std::string y = jf::explain(jf::sum(jf::matmul(a, b), 1) * 2.0f);
  EXPECT_NE(y.find("rewritten as matmul(a, sum(b, axis=1))"), std::string::npos) << y;
  EXPECT_NE(y.find("step 2 sum(a * t[None, :], axis=1) (a fused multiply-reduction)"), std::string::npos) << y;
  EXPECT_NE(y.find("multiply"), std::string::npos) << "the consumer's IR follows:\n" << y;
  const std::string z = jf::explain(jf::sum(jf::matmul(a, b)));
  EXPECT_NE(z.find("rewritten as dot(sum(a, axis=0), sum(b, axis=1))"), std::string::npos) << z;
  const std::string w = jf::explain(jf::matmul(a, b));
  EXPECT_NE(w.find("evaluated first"), std::string::npos) << w;
  EXPECT_EQ(jf::eval(jf::sum(jf::matmul(a, b), 0)).to_vector(), std::vector<float>(4, 30.0f));
}

// The rewritten float32 sum against the float64 CPU reference: |got - exact| <= (n + k + 2) eps32
// ((sum_i |a_i.|) @ |b|), the bound of design.md "Matrix products" (the unrewritten order has the
// same bound). Random values in (-1, 1): the sums are not exact in float32.
template <class T>
void rounding_bound(i64 n, i64 k, i64 m, jf::device dev) {
  std::vector<double> av(static_cast<std::size_t>(n * k)), bv(static_cast<std::size_t>(k * m));
  for (double& x : av) x = double(rand_int(-1'000'000, 1'000'000)) / 1'000'001.0;
  for (double& x : bv) x = double(rand_int(-1'000'000, 1'000'000)) / 1'000'001.0;
  const jf::array<T> a = jf::astype<T>(jf::array<double>(av, {n, k}, jf::cpu));
  const jf::array<T> b = jf::astype<T>(jf::array<double>(bv, {k, m}, jf::cpu));
  const std::vector<T> at = a.to_vector(), bt = b.to_vector();  // the rounded operands
  std::vector<double> col(static_cast<std::size_t>(k), 0.0), colabs(static_cast<std::size_t>(k), 0.0);
  for (i64 i = 0; i < n; ++i)
    for (i64 l = 0; l < k; ++l) {
      col[static_cast<std::size_t>(l)] += double(at[static_cast<std::size_t>(i * k + l)]);
      colabs[static_cast<std::size_t>(l)] += std::abs(double(at[static_cast<std::size_t>(i * k + l)]));
    }
  std::vector<double> want(static_cast<std::size_t>(m), 0.0), mag(static_cast<std::size_t>(m), 0.0);
  for (i64 l = 0; l < k; ++l)
    for (i64 j = 0; j < m; ++j) {
      const double bj = double(bt[static_cast<std::size_t>(l * m + j)]);
      want[static_cast<std::size_t>(j)] += col[static_cast<std::size_t>(l)] * bj;
      mag[static_cast<std::size_t>(j)] += colabs[static_cast<std::size_t>(l)] * std::abs(bj);
    }
  const double eps = std::numeric_limits<T>::epsilon();
  for (bool blas : {false, true}) {
    jf::detail::set_product_route(blas ? jf::detail::product_route::matmul : jf::detail::product_route::fused);
    const jf::array<T> got = jf::sum(jf::matmul(jf::to_backend(a, dev), jf::to_backend(b, dev)), 0);
    jf::detail::set_product_route(jf::detail::product_route::automatic);
    const std::vector<T> g = got.to_vector();
    ASSERT_EQ(g.size(), want.size());
    double worst = 0;
    for (std::size_t j = 0; j < g.size(); ++j) {
      const double bound = double(n + k + 2) * eps * mag[j];
      ASSERT_LE(std::abs(double(g[j]) - want[j]), bound) << dtype_name<T>() << " " << n << "x" << k << " @ " << k << "x"
                                                         << m << " column " << j << (blas ? " (via matmul)" : "");
      worst = std::max(worst, std::abs(double(g[j]) - want[j]) / (eps * mag[j] + 1e-300));
    }
    std::printf("%s %lldx%lldx%lld on %s%s: worst error %.3g eps * (|a| summed @ |b|), bound %lld\n",
                dtype_name<T>().c_str(), static_cast<long long>(n), static_cast<long long>(k),
                static_cast<long long>(m), jf::to_string(dev).c_str(), blas ? " via matmul" : "", worst,
                static_cast<long long>(n + k + 2));
  }
}

TEST_P(MatmulSum, RoundingWithinTheDocumentedBound) {
  rounding_bound<float>(2001, 1501, 703, dev());
  rounding_bound<double>(301, 257, 129, dev());
}

INSTANTIATE_TEST_SUITE_P(Backends, MatmulSum, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// >= 2^24 elements of a on the GPU (the CPU reference sums in double on the host).
TEST_F(MatmulCuda, SumRoundingOnLargeOperands) { rounding_bound<float>(4099, 4097, 301, jf::cuda); }

// ---- alpha and beta: scalar factors and an addend folded into the one gemm ----------------------

// value = alpha * (a @ b) + beta * c on the host in double, from the dtype-rounded operands, and the
// magnitude |alpha| (|a| @ |b|) + |beta c| the bound scales with. a: batch x n x k (batch 0: a 2-d
// operand), b: k x m, c broadcast from c_shape's trailing axes (m or n x m).
struct host_affine {
  std::vector<double> value, mag;
};
template <class T>
host_affine affine(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c, i64 batch, i64 n, i64 k,
                   i64 m, double alpha, double beta, bool c_rows) {
  host_affine h;
  const i64 nb = batch ? batch : 1;
  h.value.assign(static_cast<std::size_t>(nb * n * m), 0.0);
  h.mag = h.value;
  for (i64 q = 0; q < nb; ++q)
    for (i64 i = 0; i < n; ++i)
      for (i64 j = 0; j < m; ++j) {
        double s = 0, t = 0;
        for (i64 l = 0; l < k; ++l) {
          const double x = double(a[static_cast<std::size_t>((q * n + i) * k + l)]);
          const double y = double(b[static_cast<std::size_t>(l * m + j)]);
          s += x * y;
          t += std::abs(x * y);
        }
        const std::size_t o = static_cast<std::size_t>((q * n + i) * m + j);
        const double cv = c.empty() ? 0.0 : double(c[static_cast<std::size_t>(c_rows ? i * m + j : j)]);
        h.value[o] = alpha * s + beta * cv;
        h.mag[o] = std::abs(alpha) * t + std::abs(beta * cv);
      }
  return h;
}

// The rewritten result within the documented bound: |got - value| <= (k + f + 2) eps (|alpha|
// (|a| @ |b|) + |beta c|), f the number of scalar steps (design.md "Matrix products").
template <class T>
::testing::AssertionResult within_bound(const jf::array<T>& got, const host_affine& want, i64 k, int f) {
  const std::vector<T> g = got.to_vector();
  if (g.size() != want.value.size())
    return ::testing::AssertionFailure() << g.size() << " vs " << want.value.size() << " elements";
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!(std::abs(double(g[i]) - want.value[i]) <= double(k + f + 2) * eps * want.mag[i] + 1e-300))
      return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << " vs " << want.value[i]
                                           << " (bound " << double(k + f + 2) * eps * want.mag[i] << ")";
  return ::testing::AssertionSuccess();
}

template <class T>
std::vector<T> random_values(i64 count) {
  std::vector<T> v(static_cast<std::size_t>(count));
  for (T& x : v) x = T(double(rand_int(-1'000'000, 1'000'000)) / 1'000'001.0);
  return v;
}

// Kernels launched plus CPU executor evaluations: an element-wise pass after the gemm adds one.
std::uint64_t passes() {
  const jf::stats_t s = jf::stats();
  return s.launches + s.cpu_evaluations;
}

template <class T>
void alpha_beta_forms(i64 n, i64 k, i64 m, jf::device dev) {
  const std::vector<T> av = random_values<T>(3 * n * k), bv = random_values<T>(k * m), cv = random_values<T>(n * m),
                       rv = random_values<T>(m);
  const std::vector<T> a2(av.begin(), av.begin() + n * k);
  const jf::array<T> a(a2, {n, k}, dev), b(bv, {k, m}, dev), c(cv, {n, m}, dev), row(rv, {m}, dev);
  const jf::array<T> stack(av, {3, n, k}, dev);
  const auto p = jf::matmul(a, b);
  static_assert(std::is_same_v<decltype(2 * p), jf::matmul_expr<T>>, "a factor is gemm's alpha");
  static_assert(std::is_same_v<decltype(-(p / 3.0)), jf::matmul_expr<T>>, "factors chain");
  static_assert(std::is_same_v<decltype(p + c), jf::matmul_plus_expr<T>>, "an addend is gemm's beta");
  const std::string what = dtype_name<T>() + " " + std::to_string(n) + "x" + std::to_string(k) + "x" +
                           std::to_string(m) + " on " + jf::to_string(dev);
  const double t3 = double(T(3)), third = 1.0 / t3;
  const std::vector<T> none;
  const auto check_form = [&](const auto& e, double alpha, double beta, const std::vector<T>& cw, bool c_rows, int f,
                              const std::string& form) {
    poison_pool<T>(n * m, dev);
    const jf::array<T> got = e;
    ASSERT_EQ(got.shape(), (jf::shape_t{n, m})) << what << " " << form;
    EXPECT_TRUE(within_bound(got, affine(a2, bv, cw, 0, n, k, m, alpha, beta, c_rows), k, f)) << what << " " << form;
  };
  check_form(2.5 * p, double(T(2.5)), 0, none, false, 1, "2.5 * p");
  check_form(p * 3, 3, 0, none, false, 1, "p * 3");
  check_form(p / 3, third, 0, none, false, 1, "p / 3");
  check_form(-p, -1, 0, none, false, 1, "-p");
  check_form(-(2 * p) / 4.0, -0.5, 0, none, false, 3, "-(2 * p) / 4");
  check_form(p + c, 1, 1, cv, true, 0, "p + c");
  check_form(c + p, 1, 1, cv, true, 0, "c + p");
  check_form(p - c, 1, -1, cv, true, 0, "p - c");
  check_form(c - p, -1, 1, cv, true, 1, "c - p");
  check_form(0.5 * p + row, 0.5, 1, rv, false, 1, "0.5 * p + row (broadcast)");
  check_form(p / 3 - c, third, -1, cv, true, 1, "p / 3 - c");
  // Batched: one strided-batched gemm with alpha; c broadcast over the batch.
  {
    const jf::array<T> got = 2 * jf::matmul(stack, b) + c;
    ASSERT_EQ(got.shape(), (jf::shape_t{3, n, m})) << what;
    EXPECT_TRUE(within_bound(got, affine(av, bv, cv, 3, n, k, m, 2, 1, true), k, 1)) << what << " batched";
  }
  // The rewrite happened, and jf::explain says so. A scalar factor costs no pass after the gemm.
  (void)jf::array<T>(p);  // warm caches (operand conversions, kernels) outside the counts
  jf::reset_stats();
  (void)jf::array<T>(2 * p);
  const std::uint64_t scaled = passes();
  jf::reset_stats();
  (void)jf::array<T>(jf::array<T>(p) * 2.0);
  const std::uint64_t scaled_after = passes();
  EXPECT_EQ(scaled + 1, scaled_after) << what << ": alpha costs no element-wise pass";
  // An addend is copied into the result before the gemm rather than added after it: on the CPU a
  // host copy (no evaluation); on jf::cuda one copy kernel where the element-wise form launches its
  // pass (the same bytes moved, no n x m temporary; measured on an H200 in bench_matmul).
  (void)jf::array<T>(2 * p + c);
  jf::reset_stats();
  (void)jf::array<T>(2 * p + c);
  const std::uint64_t rewritten = passes();
  jf::reset_stats();
  (void)jf::array<T>(jf::array<T>(p) * 2.0 + c);
  const std::uint64_t elementwise = passes();
  EXPECT_EQ(rewritten + (dev == jf::cuda ? 0 : 1), elementwise) << what << ": the addend's copy replaces the pass";
  const std::string x = jf::explain(2 * p + c);
  EXPECT_NE(x.find("rewritten as one gemm: alpha = 2"), std::string::npos) << x;
  EXPECT_NE(x.find("beta = 1"), std::string::npos) << x;
  EXPECT_NE(x.find("no element-wise pass"), std::string::npos) << x;
}

class MatmulAlphaBeta : public test_support::on_backends {};

TEST_P(MatmulAlphaBeta, FormsWithinTheDocumentedBound) {
  for (const auto& s : std::vector<std::array<i64, 3>>{{1, 1, 1}, {1, 7, 5}, {37, 29, 41}, {130, 301, 67}}) {
    alpha_beta_forms<float>(s[0], s[1], s[2], dev());
    alpha_beta_forms<double>(s[0], s[1], s[2], dev());
  }
}

// Where folding is not exact-safe the value is numpy's element-wise order (bit-exact on quarters):
// zero and infinite factors, empty products and k = 0, an addend that enlarges the shape; sums.
TEST_P(MatmulAlphaBeta, FallbacksAndSumsAreNumpys) {
  const i64 n = 5, k = 4, m = 3;
  std::vector<double> av = quarters(n * k);
  const std::vector<double> bv = quarters(k * m);
  av[0] = std::numeric_limits<double>::infinity();  // row 0 of the product is inf or nan
  const jf::array<double> a(av, {n, k}, dev()), b(bv, {k, m}, dev());
  const jf::array<double> want = jf::array<double>(jf::matmul(a, b));
  const std::vector<double> w = want.to_vector();
  const auto same_bits = [&](const jf::array<double>& got, const jf::array<double>& expect, const std::string& what) {
    ASSERT_EQ(got.shape(), expect.shape()) << what;
    const std::vector<double> g = got.to_vector(), e = expect.to_vector();
    for (std::size_t i = 0; i < g.size(); ++i)
      ASSERT_TRUE((std::isnan(g[i]) && std::isnan(e[i])) || g[i] == e[i]) << what << " element " << i << ": " << g[i]
                                                                           << " vs " << e[i];
  };
  same_bits(0.0 * jf::matmul(a, b), jf::array<double>(want * 0.0), "0 * p");  // nan where p is inf
  same_bits(jf::matmul(a, b) / 0.0, jf::array<double>(want / 0.0), "p / 0");
  EXPECT_NE(jf::explain(0.0 * jf::matmul(a, b)).find("not rewritten into gemm's alpha / beta"), std::string::npos);
  const jf::array<double> c3 = jf::ones<double>({2, 1, m}, dev());  // enlarges (5, 3) to (2, 5, 3)
  same_bits(jf::matmul(a, b) + c3, jf::array<double>(want + c3), "p + c (enlarging)");
  const jf::array<double> ek = jf::zeros<double>({n, 0}, dev()), e0 = jf::zeros<double>({0, m}, dev());
  same_bits(2 * jf::matmul(ek, e0) - jf::full<double>({n, m}, -0.0, dev()),
            jf::array<double>(jf::zeros<double>({n, m}, dev()) * 2.0 - jf::full<double>({n, m}, -0.0, dev())), "k = 0");
  // A sum of a scaled product still rewrites (and the factor applies to its small result).
  const jf::array<double> a1(quarters(n * k), {n, k}, dev());
  const auto s = jf::sum(2 * jf::matmul(a1, b), 0);
  static_assert(std::is_same_v<decltype(s), const jf::matmul_expr<double>>);
  same_bits(s, jf::array<double>(jf::sum(jf::array<double>(jf::matmul(a1, b)), 0) * 2.0), "sum(2 * p, 0)");
  const std::string x = jf::explain(s);
  EXPECT_NE(x.find("rewritten as matmul(sum(a, axis=0), b)"), std::string::npos) << x;
  EXPECT_NE(x.find("* 2"), std::string::npos) << x;
  // A sum of p + c is an ordinary reduction of the rewritten value.
  const jf::array<double> c(quarters(n * m), {n, m}, dev());
  same_bits(jf::sum(jf::matmul(a1, b) + c, 1), jf::array<double>(jf::sum(jf::array<double>(jf::matmul(a1, b)) + c, 1)),
            "sum(p + c, 1)");
  // (2 * a @ b).T and 2-d dot take the factor too; integers and promoting addends stay element-wise.
  same_bits(jf::transpose(2 * jf::matmul(a1, b)), jf::array<double>(jf::array<double>(jf::matmul(a1, b)).transpose() * 2.0),
            "(2 * p).T");
  same_bits(3 * jf::dot(a1, b) + c, jf::array<double>(jf::array<double>(jf::matmul(a1, b)) * 3.0 + c), "3 * dot + c");
  const jf::array<std::int32_t> ia = jf::astype<std::int32_t>(a1 * 4.0), ib = jf::astype<std::int32_t>(b * 4.0);
  static_assert(!std::is_same_v<decltype(2 * jf::matmul(ia, ib)), jf::matmul_expr<std::int32_t>>);
  const jf::array<float> cf = jf::astype<float>(c);
  static_assert(!std::is_same_v<decltype(jf::matmul(a1, b) + cf), jf::matmul_plus_expr<double>>);
  same_bits(jf::matmul(a1, b) + cf, jf::array<double>(jf::array<double>(jf::matmul(a1, b)) + cf), "p + float32 c");
}

INSTANTIATE_TEST_SUITE_P(Backends, MatmulAlphaBeta, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// cuBLAS's alpha and beta on larger, odd sizes (jf::cuda only; the CPU case is above).
TEST_F(MatmulCuda, AlphaBetaWithinTheDocumentedBound) {
  alpha_beta_forms<float>(1031, 517, 1013, jf::cuda);
  alpha_beta_forms<double>(257, 1100, 129, jf::cuda);
}

}  // namespace
