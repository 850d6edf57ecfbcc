// Printing as Awkward Array 2.14 prints: str(ak.Array) (jf::to_string, operator<<), repr
// (jf::awkward_repr: "<Array [...] type='...'>"), Array.show (jf::show) and the Jupyter view
// (jf::display), for jf::jagged<T>, jf::option_array<T> (1-d or regular n-d), jf::jagged_option<T>,
// jf::padded<T> (as what it converts to), jf::jagged_record and dense arrays seen as Awkward arrays
// (jf::awkward_str / awkward_repr / show / display; a dense array's own operator<< stays numpy's
// repr; an n-d one is Awkward's regular `n * k * T`).
//
// Only the shown window travels: the printer looks at no more than the first and last
// detail::print_edge lists and, inside each, the first and last print_edge elements. The window's
// offsets are gathered on the array's backend (one jf::take) and copied to the host once, then
// the window's elements (one take per content: one per record field) and copied once. The
// formatting and the 80-column walk (src/core/awkward_repr.cpp) run on the host.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/awkward_print.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/jagged_option.hpp"
#include "jetfuse/option_array.hpp"
#include "jetfuse/pad_none.hpp"
#include "jetfuse/record.hpp"

namespace jf {

namespace detail {

// a[positions] on a's backend, copied to the host once (nothing when there are no positions).
template <class T>
std::vector<T> gather_to_host(const array<T>& a, const std::vector<std::int64_t>& positions) {
  if (positions.empty()) return {};
  return array<T>(take(a, array<std::int64_t>(positions, a.device()))).to_vector();
}

template <class T>
std::vector<pp_item> formatted(const std::vector<T>& v) {
  std::vector<pp_item> out;
  out.reserve(v.size());
  for (const T& e : v) out.push_back(pp_item::scalar(awkward_number(e)));
  return out;
}

// The shown lists of jagged lists with these offsets: which content positions to gather (in
// order), and a function that builds the window's tree from the gathered items.
struct jagged_window {
  std::int64_t n = 0;
  std::vector<std::int64_t> lengths;    // of the shown lists, in window order
  std::vector<std::int64_t> positions;  // into the content: every shown element, list by list

