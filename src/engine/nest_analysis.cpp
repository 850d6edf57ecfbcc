// Shapes, global axes and domains of an expression with reductions (nest_analysis.hpp).
#include "engine/nest_analysis.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "jetfuse/detail/engine.hpp"

namespace jf::detail {
namespace {

// numpy's name of the operation in its empty-reduction error.
std::string empty_message(reducer r) {
  switch (r) {
  case reducer::argmin: return "attempt to get argmin of an empty sequence";
  case reducer::argmax: return "attempt to get argmax of an empty sequence";
  case reducer::min: return "zero-size array to reduction operation minimum which has no identity";
  case reducer::max: return "zero-size array to reduction operation maximum which has no identity";
  case reducer::nanmin: return "zero-size array to reduction operation fmin which has no identity";
  default: return "zero-size array to reduction operation fmax which has no identity";
  }
}

struct parser {
  nest_analysis& a;
  const prog_entry* program;
  int size;
  const array_base* const* arrays;
  const reduce_spec* specs;
  int nspecs;
  const scalar_slot* scalars;
  int pos = 0, ai = 0, ri = 0, si = 0;

  shape_t parse(int region) {
    if (pos >= size) throw error("jetfuse: internal: expression program ends early");
    const prog_entry e = program[pos++];
    switch (e.kind) {
    case prog_entry::array: new_leaf(region, 0); return arrays[ai++]->shape();
    case prog_entry::gather: return gather(region, e);
    case prog_entry::scalar: ++si; return shape_t{};
    case prog_entry::elementwise: {
      if (e.mode == pair_positions_mode) return pair_positions(region);
      if (e.mode == index_positions_mode) return index_positions(region, e.nargs);
      shape_t s;
      for (int k = 0; k < e.nargs; ++k) s = k == 0 ? parse(region) : broadcast_shapes(s, parse(region));
      return s;
    }
    case prog_entry::reduction: break;
    case prog_entry::jagged:  // evaluate_lists takes these (evaluate_nest dispatches first)
      throw value_error("jetfuse: a jf::jagged operand in this operation is not supported (jf::take, histograms, "
                        "scans and scatters take dense arrays; use jf::flatten(x) for the elements)");
    }
    const int r = ri++;
    const int entry = pos;  // 1: this node is the root of the first expression
    if (r >= nspecs) throw error("jetfuse: internal: more reductions than specs");
    const bool counts =
        specs[r].kind == reducer::histogram || specs[r].kind == reducer::bincount || specs[r].kind == reducer::compact;
    if (counts && (region != 0 || pos != 1))
      throw error("jetfuse: internal: a histogram or a compaction must be the whole expression");
    const int operand_region = r + 1;
    a.regions.resize(std::max<std::size_t>(a.regions.size(), static_cast<std::size_t>(operand_region + 1)));
    a.regions[static_cast<std::size_t>(operand_region)].parent = region;
    const shape_t s = parse(operand_region);
    if (specs[r].kind == reducer::compact && e.nargs == 2) check_selected(s, parse(operand_region));
    a.regions[static_cast<std::size_t>(operand_region)].shape = s;
    reduce_spec sp = specs[r];
    const int rank = s.size();
    if (is_scan(sp.kind)) return scan(r, sp, s, region == 0 && entry == 1);
    if ((counts && sp.kind == reducer::bincount) || sp.bincount_operand) {
      if (rank != 1)
        throw value_error(rank == 0 ? "object of too small depth for desired array" : "object too deep for desired array");
    }
    if (counts) {  // every axis into a new one of `bins` counts
      if (sp.kind == reducer::histogram) a.binnings[static_cast<std::size_t>(r)] = make_binning(sp);
      sp.all_axes = true;
      sp.keepdims = false;
    }
    std::vector<bool> red(static_cast<std::size_t>(rank), sp.all_axes);
    if (!sp.all_axes) {
      for (int k = 0; k < sp.naxes; ++k) {
        int ax = sp.axes[k];
        if (ax < -rank || ax >= rank)
          throw axis_error("axis " + std::to_string(ax) + " is out of bounds for array of dimension " + std::to_string(rank));
        if (ax < 0) ax += rank;
        if (red[static_cast<std::size_t>(ax)]) throw axis_error("duplicate value in 'axis'");
        red[static_cast<std::size_t>(ax)] = true;
      }
    }
    sp.naxes = 0;
    std::int64_t reduced_elements = 1;
    shape_t result;
    for (int k = 0; k < rank; ++k) {
      if (red[static_cast<std::size_t>(k)]) {
        sp.axes[sp.naxes++] = k;
        reduced_elements *= s[k] == 0 ? 0 : 1;
        if (sp.keepdims) result.push_back(1);
      } else {
        result.push_back(s[k]);
      }
    }
    if (needs_elements(sp.kind) && !sp.allow_empty && reduced_elements == 0) throw value_error(empty_message(sp.kind));
    a.specs[static_cast<std::size_t>(r)] = sp;
    a.reduced[static_cast<std::size_t>(r)] = std::move(red);
    return counts ? shape_t{sp.bins} : result;
  }

