// Evaluated jf::option_array operands in expressions: Awkward's option type under element-wise
// operations, None propagating. `best * 2 + 1`, `best > 90`, `jf::sqrt(best)`, `best - other`
// (other dense, or an option too) are option_arrays whose values are the expression over the
// operands' values and whose element is None where any option operand's is (ak: `?float32`).
//
// How: the option terminals are replaced by their values (a YAP transform, so the expression
// becomes a dense one, or a per-list option one, and is evaluated as such in one fused pass), and
// the validity is the AND of the operands' validity, broadcast to the result's shape: with one
// option operand of the result's shape it IS that operand's validity array (shared, no kernel).
// Not here yet: option operands beside jagged ones (Awkward broadcasts a None list), reductions of
// option values (Awkward skips None; use jf::fill_none first).
#pragma once

#include <boost/yap/algorithm.hpp>
#include <vector>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/value_kind.hpp"
#include "jetfuse/option_array.hpp"
#include "jetfuse/views.hpp"

namespace jf::detail {

// Replaces each option terminal by its values, recording its validity (in leaf order).
struct option_values {
  std::vector<array<bool>>* valid;
  template <class T>
  term<array<T>> operator()(yap::expr_tag<yap::expr_kind::terminal>, const option_array<T>& x) const {
    valid->push_back(x.valid());
    return term<array<T>>{hana::tuple<array<T>>(x.values())};
  }
};

template <class T, class E>
option_array<T> evaluate_option_operands(const E& e) {
  std::vector<array<bool>> valid;
  const auto values = yap::transform(e, option_values{&valid});
  using V = std::remove_cvref_t<decltype(values)>;  // dense, or option (per-list reductions): never jagged
  array<T> v;
  array<bool> ok;
  if constexpr (value_kind_v<V> == value_kind::option) {  // per-list reductions that may be None too
    const option_array<T> r(values);
    v = r.values();
    valid.push_back(r.valid());
  } else {
    v = array<T>(values);
  }
  ok = valid[0];
  for (std::size_t k = 1; k < valid.size(); ++k) ok = array<bool>(ok && valid[k]);
  if (!(ok.shape() == v.shape())) ok = broadcast_to(ok, v.shape());  // a read-only view: no copy
  return option_array<T>(std::move(v), std::move(ok));
}

}  // namespace jf::detail
