// Constant folding: a node whose arguments are all constants is computed here, on the host, with
// the jf::ops functions the kernel's prelude is made of, and becomes a constant. The arguments
// stay (dead code elimination removes them when nothing else uses them).
#include <type_traits>

#include "jetfuse/errors.hpp"
#include "jetfuse/ir/passes.hpp"
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

scalar_value evaluate(const node& n, const graph& g) {
  scalar_value a[3];
  for (int k = 0; k < n.nargs; ++k) a[k] = g.nodes[static_cast<std::size_t>(n.args[static_cast<std::size_t>(k)])].value;
  if (n.code == op::cast) {
    const dtype from = g.nodes[static_cast<std::size_t>(n.args[0])].type;
    return visit_dtype(from, [&](auto f) {
      using F = typename decltype(f)::type;
      return visit_dtype(n.type, [&](auto t) {
        using To = typename decltype(t)::type;
        return put(jf::ops::jf_cast<To>(get<F>(a[0])));
      });
    });
  }
  // The dtype the operation computes in: that of its value arguments.
  const dtype arg_type = g.nodes[static_cast<std::size_t>(n.args[n.code == op::where ? 1 : 0])].type;
  switch (n.code) {
#define JF_X(code, nm, ar, rl)                                                                     \
  case op::code:                                                                                   \
    return visit_dtype(arg_type, [&](auto t) -> scalar_value {                                     \
      using T = typename decltype(t)::type;                                                        \
      if constexpr (!defined_for<T>(op_rule::rl)) {                                                \
        throw error("jf::ir::fold_constants: " nm " is not defined for this dtype");               \
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
  throw error("jf::ir::fold_constants: cannot evaluate " + std::string(info(n.code).name));
}

}  // namespace

void fold_constants(graph& g) {
  for (node& n : g.nodes) {
    if (n.code == op::input || n.code == op::param || n.code == op::constant || n.nargs == 0) continue;
    bool all_constant = true;
    for (int k = 0; k < n.nargs; ++k)
      all_constant &= g.nodes[static_cast<std::size_t>(n.args[static_cast<std::size_t>(k)])].code == op::constant;
    if (!all_constant) continue;
    node c;
    c.code = op::constant;
    c.type = n.type;
    c.value = evaluate(n, g);
    n = c;
  }
}

}  // namespace jf::ir