  // cumsum / cumprod: numpy's accumulate keeps the operand's shape along an axis; without one it
  // runs over the flattened operand (a 0-d operand is one element: shape (1,)).
  shape_t scan(int r, reduce_spec sp, const shape_t& s, bool whole_expression) {
    const int rank = s.size();
    const int seen = rank == 0 ? 1 : rank;  // numpy treats a 0-d operand as 1-d
    sp.scan_axis = -1;
    if (!sp.all_axes) {
      int ax = sp.axes[0];
      if (ax < -seen || ax >= seen)
        throw axis_error("axis " + std::to_string(ax) + " is out of bounds for array of dimension " + std::to_string(seen));
      if (ax < 0) ax += seen;
      if (rank > 0) sp.scan_axis = ax;
    } else if (rank == 1) {
      sp.scan_axis = 0;
    }
    sp.all_axes = false;
    sp.keepdims = false;
    sp.naxes = 0;  // no axis is reduced: every axis of the operand is one of the result's
    a.specs[static_cast<std::size_t>(r)] = sp;
    a.reduced[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(rank), false);
    if (rank == 0) return shape_t{1};
    if (rank == 1 || sp.scan_axis >= 0) return s;
    if (!whole_expression)
      throw value_error("jf::" + std::string(name(sp.kind)) + " without an axis of a " + std::to_string(rank) +
                        "-d operand inside a larger expression: not supported yet; evaluate it into an array first "
                        "(jf::array<T> c = jf::" + std::string(name(sp.kind)) + "(x);) or give an axis");
    a.flat_root = true;
    a.flat_shape = s;
    return shape_t{s.product()};
  }

  // x(mask): the values must have the mask's shape (numpy's IndexError otherwise; a mask of lower
  // rank selecting whole rows is handled by the front end before it gets here).
  static void check_selected(const shape_t& mask, const shape_t& x) {
    check_mask_shape(x, mask);
    if (mask.size() < x.size())
      throw value_error("jetfuse: a mask expression of lower rank than the array it selects from: evaluate the mask "
                        "into an array first (whole rows are selected from an array mask)");
  }

  void new_leaf(int region, char gathered) {
    a.leaf_region.push_back(region);
    a.leaf_gathered.push_back(gathered);
    a.leaf_view.emplace_back();
    a.gather_axis.push_back(-1);
    a.gather_size.push_back(0);
    a.gather_stride.push_back(0);
    a.pair_size.push_back(-1);
    a.pair_stride.push_back(0);
    a.leaf_pad.push_back(0);
  }

