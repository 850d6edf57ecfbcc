// What the per-type lowering walk (expr/walk.hpp) and the engine in src/ share, without YAP: the
// scalar leaves as the kernel receives them, the run-time facts the lowering reads, and the
// non-template hooks that lower a reduction into domains (src/engine/lower_reduction.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/detail/assigned_value.hpp"
#include "jetfuse/ir/graph.hpp"
#include "jetfuse/reducers.hpp"

namespace jf::detail {

// How an operation uses a scalar leaf: it decides what an integer out of the range of the dtype
// it is converted to means (NEP 50 / numpy 2).
enum class scalar_use : std::uint8_t {
  value,     // arithmetic: out of range is an error (numpy raises OverflowError)
  exponent,  // the exponent of power (a value; small integral ones specialise the kernel)
  compared,  // compared with an integer array: numpy 2 compares exactly, the answer is known
};

// A scalar leaf converted on the host to the dtype it is used at (one 8-byte kernel slot).
struct scalar_slot {
  std::uint64_t bits = 0;
  bool exponent = false;    // the exponent of power: small integral values specialise the kernel
  std::int8_t outside = 0;  // compared: the value is below (-1) or above (+1) the compared dtype
  double value = 0;         // the value converted to the target dtype, as a double (for the key)
  // Not a value but the identity of what the kernel is generated for (a user function's id): part
  // of the variant key, never a kernel argument.
  bool identity = false;
};

// The structure of an expression type in prefix order (a node before its operands), for the
// run-time shape analysis of expressions with reductions (src/engine/nest_analysis.cpp).
struct prog_entry {
  // gather: jf::take(x, indices); its operands follow: the array x, then the indices.
  // jagged: a jf::jagged leaf, two array leaves (its content, then its offsets); nargs 2 or 3: a
  // combination's slot `mode`; nargs product_leaf: slot `mode` of a cartesian product, three array
  // leaves (its content, a's offsets, b's offsets).
  enum kind_t : std::uint8_t { array, scalar, elementwise, reduction, gather, jagged } kind = array;
  std::int8_t nargs = 0;
  std::int8_t mode = 0;  // gather: ir::gather_mode
};
inline constexpr std::int8_t product_leaf = -2;
// nargs nested_leaf: a nested array (jf::jagged<jf::jagged<T>>), three array leaves: its innermost
// content, the inner offsets of the inner lists in use, its outer offsets.
inline constexpr std::int8_t nested_leaf = -3;

// The run-time analysis of an expression with reductions: regions, global axes, domains.
struct nest_analysis;

// What the lowering needs to know about one evaluation's leaves at run time.
struct lowering_inputs {
  const std::int32_t* array_input;     // kernel input index of each array leaf (aliases share one)
  const ir::layout* input_layout;      // layout of each kernel input
  const scalar_slot* scalars;          // specialisation: small integer exponents, known comparisons
  const bool* specialised;             // per scalar leaf: write it as a constant
  const nest_analysis* nest = nullptr;  // expressions with reductions: their domains
};

// The domain of the element-wise nodes of a region (0: the result; r + 1: reduction r's operand).
ir::domain_id region_domain(const nest_analysis& a, int region);

// The non-template steps of the per-type lowering walk (src/engine/lower_nodes.cpp): each
// expression type's walk is then a short sequence of calls (cheap to compile in user code).
// Array leaf `leaf` of `region`: one input node per (kernel input, region).
ir::node_id lower_input(ir::graph& g, const lowering_inputs& in, int leaf, int region, int regions,
                        std::vector<ir::node_id>& input_nodes, dtype type);
// Scalar leaf `k` at dtype `target`: a param, or a constant where the variant specialises it.
ir::node_id lower_scalar(ir::graph& g, const lowering_inputs& in, int k, dtype target);
// An element-wise operation in its arguments' domain (`home` when every argument is uniform).
ir::node_id lower_operation(ir::graph& g, op code, dtype result, const ir::node_id* args, int nargs,
                            ir::domain_id home);
// v converted to `target` (v itself when it has that dtype), in v's domain or `home`.
ir::node_id lower_cast(ir::graph& g, ir::node_id v, dtype target, ir::domain_id home);
// The domain of the element-wise nodes at the walk's position (maps: the one box).
inline ir::domain_id home_domain(const lowering_inputs& in, int region) {
  return in.nest ? region_domain(*in.nest, region) : ir::node::map_domain;
}
// throw_scalar_out_of_bounds: jetfuse/detail/assigned_value.hpp.

// jf::take of array leaf `leaf` (a gathered 1-d array) at `position` (int64): a gather node
// reading the leaf's kernel input with the size and stride the analysis made params.
// message_axis: the axis numpy's IndexError names, when not the gathered one (-1).
ir::node_id lower_gather(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id position, ir::gather_mode mode,
                         int message_axis = -1);
// x(i, j): i and j (int64) checked along x's axes 0 and 1 (numpy's messages; i's failures first),
// the element at their offset read by an unchecked gather of leaf `leaf`.
// ai, aj: the axes numpy's IndexError names for i and j.
ir::node_id lower_index_pair(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id i, ir::node_id j, int ai,
                             int aj);
// x(i, j) = v's scatter positions: i and j checked along axes 0 and 1 (lengths n0, n1; numpy's
// IndexError naming axes ai and aj, i's failures before j's), then i * n1 + j.
ir::node_id lower_pair_position(ir::graph& g, ir::domain_id home, ir::node_id i, ir::node_id j, ir::node_id n0,
                                ir::node_id n1, int ai, int aj);
// x(i, j, k, ...)'s element offsets: each of the `count` indices checked along its axis (lengths
// n[], numpy's IndexError naming axes[], the first index's failures before the second's, ...),
// then the sum of each times its stride s[] plus `shift` (which makes every offset of a view with
// negative strides >= 0).
ir::node_id lower_index_positions(ir::graph& g, ir::domain_id home, const ir::node_id* index, const ir::node_id* n,
                                  const ir::node_id* s, ir::node_id shift, const int* axes, int count);
// jf::searchsorted of `value` in array leaf `leaf` (read like a gathered 1-d array).
ir::node_id lower_search(ir::graph& g, const lowering_inputs& in, int leaf, ir::node_id value, bool right);
// prog_entry::gather's mode for a search (not a gather_mode: it never raises, an empty array is fine).
inline constexpr std::int8_t search_program_mode = 3;
// prog_entry::gather's nargs for x(i, j) (an index pair: x, i, j, a scalar); a take's is 3.
inline constexpr std::int8_t index_pair_program_nargs = 4;
// An elementwise program entry of this mode: x(i, j) = v's positions (i, j, n0, n1), whose i and j
// must broadcast together (numpy's IndexError otherwise).
inline constexpr std::int8_t pair_positions_mode = 1;
// An elementwise program entry of this mode: x(i, j, k, ...)'s offsets (N indices, then 2N + 1
// scalars: nargs 3N + 1), whose indices must broadcast together (numpy's IndexError otherwise).
inline constexpr std::int8_t index_positions_mode = 2;
// Added to a gather's axis leaf for numpy's take_along_axis: the indices have x's rank and are
// aligned with it (broadcast on the other axes) instead of replacing the axis.
inline constexpr std::int64_t take_along_axis_flag = std::int64_t{1} << 32;

// Lowers compaction r (x(mask), flatnonzero, nonzero: reduction r in prefix order, region r + 1
// holding the mask and the values) to the count of the selected elements before each (a flattened
// scan) and a store of the value (`value`, or without one an index node) at that position.
ir::node_id lower_compaction(ir::graph& g, const nest_analysis& a, int r, ir::node_id mask, ir::node_id value);

// Lowers reduction r (prefix order) of operand x (a node of region r + 1): the reduce node(s) and
// numpy's composition (mean = sum / n, var, nan*), carried into the enclosing region's domain. A
// guard (bool, x's domain) skips the iterations where it is false (x is a masked jagged value).
ir::node_id lower_reduction(ir::graph& g, const nest_analysis& a, int r, ir::node_id x, ir::node_id guard = ir::no_node);

// The guard of an element-wise operation of args (each with its guard, no_node for none): the one
// guard its masked arguments share; jf::value_error when arguments are masked differently, or a
// masked jagged value meets an unmasked one of the same lists (their elements would not line up).
ir::node_id merge_guards(const ir::graph& g, const ir::node_id* args, const ir::node_id* guards, int n);
// jf::value_error: a masked jagged value (x(mask)) is the result, not reduced.
[[noreturn]] void throw_unreduced_mask();

}  // namespace jf::detail
