// jf::array<T>: a dense n-dimensional array handle (shared buffer + shape + strides + offset).
// Copying an array copies the handle, like numpy's `b = a`; views share the buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/buffer.hpp"
#include "jetfuse/detail/assigned_value.hpp"
#include "jetfuse/device.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/shape.hpp"
#include "jetfuse/slicing.hpp"

namespace jf {

template <class T> class array;
template <class E> struct is_lazy_expr;  // defined by the expression front end

// The untyped part of an array: what the IR, the backends and src/ work with.
class array_base {
public:
  array_base() = default;
  array_base(detail::buffer_ptr buf, jf::dtype dt, shape_t shape, strides_t strides, std::int64_t offset)
      : buf_(std::move(buf)), dtype_(dt), shape_(shape), strides_(strides), offset_(offset) {}

  jf::dtype dtype() const { return dtype_; }
  const shape_t& shape() const { return shape_; }
  const strides_t& strides() const { return strides_; }  // in elements
  std::int64_t offset() const { return offset_; }        // in elements, into the buffer
  int ndim() const { return shape_.size(); }
  std::int64_t size() const { return shape_.product(); }
  bool is_null() const { return !buf_; }                 // a default-constructed handle
  jf::device device() const;
  const detail::buffer_ptr& buffer() const { return buf_; }
  // Address of element (0, ..., 0): a host pointer, or a device address on jf::cuda. Memory handed
  // out so is no longer jetfuse's alone: what jetfuse remembers about the elements (a scatter's
  // indices found in bounds) is not used for this buffer from then on (buffer::external).
  void* raw_data() const;
  bool is_contiguous() const;  // row-major with no gaps