  // jf::take(x, indices, axis): the operands are x (an array leaf), the indices, the axis (a
  // scalar leaf, normalised by the front end). Shape x[:axis] + indices + x[axis + 1:]. With
  // take_along_axis_flag added to the axis, numpy's take_along_axis: indices of x's rank, the shape
  // x's and the indices' broadcast, the indices' own extent along the axis.
  shape_t gather(int region, const prog_entry& e) {
    if (pos >= size || program[pos].kind != prog_entry::array) throw error("jetfuse: internal: a gather without its array");
    ++pos;
    const int leaf = ai++;
    new_leaf(region, 1);
    const array_base& x = *arrays[leaf];
    if (e.nargs == index_pair_program_nargs) return index_pair(region, e, leaf, x);
    if (e.mode == static_cast<std::int8_t>(ir::gather_mode::raise)) a.raises = true;
    const int first_leaf = ai, first_reduction = ri;
    const shape_t s = parse(region);
    if (pos >= size || program[pos].kind != prog_entry::scalar) throw error("jetfuse: internal: a gather without its axis");
    ++pos;
    std::int64_t axis = 0;
    std::memcpy(&axis, &scalars[si++].bits, sizeof axis);
    const bool along = axis >= take_along_axis_flag;
    if (along) axis -= take_along_axis_flag;
    if (axis < 0 || axis >= x.ndim()) throw error("jetfuse: internal: a gather's axis is not normalised");
    const int ax = static_cast<int>(axis), trailing = x.ndim() - ax - 1;
    shape_t result, view_shape;
    strides_t view_strides;
    if (along) {
      along_axis_shapes(x, s, ax, result, view_shape, view_strides);
    } else {
      if (trailing > 0) {  // the indices' axes come before x's last ones
        if (ri > first_reduction)
          throw value_error("jf::take: indices computed by a reduction, along an axis other than the last: not "
                            "supported yet; evaluate the indices first");
        for (int k = first_leaf; k < ai; ++k) a.leaf_pad[static_cast<std::size_t>(k)] += trailing;
      }
      for (int k = 0; k < ax; ++k) {
        result.push_back(x.shape()[k]);
        view_shape.push_back(x.shape()[k]);
        view_strides.push_back(x.strides()[k]);
      }
      for (int k = 0; k < s.size(); ++k) {
        result.push_back(s[k]);
        view_shape.push_back(1);
        view_strides.push_back(0);
      }
      for (int k = ax + 1; k < x.ndim(); ++k) {
        result.push_back(x.shape()[k]);
        view_shape.push_back(x.shape()[k]);
        view_strides.push_back(x.strides()[k]);
      }
      if (e.mode != search_program_mode && x.shape()[ax] == 0 && s.product() > 0)
        throw index_error("cannot do a non-empty take from an empty axes.");
    }
    const auto l = static_cast<std::size_t>(leaf);
    a.leaf_view[l] = array_base(x.buffer(), x.dtype(), view_shape, view_strides, x.offset());
    a.gather_axis[l] = ax;
    a.gather_size[l] = x.shape()[ax];
    a.gather_stride[l] = x.strides()[ax];
    return result;
  }

  // x(i, j), numpy's x[i, j]: the operands are x, i, j, an unused scalar. i and j broadcast
  // together (numpy's message when they do not) to the shape S; the result has S + x.shape[2:]. x's
  // view: S's axes of extent 1 and stride 0, then x's trailing axes; both indexed axes' lengths and
  // strides are params (gather_size/stride and pair_size/stride).
  // x(i, j) = v's positions: i and j broadcast together (numpy's IndexError), the two lengths.
  shape_t pair_positions(int region) {
    const shape_t ish = parse(region), jsh = parse(region);
    parse(region);
    parse(region);
    return broadcast_index_arrays(ish, jsh);
  }

  shape_t index_positions(int region, int nargs) {
    const int count = (nargs - 1) / 3;
    std::vector<shape_t> s;
    for (int k = 0; k < count; ++k) s.push_back(parse(region));
    for (int k = 0; k < 2 * count + 1; ++k) parse(region);  // lengths, strides, shift
    return broadcast_index_arrays(s.data(), count);
  }

