// Evaluation of expressions over jagged arrays (docs/design.md, "Expressions over jagged arrays"):
// the leaves' roles (contents, their offsets, per-list and uniform dense values), Awkward's
// broadcasting rule (jagged operands have the same list lengths), the regions' domains (the
// elements of the lists, the lists, the root), the variant key; on a miss the IR of list loop
// nests is lowered once; jf::cpu runs it as lowered, jf::cuda optimises, plans and launches it.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/offsets_registry.hpp"
#include "core/step_bindings.hpp"
#include "cpu/executor.hpp"
#include "engine/backend.hpp"
#include "engine/nest_analysis.hpp"
#include "engine/pipeline.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/detail/jagged_layout.hpp"
#include "jetfuse/stats.hpp"

namespace jf::detail {

bool has_jagged_leaves(const eval_request& r) {
  for (int k = 0; k < r.program_size; ++k)
    if (r.program[k].kind == prog_entry::jagged) return true;
  return false;
}

namespace {

constexpr std::int32_t list_axis = 0, element_axis = 1;        // global axes; then the pairs' slots
constexpr std::int32_t first_slot_axis = 2;
// The domain tree; domain 3 is the combinations' pairs domain or the cartesian product domain.
constexpr ir::domain_id root = 0, lists = 1, elements = 2, pairs = 3;
constexpr std::int64_t int32_limit = std::int64_t(1) << 31;

// offsets_b: the second operand's offsets of a cartesian product (the product domain walks them);
// outer: a nested array's outer offsets (checked, handed to the result, read by no node).
enum class leaf_role : std::uint8_t { uniform, per_list, content, offsets, offsets_b, outer };

struct list_call {
  nest_analysis a;  // what the lowering reads: regions' domains, the reductions' specs, domains
  std::vector<leaf_role> role;
  std::vector<std::int8_t> leaf_slot;                   // contents read at a combination's slot, or -1
  int arity = 0;                                        // the combinations' n (0: no pairs domain)
  bool product = false;                                 // domain 3 is a cartesian product (arity 2)
  bool nested = false;                                  // the jagged operands are nested arrays' inner lists
  bool plain = false;                                   // a jf::jagged<T> operand
  int first_outer_leaf = -1;                            // nested: the outer offsets of the result
  std::vector<std::int32_t> own_offsets;                // per content leaf: the leaf of its own offsets
  std::vector<std::vector<std::int64_t>> leaf_strides;  // per array leaf, over the global axes
  std::vector<std::int64_t> leaf_shift;                 // contents: elements from the first leaf's positions
  std::vector<std::int32_t> leaf_input, input_leaf;
  std::vector<ir::layout> input_layout;
  std::vector<bool> specialised;
  int first_offsets_leaf = -1;    // the offsets the list domain walks
  int first_offsets_b_leaf = -1;  // the offsets the product domain walks (slot 1's lists)
  std::int64_t nlists = 0, first = 0, last = 0, first_b = 0, last_b = 0;
  std::int64_t longest = -1;  // the walked offsets' longest list (-1: not known)
  ir::domain_id out_domain = root;
  bool option = false;  // a second output: each list's validity (an option result)
  bool keep = false;    // the result per list came from a keepdims reduction: shape (n, 1), Awkward's n * 1 * T
  bool index32 = true;
  std::vector<std::int32_t> key;
};

ir::domain_id deeper(ir::domain_id x, ir::domain_id y) { return std::max(x, y); }

// The program in prefix order: regions (0: the result, r + 1: reduction r's operand), the leaves'
// regions, and per region whether a jagged leaf is directly in it.
struct program_walk {
  const eval_request& r;
  list_call& c;
  int pos = 0, ai = 0, ri = 0;
  std::vector<char> has_jagged{};  // per region: 1 elements, 2 combinations
  void region(int reg) {
    const prog_entry& e = r.program[pos++];
    switch (e.kind) {
    case prog_entry::array:
      c.a.leaf_region.push_back(reg);
      c.role.push_back(leaf_role::uniform);
      c.leaf_slot.push_back(-1);
      c.own_offsets.push_back(-1);
      ++ai;
      break;
    case prog_entry::scalar: break;
    case prog_entry::jagged: {
      const bool product = e.nargs == product_leaf;  // a cartesian slot: content, a's and b's offsets
      const bool nested = e.nargs == nested_leaf;    // a nested array: content, used inner offsets, outer offsets
      const int leaf = ai;
      (nested ? c.nested : c.plain) = true;
      if (c.nested && (c.plain || c.arity != 0 || product || e.nargs > 0))
        throw value_error("cannot broadcast nested list (jetfuse: nested lists beside lists of another depth, "
                          "combinations or a cartesian product in one expression are not supported yet)");
      c.a.leaf_region.push_back(reg);
      c.a.leaf_region.push_back(reg);
      c.role.push_back(leaf_role::content);
      c.role.push_back(leaf_role::offsets);
      c.leaf_slot.push_back(e.nargs > 0 || product ? e.mode : -1);  // a combination's (cartesian) slot
      c.leaf_slot.push_back(-1);
      c.own_offsets.push_back(product && e.mode == 1 ? leaf + 2 : leaf + 1);
      c.own_offsets.push_back(-1);
      ai += 2;
      if (nested) {
        c.a.leaf_region.push_back(reg);
        c.role.push_back(leaf_role::outer);
        c.leaf_slot.push_back(-1);
        c.own_offsets.push_back(-1);
        ++ai;
      } else if (product) {
        c.a.leaf_region.push_back(reg);
        c.role.push_back(leaf_role::offsets_b);
        c.leaf_slot.push_back(-1);
        c.own_offsets.push_back(-1);
        ++ai;
        if (c.arity != 0 && !c.product)
          throw value_error("cannot broadcast nested list (jetfuse: combinations and a cartesian product in one "
                            "expression)");
        c.product = true;
        c.arity = 2;
      } else if (e.nargs > 0) {
        if (c.product)
          throw value_error("cannot broadcast nested list (jetfuse: combinations and a cartesian product in one "
                            "expression)");
        if (c.arity != 0 && c.arity != e.nargs)
          throw value_error("cannot broadcast nested list (jetfuse: combinations of " + std::to_string(c.arity) + " and of " +
                            std::to_string(e.nargs) + " elements in one expression)");
        c.arity = e.nargs;
      }
      char& h = has_jagged[static_cast<std::size_t>(reg)];
      const char kind = e.nargs > 0 || product ? 2 : 1;
      if (h != 0 && h != kind)
        throw value_error(c.product ? "cannot broadcast nested list (jetfuse: a cartesian product's pairs and a list's "
                                      "elements in one element-wise operation; reduce the pairs per list first)"
                                    : "cannot broadcast nested list (jetfuse: a list's combinations and its elements "
                                      "in one element-wise operation; reduce the combinations per list first)");
      h = kind;
      break;
    }
    case prog_entry::elementwise:
      for (int k = 0; k < e.nargs; ++k) region(reg);
      break;
    case prog_entry::reduction: {
      const int q = ++ri;  // reduction ri - 1 (prefix order) owns region ri
      c.a.regions[static_cast<std::size_t>(q)].parent = reg;
      region(q);
      break;
    }
    case prog_entry::gather:
      throw value_error("jetfuse: jf::take and jf::searchsorted inside an expression over jagged arrays are not "
                        "supported yet; evaluate the jagged part first");
    }
  }
};

void analyse(const eval_request& r, device dev, list_call& c) {
  nest_analysis& a = c.a;
  a = nest_analysis{};
  c.role.clear();
  a.regions.assign(static_cast<std::size_t>(r.nspecs + 1), nest_analysis::region{});
  a.specs.assign(r.specs, r.specs + r.nspecs);
  c.leaf_slot.clear();
  c.own_offsets.clear();
  c.arity = 0;
  c.product = false;
  c.nested = c.plain = false;
  c.first_offsets_leaf = c.first_offsets_b_leaf = c.first_outer_leaf = -1;
  program_walk w{r, c, 0, 0, 0, {}};
  w.has_jagged.assign(a.regions.size(), 0);
  while (w.pos < r.program_size) w.region(0);
  const int na = r.narrays;
  // The lists: the first jagged leaf's offsets; every other jagged leaf must have the same lengths.
  for (int i = 0; i < na && c.first_offsets_leaf < 0; ++i)
    if (c.role[static_cast<std::size_t>(i)] == leaf_role::offsets) c.first_offsets_leaf = i;
  const array_base& off0 = *r.arrays[c.first_offsets_leaf];
  c.nlists = off0.size() - 1;
  const offsets_facts facts = offsets_facts_of(off0);
  c.first = facts.first;
  c.last = facts.last;
  c.longest = facts.longest;
  // A cartesian product's second lists: the first offsets_b leaf's; the other slot-1 leaves match them.
  for (int i = 0; i < na && c.first_offsets_b_leaf < 0; ++i)
    if (c.role[static_cast<std::size_t>(i)] == leaf_role::offsets_b) c.first_offsets_b_leaf = i;
  if (c.first_offsets_b_leaf >= 0) {
    const array_base& offb = *r.arrays[c.first_offsets_b_leaf];
    if (offb.size() != off0.size())
      throw value_error("cannot broadcast nested list (jf::cartesian: arrays of " + std::to_string(c.nlists) + " and " +
                        std::to_string(offb.size() - 1) + " lists)");
    std::tie(c.first_b, c.last_b) = offsets_bounds(offb);
  }
  for (int i = 0; i < na; ++i) {
    const leaf_role ro = c.role[static_cast<std::size_t>(i)];
    if (ro != leaf_role::offsets && ro != leaf_role::offsets_b) continue;
    const array_base& off = *r.arrays[i];
    const array_base& want = ro == leaf_role::offsets ? off0 : *r.arrays[c.first_offsets_b_leaf];
    if (!same_list_lengths(want, off))
      throw value_error("cannot broadcast nested list (jetfuse: jagged operands of " + std::to_string(want.size() - 1) +
                        " and " + std::to_string(off.size() - 1) +
                        " lists, or lists of different lengths; Awkward's ValueError)");
  }
  // Nested arrays: the outer lists too must have the same lengths (the inner ones in use were
  // checked above).
  for (int i = 0; i < na; ++i) {
    if (c.role[static_cast<std::size_t>(i)] != leaf_role::outer) continue;
    if (c.first_outer_leaf < 0) {
      c.first_outer_leaf = i;
    } else if (!same_list_lengths(*r.arrays[c.first_outer_leaf], *r.arrays[i])) {
      throw value_error("cannot broadcast nested list (jetfuse: nested operands of " +
                        std::to_string(r.arrays[c.first_outer_leaf]->size() - 1) + " and " +
                        std::to_string(r.arrays[i]->size() - 1) + " outer lists, or lists of different lengths)");
    }
  }
  // Contents: read at the walked offsets' positions, shifted by their own offsets' difference.
  c.leaf_shift.assign(static_cast<std::size_t>(na), 0);
  for (int i = 0; i < na; ++i) {
    if (c.role[static_cast<std::size_t>(i)] != leaf_role::content) continue;
    const int own = c.own_offsets[static_cast<std::size_t>(i)];
    const bool side_b = c.role[static_cast<std::size_t>(own)] == leaf_role::offsets_b;
    c.leaf_shift[static_cast<std::size_t>(i)] = offsets_bounds(*r.arrays[own]).first - (side_b ? c.first_b : c.first);
  }
  // Dense leaves: one element (uniform) or one per list.
  for (int i = 0; i < na; ++i) {
    if (c.role[static_cast<std::size_t>(i)] != leaf_role::uniform) continue;
    const array_base& x = *r.arrays[i];
    if (x.size() == 1 && x.ndim() <= 1) continue;
    if (c.nested)
      throw shape_error("jetfuse: an array of shape " + numpy_shape(x.shape()) +
                        " in an expression over nested lists: only one element (a value per outer list, "
                        "broadcast into its inner lists, is not supported yet)");
    if (x.ndim() == 1 && x.shape()[0] == c.nlists) {
      c.role[static_cast<std::size_t>(i)] = leaf_role::per_list;
      continue;
    }
    throw shape_error("jetfuse: an array of shape " + numpy_shape(x.shape()) + " in an expression over " +
                      std::to_string(c.nlists) + " lists: a per-list value needs shape (" + std::to_string(c.nlists) +
                      ",) (or one element)");
  }
  // Domains, innermost regions first (a region's operand regions have larger numbers). keepdims
  // (Awkward's n * 1 * T) only shapes the result: a per-list value with it broadcasts into the
  // lists' elements as one without; a region over the lists that holds one gives (n, 1) (with no
  // per-list value without it beside: Awkward's numpy broadcasting would give (n, n)).
  std::vector<char> kept(a.regions.size(), 0), keep(a.regions.size(), 0);
  for (int q = static_cast<int>(a.regions.size()) - 1; q >= 0; --q) {
    auto& Q = a.regions[static_cast<std::size_t>(q)];
    const char h = w.has_jagged[static_cast<std::size_t>(q)];
    ir::domain_id d = h == 2 ? pairs : h == 1 ? elements : root;
    for (int i = 0; i < na; ++i)
      if (a.leaf_region[static_cast<std::size_t>(i)] == q && c.role[static_cast<std::size_t>(i)] == leaf_role::per_list)
        d = deeper(d, lists);
    for (std::size_t k = 1; k < a.regions.size(); ++k)
      if (a.regions[k].parent == q) d = deeper(d, a.regions[k].result_domain);
    Q.domain = d;
    if (d == lists) {  // (n, 1) beside (n,): Awkward broadcasts them as numpy does, to (n, n)
      bool with = false, without = false;
      for (std::size_t k = 1; k < a.regions.size(); ++k)
        if (a.regions[k].parent == q && a.regions[k].result_domain == lists) (kept[k] ? with : without) = true;
      for (int i = 0; i < na; ++i)
        if (a.leaf_region[static_cast<std::size_t>(i)] == q &&
            c.role[static_cast<std::size_t>(i)] == leaf_role::per_list)
          without = true;
      if (with && without)
        throw value_error(
            "jetfuse: a per-list value with keepdims (n, 1) and one without (n,) in one operation: "
            "Awkward broadcasts them to (n, n), which is not supported; give both or neither keepdims");
      keep[static_cast<std::size_t>(q)] = with ? 1 : 0;
    }
    if (q == 0) break;
    reduce_spec& sp = a.specs[static_cast<std::size_t>(q - 1)];
    const std::string what = "jf::" + std::string(name(sp.kind));
    if (sp.kind == reducer::histogram || sp.kind == reducer::bincount || is_scan(sp.kind) || sp.kind == reducer::compact)
      throw value_error("jetfuse: " + what + " of a jagged array is not supported yet");
    const int depth = (d == elements || d == pairs ? 2 : d == lists ? 1 : 0) + (c.nested && d != root ? 1 : 0);
    if (depth == 0)
      throw value_error("jetfuse: " + what + " of a value that is the same for every list (reduce a jagged array)");
    if (c.nested) {  // the innermost lists (axis -1) only, in this version
      if (d != elements)
        throw value_error("jetfuse: " + what + " of per-inner-list values of a nested array is not supported yet");
      if (sp.all_axes)
        throw value_error("jetfuse: " + what + " over every element of a nested array (axis=None) is not supported "
                          "yet; reduce jf::ravel(x) (a dense view) instead");
      if (sp.naxes != 1) throw axis_error("jetfuse: " + what + " of a nested array takes one axis");
      const int ax = sp.axes[0] < 0 ? sp.axes[0] + depth : sp.axes[0];
      if (ax < 0 || ax >= depth)
        throw axis_error("axis=" + std::to_string(sp.axes[0]) + " exceeds the depth of this array (" +
                         std::to_string(depth) + ")");
      if (ax != depth - 1)
        throw axis_error("jetfuse: " + what + " of a nested array with axis=" + std::to_string(sp.axes[0]) +
                         " is not supported yet (only axis=-1 or 2: each innermost list)");
      if (sp.keepdims) throw value_error("jetfuse: " + what + " with keepdims of a nested array is not supported yet");
      Q.result_domain = lists;
      sp.axes[0] = 1;
      continue;
    }
    if (sp.all_axes) {  // axis=None: every element
      if (none_for_empty(sp.kind))
        throw value_error("jetfuse: " + what + " over every element of a jagged array (axis=None) would be None for "
                          "no element; reduce jf::flatten(x) (a dense view) instead, or give axis=-1 for each list");
      Q.result_domain = root;
    } else {
      if (sp.naxes != 1) throw axis_error("jetfuse: " + what + " of a jagged array takes one axis");
      const int ax = sp.axes[0] < 0 ? sp.axes[0] + depth : sp.axes[0];
      if (ax < 0 || ax >= depth)
        throw axis_error("axis=" + std::to_string(sp.axes[0]) + " exceeds the depth of the nested list structure (which is " +
                         std::to_string(depth) + ")");  // Awkward 2.14's reducers
      if (depth == 2 && ax == 0)  // the conversions run it at the root (jagged_across.hpp)
        throw value_error("jetfuse: " + what + " with axis=0 across the lists of a jagged array inside an expression "
                          "(or with keepdims) is not supported; evaluate it first (jf::eval(" + what + "(x, 0)))");
      Q.result_domain = depth == 2 ? lists : root;
      sp.axes[0] = ax;
    }
    if (keep[static_cast<std::size_t>(q)])
      throw value_error("jetfuse: " + what +
                        " of a per-list value of shape (n, 1) (from jf::keepdims) is not supported yet");
    if (sp.keepdims) {
      if (Q.result_domain != lists)
        throw value_error("jetfuse: " + what +
                          " with keepdims of a jagged array: only per list (axis=-1 or 1) in this version");
      kept[static_cast<std::size_t>(q)] = 1;
      sp.keepdims = false;  // the kernels are those without it
    }
  }
  // An option result (None for empty lists): a reduction that may be None reaches the result's lists.
  c.out_domain = a.regions[0].domain;
  if (c.out_domain == pairs)
    throw value_error(std::string("jetfuse: this evaluation gives every ") +
                      (c.product ? "pair of the cartesian product" : "combination") +
                      " of each list: assign the expression alone to a jf::jagged (the pairs are materialised then), "
                      "or reduce them per list (jf::max(m, -1))");
  c.option = r.result_valid != nullptr;
  c.keep = keep[0] != 0 && c.out_domain == lists;
  // Global axes and domains.
  a.extents = {std::max<std::int64_t>(c.nlists, 0), c.last - c.first};
  a.domains = {ir::domain{}, ir::domain{ir::domain_kind::list, 0, {list_axis}, -1, 0},
               ir::domain{ir::domain_kind::elements, lists, {element_axis}, -1, 0}};
  if (c.arity > 0) {  // the combinations (or the product): one global axis per slot
    ir::domain P{c.product ? ir::domain_kind::product : ir::domain_kind::pairs, lists, {}, -1, c.arity};
    for (int k = 0; k < c.arity; ++k) {
      P.axes.push_back(first_slot_axis + k);
      a.extents.push_back(c.product && k == 1 ? c.last_b - c.first_b : c.last - c.first);
    }
    a.domains.push_back(P);
  }
  // Operands: strides over (list, element, slots); contents read at j + shift (at j_k for slot k).
  c.leaf_strides.assign(static_cast<std::size_t>(na), std::vector<std::int64_t>(a.extents.size(), 0));
  // (Offsets values fit I too: the list kernels keep list starts and ends in it.)
  c.index32 = c.nlists < int32_limit && std::max(c.last, c.last_b) < int32_limit;
  for (int i = 0; i < na; ++i) {
    const array_base& x = *r.arrays[i];
    auto& s = c.leaf_strides[static_cast<std::size_t>(i)];
    const std::int64_t st = x.ndim() == 1 ? x.strides()[0] : 0;
    switch (c.role[static_cast<std::size_t>(i)]) {
    case leaf_role::uniform: break;
    case leaf_role::per_list: s[list_axis] = st; break;
    case leaf_role::offsets: s[list_axis] = st; break;
    case leaf_role::offsets_b: s[list_axis] = st; break;
    case leaf_role::outer: break;
    case leaf_role::content: {
      const int slot = c.leaf_slot[static_cast<std::size_t>(i)];
      s[static_cast<std::size_t>(slot >= 0 ? first_slot_axis + slot : element_axis)] = st;
      break;
    }
    }
    const std::int64_t reach = (c.nlists + 1) * (s[list_axis] < 0 ? -s[list_axis] : s[list_axis]) +
                               (std::max(c.last, c.last_b) + 1 + std::abs(c.leaf_shift[static_cast<std::size_t>(i)])) *
                                   (st < 0 ? -st : st);
    if (reach >= int32_limit) c.index32 = false;
  }
  // Kernel inputs: the same elements read in one role once; the offsets the list domain walks.
  c.leaf_input.assign(static_cast<std::size_t>(na), -1);
  c.input_leaf.clear();
  c.input_layout.clear();
  for (int i = 0; i < na; ++i) {
    const array_base& x = *r.arrays[i];
    if (x.buffer()->source != buffer_source::memory)
      throw value_error("jetfuse: random leaves in expressions over jagged arrays are not supported yet");
    const auto ii = static_cast<std::size_t>(i);
    const bool walked = i == c.first_offsets_leaf || i == c.first_offsets_b_leaf;
    if ((c.role[ii] == leaf_role::offsets || c.role[ii] == leaf_role::offsets_b || c.role[ii] == leaf_role::outer) &&
        !walked)
      continue;  // read by no node
    for (std::size_t k = 0; k < c.input_leaf.size(); ++k) {
      const int j = c.input_leaf[k];
      const auto jj = static_cast<std::size_t>(j);
      if (detail::address_of(*r.arrays[j]) == detail::address_of(x) && r.arrays[j]->dtype() == x.dtype() &&
          c.role[jj] == c.role[ii] && c.leaf_shift[jj] == c.leaf_shift[ii] &&
          c.leaf_strides[jj] == c.leaf_strides[ii] &&
          a.regions[static_cast<std::size_t>(a.leaf_region[jj])].domain ==
              a.regions[static_cast<std::size_t>(a.leaf_region[ii])].domain) {
        c.leaf_input[ii] = static_cast<std::int32_t>(k);
        break;
      }
    }
    if (c.leaf_input[ii] >= 0) continue;
    c.leaf_input[ii] = static_cast<std::int32_t>(c.input_leaf.size());
    c.input_leaf.push_back(i);
    const auto& s = c.leaf_strides[ii];
    const bool unit = c.role[ii] == leaf_role::content ? s[element_axis] == 1 : s[list_axis] == 1;
    // In a pairs domain every operand is strided (the slot is in its strides).
    const bool in_pairs = a.regions[static_cast<std::size_t>(a.leaf_region[ii])].domain == pairs;
    c.input_layout.push_back(unit && c.role[ii] != leaf_role::per_list && !in_pairs ? ir::layout::contiguous
                                                                                      : ir::layout::strided);
  }
  for (int i = 0; i < na; ++i)  // other offsets leaves: the walked one's input (never read)
    if (c.leaf_input[static_cast<std::size_t>(i)] < 0) c.leaf_input[static_cast<std::size_t>(i)] = c.leaf_input[static_cast<std::size_t>(c.first_offsets_leaf)];
  a.domains[lists].source = c.leaf_input[static_cast<std::size_t>(c.first_offsets_leaf)];
  // The longest list, where the offsets' validation saw it: short lists need no warp or block paths.
  a.domains[lists].longest = ir::list_length_class(c.longest);
  // Short on average: read by the combinations' kernel only (other graphs keep one variant, one
  // source, whatever the mean).
  a.domains[lists].short_on_average = c.arity > 0 && !c.product && ir::short_on_average(c.nlists, c.last - c.first);
  if (c.product) a.domains[pairs].source = c.leaf_input[static_cast<std::size_t>(c.first_offsets_b_leaf)];
  // The variant key.
  auto& key = c.key;
  key.clear();
  key.push_back(static_cast<std::int32_t>(dev.kind));
  key.push_back(dev.ordinal);
  key.push_back(static_cast<std::int32_t>(r.opt.mode) * 2 + (r.opt.fast_math ? 1 : 0));
  key.push_back((c.index32 ? 1 : 0) + (c.option ? 2 : 0) + (r.result_offsets ? 4 : 0));
  key.push_back(static_cast<std::int32_t>(a.domains[lists].longest));
  key.push_back(a.domains[lists].short_on_average ? 1 : 0);
  for (const auto& Q : a.regions) {
    key.push_back(Q.domain);
    key.push_back(Q.result_domain);
  }
  for (const auto& sp : a.specs) key.push_back(sp.ddof);
  for (int o = 0; o < r.nout; ++o) key.push_back(static_cast<std::int32_t>(r.out_types[o]));
  key.push_back(c.arity * 4 + (c.product ? 1 : 0) + (c.nested ? 2 : 0));
  for (int i = 0; i < na; ++i) key.push_back(c.leaf_input[static_cast<std::size_t>(i)] * 4 + c.leaf_slot[static_cast<std::size_t>(i)] + 1);
  for (auto l : c.input_layout) key.push_back(static_cast<std::int32_t>(l));
  for (int k : c.input_leaf) key.push_back(static_cast<std::int32_t>(c.role[static_cast<std::size_t>(k)]));
  // The inputs' dtypes: the offsets may be int64 or int32 (Awkward's Index32, read as given), which
  // the expression's type does not say; kernels declare their pointers with them.
  for (int k : c.input_leaf) key.push_back(static_cast<std::int32_t>(r.arrays[k]->dtype()));
  specialise_scalars(r.scalars, r.nscalars, c.specialised, key);
}

bool uniform(const ir::node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }

// Whether a list of an option result holds a value (Awkward's mask_identity): each reduction that
// may be None (min, max, argmin, argmax and their nan forms) saw at least one iteration — an
// element, or a combination, where its guard (x(mask)) holds; a list is None when any is.
ir::node_id validity(ir::graph& g) {
  const ir::node_id zero = g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 0));
  const ir::node_id one = g.add_constant(dtype::int64, ir::scalar_value::of(dtype::int64, 1));
  std::vector<std::pair<ir::domain_id, ir::node_id>> seen;
  ir::node_id valid = ir::no_node;
  const std::size_t n = g.nodes.size();
  for (std::size_t k = 0; k < n; ++k) {
    const ir::node x = g.nodes[k];
    if (x.code != op::reduce || x.domain != lists) continue;
    const auto m = static_cast<monoid>(x.attr[0]);
    if (m != monoid::min && m != monoid::max && m != monoid::nanmin && m != monoid::nanmax && m != monoid::argmin &&
        m != monoid::argmax)
      continue;
    const ir::domain_id from = g.at(x.args[0]).domain;
    const ir::node_id guard = x.nargs == 2 ? x.args[1] : ir::no_node;
    if (std::find(seen.begin(), seen.end(), std::pair{from, guard}) != seen.end()) continue;
    seen.emplace_back(from, guard);
    const ir::node_id ones = guard == ir::no_node ? g.add_broadcast(one, from) : g.add_op(op::cast, dtype::int64, {guard});
    g.nodes[static_cast<std::size_t>(ones)].domain = from;
    const ir::node_id count = g.add_reduce(monoid::sum, ones, ir::no_node, lists);
    const ir::node_id some = g.add_op(op::greater, dtype::bool_, {count, zero});
    g.nodes.back().domain = lists;
    if (valid != ir::no_node) {
      valid = g.add_op(op::logical_and, dtype::bool_, {valid, some});
      g.nodes.back().domain = lists;
    } else {
      valid = some;
    }
  }
  if (valid == ir::no_node) throw error("jetfuse: an option result without a reduction that may be None");
  return valid;
}

