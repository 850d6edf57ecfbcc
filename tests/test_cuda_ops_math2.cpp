// jf::cuda against the CPU executor: arctan2, hypot, minimum, maximum, fmin, fmax.
#include "cuda_op_checks.hpp"
#include "hypot_edge_values.hpp"

JF_CUDA_OP_TEST(arctan2)
JF_CUDA_OP_TEST(hypot)
JF_CUDA_OP_TEST(minimum)
JF_CUDA_OP_TEST(maximum)
JF_CUDA_OP_TEST(fmin)
JF_CUDA_OP_TEST(fmax)

namespace {

// hypot at the top of the range (hypot_edge_values.hpp): jf::cuda fused and unfused against the
// CPU backend, which test_cpu_ops_binary.cpp checks against numpy's values.
template <class T>
void check_hypot_top_of_range() {
  const hypot_edges::cases<T> c;
  const std::int64_t n = static_cast<std::int64_t>(c.a.size());
  const jf::array<T> xc(c.a, {n}, jf::cpu), yc(c.b, {n}, jf::cpu);
  const std::vector<T> w = jf::array<T>(jf::hypot(xc, yc)).to_vector();
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
