// Fusion planning. Fused: one step, the whole graph. Unfused (one launch per operation, as CuPy
// without fusion), in two phases:
//  1. For every operation node in order, a step computing just that node. Its operands are the
//     original inputs (their own layout), original outputs written by an earlier step, or
//     contiguous temporaries; params map to the original params; constants are copied in. The
//     step writes every output that holds this node and does not share memory with an input
//     (a step may have several outputs), else a new temporary when a later step needs the value.
//     Outputs that are directly an input, a param or a constant get a copy step.
//  2. Outputs that share memory with an input (in place) are written last, each by a copy step
//     from a temporary (or an output) holding its value, so no step reads an input after it was
//     overwritten -- whatever the order of the outputs (a, b = b, a included).
#include <map>
#include <utility>

#include "jetfuse/ir/passes.hpp"

namespace jf::ir {
namespace {

struct location {
  operand_ref ref;
  layout lay = layout::contiguous;
};

bool is_leaf(const node& n) { return n.code == op::input || n.code == op::param || n.code == op::constant; }

// 16-byte vectors per operand: a step may hold wider dtypes than the operands of the whole graph.
int step_vector_width(const graph& k, int width) {
  auto fit = [&](dtype t, layout l) {
    while (l != layout::scalar && width > 1 && width * size_of(t) > 16) width /= 2;
  };
  for (const operand_desc& d : k.inputs) fit(d.type, d.lay);
  for (const output_desc& o : k.outputs) fit(o.desc.type, o.desc.lay);
  return width;
}

struct planner {
  const graph& g;
  plan p;
  std::vector<location> loc;  // where each node's value is, once computed (non-leaf and inputs)
  std::vector<char> has_loc;

  explicit planner(const graph& graph_) : g(graph_), loc(graph_.nodes.size()), has_loc(graph_.nodes.size(), 0) {}

  struct step_builder {
    planner& pl;
    plan_step s;
    std::map<std::pair<int, std::int32_t>, node_id> seen_inputs, seen_params;

    explicit step_builder(planner& p) : pl(p) {
      s.kernel.set_map_rank(p.g.ndim);
      s.kernel.index32 = p.g.index32;
    }
    // The step kernel's node for the original node id (a leaf of the step).
    node_id operand(node_id id) {
      const node& n = pl.g.nodes[static_cast<std::size_t>(id)];
      if (n.code == op::constant) return s.kernel.add_constant(n.type, n.value);
      if (n.code == op::param) {
        auto [it, fresh] = seen_params.emplace(std::make_pair(0, n.index), no_node);
        if (fresh) {
          it->second = s.kernel.add_param(n.type);
          s.params.push_back(n.index);
        }
        return it->second;
      }
      const location& l = pl.loc[static_cast<std::size_t>(id)];
      auto [it, fresh] = seen_inputs.emplace(std::make_pair(static_cast<int>(l.ref.k), l.ref.index), no_node);
      if (fresh) {
        it->second = s.kernel.add_input(n.type, l.lay);
        // Operands of the original graph keep their stride class (temporaries are contiguous).
        const auto at = static_cast<std::size_t>(l.ref.index);
        std::int8_t& cls = s.kernel.inputs.back().stride_class;
        if (l.lay == layout::strided && l.ref.k == operand_ref::kind::input) cls = pl.g.inputs[at].stride_class;
        if (l.lay == layout::strided && l.ref.k == operand_ref::kind::output) cls = pl.g.outputs[at].desc.stride_class;
        s.inputs.push_back(l.ref);
      }
      return it->second;
    }
    void write_output(node_id v, std::int32_t original_output) {
      s.kernel.add_output(v, pl.g.outputs[static_cast<std::size_t>(original_output)].desc.lay);
      s.kernel.outputs.back().desc.stride_class =
          pl.g.outputs[static_cast<std::size_t>(original_output)].desc.stride_class;
      s.outputs.push_back({operand_ref::kind::output, original_output});
    }
    std::int32_t write_temporary(node_id v) {
      const auto t = static_cast<std::int32_t>(pl.p.temporaries.size());
      pl.p.temporaries.push_back(s.kernel.nodes[static_cast<std::size_t>(v)].type);
      s.kernel.add_output(v, layout::contiguous);
      s.outputs.push_back({operand_ref::kind::temporary, t});
      return t;
    }
    void finish() {
      s.kernel.vector_width = step_vector_width(s.kernel, pl.g.vector_width);
      s.kernel.validate();
      pl.p.steps.push_back(std::move(s));
    }
  };

