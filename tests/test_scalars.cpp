// Weak C++ scalars at the edges of the integer dtypes (issue 7, item 7) and the element values
// where jetfuse used to differ from numpy (item 8). Expected values are numpy 2.4's. Runs on
// jf::cpu, and on jf::cuda when present (both compute with scalar_ops.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>

#ifdef JF_HAVE_CUDA
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#endif
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {
using test_support::message_of;

std::vector<jf::device> devices() {
  std::vector<jf::device> d{jf::cpu};
  if (jf::cuda_available()) d.push_back(jf::cuda);
  return d;
}

constexpr std::uint64_t two_63 = std::uint64_t{1} << 63;
constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t two_40 = std::int64_t{1} << 40;

// Same value and the same sign of zero (NaN equals NaN).
template <class T>
bool same(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// ---- item 7: scalars ---------------------------------------------------------------------------

TEST(WeakScalars, Unsigned64BitValuesKeepTheirValue) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    jf::array<double> x({0.0, 1.0}, dev);
    // numpy: np.array([0., 1.]) + 2**63 == [9.223372036854775808e18] * 2 (was -9.22e18).
    EXPECT_EQ(jf::eval(x + two_63).to_vector(), (std::vector<double>{9223372036854775808.0, 9223372036854775808.0}));
    jf::array<float> y({0.0f}, dev);
    EXPECT_EQ(jf::eval(y + u64_max).to_vector()[0], 18446744073709551616.0f);
    jf::array<std::int64_t> i({0, 1}, dev);
    // In range: as any integer.
    EXPECT_EQ(jf::eval(i + std::uint64_t{5}).to_vector(), (std::vector<std::int64_t>{5, 6}));
    // Out of int64's range: numpy raises OverflowError; jetfuse dtype_error (was [0, 1]).
    try {
      jf::array<std::int64_t> r = i + u64_max;
      FAIL() << "no exception";
    } catch (const jf::dtype_error& e) {
      EXPECT_NE(std::string(e.what()).find("18446744073709551615"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("out of bounds for int64"), std::string::npos) << e.what();
    }
    EXPECT_THROW(jf::eval(i * two_63), jf::dtype_error);
  }
}

TEST(WeakScalars, ComparisonsWithOutOfRangeIntegersAreExact) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    jf::array<std::int32_t> a({std::numeric_limits<std::int32_t>::min(), 0, std::numeric_limits<std::int32_t>::max()},
                              dev);
    const std::vector<bool> t(3, true), f(3, false);
    // numpy 2: int32_array < 2**40 is all True; == all False; != all True (no OverflowError).
    EXPECT_EQ(jf::eval(a < two_40).to_vector(), t);
    EXPECT_EQ(jf::eval(a <= two_40).to_vector(), t);
    EXPECT_EQ(jf::eval(a > two_40).to_vector(), f);
    EXPECT_EQ(jf::eval(a >= two_40).to_vector(), f);
    EXPECT_EQ(jf::eval(a == two_40).to_vector(), f);
    EXPECT_EQ(jf::eval(a != two_40).to_vector(), t);
    EXPECT_EQ(jf::eval(a > -two_40).to_vector(), t);
    EXPECT_EQ(jf::eval(a <= -two_40).to_vector(), f);
    EXPECT_EQ(jf::eval(two_40 > a).to_vector(), t);  // the scalar on the left
    EXPECT_EQ(jf::eval(-two_40 >= a).to_vector(), f);
    EXPECT_EQ(jf::eval(jf::less(a, two_40)).to_vector(), t);
    // The same expression type with an in-range value compares as usual (another kernel variant).
    EXPECT_EQ(jf::eval(a < std::int64_t{1}).to_vector(), (std::vector<bool>{true, true, false}));
    EXPECT_EQ(jf::eval(a == std::int64_t{0}).to_vector(), (std::vector<bool>{false, true, false}));
    // Inside a larger expression, and on a strided view.
    jf::array<std::int32_t> m = jf::arange<std::int32_t>(0, 6, 1, dev).reshape({2, 3});
    EXPECT_EQ(jf::eval((m.transpose() != two_40) && (m.transpose() < 4)).to_vector(),
              (std::vector<bool>{true, true, true, false, true, false}));
    jf::array<std::int64_t> b({std::numeric_limits<std::int64_t>::max(), -1}, dev);
    EXPECT_EQ(jf::eval(b < two_63).to_vector(), (std::vector<bool>{true, true}));
    EXPECT_EQ(jf::eval(b >= u64_max).to_vector(), (std::vector<bool>{false, false}));
    // A bool array is compared in int64, as numpy does; numpy raises OverflowError past int64.
    jf::array<bool> c({true, false}, dev);
    EXPECT_THROW(jf::eval(c < two_63), jf::dtype_error);
    EXPECT_EQ(jf::eval(c < two_40).to_vector(), (std::vector<bool>{true, true}));
    // Only comparisons: arithmetic, minimum and bitwise operations still raise (numpy too).
    EXPECT_THROW(jf::eval(a + two_40), jf::dtype_error);
    EXPECT_THROW(jf::eval(jf::minimum(a, two_40)), jf::dtype_error);
    EXPECT_THROW(jf::eval(a & two_40), jf::dtype_error);
  }
}