ir::graph lower_lists(const eval_request& r, const list_call& c) {
  ir::graph g;
  g.loop_nest = true;
  g.ndim = static_cast<int>(c.a.extents.size());
  g.domains = c.a.domains;
  g.index32 = c.index32;
  for (std::size_t k = 0; k < c.input_leaf.size(); ++k) {
    g.inputs.push_back(ir::operand_desc{r.arrays[c.input_leaf[k]]->dtype(), c.input_layout[k]});
    // The strides promised to a pairs kernel (operand_desc::slot): a slot's field, or a value per list.
    const auto leaf = static_cast<std::size_t>(c.input_leaf[k]);
    if (c.role[leaf] == leaf_role::content && c.leaf_slot[leaf] >= 0) g.inputs.back().slot = c.leaf_slot[leaf];
    // A uniform leaf (one element: a per-list value of one list, say) is a value per list too.
    if ((c.role[leaf] == leaf_role::per_list || c.role[leaf] == leaf_role::uniform) && c.arity > 0)
      g.inputs.back().slot = static_cast<std::int8_t>(c.arity);
  }
  std::vector<unsigned char> spec(c.specialised.begin(), c.specialised.end());
  spec.push_back(0);
  lowering_inputs in{c.leaf_input.data(), c.input_layout.data(), r.scalars, reinterpret_cast<const bool*>(spec.data()), &c.a};
  std::vector<ir::node_id> roots;
  r.lower(g, in, static_cast<int>(c.input_leaf.size()), roots);
  g.params.assign(static_cast<std::size_t>(r.nscalars), dtype::int64);
  for (const auto& n : g.nodes)
    if (n.code == op::param) g.params[static_cast<std::size_t>(n.index)] = n.type;
  auto output = [&](ir::node_id v, dtype t) {
    v = lower_cast(g, v, t, c.out_domain);
    const ir::node& n = g.at(v);
    if (!uniform(n) && n.domain != c.out_domain) v = g.add_broadcast(v, c.out_domain);
    g.add_output(v, c.out_domain == elements ? ir::layout::contiguous : ir::layout::strided);
    g.outputs.back().domain = c.out_domain;
  };
  output(roots[0], r.out_types[0]);
  if (c.option) output(validity(g), dtype::bool_);
  for (ir::node& n : g.nodes)
    if (uniform(n)) n.domain = 0;
  g.validate();
  return g;
}