  // Copies every element (row-major) into host memory of size() * itemsize bytes.
  void read_into(void* host) const;

protected:
  detail::buffer_ptr buf_;
  jf::dtype dtype_ = jf::dtype::float64;
  shape_t shape_;
  strides_t strides_;
  std::int64_t offset_ = 0;
};

namespace detail {
// Address of element (0, ..., 0) for jetfuse's own kernels and copies (raw_data() without marking
// the buffer external: jetfuse's writes go through note_write).
void* address_of(const array_base& a);
// Untyped implementations (src/core/array.cpp).
array_base make_array(device dev, dtype dt, const shape_t& shape);  // uninitialised, contiguous
// Copies the elements from host memory; a null `host` throws value_error unless the shape is empty.
array_base make_from_host(device dev, dtype dt, const shape_t& shape, const void* host);
// Wraps memory the caller allocated (array<T>::adopt); on a throw the deleter is not called.
array_base adopt_array(device dev, dtype dt, void* ptr, const shape_t& shape, std::function<void(void*)> deleter);
array_base slice(const array_base& a, const index_arg* args, int nargs);
array_base reshape(const array_base& a, shape_t new_shape);  // a view wherever numpy's is, else a copy
array_base transpose(const array_base& a, const shape_t& axes);
array_base to_backend(const array_base& a, device dev);  // always a new contiguous array
array_base fill(device dev, dtype dt, const shape_t& shape, const void* value);  // value: one element
// Copies src into the existing elements of dst (numpy `dst[...] = src`, with broadcasting).
void assign(const array_base& dst, const array_base& src);
// Whether elements of `a` may be written: not when two of its elements are one memory location
// (a stride 0 on an axis longer than 1, as jf::broadcast_to makes; numpy's read-only views).
bool is_writable(const array_base& a);
// value_error "assignment destination is read-only" (numpy's words) unless is_writable(a).
void require_writable(const array_base& a);
// Byte offset into a.buffer() of the element at idx (all n = ndim indices; negative ones count
// from the end; index_error when out of range).
std::size_t element_offset(const array_base& a, const std::int64_t* idx, int n);
void read_element(const array_base& a, const std::int64_t* idx, int n, void* out);
std::string repr(const array_base& a);
}  // namespace detail

std::ostream& operator<<(std::ostream& os, const array_base& a);

// What x(i, j) gives on a non-const array: one element, to read (it converts to T) or to write
// (`x(i, j) = v`, numpy's x[i, j] = v). The value is read when the reference is made, so
// `T v = x(i)` and `auto v = x(i)` hold the element as it was, like numpy's `v = x[i]`. Only a
// temporary can be assigned: `auto r = x(i); r = 2;` does not compile rather than write into x.
template <class T> class element_ref {
public:
  element_ref(const array_base& a, const std::int64_t* idx, int n)
      : buf_(a.buffer()), offset_(detail::element_offset(a, idx, n)), writable_(detail::is_writable(a)) {
    detail::copy_to_host(&value_, *buf_, offset_, sizeof(T));
  }
  element_ref(const element_ref&) = default;
  operator T() const { return value_; }
  T value() const { return value_; }

  element_ref& operator=(T v) && {
    if (!writable_) throw value_error("assignment destination is read-only");
    detail::copy_from_host(*buf_, offset_, &v, sizeof(T));
    value_ = v;
    return *this;
  }
  element_ref& operator=(const element_ref& other) && { return std::move(*this) = other.value_; }
  // Another arithmetic type: numpy's conversion (an integer out of T's range throws jf::dtype_error).
  template <class V>
  requires(std::is_arithmetic_v<V> && !std::is_same_v<V, T>) element_ref& operator=(V v) && {
    return std::move(*this) = detail::assigned_value<T>(v);
  }

private:
  detail::buffer_ptr buf_;  // keeps the memory alive
  std::size_t offset_;      // in bytes
  bool writable_;
  T value_{};
};

template <class T> class array : public array_base {
  static_assert(is_element_v<T>,
                "jf::array<T>: T must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, float or double");

public:
  using value_type = T;

  array() { dtype_ = dtype_v<T>; }
  explicit array(array_base b) : array_base(std::move(b)) {
    if (!is_null() && dtype_ != dtype_v<T>)
      throw dtype_error("array of " + std::string(name(dtype_)) + " used as array<" + std::string(name(dtype_v<T>)) + ">");
    dtype_ = dtype_v<T>;
  }
  array(std::initializer_list<T> values, jf::device dev = jf::cpu)
      : array(detail::make_from_host(dev, dtype_v<T>, {static_cast<std::int64_t>(values.size())}, values.begin())) {}
  array(std::initializer_list<std::initializer_list<T>> rows, jf::device dev = jf::cpu) {
    std::vector<T> flat;
    std::int64_t cols = rows.size() ? static_cast<std::int64_t>(rows.begin()->size()) : 0;
    for (auto& r : rows) {
      if (static_cast<std::int64_t>(r.size()) != cols) throw shape_error("ragged nested initializer list");
      flat.insert(flat.end(), r.begin(), r.end());
    }
    *this = array(host_vector(flat, {static_cast<std::int64_t>(rows.size()), cols}, dev));  // std::vector<bool> has no data()
  }
  explicit array(const std::vector<T>& v, jf::device dev = jf::cpu)
      : array(v, shape_t{static_cast<std::int64_t>(v.size())}, dev) {}
  array(const std::vector<T>& v, const shape_t& shape, jf::device dev = jf::cpu) : array(host_vector(v, shape, dev)) {}
  // Copies shape.product() elements from host memory (a null pointer only for an empty shape).
  array(const T* host, const shape_t& shape, jf::device dev = jf::cpu)
      : array(detail::make_from_host(dev, dtype_v<T>, shape, host)) {}
  // Copies an Eigen array, matrix, map or expression (column vectors become 1-d).
  template <class E>
    requires requires(const E& e) {
      typename E::Scalar;
      e.rows();
      e.cols();
      E::IsVectorAtCompileTime;
    }
  explicit array(const E& e, jf::device dev = jf::cpu) {
    const std::int64_t r = e.rows(), c = e.cols();
    std::vector<T> flat(static_cast<std::size_t>(r * c));
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) flat[static_cast<std::size_t>(i * c + j)] = static_cast<T>(e(i, j));
    shape_t s = (E::IsVectorAtCompileTime) ? shape_t{r * c} : shape_t{r, c};
    *this = array(detail::make_from_host(dev, dtype_v<T>, s, flat.data()));
  }
  // Adopts device (or host) memory: no copy; `deleter(ptr)` runs when the last handle goes away.
  // A shape that no array can have throws shape_error, a null ptr with elements value_error; the
  // deleter is not called then (the memory stays the caller's).
  static array adopt(T* ptr, const shape_t& shape, jf::device dev, std::function<void(void*)> deleter) {
    return array(detail::adopt_array(dev, dtype_v<T>, ptr, shape, std::move(deleter)));
  }

  // Evaluates an expression into a new array (defined in eval.hpp).
  template <class E>
    requires is_lazy_expr<std::remove_cvref_t<E>>::value
  array(const E& e);

