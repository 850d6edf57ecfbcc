// jf::matmul against numpy's answers (tests/data/matmul_table.txt, written by
// tests/data/gen_matmul_table.py: 1-d, 2-d, batched, broadcast and empty shapes, dtype pairs with
// promotion and integer wrap-around, numpy's errors) on every backend; jf::cuda against the CPU
// on random sizes (odd, > 1000, a product of >= 2^24 elements), views (transposed, strided,
// reversed, broadcast) and expressions as operands; results poisoned before each product.
#include <gtest/gtest.h>

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

std::vector<matmul_case> table(bool errors) {
  std::vector<matmul_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/matmul_table.txt", 3)) {
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
void check(const matmul_case& c, jf::device dev) {
  using R = jf::detail::matmul_result_t<jf::array<A>, jf::array<B>>;
  ASSERT_EQ(dtype_name<R>(), c.header.at(2)) << "numpy's result dtype";
  const std::vector<A> av = test_support::parse_words<A>(c.a);
  const std::vector<B> bv = test_support::parse_words<B>(c.b);
  const jf::array<A> a(av, c.sa, dev);
  const jf::array<B> b(bv, c.sb, dev);
  poison_pool<R>(c.sr.product(), dev);
  const jf::array<R> r = jf::matmul(a, b);
  const std::string what =
      c.header.at(0) + " " + jf::to_string(c.sa) + " @ " + c.header.at(1) + " " + jf::to_string(c.sb);
  ASSERT_EQ(r.shape(), c.sr) << what;
  ASSERT_EQ(r.device(), dev) << what;
  const double k = c.sa[c.sa.size() - 1];
  const double eps = std::numeric_limits<std::conditional_t<std::is_same_v<R, float>, float, double>>::epsilon();
  EXPECT_TRUE(close(r.to_vector(), test_support::parse_words<R>(c.r), 4 * k * eps * max_abs(av) * max_abs(bv) * k))
      << what;
}

template <class A>
void dispatch(const matmul_case& c, jf::device dev) {
  const std::string& t = c.header.at(1);
  if (t == "float64")
    check<A, double>(c, dev);
  else if (t == "float32")
    check<A, float>(c, dev);
  else if (t == "int64")
    check<A, i64>(c, dev);
  else if (t == "int32")
    check<A, std::int32_t>(c, dev);
  else if (t == "bool")
    check<A, bool>(c, dev);
  else
    FAIL() << "unknown dtype " << t;
}

class Matmul : public test_support::on_backends {
};

TEST_P(Matmul, MatchesNumpyTable) {
  const std::vector<matmul_case> cases = table(false);
  ASSERT_GT(cases.size(), 150u);
  for (const matmul_case& c : cases) {
    const std::string& t = c.header.at(0);
    if (t == "float64")
      dispatch<double>(c, dev());
    else if (t == "float32")
      dispatch<float>(c, dev());
    else if (t == "int64")
      dispatch<i64>(c, dev());
    else if (t == "int32")
      dispatch<std::int32_t>(c, dev());
    else if (t == "bool")
      dispatch<bool>(c, dev());
    else
      FAIL() << "unknown dtype " << t;
  }
}

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

INSTANTIATE_TEST_SUITE_P(Backends, Matmul, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

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

}  // namespace
