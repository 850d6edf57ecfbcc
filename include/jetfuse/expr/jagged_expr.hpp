// jf::jagged arrays as leaves of expressions (docs/design.md, "Expressions over jagged arrays"):
// `x * 2 + met` is a jagged expression (element-wise over the lists' elements, a per-list value
// such as met broadcast onto its list), `jf::max(x * 2, -1)` a per-list reduction. A jagged leaf
// is two array leaves, its content then its offsets; src/engine/evaluate_lists.cpp lowers the
// expression into the IR's list and elements domains, so the whole expression is one loop nest.
#pragma once

#include <array>
#include <type_traits>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/value_kind.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/walk.hpp"
#include "jetfuse/reducers.hpp"

namespace jf {

template <class T> struct leaf_counts<term<jagged<T>>> {
  static constexpr int arrays = 2, scalars = 0, reductions = 0, nest_only = 1;
};
template <class T> struct type_of_impl<term<jagged<T>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};
template <class T> struct leaf_counts<term<jagged<jagged<T>>>> {
  static_assert(is_element_v<T>, "jetfuse: expressions over lists nested more than twice are not supported yet");
  static constexpr int arrays = 3, scalars = 0, reductions = 0, nest_only = 1;
};
template <class T> struct type_of_impl<term<jagged<jagged<T>>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};

namespace detail {

template <class T> struct tree<term<jagged<T>>> {
  template <dtype Target>
  static void gather(const term<jagged<T>>& e, const array_base** arrays, scalar_slot*, reduce_spec*, scalar_use) {
    const jagged<T>& x = e.elements[hana::llong_c<0>];
    arrays[0] = &x.content();
    arrays[1] = &x.stored_offsets();  // int64 or int32 (the kernels read them as they are)
  }
};
template <class T> struct lower_type<term<jagged<T>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const ir::node_id content = lower_input(g, in, c.ai, c.region, c.regions, *c.input_nodes, dtype_v<T>);
    c.ai += 2;  // the offsets are the list domain's, read by no node
    return content;
  }
};
template <class T> struct program_of<term<jagged<T>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::jagged, 0}}};
};

// A nested array (jf::jagged<jf::jagged<T>>, nested.hpp) is three array leaves: the innermost
// content, the inner offsets of the inner lists in use (the lists the loop nest walks), the outer
// offsets (read by no node: the engine checks them and hands them to the result).
template <class T> struct tree<term<jagged<jagged<T>>>> {
  template <dtype Target>
  static void gather(const term<jagged<jagged<T>>>& e, const array_base** arrays, scalar_slot*, reduce_spec*, scalar_use) {
    const jagged<jagged<T>>& x = e.elements[hana::llong_c<0>];
    arrays[0] = &x.content().content();
    arrays[1] = &x.used_offsets();
    arrays[2] = &x.offsets();
  }
};
template <class T> struct lower_type<term<jagged<jagged<T>>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const ir::node_id content = lower_input(g, in, c.ai, c.region, c.regions, *c.input_nodes, dtype_v<T>);
    c.ai += 3;
    return content;
  }
};
template <class T> struct program_of<term<jagged<jagged<T>>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::jagged, nested_leaf}}};
};

// Evaluates a jagged or option expression: outputs[0] receives the content (jagged) or the values
// (option); offsets / valid the result's offsets and validity; outer a nested result's outer offsets.
template <class E>
[[gnu::noinline]] void evaluate_lists_into(array_base& out, dtype out_type, array_base* offsets, array_base* valid,
                                           const eval_options& opt, const E& e, array_base* outer = nullptr) {
  gathered<E> g(e);
  eval_request r = g.request(&out, &out_type, opt);
  r.slot = slot_for<slot_key<E>>();
  r.result_offsets = offsets;
  r.result_valid = valid;
  r.result_outer_offsets = outer;
  evaluate(r);
}

}  // namespace detail
}  // namespace jf
