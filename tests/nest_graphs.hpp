// Hand-built loop-nest graphs shared by test_codegen_nest.cpp (shapes, NVRTC) and
// test_cuda_nest.cpp (runs on the GPU): full, row, column reductions, x - mean(x), nested ones.
#pragma once

#include <string>
#include <vector>

#include "jetfuse/ir/graph.hpp"

namespace nest_test {

using jf::dtype;
using jf::monoid;
using jf::op;
using jf::ir::domain_id;
using jf::ir::graph;
using jf::ir::layout;
using jf::ir::node_id;

inline const monoid all_monoids[] = {monoid::sum,    monoid::prod,   monoid::min,    monoid::max,    monoid::any,
                                     monoid::all,    monoid::argmin, monoid::argmax, monoid::nanmin, monoid::nanmax};
inline const dtype all_dtypes[] = {dtype::bool_,  dtype::int8,   dtype::int16,  dtype::int32,
                                   dtype::int64,  dtype::uint8,  dtype::uint16, dtype::uint32,
                                   dtype::uint64, dtype::float32, dtype::float64};

// The dtypes of the slowest NVRTC compile tests (list and pairs kernels of every monoid): the
// first five and one of each other C++ type family (an 8-bit unsigned, a 16-bit signed and a
// 64-bit unsigned integer), whose generated code differs only by its type names.
inline const dtype some_dtypes[] = {dtype::bool_,   dtype::int32,   dtype::int64, dtype::float32,
                                    dtype::float64, dtype::uint8,   dtype::int16, dtype::uint64};

// any/all reduce bool only; every other monoid takes every dtype.
inline bool monoid_accepts(monoid m, dtype t) {
  return (m == monoid::any || m == monoid::all) ? t == dtype::bool_ : true;
}

inline node_id in_domain(graph& g, node_id id, domain_id d) {
  g.nodes[static_cast<std::size_t>(id)].domain = d;
  return id;
}
inline node_id input_at(graph& g, dtype t, layout l, domain_id d) { return in_domain(g, g.add_input(t, l), d); }
inline void output_at(graph& g, node_id v, domain_id d, layout l = layout::strided) {
  g.add_output(v, l);
  g.outputs.back().domain = d;
}
// A guard that keeps most iterations: x == x for floats (skips NaN), x != 1 otherwise.
inline node_id guard_of(graph& g, node_id x, dtype t) {
  if (t == dtype::bool_) return g.add_op(op::logical_not, dtype::bool_, {x});
  const node_id one = g.add_constant(t, jf::ir::scalar_value::of(t, 1));
  return g.add_op(t == dtype::float32 || t == dtype::float64 ? op::less_equal : op::not_equal, dtype::bool_,
                  {x, t == dtype::float32 || t == dtype::float64 ? x : one});
}

// reduce(m, x [if guard]) over a 1-d input of n elements into the root: out0 shape ().
inline graph full(monoid m, dtype t, bool guard, bool i32 = false, layout lay = layout::contiguous) {
  graph g;
  g.ndim = 1;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id d = g.add_box(0, {0});
  const node_id x = input_at(g, t, lay, d);
  output_at(g, g.add_reduce(m, x, guard ? guard_of(g, x, t) : jf::ir::no_node), 0, layout::contiguous);
  return g;
}

// reduce(m, x, axis=1) of an (rows, len) input: K = box(axis 0), R = box(axis 1) under K.
inline graph rows(monoid m, dtype t, bool guard, bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  output_at(g, g.add_reduce(m, x, guard ? guard_of(g, x, t) : jf::ir::no_node), k);
  return g;
}

// reduce(m, x, axis=0) of an (len, cols) input: K = box(axis 1), R = box(axis 0) under K.
inline graph columns(monoid m, dtype t, bool guard, bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {1}), r = g.add_box(k, {0});
  const node_id x = input_at(g, t, layout::strided, r);
  output_at(g, g.add_reduce(m, x, guard ? guard_of(g, x, t) : jf::ir::no_node), k);
  return g;
}

