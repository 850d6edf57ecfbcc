// numpy.histogram and numpy.bincount of any expression, fused with it: the counts are one
// scatter of the expression's values into bins (one kernel on jf::cuda with a block-private
// histogram in shared memory), exactly numpy's bins and edges. Both evaluate at once, as numpy's
// return arrays: auto [hist, edges] = jf::histogram(x * 2, 100, {0.0, 1.0});
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "jetfuse/detail/binning.hpp"
#include "jetfuse/eval.hpp"
#include "jetfuse/expr/reductions.hpp"

namespace jf {

// The counts and the bin edges (numpy's dtypes: int64 counts; float32 edges for float32 data,
// float64 otherwise); works with structured bindings.
template <class E> struct histogram_result {
  array<std::int64_t> hist;
  array<E> bin_edges;
};

// numpy's range=(lo, hi): values outside are not counted, the last bin includes hi.
struct histogram_range {
  double lo, hi;
};

namespace detail {

template <reducer R, class C> auto counts_node(const C& x, const reduce_spec& sp) {
  reduce_fn<R> tag;
  tag.spec = sp;
  tag.spec.kind = R;
  return call_node<reduce_fn<R>, C>{hana::tuple<term<reduce_fn<R>>, C>(term<reduce_fn<R>>{hana::tuple<reduce_fn<R>>(tag)}, x)};
}

// min(x) and max(x) in one kernel, the identities for an empty x (then min > max), the operand
// checked to be 1-d for bincount. Returns them as the data's value type.
template <bool Unfused, class C> auto data_range(const C& x, bool bincount_operand) {
  auto lo = make_reduction<reducer::min>(C(x), {}, true, false);
  auto hi = make_reduction<reducer::max>(C(x), {}, true, false);
  for (auto* t : {&lo.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec,
                  &hi.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec}) {
    t->allow_empty = true;
    t->bincount_operand = bincount_operand;
  }
  auto [a, b] = Unfused ? eval(unfused, lo, hi) : eval(lo, hi);
  return std::make_pair(a.item(), b.item());
}

template <bool Unfused, class C> auto run_histogram(const C& x, reduce_spec sp) {
  constexpr dtype t = type_of_v<C>.type;
  using E = std::conditional_t<t == dtype::float32, float, double>;
  sp.kind = reducer::histogram;
  sp.data = t;
  auto node = counts_node<reducer::histogram>(x, sp);
  array<std::int64_t> hist = Unfused ? eval(unfused, node) : eval(node);
  return histogram_result<E>{hist, array<E>(bin_edges_array(make_binning(sp), hist.device()))};
}

template <bool Unfused, class C> auto histogram_of_range(const C& x, std::int64_t bins) {
  reduce_spec sp;
  sp.bins = bins;
  make_binning(sp);  // numpy checks `bins` before it looks at the data
  const auto [lo, hi] = data_range<Unfused>(x, false);
  if (lo > hi) {  // empty: numpy's range (0, 1)
    sp.lo = 0;
    sp.hi = 1;
  } else if constexpr (is_floating(type_of_v<C>.type)) {
    sp.range = bin_range::data_float;
    sp.lo = lo;
    sp.hi = hi;
  } else {
    if constexpr (type_of_v<C>.type == dtype::uint64)
      if (hi > static_cast<std::uint64_t>(INT64_MAX))
        throw value_error("jetfuse: jf::histogram of uint64 values of 2**63 or more needs a range");
    sp.range = bin_range::data_int;
    sp.ilo = static_cast<std::int64_t>(lo);
    sp.ihi = static_cast<std::int64_t>(hi);
  }
  return run_histogram<Unfused>(x, sp);
}

template <bool Unfused, class C> array<std::int64_t> run_bincount(const C& x, std::int64_t minlength) {
  static_assert(!is_floating(type_of_v<C>.type),
                "jf::bincount: numpy raises \"Cannot cast array data from dtype('float64') to dtype('int64') according "
                "to the rule 'safe'\": bincount counts bool or integer values");
  if (minlength < 0) throw value_error("'minlength' must not be negative");
  const auto [lo, hi] = data_range<Unfused>(x, true);
  reduce_spec sp;
  sp.bins = minlength;
  if (!(lo > hi)) {
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(hi)>, bool>) {
      if (std::cmp_less(lo, 0)) throw value_error("'list' argument must have no negative elements");
      if (std::cmp_greater_equal(hi, INT64_MAX))
        throw value_error("jetfuse: jf::bincount of a value of 2**63 - 1 or more");
    }
    sp.bins = std::max<std::int64_t>(minlength, static_cast<std::int64_t>(hi) + 1);
  }
  auto node = counts_node<reducer::bincount>(x, sp);
  return Unfused ? eval(unfused, node) : eval(node);
}

}  // namespace detail

// numpy.histogram(x, bins, range=(lo, hi)): one kernel with x's expression.
template <lazy_operand X> auto histogram(X&& x, std::int64_t bins, histogram_range range) {
  detail::reduce_spec sp;
  sp.bins = bins;
  sp.lo = range.lo;
  sp.hi = range.hi;
  return detail::run_histogram<false>(capture(std::forward<X>(x)), sp);
}
// numpy.histogram(x, bins): the range is x's min and max (a reduction pass first, read on the host).
template <lazy_operand X> auto histogram(X&& x, std::int64_t bins = 10) {
  return detail::histogram_of_range<false>(capture(std::forward<X>(x)), bins);
}
// The same, one kernel per operation (as CuPy without fusion): to compare with the fused one.
template <lazy_operand X> auto histogram(unfused_t, X&& x, std::int64_t bins, histogram_range range) {
  detail::reduce_spec sp;
  sp.bins = bins;
  sp.lo = range.lo;
  sp.hi = range.hi;
  return detail::run_histogram<true>(capture(std::forward<X>(x)), sp);
}
template <lazy_operand X> auto histogram(unfused_t, X&& x, std::int64_t bins = 10) {
  return detail::histogram_of_range<true>(capture(std::forward<X>(x)), bins);
}

// numpy.bincount(x, minlength=...): counts of the values 0, 1, ... of a 1-d bool or integer x;
// the length, max(x) + 1 or minlength, is read on the host after a min/max pass (numpy's checks:
// jf::value_error for negative values or a negative minlength).
template <lazy_operand X> array<std::int64_t> bincount(X&& x, std::int64_t minlength = 0) {
  return detail::run_bincount<false>(capture(std::forward<X>(x)), minlength);
}
template <lazy_operand X> array<std::int64_t> bincount(unfused_t, X&& x, std::int64_t minlength = 0) {
  return detail::run_bincount<true>(capture(std::forward<X>(x)), minlength);
}

}  // namespace jf
