// Comparisons, logical operations, where and astype of the front end on every dtype pair,
// evaluated on jf::cpu against scalar loops written from numpy's semantics (cpu_ref_ops.hpp).
#include "cpu_op_checks.hpp"

namespace {

using namespace cpu_test;

TEST(CpuOps, Comparisons) {
  check_binary_all_pairs<op::less>({0, 17, 1000});
  check_binary_all_pairs<op::equal>({0, 17, 1000});
  for (auto ns : {std::initializer_list<std::int64_t>{1, 17, 100000}}) {
    check_binary<op::not_equal, double, double>(ns);
    check_binary<op::not_equal, std::int32_t, float>(ns);
    check_binary<op::less_equal, float, float>(ns);
    check_binary<op::less_equal, std::int64_t, double>(ns);
    check_binary<op::greater, std::int32_t, std::int32_t>(ns);
    check_binary<op::greater, bool, std::int64_t>(ns);
    check_binary<op::greater_equal, double, float>(ns);
    check_binary<op::greater_equal, std::int64_t, std::int64_t>(ns);
  }
}

TEST(CpuOps, Logical) {
  check_binary_all_pairs<op::logical_and>({0, 17, 1000});
  check_binary_all_pairs<op::logical_or>({17, 1000});
}

// where(cond, x, y) on every dtype pair; the condition of any dtype is converted to bool.
template <class A, class B> void check_where() {
  using R = jf::cpp_type_t<jf::promote_types(jf::dtype_v<A>, jf::dtype_v<B>)>;
  for (std::int64_t n : {0, 17, 100000}) {
    const auto c = random_values<bool>(static_cast<std::size_t>(n));
    const auto x = random_values<A>(static_cast<std::size_t>(n));
    const auto y = random_values<B>(static_cast<std::size_t>(n));
    const jf::array<R> r = jf::where(make(c), make(x), make(y));
    std::vector<R> want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = c[i] ? ref_cast<R>(x[i]) : ref_cast<R>(y[i]);
    ASSERT_TRUE(same_values(r.to_vector(), want, 0, true)) << "where(" << jf::name(jf::dtype_v<A>) << ", " << jf::name(jf::dtype_v<B>) << ")";
  }
}
template <class A> void check_where_row() {
  check_where<A, bool>();
  check_where<A, std::int32_t>();
  check_where<A, std::int64_t>();
  check_where<A, float>();
  check_where<A, double>();
}

TEST(CpuOps, Where) {
  check_where_row<bool>();
  check_where_row<std::int32_t>();
  check_where_row<std::int64_t>();
  check_where_row<float>();
  check_where_row<double>();
  // A non-bool condition (x != 0, NaN is true) and weak scalars in both value slots.
  const auto c = random_values<double>(1000);
  const auto x = random_values<float>(1000);
  const jf::array<float> r = jf::where(make(c), make(x), 2.5);
  const jf::array<std::int32_t> r2 = jf::where(make(c), 7, jf::array<std::int32_t>(random_values<std::int32_t>(1000)) * 0);
  const auto g = r.to_vector();
  const auto g2 = r2.to_vector();
  for (std::size_t i = 0; i < c.size(); ++i) {
    ASSERT_TRUE(same_value(g[i], c[i] != 0 || std::isnan(c[i]) ? x[i] : 2.5f)) << i;
    ASSERT_EQ(g2[i], c[i] != 0 || std::isnan(c[i]) ? 7 : 0) << i;
  }
}

// astype<U> on every pair, including float -> int of NaN, inf and out-of-range values.
template <class From, class To> void check_cast() {
  for (std::int64_t n : {0, 1, 17, 100000}) {
    auto x = random_values<From>(static_cast<std::size_t>(n));
    if constexpr (std::is_floating_point_v<From>)
      for (std::size_t i = 0; i < x.size(); i += 7) x[i] = static_cast<From>((i % 2 ? -1 : 1) * 3.0e9 * static_cast<double>(i % 5));
    const jf::array<To> r = jf::astype<To>(make(x));
    std::vector<To> want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = ref_cast<To>(x[i]);
    ASSERT_TRUE(same_values(r.to_vector(), want, 0, true)) << jf::name(jf::dtype_v<From>) << " -> " << jf::name(jf::dtype_v<To>);
  }
}
template <class From> void check_cast_row() {
  check_cast<From, bool>();
  check_cast<From, std::int32_t>();
  check_cast<From, std::int64_t>();
  check_cast<From, float>();
  check_cast<From, double>();
}

TEST(CpuOps, Astype) {
  check_cast_row<bool>();
  check_cast_row<std::int32_t>();
  check_cast_row<std::int64_t>();
  check_cast_row<float>();
  check_cast_row<double>();
  // numpy on x86-64: float -> int32 of NaN, +-inf and out-of-range values is INT_MIN.
  const jf::array<double> f({std::nan(""), INFINITY, -INFINITY, 3e9, -2.7, 2.7, -2147483648.0, 2147483647.0});
  EXPECT_EQ(jf::eval(jf::astype<std::int32_t>(f)).to_vector(),
            (std::vector<std::int32_t>{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, -2, 2, INT32_MIN, 2147483647}));
  EXPECT_EQ(jf::eval(jf::astype<bool>(f)).to_vector(), (std::vector<bool>{true, true, true, true, true, true, true, true}));
  EXPECT_EQ(jf::eval(jf::astype<std::int64_t>(jf::array<double>({std::nan(""), 1e19, -2.9}))).to_vector(),
            (std::vector<std::int64_t>{INT64_MIN, INT64_MIN, -2}));
}

}  // namespace