  // Constructor templates, as the untyped helpers below: the gathers (take expressions) are
  // compiled only in a file that prints, not in every file that includes jetfuse.hpp.
  template <class V = void>
  explicit jagged_window(const array<std::int64_t>& offsets)
      : jagged_window(offsets, window_positions(offsets.size() - 1)) {}
  // The window of the lists at these positions (the inner lists an outer window shows).
  template <class V = void>
  jagged_window(const array<std::int64_t>& offsets, const std::vector<std::int64_t>& lists) : n(offsets.size() - 1) {
    std::vector<std::int64_t> at;  // offsets[l] and offsets[l + 1] of every shown list l
    for (std::int64_t l : lists) {
      at.push_back(l);
      at.push_back(l + 1);
    }
    const std::vector<std::int64_t> off = gather_to_host(offsets, at);
    for (std::size_t i = 0; i < lists.size(); ++i) {
      const std::int64_t start = off[2 * i], length = off[2 * i + 1] - start;
      lengths.push_back(length);
      for (std::int64_t e : window_positions(length)) positions.push_back(start + e);
    }
  }
  // The tree of the window from one item per gathered position.
  pp_item tree(std::vector<pp_item> elements) const { return window_list(n, items(std::move(elements))); }
  // One item per shown list, from one item per gathered position.
  std::vector<pp_item> items(std::vector<pp_item> elements) const {
    std::vector<pp_item> lists;
    std::size_t at = 0;
    for (std::int64_t length : lengths) {
      const std::size_t shown = window_positions(length).size();
      std::vector<pp_item> items(std::make_move_iterator(elements.begin() + static_cast<std::ptrdiff_t>(at)),
                                 std::make_move_iterator(elements.begin() + static_cast<std::ptrdiff_t>(at + shown)));
      at += shown;
      lists.push_back(window_list(length, std::move(items)));
    }
    return lists;
  }
};

template <class T>
pp_item window_of(const jagged<T>& x) {
  const jagged_window w(x.offsets());
  return w.tree(formatted(gather_to_host(x.content(), w.positions)));
}

// Nested lists: the outer window's inner lists, then their window, level by level (one gather of
// offsets per level, one of the content at the end).
template <class T>
std::vector<pp_item> list_items(const jagged<T>& x, const std::vector<std::int64_t>& lists) {
  const jagged_window w(x.offsets(), lists);
  return w.items(formatted(gather_to_host(x.content(), w.positions)));
}
template <class T>
std::vector<pp_item> list_items(const jagged<jagged<T>>& x, const std::vector<std::int64_t>& lists) {
  const jagged_window w(x.offsets(), lists);
  return w.items(list_items(x.content(), w.positions));
}
template <class T>
pp_item window_of(const jagged<jagged<T>>& x) {
  return window_list(x.size(), list_items(x, window_positions(x.size())));
}


// The items of an untyped array's elements at positions: the elements gathered as unsigned words
// of their size (4 instantiations in a user file, whatever the number of dtypes), then formatted.
template <class U>
std::vector<pp_item> items_as(const array_base& a, const std::vector<std::int64_t>& positions) {
  const array<U> bits(array_base(a.buffer(), dtype_v<U>, a.shape(), a.strides(), a.offset()));
  const std::vector<U> v = gather_to_host(bits, positions);
  return awkward_numbers(a.dtype(), v.data(), v.size());
}
template <class = void>
std::vector<pp_item> items_at(const array_base& a, const std::vector<std::int64_t>& positions) {
  switch (size_of(a.dtype())) {
    case 1: return items_as<std::uint8_t>(a, positions);
    case 2: return items_as<std::uint16_t>(a, positions);
    case 4: return items_as<std::uint32_t>(a, positions);
    default: return items_as<std::uint64_t>(a, positions);
  }
}

// One record item per content position of a jagged record (one gather per field).
template <class = void>
std::vector<pp_item> records_at(const jagged_record& x, const std::vector<std::int64_t>& positions) {
  std::vector<pp_item> records(positions.size());
  for (auto& r : records) r.k = pp_item::kind::record;
  for (const auto& [name, content] : x.contents()) {
    std::vector<pp_item> v = items_at(content, positions);
    for (std::size_t i = 0; i < v.size(); ++i) records[i].fields.emplace_back(name, std::move(v[i]));
  }
  return records;
}

template <class = void>
pp_item window_of(const jagged_record& x) {
  const jagged_window w(x.offsets());
  return w.tree(records_at(x, w.positions));
}

// The window of a regular (dense n-d) array: the shown elements' flat positions in C order, and
// the tree built from one item per position (Awkward's RegularArray prints as lists).
struct regular_window {
  shape_t shape;
  std::vector<std::int64_t> positions;

  explicit regular_window(shape_t s) : shape(std::move(s)) {
    if (shape.size() == 0) throw value_error("jetfuse: Awkward's printing of a 0-d array");
    collect(0, 0);
  }
  pp_item tree(std::vector<pp_item> items) const {
    std::size_t at = 0;
    return build(0, items, at);
  }