// Where an operand over domain d lies: strides over (list, element) and the shift of its pointer
// (elements) so that element j of the lists lands at index j - first of a new content.
std::vector<std::int64_t> strides_over(const list_call& c, ir::domain_id d) {
  std::vector<std::int64_t> s(c.a.extents.size(), 0);
  if (d == elements) s[element_axis] = 1;
  if (d == lists) s[list_axis] = 1;
  return s;
}
void* shifted(void* p, std::int64_t elements_, dtype t) {
  return static_cast<char*>(p) + elements_ * static_cast<std::int64_t>(size_of(t));
}

shape_t shape_over(const list_call& c, ir::domain_id d) {
  if (d == elements) return shape_t{c.last - c.first};
  if (d == lists) return shape_t{c.nlists};
  return shape_t{};
}

void prepare_outputs_lists(const eval_request& r, device dev, const list_call& c) {
  const shape_t shape = c.keep ? shape_t{c.nlists, 1} : shape_over(c, c.out_domain);
  auto prepare = [&](array_base& out, dtype t) {
    if (out.is_null()) {
      out = make_array(dev, t, shape);
    } else if (!(out.shape() == shape)) {
      throw shape_error("jetfuse: the result over the lists has shape " + to_string(shape) + ", the destination " +
                        to_string(out.shape()));
    } else if (!(out.device() == dev)) {
      throw backend_mismatch("jetfuse: the destination is on " + to_string(out.device()) + ", the operands on " + to_string(dev));
    } else {
      note_write(*out.buffer());  // existing memory written: what was remembered about it lapses
    }
  };
  prepare(r.outputs[0], r.out_types[0]);
  if (c.option) prepare(*r.result_valid, dtype::bool_);
  if (!r.result_offsets && c.out_domain == elements)
    throw value_error("jetfuse: this expression gives a jagged array; assign it to a jf::jagged");
  if ((r.result_outer_offsets != nullptr) != c.nested)
    throw value_error("jetfuse: an expression over nested lists gives nested lists (or a jf::jagged per inner list)");
  if (c.nested) {
    if (c.out_domain != elements && c.out_domain != lists)
      throw value_error("jetfuse: this expression over nested lists gives no value per inner list or element");
    *r.result_outer_offsets = rebased_offsets(*r.arrays[c.first_outer_leaf]);
  }
  if (r.result_offsets) {
    if (c.out_domain != elements)
      throw value_error("jetfuse: this expression gives one value per list, not a jagged array (assign it to a jf::array)");
    const array_base& off0 = *r.arrays[c.first_offsets_leaf];
    if (c.first == 0) {
      *r.result_offsets = off0;  // shared: later operations see the same lists by identity
    } else {  // the new content starts at 0: offsets - first (one small copy), remembered as the same lengths
      const std::vector<std::int64_t> host = [&] {
        std::vector<std::int64_t> v = host_offsets(off0);  // (int64 or int32: the result's are int64)
        for (auto& x : v) x -= c.first;
        return v;
      }();
      *r.result_offsets = make_from_host(dev, dtype::int64, off0.shape(), host.data());
      remember_offsets_bounds(*r.result_offsets, 0, c.last - c.first, c.longest);
      remember_same_list_lengths(*r.result_offsets, off0);
    }
  }
}

