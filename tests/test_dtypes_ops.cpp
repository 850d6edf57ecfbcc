// Element-wise operations on the 8- and 16-bit and unsigned integer dtypes against numpy's values
// (tests/data/dtypes_table.txt, written by tests/data/gen_dtypes_table.py): wrap-around, division
// and remainder by zero, INT_MIN // -1, shifts by the width or more, mixed signed and unsigned
// operands (numpy's promotion and its exact uint64/int64 comparisons), bool arithmetic numpy
// computes in int8. Every case on jf::cpu and, where there is a GPU, jf::cuda; the result dtype is
// also numpy's. test_dtypes.cpp has casts, reductions, scalars and the rest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.hpp"

namespace {

using jf::op;
using test_support::parse_words;
using test_support::same;
using test_support::values_of;


template <class T>
jf::array<T> array_of(const std::vector<std::string>& words, jf::device dev) {
  return jf::array<T>(parse_words<T>(values_of(words)), dev);
}

struct table_case {
  std::vector<std::string> h;               // header words: kind, op, dtypes, ...
  std::vector<std::vector<std::string>> v;  // the three value lines
};
const std::vector<table_case>& cases() {
  static const std::vector<table_case> c = [] {
    std::vector<table_case> r;
    for (auto& t : test_support::read_table(JF_TEST_DATA_DIR "/dtypes_table.txt", 3)) r.push_back({t.header, t.lines});
    return r;
  }();
  return c;
}

// ---- binary operations: one instantiation per (operation, dtype pair) of the table ---------------
#define JF_TABLE_BINARY(X)                                                                                        \
  X(add)                                                                                                          \
  X(subtract) X(multiply) X(true_divide) X(floor_divide) X(remainder) X(minimum) X(maximum) X(equal) X(not_equal) \
      X(less) X(less_equal) X(greater) X(greater_equal) X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(left_shift) \
          X(right_shift) X(power)

template <op O, class A, class B>
void check_binary(const table_case& c, jf::device dev) {
  constexpr jf::op_rule rule = jf::info(O).rule;
  if constexpr (!jf::accepts(rule, jf::compute_dtype(rule, jf::dtype_v<A>, jf::dtype_v<B>))) {
    FAIL() << c.h[1] << " is not defined for " << c.h[2] << ", " << c.h[3] << " (numpy has a loop)";
  } else {
    const jf::array<A> x = array_of<A>(c.v[0], dev);
    const jf::array<B> y = array_of<B>(c.v[1], dev);
    auto e = jf::make_call<jf::fn<O>>(x, y);
    using R = jf::value_type_t<decltype(e)>;
    ASSERT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.h[4]) << c.h[1] << "(" << c.h[2] << ", " << c.h[3] << ")";
    jf::array<R> r = jf::full<R>({static_cast<std::int64_t>(x.size())}, R(1), dev);  // poisoned
    r = e;
    EXPECT_TRUE(same(r.to_vector(), parse_words<R>(values_of(c.v[2]))))
        << c.h[1] << "(" << c.h[2] << ", " << c.h[3] << ") on " << (dev.kind == jf::device_kind::cpu ? "cpu" : "cuda");
  }
}

template <class A, class B>
void binary_of(const table_case& c, jf::device dev) {
  const std::string& o = c.h[1];
#define JF_X(name) \
  if (o == #name) return check_binary<op::name, A, B>(c, dev);
  JF_TABLE_BINARY(JF_X)
#undef JF_X
  FAIL() << "no operation " << o;
}

// The dtype pairs of the table (gen_dtypes_table.py's SAME, MIXED, WITH_FLOAT and the others).
using pairs =
    std::tuple<std::pair<std::int8_t, std::int8_t>, std::pair<std::int16_t, std::int16_t>,
               std::pair<std::uint8_t, std::uint8_t>, std::pair<std::uint16_t, std::uint16_t>,
               std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>,
               std::pair<std::int8_t, std::uint8_t>, std::pair<std::uint8_t, std::int16_t>,
               std::pair<std::int16_t, std::uint16_t>, std::pair<std::uint32_t, std::int32_t>,
               std::pair<std::int64_t, std::uint32_t>, std::pair<std::uint64_t, std::int64_t>,
               std::pair<std::int8_t, std::uint64_t>, std::pair<std::uint16_t, std::int64_t>,
               std::pair<std::int16_t, float>, std::pair<std::uint8_t, float>, std::pair<std::uint32_t, float>,
               std::pair<std::uint64_t, double>, std::pair<std::int64_t, std::uint64_t>, std::pair<bool, bool>>;

void binary(const table_case& c, jf::device dev) {
  bool found = false;
  std::apply(
      [&](auto... p) {
        (
            [&] {
              using A = typename decltype(p)::first_type;
              using B = typename decltype(p)::second_type;
              if (found || c.h[2] != jf::name(jf::dtype_v<A>) || c.h[3] != jf::name(jf::dtype_v<B>)) return;
              found = true;
              binary_of<A, B>(c, dev);
            }(),
            ...);
      },
      pairs{});
  if (!found) ADD_FAILURE() << "no dtype pair " << c.h[2] << ", " << c.h[3] << " in the test";
}

// ---- unary operations ----------------------------------------------------------------------------
#define JF_TABLE_UNARY(X) X(negative) X(absolute) X(square) X(reciprocal) X(sign) X(invert) X(floor) X(sqrt)

template <op O, class A>
void check_unary(const table_case& c, jf::device dev) {
  if constexpr (!jf::accepts(jf::info(O).rule, jf::compute_dtype(jf::info(O).rule, jf::dtype_v<A>))) {
    FAIL() << c.h[1] << " is not defined for " << c.h[2];
  } else {
    const jf::array<A> x = array_of<A>(c.v[0], dev);
    auto e = jf::make_call<jf::fn<O>>(x);
    using R = jf::value_type_t<decltype(e)>;
    ASSERT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.h[3]) << c.h[1] << "(" << c.h[2] << ")";
    const jf::array<R> r = e;
    EXPECT_TRUE(same(r.to_vector(), parse_words<R>(values_of(c.v[1])))) << c.h[1] << "(" << c.h[2] << ")";
  }
}