  shape_t index_pair(int region, const prog_entry& e, int leaf, const array_base& x) {
    if (x.ndim() < 2) throw error("jetfuse: internal: an index pair of an array of fewer than 2 axes");
    if (e.mode == static_cast<std::int8_t>(ir::gather_mode::raise)) a.raises = true;
    const int first_leaf = ai, first_reduction = ri;
    const shape_t ish = parse(region), jsh = parse(region);
    if (pos >= size || program[pos].kind != prog_entry::scalar)
      throw error("jetfuse: internal: an index pair without its scalar");
    ++pos;
    ++si;
    const shape_t s = broadcast_index_arrays(ish, jsh);
    const int trailing = x.ndim() - 2;
    if (trailing > 0) {  // the index arrays' axes come before x's trailing ones
      if (ri > first_reduction)
        throw value_error(
            "jetfuse: x(i, j) with indices computed by a reduction on an array of more than 2 axes: not "
            "supported yet; evaluate the indices first");
      for (int k = first_leaf; k < ai; ++k) a.leaf_pad[static_cast<std::size_t>(k)] += trailing;
    }
    shape_t result, view_shape;
    strides_t view_strides;
    for (int k = 0; k < s.size(); ++k) {
      result.push_back(s[k]);
      view_shape.push_back(1);
      view_strides.push_back(0);
    }
    for (int k = 2; k < x.ndim(); ++k) {
      result.push_back(x.shape()[k]);
      view_shape.push_back(x.shape()[k]);
      view_strides.push_back(x.strides()[k]);
    }
    if ((x.shape()[0] == 0 || x.shape()[1] == 0) && s.product() > 0)
      throw error("jetfuse: internal: x(i, j) of an empty indexed axis reached the engine");  // the front end raises
    const auto l = static_cast<std::size_t>(leaf);
    a.leaf_view[l] = array_base(x.buffer(), x.dtype(), view_shape, view_strides, x.offset());
    a.gather_axis[l] = 0;
    a.gather_size[l] = x.shape()[0];
    a.gather_stride[l] = x.strides()[0];
    a.pair_size[l] = x.shape()[1];
    a.pair_stride[l] = x.strides()[1];
    return result;
  }

