// Lowering of one reduction call to jf::ir: numpy's reducers as reduce nodes (monoids) and the
// element-wise work around them (mean = sum / n, var's second pass, the nan* guards).
#include <array>
#include <initializer_list>
#include <string>

#include "engine/nest_analysis.hpp"

namespace jf::detail {
namespace {

struct reduction_builder {
  ir::graph& g;
  ir::domain_id inner;  // the operand's domain
  ir::domain_id outer;  // the result's domain
  bool trivial;         // no loop is reduced (every reduced axis has extent 1)
  ir::node_id mask = ir::no_node;  // x(mask): every reduce and count skips where it is false

  // An operation in its arguments' domain; on extents and constants only (the count n, n - ddof)
  // in the result's domain, where it is used.
  ir::node_id op(jf::op code, dtype t, std::initializer_list<ir::node_id> args) {
    return lower_operation(g, code, t, args.begin(), static_cast<int>(args.size()), outer);
  }
  ir::node_id cast(dtype t, ir::node_id v) { return lower_cast(g, v, t, outer); }
  ir::node_id constant(dtype t, double v) { return g.add_constant(t, ir::scalar_value::of(t, v)); }
  // An operand that is the same in every iteration (a folded argmin of extent-1 axes, say) is
  // carried into the reduced domain first: a reduce reads one value per iteration.
  bool varies(ir::node_id v) const {
    const ir::node& n = g.at(v);
    if (n.code == op::input || n.code == op::reduce || n.code == op::broadcast) return true;
    for (int a = 0; a < n.nargs; ++a)
      if (varies(n.args[static_cast<std::size_t>(a)])) return true;
    return false;
  }
  ir::node_id in_domain(ir::node_id v) { return varies(v) ? v : g.add_broadcast(v, inner); }
  ir::node_id reduce(monoid m, ir::node_id v, ir::node_id guard = ir::no_node) {
    if (mask != ir::no_node)
      guard = guard == ir::no_node ? mask : lower_operation(g, op::logical_and, dtype::bool_, std::array<ir::node_id, 2>{guard, mask}.data(), 2, inner);
    if (trivial) {  // one element: identity combined with it, as numpy's reduce does
      if (is_arg_monoid(m)) return constant(dtype::int64, 0);
      const dtype t = g.at(v).type;
      if (guard != ir::no_node)  // a skipped element leaves the identity
        v = op(op::where, t, {guard, v, constant(t, m == monoid::prod ? 1.0 : 0.0)});
      // identity + x: numpy's sum of [-0.0] is +0.0
      if (m == monoid::sum && is_floating(t)) v = op(op::add, t, {v, constant(t, 0.0)});
      return v;
    }
    // Every combination of every list (axis=None over pairs): each list's first, then the lists
    // (the pairs kernel combines a list's combinations; the lists are then a box).
    const ir::domain_id parent = g.dom(inner).parent;
    if (ir::is_tuple_domain(g.dom(inner).kind) && outer != parent && !is_arg_monoid(m)) {
      const ir::node_id per_list = g.add_reduce(m, in_domain(v), guard == ir::no_node ? guard : in_domain(guard), parent);
      return g.add_reduce(m, per_list, ir::no_node, outer);
    }
    return g.add_reduce(m, in_domain(v), guard == ir::no_node ? guard : in_domain(guard), outer);
  }
  // The number of reduced elements, as int64 (uniform).
  ir::node_id count() {
    // A list's elements vary in number: count them (reduce a sum of ones, beside the other sums).
    if (mask != ir::no_node) return reduce(monoid::sum, lower_cast(g, mask, dtype::int64, inner));
    // Over every combination of every list (axis=None), reduce() counts each list's first, as the
    // sum beside it (the pairs kernel reduces into lists only: a direct count was refused on CUDA).
    for (ir::domain_id d = inner; d != outer; d = g.dom(d).parent)
      if (g.dom(d).kind == ir::domain_kind::elements || ir::is_tuple_domain(g.dom(d).kind))
        return reduce(monoid::sum, g.add_broadcast(constant(dtype::int64, 1), inner));
    ir::node_id n = ir::no_node;
    for (ir::domain_id d = inner; d != outer; d = g.dom(d).parent) {
      const ir::node_id e = g.add_extent(d);
      n = n == ir::no_node ? e : op(op::multiply, dtype::int64, {n, e});
    }
    return n == ir::no_node ? g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 1)) : n;
  }
  ir::node_id not_nan(ir::node_id v) {
    return op(op::logical_not, dtype::bool_, {op(op::isnan, dtype::bool_, {v})});
  }
  ir::node_id inward(ir::node_id v) { return trivial ? v : g.add_broadcast(v, inner); }

