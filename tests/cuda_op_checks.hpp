// Checks of one operation of the op table on every dtype it accepts, on jf::cuda fused and
// unfused, against the CPU executor on the same fresh random inputs. The tests are spread over
// several translation units (test_cuda_ops_*.cpp) to bound compile time and memory.
#pragma once

#include "gpu_test_util.hpp"

namespace jf_test {


inline constexpr std::int64_t sizes[] = {0, 1, 31, (1 << 20) + 3};

// Value ranges that exercise each operation (shift counts around the width, small exponents).
template <jf::op O> constexpr double lo_of() {
  if constexpr (O == jf::op::left_shift || O == jf::op::right_shift) return -2;
  if constexpr (O == jf::op::power) return -3;
  return -1000;
}
template <jf::op O> constexpr double hi_of() {
  if constexpr (O == jf::op::left_shift || O == jf::op::right_shift) return 70;
  if constexpr (O == jf::op::power) return 12;
  return 1000;
}
template <jf::op O, class T> inline double range_lo() { return std::is_floating_point_v<T> ? -10 : lo_of<O>(); }
template <jf::op O, class T> inline double range_hi() { return std::is_floating_point_v<T> ? 10 : hi_of<O>(); }

template <class T> void check_all_modes(const char* what, const auto& make_expr, const auto& cpu_operands,
                                        const auto& gpu_operands) {
  using R = jf::value_type_t<std::remove_cvref_t<decltype(std::apply(make_expr, cpu_operands))>>;
  const jf::array<R> want = std::apply(make_expr, cpu_operands);
  jf::array<R> fused = std::apply(make_expr, gpu_operands);
  jf::array<R> unfused = jf::eval(jf::unfused, std::apply(make_expr, gpu_operands));
  ASSERT_EQ(jf::backend(fused), jf::cuda);
  EXPECT_TRUE(same_values(fused.to_vector(), want.to_vector())) << what << " fused, operand dtype " << jf::name(jf::dtype_v<T>);
  EXPECT_TRUE(same_values(unfused.to_vector(), want.to_vector())) << what << " unfused, operand dtype " << jf::name(jf::dtype_v<T>);
}

template <jf::op O, class T> void check_unary() {
  constexpr jf::op_rule rule = jf::info(O).rule;
  constexpr jf::dtype compute = jf::compute_dtype(rule, jf::dtype_v<T>);
  if constexpr (jf::accepts(rule, compute)) {
    for (std::int64_t n : sizes) {
      auto x = random_array<T>({n}, true, range_lo<O, T>(), range_hi<O, T>());
      auto xg = jf::to_backend(x, jf::cuda);
      auto make = [](const auto& a) { return jf::make_call<jf::fn<O>>(a); };
      check_all_modes<T>(jf::info(O).name.data(), make, std::tuple(x), std::tuple(xg));
    }
  }
}

template <jf::op O, class A, class B> void check_binary() {
  constexpr jf::op_rule rule = jf::info(O).rule;
  constexpr jf::dtype compute = jf::compute_dtype(rule, jf::promote_types(jf::dtype_v<A>, jf::dtype_v<B>));
  if constexpr (jf::accepts(rule, compute)) {
    for (std::int64_t n : sizes) {
      auto x = random_array<A>({n}, true, range_lo<O, A>(), range_hi<O, A>());
      auto y = random_array<B>({n}, true, range_lo<O, B>(), range_hi<O, B>());
      auto xg = jf::to_backend(x, jf::cuda);
      auto yg = jf::to_backend(y, jf::cuda);
      auto make = [](const auto& a, const auto& b) { return jf::make_call<jf::fn<O>>(a, b); };
      check_all_modes<A>(jf::info(O).name.data(), make, std::tuple(x, y), std::tuple(xg, yg));
      // A weak scalar on either side: a kernel parameter converted to the array's dtype.
      auto make_rs = [](const auto& a) { return jf::make_call<jf::fn<O>>(a, 3); };
      auto make_ls = [](const auto& a) { return jf::make_call<jf::fn<O>>(2.5, a); };
      if constexpr (jf::accepts(rule, jf::compute_dtype(rule, jf::resolve(jf::promote(jf::strong(jf::dtype_v<A>), jf::weak_operand<int>())))))
        check_all_modes<A>("scalar right", make_rs, std::tuple(x), std::tuple(xg));
      if constexpr (jf::accepts(rule, jf::compute_dtype(rule, jf::resolve(jf::promote(jf::weak_operand<double>(), jf::strong(jf::dtype_v<A>))))))
        check_all_modes<A>("scalar left", make_ls, std::tuple(x), std::tuple(xg));
    }
  }
}

template <jf::op O> void check_op_all_dtypes() {
  if constexpr (jf::info(O).arity == 1) {
    check_unary<O, bool>();
    check_unary<O, std::int32_t>();
    check_unary<O, std::int64_t>();
    check_unary<O, float>();
    check_unary<O, double>();
  } else if constexpr (jf::info(O).arity == 2) {
    check_binary<O, bool, bool>();
    check_binary<O, std::int32_t, std::int32_t>();
    check_binary<O, std::int64_t, std::int64_t>();
    check_binary<O, float, float>();
    check_binary<O, double, double>();
    check_binary<O, std::int32_t, double>();  // mixed: promotion casts inside the kernel
    check_binary<O, float, std::int64_t>();
    check_binary<O, bool, std::int32_t>();
  }
}

}  // namespace jf_test

// Registers the test of one operation.
#define JF_CUDA_OP_TEST(code)                               \
  TEST(CudaOps, code) {                                     \
    JF_REQUIRE_GPU();                                       \
    jf_test::check_op_all_dtypes<jf::op::code>();           \
  }
