// The one table of element-wise operations: IR opcode, numpy name, arity and dtype rule.
// The front end, the IR, the code generator and the CPU executor are all driven by it.
#pragma once

#include <cstdint>
#include <string_view>

#include "jetfuse/dtype.hpp"

namespace jf {

// How an operation chooses the dtype its operands are converted to (the compute dtype) and the
// dtype of its result.
enum class op_rule : std::uint8_t {
  same,         // compute = promoted operands, result = compute (bool allowed)
  no_bool,      // like same, bool operands rejected (numpy has no loop: negative, subtract, sign)
  bool_int8,    // like same, bool operands computed in int8 (numpy's loops: square, //, %, **)
  bitwise,      // like same, bool and integers only
  shift,        // like same, integers only; bool computed in int8 (numpy's loop)
  float_fn,     // compute = promoted operands made floating: bool, int8, uint8 -> float32 (numpy:
                // float16, which jetfuse lacks), int16, uint16 -> float32, wider ints -> float64
  true_divide,  // compute = float64 for bool and integers, else the promoted float
  compare,      // compute = promoted operands, result = bool
  logical,      // compute = bool, result = bool
  classify,     // compute = operand, result = bool (isnan, isinf, isfinite)
  select,       // where(cond, x, y): cond -> bool, values promoted
  special,      // leaves and casts: handled by hand
};

// X(opcode, numpy name, arity, rule)
#define JF_ELEMENTWISE_OPS(X)                  \
  X(negative, "negative", 1, no_bool)          \
  X(absolute, "absolute", 1, same)             \
  X(sqrt, "sqrt", 1, float_fn)                 \
  X(cbrt, "cbrt", 1, float_fn)                 \
  X(exp, "exp", 1, float_fn)                   \
  X(exp2, "exp2", 1, float_fn)                 \
  X(expm1, "expm1", 1, float_fn)               \
  X(log, "log", 1, float_fn)                   \
  X(log2, "log2", 1, float_fn)                 \
  X(log10, "log10", 1, float_fn)               \
  X(log1p, "log1p", 1, float_fn)               \
  X(sin, "sin", 1, float_fn)                   \
  X(cos, "cos", 1, float_fn)                   \
  X(tan, "tan", 1, float_fn)                   \
  X(arcsin, "arcsin", 1, float_fn)             \
  X(arccos, "arccos", 1, float_fn)             \
  X(arctan, "arctan", 1, float_fn)             \
  X(sinh, "sinh", 1, float_fn)                 \
  X(cosh, "cosh", 1, float_fn)                 \
  X(tanh, "tanh", 1, float_fn)                 \
  X(arcsinh, "arcsinh", 1, float_fn)           \
  X(arccosh, "arccosh", 1, float_fn)           \
  X(arctanh, "arctanh", 1, float_fn)           \
  X(rint, "rint", 1, float_fn)                 \
  X(square, "square", 1, bool_int8)              \
  X(reciprocal, "reciprocal", 1, bool_int8)      \
  X(floor, "floor", 1, same)                   \
  X(ceil, "ceil", 1, same)                     \
  X(trunc, "trunc", 1, same)                   \
  X(sign, "sign", 1, no_bool)                  \
  X(isnan, "isnan", 1, classify)               \
  X(isinf, "isinf", 1, classify)               \
  X(isfinite, "isfinite", 1, classify)         \
  X(logical_not, "logical_not", 1, logical)    \
  X(invert, "invert", 1, bitwise)              \
  X(add, "add", 2, same)                       \
  X(subtract, "subtract", 2, no_bool)          \
  X(multiply, "multiply", 2, same)             \
  X(true_divide, "divide", 2, true_divide)     \
  X(floor_divide, "floor_divide", 2, bool_int8)  \
  X(remainder, "remainder", 2, bool_int8)        \
  X(power, "power", 2, bool_int8)                \
  X(arctan2, "arctan2", 2, float_fn)           \
  X(hypot, "hypot", 2, float_fn)               \
  X(minimum, "minimum", 2, same)               \
  X(maximum, "maximum", 2, same)               \
  X(fmin, "fmin", 2, same)                     \
  X(fmax, "fmax", 2, same)                     \
  X(bitwise_and, "bitwise_and", 2, bitwise)    \
  X(bitwise_or, "bitwise_or", 2, bitwise)      \
  X(bitwise_xor, "bitwise_xor", 2, bitwise)    \
  X(left_shift, "left_shift", 2, shift)        \
  X(right_shift, "right_shift", 2, shift)      \
  X(equal, "equal", 2, compare)                \
  X(not_equal, "not_equal", 2, compare)        \
  X(less, "less", 2, compare)                  \
  X(less_equal, "less_equal", 2, compare)      \
  X(greater, "greater", 2, compare)            \
  X(greater_equal, "greater_equal", 2, compare) \
  X(logical_and, "logical_and", 2, logical)    \
  X(logical_or, "logical_or", 2, logical)      \
  X(where, "where", 3, select)

enum class op : std::uint8_t {
  input,        // a leaf array (kernel argument)
  param,        // a run-time scalar (kernel argument, never a literal)
  constant,     // a compile-time scalar (from specialisation or folding), written as a literal
  cast,         // astype
  reduce,       // combines its argument over a domain into the parent domain (jf::ir, monoid in attr[0])
  scatter,      // combines values into the iteration of a 1-axis box that an index names (histograms)
  broadcast,    // makes a value of an outer domain available in an inner one
  extent,       // the number of iterations of a domain (attr[0]) for one iteration of its parent: int64
  gather,       // the element of an input (index) at a position an int64 value names (numpy take)
  user,         // a user-defined element function (jf::elementwise), id in attr[0]; 1 to 3 arguments
  search,       // numpy searchsorted: the insertion index of a value in a sorted input (index)
  put,          // writes (or combines) a value into an output at a position an int64 value names (scatters)
  scan,         // an inclusive prefix combination (cumsum, cumprod) along an axis of its domain (attr[0])
  index,        // the current iteration's index along a global axis (attr[0]), or its flat position (-1)
  check_index,  // an int64 position along an axis of `size` elements after numpy's bounds check (x[i, j])
#define JF_X(code, name, arity, rule) code,
  JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
};

// Every element-wise operation, in table order (for loops over the table).
inline constexpr op elementwise_ops[] = {
#define JF_X(code, name, arity, rule) op::code,
    JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
};

struct op_info {
  std::string_view name;  // numpy's name, also the scalar function jf_<name> in scalar_ops.hpp
  int arity;
  op_rule rule;
};

constexpr op_info info(op o) {
  switch (o) {
  case op::input: return {"input", 0, op_rule::special};
  case op::param: return {"param", 0, op_rule::special};
  case op::constant: return {"constant", 0, op_rule::special};
  case op::cast: return {"cast", 1, op_rule::special};
  case op::reduce: return {"reduce", 1, op_rule::special};  // 2 with a guard
  case op::scatter: return {"scatter", 2, op_rule::special};  // 3 with a guard
  case op::broadcast: return {"broadcast", 1, op_rule::special};
  case op::extent: return {"extent", 0, op_rule::special};
  case op::gather: return {"gather", 3, op_rule::special};
  case op::user: return {"user", 1, op_rule::special};  // 1 to 3 (the function's arity)
  case op::search: return {"search", 3, op_rule::special};
  case op::put: return {"put", 2, op_rule::special};
  case op::scan: return {"scan", 1, op_rule::special};
  case op::index: return {"index", 0, op_rule::special};
  case op::check_index: return {"check_index", 2, op_rule::special};
#define JF_X(code, nm, ar, rl) \
  case op::code: return {nm, ar, op_rule::rl};
    JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
  }
  return {"?", 0, op_rule::special};
}

// The reducers of jf::ir's reduce nodes, with numpy's names. Each is a monoid (an identity and a
// combine function, scalar_ops.hpp); mean, var, std, nansum, count_nonzero, ... are built from
// these by the front end.
#define JF_MONOIDS(X) X(sum) X(prod) X(min) X(max) X(any) X(all) X(argmin) X(argmax) X(nanmin) X(nanmax)
enum class monoid : std::uint8_t {
#define JF_X(m) m,
  JF_MONOIDS(JF_X)
#undef JF_X
};
constexpr std::string_view name(monoid m) {
  switch (m) {
#define JF_X(m) \
  case monoid::m: return #m;
    JF_MONOIDS(JF_X)
#undef JF_X
  }
  return "?";
}
// Whether a reduction's result is a position (int64) rather than a value of its argument's dtype.
constexpr bool is_arg_monoid(monoid m) { return m == monoid::argmin || m == monoid::argmax; }

// Whether an operation accepts operands promoted to `compute`.
constexpr bool accepts(op_rule r, dtype compute) {
  switch (r) {
  case op_rule::no_bool: return compute != dtype::bool_;
  case op_rule::bitwise: return !is_floating(compute);
  case op_rule::shift: return is_integer(compute);
  default: return true;
  }
}

// The dtype the operands of an operation are converted to, given their promoted dtype.
constexpr dtype compute_dtype(op_rule r, dtype promoted) {
  switch (r) {
  case op_rule::float_fn:
    if (promoted == dtype::bool_) return dtype::float32;
    return is_integer(promoted) ? (size_of(promoted) <= 2 ? dtype::float32 : dtype::float64) : promoted;
  case op_rule::bool_int8: case op_rule::shift: return promoted == dtype::bool_ ? dtype::int8 : promoted;
  case op_rule::true_divide: return is_floating(promoted) ? promoted : dtype::float64;
  case op_rule::logical: return dtype::bool_;
  default: return promoted;
  }
}

// The compute dtype of an operation of two arrays of dtypes a and b. numpy picks the first loop
// that every operand casts to safely, which for float functions need not be the loop of their
// promoted dtype: arctan2(uint16, int8) is float32 (each fits it), int32 would be float64.
constexpr dtype compute_dtype(op_rule r, dtype a, dtype b) {
  if (r == op_rule::float_fn) return promote_types(compute_dtype(r, a), compute_dtype(r, b));
  return compute_dtype(r, promote_types(a, b));
}

constexpr dtype result_dtype(op_rule r, dtype compute) {
  switch (r) {
  case op_rule::compare: case op_rule::logical: case op_rule::classify: return dtype::bool_;
  default: return compute;
  }
}

}  // namespace jf
