// Awkward's ak.pad_none(x, target, axis=1, clip=...) of a jf::jagged<T>, and ak.fill_none of its
// result. clip=true gives `n * target * ?T` (a jf::option_array<T> of shape (n, target): each list
// cut or padded with None to exactly target), clip=false `n * var * ?T` (a jf::jagged_option<T>:
// lists shorter than target padded with None, longer ones kept). C++ needs one return type for a
// run-time `clip`, so jf::pad_none returns jf::padded<T>, which converts to the one of the two that
// its clip gives (and prints as it). jf::fill_none(jf::pad_none(x, k, true), v) is the
// pad-and-fill-to-a-rectangle idiom: ONE fused kernel, a gather from the content at
// offsets[i] + c guarded by c < the list's length (docs/design.md, "pad_none and keepdims").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/jagged_option.hpp"
#include "jetfuse/option_array.hpp"

namespace jf {

namespace detail {
// Untyped checks (src/core/pad_none.cpp): Awkward's AxisError for an axis beyond depth 2,
// jetfuse's value_error for axis 0 (Awkward pads the number of lists: not done), Awkward's
// "negative dimensions are not allowed" for a negative target with clip.
void check_pad_none(std::int64_t target, bool clip, int axis);
// jf::padded converted to the type its clip does not give.
[[noreturn]] void throw_padded_kind(bool clip);

// The operands of the clip=true kernel over (n, k): each list's start and stop as (n, 1) views of
// the offsets, and the columns 0 .. k-1 (k int64 values copied from the host: no kernel).
struct rectangle {
  array<std::int64_t> starts, stops, columns;
};
inline rectangle rectangle_of(const array<std::int64_t>& offsets, std::int64_t k) {
  const std::int64_t n = offsets.size() - 1;
  std::vector<std::int64_t> c(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < k; ++i) c[static_cast<std::size_t>(i)] = i;
  return {offsets(range(none, -1)).reshape(shape_t{n, 1}), offsets(range(1, none)).reshape(shape_t{n, 1}),
          array<std::int64_t>(c, offsets.device())};
}
// Where column c of list i holds an element: c < its length. (Templates, as the padded lists' below,
// so that their expressions are compiled only where they are used.)
template <class = void>
auto inside(const rectangle& r) {
  return r.columns < r.stops - r.starts;
}
// Element c of list i where it exists, else `fill`: a gather clipped into the content (a position
// past a list's end reads some element in bounds, which the where discards; no error record).
template <class T, class F>
auto rectangle_values(const array<T>& content, const rectangle& r, F fill) {
  return where(inside(r), take(content, r.starts + r.columns, mode::clip), fill);
}

// The clip=false kernel: output element j lies in list l (of the new offsets `off`) at position
// j - off[l]; it exists where that is below the list's old length.
struct padded_lists {
  array<std::int64_t> starts, counts, off, l, j;
};
template <class = void>
auto inside(const padded_lists& p) {
  return p.j - take(p.off, p.l) < take(p.counts, p.l);
}
template <class T, class F>
auto padded_list_values(const array<T>& content, const padded_lists& p, F fill) {
  return where(inside(p), take(content, take(p.starts, p.l) + (p.j - take(p.off, p.l)), mode::clip), fill);
}
}  // namespace detail

// What jf::pad_none returns: the jagged array, the target and clip, computed when converted.
template <class T>
class padded {
 public:
  padded(jagged<T> x, std::int64_t target, bool clip) : x_(std::move(x)), target_(target), clip_(clip) {}

  const jagged<T>& source() const { return x_; }
  std::int64_t target() const { return target_; }
  bool clip() const { return clip_; }
  device backend() const { return x_.backend(); }