// x - mean(x, 1, keepdims) of (rows, len) floats, plus the mean as a second output.
inline graph minus_row_mean(dtype t, bool with_mean_output, bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  const node_id s = g.add_reduce(monoid::sum, x);
  const node_id n = in_domain(g, g.add_cast(t, g.add_extent(r)), k);
  const node_id mean = g.add_op(op::true_divide, t, {s, n});
  const node_id y = g.add_op(op::subtract, t, {x, g.add_broadcast(mean, r)});
  output_at(g, y, r, layout::contiguous);
  if (with_mean_output) output_at(g, mean, k);
  return g;
}

// x - mean(x, 1, keepdims) as the lowering builds it when the map shares the reduced domain:
//   D1 = box(axis 0) in root, D2 = box(axis 1) in D1
//   %0 = input #0 @ D2 (one node: read by the reduce and by the subtract), %1 = reduce sum %0 @ D1,
//   %2 = %1 / n @ D1, %3 = broadcast %2 @ D2, %4 = subtract %0, %3 @ D2; out #0 @ D2.
// The count n is a constant cast from the extent node of D2 (uniform).
inline graph x_minus_row_mean(dtype t, bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  const node_id n = in_domain(g, g.add_cast(t, g.add_extent(r)), k);
  const node_id mean = g.add_op(op::true_divide, t, {g.add_reduce(monoid::sum, x), n});
  output_at(g, g.add_op(op::subtract, t, {x, g.add_broadcast(mean, r)}), r, layout::contiguous);
  return g;
}

// x - reduce(m, x, 1, keepdims) of (rows, len) values of any numeric dtype (not argmin/argmax): the
// map over the reduced domain reads the reduction's load of x.
inline graph minus_row_reduce(monoid m, dtype t, bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  const node_id red = g.add_reduce(m, x);
  output_at(g, g.add_op(op::subtract, t, {x, g.add_broadcast(red, r)}), r, layout::contiguous);
  return g;
}

// Two loads both loops read (a float32, b float64, strided) and one only the map reads (c):
// p = f64(a) * b, s = sum(p if b <= b) per row; y = p - s / n and z = c + s over R, s over K.
// Outputs: y (contiguous), z (strided), s.
inline graph row_cache_mixed(bool i32 = false) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id a = input_at(g, dtype::float32, layout::contiguous, r);
  const node_id b = input_at(g, dtype::float64, layout::strided, r);
  const node_id c = input_at(g, dtype::float64, layout::strided, r);
  const node_id p = g.add_op(op::multiply, dtype::float64, {g.add_cast(dtype::float64, a), b});
  const node_id s = g.add_reduce(monoid::sum, p, guard_of(g, b, dtype::float64));
  const node_id n = in_domain(g, g.add_cast(dtype::float64, g.add_extent(r)), k);
  const node_id mean = g.add_op(op::true_divide, dtype::float64, {s, n});
  output_at(g, g.add_op(op::subtract, dtype::float64, {p, g.add_broadcast(mean, r)}), r, layout::contiguous);
  output_at(g, g.add_op(op::add, dtype::float64, {c, g.add_broadcast(s, r)}), r);
  output_at(g, s, k);
  return g;
}

// x - mean(x) with the map in a box of its own (M, the same axis, a sibling of R under K) reading
// input #1 (bind x twice): row_with_map without the row cache (nothing of R is read by the map).
inline graph minus_row_mean_sibling(dtype t) {
  graph g;
  g.ndim = 2;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1}), m = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  const node_id n = in_domain(g, g.add_cast(t, g.add_extent(r)), k);
  const node_id mean = g.add_op(op::true_divide, t, {g.add_reduce(monoid::sum, x), n});
  const node_id x2 = input_at(g, t, layout::contiguous, m);
  output_at(g, g.add_op(op::subtract, t, {x2, g.add_broadcast(mean, m)}), m, layout::contiguous);
  return g;
}

