// The pass pipeline: CSE, folding, simplification and dead code elimination until nothing changes
// (each pass only shrinks the graph or replaces a node by a simpler one, so this terminates; the
// round limit is a guard against a rule that would oscillate).
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/passes.hpp"
#include "passes/node_key.hpp"

namespace jf::ir {

void optimize(graph& g, const pass_options& opt) {
  g.validate();
  constexpr int max_rounds = 64;
  for (int round = 0; round < max_rounds; ++round) {
    const graph before = g;
    eliminate_common_subexpressions(g);
    fold_constants(g);
    simplify(g, opt);
    remove_dead_code(g);
    eliminate_common_subexpressions(g);
    if (detail::same_graph(before, g)) break;
  }
  g.validate();
}

}  // namespace jf::ir
