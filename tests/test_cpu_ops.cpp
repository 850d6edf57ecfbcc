// Every unary operation of the front end on every dtype it accepts, evaluated on jf::cpu, against
// scalar loops written in the test from numpy's semantics (cpu_ref_ops.hpp), on fresh random
// inputs with NaN, +-inf, +-0 and integer edge cases; numpy value tables. Binary arithmetic is in
// test_cpu_ops_binary.cpp; comparisons, logical ops, where, astype in test_cpu_ops_compare.cpp.
#include "cpu_op_checks.hpp"

namespace {

using namespace cpu_test;

TEST(CpuOps, FloatFunctions) {
  check_unary_all<op::sqrt>();
  check_unary_all<op::cbrt>();
  check_unary_all<op::exp>();
  check_unary_all<op::exp2>();
  check_unary_all<op::expm1>();
  check_unary_all<op::log>();
  check_unary_all<op::log2>();
  check_unary_all<op::log10>();
  check_unary_all<op::log1p>();
  check_unary_all<op::sin>();
  check_unary_all<op::cos>();
  check_unary_all<op::tan>();
  check_unary_all<op::arcsin>();
  check_unary_all<op::arccos>();
  check_unary_all<op::arctan>();
  check_unary_all<op::sinh>();
  check_unary_all<op::cosh>();
  check_unary_all<op::tanh>();
  check_unary_all<op::arcsinh>();
  check_unary_all<op::arccosh>();
  check_unary_all<op::arctanh>();
  check_unary_all<op::rint>();
}

TEST(CpuOps, OtherUnary) {
  check_unary_all<op::negative>();
  check_unary_all<op::absolute>();
  check_unary_all<op::square>();
  check_unary_all<op::reciprocal>();
  check_unary_all<op::floor>();
  check_unary_all<op::ceil>();
  check_unary_all<op::trunc>();
  check_unary_all<op::sign>();
  check_unary_all<op::isnan>();
  check_unary_all<op::isinf>();
  check_unary_all<op::isfinite>();
  check_unary_all<op::logical_not>();
  check_unary_all<op::invert>();
}

// numpy-documented value tables, copied as literal expectations.
TEST(CpuOps, NumpyValueTables) {
  using V = std::vector<double>;
  const jf::array<double> s({-0.0, 0.0, -3.0, 2.0, NAN, -INFINITY});
  const auto sg = jf::eval(jf::sign(s)).to_vector();
  EXPECT_TRUE(same_values(sg, V{0.0, 0.0, -1.0, 1.0, NAN, -1.0}));
  const jf::array<double> h({0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7});
  EXPECT_TRUE(same_values(jf::eval(jf::rint(h)).to_vector(), V{0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0}, 0, true));
  const jf::array<double> m1({NAN, 1.0, 2.0}), m2({1.0, NAN, 1.0});
  EXPECT_TRUE(same_values(jf::eval(jf::minimum(m1, m2)).to_vector(), V{NAN, NAN, 1.0}));
  EXPECT_TRUE(same_values(jf::eval(jf::maximum(m1, m2)).to_vector(), V{NAN, NAN, 2.0}));
  const jf::array<double> f1({NAN, 1.0, NAN}), f2({1.0, NAN, NAN});
  EXPECT_TRUE(same_values(jf::eval(jf::fmin(f1, f2)).to_vector(), V{1.0, 1.0, NAN}));
  EXPECT_TRUE(same_values(jf::eval(jf::fmax(f1, f2)).to_vector(), V{1.0, 1.0, NAN}));
  EXPECT_TRUE(same_values(jf::eval(jf::clip(jf::array<double>({-2.0, 0.5, 3.0, NAN}), 0.0, 1.0)).to_vector(), V{0.0, 0.5, 1.0, NAN}));
  EXPECT_EQ(jf::eval(jf::clip(jf::array<std::int32_t>({-5, 3, 12}), 0, 10)).to_vector(), (std::vector<std::int32_t>{0, 3, 10}));
  EXPECT_EQ(jf::eval(jf::reciprocal(jf::array<std::int32_t>({0, 1, -1, 2, -3}))).to_vector(),
            (std::vector<std::int32_t>{INT32_MIN, 1, -1, 0, 0}));
  const jf::array<std::int32_t> big({INT32_MIN});
  EXPECT_EQ(jf::eval(jf::abs(big)).to_vector()[0], INT32_MIN);
  EXPECT_EQ(jf::eval(-big).to_vector()[0], INT32_MIN);
  EXPECT_EQ(jf::eval(~jf::array<std::int32_t>({0, -1, 5})).to_vector(), (std::vector<std::int32_t>{-1, 0, -6}));
  EXPECT_EQ(jf::eval(!jf::array<double>({0.0, NAN, -0.0, 2.0})).to_vector(), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(jf::eval(jf::isfinite(jf::array<float>({1.0f, INFINITY, NAN}))).to_vector(), (std::vector<bool>{true, false, false}));
}

}  // namespace