TEST(WeakScalars, LogicalOperationsTakeIntegersThatFitInt64) {
  // numpy converts a Python int operand of logical_and/or/xor to int64 (C long) whatever the
  // array: 2**63 raises OverflowError, 2**40 with an int32 array does not (found by the fuzzer).
  jf::array<bool> b({true, false});
  jf::array<std::int32_t> i({1, 0});
  jf::array<float> f({1.0f, 0.0f});
  const std::uint64_t big = std::uint64_t(1) << 63;
  EXPECT_THROW(jf::array<bool>(jf::logical_or(b, big)), jf::dtype_error);
  EXPECT_THROW(jf::array<bool>(jf::logical_and(f, big)), jf::dtype_error);
  EXPECT_THROW(jf::array<bool>(jf::logical_and(big, i)), jf::dtype_error);
  jf::array<bool> r = jf::logical_and(i, std::int64_t(1) << 40);
  EXPECT_EQ(r.to_vector(), (std::vector<bool>{true, false}));
  jf::array<bool> s = jf::logical_or(b, 0);
  EXPECT_EQ(s.to_vector(), (std::vector<bool>{true, false}));
}

TEST(WeakScalars, WhereRaisesForOutOfRangeIntegersAsNumpy) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    jf::array<bool> c({true, false}, dev);
    jf::array<std::int32_t> a({1, 2}, dev);
    // numpy 2.5 (numpy PR 30803; 2.4 wrapped the value silently): np.where(c, int32_array, 2**40)
    // and np.where(c, -1, uint8_array) raise OverflowError; so do assignments of such a value.
    EXPECT_THROW(jf::eval(jf::where(c, a, two_40)), jf::dtype_error);
    EXPECT_THROW(jf::eval(jf::where(c, std::int64_t{1} << 31, a)), jf::dtype_error);
    EXPECT_THROW(jf::eval(jf::where(c, -1, jf::array<std::uint8_t>({1, 2}, dev))), jf::dtype_error);
    jf::array<std::int64_t> b({1, 2}, dev);
    EXPECT_THROW(jf::eval(jf::where(c, b, two_63)), jf::dtype_error);
    try {
      jf::eval(jf::where(c, a, two_40));
    } catch (const jf::dtype_error& e) {
      EXPECT_NE(std::string(e.what()).find("Python integer 1099511627776 out of bounds for int32"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(a.to_vector(), (std::vector<std::int32_t>{1, 2}));  // operands untouched
    // In range (the extremes included) and into a dtype that holds it: the value itself.
    EXPECT_EQ(jf::eval(jf::where(c, a, std::numeric_limits<std::int32_t>::min())).to_vector(),
              (std::vector<std::int32_t>{1, std::numeric_limits<std::int32_t>::min()}));
    EXPECT_EQ(jf::eval(jf::where(c, jf::array<std::uint8_t>({7, 8}, dev), 255)).to_vector(),
              (std::vector<std::uint8_t>{7, 255}));
    EXPECT_EQ(jf::eval(jf::where(c, b, two_40)).to_vector(), (std::vector<std::int64_t>{1, two_40}));
    jf::array<double> d({1.5, 2.5}, dev);
    EXPECT_EQ(jf::eval(jf::where(c, d, two_63)).to_vector(), (std::vector<double>{1.5, 9223372036854775808.0}));
  }
}

TEST(WeakScalars, MaskAssignmentRaisesForOutOfRangeIntegersAsNumpy) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    // numpy (2.4 and 2.5): x[mask] = 2**40 of an int32 x raises OverflowError, x unchanged; a float
    // is cast unsafely (1.5 -> 1); a bool x takes any integer as its truth.
    jf::array<std::int32_t> x({1, 2, 3}, dev);
    const jf::array<bool> m({true, false, true}, dev);
    EXPECT_THROW(x(m) = two_40, jf::dtype_error);
    EXPECT_THROW(x(x > 1) = -two_40, jf::dtype_error);
    jf::array<std::uint8_t> u({1, 2}, dev);
    try {
      u(jf::array<bool>({true, false}, dev)) = -1;
      ADD_FAILURE() << "u(mask) = -1 of a uint8 u did not throw";
    } catch (const jf::dtype_error& e) {
      EXPECT_EQ(std::string(e.what()), "Python integer -1 out of bounds for uint8");
    }
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{1, 2, 3}));  // untouched
    EXPECT_EQ(u.to_vector(), (std::vector<std::uint8_t>{1, 2}));
    x(m) = std::numeric_limits<std::int32_t>::min();
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 2,
                                                        std::numeric_limits<std::int32_t>::min()}));
    x(m) = 1.5;
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{1, 2, 1}));
    jf::array<bool> b({false, false}, dev);
    b(jf::array<bool>({true, false}, dev)) = 2;
    EXPECT_EQ(b.to_vector(), (std::vector<bool>{true, false}));
    jf::array<double> d({0.5, 0.5}, dev);
    d(jf::array<bool>({false, true}, dev)) = two_63;
    EXPECT_EQ(d.to_vector(), (std::vector<double>{0.5, 9223372036854775808.0}));
  }
}

