// numpy.histogram's uniform bins, exactly: which dtypes numpy computes each step in, the range
// checks and the edges (np.linspace). src/engine/binning.cpp; the lowering of a histogram
// (lower_reduction.cpp) computes each value's bin with these numbers on both backends.
#pragma once

#include <cstdint>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/reducers.hpp"

namespace jf::detail {

// For data of dtype `data` (numpy 2, NEP 50): the edges are of dtype `edge` (float32 for float32
// data, else float64); a value x (converted to `edge`) is kept when first_e <= x <= last_e (range
// given; with the data's range every value is kept) and falls in bin
//   f = work((x - first_e) in `edge`) / denom * bins,  i = int64(f),  i == bins -> bins - 1,
//   x < edge(i) -> i - 1,  x >= edge(i + 1) and i != bins - 1 -> i + 1,
// where edge(k) = edge-dtype(k == bins ? last : work(k) * step + first) (np.linspace in `work`;
// step_zero: (work(k) / bins) * step + first, step then being the range's width).
struct binning {
  std::int64_t bins = 0;
  dtype edge = dtype::float64;
  dtype work = dtype::float64;  // float32 only for float32 data with the data's range
  bool guarded = true;          // the range is given: values outside it are not counted
  bool step_zero = false;       // linspace's branch for a step that underflows to 0
  double first = 0, last = 0;   // first_edge, last_edge in `work`
  double first_e = 0, last_e = 0;  // the same in `edge`
  double denom = 0, step = 0;   // in `work`
};

// Checks the arguments as numpy does (jf::value_error with its message: bins not positive, a
// range not finite or reversed, too many bins for the range) and computes the bins of spec.
binning make_binning(const reduce_spec& spec);
// numpy's edges (bins + 1 values of b.edge, as doubles).
std::vector<double> bin_edges(const binning& b);
// The edges as an array on `dev`.
array_base bin_edges_array(const binning& b, device dev);

}  // namespace jf::detail
