// The reducers of the front end (jf::sum, jf::mean, ...) with numpy's names and result dtypes, and
// the run-time description of one reduction call (its axes). No YAP: src/ lowers them to the IR's
// reduce nodes (a reducer is a monoid of ops.hpp or a composition of them, e.g. mean = sum / n).
#pragma once

#include <cstdint>
#include <string_view>

#include "jetfuse/dtype.hpp"
#include "jetfuse/shape.hpp"

namespace jf {

#define JF_REDUCERS(X)                                                                                   \
  X(sum) X(prod) X(min) X(max) X(mean) X(var) X(std) X(any) X(all) X(argmin) X(argmax) X(count_nonzero) \
  X(nansum) X(nanprod) X(nanmin) X(nanmax) X(nanmean) X(histogram) X(bincount) X(cumsum) X(cumprod) \
  X(compact)

enum class reducer : std::uint8_t {
#define JF_X(r) r,
  JF_REDUCERS(JF_X)
#undef JF_X
};

constexpr std::string_view name(reducer r) {
  switch (r) {
#define JF_X(r) \
  case reducer::r: return #r;
    JF_REDUCERS(JF_X)
#undef JF_X
  }
  return "?";
}

// numpy's result dtype of a reducer applied to dtype t (no `dtype=` argument): sums and products
// of bool and signed integers accumulate in int64 (numpy's int_), of unsigned integers in uint64
// (uint); means and variances of them are float64.
constexpr dtype reduced_dtype(reducer r, dtype t) {
  switch (r) {
  case reducer::sum: case reducer::prod: case reducer::nansum: case reducer::nanprod:
  case reducer::cumsum: case reducer::cumprod:
    return is_floating(t) ? t : is_unsigned_integer(t) ? dtype::uint64 : dtype::int64;
  case reducer::mean: case reducer::var: case reducer::std: case reducer::nanmean:
    return is_floating(t) ? t : dtype::float64;
  case reducer::any: case reducer::all: return dtype::bool_;
  case reducer::argmin: case reducer::argmax: case reducer::count_nonzero: return dtype::int64;
  case reducer::histogram: case reducer::bincount: return dtype::int64;  // counts
  case reducer::compact: return t;  // the selected values (jf::detail::compact_node fixes int64 for indices)
  default: return t;  // min, max, nanmin, nanmax
  }
}

// Scans (cumsum, cumprod): not reductions, but nodes of the same kind in the front end and the
// analysis (an operand region, its own arguments); they keep the operand's shape (numpy's
// accumulate), or flatten it without an axis.
constexpr bool is_scan(reducer r) { return r == reducer::cumsum || r == reducer::cumprod; }

// Reducers without an identity: numpy raises on an empty reduction (zero-size array to reduction
// operation maximum which has no identity).
constexpr bool needs_elements(reducer r) {
  return r == reducer::min || r == reducer::max || r == reducer::nanmin || r == reducer::nanmax ||
         r == reducer::argmin || r == reducer::argmax;
}

// Awkward's reducers whose value for an empty list is None (their mask_identity=True by default;
// Awkward 2.14's mean, var and std default to False: NaN for an empty list): a per-list reduction of
// a jagged array with one of them gives a jf::option_array.
constexpr bool none_for_empty(reducer r) {
  switch (r) {
  case reducer::min: case reducer::max: case reducer::nanmin: case reducer::nanmax: case reducer::argmin:
  case reducer::argmax:
    return true;
  default: return false;
  }
}

// jf::keepdims: the reduced axes stay, with extent 1 (numpy's keepdims=True).
struct keepdims_t {};
inline constexpr keepdims_t keepdims{};
// jf::ddof(1): var and std divide by n - ddof (numpy's ddof=).
struct ddof {
  explicit constexpr ddof(int d) : value(d) {}
  int value;
};

namespace detail {
// Where the range of a histogram comes from: given (python floats), or the data's min and max
// (numpy then computes in the data's dtype: floats as they are, integers exactly).
enum class bin_range : std::uint8_t { given, data_float, data_int };

// The run-time arguments of one reduction call: which axes (numpy's axis=None, an int or a tuple,
// negative counting from the end; checked against the operand's rank when it runs), keepdims, ddof.
// histogram and bincount reduce every axis into a new one of `bins` iterations.
struct reduce_spec {
  reducer kind = reducer::sum;
  bool all_axes = true;
  bool keepdims = false;
  std::int8_t naxes = 0;
  std::int32_t ddof = 0;
  std::int32_t axes[max_ndim] = {};
  // cumsum, cumprod: the scanned axis after the analysis normalised it (-1: axis=None, flattened).
  std::int32_t scan_axis = -1;
  // compact (x(mask), flatnonzero, nonzero): `bins` is the number of selected elements (counted
  // first); without a value operand the values are indices: along this axis of the mask, or (-1)
  // the flat index.
  std::int32_t index_axis = -1;
  // An empty min/max gives the identity instead of raising (numpy's initial=; used internally by
  // the histogram's range and bincount's length).
  bool allow_empty = false;
  // The operand must be 1-d, as numpy.bincount's (checked before its values are looked at).
  bool bincount_operand = false;
  // histogram, bincount: the counts' length; histogram: the operand's dtype and the range.
  std::int64_t bins = 0;
  dtype data = dtype::float64;
  bin_range range = bin_range::given;
  double lo = 0, hi = 0;          // given, data_float
  std::int64_t ilo = 0, ihi = 0;  // data_int
};
}  // namespace detail

}  // namespace jf