TEST(WeakScalars, AssignmentConvertsAsNumpy) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    // numpy: x[...] = v converts v as a Python scalar: an integer outside x's integer dtype raises
    // OverflowError; a float is truncated, then checked (NaN: ValueError; inf, too large:
    // OverflowError). Nothing is written on failure.
    jf::array<std::int32_t> x({1, 2, 3}, dev);
    EXPECT_THROW(x = two_40, jf::dtype_error);
    EXPECT_THROW(x(jf::range(0, 2)) = -two_40, jf::dtype_error);
    EXPECT_THROW(x(1) = two_40, jf::dtype_error);
    EXPECT_THROW(x = 3e9, jf::dtype_error);
    EXPECT_THROW(x(jf::range(1, 3)) = std::nan(""), jf::value_error);
    EXPECT_THROW(x = -INFINITY, jf::dtype_error);
    EXPECT_EQ(message_of<jf::dtype_error>([&] { x = 1e20; }), "Python int too large to convert to C long");
    EXPECT_EQ(message_of<jf::dtype_error>([&] { x = 3e9; }), "Python integer 3000000000 out of bounds for int32");
    EXPECT_EQ(message_of<jf::value_error>([&] { x = std::nan(""); }), "cannot convert float NaN to integer");
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{1, 2, 3}));  // untouched
    x(jf::range(0, 2)) = std::int64_t{-7};
    x(2) = 2.9;
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{-7, -7, 2}));
    x = -2147483648.9;  // truncated to INT_MIN: in range
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>(3, std::numeric_limits<std::int32_t>::min())));
    jf::array<std::uint8_t> u({1, 2}, dev);
    EXPECT_EQ(message_of<jf::dtype_error>([&] { u = -1; }), "Python integer -1 out of bounds for uint8");
    u = 255;
    EXPECT_EQ(u.to_vector(), (std::vector<std::uint8_t>{255, 255}));
    jf::array<double> d({0.5, 0.5}, dev);
    d(1) = two_63;
    EXPECT_EQ(d.to_vector(), (std::vector<double>{0.5, 9223372036854775808.0}));
    jf::array<bool> b({false, false}, dev);
    b = 2;
    EXPECT_EQ(b.to_vector(), (std::vector<bool>{true, true}));
  }
}

