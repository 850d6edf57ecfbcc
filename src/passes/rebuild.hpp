// The one "copy the nodes in order, renaming their arguments" loop of the passes (CSE, DCE,
// simplification): each node, its arguments already renamed, goes to `place`, which appends it to
// the new list (or names an existing node, or drops it) and returns its new id; outputs follow.
#pragma once

#include <vector>

#include "jetfuse/ir/graph.hpp"

namespace jf::ir::detail {

template <class Place> void rebuild(graph& g, std::vector<node>& out, Place&& place) {
  std::vector<node_id> remap(g.nodes.size(), no_node);
  out.reserve(g.nodes.size());
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    node n = g.nodes[k];
    for (int a = 0; a < n.nargs; ++a) {
      auto& arg = n.args[static_cast<std::size_t>(a)];
      arg = remap[static_cast<std::size_t>(arg)];
    }
    remap[k] = place(n, k);
  }
  g.nodes = std::move(out);
  for (output_desc& o : g.outputs) o.value = remap[static_cast<std::size_t>(o.value)];
}

}  // namespace jf::ir::detail
