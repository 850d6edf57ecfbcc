// Common subexpression elimination by hash-consing: walking the nodes in topological order, a node
// equal to an earlier one (opcode, dtype, arguments after renaming, index, constant bits) becomes
// that node. Inputs are unique per buffer already (the front end merges aliasing leaves), so two
// input nodes merge only when they name the same input; params merge only for the same index.
#include <cmath>
#include <map>

#include "jetfuse/ir/passes.hpp"
#include "passes/node_key.hpp"
#include "passes/rebuild.hpp"

namespace jf::ir {

void eliminate_common_subexpressions(graph& g) {
  std::vector<node> kept;
  std::map<decltype(detail::node_key(node{})), node_id> seen;
  detail::rebuild(g, kept, [&](const node& n, std::size_t) {
    auto [it, fresh] = seen.emplace(detail::node_key(n), static_cast<node_id>(kept.size()));
    if (fresh) kept.push_back(n);
    return it->second;
  });
}

}  // namespace jf::ir
