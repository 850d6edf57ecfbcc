// Eigen views of jetfuse arrays and jetfuse arrays viewing Eigen objects, without copies.
// Header-only; needs Eigen 3.4 (<Eigen/Core>), which the jetfuse library itself does not use.
// Not included by jetfuse.hpp: include <jetfuse/eigen.hpp> where it is needed.
//
// Neither direction owns or extends the life of the other side's memory:
//  * jf::eigen_view(a) is an Eigen::Map into a's buffer: some jf::array handle sharing that
//    buffer (a itself, or the array a view was sliced from) must outlive the Map.
//  * jf::from_eigen(m) is a jf::array whose buffer points into m's storage and never frees it: m
//    must outlive the array and every view or DLPack export made from it, and must not be resized.
//    jf::from_eigen_copy(m) is an owning copy instead.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "jetfuse/array.hpp"

namespace jf {

// ---- jetfuse -> Eigen ---------------------------------------------------------------------------
// A Map over a jf::cpu array's elements with its strides (element (i, j) at i * strides[0] +
// j * strides[1]: any strides, negative and zero included). A 2-d array maps to rows x cols, a 1-d
// array of n elements to an n x 1 column. Writes through the Map are writes into the array.
// Throws backend_mismatch for a jf::cuda array (Eigen reads host memory: jf::to_backend(a,
// jf::cpu) first), shape_error for other ranks, value_error for a null handle. Only arrays are
// accepted: evaluate an expression into an array first (a lazy expression has no memory).
template <class T>
using eigen_matrix_map =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
template <class T>
using eigen_const_matrix_map = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, Eigen::Unaligned,
                                          Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
template <class T>
using eigen_array_map =
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>, Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
template <class T>
using eigen_const_array_map = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic>, Eigen::Unaligned,
                                         Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
// 1-d arrays as Eigen vectors (eigen_vector_view).
template <class T>
using eigen_vector_map = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned, Eigen::InnerStride<Eigen::Dynamic>>;
template <class T>
using eigen_const_vector_map =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned, Eigen::InnerStride<Eigen::Dynamic>>;

namespace detail {

struct eigen_layout {
  Eigen::Index rows, cols, inner, outer;  // inner: between rows; outer: between columns
};

inline eigen_layout eigen_check(const array_base& a, const char* what, int min_ndim, int max_ndim_) {
  if (a.is_null()) throw value_error(std::string(what) + ": the array is a null handle (default-constructed)");
  if (a.device().kind != device_kind::cpu)
    throw backend_mismatch(std::string(what) + ": the array is on " + to_string(a.device()) +
                           " and Eigen reads host memory; copy it with jf::to_backend(a, jf::cpu) first");
  if (a.buffer()->source != buffer_source::memory)
    throw value_error(std::string(what) + ": the array's elements are generated, not stored: evaluate it first");
  if (a.ndim() < min_ndim || a.ndim() > max_ndim_)
    throw shape_error(std::string(what) + ": an array of shape " + to_string(a.shape()) + " (it takes " +
                      (min_ndim == max_ndim_ ? "1-d arrays" : "1-d and 2-d arrays") + ")");
  if (a.ndim() == 1) return {a.shape()[0], 1, a.strides()[0], a.strides()[0] * a.shape()[0]};
  return {a.shape()[0], a.shape()[1], a.strides()[0], a.strides()[1]};
}

template <class Map, class P> Map eigen_map(P* data, const eigen_layout& l) {
  return Map(data, l.rows, l.cols, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(l.outer, l.inner));
}

}  // namespace detail

template <class T> eigen_matrix_map<T> eigen_view(array<T>& a) {
  return detail::eigen_map<eigen_matrix_map<T>>(a.data(), detail::eigen_check(a, "jf::eigen_view", 1, 2));
}
template <class T> eigen_matrix_map<T> eigen_view(array<T>&& a) { return eigen_view(a); }  // a view: x(jf::all, 0)
template <class T> eigen_const_matrix_map<T> eigen_view(const array<T>& a) {
  return detail::eigen_map<eigen_const_matrix_map<T>>(a.data(), detail::eigen_check(a, "jf::eigen_view", 1, 2));
}
template <class T> eigen_array_map<T> eigen_array_view(array<T>& a) {
  return detail::eigen_map<eigen_array_map<T>>(a.data(), detail::eigen_check(a, "jf::eigen_array_view", 1, 2));
}
template <class T> eigen_array_map<T> eigen_array_view(array<T>&& a) { return eigen_array_view(a); }
template <class T> eigen_const_array_map<T> eigen_array_view(const array<T>& a) {
  return detail::eigen_map<eigen_const_array_map<T>>(a.data(), detail::eigen_check(a, "jf::eigen_array_view", 1, 2));
}
template <class T> eigen_vector_map<T> eigen_vector_view(array<T>& a) {
  const auto l = detail::eigen_check(a, "jf::eigen_vector_view", 1, 1);
  return eigen_vector_map<T>(a.data(), l.rows, Eigen::InnerStride<Eigen::Dynamic>(l.inner));
}
template <class T> eigen_vector_map<T> eigen_vector_view(array<T>&& a) { return eigen_vector_view(a); }
template <class T> eigen_const_vector_map<T> eigen_vector_view(const array<T>& a) {
  const auto l = detail::eigen_check(a, "jf::eigen_vector_view", 1, 1);
  return eigen_const_vector_map<T>(a.data(), l.rows, Eigen::InnerStride<Eigen::Dynamic>(l.inner));
}

// ---- Eigen -> jetfuse ---------------------------------------------------------------------------
// Whether from_eigen views E's memory (a Matrix, Array, Map, Ref or Block of them: Eigen's
// DirectAccessBit) rather than copying it (any other expression: m + n, m.transpose() of a
// product, Random, ...).
template <class E>
inline constexpr bool eigen_viewable_v = (std::remove_cvref_t<E>::Flags & Eigen::DirectAccessBit) != 0;

// An owning copy: a new contiguous jf::cpu (or `dev`) array of the object's values. Compile-time
// vectors become 1-d, everything else 2-d (the constructor array<T>(eigen_object)).
template <class E>
  requires std::is_base_of_v<Eigen::EigenBase<std::remove_cvref_t<E>>, std::remove_cvref_t<E>>
auto from_eigen_copy(const E& e, device dev = cpu) {
  using T = std::remove_const_t<typename std::remove_cvref_t<E>::Scalar>;
  static_assert(is_element_v<T>,
                "jf::from_eigen_copy: the scalar must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, "
                "float or double");
  return array<T>(e, dev);
}

// A jf::cpu array over the Eigen object's memory, without copying, where it has memory (see
// eigen_viewable_v): compile-time vectors (VectorXd, RowVectorXf, m.col(j), m.row(i)) become 1-d
// arrays with the vector's increment as stride, everything else 2-d (rows, cols) with strides from
// the storage order (column-major: (innerStride, outerStride); row-major: (outerStride,
// innerStride)). Writes through either side are seen by the other. The array never frees the
// memory: the object must outlive it (and its views and exports). A const object gives an array
// too (jetfuse arrays are writable): do not write through it. Expressions without memory are
// evaluated into an owning copy, as from_eigen_copy does. A temporary Matrix or Array (which would
// dangle) does not compile: use from_eigen_copy.
template <class E>
  requires std::is_base_of_v<Eigen::EigenBase<std::remove_cvref_t<E>>, std::remove_cvref_t<E>>
auto from_eigen(E&& e) {
  using D = std::remove_cvref_t<E>;
  using T = std::remove_const_t<typename D::Scalar>;
  static_assert(is_element_v<T>,
                "jf::from_eigen: the scalar must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, float "
                "or double");
  if constexpr (!eigen_viewable_v<D>) {
    return from_eigen_copy(e);
  } else {
    static_assert(std::is_lvalue_reference_v<E> || !std::is_same_v<D, typename D::PlainObject>,
                  "jf::from_eigen of a temporary Eigen Matrix/Array would view memory that is about to be freed: "
                  "keep the object in a variable, or use jf::from_eigen_copy");
    shape_t shape;
    strides_t strides;
    if constexpr (D::IsVectorAtCompileTime) {
      shape = shape_t{static_cast<std::int64_t>(e.size())};
      strides = strides_t{static_cast<std::int64_t>(e.innerStride())};
    } else if constexpr (D::IsRowMajor) {
      shape = shape_t{static_cast<std::int64_t>(e.rows()), static_cast<std::int64_t>(e.cols())};
      strides = strides_t{static_cast<std::int64_t>(e.outerStride()), static_cast<std::int64_t>(e.innerStride())};
    } else {
      shape = shape_t{static_cast<std::int64_t>(e.rows()), static_cast<std::int64_t>(e.cols())};
      strides = strides_t{static_cast<std::int64_t>(e.innerStride()), static_cast<std::int64_t>(e.outerStride())};
    }
    // The buffer starts at the lowest address an element occupies (strides may be negative).
    std::int64_t lo = 0, hi = 0;
    const bool empty = shape.product() == 0;
    if (!empty)
      for (int i = 0; i < shape.size(); ++i) (strides[i] < 0 ? lo : hi) += (shape[i] - 1) * strides[i];
    auto* first = const_cast<T*>(e.data());
    T* lowest = empty ? first : first + lo;
    const std::size_t bytes = empty ? 0 : static_cast<std::size_t>(hi - lo + 1) * sizeof(T);
    // An empty deleter: the memory stays the Eigen object's.
    return array<T>(array_base(detail::adopt(cpu, lowest, bytes, {}), dtype_v<T>, shape, strides, empty ? 0 : -lo));
  }
}

}  // namespace jf