  // Assignment of handles rebinds (numpy `a = b`); assignment into a view (an rvalue array, as
  // returned by x(jf::range(...))) writes the elements.
  array(const array&) = default;
  array(array&&) noexcept = default;
  array& operator=(const array&) & = default;
  array& operator=(array&&) & noexcept = default;
  array& operator=(const array& src) && {
    detail::assign(*this, src);
    return *this;
  }
  // Assigning a scalar fills every element; one of another arithmetic type is converted as numpy
  // does (detail::assigned_value: an integer out of T's range throws jf::dtype_error, numpy's
  // OverflowError, before anything is written).
  array& operator=(T value) {
    if (is_null()) throw shape_error("cannot fill a null array; create it with jf::full");
    detail::assign(*this, detail::fill(device(), dtype_v<T>, shape_t{}, &value));
    return *this;
  }
  template <class V>
  requires(std::is_arithmetic_v<V> && !std::is_same_v<V, T>) array& operator=(V value) {
    return *this = detail::assigned_value<T>(value);
  }
  // Evaluates an expression into this array's elements (allocating when the handle is null);
  // the result broadcasts to this shape. Defined in eval.hpp.
  template <class E>
    requires is_lazy_expr<std::remove_cvref_t<E>>::value
  array& operator=(const E& e) &;
  template <class E>
    requires is_lazy_expr<std::remove_cvref_t<E>>::value
  array& operator=(const E& e) && {
    return static_cast<array&>(*this) = e;
  }

  // The one element of an array of size 1 (numpy's item()): a 0-d reduction's value on the host.
  T item() const {
    if (is_null() || size() != 1)
      throw value_error("can only convert an array of size 1 to a Python scalar");  // numpy's words
    const std::int64_t zeros[max_ndim] = {};
    T v{};
    detail::read_element(*this, zeros, ndim(), &v);
    return v;
  }

  // Element read (all integer arguments) or a numpy basic-slicing view (any range / all).
  template <class... I>
    requires(sizeof...(I) > 0 && (std::is_convertible_v<I, index_arg> && ...))
  auto operator()(I... idx) const {
    if constexpr ((std::is_integral_v<I> && ...)) {
      const std::int64_t ix[] = {detail::to_index(idx)...};
      T v{};
      detail::read_element(*this, ix, static_cast<int>(sizeof...(I)), &v);
      return v;
    } else {
      const index_arg args[] = {index_arg(idx)...};
      return array(detail::slice(*this, args, static_cast<int>(sizeof...(I))));
    }
  }
  // The same on a non-const array, where all integer arguments give an element_ref: it reads like
  // a T and takes `x(i, j) = v`.
  template <class... I>
    requires(sizeof...(I) > 0 && (std::is_convertible_v<I, index_arg> && ...))
  auto operator()(I... idx) {
    if constexpr ((std::is_integral_v<I> && ...)) {
      const std::int64_t ix[] = {detail::to_index(idx)...};
      return element_ref<T>(*this, ix, static_cast<int>(sizeof...(I)));
    } else {
      return std::as_const(*this)(idx...);
    }
  }

  // x(indices) with an integer array or expression: numpy's x[indices], i.e. jf::take(x, indices,
  // 0) (a lazy, fused gather); with a bool mask, x(mask) = value (numpy's x[mask] = value, a fused
  // where). Defined in expr/take.hpp.
  template <class I>
    requires(!std::is_convertible_v<I, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<I>>)
  auto operator()(const I& indices) const;
  // x(i, j) with integer arrays or expressions: numpy's x[i, j] (i and j broadcast together; the
  // result has their shape + x.shape[2:]), a lazy, fused gather whose indices are checked in the
  // kernel along axes 0 and 1 (numpy's IndexError). Defined in expr/take.hpp.
  template <class I, class J>
    requires(!std::is_convertible_v<I, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<I>> &&
             !std::is_convertible_v<J, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<J>>)
  auto operator()(const I& i, const J& j) const;
    // x(i, j, k) with three integer index arrays or expressions: numpy's x[i, j, k] (broadcast
    // together; the result has their shape + x.shape[3:]), one fused gather from x's memory checked in
    // the kernel along axes 0, 1 and 2; it takes assignments. Defined in expr/index_triple.hpp.
    template <class I, class J, class K>
    requires(detail::index_operands<I, J, K> == 3) auto operator()(const I& i, const J& j, const K& k) const;
    // x(a, b, ...) with integer index arrays or expressions (up to 8) among integers, jf::range and
    // jf::all: numpy's advanced indexing mixed with basic indexing (x(jf::all, cols), x(rows,
    // jf::range(1, 3)), x(i, j, 0), x(2, jf::all, i), x(i, j, k, l), x(r, r, i, j)), lazy and fused,
    // checked in the kernel, with numpy's placement of the indices' axes; it takes assignments.
    // Defined in expr/mixed_indexing.hpp.
    template <class... A>
    requires(detail::mixed_index_args<A...>)
  auto operator()(const A&... args) const;
  // x(indices, jf::all, ...): numpy's x[indices, :, ...], the same as x(indices) (numpy's
  // IndexError "too many indices for array" when there are more arguments than axes).
  template <class I, class... A>
    requires(!std::is_convertible_v<I, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<I>> && sizeof...(A) > 0 &&
             (std::is_same_v<A, all_t> && ...))
  auto operator()(const I& indices, A...) const {
    constexpr int given = 1 + static_cast<int>(sizeof...(A));
    if (given > ndim())
      throw index_error("too many indices for array: array is " + std::to_string(ndim()) + "-dimensional, but " +
                        std::to_string(given) + " were indexed");
    return (*this)(indices);
  }