// sqrt(sum(a*b)), max(a) and argmin(b) of two 1-d float64 inputs: three reductions, one kernel.
inline graph full_three(bool i32 = false) {
  graph g;
  g.ndim = 1;
  g.index32 = i32;
  g.domains.resize(1);
  const domain_id d = g.add_box(0, {0});
  const node_id a = input_at(g, dtype::float64, layout::contiguous, d);
  const node_id b = input_at(g, dtype::float64, layout::strided, d);
  const node_id s = g.add_reduce(monoid::sum, g.add_op(op::multiply, dtype::float64, {a, b}));
  output_at(g, g.add_op(op::sqrt, dtype::float64, {s}), 0, layout::contiguous);
  output_at(g, g.add_reduce(monoid::max, a), 0, layout::contiguous);
  output_at(g, g.add_reduce(monoid::argmin, b), 0, layout::contiguous);
  return g;
}

// max over rows of each row's sum (nested reductions): generic.
inline graph max_of_row_sums(dtype t) {
  graph g;
  g.ndim = 2;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::strided, r);
  const node_id s = g.add_reduce(monoid::sum, x);
  output_at(g, g.add_reduce(monoid::max, s), 0, layout::contiguous);
  output_at(g, s, k);  // the row sums too
  return g;
}

// Row variance, two-pass: sum((x - mean)^2) / n: a reduction reads a reduced value (generic).
inline graph row_variance(dtype t) {
  graph g;
  g.ndim = 2;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::contiguous, r);
  const node_id n = in_domain(g, g.add_cast(t, g.add_extent(r)), k);
  const node_id mean = g.add_op(op::true_divide, t, {g.add_reduce(monoid::sum, x), n});
  const node_id d = g.add_op(op::subtract, t, {x, g.add_broadcast(mean, r)});
  const node_id var = g.add_op(op::true_divide, t, {g.add_reduce(monoid::sum, g.add_op(op::multiply, t, {d, d})), n});
  output_at(g, var, k);
  return g;
}

// sum over axis 1 of an (a, b, c) array: K = box(0, 2), R = box(1): a column reduction (axis 2 in K).
inline graph middle_axis(monoid m, dtype t) {
  graph g;
  g.ndim = 3;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0, 2}), r = g.add_box(k, {1});
  const node_id x = input_at(g, t, layout::strided, r);
  output_at(g, g.add_reduce(m, x), k);
  return g;
}

// sum over axes (1, 2) of an (a, b, c) array with a per-row offset y[i] broadcast in: a row reduction.
inline graph last_two_axes(dtype t) {
  graph g;
  g.ndim = 3;
  g.domains.resize(1);
  const domain_id k = g.add_box(0, {0}), r = g.add_box(k, {1, 2});
  const node_id x = input_at(g, t, layout::strided, r);
  const node_id y = input_at(g, t, layout::strided, k);
  output_at(g, g.add_reduce(monoid::sum, g.add_op(op::subtract, t, {x, g.add_broadcast(y, r)})), k);
  return g;
}

// scan(m, x * 2) along axis `axis` of an input of `ndim` axes (-1: flattened), plus an input y
// added to the scanned value when `consumer`: out0 = scan(...) [+ y], all in one box.
inline graph scan_of(monoid m, dtype t, int ndim, int axis, bool consumer = false, bool i32 = false,
                     layout lay = layout::strided) {
  graph g;
  g.ndim = ndim;
  g.index32 = i32;
  g.domains.resize(1);
  std::vector<std::int32_t> axes;
  for (int a = 0; a < ndim; ++a) axes.push_back(a);
  const domain_id d = g.add_box(0, axes);
  const node_id x = input_at(g, t, lay, d);
  const node_id two = g.add_constant(t, jf::ir::scalar_value::of(t, 2));
  node_id v = g.add_scan(m, g.add_op(op::multiply, t, {x, two}), axis);
  if (consumer) v = g.add_op(op::add, t, {v, input_at(g, t, layout::strided, d)});
  output_at(g, v, d);
  return g;
}

