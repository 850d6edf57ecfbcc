// Element types and numpy 2 (NEP 50) type promotion, usable at compile time and at run time.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace jf {

enum class dtype : std::uint8_t { bool_, int32, int64, float32, float64 };

inline constexpr int num_dtypes = 5;

template <class T>
inline constexpr bool is_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
constexpr dtype dtype_of() {
  static_assert(is_element_v<T>, "jetfuse arrays hold bool, int32_t, int64_t, float or double");
  if constexpr (std::is_same_v<T, bool>) return dtype::bool_;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else return dtype::float64;
}
template <class T> inline constexpr dtype dtype_v = dtype_of<T>();

template <dtype D> struct cpp_type;
template <> struct cpp_type<dtype::bool_> { using type = bool; };
template <> struct cpp_type<dtype::int32> { using type = std::int32_t; };
template <> struct cpp_type<dtype::int64> { using type = std::int64_t; };
template <> struct cpp_type<dtype::float32> { using type = float; };
template <> struct cpp_type<dtype::float64> { using type = double; };
template <dtype D> using cpp_type_t = typename cpp_type<D>::type;

constexpr std::string_view name(dtype d) {
  switch (d) {
  case dtype::bool_: return "bool";
  case dtype::int32: return "int32";
  case dtype::int64: return "int64";
  case dtype::float32: return "float32";
  case dtype::float64: return "float64";
  }
  return "?";
}
constexpr int size_of(dtype d) {
  switch (d) {
  case dtype::bool_: return 1;
  case dtype::int32: case dtype::float32: return 4;
  default: return 8;
  }
}
constexpr bool is_integer(dtype d) { return d == dtype::int32 || d == dtype::int64; }
constexpr bool is_floating(dtype d) { return d == dtype::float32 || d == dtype::float64; }

// Calls f(std::type_identity<T>{}) with the C++ type of d.
template <class F> decltype(auto) visit_dtype(dtype d, F&& f) {
  switch (d) {
  case dtype::bool_: return f(std::type_identity<bool>{});
  case dtype::int32: return f(std::type_identity<std::int32_t>{});
  case dtype::int64: return f(std::type_identity<std::int64_t>{});
  case dtype::float32: return f(std::type_identity<float>{});
  default: return f(std::type_identity<double>{});
  }
}

// ---- promotion -------------------------------------------------------------------------------
// An operand of an operation: an array of some dtype (strong) or a C++ scalar (weak, NEP 50:
// it takes the array's dtype where the value's kind fits in it).
enum class scalar_kind : std::uint8_t { none, bool_, integer, floating };

struct operand_type {
  dtype type = dtype::float64;
  scalar_kind weak = scalar_kind::none;  // none: a strong array dtype
  constexpr bool is_weak() const { return weak != scalar_kind::none; }
  friend constexpr bool operator==(operand_type, operand_type) = default;
};
constexpr operand_type strong(dtype d) { return {d, scalar_kind::none}; }

template <class S> constexpr operand_type weak_operand() {
  if constexpr (std::is_same_v<S, bool>) return {dtype::bool_, scalar_kind::bool_};
  else if constexpr (std::is_integral_v<S>) return {dtype::int64, scalar_kind::integer};
  else return {dtype::float64, scalar_kind::floating};
}

// numpy's result_type for two strong dtypes (the table in tests/data/promotion_table.csv).
constexpr dtype promote_types(dtype a, dtype b) {
  if (a == b) return a;
  if (a == dtype::bool_) return b;
  if (b == dtype::bool_) return a;
  if (is_integer(a) && is_integer(b)) return dtype::int64;
  if (is_floating(a) && is_floating(b)) return dtype::float64;
  // one integer, one float: int32+float32 -> float64 in numpy (float32 cannot hold all int32).
  return dtype::float64;
}

constexpr int kind_rank(scalar_kind k) { return static_cast<int>(k); }
constexpr scalar_kind kind_of(dtype d) {
  return d == dtype::bool_ ? scalar_kind::bool_ : is_integer(d) ? scalar_kind::integer : scalar_kind::floating;
}

// NEP 50 promotion of two operands; the result is weak only when both are.
constexpr operand_type promote(operand_type a, operand_type b) {
  if (!a.is_weak() && !b.is_weak()) return strong(promote_types(a.type, b.type));
  if (a.is_weak() && b.is_weak()) return kind_rank(a.weak) >= kind_rank(b.weak) ? a : b;
  const operand_type s = a.is_weak() ? b : a;  // the strong one
  const operand_type w = a.is_weak() ? a : b;
  // A weak scalar of a higher kind than the array takes that kind's default dtype.
  if (kind_rank(w.weak) > kind_rank(kind_of(s.type))) return strong(w.type);
  return s;
}
constexpr dtype resolve(operand_type t) { return t.type; }

}  // namespace jf