TEST(WeakScalars, FullConvertsAsNumpy) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    // numpy 2.4: np.full(2, 2**40, dtype=np.int32) and np.full_like(int32_x, 2**40) raise
    // OverflowError; a float is cast unsafely (1.5 -> 1, NaN and 1e20 -> INT_MIN on x86-64).
    const jf::array<std::int32_t> z({0, 0}, dev);
    EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::full<std::int32_t>({2}, two_40, dev); }),
              "Python integer 1099511627776 out of bounds for int32");
    EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::full_like(z, two_40); }),
              "Python integer 1099511627776 out of bounds for int32");
    EXPECT_EQ(message_of<jf::dtype_error>([&] { (void)jf::full<std::uint8_t>({2}, -1, dev); }),
              "Python integer -1 out of bounds for uint8");
    EXPECT_EQ(jf::full_like(z, 1.5).to_vector(), (std::vector<std::int32_t>{1, 1}));
    EXPECT_EQ(jf::full<std::int32_t>({2}, std::nan(""), dev).to_vector(),
              (std::vector<std::int32_t>(2, std::numeric_limits<std::int32_t>::min())));
    EXPECT_EQ(jf::full<std::int32_t>({2}, 1e20, dev).to_vector(),
              (std::vector<std::int32_t>(2, std::numeric_limits<std::int32_t>::min())));
    EXPECT_EQ(jf::full<std::int64_t>({1}, two_40, dev).to_vector(), (std::vector<std::int64_t>{two_40}));
    EXPECT_EQ(jf::full<double>({1}, two_63, dev).to_vector(), (std::vector<double>{9223372036854775808.0}));
  }
}

// An array handle that claims to be on jf::cuda, for jf::explain only (it never reads the data,
// so no GPU is needed): the CUDA lowering, passes and code generation run on the host.
template <class T>
jf::array<T> fake_cuda_array(std::int64_t n) {
  alignas(64) static unsigned char storage[64];
  auto buf = std::make_shared<jf::detail::buffer>();
  buf->ptr = storage;
  buf->bytes = static_cast<std::size_t>(n) * sizeof(T);
  buf->dev = jf::cuda;
  return jf::array<T>(jf::array_base(buf, jf::dtype_v<T>, jf::shape_t{n}, jf::shape_t{1}, 0));
}

TEST(WeakScalars, CudaLoweringWritesAKnownComparisonAsAConstant) {
  const jf::array<std::int32_t> a = fake_cuda_array<std::int32_t>(3);
  const std::string known = jf::explain(a < two_40);
  const std::string after = known.substr(known.find("--- IR after the passes ---"));
  const std::string ir_after = after.substr(0, after.find("--- plan"));
  EXPECT_NE(ir_after.find("constant bool true"), std::string::npos) << known;
  EXPECT_EQ(ir_after.find("less"), std::string::npos) << known;
  // In range: a comparison with the value as a kernel parameter.
  const std::string usual = jf::explain(a < std::int64_t{5});
  EXPECT_NE(usual.find("less bool"), std::string::npos) << usual;
  // A null operand is refused before anything else on this backend too.
  EXPECT_THROW(jf::explain(a + jf::array<std::int32_t>{}), jf::value_error);
#ifdef JF_HAVE_CUDA
  // The generated kernel compiles (NVRTC needs no GPU).
  const std::string src = known.substr(known.find("// ---- jetfuse kernel"));
  EXPECT_FALSE(jf::cuda_rt::nvrtc_compile(std::string(jf::ir::scalar_ops_source()) + src, "sm_90", {}).empty());
#endif
}