// x[mask] of an input of `ndim` axes (0 .. ndim-1) with mask = x > 0 (with `bool_mask` a bool input
// of its own, contiguous): the selected values (x * 2, or with `indices` their flat positions)
// stored at positions scan(sum, mask) - 1 along axis ndim.
inline graph compaction(dtype t, int ndim, bool indices = false, bool i32 = false, bool bool_mask = false) {
  graph g;
  g.ndim = ndim + 1;
  g.index32 = i32;
  g.domains.resize(1);
  std::vector<std::int32_t> axes;
  for (int a = 0; a < ndim; ++a) axes.push_back(a);
  const domain_id d = g.add_box(0, axes), b = g.add_box(0, {ndim});
  const node_id x = input_at(g, t, layout::strided, d);
  const node_id m = bool_mask
                        ? input_at(g, dtype::bool_, layout::contiguous, d)
                        : g.add_op(op::greater, dtype::bool_, {x, g.add_constant(t, jf::ir::scalar_value::of(t, 0))});
  const node_id upto = g.add_scan(monoid::sum, g.add_cast(dtype::int64, m), -1);
  const node_id pos = g.add_op(op::subtract, dtype::int64, {upto, g.add_constant(dtype::int64, jf::ir::scalar_value::of(dtype::int64, 1))});
  const node_id v = indices ? g.add_index(d, -1) : g.add_op(op::multiply, t, {x, g.add_constant(t, jf::ir::scalar_value::of(t, 2))});
  output_at(g, g.add_store(v, pos, m, b), b);
  return g;
}

// ---- jagged arrays: list graphs (docs/design.md, "List domains (contract)") --------------------
// Global axis 0: the list index i (extent: the number of lists); axis 1: the element position j
// (extent: offsets[n] - offsets[0]). Input #0: the offsets (int64, read by no node).

// A graph with L = list(offsets #0, axis 0) in the root and E = elements(L, axis 1) in L.
inline graph list_graph(bool i32, domain_id& list, domain_id& elements) {
  graph g;
  g.ndim = 2;
  g.index32 = i32;
  g.loop_nest = true;
  g.domains.resize(1);
  g.inputs.push_back({dtype::int64, layout::strided});  // the offsets
  list = g.add_list(0, 0);
  elements = g.add_elements(list, 1);
  return g;
}

// reduce(m, x [if guard]) per list of a jagged x (input #1, content): out0 over L.
inline graph list_reduce(monoid m, dtype t, bool guard, bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const node_id x = input_at(g, t, layout::strided, e);
  output_at(g, g.add_reduce(m, x, guard ? guard_of(g, x, t) : jf::ir::no_node, l), l);
  return g;
}

// x * 2 + met of float x (#1, content) and met (#2, one per list): broadcast(met @ L) @ E, or (direct)
// met read in E with stride 0 along the elements. out0 over E (a content).
inline graph list_map(dtype t, bool direct, bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const node_id x = input_at(g, t, layout::strided, e);
  const node_id met = direct ? input_at(g, t, layout::strided, e) : g.add_broadcast(input_at(g, t, layout::strided, l), e);
  const node_id two = g.add_constant(t, jf::ir::scalar_value::of(t, 2));
  const node_id y = g.add_op(op::add, t, {g.add_op(op::multiply, t, {x, two}), met});
  in_domain(g, y - 1, e);
  output_at(g, in_domain(g, y, e), e);
  return g;
}

