// Drivers of the per-operation CPU tests: an operation on random inputs of given dtypes through the
// front end, against the reference loop of cpu_ref_ops.hpp.
#pragma once

#include "cpu_ref_ops.hpp"

namespace cpu_test {

using jf::op;

inline constexpr std::int64_t sizes[] = {0, 1, 17, 1000000};

template <op O, class A> void check_unary() {
  constexpr jf::op_rule rule = jf::info(O).rule;
  constexpr jf::dtype C = jf::compute_dtype(rule, jf::dtype_v<A>);
  if constexpr (jf::accepts(rule, C)) {
    using CT = jf::cpp_type_t<C>;
    using R = jf::cpp_type_t<jf::result_dtype(rule, C)>;
    for (std::int64_t n : sizes) {
      const auto x = random_values<A>(static_cast<std::size_t>(n));
      auto e = front<O>(make(x));
      static_assert(std::is_same_v<jf::value_type_t<decltype(e)>, R>);
      const jf::array<R> r = e;
      std::vector<R> want(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) want[i] = static_cast<R>(ref1<O>(ref_cast<CT>(x[i])));
      ASSERT_TRUE(same_values(r.to_vector(), want, is_libm(O) ? 2 : 0))
          << jf::info(O).name << " of " << jf::name(jf::dtype_v<A>) << ", n = " << n;
    }
  }
}

template <op O> void check_unary_all() {
  check_unary<O, bool>();
  check_unary<O, std::int32_t>();
  check_unary<O, std::int64_t>();
  check_unary<O, float>();
  check_unary<O, double>();
}

// Binary operations on every dtype pair (both operands arrays) and with weak scalars.
template <op O, class A, class B> void check_binary(std::initializer_list<std::int64_t> ns) {
  constexpr jf::op_rule rule = jf::info(O).rule;
  constexpr jf::dtype C = jf::compute_dtype(rule, jf::promote_types(jf::dtype_v<A>, jf::dtype_v<B>));
  if constexpr (jf::accepts(rule, C)) {
    using CT = jf::cpp_type_t<C>;
    using R = jf::cpp_type_t<jf::result_dtype(rule, C)>;
    for (std::int64_t n : ns) {
      const auto x = random_values<A>(static_cast<std::size_t>(n), lo_of<O>(), hi_of<O>());
      const auto y = random_values<B>(static_cast<std::size_t>(n), lo_of<O>(), hi_of<O>());
      const jf::array<R> r = front<O>(make(x), make(y));
      std::vector<R> want(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) want[i] = static_cast<R>(ref2<O>(ref_cast<CT>(x[i]), ref_cast<CT>(y[i])));
      ASSERT_TRUE(same_values(r.to_vector(), want, is_libm(O) || O == op::power ? 2 : 0))
          << jf::info(O).name << "(" << jf::name(jf::dtype_v<A>) << ", " << jf::name(jf::dtype_v<B>) << "), n = " << n;
    }
  }
}

template <op O, class A> void check_binary_row(std::initializer_list<std::int64_t> ns) {
  check_binary<O, A, bool>(ns);
  check_binary<O, A, std::int32_t>(ns);
  check_binary<O, A, std::int64_t>(ns);
  check_binary<O, A, float>(ns);
  check_binary<O, A, double>(ns);
}
template <op O> void check_binary_all_pairs(std::initializer_list<std::int64_t> ns) {
  check_binary_row<O, bool>(ns);
  check_binary_row<O, std::int32_t>(ns);
  check_binary_row<O, std::int64_t>(ns);
  check_binary_row<O, float>(ns);
  check_binary_row<O, double>(ns);
}

}  // namespace cpu_test