// ---- item 8: values that used to differ from numpy ---------------------------------------------

template <class T>
void check_power_fast_paths(jf::device dev) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> v = {T(-0.0), -inf, T(0), inf, T(-1), T(4), nan, T(2), T(1e-30)};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (int k = 0; k < 4000; ++k) v.push_back(static_cast<T>(u(rng)));
  jf::array<T> x(v, dev);
  const std::vector<T> half = jf::eval(jf::power(x, 0.5)).to_vector();
  const std::vector<T> minus_one = jf::eval(jf::power(x, -1.0)).to_vector();
  const std::vector<T> two = jf::eval(jf::power(x, 2)).to_vector();
  // numpy takes these fast paths for a scalar exponent on every loop: sqrt, 1/x, x*x.
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_TRUE(same(half[i], std::sqrt(v[i]))) << v[i] << " ** 0.5 = " << half[i];
    ASSERT_TRUE(same(minus_one[i], T(1) / v[i])) << v[i] << " ** -1 = " << minus_one[i];
    ASSERT_TRUE(same(two[i], v[i] * v[i])) << v[i] << " ** 2 = " << two[i];
  }
  // numpy: np.power(np.array([-0.0, -inf]), 0.5) == [-0.0, nan] (was [0, inf]).
  EXPECT_TRUE(same(half[0], T(-0.0)));
  EXPECT_TRUE(std::isnan(half[1]));
}

TEST(NumpyValues, PowerFastPaths) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    check_power_fast_paths<double>(dev);
    check_power_fast_paths<float>(dev);
  }
}

template <class T>
void check_min_max_zeros(jf::device dev) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  jf::array<T> a({T(0.0), T(-0.0), nan, T(1)}, dev);
  jf::array<T> b({T(-0.0), T(0.0), T(1), nan}, dev);
  // numpy: minimum/maximum return the second of two equal values (on every loop); NaN propagates.
  const std::vector<T> want_min = {T(-0.0), T(0.0), nan, nan};
  const std::vector<T> mn = jf::eval(jf::minimum(a, b)).to_vector();
  const std::vector<T> mx = jf::eval(jf::maximum(a, b)).to_vector();
  // fmin/fmax: the same for zeros (numpy's strided and vector loops), NaN ignored.
  const std::vector<T> want_fmin = {T(-0.0), T(0.0), T(1), T(1)};
  const std::vector<T> fmn = jf::eval(jf::fmin(a, b)).to_vector();
  const std::vector<T> fmx = jf::eval(jf::fmax(a, b)).to_vector();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(same(mn[i], want_min[i])) << "minimum " << i << ": " << mn[i];
    EXPECT_TRUE(same(mx[i], want_min[i])) << "maximum " << i << ": " << mx[i];
    EXPECT_TRUE(same(fmn[i], want_fmin[i])) << "fmin " << i << ": " << fmn[i];
    EXPECT_TRUE(same(fmx[i], want_fmin[i])) << "fmax " << i << ": " << fmx[i];
  }
  // With a scalar: np.minimum(np.array([0.0, -0.0]), -0.0) == [-0.0, -0.0].
  const std::vector<T> s = jf::eval(jf::minimum(a, -0.0)).to_vector();
  EXPECT_TRUE(same(s[0], T(-0.0)) && same(s[1], T(-0.0)));
}

TEST(NumpyValues, MinimumMaximumOfSignedZeros) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    check_min_max_zeros<double>(dev);
    check_min_max_zeros<float>(dev);
  }
}

}  // namespace
