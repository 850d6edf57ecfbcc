// Constant folding: a node whose arguments are all constants is computed here, on the host, with
// the jf::ops functions the kernel's prelude is made of, and becomes a constant. The arguments
// stay (dead code elimination removes them when nothing else uses them).
#include <type_traits>

#include "jetfuse/errors.hpp"
#include "jetfuse/ir/passes.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::ir {
namespace {

scalar_value evaluate(const node& n, const graph& g) {
  scalar_value a[3];
  for (int k = 0; k < n.nargs; ++k) a[k] = g.nodes[static_cast<std::size_t>(n.args[static_cast<std::size_t>(k)])].value;
  // The dtype the operation computes in: that of its value arguments (the source, for a cast).
  const dtype arg_type = g.nodes[static_cast<std::size_t>(n.args[n.code == op::where ? 1 : 0])].type;
  return apply(n.code, n.type, arg_type, a);
}

}  // namespace

void fold_constants(graph& g) {
  for (node& n : g.nodes) {
    // A reduction of a constant depends on its domain's extent: not folded. A broadcast of a
    // constant is that constant (constants are usable from every domain).
    if (n.code == op::input || n.code == op::param || n.code == op::constant || n.code == op::reduce || n.nargs == 0)
      continue;
    if (n.code == op::broadcast) {
      const node& x = g.nodes[static_cast<std::size_t>(n.args[0])];
      if (x.code == op::constant) n = x;
      continue;
    }
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