  array reshape(const shape_t& s) const { return array(detail::reshape(*this, s)); }
  array transpose() const { return array(detail::transpose(*this, shape_t{})); }
  array transpose(const shape_t& axes) const { return array(detail::transpose(*this, axes)); }
  // A contiguous copy on the same backend.
  array copy() const { return array(detail::to_backend(*this, device())); }

  std::vector<T> to_vector() const {
    std::vector<T> out(static_cast<std::size_t>(size()));
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<unsigned char> tmp(out.size());
      read_into(tmp.data());
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = tmp[i] != 0;
    } else {
      read_into(out.data());
    }
    return out;
  }
  const T* data() const { return static_cast<const T*>(detail::address_of(*this)); }
  T* data() { return static_cast<T*>(raw_data()); }

private:
  static array_base host_vector(const std::vector<T>& v, const shape_t& shape, jf::device dev) {
    if (static_cast<std::int64_t>(v.size()) != shape.product())
      throw shape_error("a vector of " + std::to_string(v.size()) + " elements cannot have shape " + to_string(shape));
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<unsigned char> tmp(v.begin(), v.end());
      return detail::make_from_host(dev, dtype::bool_, shape, tmp.data());
    } else {
      return detail::make_from_host(dev, dtype_v<T>, shape, v.data());
    }
  }
};

// ---- free functions ----------------------------------------------------------------------------
inline device backend(const array_base& a) { return a.device(); }
template <class T> array<T> to_backend(const array<T>& a, device dev) { return array<T>(detail::to_backend(a, dev)); }

template <class T> array<T> empty(const shape_t& s, device dev = cpu) {
  return array<T>(detail::make_array(dev, dtype_v<T>, s));
}
template <class T> array<T> full(const shape_t& s, T value, device dev = cpu) {
  return array<T>(detail::fill(dev, dtype_v<T>, s, &value));
}
// numpy.full(s, v, dtype) with a value of another arithmetic type (detail::cast_scalar: an
// integer out of T's range throws jf::dtype_error, a float is cast unsafely).
template <class T, class V>
requires(std::is_arithmetic_v<V> && !std::is_same_v<V, T>) array<T> full(const shape_t& s, V value, device dev = cpu) {
  return full<T>(s, detail::cast_scalar<T>(value), dev);
}
template <class T> array<T> zeros(const shape_t& s, device dev = cpu) { return full<T>(s, T(0), dev); }
template <class T> array<T> ones(const shape_t& s, device dev = cpu) { return full<T>(s, T(1), dev); }
// numpy.arange(start, stop, step): ceil((stop - start) / step) elements, start + i * step.
// A zero step, a NaN length (arange(0., NaN, 1.)) or one beyond INT64_MAX (arange(0., inf, 1.))
// throw value_error with numpy's words; a result too big to allocate shape_error / out_of_memory.
// Both are defined in src/core/sequences.cpp for each element type.
template <class T>
  requires(!std::is_same_v<T, bool>)
array<T> arange(T start, T stop, T step = T(1), device dev = cpu);
template <class T>
  requires(!std::is_same_v<T, bool>)
array<T> arange(T stop, device dev = cpu) {
  return arange<T>(T(0), stop, T(1), dev);
}
// numpy.linspace(start, stop, num, endpoint); integer results round down (numpy 2). num < 0 throws
// value_error; a num too big to allocate shape_error / out_of_memory.
template <class T = double>
array<T> linspace(double start, double stop, std::int64_t num, device dev = cpu, bool endpoint = true);

}  // namespace jf