// Per list of x (#1): s = sum(x), c = sum(1) (int64), mean = s / c (float64), valid = c > 0.
// Outputs over L: mean, c, valid.
inline graph list_mean(dtype t, bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const node_id x = input_at(g, t, layout::strided, e);
  const node_id sum = g.add_reduce(monoid::sum, x, jf::ir::no_node, l);
  const node_id one = g.add_broadcast(g.add_constant(dtype::int64, jf::ir::scalar_value::of(dtype::int64, 1)), e);
  const node_id count = g.add_reduce(monoid::sum, one, jf::ir::no_node, l);
  const node_id mean = in_domain(g, g.add_op(op::true_divide, dtype::float64, {in_domain(g, g.add_cast(dtype::float64, sum), l),
                                                                          in_domain(g, g.add_cast(dtype::float64, count), l)}), l);
  const node_id valid =
      in_domain(g, g.add_op(op::greater, dtype::bool_, {count, g.add_constant(dtype::int64, jf::ir::scalar_value::of(dtype::int64, 0))}), l);
  output_at(g, mean, l);
  output_at(g, count, l);
  output_at(g, valid, l);
  return g;
}

// x - mean(x) per list (float64): the reduction, the mean per list, then the map over E in one kernel.
// out0 over E.
inline graph list_minus_mean(bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const dtype t = dtype::float64;
  const node_id x = input_at(g, t, layout::strided, e);
  const node_id sum = g.add_reduce(monoid::sum, x, jf::ir::no_node, l);
  const node_id one = g.add_broadcast(g.add_constant(t, jf::ir::scalar_value::of(t, 1)), e);
  const node_id count = g.add_reduce(monoid::sum, one, jf::ir::no_node, l);
  const node_id mean = in_domain(g, g.add_op(op::true_divide, t, {sum, count}), l);
  const node_id y = in_domain(g, g.add_op(op::subtract, t, {x, g.add_broadcast(mean, e)}), e);
  output_at(g, y, e);
  return g;
}

// max(sqrt(x * x * 2 + met) - 1) per list of float32 x (#1) and met (#2 per list): five element-wise
// operations and a per-list max (the benchmark's pipeline). out0 over L.
inline graph list_pipeline_max(bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const dtype t = dtype::float32;
  const node_id x = input_at(g, t, layout::strided, e);
  const node_id met = g.add_broadcast(input_at(g, t, layout::strided, l), e);
  auto at_e = [&](node_id id) { return in_domain(g, id, e); };
  const node_id xx = at_e(g.add_op(op::multiply, t, {x, x}));
  const node_id x2 = at_e(g.add_op(op::multiply, t, {xx, g.add_constant(t, jf::ir::scalar_value::of(t, 2))}));
  const node_id sm = at_e(g.add_op(op::add, t, {x2, met}));
  const node_id sq = at_e(g.add_op(op::sqrt, t, {sm}));
  const node_id y = at_e(g.add_op(op::subtract, t, {sq, g.add_constant(t, jf::ir::scalar_value::of(t, 1))}));
  output_at(g, g.add_reduce(monoid::max, y, jf::ir::no_node, l), l);
  return g;
}

// reduce(m, x [if guard]) over every element of every list into the root (from E), or with
// `of_lists` over a per-list input (#1, from L). out0 in the root.
inline graph list_full(monoid m, dtype t, bool guard, bool of_lists, bool i32 = false) {
  domain_id l, e;
  graph g = list_graph(i32, l, e);
  const node_id x = input_at(g, t, layout::strided, of_lists ? l : e);
  output_at(g, g.add_reduce(m, x, guard ? guard_of(g, x, t) : jf::ir::no_node, 0), 0, layout::contiguous);
  if (of_lists) g.domains.pop_back();  // no elements domain
  return g;
}

// ---- combinations: pairs domains (docs/design.md, "Pairs domains (contract)") ------------------
// Global axes: 0 the list i, 1 the element j (E, for sizing), 2 .. 1 + arity the slots j_0 < j_1
// (< j_2). Input #0: the offsets. A field read at slot k is an input of P whose strides are 1 along
// axis 2 + k and 0 elsewhere (the tests bind one content buffer to several slots' inputs).

