// jf::ir — the run-time DAG one evaluation is lowered to. No YAP and no Eigen here: the front end
// builds it, the passes rewrite it, the code generator turns it into CUDA C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/dtype.hpp"
#include "jetfuse/ops.hpp"

namespace jf::ir {

using node_id = std::int32_t;
inline constexpr node_id no_node = -1;
using domain_id = std::int32_t;

// An iteration space (docs/design.md, "The IR of loop nests"). Domains form a tree: each adds
// loops inside its parent, and one iteration of a domain fixes the indices of its ancestors too.
// Domain 0 is the root (one iteration); a node computes one value per iteration of its domain.
enum class domain_kind : std::uint8_t {
  root,      // no loop
  box,       // dense axes: `axes` are global axis numbers, their extents are run-time arguments
  list,      // one iteration per list of a jagged array: axes {a} (the list number i), offsets input `source`
  elements,  // the elements of the parent list: axes {b} (the absolute content position j)
  pairs,     // `arity` elements j_0 < ... < j_{n-1} of the parent list: axes {b_0, ..., b_{n-1}}
  product,   // (j_a, j_b): list i of the parent list domain's offsets and list i of `source`'s: axes {b_a, b_b}
};
// Domains whose iterations are tuples of a list's elements (pairs) or of two lists' (product): the
// same rules (slots, ranks, reductions into the list) hold for both.
inline bool is_tuple_domain(domain_kind k) { return k == domain_kind::pairs || k == domain_kind::product; }
struct domain {
  domain_kind kind = domain_kind::root;
  domain_id parent = -1;
  std::vector<std::int32_t> axes;  // box: the global axes it adds, outer to inner
  std::int32_t source = -1;        // list kinds: the input holding the offsets; product: b's offsets
  std::int32_t arity = 0;          // pairs: n; product: 2
  // list: every list has at most this many elements, known when the graph was built (one of
  // list_length_classes; -1: not known). Kernels may leave out their paths for longer lists.
  std::int64_t longest = -1;
  // list: the lists hold at most list_mean_short elements on average (from the offsets' first and
  // last values and their count, known when the graph was built; false: longer or not known).
  bool short_on_average = false;
  friend bool operator==(const domain&, const domain&) = default;
};

// The classes of domain::longest: the list kernels' limits for a list combined by one lane and by
// one warp (src/cuda/codegen/shape_list.cpp). A known longest list is rounded up to one of them.
inline constexpr std::int64_t list_length_classes[] = {16, 4096};
// The mean list length of domain::short_on_average: pairs kernels take warp segments (and a queue
// for the few longer lists) below it, where they were measured faster than the staged runs on the
// H200 (Poisson means 1.5 and 1.81; the staged runs at 2 and 3: docs/design.md, "Pairs kernels").
inline constexpr double list_mean_short = 1.875;
inline bool short_on_average(std::int64_t lists, std::int64_t elements) {
  return lists > 0 && static_cast<double>(elements) <= list_mean_short * static_cast<double>(lists);
}
inline std::int64_t list_length_class(std::int64_t longest) {
  if (longest < 0) return -1;
  for (std::int64_t c : list_length_classes)
    if (longest <= c) return c;
  return -1;
}

// How a kernel operand is addressed from the flat (row-major) index i of the iteration space.
enum class layout : std::uint8_t {
  contiguous,  // element i: same shape as the iteration space, row-major, no gaps
  strided,     // element sum_k idx_k * stride_k, strides given at run time (0 = broadcast axis)
  scalar,      // one element for every i (all strides 0): loaded once
};

// A compile-time scalar value (constants from specialisation and folding).
struct scalar_value {
  double f = 0;          // for float dtypes
  std::int64_t i = 0;    // for bool and integer dtypes (uint64: its bits)
  static scalar_value of(dtype t, double v);  // converts v to t with jf::ops::jf_cast
  double as_double(dtype t) const {
    if (is_floating(t)) return f;
    return t == dtype::uint64 ? static_cast<double>(static_cast<std::uint64_t>(i)) : static_cast<double>(i);
  }
  friend bool operator==(const scalar_value&, const scalar_value&) = default;
};

struct node {
  jf::op code = jf::op::input;
  dtype type = dtype::float64;          // the result dtype
  std::array<node_id, 3> args{no_node, no_node, no_node};
  std::int8_t nargs = 0;
  std::int32_t index = -1;              // input: index into graph::inputs; param: into graph::params;
                                        // put: its claim domain
  scalar_value value{};                 // constant
  // reduce, scatter: attr[0] = the monoid; extent: attr[0] = the domain counted; put: see put_rule;
  // scan: the monoid and the axis (monoid_of_scan, axis_of_scan). Otherwise 0.
  // Element-wise nodes: attr[1] = 1 when they are part of one operation of the user's (a
  // histogram's bin arithmetic), which unfused plans keep in that operation's kernel.
  std::array<std::int64_t, 2> attr{0, 0};
  // The domain whose iterations compute this node. Constants, params and extents are the same in
  // every iteration and may be used from any domain.
  domain_id domain = map_domain;
  static constexpr domain_id map_domain = 1;  // the one box of a map graph (see graph)
};

// Inputs whose elements are computed from their position, not loaded (jf::random's leaves):
// element e of a generated input is ops::jf_philox_<kind>_at<bits>(key0, key1, first, aux, e), e
// the offset the input's strides give (its pointer is null); kinds: random float64 / float32
// (numpy's Generator.random), normal float64 / float32 (Box-Muller), integers in [0, aux)
// (int32/int64). key0, key1, first, aux: int64 params `param` .. `param + 3`.
enum class generator : std::uint8_t { none, philox_f64, philox_f32, normal_f64, normal_f32, integers };
// "random_f64", ...: the kind's name (jf_philox_<name>_at in scalar_ops.hpp).
const char* generator_name(generator g);
// The bit generator of a generated input: numpy's Philox4x64-10 or Random123's Philox4x32-10
// (ops::jf_bit_generator; both give 4 64-bit outputs per block call, so kinds and chunking are alike).
enum class bit_generator : std::uint8_t { philox4x64, philox4x32 };
// "philox4x64", "philox4x32" (ops::jf_<name>, the template argument of the jf_philox_* functions).
const char* bit_generator_name(bit_generator b);
// Draws of one Philox block: 4 64-bit outputs, or 8 32-bit halves for the float32 kinds.
inline int draws_per_block(generator g) { return g == generator::philox_f32 || g == generator::normal_f32 ? 8 : 4; }

// What a gather does with a position outside [-size, size): numpy take's mode; unchecked: the
// position is an offset (elements, any sign) some check_index nodes computed, used as it is.
enum class gather_mode : std::uint8_t { raise, wrap, clip, unchecked };
// A gather node's mode and axis (for the error message) are packed in attr[0].
inline gather_mode mode_of_gather(const node& n) { return static_cast<gather_mode>(n.attr[0] & 3); }
inline int axis_of_gather(const node& n) { return static_cast<int>(n.attr[0] >> 2); }
// A check_index node's mode (raise, wrap or clip) and axis pack into attr[0] as a gather's; attr[1]
// is its rank among the checks of one index tuple (x[i, j]: i's check 0, j's 1): numpy reports the
// first out-of-range index of the first index array before looking at the next.
inline int rank_of_check(const node& n) { return static_cast<int>(n.attr[1]); }

// How a put node combines its value with the element it names (numpy's scatters): store (several
// iterations naming one element: the latest in row-major order over the claim domain wins, numpy's
// last write), or the element combined with the value by an operation in the value's dtype and
// converted back (numpy's ufunc.at: np.add.at, ...; every iteration counts), or store_any: a store
// whose indices the caller promised unique (JAX's unique_indices), so no element is claimed; when
// several iterations name one element anyway, one of their values is written, which one undefined.
enum class put_rule : std::uint8_t { store, add, subtract, multiply, minimum, maximum, store_any };
const char* put_rule_name(put_rule r);
// The element-wise operation of a combining rule (op::add, ...); store and store_any have none.
jf::op put_rule_op(put_rule r);
// A put node's rule, mode (what an index outside [-n, n) does) and axis (for the message) are
// packed in attr[1]; attr[0] is the domain of the target's scattered axis, `index` the claim domain.
inline put_rule rule_of_put(const node& n) { return static_cast<put_rule>(n.attr[1] & 0xff); }
inline gather_mode mode_of_put(const node& n) { return static_cast<gather_mode>((n.attr[1] >> 8) & 3); }
inline int axis_of_put(const node& n) { return static_cast<int>(n.attr[1] >> 16); }
// What the engine remembers about a put's indices from an earlier call on the same, unchanged
// index array (attr[1] bits 10 and 11): all in bounds (mode raise checks each index as it writes
// it, without a checking launch), or naming some element twice (a store claims without marking).
inline bool put_known_in_bounds(const node& n) { return (n.attr[1] >> 10) & 1; }
inline bool put_known_repeats(const node& n) { return (n.attr[1] >> 11) & 1; }
// A store through an index array remembered with repeats (attr[1] bits 12-13): `build` stores as the
// claims decide and also sets, in the kernel's aux bitmap (a bit a position), each position whose
// value wins; `use` stores only the positions whose bit is set in that bitmap, one launch, no claims.
enum class put_winners : std::uint8_t { none, build, use };
inline put_winners winners_of_put(const node& n) { return static_cast<put_winners>((n.attr[1] >> 12) & 3); }
inline domain_id target_of_put(const node& n) { return static_cast<domain_id>(n.attr[0]); }
inline domain_id claims_of_put(const node& n) { return static_cast<domain_id>(n.index); }

// A scan node's monoid and axis are packed in attr[0]: the monoid in the low byte, the scanned
// global axis + 1 above it (0: flattened, every axis of the node's domain chain in row-major order).
inline monoid monoid_of_scan(const node& n) { return static_cast<monoid>(n.attr[0] & 0xff); }
inline std::int32_t axis_of_scan(const node& n) { return static_cast<std::int32_t>(n.attr[0] >> 8) - 1; }

// A scatter's attr[0]: a monoid (counts: sum), or scatter_store: every iteration of its domain is
// named by at most one iteration and takes that one's value (compaction: the positions are an
// exclusive count of the selected iterations), so any order of the stores gives the same result.
inline constexpr std::int64_t scatter_store = 64;
inline bool stores(const node& n) { return n.code == op::scatter && n.attr[0] == scatter_store; }

struct operand_desc {
  dtype type = dtype::float64;
  layout lay = layout::contiguous;
  generator gen = generator::none;  // inputs only
  bit_generator bits = bit_generator::philox4x64;  // generated inputs: their bit generator
  std::int32_t param = -1;          // generated inputs: their first param
  // Inputs read in a pairs domain of arity n, a promise about their strides (as `contiguous`
  // promises stride 1): s in 0 .. n-1, a field read at slot s (stride 0 along the list axis and the
  // other slots' axes); n, a value per list (stride 0 along every slot's axis); -1, no promise (the
  // kernel reads the strides at run time). Kernels specialise on it.
  std::int8_t slot = -1;
  // Map graphs, strided operands: operands of one class (>= 0) have equal strides at run time
  // (the shifted views of a stencil, a view and its destination of the same layout): the kernel
  // computes their offset once. -1: no promise. The launcher still passes every operand's strides.
  std::int8_t stride_class = -1;
};

struct output_desc {
  node_id value = no_node;  // the node whose value is stored
  operand_desc desc{};
  // An output may share memory with input `same_as_input`, element for element (in place);
  // codegen then drops __restrict__ for both. -1: no such input.
  std::int32_t same_as_input = -1;
  // Loop nests: the domain the output is stored over (its value may have become a constant).
  domain_id domain = node::map_domain;
};

// One evaluation: operands, nodes in topological order (every node after its arguments), outputs.
//
// Domains: a map graph (element-wise work only) has the root and one box, domain 1, of `ndim`
// axes: its kernel is a flat (grid-stride) loop over that box, operands addressed by layout. A
// graph of loop nests (reductions, broadcasts of reduced values) has any tree of box domains; its
// operands are addressed by strides over the global axes, and the planner cuts it into steps.
//
// Kernel ABI (shared by the code generator and the launcher): one struct argument of 8-byte slots:
//   outputs' pointers, inputs' pointers, params (one slot each, value in the low bytes),
//   n (the number of elements), shape[ndim], then strides[ndim] for every strided operand
//   (outputs first, then inputs, in order), then, when has_unravel_divisors(g), one divisor per
//   axis 1 .. ndim-1 (unravel_divisor(shape[d])). Strides count elements, not bytes; every field
//   is alignas(8), so the struct is 8 * abi_slots(g) bytes.
//
// Loop-nest ABI (every graph that is not is_map(); jf::ir::nest_abi_slots(g) slots, codegen.hpp):
//   outputs' pointers, inputs' pointers, params (one slot each, value in the low bytes),
//   extents[ndim] (one per global axis), then strides[ndim] for EVERY operand (outputs first, then
//   inputs, in order; elements), then one scratch pointer (zero-initialised device memory of
//   launch_config::scratch_bytes, or null), then the gathers' error record (or null), then the aux
//   pointer (device memory the engine keeps between calls: a remembered put's winners; or null), then per
//   generated input (in order) its 20 Philox round keys (k0 + r W0, k1 + r W1 for r = 0..9,
//   interleaved; ops::jf_philox_round_keys of its key params, or jf_philox4x32_round_keys: the
//   same in 32-bit words, zero-extended). Operand k of a node in domain D is read at
//   ptr + sum_{a in chain_axes(D)} idx[a] * strides[a] (an output over output_desc::domain); the
//   strides of other axes are ignored. Layouts in loop nests: `contiguous` promises stride 1 on the
//   LAST axis of that chain (the kernel does not read that stride), `strided` reads every stride,
//   `scalar` (inputs) reads element 0. index32: every extent, flat iteration count and offset fits
//   in int32 (the launcher checks). Grid, block and scratch come from configure_launch (codegen.hpp).
struct graph {
  std::vector<node> nodes;
  std::vector<operand_desc> inputs;
  std::vector<dtype> params;  // dtype of each run-time scalar
  std::vector<output_desc> outputs;
  std::vector<domain> domains{domain{}, domain{domain_kind::box, 0, {0}, -1, 0}};
  int ndim = 1;               // map graphs: rank of the iteration space (its shape is a run-time argument);
                              // loop nests: the number of global axes
  void set_map_rank(int rank);  // ndim = rank, domain 1 = box of axes 0..rank-1
  bool index32 = false;       // every index and offset fits in int32
  int vector_width = 1;       // elements per 16-byte vector access (1: scalar accesses)
  // Set for graphs of expressions with reductions and their plan steps: operands are addressed by
  // strides over the global axes even when the graph has a single box (is_map() is false).
  bool loop_nest = false;

