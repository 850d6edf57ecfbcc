// jf::cuda against the CPU executor: arctan2, hypot, minimum, maximum, fmin, fmax.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(arctan2)
JF_CUDA_OP_TEST(hypot)
JF_CUDA_OP_TEST(minimum)
JF_CUDA_OP_TEST(maximum)
JF_CUDA_OP_TEST(fmin)
JF_CUDA_OP_TEST(fmax)

namespace {

// hypot at the top of the range, where CUDA's own hypot rounds finite results up to inf
// (GPU fuzzer seed 291150: hypot(DBL_MAX, 1) was inf): numpy's values, on both backends.
template <class T>
void check_hypot_top_of_range() {
  constexpr T max = std::numeric_limits<T>::max(), inf = std::numeric_limits<T>::infinity();
  const std::vector<T> a = {max, max, max, -max, T(1), max, max / 2, T(3e37), inf, -inf, T(0), max};
  const std::vector<T> b = {T(1),    T(0),    max,  T(-9.2e18),    -max, inf,
                            max / 2, T(4e37), T(1), std::nanf(""), T(0), T(1e-30)};
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  const jf::array<T> xc(a, {n}, jf::cpu), yc(b, {n}, jf::cpu);
  const jf::array<T> want = jf::hypot(xc, yc);
  const std::vector<T> w = want.to_vector();
  EXPECT_EQ(w[0], max);
  EXPECT_EQ(w[1], max);
  EXPECT_EQ(w[2], inf);
  EXPECT_EQ(w[3], max);
  EXPECT_EQ(w[4], max);
  EXPECT_EQ(w[5], inf);
  EXPECT_EQ(w[8], inf);
  EXPECT_EQ(w[9], inf);  // hypot(+-inf, NaN) is inf (C99, numpy)
  EXPECT_EQ(w[10], T(0));
  EXPECT_EQ(w[11], max);
  const auto xg = jf::to_backend(xc, jf::cuda), yg = jf::to_backend(yc, jf::cuda);
  const jf::array<T> fused = jf::hypot(xg, yg);
  const jf::array<T> unfused = jf::eval(jf::unfused, jf::hypot(xg, yg));
  EXPECT_TRUE(jf_test::same_values(fused.to_vector(), w)) << jf::name(jf::dtype_v<T>);
  EXPECT_TRUE(jf_test::same_values(unfused.to_vector(), w)) << jf::name(jf::dtype_v<T>);
}

TEST(CudaOps, HypotAtTheTopOfTheRange) {
  JF_REQUIRE_GPU();
  check_hypot_top_of_range<float>();
  check_hypot_top_of_range<double>();
}

}  // namespace
