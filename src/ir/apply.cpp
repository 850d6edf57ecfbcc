// Host evaluation of one IR operation with jf::ops: what a kernel computes for it.
#include <string>

#include "jetfuse/errors.hpp"
#include "jetfuse/ir/graph.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::ir {
namespace {

template <class T> T get(const scalar_value& v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v.f);
  else if constexpr (std::is_same_v<T, bool>) return v.i != 0;
  else return static_cast<T>(v.i);
}

template <class T> scalar_value put(T x) {
  scalar_value s;
  if constexpr (std::is_floating_point_v<T>) s.f = static_cast<double>(x);
  else s.i = static_cast<std::int64_t>(x);
  return s;
}

// Whether op_rule r is defined with arguments of type T (the IR's invariant; see graph::validate).
template <class T> constexpr bool defined_for(op_rule r) {
  constexpr dtype d = dtype_v<T>;
  return accepts(r, d) && compute_dtype(r, d) == d;
}

}  // namespace

scalar_value apply(op code, dtype result, dtype arg_type, const scalar_value* a) {
  if (code == op::cast) {
    return visit_dtype(arg_type, [&](auto f) {
      using F = typename decltype(f)::type;
      return visit_dtype(result, [&](auto t) {
        using To = typename decltype(t)::type;
        return put(jf::ops::jf_cast<To>(get<F>(a[0])));
      });
    });
  }
  switch (code) {
#define JF_X(code, nm, ar, rl)                                                                     \
  case op::code:                                                                                   \
    return visit_dtype(arg_type, [&](auto t) -> scalar_value {                                     \
      using T = typename decltype(t)::type;                                                        \
      if constexpr (!defined_for<T>(op_rule::rl)) {                                                \
        throw error("jf::ir::apply: " nm " is not defined for this dtype");               \
      } else if constexpr (op::code == op::where) {                                                \
        return put(jf::ops::jf_where(get<bool>(a[0]), get<T>(a[1]), get<T>(a[2])));                \
      } else if constexpr (ar == 1) {                                                              \
        return put(jf::ops::jf_##code(get<T>(a[0])));                                              \
      } else {                                                                                     \
        return put(jf::ops::jf_##code(get<T>(a[0]), get<T>(a[1])));                                \
      }                                                                                            \
    });
    JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
  default: break;
  }
  throw error("jf::ir::apply: cannot evaluate " + std::string(info(code).name));
}


}  // namespace jf::ir