  node_id add(const node& n) {
    nodes.push_back(n);
    return static_cast<node_id>(nodes.size() - 1);
  }
  node_id add_input(dtype t, layout l);
  node_id add_param(dtype t);
  node_id add_constant(dtype t, scalar_value v);
  node_id add_op(jf::op code, dtype result, std::initializer_list<node_id> args);
  node_id add_cast(dtype to, node_id a);
  void add_output(node_id v, layout l, std::int32_t same_as_input = -1);
  domain_id add_box(domain_id parent, std::vector<std::int32_t> axes);
  // A list domain under the root over global axis `axis` (list i), its offsets in kernel input
  // `offsets` (int64, read by no node), and the elements domain of its lists over global axis
  // `element_axis` (the absolute content position j). docs/design.md, "List domains (contract)".
  domain_id add_list(std::int32_t offsets, std::int32_t axis);
  domain_id add_elements(domain_id list, std::int32_t element_axis);
  // The combinations of `arity` (2 or 3) elements of each list of `list` (Awkward's
  // ak.combinations, lexicographic order): one iteration per j_0 < ... < j_{arity-1}, absolute
  // content positions in the list, over global axes first_axis .. first_axis + arity - 1.
  // docs/design.md, "Pairs domains (contract)".
  domain_id add_pairs(domain_id list, std::int32_t arity, std::int32_t first_axis);
  // The cartesian product of list i of `list` (slot 0, j_a) and list i of the offsets `offsets_b`
  // (an int64 input, slot 1, j_b) for each list i (Awkward's ak.cartesian, j_a slowest), over
  // global axes first_axis, first_axis + 1. docs/design.md, "Product domains (contract)".
  domain_id add_product(domain_id list, std::int32_t offsets_b, std::int32_t first_axis);
  // reduce(m, x) into `into` (default: the parent of x's domain), a proper ancestor of x's domain:
  // combines x over every iteration of the domains below `into` down to x's. A guard (bool, in
  // x's domain) skips iterations.
  node_id add_reduce(monoid m, node_id x, node_id guard = no_node, domain_id into = -1);
  // index(axis) @ d: int64, the current iteration's index along global axis `axis` of d's chain, or
  // with axis -1 its row-major position over d's chain (numpy's flat index: nonzero, flatnonzero).
  node_id add_index(domain_id d, std::int32_t axis);
  // scatter(m, value, index) into `into`, a box of one axis whose parent encloses the index's
  // domain D (and which does not enclose D): for every iteration of D below that parent (where the
  // guard, bool in D, holds) combines `value` (in D, or uniform) into the iteration `index` (int64
  // in D, in [0, extent)) of `into` — a histogram's counts. Iterations never named keep the
  // identity. Monoid: sum (integer values: the result does not depend on the order); or m =
  // scatter_store (add_store): each iteration of `into` named at most once takes the value
  // (compaction), whatever its dtype.
  node_id add_store(node_id value, node_id index, node_id guard, domain_id into);
  node_id add_scatter(monoid m, node_id value, node_id index, node_id guard, domain_id into);
  // scan(m, x @ D) @ D: the inclusive prefix combination of x along global axis `axis` of D's chain
  // (numpy's accumulate: out[0] = x[0], out[i] = combine(out[i-1], x[i]) for each fixed index of
  // the other axes), or with axis -1 over every iteration of D's chain in row-major order (numpy's
  // axis=None). Monoids sum and prod; the result has x's dtype (int32, int64, float32, float64).
  node_id add_scan(monoid m, node_id x, std::int32_t axis);
  node_id add_broadcast(node_id x, domain_id into);
  // gather(input k, position, size, stride): element `position` (int64 in its domain; negative
  // counts from the end) of input k viewed as `size` elements `stride` apart (int64 params: size
  // and stride are arguments of the kernel); numpy's take. Positions outside [-size, size) are
  // reported (gather_mode::raise: the evaluation raises jf::index_error), wrapped or clipped.
  // The input's own strides over the global axes are not used (they are 0).
  node_id add_gather(std::int32_t input, node_id position, node_id size, node_id stride, gather_mode mode, int axis);
  // check_index(position, size): `position` (int64; negative counts from the end) normalised into
  // [0, size) after numpy's bounds check along axis `axis` of `size` (a uniform int64): reported
  // (raise: the evaluation raises jf::index_error; the value is then 0), wrapped or clipped as a
  // gather's. `rank` orders the reports of one index tuple's checks (numpy checks i, then j).
  node_id add_check_index(node_id position, node_id size, gather_mode mode, int axis, int rank);
  // search(input k, value, size, stride): numpy.searchsorted of `value` in input k viewed as `size`
  // elements `stride` apart (sorted, NaN last), compared in the value's dtype; int64. attr[0]: side
  // (0 left, 1 right).
  node_id add_search(std::int32_t input, node_id value, node_id size, node_id stride, bool right);
  node_id add_extent(domain_id counted);
  // put(value, index) @ D into `target`: the value of the one output that scatters (numpy's put,
  // x[indices] = v, ufunc.at). At every iteration of D the output's element whose position along
  // the target's scattered axis (the one axis of box `target`, under the root: its extent is the
  // axis's length, the output's stride along it addresses it) is `index` (int64, in `claims` or
  // uniform; negative counts from the end) and whose other axes are the iteration's (the output's
  // strides over D's chain) receives `value` by `rule`. `claims` (D or an ancestor of it) orders the
  // stores: of the iterations naming one element, the one latest in row-major order over claims'
  // chain wins. Mode raise: an index outside [-n, n) is reported in the error record and nothing is
  // written; wrap and clip as numpy's put. The node's dtype is the target's; its value's is the
  // target's (store) or the one the rule computes in.
  node_id add_put(put_rule rule, dtype target_type, node_id value, node_id index, domain_id target, domain_id claims,
                  domain_id in, gather_mode mode, int axis, bool known_in_bounds = false, bool known_repeats = false,
                  put_winners winners = put_winners::none);