// L = list(offsets #0, axis 0), E = elements(L, axis 1), P = pairs(L, arity, axes 2..). With
// `product` (arity 2): P = product(L, offsets_b #1, axes 2, 3), a cartesian product whose slot 1
// walks the second offsets (docs/design.md, "Product domains (contract)"); the fields follow #1.
inline graph pairs_graph(int arity, bool i32, domain_id& list, domain_id& pairs, bool product = false) {
  graph g;
  g.ndim = 2 + arity;
  g.index32 = i32;
  g.loop_nest = true;
  g.domains.resize(1);
  g.inputs.push_back({dtype::int64, layout::strided});  // the offsets
  if (product) g.inputs.push_back({dtype::int64, layout::strided});  // slot 1's offsets
  list = g.add_list(0, 0);
  g.add_elements(list, 1);
  pairs = product ? g.add_product(list, 1, 2) : g.add_pairs(list, arity, 2);
  return g;
}

// An input read in pairs domain p at `slot` (0 .. arity-1), or a value per list (slot = arity);
// with `promised` its operand_desc::slot says so (the kernel specialises), else the kernel finds
// its role from the strides at run time.
inline node_id slot_input_at(graph& g, dtype t, domain_id p, int slot, bool promised) {
  const node_id x = input_at(g, t, layout::strided, p);
  if (promised) g.inputs.back().slot = static_cast<std::int8_t>(slot);
  return x;
}

// The test body of a combination of fields x_0, x_1 (, x_2) (inputs #1 .. #arity, one per slot):
// x_0 - x_1 (+ x_2), or for bool x_0 != x_1 (!= x_2): its value depends on the slots' order.
inline node_id pairs_body(graph& g, dtype t, int arity, domain_id p, bool promised = true) {
  std::vector<node_id> x;
  for (int k = 0; k < arity; ++k) x.push_back(slot_input_at(g, t, p, k, promised));
  node_id v;
  if (t == dtype::bool_) {
    v = in_domain(g, g.add_op(op::not_equal, dtype::bool_, {x[0], x[1]}), p);
    if (arity == 3) v = in_domain(g, g.add_op(op::not_equal, dtype::bool_, {v, x[2]}), p);
  } else {
    v = in_domain(g, g.add_op(op::subtract, t, {x[0], x[1]}), p);
    if (arity == 3) v = in_domain(g, g.add_op(op::add, t, {v, x[2]}), p);
  }
  return v;
}

// reduce(m, body [if guard]) per list over its combinations of `arity`: out0 over L.
inline graph pairs_reduce(monoid m, dtype t, int arity, bool guard, bool i32 = false, bool promised = true,
                          bool product = false) {
  domain_id l, p;
  graph g = pairs_graph(arity, i32, l, p, product);
  const node_id v = pairs_body(g, t, arity, p, promised);
  const node_id gd = guard ? in_domain(g, guard_of(g, v, t), p) : jf::ir::no_node;
  output_at(g, g.add_reduce(m, v, gd, l), l);
  return g;
}