  // Counts per bin: index (int64, in the operand's domain) into `bins`, the result's box of one
  // axis, where the guard holds. With one bin the result's domain has no loop: a guarded count.
  ir::node_id count_into(ir::node_id index, ir::node_id guard, ir::domain_id bins) {
    const ir::node_id one = constant(dtype::int64, 1);
    if (bins == outer) return reduce(monoid::sum, guard == ir::no_node ? one : cast(dtype::int64, guard));
    return g.add_scatter(monoid::sum, one, index, guard, bins);
  }
  ir::node_id param(dtype t, std::int32_t index) {
    ir::node n;
    n.code = op::param;
    n.type = t;
    n.index = index;
    return g.add(n);
  }
  // numpy.histogram's bin of each value (binning.hpp), with its corrections against the edges.
  ir::node_id histogram(ir::node_id x, const binning& bn, std::int32_t p0, ir::domain_id bins) {
    const dtype T = bn.edge, W = bn.work, I = dtype::int64;
    const std::size_t first_node = g.nodes.size();
    // Everything here is per value (in the operand's domain), also what reads only params.
    auto op = [&](jf::op code, dtype t, std::initializer_list<ir::node_id> args) {
      return lower_operation(g, code, t, args.begin(), static_cast<int>(args.size()), inner);
    };
    auto cast = [&](dtype t, ir::node_id v) { return lower_cast(g, v, t, inner); };
    const ir::node_id first_e = param(T, p0 + first_e_param), last_e = param(T, p0 + last_e_param);
    const ir::node_id first = param(W, p0 + first_w_param);
    const ir::node_id denom = param(W, p0 + denom_w_param), step = param(W, p0 + step_w_param);
    const ir::node_id nb = bins == outer ? constant(I, 1) : g.add_extent(bins);
    const ir::node_id nb1 = op(op::subtract, I, {nb, constant(I, 1)});
    const ir::node_id xt = cast(T, x);
    ir::node_id guard = ir::no_node;
    if (bn.guarded)
      guard = op(op::logical_and, dtype::bool_,
                 {op(op::greater_equal, dtype::bool_, {xt, first_e}), op(op::less_equal, dtype::bool_, {xt, last_e})});
    const ir::node_id f = op(op::multiply, W, {op(op::true_divide, W, {cast(W, op(op::subtract, T, {xt, first_e})), denom}), cast(W, nb)});
    // i is in [0, bins] for every value the guard (or the range from min/max) lets count: numpy's
    // indices[indices == bins] -= 1 is then a minimum.
    ir::node_id i = op(op::minimum, I, {cast(I, f), nb1});
    // np.linspace(first, last, bins + 1)[k] in T for k < bins. Its last edge (k == bins: `last`) is
    // never needed: i <= bins - 1 where edge(i) is read, and edge(i + 1) at i == bins - 1 is masked
    // by numpy's `indices != bins - 1`. (Elements outside the guard compute garbage, not counted.)
    auto edge = [&](ir::node_id k) {
      const ir::node_id kk = cast(W, k);
      const ir::node_id y = bn.step_zero ? op(op::multiply, W, {op(op::true_divide, W, {kk, cast(W, nb)}), step})
                                         : op(op::multiply, W, {kk, step});
      return cast(T, op(op::add, W, {y, first}));
    };
    const ir::node_id one = constant(I, 1);
    i = op(op::where, I, {op(op::less, dtype::bool_, {xt, edge(i)}), op(op::subtract, I, {i, one}), i});
    const ir::node_id up = op(op::add, I, {i, one});
    const ir::node_id inc = op(op::logical_and, dtype::bool_,
                               {op(op::greater_equal, dtype::bool_, {xt, edge(up)}), op(op::not_equal, dtype::bool_, {i, nb1})});
    i = op(op::where, I, {inc, up, i});
    for (std::size_t k = first_node; k < g.nodes.size(); ++k)  // one operation, also when unfused
      if (g.nodes[k].code != op::param && g.nodes[k].code != op::constant && g.nodes[k].code != op::extent)
        g.nodes[k].attr[1] = 1;
    return count_into(i, guard, bins);
  }

