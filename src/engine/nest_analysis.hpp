// The run-time analysis of an expression with reductions: the shape of every region (the result,
// and the operand of each reduction), numpy's axis and emptiness checks, the global axes of the
// IR, the domain tree, and each operand's strides over the global axes (docs/design.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/binning.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/detail/lowering.hpp"

namespace jf::detail {

struct nest_analysis {
  struct region {
    shape_t shape;                     // the region's iteration shape
    std::vector<std::int32_t> axis;    // per axis of `shape`: its global axis, -1 for extent 1 (no loop)
    int parent = -1;                   // the enclosing region (-1 for region 0, the result)
    ir::domain_id domain = 0;          // the domain of the region's element-wise nodes
    ir::domain_id result_domain = 0;   // operand regions: where the reduction's result is computed
  };
  std::vector<region> regions;             // 0: the result; r + 1: the operand of reduction r
  std::vector<reduce_spec> specs;          // per reduction: axes normalised (sorted, non-negative)
  std::vector<std::vector<bool>> reduced;  // per reduction, per operand axis
  std::vector<std::int64_t> extents;       // per global axis
  std::vector<ir::domain> domains;         // the domain tree of the IR (graph::domains)
  std::vector<int> leaf_region;            // per array leaf
  // Per array leaf: whether jf::take gathers from it along gather_axis; then the view of it its
  // strides over the global axes come from (the gathered axis replaced by the indices' axes, of
  // extent 1 and stride 0), the gathered axis's length and stride (elements), and the first of
  // the two params that carry them.
  std::vector<char> leaf_gathered;
  std::vector<array_base> leaf_view;
  std::vector<std::int32_t> gather_axis;
  std::vector<std::int64_t> gather_size, gather_stride;
  // x(i, j) (an index pair): the second indexed axis's length and stride (-1 and 0 elsewhere); its
  // leaf has four params from gather_param on: the two lengths and strides, axis 0's first.
  std::vector<std::int64_t> pair_size, pair_stride;
  std::vector<std::int32_t> gather_param;
  // Per array leaf: unit axes appended to its shape before it is aligned with its region (the
  // indices of a take along an axis that has axes after it: their axes sit before those).
  std::vector<int> leaf_pad;
  bool raises = false;                     // some gather (or a scatter) raises on an out-of-range index
  shape_t value_shape;                     // the broadcast shape of the expressions' values
  // The expression is a scan without an axis of an operand of 2 or more dimensions (numpy's
  // flattened cumsum): the outputs hold the 1-d value_shape, the loops run over flat_shape (the
  // operand's), whose row-major order is the result's.
  bool flat_root = false;
  shape_t flat_shape;
  // Histograms: per reduction its bins (checked as numpy does), and the run-time scalars the
  // lowering reads as params first_param[r] + binning_param::... (after the expression's own).
  std::vector<binning> binnings;
  std::vector<std::int32_t> first_param;
  std::vector<std::uint64_t> extra_params;  // their values (the bits of a kernel slot)
  // Scatters: region 1 holds the indices (its domain: the claim domain), region 0 the values over
  // indices.shape + target.shape[1:] (their domain: the claim domain's axes, then the target's other
  // axes); the target's scattered axis is global axis target_axis, alone in box target_domain.
  bool scatter = false;
  shape_t index_shape, values_shape;  // as the expressions give them (values before broadcasting)
  std::int32_t target_axis = -1;
  ir::domain_id target_domain = 0;
};

// The params of one histogram, in order (their dtypes: the edges' for the first two, else work).
enum binning_param : std::int32_t {
  first_e_param, last_e_param, first_w_param, last_w_param, denom_w_param, step_w_param, binning_params
};
// Numbers the histograms' params from `base` (the expression's scalar leaves) and fills extra_params.
void number_extra_params(nest_analysis& a, int base);

// Computes every region's shape from the leaves' shapes and checks the reductions' arguments as
// numpy does (axis_error, value_error for an empty reduction without identity, shape_error).
void analyse_shapes(nest_analysis& a, const prog_entry* program, int program_size, const array_base* const* arrays,
                    const reduce_spec* specs, int nspecs, const scalar_slot* scalars);
// A scatter's shapes: the indices (the program's first expression, leaves [0, s.index_arrays)), the
// values, the region of the values (indices.shape + target.shape[1:], target: the array written,
// axis 0 scattered; put's target is flat). numpy's errors: a 0-d target, values that do not
// broadcast (except put's, which repeat cyclically: the engine checks them), reductions refused.
void analyse_scatter_shapes(nest_analysis& a, const prog_entry* program, int program_size, const array_base* const* arrays,
                            const scalar_slot* scalars, const scatter_spec& s, const array_base& target);
// Its global axes and domains (see nest_analysis::scatter), the target's axis last.
void assign_scatter_domains(nest_analysis& a, const array_base& target);
// The target's strides over the global axes: its other axes along the values' trailing axes, its
// first along target_axis, 0 along the claim domain's axes.
std::vector<std::int64_t> scatter_target_strides(const nest_analysis& a, const array_base& target);
// numpy's spelling of a shape in messages: "(3,)", "(2,4)".
std::string numpy_shape(const shape_t& s);
// Two index arrays' broadcast shape, or numpy's IndexError "shape mismatch: indexing arrays could
// not be broadcast together with shapes (2,) (3,) " (x[i, j], its assignment, an empty axis's check).
shape_t broadcast_index_arrays(const shape_t& i, const shape_t& j);
// The same for n index arrays (numpy's message lists every shape).
shape_t broadcast_index_arrays(const shape_t* shapes, int n);
// Whether values of this shape broadcast to an indexing result of that shape (numpy's setitem);
// check_values_fit (src/core/index_pair.cpp) raises numpy's message when they do not.
bool values_fit(const shape_t& values, const shape_t& result);
void check_values_fit(const shape_t& values, const shape_t& result);
// The view an array leaf is aligned with its region as: x itself, or (gathered leaves: leaf_view;
// padded) a view built in `scratch` (no copy of the handle on the common path).
const array_base& aligned_leaf(const nest_analysis& a, const array_base& x, int leaf, array_base& scratch);
// Given the iteration shape of the result (the outputs' shape), assigns global axes and domains.
void assign_domains(nest_analysis& a, const shape_t& iter);
// Renames global axis g to to[g] (a permutation) everywhere in the analysis.
void renumber_axes(nest_analysis& a, const std::vector<std::int32_t>& to);
// The strides of an operand of `region` over the global axes (0 where it does not vary).
std::vector<std::int64_t> global_strides(const nest_analysis& a, const array_base& x, int region);
// The global axes of a domain and its ancestors, outermost first.
std::vector<std::int32_t> chain_axes(const nest_analysis& a, ir::domain_id d);

}  // namespace jf::detail
