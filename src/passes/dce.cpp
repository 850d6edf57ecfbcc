// Dead code elimination: keeps the nodes some output depends on, in their order, renumbered.
// graph::inputs and graph::params are left alone (they are the kernel's ABI): an unused input
// keeps its pointer slot even when its node goes.
#include "jetfuse/ir/passes.hpp"
#include "passes/rebuild.hpp"

namespace jf::ir {

void remove_dead_code(graph& g) {
  std::vector<char> live(g.nodes.size(), 0);
  for (const output_desc& o : g.outputs) live[static_cast<std::size_t>(o.value)] = 1;
  for (std::size_t k = g.nodes.size(); k-- > 0;) {
    if (!live[k]) continue;
    const node& n = g.nodes[k];
    for (int a = 0; a < n.nargs; ++a) live[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])] = 1;
  }
  std::vector<node> kept;
  detail::rebuild(g, kept, [&](const node& n, std::size_t k) {
    if (!live[k]) return no_node;
    kept.push_back(n);
    return static_cast<node_id>(kept.size() - 1);
  });
}

}  // namespace jf::ir
