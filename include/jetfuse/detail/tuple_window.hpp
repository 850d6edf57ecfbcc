// The shown window of lists of tuples (ak.combinations, ak.cartesian, ak.argcombinations printed):
// which tuples of which lists the printer may look at, and where each tuple's elements lie in the
// contents — computed on the host from the shown lists' offsets alone (src/core/tuple_window.cpp),
// so that printing combinations gathers only the shown elements and never materialises the rest.
// The typed gathering is in jetfuse/combinations_print.hpp. No YAP here.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "jetfuse/detail/awkward_print.hpp"

namespace jf::detail {

struct tuple_window {
  std::int64_t n = 0;                                 // the number of lists
  std::vector<std::int64_t> lengths;                 // the tuples of each shown list, in window order
  std::vector<std::vector<std::int64_t>> positions;  // per slot: its content position in every shown tuple
  // The window's tree from one item per slot and shown tuple (slot_items[s][t]).
  pp_item tree(const std::vector<std::vector<pp_item>>& slot_items) const;
};

// The offsets' positions to gather for the shown lists of n lists: l and l + 1 for each, in order.
std::vector<std::int64_t> shown_bounds_positions(std::int64_t n);
// The k-element combinations (k = 2, 3) of each shown list; `bounds` are offsets[l], offsets[l + 1]
// of the shown lists (in shown_bounds_positions' order).
tuple_window combinations_window(std::int64_t n, const std::vector<std::int64_t>& bounds, int k);
// The pairs of the product of a's and b's lists (a slowest).
tuple_window cartesian_window(std::int64_t n, const std::vector<std::int64_t>& bounds_a,
                              const std::vector<std::int64_t>& bounds_b);
// Materialised tuples of `arity` slots sharing offsets: every slot at the same positions.
tuple_window tuples_window(std::int64_t n, const std::vector<std::int64_t>& bounds, int arity);

// C(m, k) for k = 2, 3 (jf::value_error past int64); the local indices of the combination of rank
// r (0 <= r < C(m, k)) in Awkward's lexicographic order, exactly.
std::int64_t combinations_count(std::int64_t m, int k);
std::array<std::int64_t, 3> unrank_combination(std::int64_t m, int k, std::int64_t r);

}  // namespace jf::detail
