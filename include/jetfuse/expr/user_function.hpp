// User-defined element functions: an operation the op table lacks, with the same fusion, caching
// and CPU reference as the built-in ones.
//
//   auto softplus = jf::elementwise<double(double)>(
//       "softplus", "return x > 20 ? x : log1p(exp(x));",               // CUDA C++, compiled by NVRTC
//       [](double x) { return x > 20 ? x : std::log1p(std::exp(x)); });  // the CPU backend's reference
//   jf::array<double> y = softplus(a * 2);                             // one kernel on jf::cuda
//
// The body sees its arguments as x, y, z (1 to 3 of them, of the signature's types) and the
// prelude's functions (CUDA's math library, jf::ops). Arguments are converted to the signature's
// types as jf::astype would; the result has the signature's result type. A body that does not
// compile raises jf::compile_error with NVRTC's log when a kernel first uses it; the kernel cache
// keys on the function (each jf::elementwise object is its own function, its body in the kernel's
// source, hence in the disk cache's key).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "jetfuse/detail/user_functions.hpp"
#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/expr/walk.hpp"

namespace jf {

template <class Sig> struct udf_fn {};

template <class R, class... P, class Id, class... A> struct type_of_impl<call_node<udf_fn<R(P...)>, Id, A...>> {
  static constexpr operand_type value = strong(dtype_v<R>);
};

namespace detail {

template <class R, class... P, class Id, class... A> struct tree<call_node<udf_fn<R(P...)>, Id, A...>> {
  template <dtype Target>
  static void gather(const call_node<udf_fn<R(P...)>, Id, A...>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    const std::int64_t id = e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    scalars[0] = scalar_slot{};
    std::memcpy(&scalars[0].bits, &id, sizeof id);
    scalars[0].identity = true;
    gather_args(e, arrays, scalars + 1, specs, std::index_sequence_for<A...>{});
  }
  template <std::size_t... I>
  static void gather_args(const call_node<udf_fn<R(P...)>, Id, A...>& e, const array_base** arrays, scalar_slot* scalars,
                          reduce_spec* specs, std::index_sequence<I...>) {
    int ai = 0, si = 0, ri = 0;
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = dtype_v<std::tuple_element_t<I, std::tuple<P...>>>;
          tree<Arg>::template gather<target>(e.elements[hana::llong_c<I + 2>], arrays + ai, scalars + si, specs + ri,
                                             scalar_use::value);
          ai += leaf_counts<Arg>::arrays;
          si += leaf_counts<Arg>::scalars;
          ri += leaf_counts<Arg>::reductions;
        }(),
        ...);
  }
};

template <class R, class... P, class Id, class... A> struct lower_type<call_node<udf_fn<R(P...)>, Id, A...>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    std::int64_t id = 0;
    std::memcpy(&id, &in.scalars[c.si++].bits, sizeof id);
    ir::node_id args[sizeof...(A)] = {};
    lower_args(g, in, c, args, std::index_sequence_for<A...>{});
    const ir::node_id n = lower_operation(g, op::user, dtype_v<R>, args, static_cast<int>(sizeof...(A)), home_domain(in, c.region));
    g.nodes[static_cast<std::size_t>(n)].attr[0] = id;
    return n;
  }
  template <std::size_t... I>
  static void lower_args(ir::graph& g, const lowering_inputs& in, lower_cursor& c, ir::node_id* args, std::index_sequence<I...>) {
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = dtype_v<std::tuple_element_t<I, std::tuple<P...>>>;
          args[I] = lower_cast(g, lower_type<Arg>::run(g, in, c, target), target, home_domain(in, c.region));
        }(),
        ...);
  }
};

}  // namespace detail

template <class Sig> class elementwise;

// jf::elementwise<R(P...)>(name, body, host): a new element function (1 to 3 parameters of
// jetfuse's element types). Cheap to copy (an id); registered once, for the life of the process.
template <class R, class... P> class elementwise<R(P...)> {
  static_assert(sizeof...(P) >= 1 && sizeof...(P) <= 3, "jf::elementwise: 1 to 3 parameters");
  static_assert(is_element_v<R> && (is_element_v<P> && ...),
                "jf::elementwise: parameters and result must be bool, (u)int8_t, (u)int16_t, (u)int32_t, "
                "(u)int64_t, float or double");

public:
  template <class F>
    requires std::is_invocable_r_v<R, const F&, P...>
  elementwise(std::string name, std::string body, F host) {
    detail::user_function f;
    f.name = std::move(name);
    f.body = std::move(body);
    f.result = dtype_v<R>;
    const dtype params[] = {dtype_v<P>...};
    for (std::size_t k = 0; k < sizeof...(P); ++k) f.params[k] = params[k];
    f.arity = static_cast<int>(sizeof...(P));
    f.cpu = [host = std::move(host)](const void* const* args, void* out, std::int64_t n) {
      call(host, args, static_cast<R*>(out), n, std::index_sequence_for<P...>{});
    };
    id_ = detail::register_user_function(std::move(f));
  }

  // A lazy call node, fused like any operation: softplus(a * 2), jf::sum(softplus(a)).
  template <class... A>
    requires(sizeof...(A) == sizeof...(P) && (operand<A> && ...) && (lazy_operand<A> || ...))
  auto operator()(A&&... a) const {
    using Id = term<std::int64_t>;
    using C = call_node<udf_fn<R(P...)>, Id, capture_t<A>...>;
    return C{hana::tuple<term<udf_fn<R(P...)>>, Id, capture_t<A>...>(
        term<udf_fn<R(P...)>>{hana::tuple<udf_fn<R(P...)>>(udf_fn<R(P...)>{})}, Id{hana::tuple<std::int64_t>(id_)},
        capture(std::forward<A>(a))...)};
  }
  std::int64_t id() const { return id_; }

private:
  template <class F, std::size_t... I>
  static void call(const F& host, const void* const* args, R* out, std::int64_t n, std::index_sequence<I...>) {
    for (std::int64_t j = 0; j < n; ++j) out[j] = static_cast<R>(host(static_cast<const P*>(args[I])[j]...));
  }
  std::int64_t id_ = -1;
};

}  // namespace jf
