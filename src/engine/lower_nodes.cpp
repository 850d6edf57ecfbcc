// The non-template steps of the per-type lowering walk (detail/lowering.hpp): compiled once here
// instead of in every user translation unit.
#include <string>

#include "engine/nest_analysis.hpp"
#include "jetfuse/array.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

ir::node_id lower_input(ir::graph& g, const lowering_inputs& in, int leaf, int region, int regions,
                        std::vector<ir::node_id>& input_nodes, dtype type) {
  const std::int32_t k = in.array_input[leaf];
  ir::node_id& slot = input_nodes[static_cast<std::size_t>(k * regions + region)];
  if (slot == ir::no_node) {
    ir::node n;
    n.code = op::input;
    n.type = type;
    n.index = k;
    if (in.nest) n.domain = region_domain(*in.nest, region);
    slot = g.add(n);
  }
  return slot;
}

ir::node_id lower_scalar(ir::graph& g, const lowering_inputs& in, int k, dtype target) {
  if (in.specialised[k]) return g.add_constant(target, ir::scalar_value::of(target, in.scalars[k].value));
  ir::node n;
  n.code = op::param;
  n.type = target;
  n.index = k;
  return g.add(n);
}

namespace {
// numpy 2 compares uint64 with a signed integer exactly (type_of.hpp gives them uint64 and int64):
// where the signed one is negative the answer is known, elsewhere both compare as uint64.
ir::node_id lower_mixed_comparison(ir::graph& g, op code, const ir::node_id* args, ir::domain_id home) {
  const int si = g.at(args[0]).type == dtype::int64 ? 0 : 1;
  const ir::node_id s = args[si];
  const ir::node_id zero = g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 0));
  const ir::node_id ns[2] = {s, zero};
  const ir::node_id negative = lower_operation(g, op::less, dtype::bool_, ns, 2, home);
  ir::node_id as_unsigned[2] = {args[0], args[1]};
  as_unsigned[si] = lower_cast(g, s, dtype::uint64, home);
  const ir::node_id compared = lower_operation(g, code, dtype::bool_, as_unsigned, 2, home);
  // A negative left operand is less than (and not equal to) any uint64; a negative right one greater.
  const bool negative_true = code == op::not_equal || (si == 0 ? (code == op::less || code == op::less_equal)
                                                                : (code == op::greater || code == op::greater_equal));
  if (negative_true) {
    const ir::node_id either[2] = {negative, compared};
    return lower_operation(g, op::logical_or, dtype::bool_, either, 2, home);
  }
  const ir::node_id both[2] = {lower_operation(g, op::logical_not, dtype::bool_, &negative, 1, home), compared};
  return lower_operation(g, op::logical_and, dtype::bool_, both, 2, home);
}
}  // namespace

ir::node_id lower_operation(ir::graph& g, op code, dtype result, const ir::node_id* args, int nargs,
                            ir::domain_id home) {
  if (info(code).rule == op_rule::compare && nargs == 2 && g.at(args[0]).type != g.at(args[1]).type &&
      compares_mixed_signs(g.at(args[0]).type, g.at(args[1]).type))
    return lower_mixed_comparison(g, code, args, home);
  ir::node n;
  n.domain = home;
  n.code = code;
  n.type = result;
  n.nargs = static_cast<std::int8_t>(nargs);
  bool placed = false;
  for (int i = 0; i < nargs; ++i) {
    n.args[static_cast<std::size_t>(i)] = args[i];
    const ir::node& a = g.at(args[i]);
    // An element-wise node runs in its arguments' domain (constants and params fit anywhere).
    if (!placed && a.code != op::constant && a.code != op::param && a.code != op::extent) {
      n.domain = a.domain;
      placed = true;
    }
  }
  return g.add(n);
}

ir::node_id merge_guards(const ir::graph&, const ir::node_id*, const ir::node_id* guards, int n) {
  // x(m) + y with y unmasked is (x + y)(m): where m removes an element Awkward raises instead (the
  // lists' lengths differ). Two different masks would pair up elements by their rank among the
  // selected ones in Awkward: refused.
  ir::node_id guard = ir::no_node;
  for (int k = 0; k < n; ++k) {
    if (guards[k] == ir::no_node || guards[k] == guard) continue;
    if (guard != ir::no_node)
      throw value_error("jetfuse: an operation of jagged values masked by different masks (x(m1) + y(m2)); Awkward pairs "
                        "their selected elements by rank: evaluate each masked value first, or mask once (x + y)(m)");
    guard = guards[k];
  }
  return guard;
}

void throw_unreduced_mask() {
  throw value_error("jetfuse: a masked jagged value (x(mask) * 2) is the result: reduce it per list (jf::max(x(mask), -1)), "
                    "or assign the selection itself to a jf::jagged (jf::jagged<float> y = (x * 2)(mask))");
}

ir::node_id lower_cast(ir::graph& g, ir::node_id v, dtype target, ir::domain_id home) {
  if (g.at(v).type == target) return v;
  return lower_operation(g, op::cast, target, &v, 1, home);
}

namespace {
// The gathered leaf's length and stride: params the analysis numbered.
// From its `skip`-th on (an index pair's second axis: 2).
void gather_params(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id* p, int skip = 0) {
  const std::int32_t first = in.nest->gather_param[static_cast<std::size_t>(leaf)] + skip;
  for (int j = 0; j < 2; ++j) {
    ir::node n;
    n.code = op::param;
    n.type = dtype::int64;
    n.index = first + j;
    p[j] = g.add(n);
  }
}
bool is_uniform(const ir::node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }
// One index of a tuple checked along its axis (numpy's IndexError naming `axis`; `rank`: its place
// in the tuple, whose earlier indices' failures are reported first), in `home` when it is uniform.
ir::node_id checked_index(ir::graph& g, ir::domain_id home, ir::node_id x, ir::node_id size, int axis, int rank) {
  const ir::node_id c = g.add_check_index(x, size, ir::gather_mode::raise, axis, rank);
  if (is_uniform(g.at(x))) g.nodes.back().domain = home;
  return c;
}
}  // namespace