  ir::node_id mean(ir::node_id x, dtype acc) {
    const ir::node_id xs = cast(acc, x);
    return op(op::true_divide, acc, {reduce(monoid::sum, xs), cast(acc, count())});
  }
  // numpy's _var: the mean first, then the sum of squared deviations divided by max(n - ddof, 0).
  ir::node_id var(ir::node_id x, dtype acc, std::int32_t ddof) {
    const ir::node_id xs = cast(acc, x);
    const ir::node_id m = mean(x, acc);
    const ir::node_id d = op(op::subtract, acc, {xs, inward(m)});
    const ir::node_id s2 = reduce(monoid::sum, op(op::multiply, acc, {d, d}));
    const ir::node_id n = op(op::subtract, dtype::int64,
                                   {count(), g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, ddof))});
    const ir::node_id n0 =
        op(op::maximum, dtype::int64, {n, g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 0))});
    return op(op::true_divide, acc, {s2, cast(acc, n0)});
  }
};

}  // namespace

namespace {

// cumsum / cumprod: a scan node in the operand's domain (one box under the root, nest_analysis),
// along the global axis of the scanned one, or flattened over the box; in numpy's result dtype.
// A scan of one element (the axis has extent 1, a 0-d operand) is that element.
ir::node_id lower_scan(ir::graph& g, const nest_analysis& a, int r, ir::node_id x) {
  const reduce_spec& sp = a.specs[static_cast<std::size_t>(r)];
  const nest_analysis::region& Q = a.regions[static_cast<std::size_t>(r + 1)];
  const nest_analysis::region& P = a.regions[static_cast<std::size_t>(Q.parent)];
  const dtype res = reduced_dtype(sp.kind, g.at(x).type);
  ir::node_id v = lower_cast(g, x, res, Q.domain);
  const std::int32_t axis = sp.scan_axis >= 0 ? Q.axis[static_cast<std::size_t>(sp.scan_axis)] : -1;
  const bool trivial = sp.scan_axis >= 0 ? axis < 0 : chain_axes(a, Q.domain).empty();
  const ir::node& n = g.at(v);
  const bool uniform = n.code == op::constant || n.code == op::param || n.code == op::extent;
  if (!trivial) {
    if (uniform) v = g.add_broadcast(v, Q.domain);
    v = g.add_scan(sp.kind == reducer::cumsum ? monoid::sum : monoid::prod, v, axis);
  }
  const ir::node& m = g.at(v);
  if (m.code != op::constant && m.code != op::param && m.code != op::extent && m.domain != P.domain)
    v = g.add_broadcast(v, P.domain);
  return v;
}

}  // namespace

ir::node_id lower_compaction(ir::graph& g, const nest_analysis& a, int r, ir::node_id mask, ir::node_id value) {
  const reduce_spec& sp = a.specs[static_cast<std::size_t>(r)];
  const nest_analysis::region& Q = a.regions[static_cast<std::size_t>(r + 1)];
  const nest_analysis::region& P = a.regions[static_cast<std::size_t>(Q.parent)];
  const std::size_t first = g.nodes.size();
  auto uniform = [&](ir::node_id v) {
    const ir::node& n = g.at(v);
    return n.code == op::constant || n.code == op::param || n.code == op::extent;
  };
  ir::node_id m = lower_cast(g, mask, dtype::bool_, Q.domain);
  if (uniform(m)) m = g.add_broadcast(m, Q.domain);
  if (value == ir::no_node) {  // indices: along an axis of the mask (0 where it has extent 1), or flat
    if (sp.index_axis < 0) {
      value = g.add_index(Q.domain, -1);
    } else {
      const std::int32_t x = Q.axis[static_cast<std::size_t>(sp.index_axis)];
      value = x < 0 ? g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 0)) : g.add_index(Q.domain, x);
    }
  }
  ir::node_id v = ir::no_node;
  if (P.domain == 0) {
    // One selected element (the result's axis has extent 1, no loop): the one value where the mask
    // holds, a guarded max (max(lowest, x) is x for every x: NaN, -0.0 and bool included).
    v = Q.domain == 0 ? value : g.add_reduce(monoid::max, uniform(value) ? g.add_broadcast(value, Q.domain) : value, m, 0);
  } else {
    // The position of each selected element: how many are selected before it (row-major order).
    const ir::node_id count = lower_cast(g, m, dtype::int64, Q.domain);
    const ir::node_id upto = g.add_scan(monoid::sum, count, -1);
    const ir::node_id one = g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 1));
    const ir::node_id pos = lower_operation(g, op::subtract, dtype::int64, std::array<ir::node_id, 2>{upto, one}.data(), 2, Q.domain);
    v = g.add_store(value, pos, m, P.domain);
  }
  // One operation: unfused plans keep it in one kernel (the scan with its stores).
  for (std::size_t k = first; k < g.nodes.size(); ++k)
    if (g.nodes[k].code != op::param && g.nodes[k].code != op::constant && g.nodes[k].code != op::extent)
      g.nodes[k].attr[1] = 1;
  return v;
}

