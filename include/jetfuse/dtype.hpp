// Element types and numpy 2 (NEP 50) type promotion, usable at compile time and at run time.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace jf {

// The element types. The five first keep their values (variant keys, tests index them); the
// others follow. all_dtypes lists them in numpy's order (kinds, then sizes) for tables and loops.
enum class dtype : std::uint8_t { bool_, int32, int64, float32, float64, int8, int16, uint8, uint16, uint32, uint64 };

inline constexpr int num_dtypes = 11;
inline constexpr dtype all_dtypes[num_dtypes] = {dtype::bool_,  dtype::int8,   dtype::int16,   dtype::int32,
                                                 dtype::int64,  dtype::uint8,  dtype::uint16,  dtype::uint32,
                                                 dtype::uint64, dtype::float32, dtype::float64};

template <class T>
inline constexpr bool is_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
constexpr dtype dtype_of() {
  static_assert(is_element_v<T>, "jetfuse arrays hold bool, int8_t .. int64_t, uint8_t .. uint64_t, float or double");
  if constexpr (std::is_same_v<T, bool>) return dtype::bool_;
  else if constexpr (std::is_same_v<T, std::int8_t>) return dtype::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtype::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtype::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtype::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtype::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return dtype::uint64;
  else if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else return dtype::float64;
}
template <class T> inline constexpr dtype dtype_v = dtype_of<T>();

template <dtype D> struct cpp_type;
template <> struct cpp_type<dtype::bool_> { using type = bool; };
template <> struct cpp_type<dtype::int8> { using type = std::int8_t; };
template <> struct cpp_type<dtype::int16> { using type = std::int16_t; };
template <> struct cpp_type<dtype::int32> { using type = std::int32_t; };
template <> struct cpp_type<dtype::int64> { using type = std::int64_t; };
template <> struct cpp_type<dtype::uint8> { using type = std::uint8_t; };
template <> struct cpp_type<dtype::uint16> { using type = std::uint16_t; };
template <> struct cpp_type<dtype::uint32> { using type = std::uint32_t; };
template <> struct cpp_type<dtype::uint64> { using type = std::uint64_t; };
template <> struct cpp_type<dtype::float32> { using type = float; };
template <> struct cpp_type<dtype::float64> { using type = double; };
template <dtype D> using cpp_type_t = typename cpp_type<D>::type;

constexpr std::string_view name(dtype d) {
  switch (d) {
  case dtype::bool_: return "bool";
  case dtype::int8: return "int8";
  case dtype::int16: return "int16";
  case dtype::int32: return "int32";
  case dtype::int64: return "int64";
  case dtype::uint8: return "uint8";
  case dtype::uint16: return "uint16";
  case dtype::uint32: return "uint32";
  case dtype::uint64: return "uint64";
  case dtype::float32: return "float32";
  case dtype::float64: return "float64";
  }
  return "?";
}
constexpr int size_of(dtype d) {
  switch (d) {
  case dtype::bool_: case dtype::int8: case dtype::uint8: return 1;
  case dtype::int16: case dtype::uint16: return 2;
  case dtype::int32: case dtype::uint32: case dtype::float32: return 4;
  case dtype::int64: case dtype::uint64: case dtype::float64: return 8;
  }
  return 8;
}
constexpr bool is_signed_integer(dtype d) {
  return d == dtype::int8 || d == dtype::int16 || d == dtype::int32 || d == dtype::int64;
}
constexpr bool is_unsigned_integer(dtype d) {
  return d == dtype::uint8 || d == dtype::uint16 || d == dtype::uint32 || d == dtype::uint64;
}
constexpr bool is_integer(dtype d) { return is_signed_integer(d) || is_unsigned_integer(d); }
constexpr bool is_floating(dtype d) { return d == dtype::float32 || d == dtype::float64; }
// The signed integer dtype of 1, 2, 4 or 8 bytes.
constexpr dtype signed_integer_of_size(int bytes) {
  return bytes == 1 ? dtype::int8 : bytes == 2 ? dtype::int16 : bytes == 4 ? dtype::int32 : dtype::int64;
}

// Calls f(std::type_identity<T>{}) with the C++ type of d.
template <class F> decltype(auto) visit_dtype(dtype d, F&& f) {
  switch (d) {
  case dtype::bool_: return f(std::type_identity<bool>{});
  case dtype::int8: return f(std::type_identity<std::int8_t>{});
  case dtype::int16: return f(std::type_identity<std::int16_t>{});
  case dtype::int32: return f(std::type_identity<std::int32_t>{});
  case dtype::int64: return f(std::type_identity<std::int64_t>{});
  case dtype::uint8: return f(std::type_identity<std::uint8_t>{});
  case dtype::uint16: return f(std::type_identity<std::uint16_t>{});
  case dtype::uint32: return f(std::type_identity<std::uint32_t>{});
  case dtype::uint64: return f(std::type_identity<std::uint64_t>{});
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
  if (is_floating(a) && is_floating(b)) return dtype::float64;
  if (is_floating(a) || is_floating(b)) {
    // float32 holds every int8/int16/uint8/uint16 exactly, not int32 and wider (numpy: float64).
    const dtype f = is_floating(a) ? a : b, i = is_floating(a) ? b : a;
    return f == dtype::float32 && size_of(i) <= 2 ? dtype::float32 : dtype::float64;
  }
  if (is_signed_integer(a) == is_signed_integer(b)) return size_of(a) >= size_of(b) ? a : b;
  // One signed, one unsigned: the signed dtype if it is wider, else the signed dtype twice as wide
  // as the unsigned one; no integer holds both int64 and uint64 (numpy: float64).
  const dtype s = is_signed_integer(a) ? a : b, u = is_signed_integer(a) ? b : a;
  if (size_of(s) > size_of(u)) return s;
  return size_of(u) == 8 ? dtype::float64 : signed_integer_of_size(2 * size_of(u));
}

// numpy 2 compares uint64 with a signed integer exactly (its mixed comparison loops), although
// their promoted dtype is float64 (which cannot tell 2**53 from 2**53 + 1).
constexpr bool compares_mixed_signs(dtype a, dtype b) {
  return (a == dtype::uint64 && is_signed_integer(b)) || (b == dtype::uint64 && is_signed_integer(a));
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
