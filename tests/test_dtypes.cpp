// The 8- and 16-bit and unsigned integer dtypes beyond element-wise operations (those:
// test_dtypes_ops.cpp): casts, reductions and scans (numpy's accumulation dtypes: int64 for signed,
// uint64 for unsigned), weak Python integers (NEP 50, numpy's OverflowError message), sorting,
// against numpy's values (tests/data/dtypes_table.txt, gen_dtypes_table.py); repr, jagged content,
// errors; and jf::cuda against jf::cpu on fresh random inputs of every size class, views and
// expressions as operands (skipped without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <jetfuse/eigen.hpp>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using test_support::message_of;
using test_support::parse_words;
using test_support::same;
using test_support::values_of;
using i64 = std::int64_t;


template <class T>
std::vector<T> words_as(const std::vector<std::string>& w) {
  return parse_words<T>(values_of(w));
}

std::vector<test_support::table_case> cases_of(const std::string& kind) {
  std::vector<test_support::table_case> r;
  for (auto& c : test_support::read_table(JF_TEST_DATA_DIR "/dtypes_table.txt", 3))
    if (c.header.at(0) == kind) r.push_back(std::move(c));
  return r;
}

template <class R>
void expect_dtype(const std::string& want) {
  EXPECT_EQ(std::string(jf::name(jf::dtype_v<R>)), want);
}

class Dtypes : public test_support::on_backends {};

// ---- casts ---------------------------------------------------------------------------------------
TEST_P(Dtypes, CastsMatchNumpy) {
  const auto cs = cases_of("cast");
  ASSERT_GT(cs.size(), 80u);
  for (const auto& c : cs) {
    test_support::with_any_dtype(c.header[1], [&]<class A>() {
      test_support::with_any_dtype(c.header[2], [&]<class R>() {
        const jf::array<A> x(words_as<A>(c.lines[0]), dev());
        const jf::array<R> y = jf::astype<R>(x);
        EXPECT_TRUE(same(y.to_vector(), words_as<R>(c.lines[1]))) << c.header[1] << " -> " << c.header[2];
      });
    });
  }
}

// ---- reductions and scans ------------------------------------------------------------------------
template <class T>
void check_reduction(const test_support::table_case& c, jf::device dev) {
  const std::string& f = c.header[1];
  const jf::array<T> x(words_as<T>(c.lines[0]), dev);
  auto check = [&]<class R>(const jf::array<R>& r) {
    expect_dtype<R>(c.header[3]);
    const std::vector<R> got = r.to_vector(), want = words_as<R>(c.lines[1]);
    if constexpr (std::is_floating_point_v<R>) {
      // mean: float64 sums of n terms in another order than numpy's (exact only below 2**53):
      // within n * eps of the mean of the magnitudes (docs/design.md, floating-point sums).
      ASSERT_EQ(got.size(), 1u);
      const double n = static_cast<double>(x.size());
      EXPECT_NEAR(got[0], want[0], n * 2.3e-16 * std::abs(want[0]))
          << f << " of " << c.header[2] << ", n " << c.header[4];
    } else {
      EXPECT_TRUE(same(got, want)) << f << " of " << c.header[2] << ", n " << c.header[4];
    }
  };
  if (f == "sum")
    check(jf::eval(jf::sum(x)));
  else if (f == "prod")
    check(jf::eval(jf::prod(x)));
  else if (f == "min")
    check(jf::eval(jf::min(x)));
  else if (f == "max")
    check(jf::eval(jf::max(x)));
  else if (f == "mean")
    check(jf::eval(jf::mean(x)));
  else if (f == "argmin")
    check(jf::eval(jf::argmin(x)));
  else if (f == "argmax")
    check(jf::eval(jf::argmax(x)));
  else if (f == "count_nonzero")
    check(jf::eval(jf::count_nonzero(x)));
  else if (f == "cumsum")
    check(jf::eval(jf::cumsum(x)));
  else if (f == "cumprod")
    check(jf::eval(jf::cumprod(x)));
  else
    ADD_FAILURE() << "no reduction " << f;
}

TEST_P(Dtypes, ReductionsMatchNumpy) {
  const auto cs = cases_of("reduce");
  ASSERT_GT(cs.size(), 150u);
  for (const auto& c : cs) test_support::with_any_dtype(c.header[2], [&]<class T>() { check_reduction<T>(c, dev()); });
}