  void run() {
    const std::size_t nn = g.nodes.size();
    std::vector<char> consumed(nn, 0), aliased_use(nn, 0);
    for (const node& n : g.nodes)
      for (int a = 0; a < n.nargs; ++a) consumed[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])] = 1;
    for (const output_desc& o : g.outputs)
      if (o.same_as_input >= 0) aliased_use[static_cast<std::size_t>(o.value)] = 1;
    for (std::size_t k = 0; k < nn; ++k)
      if (g.nodes[k].code == op::input) {
        loc[k] = {{operand_ref::kind::input, g.nodes[k].index}, g.inputs[static_cast<std::size_t>(g.nodes[k].index)].lay};
        has_loc[k] = 1;
      }

    // Phase 1: one step per operation.
    for (std::size_t k = 0; k < nn; ++k) {
      const node& n = g.nodes[k];
      if (is_leaf(n)) continue;
      std::vector<std::int32_t> direct;
      for (std::size_t o = 0; o < g.outputs.size(); ++o)
        if (g.outputs[o].value == static_cast<node_id>(k) && g.outputs[o].same_as_input < 0)
          direct.push_back(static_cast<std::int32_t>(o));
      if (direct.empty() && !consumed[k] && !aliased_use[k]) continue;  // dead
      step_builder b(*this);
      node m = n;
      for (int a = 0; a < m.nargs; ++a) {
        auto& arg = m.args[static_cast<std::size_t>(a)];
        arg = b.operand(arg);
      }
      const node_id v = b.s.kernel.add(m);
      for (std::int32_t o : direct) b.write_output(v, o);
      if (!direct.empty()) {
        loc[k] = {{operand_ref::kind::output, direct[0]}, g.outputs[static_cast<std::size_t>(direct[0])].desc.lay};
      } else {
        loc[k] = {{operand_ref::kind::temporary, b.write_temporary(v)}, layout::contiguous};
      }
      has_loc[k] = 1;
      b.finish();
    }
    // Outputs whose value is a leaf.
    for (std::size_t o = 0; o < g.outputs.size(); ++o) {
      const output_desc& out = g.outputs[o];
      const node& n = g.nodes[static_cast<std::size_t>(out.value)];
      if (!is_leaf(n)) continue;
      if (out.same_as_input >= 0) {
        // In place: nothing to do for x = x; an input read later is saved in a temporary first.
        if (n.code != op::input || n.index == out.same_as_input) continue;
        if (loc[static_cast<std::size_t>(out.value)].ref.k != operand_ref::kind::input) continue;
        step_builder b(*this);
        const node_id v = b.operand(out.value);
        loc[static_cast<std::size_t>(out.value)] = {{operand_ref::kind::temporary, b.write_temporary(v)},
                                                    layout::contiguous};
        b.finish();
        continue;
      }
      step_builder b(*this);
      b.write_output(b.operand(out.value), static_cast<std::int32_t>(o));
      b.finish();
    }
    // Phase 2: in-place outputs.
    for (std::size_t o = 0; o < g.outputs.size(); ++o) {
      const output_desc& out = g.outputs[o];
      if (out.same_as_input < 0) continue;
      const node& n = g.nodes[static_cast<std::size_t>(out.value)];
      if (n.code == op::input && n.index == out.same_as_input) continue;
      step_builder b(*this);
      b.write_output(b.operand(out.value), static_cast<std::int32_t>(o));
      b.finish();
    }
  }
};

}  // namespace

plan make_plan(const graph& optimized, fusion_mode mode) {
  optimized.validate();
  if (mode == fusion_mode::fused) {
    plan p;
    plan_step s;
    s.kernel = optimized;
    for (std::size_t i = 0; i < optimized.inputs.size(); ++i)
      s.inputs.push_back({operand_ref::kind::input, static_cast<std::int32_t>(i)});
    for (std::size_t i = 0; i < optimized.params.size(); ++i) s.params.push_back(static_cast<std::int32_t>(i));
    for (std::size_t i = 0; i < optimized.outputs.size(); ++i)
      s.outputs.push_back({operand_ref::kind::output, static_cast<std::int32_t>(i)});
    p.steps.push_back(std::move(s));
    return p;
  }
  planner pl(optimized);
  pl.run();
  return std::move(pl.p);
}

}  // namespace jf::ir