ir::node_id lower_gather(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id position, ir::gather_mode mode,
                         int message_axis) {
  ir::node_id p[2];
  gather_params(g, in, leaf, p);
  const int axis = message_axis >= 0 ? message_axis : in.nest->gather_axis[static_cast<std::size_t>(leaf)];
  const ir::node_id k = g.add_gather(in.array_input[leaf], position, p[0], p[1], mode, axis);
  if (is_uniform(g.at(position)))
    g.nodes.back().domain = region_domain(*in.nest, in.nest->leaf_region[static_cast<std::size_t>(leaf)]);
  return k;
}

ir::node_id lower_index_pair(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id i, ir::node_id j, int ai,
                             int aj) {
  const ir::domain_id home = region_domain(*in.nest, in.nest->leaf_region[static_cast<std::size_t>(leaf)]);
  ir::node_id p[4];  // axis 0's length and stride, axis 1's
  gather_params(g, in, leaf, p);
  gather_params(g, in, leaf, p + 2, 2);
  const ir::node_id c0 = checked_index(g, home, i, p[0], ai, 0), c1 = checked_index(g, home, j, p[2], aj, 1);
  ir::node_id a0[2] = {c0, p[1]}, a1[2] = {c1, p[3]};
  ir::node_id sum[2] = {lower_operation(g, op::multiply, dtype::int64, a0, 2, home),
                        lower_operation(g, op::multiply, dtype::int64, a1, 2, home)};
  const ir::node_id offset = lower_operation(g, op::add, dtype::int64, sum, 2, home);
  const ir::node_id one = g.add_constant(dtype::int64, ir::scalar_value{0, 1});
  const ir::node_id k = g.add_gather(in.array_input[leaf], offset, p[0], one, ir::gather_mode::unchecked, 0);
  if (is_uniform(g.at(offset))) g.nodes.back().domain = home;
  return k;
}

ir::node_id lower_pair_position(ir::graph& g, ir::domain_id home, ir::node_id i, ir::node_id j, ir::node_id n0,
                                ir::node_id n1, int ai, int aj) {
  const ir::node_id c0 = checked_index(g, home, i, n0, ai, 0), c1 = checked_index(g, home, j, n1, aj, 1);
  ir::node_id row[2] = {c0, n1};
  ir::node_id sum[2] = {lower_operation(g, op::multiply, dtype::int64, row, 2, home), c1};
  return lower_operation(g, op::add, dtype::int64, sum, 2, home);
}

ir::node_id lower_index_positions(ir::graph& g, ir::domain_id home, const ir::node_id* index, const ir::node_id* n,
                                  const ir::node_id* s, ir::node_id shift, const int* axes, int count) {
  ir::node_id sum = shift;
  for (int a = 0; a < count; ++a) {
    ir::node_id term[2] = {checked_index(g, home, index[a], n[a], axes[a], a), s[a]};
    ir::node_id add[2] = {sum, lower_operation(g, op::multiply, dtype::int64, term, 2, home)};
    sum = lower_operation(g, op::add, dtype::int64, add, 2, home);
  }
  return sum;
}

ir::node_id lower_search(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id value, bool right) {
  ir::node_id p[2];
  gather_params(g, in, leaf, p);
  const ir::node_id k = g.add_search(in.array_input[leaf], value, p[0], p[1], right);
  if (is_uniform(g.at(value)))
    g.nodes.back().domain = region_domain(*in.nest, in.nest->leaf_region[static_cast<std::size_t>(leaf)]);
  return k;
}

int take_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    throw axis_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

void check_dot_shapes(const array_base& a, const array_base& b, bool flatten) {
  if (a.is_null() || b.is_null()) throw value_error("jetfuse: jf::dot of a null array handle");
  if (flatten) {
    if (!(a.shape() == b.shape()))
      throw shape_error("jetfuse: jf::vdot of arrays of shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) +
                        ": only arrays of one shape are supported (numpy flattens both)");
    return;
  }
  if (a.ndim() != 1 || b.ndim() != 1)
    throw value_error("jetfuse: jf::dot of arrays of shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) +
                      ": only 1-d arrays (matrix products are not supported yet)");
  if (a.shape()[0] != b.shape()[0])
    throw shape_error("shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) + " not aligned: " +
                      std::to_string(a.shape()[0]) + " (dim 0) != " + std::to_string(b.shape()[0]) + " (dim 0)");
}

void check_mask_shape(const shape_t& x, const shape_t& m) {
  if (m.size() > x.size())
    throw index_error("too many indices for array: array is " + std::to_string(x.size()) + "-dimensional, but " +
                      std::to_string(m.size()) + " were indexed");
  for (int k = 0; k < m.size(); ++k)
    if (m[k] != x[k])
      throw index_error("boolean index did not match indexed array along axis " + std::to_string(k) +
                        "; size of axis is " + std::to_string(x[k]) + " but size of corresponding boolean axis is " +
                        std::to_string(m[k]));
}

void throw_scalar_out_of_bounds(const std::string& value, dtype target) {
  // numpy's OverflowError, its words
  throw dtype_error("Python integer " + value + " out of bounds for " + std::string(name(target)));
}

}  // namespace jf::detail