ir::node_id lower_reduction(ir::graph& g, const nest_analysis& a, int r, ir::node_id x, ir::node_id guard) {
  const reduce_spec& sp = a.specs[static_cast<std::size_t>(r)];
  if (guard != ir::no_node && (is_scan(sp.kind) || sp.kind == reducer::histogram || sp.kind == reducer::bincount))
    throw value_error("jetfuse: jf::" + std::string(name(sp.kind)) + " of a masked jagged value is not supported");
  if (guard != ir::no_node && (sp.kind == reducer::argmin || sp.kind == reducer::argmax))
    // jf::argmax(x(m), -1) materialises x(m) first (jagged_mask.hpp); an expression of x(m) has no ranks
    throw value_error("jetfuse: jf::" + std::string(name(sp.kind)) + " of an expression of a masked jagged value (a "
                      "position among the selected elements) is not supported; apply the mask last: jf::" +
                      std::string(name(sp.kind)) + "((x * 2)(m), -1)");
  if (is_scan(sp.kind)) return lower_scan(g, a, r, x);
  const nest_analysis::region& Q = a.regions[static_cast<std::size_t>(r + 1)];
  const nest_analysis::region& P = a.regions[static_cast<std::size_t>(Q.parent)];
  reduction_builder b{g, Q.domain, Q.result_domain, Q.domain == Q.result_domain, guard};
  const dtype t = g.at(x).type;
  const dtype res = reduced_dtype(sp.kind, t);
  const bool fl = is_floating(t);
  ir::node_id v = ir::no_node;
  switch (sp.kind) {
  case reducer::sum: v = b.reduce(monoid::sum, b.cast(res, x)); break;
  case reducer::prod: v = b.reduce(monoid::prod, b.cast(res, x)); break;
  case reducer::nansum: v = b.reduce(monoid::sum, b.cast(res, x), fl ? b.not_nan(x) : ir::no_node); break;
  case reducer::nanprod: v = b.reduce(monoid::prod, b.cast(res, x), fl ? b.not_nan(x) : ir::no_node); break;
  case reducer::min: v = b.reduce(monoid::min, x); break;
  case reducer::max: v = b.reduce(monoid::max, x); break;
  case reducer::nanmin: v = b.reduce(fl ? monoid::nanmin : monoid::min, x); break;
  case reducer::nanmax: v = b.reduce(fl ? monoid::nanmax : monoid::max, x); break;
  case reducer::any: v = b.reduce(monoid::any, b.cast(dtype::bool_, x)); break;
  case reducer::all: v = b.reduce(monoid::all, b.cast(dtype::bool_, x)); break;
  case reducer::argmin: v = b.reduce(monoid::argmin, x); break;
  case reducer::argmax: v = b.reduce(monoid::argmax, x); break;
  case reducer::count_nonzero:
    v = b.reduce(monoid::sum, b.cast(dtype::int64, b.cast(dtype::bool_, x)));
    break;
  case reducer::mean: v = b.mean(x, res); break;
  case reducer::nanmean:
    if (!fl) {
      v = b.mean(x, res);
    } else {
      const ir::node_id ok = b.not_nan(x);
      const ir::node_id s = b.reduce(monoid::sum, x, ok);
      const ir::node_id n = b.reduce(monoid::sum, b.cast(dtype::int64, ok));
      v = b.op(op::true_divide, res, {s, b.cast(res, n)});
    }
    break;
  case reducer::var: v = b.var(x, res, sp.ddof); break;
  case reducer::std: v = b.op(op::sqrt, res, {b.var(x, res, sp.ddof)}); break;
  case reducer::histogram:
    v = b.histogram(x, a.binnings[static_cast<std::size_t>(r)], a.first_param[static_cast<std::size_t>(r)], P.domain);
    break;
  case reducer::bincount: v = b.count_into(b.cast(dtype::int64, x), ir::no_node, P.domain); break;
  case reducer::cumsum: case reducer::cumprod: case reducer::compact: break;  // lower_scan, lower_compaction
  }
  v = b.cast(res, v);
  // Carried into the enclosing region (a kept axis of extent 1 there, or a larger region).
  const ir::node& n = g.at(v);
  const bool uniform = n.code == op::constant || n.code == op::param || n.code == op::extent;
  if (!uniform && n.domain != P.domain) v = g.add_broadcast(v, P.domain);
  return v;
}

}  // namespace jf::detail