  const node& at(node_id id) const { return nodes[static_cast<std::size_t>(id)]; }
  const domain& dom(domain_id id) const { return domains[static_cast<std::size_t>(id)]; }
  // Whether `outer` is `inner` or one of its ancestors.
  bool encloses(domain_id outer, domain_id inner) const;
  // The global axes of a domain and its ancestors, outermost first.
  std::vector<std::int32_t> chain_axes(domain_id d) const;
  // Whether this is a map graph: every node in domain 1 (or usable anywhere), no reduce/broadcast.
  bool is_map() const;

  // A readable listing ("%3 = add f64 %1, %2"), used by jf::explain and the tests.
  std::string to_string() const;
  // Checks arity, argument order and the dtype rules; throws jf::error describing the node.
  void validate() const;
};

// Evaluates one operation on host scalars with jf::ops, exactly what a kernel computes: `result`
// is the node's dtype, `arg_type` that of its value arguments (the source dtype for a cast).
scalar_value apply(jf::op code, dtype result, dtype arg_type, const scalar_value* args);

// The number of strided operands, i.e. the stride arrays in the kernel ABI.
int num_strided(const graph& g);
// Whether a map kernel's arguments end with the divisors of its unravel (int indices, two or more
// axes, a strided operand): the flat index is split into coordinates by a multiply-high and a
// shift instead of a division per axis.
bool has_unravel_divisors(const graph& g);
// The divisor slot of an extent 1 <= d < 2^31: the magic number m (low 32 bits) and shift l (high
// 32 bits) with q = (umulhi(i, m) + i) >> l == i / d for every 0 <= i < 2^31 (Granlund and
// Montgomery's round-up method; m < 2^32 and the sum cannot overflow for such i).
std::uint64_t unravel_divisor(std::int64_t d);
// The number of 8-byte slots of the kernel's argument struct (its size is 8 * abi_slots(g)).
int abi_slots(const graph& g);

}  // namespace jf::ir