 private:
  std::int64_t stride(int d) const {
    std::int64_t s = 1;
    for (int e = d + 1; e < shape.size(); ++e) s *= shape[e];
    return s;
  }
  void collect(int d, std::int64_t base) {
    for (std::int64_t i : window_positions(shape[d])) {
      if (d + 1 == shape.size())
        positions.push_back(base + i);
      else
        collect(d + 1, base + i * stride(d));
    }
  }
  pp_item build(int d, std::vector<pp_item>& items, std::size_t& at) const {
    std::vector<pp_item> v;
    for (std::size_t k = window_positions(shape[d]).size(); k > 0; --k)
      v.push_back(d + 1 == shape.size() ? std::move(items[at++]) : build(d + 1, items, at));
    return window_list(shape[d], std::move(v));
  }
};

// Items of values where valid holds, None elsewhere.
template <class T>
std::vector<pp_item> optional_items(const std::vector<T>& v, const std::vector<bool>& ok) {
  std::vector<pp_item> items;
  for (std::size_t i = 0; i < v.size(); ++i) items.push_back(pp_item::scalar(ok[i] ? awkward_number(v[i]) : "None"));
  return items;
}

template <class T>
pp_item window_of(const option_array<T>& x) {
  const regular_window w(x.shape());
  return w.tree(optional_items(gather_to_host(x.values(), w.positions), gather_to_host(x.valid(), w.positions)));
}

template <class T>
pp_item window_of(const jagged_option<T>& x) {
  const jagged_window w(x.offsets());
  return w.tree(
      optional_items(gather_to_host(x.values().content(), w.positions), gather_to_host(x.valid(), w.positions)));
}

template <class T>
pp_item window_of(const array<T>& x) {
  const regular_window w(x.shape());
  return w.tree(formatted(gather_to_host(x, w.positions)));
}

// jf::num of a nested array prints as what it converts to.
template <class = void>
pp_item window_of(const nested_counts& x) {
  return x.is_jagged() ? window_of(jagged<std::int64_t>(x)) : window_of(array<std::int64_t>(x));
}

// A jf::padded prints as what it converts to.
template <class T>
pp_item window_of(const padded<T>& x) {
  return x.clip() ? window_of(option_array<T>(x)) : window_of(jagged_option<T>(x));
}

// Awkward's type, compact (str(x.type)) or as Type.show() writes it (records one field a line).
template <class T>
std::string type_of(const jagged<T>& x, bool) {
  return type_string(x);
}
// "3 * 2 * " of a regular shape (3, 2).
inline std::string regular_dims(const shape_t& s) {
  std::string t;
  for (std::int64_t e : s) t += std::to_string(e) + " * ";
  return t;
}
template <class T>
std::string type_of(const option_array<T>& x, bool) {
  return regular_dims(x.shape()) + "?" + std::string(name(dtype_v<T>));
}
template <class T>
std::string type_of(const jagged_option<T>& x, bool) {
  return std::to_string(x.size()) + " * var * ?" + std::string(name(dtype_v<T>));
}
template <class T>
std::string type_of(const padded<T>& x, bool) {  // known without computing it
  const std::string n = std::to_string(x.source().size()) + " * ";
  return n + (x.clip() ? std::to_string(x.target()) : std::string("var")) + " * ?" + std::string(name(dtype_v<T>));
}
template <class T>
std::string type_of(const array<T>& x, bool) {
  return regular_dims(x.shape()) + std::string(name(dtype_v<T>));
}
inline std::string type_of(const nested_counts& x, bool) {
  return x.is_jagged() ? type_string(jagged<std::int64_t>(x)) : type_of(array<std::int64_t>(x), true);
}
inline std::string type_of(const jagged_record& x, bool compact) {
  std::vector<std::pair<std::string, std::string>> f;
  for (const auto& [n, c] : x.contents()) f.emplace_back(n, std::string(name(c.dtype())));
  return std::to_string(x.size()) + " * var * " + record_type_string(f, compact);
}

// Awkward's nbytes: every buffer of the layout (offsets, contents; an option's byte mask).
inline std::int64_t nbytes_of(const array_base& a) { return a.size() * size_of(a.dtype()); }
template <class T>
std::int64_t nbytes(const jagged<T>& x) {
  return nbytes_of(x.offsets()) + nbytes_of(x.content());
}
template <class T>
std::int64_t nbytes(const jagged<jagged<T>>& x) {
  return nbytes_of(x.offsets()) + nbytes(x.content());
}
inline std::int64_t nbytes(const nested_counts& x) {
  return x.is_jagged() ? nbytes(jagged<std::int64_t>(x)) : nbytes_of(array<std::int64_t>(x));
}
template <class T>
std::int64_t nbytes(const option_array<T>& x) {
  return nbytes_of(x.values()) + nbytes_of(x.valid());
}
template <class T>
std::int64_t nbytes(const jagged_option<T>& x) {
  return nbytes_of(x.offsets()) + nbytes_of(x.values().content()) + nbytes_of(x.valid());
}
// jetfuse's buffers (Awkward's pad_none result is an IndexedOptionArray over the original content:
// its nbytes differ).
template <class T>
std::int64_t nbytes(const padded<T>& x) {
  return x.clip() ? nbytes(option_array<T>(x)) : nbytes(jagged_option<T>(x));
}
template <class T>
std::int64_t nbytes(const array<T>& x) {
  return nbytes_of(x);
}
inline std::int64_t nbytes(const jagged_record& x) {
  std::int64_t b = nbytes_of(x.offsets());
  for (const auto& f : x.contents()) b += nbytes_of(f.second);
  return b;
}

inline device device_of(const nested_counts& x) {
  return x.is_jagged() ? jagged<std::int64_t>(x).backend() : array<std::int64_t>(x).device();
}
template <class X>
device device_of(const X& x) {
  if constexpr (requires { x.backend(); })
    return x.backend();
  else
    return x.device();
}

}  // namespace detail

// str(ak.Array(x)).
template <class X>
std::string awkward_str(const X& x) {
  return detail::awkward_str(detail::window_of(x));
}
// repr(ak.Array(x)): "<Array [[1.1, 2], [], ...] type='3 * var * float64'>".
template <class X>
std::string awkward_repr(const X& x) {
  return detail::awkward_repr(detail::window_of(x), detail::type_of(x, true));
}
// ak.Array.show(stream=None) without its final newline.
template <class X>
std::string show(const X& x, const detail::show_options& o = {}) {
  return detail::awkward_show(detail::window_of(x), detail::type_of(x, false), detail::nbytes(x), detail::device_of(x),
                              o);
}
// What Jupyter shows for an ak.Array: the value in 20 rows, a rule, backend, nbytes and type.
template <class X>
std::string display(const X& x) {
  return detail::awkward_display(detail::window_of(x), detail::type_of(x, false), detail::nbytes(x),
                                 detail::device_of(x));
}

// jf::to_string and operator<< of the Awkward-like types give str(ak.Array).
template <class T>
std::string to_string(const jagged<T>& x) {
  return awkward_str(x);
}
template <class T>
std::string to_string(const option_array<T>& x) {
  return awkward_str(x);
}
template <class T>
std::string to_string(const jagged_option<T>& x) {
  return awkward_str(x);
}
template <class T>
std::string to_string(const padded<T>& x) {
  return awkward_str(x);
}
// Templates (here and for jagged_record's operator<< below) so that printing is compiled only in a
// file that prints: a non-template overload instantiated the gathers in every includer.
template <class = void>
std::string to_string(const jagged_record& x) {
  return awkward_str(x);
}
template <class = void>
std::string to_string(const nested_counts& x) {
  return awkward_str(x);
}
template <class = void>
std::ostream& operator<<(std::ostream& os, const nested_counts& x) {
  return os << awkward_str(x);
}
template <class T>
std::ostream& operator<<(std::ostream& os, const jagged_option<T>& x) {
  return os << awkward_str(x);
}
template <class T>
std::ostream& operator<<(std::ostream& os, const padded<T>& x) {
  return os << awkward_str(x);
}
template <class T>
std::ostream& operator<<(std::ostream& os, const jagged<T>& x) {
  return os << awkward_str(x);
}
template <class T>
std::ostream& operator<<(std::ostream& os, const option_array<T>& x) {
  return os << awkward_str(x);
}
template <class = void>
std::ostream& operator<<(std::ostream& os, const jagged_record& x) {
  return os << awkward_str(x);
}

// Awkward's type strings of the option and record types ("3 * ?float32", "3 * 2 * ?float64",
// "3 * var * ?int32").
template <class T>
std::string type_string(const option_array<T>& x) {
  return detail::type_of(x, true);
}
template <class T>
std::string type_string(const jagged_option<T>& x) {
  return detail::type_of(x, true);
}
inline std::string type_string(const nested_counts& x) { return detail::type_of(x, true); }
template <class T>
std::string type_string(const padded<T>& x) {
  return detail::type_of(x, true);
}
// A dense array seen as an Awkward array: "3 * 1 * float64" (a regular array, as keepdims gives).
template <class T>
std::string awkward_type_string(const array<T>& x) {
  return detail::type_of(x, true);
}

}  // namespace jf
