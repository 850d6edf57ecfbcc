// Exact identity of IR nodes (internal to the passes): constants compare by bit pattern, so
// -0.0 and 0.0 stay distinct and a NaN equals itself.
#pragma once

#include <bit>
#include <cstdint>
#include <tuple>

#include "jetfuse/ir/graph.hpp"

namespace jf::ir::detail {

inline std::int64_t value_bits(const node& n) {
  if (n.code != op::constant) return 0;
  return is_floating(n.type) ? std::bit_cast<std::int64_t>(n.value.f) : n.value.i;
}

inline auto node_key(const node& n) {
  return std::make_tuple(static_cast<int>(n.code), static_cast<int>(n.type), n.args[0], n.args[1], n.args[2],
                         static_cast<int>(n.nargs), n.index, value_bits(n), n.attr[0], n.attr[1], n.domain);
}

inline bool same_node(const node& a, const node& b) { return node_key(a) == node_key(b); }

inline bool same_graph(const graph& a, const graph& b) {
  if (a.nodes.size() != b.nodes.size() || a.outputs.size() != b.outputs.size()) return false;
  for (std::size_t k = 0; k < a.nodes.size(); ++k)
    if (!same_node(a.nodes[k], b.nodes[k])) return false;
  for (std::size_t k = 0; k < a.outputs.size(); ++k)
    if (a.outputs[k].value != b.outputs[k].value) return false;
  return true;
}

}  // namespace jf::ir::detail
