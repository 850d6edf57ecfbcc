// Constant folding: a node whose arguments are all constants is computed here, on the host, with
// the jf::ops functions the kernel's prelude is made of, and becomes a constant. The arguments
// stay (dead code elimination removes them when nothing else uses them).
#include <type_traits>

#include "jetfuse/errors.hpp"
#include <vector>

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
  // A reduce reads one value per iteration of its operand's domain: the broadcast that puts a
  // constant there stays (it names the domain the reduction runs over).
  std::vector<char> reduced(g.nodes.size(), 0);
  for (const node& n : g.nodes)
    if (n.code == op::reduce || n.code == op::scatter || n.code == op::scan)
      for (int a = 0; a < n.nargs; ++a) reduced[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])] = 1;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    node& n = g.nodes[k];
    // A reduction of a constant depends on its domain's extent: not folded. A broadcast of a
    // constant is that constant (constants are usable from every domain), unless a reduce reads it.
    if (n.code == op::input || n.code == op::param || n.code == op::constant || n.code == op::reduce ||
        n.code == op::scatter || n.code == op::scan || n.code == op::gather || n.code == op::search ||
        n.code == op::user || n.code == op::check_index || n.code == op::put || n.nargs == 0)
      continue;
    if (n.code == op::broadcast) {
      const node& x = g.nodes[static_cast<std::size_t>(n.args[0])];
      if (x.code == op::constant && !reduced[k]) n = x;
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