// ---- weak Python integers ------------------------------------------------------------------------
template <class T, class K>
void check_scalar(const test_support::table_case& c, K k, jf::device dev) {
  const std::string& o = c.header[1];
  const jf::array<T> x(words_as<T>(c.lines[0]), dev);
  const std::string what = o + "(" + c.header[2] + " array, " + c.header[3] + ")";
  auto run = [&]<class R>(auto&& make) {
    if (c.header[4] == "error") {
      std::string want;
      for (const std::string& w : c.lines[1]) want += (want.empty() ? "" : " ") + w;
      EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::array<R>(make()); }), want) << what;
    } else {
      const jf::array<R> r = make();
      expect_dtype<R>(c.header[4]);
      EXPECT_TRUE(same(r.to_vector(), words_as<R>(c.lines[1]))) << what;
    }
  };
  if (o == "add")
    run.template operator()<T>([&] { return x + k; });
  else if (o == "multiply")
    run.template operator()<T>([&] { return jf::multiply(x, k); });
  else if (o == "less")
    run.template operator()<bool>([&] { return x < k; });
  else if (o == "equal")
    run.template operator()<bool>([&] { return x == k; });
  else if (o == "greater_equal")
    run.template operator()<bool>([&] { return x >= k; });
  else if (o == "where")
    run.template operator()<T>([&] { return jf::where(x % 2 == 0, x, k); });
  else
    ADD_FAILURE() << "no operation " << o;
}

TEST_P(Dtypes, WeakIntegersMatchNumpy) {
  const auto cs = cases_of("scalar");
  ASSERT_GT(cs.size(), 300u);
  for (const auto& c : cs) {
    test_support::with_any_dtype(c.header[2], [&]<class T>() {
      const std::string& k = c.header[3];
      if (k[0] == '-' || std::stoull(k) <= static_cast<unsigned long long>(INT64_MAX))
        check_scalar<T>(c, std::stoll(k), dev());
      else
        check_scalar<T>(c, std::stoull(k), dev());  // a C++ unsigned scalar above INT64_MAX
    });
  }
}

// ---- sorting -------------------------------------------------------------------------------------
TEST_P(Dtypes, SortMatchesNumpy) {
  const auto cs = cases_of("sort");
  ASSERT_EQ(cs.size(), 24u);
  for (const auto& c : cs) {
    test_support::with_any_dtype(c.header[1], [&]<class T>() {
      const jf::array<T> x(words_as<T>(c.lines[0]), dev());
      EXPECT_TRUE(same(jf::sort(x).to_vector(), words_as<T>(c.lines[1])))
          << "sort of " << c.header[1] << ", n " << c.header[2];
      EXPECT_TRUE(same(jf::argsort(x).to_vector(), words_as<i64>(c.lines[2])))
          << "argsort of " << c.header[1] << ", n " << c.header[2];
      // unique: the sorted values without repeats
      std::vector<T> u = words_as<T>(c.lines[1]);
      u.erase(std::unique(u.begin(), u.end()), u.end());
      EXPECT_TRUE(same(jf::unique(x).to_vector(), u)) << "unique of " << c.header[1];
    });
  }
}

// ---- construction, printing, errors --------------------------------------------------------------
TEST(DtypesBasics, ReprIsNumpys) {
  // numpy 2.4: repr(np.array([1, 2], 'uint8')), ...
  using jf::detail::repr;
  EXPECT_EQ(repr(jf::array<std::uint8_t>({1, 2})), "array([1, 2], dtype=uint8)");
  EXPECT_EQ(repr(jf::array<std::int8_t>({-128, 5, 127})), "array([-128,    5,  127], dtype=int8)");
  EXPECT_EQ(repr(jf::array<std::uint64_t>({UINT64_MAX, 0})),
            "array([18446744073709551615,                    0], dtype=uint64)");
  EXPECT_EQ(repr(jf::full<std::int16_t>({}, 7)), "array(7, dtype=int16)");
  EXPECT_EQ(repr(jf::array<std::uint32_t>(std::vector<std::uint32_t>{})), "array([], dtype=uint32)");
  EXPECT_EQ(repr(jf::zeros<std::uint16_t>({2, 0})), "array([], shape=(2, 0), dtype=uint16)");
  EXPECT_EQ(repr(jf::arange<std::int16_t>(12).reshape({3, 4})),
            "array([[ 0,  1,  2,  3],\n       [ 4,  5,  6,  7],\n       [ 8,  9, 10, 11]], dtype=int16)");
  EXPECT_EQ(jf::arange<std::uint64_t>(UINT64_MAX - 2, UINT64_MAX).to_vector(),
            (std::vector<std::uint64_t>{UINT64_MAX - 2, UINT64_MAX - 1}));
}

