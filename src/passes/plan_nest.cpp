// Planning of loop-nest graphs (reductions): which values are stored to temporaries, and the steps
// (kernels) that compute them. Fused:
//  - a value carried by `broadcast` into a domain it does not enclose is stored first (column means
//    used by every row) and read back by strides;
//  - a reduction whose operand depends on another reduction (var's second pass over the mean,
//    sum(x - mean(x, 1, keepdims))) reads that reduction from a temporary: a kernel shape combines
//    its operand in one pass, so everything it reads must exist before it starts;
//  - a reduced value used by element-wise work in an enclosed domain stays in the kernel only when
//    the kernel can run it as a row (x - mean(x, 1, keepdims): one kernel); a whole-array or column
//    reduction used by element-wise work is stored first (a kernel recomputing it per element
//    would repeat the whole reduction);
//  - a scatter (histogram) is a step of its own whose operands depend on no reduction: its kernel
//    combines across the whole grid, so its result exists only when that kernel ends;
//  - a scan (cumsum) is a step of its own for the same reason, its producers fused into it, its
//    readers reading it from a temporary; the step of the outputs holds it when every output is
//    stored over the scan's domain and computed there from it (cumsum(x * 2 + 1): one kernel);
//  - everything else stays in the step of the outputs: producers fused into their reductions.
//    A list domain's offsets input goes with every step that iterates the lists.
// Unfused: every operation is its own step with a temporary per value, as CuPy without fusion
// (the nodes of one composite operation, attr[1], stay in that operation's step).
#include <algorithm>
#include <map>
#include <utility>

#include "jetfuse/ir/passes.hpp"

namespace jf::ir {
namespace {

bool uniform(const node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }
bool is_leaf(const node& n) { return uniform(n) || n.code == op::input || n.code == op::index; }
bool combines(const node& n) { return n.code == op::reduce || n.code == op::scatter || n.code == op::scan; }

struct nest_planner {
  const graph& g;
  plan p;
  std::vector<char> stored;                 // values computed by an earlier step into a temporary
  std::vector<std::int32_t> temporary_of;   // per stored node

  explicit nest_planner(const graph& graph_) : g(graph_), stored(graph_.nodes.size(), 0), temporary_of(graph_.nodes.size(), -1) {}

  // Walks the cone of `roots` (their arguments, and theirs, ...) without crossing stored values:
  // `visit(x)` says whether x is what was looked for (found), whether to go on below x (descend),
  // or not (skip). Returns the first node found, or no_node.
  enum class step { descend, skip, found };
  template <class Visit> node_id find_in_cone(std::vector<node_id> todo, Visit&& visit) const {
    std::vector<char> seen(g.nodes.size(), 0);
    while (!todo.empty()) {
      const node_id x = todo.back();
      todo.pop_back();
      if (seen[static_cast<std::size_t>(x)] || stored[static_cast<std::size_t>(x)]) continue;
      seen[static_cast<std::size_t>(x)] = 1;
      const step st = visit(x);
      if (st == step::found) return x;
      if (st == step::skip) continue;
      for (int a = 0; a < g.at(x).nargs; ++a) todo.push_back(g.at(x).args[static_cast<std::size_t>(a)]);
    }
    return no_node;
  }

  bool depends_on_reduce(node_id id) const {
    return find_in_cone({id}, [&](node_id x) { return combines(g.at(x)) ? step::found : step::descend; }) != no_node;
  }

  // A reduced value reaches another reduction's operand through a broadcast (the reduction's result
  // lives in an outer domain): the first such broadcast source in the operand cone of reduce or
  // scatter `r`
  // (the whole value carried inward, mean = sum / n, not only its reduce), or no_node.
  node_id reduced_source_in_operand(node_id r) const {
    std::vector<node_id> operands;
    for (int a = 0; a < g.at(r).nargs; ++a) operands.push_back(g.at(r).args[static_cast<std::size_t>(a)]);
    node_id source = no_node;
    const node& rn = g.at(r);
    find_in_cone(operands, [&](node_id x) {
      const node& n = g.at(x);
      // A compaction's store reads the scan of its positions in the same kernel (shape_scan.cpp).
      if (stores(rn) && n.code == op::scan && n.domain == g.at(rn.args[1]).domain) return step::skip;
      if (combines(n)) {  // (a reduce of the same domain: not produced by the lowering)
        source = x;
        return step::found;
      }
      if (n.code != op::broadcast) return step::descend;
      const node_id src = n.args[0];
      if (!uniform(g.at(src)) && !stored[static_cast<std::size_t>(src)] && depends_on_reduce(src)) {
        source = src;
        return step::found;
      }
      return step::skip;
    });
    return source;
  }

