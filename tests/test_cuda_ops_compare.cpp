// jf::cuda against the CPU executor: equal, not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(equal)
JF_CUDA_OP_TEST(not_equal)
JF_CUDA_OP_TEST(less)
JF_CUDA_OP_TEST(less_equal)
JF_CUDA_OP_TEST(greater)
JF_CUDA_OP_TEST(greater_equal)
JF_CUDA_OP_TEST(logical_and)
JF_CUDA_OP_TEST(logical_or)

namespace jf_test {
TEST(CudaOps, where) {
  JF_REQUIRE_GPU();
  for (std::int64_t n : sizes) {
    auto c = random_array<bool>({n});
    auto x = random_array<double>({n});
    auto y = random_array<std::int32_t>({n});
    auto cg = jf::to_backend(c, jf::cuda);
    auto xg = jf::to_backend(x, jf::cuda);
    auto yg = jf::to_backend(y, jf::cuda);
    auto w = [](const auto& c_, const auto& x_, const auto& y_) { return jf::where(c_, x_, y_); };
    check_all_modes<double>("where", w, std::tuple(c, x, y), std::tuple(cg, xg, yg));
    auto w2 = [](const auto& x_) { return jf::where(x_ > 0.0, 1.0, 0.0); };
    check_all_modes<double>("where scalars", w2, std::tuple(x), std::tuple(xg));
    auto casts = [](const auto& x_) { return jf::astype<std::int32_t>(x_ * 1e9) + jf::astype<std::int32_t>(jf::astype<bool>(x_)); };
    check_all_modes<double>("astype", casts, std::tuple(x), std::tuple(xg));
    auto clipf = [](const auto& x_) { return jf::clip(x_, -1, 1.5); };
    check_all_modes<double>("clip", clipf, std::tuple(x), std::tuple(xg));
  }
}
}  // namespace jf_test