void unary(const table_case& c, jf::device dev) {
  const std::string& o = c.h[1];
  test_support::with_any_dtype(c.h[2], [&]<class A>() {
#define JF_X(name) \
  if (o == #name) return check_unary<op::name, A>(c, dev);
    JF_TABLE_UNARY(JF_X)
#undef JF_X
    FAIL() << "no operation " << o;
  });
}

class DtypeOps : public test_support::on_backends {};

TEST_P(DtypeOps, BinaryMatchNumpy) {
  int n = 0;
  for (const table_case& c : cases()) {
    if (c.h[0] != "binary") continue;
    binary(c, dev());
    ++n;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(n, 300);
}

TEST_P(DtypeOps, UnaryMatchNumpy) {
  int n = 0;
  for (const table_case& c : cases()) {
    if (c.h[0] != "unary") continue;
    unary(c, dev());
    ++n;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(n, 40);
}

// Wrap-around, spelled out (the table has these among many).
TEST_P(DtypeOps, WrapAround) {
  const jf::array<std::int8_t> a({127, -128}, dev());
  EXPECT_EQ(jf::array<std::int8_t>(a + 1).to_vector(), (std::vector<std::int8_t>{-128, -127}));
  EXPECT_EQ(jf::array<std::int8_t>(-a).to_vector(), (std::vector<std::int8_t>{-127, -128}));
  const jf::array<std::uint8_t> u({0, 255}, dev());
  EXPECT_EQ(jf::array<std::uint8_t>(u - 1).to_vector(), (std::vector<std::uint8_t>{255, 254}));
  EXPECT_EQ(jf::array<std::uint8_t>(-u).to_vector(), (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(jf::array<std::uint8_t>(u * u).to_vector(), (std::vector<std::uint8_t>{0, 1}));
  const jf::array<std::uint16_t> w({65535}, dev());
  EXPECT_EQ(jf::array<std::uint16_t>(w * w).to_vector(), (std::vector<std::uint16_t>{1}));  // no int overflow
}

// Every value of int8 and int16 through a wrapping operation whose result a signed operation then
// reads. NVRTC once narrowed -x to a 16-bit negation and read -(-32768) as +32768 afterwards
// ((-x) >> 3 gave 4096 for numpy's -4096): scalar_ops.hpp's wrap_to. Expected values from plain
// C++ on ints (conversion to a narrower signed type is modular since C++20).
template <class T>
void wrapped_results_feed_signed_uses(jf::device dev) {
  SCOPED_TRACE(jf::name(jf::dtype_v<T>));
  std::vector<T> v;
  for (int k = std::numeric_limits<T>::min(); k <= std::numeric_limits<T>::max(); ++k) v.push_back(static_cast<T>(k));
  const jf::array<T> x(v, dev);
  auto expect = [&](const jf::array<T>& got, auto f, const char* what) {
    const std::vector<T> g = got.to_vector();
    ASSERT_EQ(g.size(), v.size()) << what;
    for (std::size_t k = 0; k < v.size(); ++k)
      ASSERT_EQ(static_cast<int>(g[k]), static_cast<int>(static_cast<T>(f(static_cast<int>(v[k]))))) << what << " of " << +v[k];
  };
  auto wrap = [](int r) { return static_cast<int>(static_cast<T>(r)); };
  expect(jf::array<T>((-x) >> 3), [&](int a) { return wrap(-a) >> 3; }, "(-x) >> 3");
  expect(jf::array<T>((0 - x) >> 3), [&](int a) { return wrap(-a) >> 3; }, "(0 - x) >> 3");
  expect(jf::array<T>((x * -1) >> 3), [&](int a) { return wrap(-a) >> 3; }, "(x * -1) >> 3");
  expect(jf::array<T>((x + x) >> 3), [&](int a) { return wrap(2 * a) >> 3; }, "(x + x) >> 3");
  expect(jf::array<T>(jf::abs(x) >> 3), [&](int a) { return wrap(a < 0 ? -a : a) >> 3; }, "abs(x) >> 3");
  expect(jf::array<T>(jf::floor_divide(-x, 7)), [&](int a) {
    const int n = wrap(-a);
    return n / 7 - (n % 7 != 0 && n < 0);
  }, "floor_divide(-x, 7)");
  expect(jf::array<T>(jf::where(-x < 0, T(1), T(0))), [&](int a) { return wrap(-a) < 0; }, "-x < 0");
  const std::vector<std::int32_t> widened = jf::array<std::int32_t>(jf::astype<std::int32_t>(-x)).to_vector();
  for (std::size_t k = 0; k < v.size(); ++k) ASSERT_EQ(widened[k], wrap(-static_cast<int>(v[k]))) << "astype<int32>(-x) of " << +v[k];
}

TEST_P(DtypeOps, WrappedResultsFeedSignedUses) {
  wrapped_results_feed_signed_uses<std::int16_t>(dev());
  wrapped_results_feed_signed_uses<std::int8_t>(dev());
}

INSTANTIATE_TEST_SUITE_P(Backends, DtypeOps, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