// The dielectron query: inputs #1..#3 pt, eta, phi of slot 0, #4..#6 of slot 1 (float32), with
// `charge` #7, #8 (int32) per slot:
//   mass = sqrt(2 * pt0 * pt1 * (cosh(eta0 - eta1) - cos(phi0 - phi1)))
//   out0 = max(mass [if charge0 != charge1]) per list, out1 = the number of those pairs (int64),
//   out2 = out1 > 0 (the validity), and with `argmax` out3 = argmax(mass [if ...]) per list.
// Without `count`, out1 is the validity (the engine's graph: the count stays in the kernel).
inline graph pairs_dielectron(bool charge, bool argmax = false, bool i32 = false, bool promised = true,
                              bool count_output = true, bool product = false) {
  domain_id l, p;
  graph g = pairs_graph(2, i32, l, p, product);
  const dtype f = dtype::float32;
  const node_id pt0 = slot_input_at(g, f, p, 0, promised), eta0 = slot_input_at(g, f, p, 0, promised),
                phi0 = slot_input_at(g, f, p, 0, promised);
  const node_id pt1 = slot_input_at(g, f, p, 1, promised), eta1 = slot_input_at(g, f, p, 1, promised),
                phi1 = slot_input_at(g, f, p, 1, promised);
  auto at = [&](node_id id) { return in_domain(g, id, p); };
  const node_id two = g.add_constant(f, jf::ir::scalar_value::of(f, 2));
  const node_id a = at(g.add_op(op::multiply, f, {at(g.add_op(op::multiply, f, {two, pt0})), pt1}));
  const node_id ch = at(g.add_op(op::cosh, f, {at(g.add_op(op::subtract, f, {eta0, eta1}))}));
  const node_id co = at(g.add_op(op::cos, f, {at(g.add_op(op::subtract, f, {phi0, phi1}))}));
  const node_id mass = at(g.add_op(op::sqrt, f, {at(g.add_op(op::multiply, f, {a, at(g.add_op(op::subtract, f, {ch, co}))}))}));
  node_id guard = jf::ir::no_node;
  if (charge) {
    const node_id q0 = slot_input_at(g, dtype::int32, p, 0, promised), q1 = slot_input_at(g, dtype::int32, p, 1, promised);
    guard = at(g.add_op(op::not_equal, dtype::bool_, {q0, q1}));
  }
  const node_id one = at(g.add_broadcast(g.add_constant(dtype::int64, jf::ir::scalar_value::of(dtype::int64, 1)), p));
  const node_id count = g.add_reduce(monoid::sum, one, guard, l);
  output_at(g, g.add_reduce(monoid::max, mass, guard, l), l);
  if (count_output) output_at(g, count, l);
  output_at(g, in_domain(g, g.add_op(op::greater, dtype::bool_, {count, g.add_constant(dtype::int64, jf::ir::scalar_value::of(dtype::int64, 0))}), l), l);
  if (argmax) output_at(g, g.add_reduce(monoid::argmax, mass, guard, l), l);
  return g;
}

// Per-list values in the body: sum(x_0 * x_1 + met) and argmin(x_0 * x_1 - w) per list of float64
// fields (#1, #2) with met (#3, one per list, broadcast from L) and w (#4, read in P: with
// `promised`, a value per list (the engine's other way of reading one), else whatever its strides
// say); out0, out1 over L, and out2 = out0 * met (work on the result).
inline graph pairs_with_list_values(int arity, bool i32 = false, bool promised = true, bool product = false) {
  domain_id l, p;
  graph g = pairs_graph(arity, i32, l, p, product);
  const dtype t = dtype::float64;
  const node_id x0 = slot_input_at(g, t, p, 0, promised), x1 = slot_input_at(g, t, p, 1, promised);
  const node_id met_l = input_at(g, t, layout::strided, l);
  const node_id met = g.add_broadcast(met_l, p);
  const node_id w = slot_input_at(g, t, p, arity, promised);
  const node_id prod = in_domain(g, g.add_op(op::multiply, t, {x0, x1}), p);
  const node_id sum = g.add_reduce(monoid::sum, in_domain(g, g.add_op(op::add, t, {prod, met}), p), jf::ir::no_node, l);
  output_at(g, sum, l);
  output_at(g, g.add_reduce(monoid::argmin, in_domain(g, g.add_op(op::subtract, t, {prod, w}), p), jf::ir::no_node, l), l);
  output_at(g, in_domain(g, g.add_op(op::multiply, t, {sum, met_l}), l), l);
  return g;
}

}  // namespace nest_test