TEST(DtypesBasics, NumpysErrors) {
  const jf::array<std::uint8_t> u({1, 2});
  EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::eval(u + 300); }),
            "Python integer 300 out of bounds for uint8");
  EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::eval(u - (-1)); }),
            "Python integer -1 out of bounds for uint8");
  const jf::array<std::int64_t> s({1});
  EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::eval(s + (std::uint64_t{1} << 63)); }),
            "Python integer 9223372036854775808 out of bounds for int64");
  // numpy 2 compares exactly: nothing raises, the answer is known.
  EXPECT_EQ(jf::eval(u < 300).to_vector(), (std::vector<bool>{true, true}));
  EXPECT_EQ(jf::eval(u == -1).to_vector(), (std::vector<bool>{false, false}));
  // No uint64 fits a signed type: a histogram's data range of 2**63 or more needs a range.
  const jf::array<std::uint64_t> big({1, UINT64_MAX});
  EXPECT_THROW(jf::histogram(big, 3), jf::value_error);
  EXPECT_EQ(jf::histogram(big, 2, {0.0, 2.0}).hist.to_vector(), (std::vector<i64>{0, 1}));
}

// numpy's accumulation dtypes, the static ones.
TEST(DtypesBasics, ReductionDtypes) {
  const jf::array<std::uint8_t> u({200, 100});
  const jf::array<std::int8_t> s({100, 100});
  static_assert(std::is_same_v<decltype(jf::eval(jf::sum(u))), jf::array<std::uint64_t>>);
  static_assert(std::is_same_v<decltype(jf::eval(jf::sum(s))), jf::array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jf::eval(jf::max(u))), jf::array<std::uint8_t>>);
  static_assert(std::is_same_v<decltype(jf::eval(jf::mean(u))), jf::array<double>>);
  EXPECT_EQ(jf::eval(jf::sum(u)).item(), 300u);
  EXPECT_EQ(jf::eval(jf::sum(s)).item(), 200);
  EXPECT_EQ(jf::eval(jf::sum(u + u)).item(), 144u + 200u);  // the elements wrap (uint8), not the sum
}