  // clip=true: (n, target) values and validity, one fused kernel with two outputs.
  operator option_array<T>() const {  // NOLINT(google-explicit-constructor)
    if (!clip_) detail::throw_padded_kind(clip_);
    const device dev = x_.backend();
    const shape_t s{x_.size(), target_};
    if (x_.size() == 0 || target_ == 0 || x_.content().size() == 0)  // nothing to read: all None
      return option_array<T>(zeros<T>(s, dev), zeros<bool>(s, dev));
    const detail::rectangle r = detail::rectangle_of(x_.offsets(), target_);
    auto [values, valid] = eval(detail::rectangle_values(x_.content(), r, T{}), detail::inside(r));
    return option_array<T>(array<T>(std::move(values)), std::move(valid));
  }

  // clip=false: lists of max(length, target), the element at position p of list i read from the
  // content where p < length (one fused kernel with two outputs after the new offsets' scan).
  operator jagged_option<T>() const {  // NOLINT(google-explicit-constructor)
    if (clip_) detail::throw_padded_kind(clip_);
    const device dev = x_.backend();
    const array<std::int64_t> counts = num(x_, 1);
    auto [off, total] = detail::offsets_of_counts(array<std::int64_t>(maximum(counts, target_)));
    if (total == 0 || x_.content().size() == 0)  // nothing to read: every element None
      return jagged_option<T>(detail::jagged_access::make(off, zeros<T>(shape_t{total}, dev)),
                              zeros<bool>(shape_t{total}, dev));
    const array<std::int64_t> j = arange<std::int64_t>(0, total, 1, dev);
    const detail::padded_lists p{detail::starts_of(x_.offsets()), counts, off,
                                 array<std::int64_t>(detail::list_of_elements(off, j)), j};
    auto [values, valid] = eval(detail::padded_list_values(x_.content(), p, T{}), detail::inside(p));
    return jagged_option<T>(detail::jagged_access::make(std::move(off), array<T>(std::move(values))), std::move(valid));
  }

 private:
  jagged<T> x_;
  std::int64_t target_;
  bool clip_;
};

// ak.pad_none(x, target, axis, clip): axis 1 or -1 (the lists' elements); Awkward's AxisError for
// a deeper one. A negative target pads nothing (clip=false, as Awkward) or raises (clip=true).
template <class T>
padded<T> pad_none(const jagged<T>& x, std::int64_t target, bool clip = false, int axis = 1) {
  detail::check_pad_none(target, clip, axis);
  return padded<T>(x, target, clip);
}

// What jf::fill_none of a jf::padded returns: a dense (n, target) jf::array<T> (clip=true) or a
// jf::jagged<T> (clip=false), computed when converted.
template <class T>
class padded_filled {
 public:
  padded_filled(padded<T> p, T value) : p_(std::move(p)), value_(value) {}

  // ONE fused kernel: where(c < length_i, content[clip(offsets[i] + c)], value) over (n, target).
  operator array<T>() const {  // NOLINT(google-explicit-constructor)
    if (!p_.clip()) detail::throw_padded_kind(false);
    const jagged<T>& x = p_.source();
    const device dev = x.backend();
    const std::int64_t n = x.size(), k = p_.target();
    if (n == 0 || k == 0 || x.content().size() == 0) return full<T>(shape_t{n, k}, value_, dev);
    const detail::rectangle r = detail::rectangle_of(x.offsets(), k);
    return array<T>(detail::rectangle_values(x.content(), r, value_));
  }
  // clip=false: the padded lists with the value for None (pad_none's kernels, then one where).
  operator jagged<T>() const {  // NOLINT(google-explicit-constructor)
    if (p_.clip()) detail::throw_padded_kind(true);
    return fill_none(jagged_option<T>(p_), value_);
  }

 private:
  padded<T> p_;
  T value_;
};

// ak.fill_none(ak.pad_none(x, target, clip=...), value).
template <class T, class V>
padded_filled<T> fill_none(const padded<T>& p, V value) {
  static_assert(std::is_arithmetic_v<V>, "jf::fill_none: the value must be a number or bool");
  return padded_filled<T>(p, static_cast<T>(value));
}

}  // namespace jf
