// Common subexpression elimination by hash-consing: walking the nodes in topological order, a node
// equal to an earlier one (opcode, dtype, arguments after renaming, index, constant bits) becomes
// that node. Inputs are unique per buffer already (the front end merges aliasing leaves), so two
// input nodes merge only when they name the same input; params merge only for the same index.
#include <cmath>
#include <map>

#include "jetfuse/ir/passes.hpp"
#include "passes/node_key.hpp"

namespace jf::ir {

void eliminate_common_subexpressions(graph& g) {
  std::vector<node_id> remap(g.nodes.size(), no_node);
  std::vector<node> kept;
  kept.reserve(g.nodes.size());
  std::map<decltype(detail::node_key(node{})), node_id> seen;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    node n = g.nodes[k];
    for (int a = 0; a < n.nargs; ++a) {
      auto& arg = n.args[static_cast<std::size_t>(a)];
      arg = remap[static_cast<std::size_t>(arg)];
    }
    auto [it, fresh] = seen.emplace(detail::node_key(n), static_cast<node_id>(kept.size()));
    if (fresh) kept.push_back(n);
    remap[k] = it->second;
  }
  g.nodes = std::move(kept);
  for (output_desc& o : g.outputs) o.value = remap[static_cast<std::size_t>(o.value)];
}

}  // namespace jf::ir