  // take_along_axis: numpy's checks (its messages), the result's shape and x's view (the gathered
  // axis of extent 1 and stride 0; x's other axes as they are, broadcast by the region where 1).
  static void along_axis_shapes(const array_base& x, const shape_t& s, int ax, shape_t& result, shape_t& view_shape,
                                strides_t& view_strides) {
    if (s.size() != x.ndim()) throw value_error("`indices` and `arr` must have the same number of dimensions");
    for (int k = 0; k < x.ndim(); ++k) {
      const std::int64_t n = x.shape()[k], m = s[k];
      if (k != ax && n != m && n != 1 && m != 1)
        throw shape_error("shape mismatch: jf::take_along_axis: indices of shape " + to_string(s) +
                          " do not broadcast against an array of shape " + to_string(x.shape()) + " outside axis " +
                          std::to_string(ax));
      result.push_back(k == ax ? m : n == 1 ? m : n);
      view_shape.push_back(k == ax ? 1 : n);
      view_strides.push_back(k == ax ? 0 : x.strides()[k]);
    }
  }
};

ir::domain_id find_or_add(nest_analysis& a, ir::domain_id parent, const std::vector<std::int32_t>& axes) {
  if (axes.empty()) return parent;
  for (std::size_t d = 1; d < a.domains.size(); ++d)
    if (a.domains[d].parent == parent && a.domains[d].axes == axes) return static_cast<ir::domain_id>(d);
  a.domains.push_back(ir::domain{ir::domain_kind::box, parent, axes, -1, 0});
  return static_cast<ir::domain_id>(a.domains.size() - 1);
}

bool contains(const std::vector<std::int32_t>& v, std::int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::vector<std::int32_t> chain_axes(const nest_analysis& a, ir::domain_id d) {
  std::vector<ir::domain_id> path;
  for (; d > 0; d = a.domains[static_cast<std::size_t>(d)].parent) path.push_back(d);
  std::vector<std::int32_t> axes;
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    for (std::int32_t x : a.domains[static_cast<std::size_t>(*it)].axes) axes.push_back(x);
  return axes;
}

void analyse_shapes(nest_analysis& a, const prog_entry* program, int program_size, const array_base* const* arrays,
                    const reduce_spec* specs, int nspecs, const scalar_slot* scalars) {
  a.regions.assign(static_cast<std::size_t>(nspecs + 1), {});
  a.specs.assign(static_cast<std::size_t>(nspecs), {});
  a.reduced.assign(static_cast<std::size_t>(nspecs), {});
  a.binnings.assign(static_cast<std::size_t>(nspecs), {});
  a.leaf_region.clear();
  a.leaf_gathered.clear();
  a.leaf_view.clear();
  a.gather_axis.clear();
  a.gather_size.clear();
  a.gather_stride.clear();
  a.pair_size.clear();
  a.pair_stride.clear();
  a.leaf_pad.clear();
  a.raises = false;
  a.scatter = false;
  a.target_axis = -1;
  a.target_domain = 0;
  a.flat_root = false;
  a.flat_shape = shape_t{};
  parser p{a, program, program_size, arrays, specs, nspecs, scalars};
  bool first = true;
  while (p.pos < program_size) {  // one prefix program per expression of jf::eval(e1, e2, ...)
    const shape_t s = p.parse(0);
    if (!first && a.flat_root)
      throw value_error("jetfuse: a flattened scan of an operand of 2 or more dimensions evaluated with other "
                        "expressions in one jf::eval: not supported yet; evaluate it on its own");
    a.value_shape = first ? s : broadcast_shapes(a.value_shape, s);
    first = false;
  }
}

shape_t broadcast_index_arrays(const shape_t& i, const shape_t& j) {
  const shape_t both[2] = {i, j};
  return broadcast_index_arrays(both, 2);
}

shape_t broadcast_index_arrays(const shape_t* shapes, int n) {
  try {
    shape_t s = shapes[0];
    for (int k = 1; k < n; ++k) s = broadcast_shapes(s, shapes[k]);
    return s;
  } catch (const shape_error&) {
    std::string message = "shape mismatch: indexing arrays could not be broadcast together with shapes ";
    for (int k = 0; k < n; ++k) message += to_string(shapes[k]) + " ";
    throw index_error(message);
  }
}

bool values_fit(const shape_t& values, const shape_t& result) {
  if (values.size() > result.size()) return false;
  try {
    return broadcast_shapes(values, result) == result;
  } catch (const shape_error&) {
    return false;
  }
}

std::string numpy_shape(const shape_t& s) {
  std::string t("(");  // appended piece by piece (g++ 12's -Wrestrict misfires on operator+)
  for (int k = 0; k < s.size(); ++k) {
    if (k) t.append(",");
    t.append(std::to_string(s[k]));
  }
  t.append(s.size() == 1 ? ",)" : ")");
  return t;
}

void analyse_scatter_shapes(nest_analysis& a, const prog_entry* program, int program_size, const array_base* const* arrays,
                            const scalar_slot* scalars, const scatter_spec& sp, const array_base& target) {
  for (int k = 0; k < program_size; ++k)
    if (program[k].kind == prog_entry::reduction)
      throw value_error("jetfuse: indices or values computed by a reduction are not supported in a scatter yet; "
                        "evaluate them into an array first");
  analyse_shapes(a, program, 0, arrays, nullptr, 0, scalars);  // resets the analysis
  a.regions.assign(2, {});
  a.scatter = true;
  parser p{a, program, program_size, arrays, nullptr, 0, scalars};
  a.index_shape = p.parse(1);
  if (p.ai != sp.index_arrays) throw error("jetfuse: internal: a scatter's indices have another number of leaves");
  a.values_shape = p.parse(0);
  if (p.pos != program_size) throw error("jetfuse: internal: a scatter's program has more than two expressions");
  if (target.ndim() == 0)
    throw index_error("too many indices for array: array is 0-dimensional, but 1 were indexed");
  shape_t values = a.index_shape, indices = a.index_shape;
  for (int k = 1; k < target.ndim(); ++k) {
    values.push_back(target.shape()[k]);
    indices.push_back(1);  // the indices' axes come before the target's other axes
  }
  for (int k = 0; k < sp.index_arrays; ++k) a.leaf_pad[static_cast<std::size_t>(k)] += target.ndim() - 1;
  a.regions[0].shape = values;
  a.regions[1].shape = indices;
  a.regions[1].parent = 0;
  a.value_shape = values;
  if (sp.kind == scatter_kind::put) return;  // cyclic values: the engine's business
  if (sp.kind == scatter_kind::ufunc_at && !values_fit(a.values_shape, values))
    throw shape_error("array is not broadcastable to correct shape");
  check_values_fit(a.values_shape, values);
}

void assign_scatter_domains(nest_analysis& a, const array_base& target) {
  a.extents.clear();
  a.domains.assign(1, ir::domain{});
  auto new_axis = [&](std::int64_t extent) {
    a.extents.push_back(extent);
    return static_cast<std::int32_t>(a.extents.size() - 1);
  };
  nest_analysis::region& V = a.regions[0];
  nest_analysis::region& X = a.regions[1];
  const int ni = a.index_shape.size(), nd = V.shape.size();
  V.axis.assign(static_cast<std::size_t>(nd), -1);
  X.axis.assign(static_cast<std::size_t>(nd), -1);
  std::vector<std::int32_t> claims, own;
  for (int k = 0; k < nd; ++k) {
    if (V.shape[k] == 1) continue;
    const std::int32_t x = new_axis(V.shape[k]);
    V.axis[static_cast<std::size_t>(k)] = x;
    if (k < ni) X.axis[static_cast<std::size_t>(k)] = x;
    (k < ni ? claims : own).push_back(x);
  }
  X.domain = X.result_domain = find_or_add(a, 0, claims);
  V.domain = V.result_domain = find_or_add(a, X.domain, own);
  a.target_axis = new_axis(target.shape()[0]);  // always an axis: its extent is the target's length
  a.domains.push_back(ir::domain{ir::domain_kind::box, 0, {a.target_axis}, -1, 0});
  a.target_domain = static_cast<ir::domain_id>(a.domains.size() - 1);
}

std::vector<std::int64_t> scatter_target_strides(const nest_analysis& a, const array_base& target) {
  std::vector<std::int64_t> s(a.extents.size(), 0);
  const nest_analysis::region& V = a.regions[0];
  const int ni = a.index_shape.size();
  for (int k = ni; k < V.shape.size(); ++k)
    if (V.axis[static_cast<std::size_t>(k)] >= 0)
      s[static_cast<std::size_t>(V.axis[static_cast<std::size_t>(k)])] = target.strides()[k - ni + 1];
  s[static_cast<std::size_t>(a.target_axis)] = target.strides()[0];
  return s;
}

void assign_domains(nest_analysis& a, const shape_t& iter) {
  a.extents.clear();
  a.domains.assign(1, ir::domain{});
  auto new_axis = [&](std::int64_t extent) {
    a.extents.push_back(extent);
    return static_cast<std::int32_t>(a.extents.size() - 1);
  };
  nest_analysis::region& root = a.regions[0];
  root.shape = iter;
  root.axis.clear();
  for (int k = 0; k < iter.size(); ++k) root.axis.push_back(iter[k] != 1 ? new_axis(iter[k]) : -1);
  // Global axes, parents before children (regions are numbered in prefix order).
  for (std::size_t q = 1; q < a.regions.size(); ++q) {
    nest_analysis::region& Q = a.regions[q];
    const nest_analysis::region& P = a.regions[static_cast<std::size_t>(Q.parent)];
    const reduce_spec& sp = a.specs[q - 1];
    const std::vector<bool>& red = a.reduced[q - 1];
    const int rank = Q.shape.size();
    const int result_rank = sp.keepdims ? rank : rank - sp.naxes;
    const int offset = P.shape.size() - result_rank;
    Q.axis.assign(static_cast<std::size_t>(rank), -1);
    // A sibling reduction of the same region over axes of the same extents and kept axes (sum(x, 1)
    // + sum(y, 1), mean and var of one operand) shares its reduced loops: one domain, one kernel.
    const nest_analysis::region* twin = nullptr;
    for (std::size_t t = 1; t < q && !twin; ++t) {
      const nest_analysis::region& T = a.regions[t];
      if (T.parent == Q.parent && T.shape == Q.shape && a.reduced[t - 1] == red && a.specs[t - 1].keepdims == sp.keepdims &&
          is_scan(a.specs[t - 1].kind) == is_scan(sp.kind))
        twin = &T;
    }
    int p = 0;
    for (int j = 0; j < rank; ++j) {
      if (red[static_cast<std::size_t>(j)]) {
        if (Q.shape[j] != 1) {
          // keepdims into the result: the reduced axis lines up with an axis of the same extent of
          // the result (x - mean(x, 1, keepdims)); sharing it makes the reduction's domain the
          // element-wise work's, so a kernel reads each row once for both.
          const int rr = offset + p;
          if (twin) Q.axis[static_cast<std::size_t>(j)] = twin->axis[static_cast<std::size_t>(j)];
          else if (sp.keepdims && Q.parent == 0 && rr >= 0 && P.shape[rr] == Q.shape[j] && P.axis[static_cast<std::size_t>(rr)] >= 0)
            Q.axis[static_cast<std::size_t>(j)] = P.axis[static_cast<std::size_t>(rr)];
          else Q.axis[static_cast<std::size_t>(j)] = new_axis(Q.shape[j]);
        }
        if (sp.keepdims) ++p;
        continue;
      }
      if (Q.shape[j] != 1) Q.axis[static_cast<std::size_t>(j)] = P.axis[static_cast<std::size_t>(offset + p)];
      ++p;
    }
  }
  // Domains, parents first. A region whose reductions all keep the same axes nests its own loops
  // inside theirs, so a kernel can compute those reductions and use them without a temporary.
  // A scan's operand is one box of all its axes under the root (the scan runs along one of them,
  // its result lives there): the same domain as its parent's when their axes agree.
  for (std::size_t r = 0; r < a.regions.size(); ++r) {
    nest_analysis::region& R = a.regions[r];
    const bool scan_operand = r > 0 && is_scan(a.specs[r - 1].kind);
    const ir::domain_id parent = r == 0 || scan_operand ? 0 : R.result_domain;
    const std::vector<std::int32_t> above = chain_axes(a, parent);
    std::vector<std::int32_t> own;
    for (std::int32_t x : R.axis)
      if (x >= 0 && !contains(above, x)) own.push_back(x);
    std::vector<std::size_t> children;  // reductions of this region (scans are not nested)
    for (std::size_t q = 1; q < a.regions.size(); ++q) {
      if (a.regions[q].parent != static_cast<int>(r)) continue;
      if (is_scan(a.specs[q - 1].kind)) a.regions[q].result_domain = 0;
      else children.push_back(q);
    }
    auto kept = [&](std::size_t q) {  // the child's kept axes, in this region's axis order
      std::vector<std::int32_t> child_kept;
      const auto& Q = a.regions[q];
      for (std::size_t j = 0; j < Q.axis.size(); ++j)
        if (Q.axis[j] >= 0 && !a.reduced[q - 1][j]) child_kept.push_back(Q.axis[j]);
      std::vector<std::int32_t> k;
      for (std::int32_t x : R.axis)
        if (x >= 0 && contains(child_kept, x)) k.push_back(x);
      return k;
    };
    bool nest = !children.empty() && !scan_operand;  // a scan's reductions are stored first
    // argmin/argmax positions count the reduced axes in the operand's order: keep them in one box.
    if (r > 0 && (a.specs[r - 1].kind == reducer::argmin || a.specs[r - 1].kind == reducer::argmax)) nest = false;
    std::vector<std::int32_t> K = nest ? kept(children[0]) : std::vector<std::int32_t>{};
    for (std::size_t c = 1; nest && c < children.size(); ++c) nest = kept(children[c]) == K;
    for (std::int32_t x : above)
      if (nest && !contains(K, x)) nest = false;
    if (nest) {
      std::vector<std::int32_t> outer_axes, inner_axes;
      for (std::int32_t x : own) (contains(K, x) ? outer_axes : inner_axes).push_back(x);
      const ir::domain_id outer = find_or_add(a, parent, outer_axes);
      R.domain = find_or_add(a, outer, inner_axes);
      for (std::size_t q : children) a.regions[q].result_domain = outer;
    } else {
      R.domain = find_or_add(a, parent, own);
      for (std::size_t q : children) {
        const std::vector<std::int32_t> k = kept(q);
        bool under_parent = true;
        for (std::int32_t x : above) under_parent = under_parent && contains(k, x);
        std::vector<std::int32_t> extra;
        for (std::int32_t x : k)
          if (!under_parent || !contains(above, x)) extra.push_back(x);
        a.regions[q].result_domain = find_or_add(a, under_parent ? parent : 0, extra);
      }
    }
  }
}

void renumber_axes(nest_analysis& a, const std::vector<std::int32_t>& to) {
  std::vector<std::int64_t> extents(a.extents.size());
  for (std::size_t g = 0; g < to.size(); ++g) extents[static_cast<std::size_t>(to[g])] = a.extents[g];
  a.extents = std::move(extents);
  for (ir::domain& d : a.domains)
    for (std::int32_t& x : d.axes) x = to[static_cast<std::size_t>(x)];
  for (nest_analysis::region& R : a.regions)
    for (std::int32_t& x : R.axis)
      if (x >= 0) x = to[static_cast<std::size_t>(x)];
  if (a.target_axis >= 0) a.target_axis = to[static_cast<std::size_t>(a.target_axis)];
}

std::vector<std::int64_t> global_strides(const nest_analysis& a, const array_base& x, int region) {
  const nest_analysis::region& R = a.regions[static_cast<std::size_t>(region)];
  const strides_t eff = effective_strides(x, R.shape);
  std::vector<std::int64_t> g(a.extents.size(), 0);
  for (int j = 0; j < R.shape.size(); ++j)
    if (R.axis[static_cast<std::size_t>(j)] >= 0) g[static_cast<std::size_t>(R.axis[static_cast<std::size_t>(j)])] = eff[j];
  return g;
}

void number_extra_params(nest_analysis& a, int base) {
  a.first_param.assign(a.specs.size(), -1);
  a.extra_params.clear();
  for (std::size_t r = 0; r < a.specs.size(); ++r) {
    if (a.specs[r].kind != reducer::histogram) continue;
    const binning& b = a.binnings[r];
    a.first_param[r] = base + static_cast<std::int32_t>(a.extra_params.size());
    auto bits = [](dtype t, double v) {
      std::uint64_t u = 0;
      if (t == dtype::float32) {
        const float f = static_cast<float>(v);
        std::memcpy(&u, &f, sizeof f);
      } else {
        std::memcpy(&u, &v, sizeof v);
      }
      return u;
    };
    for (double v : {b.first_e, b.last_e}) a.extra_params.push_back(bits(b.edge, v));
    for (double v : {b.first, b.last, b.denom, b.step}) a.extra_params.push_back(bits(b.work, v));
  }
}

const array_base& aligned_leaf(const nest_analysis& a, const array_base& x, int leaf, array_base& scratch) {
  const auto l = static_cast<std::size_t>(leaf);
  const array_base& v = a.leaf_gathered[l] ? a.leaf_view[l] : x;
  if (a.leaf_pad[l] == 0) return v;
  shape_t sh = v.shape();
  strides_t st = v.strides();
  for (int k = 0; k < a.leaf_pad[l]; ++k) {
    sh.push_back(1);
    st.push_back(0);
  }
  scratch = array_base(v.buffer(), v.dtype(), sh, st, v.offset());
  return scratch;
}

ir::domain_id region_domain(const nest_analysis& a, int region) { return a.regions[static_cast<std::size_t>(region)].domain; }

}  // namespace jf::detail