void run(const eval_request& r, device dev, list_call& c) {
  prepare_outputs_lists(r, dev, c);
  // No iteration (a reduction over every element still stores its identity).
  if ((c.out_domain == lists && c.nlists <= 0) || (c.out_domain == elements && c.last == c.first)) return;
  const variant& v = find_or_build_variant(*r.slot, c.key, [&](variant& var) { build_variant(var, lower_lists(r, c), r.opt, dev); });
  // Outputs overlapping an input are staged: a new array, copied at the end.
  const int nout = c.option ? 2 : 1;
  std::vector<array_base> outs{r.outputs[0]};
  if (c.option) outs.push_back(*r.result_valid);
  std::vector<array_base> staged(static_cast<std::size_t>(nout));
  for (int o = 0; o < nout; ++o)
    for (int k : c.input_leaf)
      if (may_overlap(outs[static_cast<std::size_t>(o)], *r.arrays[k])) {
        staged[static_cast<std::size_t>(o)] = make_array(dev, outs[static_cast<std::size_t>(o)].dtype(), outs[static_cast<std::size_t>(o)].shape());
        break;
      }
  auto out_binding = [&](int o) {
    const auto so = static_cast<std::size_t>(o);
    const array_base& x = staged[so].is_null() ? outs[so] : staged[so];
    std::vector<std::int64_t> s = strides_over(c, c.out_domain);
    for (auto& v_ : s) v_ *= x.ndim() >= 1 ? x.strides()[0] : 0;  // (n,) or (n, 1) from keepdims
    void* p = detail::address_of(x);
    if (c.out_domain == elements) p = shifted(p, -c.first * (x.strides()[0]), x.dtype());
    return operand_binding{p, s};
  };
  auto in_binding = [&](std::int32_t k) {
    const int leaf = c.input_leaf[static_cast<std::size_t>(k)];
    const array_base& x = *r.arrays[leaf];
    const auto& s = c.leaf_strides[static_cast<std::size_t>(leaf)];
    void* p = const_cast<void*>(static_cast<const void*>(detail::address_of(x)));
    if (c.role[static_cast<std::size_t>(leaf)] == leaf_role::content)  // (any slot: the content's own stride)
      p = shifted(p, c.leaf_shift[static_cast<std::size_t>(leaf)] * (x.ndim() == 1 ? x.strides()[0] : 0), x.dtype());
    return operand_binding{p, s};
  };
  step_bindings b;
  b.extents = c.a.extents;
  if (dev.kind == device_kind::cpu) {
    for (std::size_t k = 0; k < c.input_leaf.size(); ++k) b.inputs.push_back(in_binding(static_cast<std::int32_t>(k)));
    for (int o = 0; o < nout; ++o) b.outputs.push_back(out_binding(o));
    for (std::size_t p = 0; p < v.lowered.params.size(); ++p) b.params.push_back(r.scalars[p].bits);
    bump(counter::cpu_evaluations);
    bump(counter::cpu_elements, static_cast<std::uint64_t>(c.last - c.first));
    cpu_exec::execute(v.lowered, b);
  } else {
    std::vector<array_base> temporaries;
    std::vector<operand_binding> temp_bindings;
    for (std::size_t t = 0; t < v.plan.temporaries.size(); ++t) {
      const ir::domain_id d = v.plan.temporary_domain[t];
      temporaries.push_back(make_array(dev, v.plan.temporaries[t], shape_over(c, d)));
      void* p = detail::address_of(temporaries.back());
      if (d == elements) p = shifted(p, -c.first, v.plan.temporaries[t]);
      temp_bindings.push_back(operand_binding{p, strides_over(c, d)});
      bump(counter::temporaries);
    }
    auto bind = [&](const ir::operand_ref& ref) {
      switch (ref.k) {
      case ir::operand_ref::kind::input: return in_binding(ref.index);
      case ir::operand_ref::kind::output: return out_binding(ref.index);
      default: return temp_bindings[static_cast<std::size_t>(ref.index)];
      }
    };
    launch_steps(v, b, bind, [&](std::int32_t p) { return r.scalars[p].bits; });
  }
  for (int o = 0; o < nout; ++o)
    if (!staged[static_cast<std::size_t>(o)].is_null()) assign(outs[static_cast<std::size_t>(o)], staged[static_cast<std::size_t>(o)]);
}

}  // namespace

void evaluate_lists(const eval_request& r) {
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  if (dev.kind == device_kind::cuda) backend::require_cuda();
  thread_local list_call c;
  analyse(r, dev, c);
  run(r, dev, c);
}

std::string explain_lists(const eval_request& r) {
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  list_call c;
  analyse(r, dev, c);
  std::ostringstream os;
  os << "jetfuse: evaluation over " << c.nlists << " lists of " << (c.last - c.first) << " elements with " << r.nspecs
     << " reduction(s) on " << to_string(dev) << "\n";
  ir::graph g = lower_lists(r, c);
  os << describe_backend(g, dev, r.opt, "src/cpu/list_executor.cpp",
                         "chunks of lists on the thread pool; each node over the chunk's lists, elements or "
                         "combinations; per-list reductions in increasing element (combination) order");
  return os.str();
}

}  // namespace jf::detail