// Jagged content of the new dtypes: element-wise, per-list reductions, Awkward's type string.
TEST_P(Dtypes, JaggedContent) {
  const jf::jagged<std::uint8_t> x(jf::array<i64>({0, 3, 3, 5}, dev()),
                                   jf::array<std::uint8_t>({250, 3, 4, 255, 1}, dev()));
  EXPECT_EQ(jf::type_string(x), "3 * var * uint8");
  const jf::jagged<std::uint8_t> y = jf::eval(x + 10);
  EXPECT_EQ(jf::flatten(y).to_vector(), (std::vector<std::uint8_t>{4, 13, 14, 9, 11}));  // wraps
  const jf::array<std::uint64_t> s = jf::eval(jf::sum(x, -1));
  EXPECT_EQ(s.to_vector(), (std::vector<std::uint64_t>{257, 0, 256}));
  const jf::option_array<std::uint8_t> m = jf::eval(jf::max(x, -1));
  EXPECT_EQ(m.valid().to_vector(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(m.values().to_vector()[0], 250);
  EXPECT_EQ(m.values().to_vector()[2], 255);
  EXPECT_EQ(jf::to_string(x), "[[250, 3, 4], [], [255, 1]]");
  EXPECT_EQ(jf::to_string(jf::sort(x)), "[[3, 4, 250], [], [1, 255]]");  // ak.sort
  EXPECT_EQ(jf::to_string(jf::argsort(x, -1, jf::sort_order::descending)), "[[0, 2, 1], [], [0, 1]]");
  const jf::jagged<std::int16_t> z(jf::array<i64>({0, 2, 3}, dev()), jf::array<std::int16_t>({-3, 7, 32767}, dev()));
  EXPECT_EQ(jf::eval(jf::sum(z * 2, -1)).to_vector(), (std::vector<i64>{8, -2}));  // 32767 * 2 wraps to -2 in int16
}

// Every other path that switches on the dtype: gathers, scatters, searchsorted, products,
// histograms, where, clip, scans along an axis, moments, masks (expected values: numpy 2.4's).
TEST_P(Dtypes, OtherPathsMatchNumpy) {
  using u8 = std::uint8_t;
  using i8 = std::int8_t;
  using u16 = std::uint16_t;
  using i16 = std::int16_t;
  const jf::device d = dev();
  const jf::array<u8> x({10, 20, 250}, d);
  EXPECT_EQ(jf::array<u8>(jf::take(x, jf::array<u8>({2, 0, 2}, d))).to_vector(), (std::vector<u8>{250, 10, 250}));
  EXPECT_EQ(jf::array<u8>(x(jf::array<i16>({-1, 1}, d))).to_vector(), (std::vector<u8>{250, 20}));
  const jf::array<u8> a = jf::array<u8>({250, 1, 2}, d);
  jf::add_at(a, jf::array<i8>({0, 0, 2}, d), 10);  // np.add.at: 250 + 10 + 10 wraps to 14
  EXPECT_EQ(a.to_vector(), (std::vector<u8>{14, 1, 12}));
  const jf::array<i8> p({1, 2, 3, 4}, d);
  jf::put(p, jf::array<u16>({3, 0}, d), jf::array<i8>({-128, 127}, d));
  EXPECT_EQ(p.to_vector(), (std::vector<i8>{127, 2, 3, -128}));
  // compared in int32, numpy's promotion of uint16 and int8
  EXPECT_EQ(jf::array<i64>(jf::searchsorted(jf::array<u16>({1, 5, 300, 65535}, d), jf::array<i8>({-1, 5, 100}, d)))
                .to_vector(),
            (std::vector<i64>{0, 1, 2}));
  const jf::array<i8> ma = jf::array<i8>({100, 100, 1, 2}, d).reshape({2, 2});
  const jf::array<i8> mb = jf::array<i8>({2, 0, 1, 1}, d).reshape({2, 2});
  EXPECT_EQ(jf::array<i8>(jf::matmul(ma, mb)).to_vector(), (std::vector<i8>{44, 100, 4, 2}));  // wraps in int8
  const jf::array<u16> mu =
      jf::matmul(jf::array<u8>({200, 3}, d).reshape({1, 2}), jf::array<u16>({400, 2}, d).reshape({2, 1}));
  EXPECT_EQ(mu.to_vector(), (std::vector<u16>{14470}));
  EXPECT_EQ(
      jf::einsum("ij,j->i", jf::array<i16>({300, 300}, d).reshape({1, 2}), jf::array<i16>({200, 1}, d)).to_vector(),
      (std::vector<i16>{-5236}));
  const auto h = jf::histogram(jf::array<u8>({1, 2, 3, 250}, d), 3);
  EXPECT_EQ(h.hist.to_vector(), (std::vector<i64>{3, 0, 1}));
  EXPECT_EQ(h.bin_edges.to_vector(), (std::vector<double>{1, 84, 167, 250}));
  EXPECT_EQ(jf::bincount(jf::array<u8>({1, 2, 2, 5}, d)).to_vector(), (std::vector<i64>{0, 1, 2, 0, 0, 1}));
  const jf::array<bool> c({true, false, true}, d);
  const jf::array<i16> w = jf::where(c, jf::array<u8>({200, 1, 2}, d), jf::array<i8>({-1, -2, -3}, d));
  EXPECT_EQ(w.to_vector(), (std::vector<i16>{200, -2, 2}));
  const jf::array<u16> cl = jf::clip(jf::array<u16>({5, 100, 300}, d), 10, 200);
  EXPECT_EQ(cl.to_vector(), (std::vector<u16>{10, 100, 200}));
  // numpy's _clip: Python int bounds beyond an integer x's dtype are dropped (no OverflowError)
  const jf::array<u8> cu = jf::clip(jf::array<u8>({0, 7, 255}, d), -1, 300);
  EXPECT_EQ(cu.to_vector(), (std::vector<u8>{0, 7, 255}));
  const jf::array<i8> ci = jf::clip(jf::array<i8>({-128, 7, 127}, d), -200, 5);
  EXPECT_EQ(ci.to_vector(), (std::vector<i8>{-128, 5, 5}));
  // numpy's clip resolves its dtype from all three operands: a float hi makes it float64 and the
  // Python int lo is a float64 there, not an int16 out of bounds (fuzz seed 112822 case 19)
  const jf::array<double> cf = jf::clip(jf::array<i16>({-5, 3, 40}, d), 32768, 2.0);
  EXPECT_EQ(cf.to_vector(), (std::vector<double>{2, 2, 2}));
  const jf::array<float> cg = jf::clip(jf::array<i16>({-5, 3, 40}, d), -40000, jf::array<float>({2.5f, 2.5f, 50}, d));
  EXPECT_EQ(cg.to_vector(), (std::vector<float>{-5, 2.5f, 40}));
  const jf::array<i16> m = jf::array<i16>({30000, 30000, 5, -1, 2, 3}, d).reshape({2, 3});
  EXPECT_EQ(jf::array<i64>(jf::cumsum(m, 1)).to_vector(), (std::vector<i64>{30000, 60000, 60005, -1, 1, 4}));
  EXPECT_EQ(jf::array<std::uint64_t>(jf::cumprod(jf::array<u8>({200, 2, 3}, d))).to_vector(),
            (std::vector<std::uint64_t>{200, 400, 1200}));
  const jf::array<std::uint32_t> v({1, 2, 3, 4}, d);
  EXPECT_EQ(jf::eval(jf::var(v)).item(), 1.25);
  EXPECT_EQ(jf::eval(jf::std(v)).item(), std::sqrt(1.25));
  EXPECT_EQ(jf::eval(jf::mean(jf::array<i8>({1, 2, 3, 5}, d).reshape({2, 2}), 0)).to_vector(),
            (std::vector<double>{2, 3.5}));
  EXPECT_EQ(jf::eval(jf::nanmax(jf::array<i8>({-5, 3, -128}, d))).item(), 3);
  EXPECT_EQ(jf::eval(jf::any(jf::array<u8>({0, 0, 2}, d))).item(), true);
  EXPECT_EQ(jf::eval(jf::all(jf::array<u8>({0, 1, 2}, d))).item(), false);
  const jf::array<u16> sel({5, 0, 7}, d);
  EXPECT_EQ(jf::array<u16>(sel(sel > 4)).to_vector(), (std::vector<u16>{5, 7}));
  EXPECT_EQ(jf::flatnonzero(jf::array<i8>({0, -1, 0, 3}, d)).to_vector(), (std::vector<i64>{1, 3}));
  EXPECT_EQ(jf::sort(jf::array<u8>({3, 1, 2, 200, 100, 0}, d).reshape({2, 3}), 1).to_vector(),
            (std::vector<u8>{1, 2, 3, 0, 100, 200}));
  // joining and views move elements of 1 and 2 bytes
  const jf::array<i16> j1({1, -2}, d), j2({300}, d);
  EXPECT_EQ(jf::concatenate({j1, j2}).to_vector(), (std::vector<i16>{1, -2, 300}));
  EXPECT_EQ(jf::roll(jf::concatenate({j1, j2}), 1).to_vector(), (std::vector<i16>{300, 1, -2}));
  EXPECT_EQ(jf::tile(jf::array<u8>({7, 9}, d), {2}).to_vector(), (std::vector<u8>{7, 9, 7, 9}));
  EXPECT_EQ(jf::flip(jf::array<u8>({7, 9, 11}, d)).to_vector(), (std::vector<u8>{11, 9, 7}));
  EXPECT_EQ(jf::stack({jf::array<u16>({1, 2}, d), jf::array<u16>({3, 4}, d)}, 1).to_vector(),
            (std::vector<u16>{1, 3, 2, 4}));
}

// A user element function of the new dtypes (the kernel's parameter types, the CPU callable's);
// an Eigen matrix of uint16 viewed without a copy.
TEST_P(Dtypes, UserFunctions) {
  const jf::elementwise<std::uint8_t(std::uint8_t, std::int16_t)> add_low(
      "add_low", "return static_cast<unsigned char>(x + (y & 0xff));",
      [](std::uint8_t x, std::int16_t y) { return static_cast<std::uint8_t>(x + (y & 0xff)); });
  const jf::array<std::uint8_t> x({250, 1}, dev());
  const jf::array<std::int16_t> y({0x107, -1}, dev());
  EXPECT_EQ(jf::array<std::uint8_t>(add_low(x, y)).to_vector(), (std::vector<std::uint8_t>{1, 0}));
}
TEST(DtypesBasics, EigenViews) {
  Eigen::Matrix<std::uint16_t, 2, 3> m;
  m << 1, 2, 3, 65535, 5, 6;
  const jf::array<std::uint16_t> a = jf::from_eigen(m);
  EXPECT_EQ(static_cast<const void*>(a.data()), static_cast<const void*>(m.data()));
  EXPECT_EQ(jf::eval(jf::sum(a, 1)).to_vector(), (std::vector<std::uint64_t>{6, 65546}));
  EXPECT_EQ((jf::eigen_view(jf::array<std::uint16_t>(a + 1))(1, 0)), 0);  // wraps
}

INSTANTIATE_TEST_SUITE_P(Backends, Dtypes, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// ---- jf::cuda against jf::cpu on fresh random inputs ---------------------------------------------
template <class T>
std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  auto& r = test_support::rng();
  for (auto& e : v) {
    const std::uint64_t w = r();
    e = (w & 7) == 0   ? std::numeric_limits<T>::max()
        : (w & 7) == 1 ? std::numeric_limits<T>::min()
                       : static_cast<T>(w >> 3);
  }
  return v;
}

// Every result of a set of expressions over x (T) and y (U) on both backends, bit for bit.
template <class T, class U>
void gpu_matches_cpu(std::int64_t n) {
  SCOPED_TRACE(std::string(jf::name(jf::dtype_v<T>)) + ", " + std::string(jf::name(jf::dtype_v<U>)) + ", n " +
               std::to_string(n));
  const std::vector<T> xv = random_values<T>(static_cast<std::size_t>(n));
  const std::vector<U> yv = random_values<U>(static_cast<std::size_t>(n));
  auto results = [&](jf::device dev) {
    const jf::array<T> x(xv, dev);
    const jf::array<U> y(yv, dev);
    const jf::array<T> xr = x(jf::range(jf::range::none, jf::range::none, -1));  // reversed view
    const jf::array<U> ys = y(jf::range(0, jf::range::none, 2));                 // strided view
    const i64 h = ys.size();
    std::vector<std::vector<std::uint64_t>> bits;  // every result is exact: compared as bits
    auto keep = [&]<class R>(const jf::array<R>& r) {
      std::vector<std::uint64_t> b;
      for (R e : r.to_vector()) {
        std::uint64_t w = 0;
        std::memcpy(&w, &e, sizeof e);
        b.push_back(w);
      }
      bits.push_back(std::move(b));
    };
    auto poisoned = [&]<class R>(auto&& e, i64 len) {
      jf::array<R> r = jf::full<R>({len}, R(1), dev);
      r = e;
      return r;
    };
    keep(poisoned.template operator()<jf::value_type_t<decltype(x * y + 3)>>(x * y + 3, n));
    using Q = jf::value_type_t<decltype(jf::floor_divide(xr, y) % (y | 1))>;
    if constexpr (!std::is_floating_point_v<Q>)  // (float NaNs may differ in their payload bits)
      keep(poisoned.template operator()<Q>(jf::floor_divide(xr, y) % (y | 1), n));
    keep(poisoned.template operator()<bool>(x < y, n));  // mixed signs: numpy's comparison
    keep(poisoned.template operator()<T>((-xr) >> 3, n));
    keep(jf::eval(jf::astype<T>(ys * 2 - 1)));
    keep(jf::eval(jf::sum(x * 2 + 1)));
    keep(jf::eval(jf::cumsum(x)));
    keep(jf::sort(xr));
    if (n > 0) {  // (min, max and argmax of nothing raise)
      keep(jf::eval(jf::max(xr)));
      keep(jf::eval(jf::min(x(jf::range(0, h)) + ys)));
      keep(jf::eval(jf::argmax(jf::abs(x))));
      const i64 rows = n % 7 == 0 ? 7 : 1;
      const jf::array<T> m = x.reshape({rows, n / rows});
      keep(jf::eval(jf::sum(m.transpose(), 1)));  // a transposed view, reduced along rows
      keep(jf::eval(jf::prod(m, 0)));
    }
    return bits;
  };
  const auto cpu = results(jf::cpu);
  const auto gpu = results(jf::cuda);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t k = 0; k < cpu.size(); ++k) EXPECT_EQ(gpu[k], cpu[k]) << "result #" << k;
}

TEST(DtypesGpu, MatchesCpuOnRandomInputs) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  for (i64 n : {i64{0}, i64{1}, i64{1001}, i64{70007}, (i64{1} << 24) + 7}) {
    gpu_matches_cpu<std::int8_t, std::int8_t>(n);
    gpu_matches_cpu<std::uint8_t, std::int8_t>(n);
    gpu_matches_cpu<std::int16_t, std::uint16_t>(n);
    gpu_matches_cpu<std::uint16_t, std::uint16_t>(n);
    gpu_matches_cpu<std::uint32_t, std::int32_t>(n);
    gpu_matches_cpu<std::uint64_t, std::int64_t>(n);
    gpu_matches_cpu<std::uint64_t, std::uint64_t>(n);
    if (HasFailure()) return;
  }
}

}  // namespace
