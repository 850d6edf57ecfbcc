// Lowering of one reduction call to jf::ir: numpy's reducers as reduce nodes (monoids) and the
// element-wise work around them (mean = sum / n, var's second pass, the nan* guards).
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
    if (trivial) {  // one element: identity combined with it, as numpy's reduce does
      if (is_arg_monoid(m)) return constant(dtype::int64, 0);
      const dtype t = g.at(v).type;
      if (guard != ir::no_node)  // a skipped element leaves the identity
        v = op(op::where, t, {guard, v, constant(t, m == monoid::prod ? 1.0 : 0.0)});
      // identity + x: numpy's sum of [-0.0] is +0.0
      if (m == monoid::sum && is_floating(t)) v = op(op::add, t, {v, constant(t, 0.0)});
      return v;
    }
    return g.add_reduce(m, in_domain(v), guard == ir::no_node ? guard : in_domain(guard), outer);
  }
  // The number of reduced elements, as int64 (uniform).
  ir::node_id count() {
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

ir::node_id lower_reduction(ir::graph& g, const nest_analysis& a, int r, ir::node_id x) {
  const reduce_spec& sp = a.specs[static_cast<std::size_t>(r)];
  const nest_analysis::region& Q = a.regions[static_cast<std::size_t>(r + 1)];
  const nest_analysis::region& P = a.regions[static_cast<std::size_t>(Q.parent)];
  reduction_builder b{g, Q.domain, Q.result_domain, Q.domain == Q.result_domain};
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
  }
  v = b.cast(res, v);
  // Carried into the enclosing region (a kept axis of extent 1 there, or a larger region).
  const ir::node& n = g.at(v);
  const bool uniform = n.code == op::constant || n.code == op::param || n.code == op::extent;
  if (!uniform && n.domain != P.domain) v = g.add_broadcast(v, P.domain);
  return v;
}

}  // namespace jf::detail