  // Whether every reduce that value `id` is computed from (not crossing stored values) combines
  // along the highest-numbered axis of its operand's chain, inside its own domain (a row).
  bool row_reductions_only(node_id id) const {
    const node_id column = find_in_cone({id}, [&](node_id x) {
      const node& n = g.at(x);
      if (n.code != op::reduce) return step::descend;
      const domain_id from = g.at(n.args[0]).domain;
      // Each list's elements (or pairs) into the list: the list kernel combines a list and then runs its map.
      if ((g.dom(from).kind == domain_kind::elements || is_tuple_domain(g.dom(from).kind)) &&
          n.domain == g.dom(from).parent)
        return step::skip;
      const auto chain = g.chain_axes(from);
      const auto& own = g.dom(from).axes;
      const bool row = !chain.empty() &&
                       std::find(own.begin(), own.end(), *std::max_element(chain.begin(), chain.end())) != own.end();
      return row ? step::skip : step::found;  // below a reduce is its operand: the reduction's business
    });
    return column == no_node;
  }

  void choose_stored(fusion_mode mode) {
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      const node& n = g.nodes[k];
      if (mode == fusion_mode::unfused && !is_leaf(n) && n.code != op::broadcast && n.attr[1] == 0) stored[k] = 1;
      if (n.code != op::broadcast || uniform(g.at(n.args[0]))) continue;
      const domain_id from = g.at(n.args[0]).domain;
      if (!g.encloses(from, n.domain)) {  // also an input read in another domain (a trivial reduction)
        stored[static_cast<std::size_t>(n.args[0])] = 1;
        continue;
      }
      if (mode == fusion_mode::unfused) continue;
      // A reduced value used by element-wise work below it stays in the kernel only as a row: one
      // unit (warp or block) per iteration of `from` that combines along the fastest axis of its
      // operand (the highest numbered of its chain) and then runs the element-wise work. Otherwise
      // (a whole-array reduction, a column) it is stored first.
      if (from == 0 || !row_reductions_only(n.args[0])) stored[static_cast<std::size_t>(n.args[0])] = 1;
    }
    if (mode == fusion_mode::unfused) {
      for (const output_desc& o : g.outputs) stored[static_cast<std::size_t>(o.value)] = 0;  // written directly
      return;
    }
    // A scatter is computed alone: stored, unless it is the one output's value itself.
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
      if (g.nodes[k].code == op::scatter && !(g.outputs.size() == 1 && g.outputs[0].value == static_cast<node_id>(k)))
        stored[k] = 1;
    // Reduced values read by another reduction's operand: to a fixed point (each pass stores one).
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = 0; k < g.nodes.size() && !changed; ++k) {
        if (!combines(g.nodes[k])) continue;
        const node_id src = reduced_source_in_operand(static_cast<node_id>(k));
        if (src != no_node) {
          stored[static_cast<std::size_t>(src)] = 1;
          changed = true;
        }
      }
    }
    // Scans: stored, except one that the step of the outputs can run itself.
    const node_id kept = scan_of_output_step();
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
      if (g.nodes[k].code == op::scan && static_cast<node_id>(k) != kept) stored[k] = 1;
  }

  // The scan the step of the outputs may hold: the only scan in the outputs' cone, no other
  // combining node there but stores of a compaction, every output stored over the scan's domain
  // (or the value of such a store) and every other node of the cone in that domain (the scan
  // kernel stores each element, or the selected ones at their positions, after scanning it).
  // no_node when there is none.
  node_id scan_of_output_step() const {
    std::vector<node_id> roots;
    for (const output_desc& o : g.outputs) roots.push_back(o.value);
    node_id scan = no_node;
    bool ok = true;
    find_in_cone(roots, [&](node_id x) {
      const node& n = g.at(x);
      if (uniform(n)) return step::skip;
      if (n.code == op::scan && scan == no_node) scan = x;
      else if (combines(n) && !stores(n)) ok = false;
      return step::descend;
    });
    if (!ok || scan == no_node) return no_node;
    const domain_id d = g.at(scan).domain;
    for (const output_desc& o : g.outputs)
      if (o.domain != d && !stores(g.at(o.value))) return no_node;
    const node_id elsewhere = find_in_cone(roots, [&](node_id x) {
      const node& n = g.at(x);
      if (uniform(n)) return step::skip;
      if (stores(n)) return g.at(n.args[1]).domain == d ? step::descend : step::found;
      return n.domain != d ? step::found : step::descend;
    });
    return elsewhere == no_node ? scan : no_node;
  }

  // One step computing `roots` (stored values, or the graph's outputs when roots is empty).
  void add_step(const std::vector<node_id>& roots) {
    plan_step s;
    graph& k = s.kernel;
    k.loop_nest = true;
    k.ndim = g.ndim;
    k.index32 = g.index32;
    k.vector_width = 1;
    k.domains = g.domains;
    std::vector<node_id> local(g.nodes.size(), no_node);
    std::map<std::pair<int, domain_id>, node_id> temp_inputs;  // (temporary, domain) -> input node
    std::map<std::int32_t, node_id> params, orig_inputs;
    // The node reading stored value `x` in domain `d` (a broadcast of it is read where it is used).
    auto read_stored = [&](node_id x, domain_id d) {
      const std::int32_t t = temporary_of[static_cast<std::size_t>(x)];
      auto [it, fresh] = temp_inputs.emplace(std::make_pair(t, d), no_node);
      if (fresh) {
        // Contiguous when the last axis of the reading domain is the temporary's last axis.
        const auto reader = g.chain_axes(d), held = g.chain_axes(g.at(x).domain);
        const bool contiguous = reader.empty() || (!held.empty() && held.back() == reader.back());
        std::size_t idx = k.inputs.size();
        for (std::size_t i = 0; i < s.inputs.size(); ++i)
          if (s.inputs[i].k == operand_ref::kind::temporary && s.inputs[i].index == t &&
              k.inputs[i].lay == (contiguous ? layout::contiguous : layout::strided))
            idx = i;
        if (idx == k.inputs.size()) {
          k.inputs.push_back({g.at(x).type, contiguous ? layout::contiguous : layout::strided});
          s.inputs.push_back({operand_ref::kind::temporary, t});
        }
        node n;
        n.code = op::input;
        n.type = g.at(x).type;
        n.index = static_cast<std::int32_t>(idx);
        n.domain = d;
        it->second = k.add(n);
      }
      return it->second;
    };
    // Copies the cone of `id` into the step (stored values become inputs).
    auto copy = [&](auto&& self, node_id id, bool is_root) -> node_id {
      if (local[static_cast<std::size_t>(id)] != no_node) return local[static_cast<std::size_t>(id)];
      const node& n = g.at(id);
      if (!is_root && stored[static_cast<std::size_t>(id)]) return read_stored(id, n.domain);
      node c = n;
      if (n.code == op::param) {
        auto [it, fresh] = params.emplace(n.index, no_node);
        if (fresh) {
          c.index = static_cast<std::int32_t>(k.params.size());
          k.params.push_back(n.type);
          s.params.push_back(n.index);
          it->second = k.add(c);
        }
        return local[static_cast<std::size_t>(id)] = it->second;
      }
      if (n.code == op::input || n.code == op::gather || n.code == op::search) {  // gathers read their input as a whole
        auto [it, fresh] = orig_inputs.emplace(n.index, -1);
        if (fresh) {
          it->second = static_cast<node_id>(k.inputs.size());
          operand_desc d = g.inputs[static_cast<std::size_t>(n.index)];
          if (d.gen != generator::none) {  // its key and first position come along as the step's params
            const auto first = static_cast<std::int32_t>(k.params.size());
            for (std::int32_t j = 0; j < 4; ++j) {
              k.params.push_back(dtype::int64);
              s.params.push_back(d.param + j);
            }
            d.param = first;
          }
          k.inputs.push_back(d);
          s.inputs.push_back({operand_ref::kind::input, n.index});
        }
        c.index = it->second;
        if (n.code == op::gather || n.code == op::search)
          for (int a = 0; a < n.nargs; ++a) c.args[static_cast<std::size_t>(a)] = self(self, n.args[static_cast<std::size_t>(a)], false);
        return local[static_cast<std::size_t>(id)] = k.add(c);
      }
      if (n.code == op::broadcast && stored[static_cast<std::size_t>(n.args[0])])
        return local[static_cast<std::size_t>(id)] = read_stored(n.args[0], n.domain);
      for (int a = 0; a < n.nargs; ++a) c.args[static_cast<std::size_t>(a)] = self(self, n.args[static_cast<std::size_t>(a)], false);
      return local[static_cast<std::size_t>(id)] = k.add(c);
    };
    if (roots.empty()) {
      for (std::size_t o = 0; o < g.outputs.size(); ++o) {
        const output_desc& od = g.outputs[o];
        const node_id v = copy(copy, od.value, false);
        output_desc out = od;
        out.value = v;
        k.outputs.push_back(out);
        s.outputs.push_back({operand_ref::kind::output, static_cast<std::int32_t>(o)});
      }
    } else {
      for (node_id r : roots) {
        const node_id v = copy(copy, r, true);
        const auto t = static_cast<std::int32_t>(p.temporaries.size());
        p.temporaries.push_back(g.at(r).type);
        p.temporary_domain.push_back(g.at(r).domain);
        temporary_of[static_cast<std::size_t>(r)] = t;
        output_desc out;
        out.value = v;
        out.desc = {g.at(r).type, layout::contiguous};
        out.domain = g.at(r).domain;
        k.outputs.push_back(out);
        s.outputs.push_back({operand_ref::kind::temporary, t});
      }
    }
    compact_domains(k);
    // A list domain's offsets (a product domain's second offsets): an input of the step (read by no
    // node), renumbered like the others.
    for (domain& dm : k.domains) {
      if (dm.kind != domain_kind::list && dm.kind != domain_kind::product) continue;
      auto [it, fresh] = orig_inputs.emplace(dm.source, -1);
      if (fresh) {
        it->second = static_cast<node_id>(k.inputs.size());
        k.inputs.push_back(g.inputs[static_cast<std::size_t>(dm.source)]);
        s.inputs.push_back({operand_ref::kind::input, dm.source});
      }
      dm.source = it->second;
    }
    p.steps.push_back(std::move(s));
  }

  // Keeps the domains the step uses (and their ancestors), renumbered in order.
  static void compact_domains(graph& k) {
    std::vector<char> used(k.domains.size(), 0);
    auto mark = [&](domain_id d) {
      for (; d >= 0; d = k.domains[static_cast<std::size_t>(d)].parent) used[static_cast<std::size_t>(d)] = 1;
    };
    for (const node& n : k.nodes) {
      if (!uniform(n)) mark(n.domain);
      if (n.code == op::extent || n.code == op::put) mark(static_cast<domain_id>(n.attr[0]));
      if (n.code == op::put) mark(claims_of_put(n));
    }
    for (const output_desc& o : k.outputs) mark(o.domain);
    std::vector<domain_id> remap(k.domains.size(), -1);
    std::vector<domain> kept;
    for (std::size_t d = 0; d < k.domains.size(); ++d) {
      if (!used[d]) continue;
      domain dm = k.domains[d];
      if (dm.parent >= 0) dm.parent = remap[static_cast<std::size_t>(dm.parent)];
      remap[d] = static_cast<domain_id>(kept.size());
      kept.push_back(dm);
    }
    k.domains = std::move(kept);
    for (node& n : k.nodes) {
      if (n.domain >= 0 && static_cast<std::size_t>(n.domain) < remap.size() && remap[static_cast<std::size_t>(n.domain)] >= 0)
        n.domain = remap[static_cast<std::size_t>(n.domain)];
      else if (uniform(n))
        n.domain = 0;
      if (n.code == op::extent || n.code == op::put) n.attr[0] = remap[static_cast<std::size_t>(n.attr[0])];
      if (n.code == op::put) n.index = remap[static_cast<std::size_t>(n.index)];
    }
    for (output_desc& o : k.outputs) o.domain = remap[static_cast<std::size_t>(o.domain)];
  }
};

}  // namespace

plan make_nest_plan(const graph& optimized, fusion_mode mode) {
  optimized.validate();
  nest_planner pl(optimized);
  pl.choose_stored(mode);
  // Stored values in node order: every step reads only temporaries of earlier steps.
  for (std::size_t k = 0; k < optimized.nodes.size(); ++k)
    if (pl.stored[k]) pl.add_step({static_cast<node_id>(k)});
  pl.add_step({});
  for (const plan_step& s : pl.p.steps) s.kernel.validate();
  return pl.p;
}

}  // namespace jf::ir
