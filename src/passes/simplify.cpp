// Algebraic simplification. Without fast_math every rule is bit-identical to what the kernel
// would compute (jf::ops semantics, NaN and signed zeros included):
//   power(x, 2)  -> x * x          jf_power defines float x**2 as x*x; integers wrap the same way
//   power(x, -1) -> 1 / x          floats: jf_power defines x**-1 as 1/x (numpy's fast path)
//   power(x, 0.5) -> sqrt(x)       floats: jf_power defines x**0.5 as sqrt(x) (numpy's fast path)
//   power(x, 1)  -> x              pow(x, 1) == x for every x, NaN included
//   power(x, 0)  -> 1              pow(x, 0) == 1 even for NaN; integers: 1
//   power(x, c)  -> x*x*...        integers, 0 <= c <= 16: wrapping multiplication by squaring
//   power(x, c<0) -> 0             integers (jf_power's rule for negative exponents)
//   multiply(x, 1), multiply(1, x) -> x      (bool: x && true)
//   multiply(x, 0), multiply(0, x) -> 0      integers and bool only (floats: NaN, -0.0)
//   add(x, 0), add(0, x) -> x      integers and bool; floats only for -0.0 (x + -0.0 == x; x + 0.0
//                                  turns -0.0 into +0.0)
//   subtract(x, 0) -> x            integers, and floats for +0.0 (x - +0.0 == x)
//   true_divide(x, 1) -> x
//   negative(negative(x)) -> x     floats flip the sign bit twice; integers wrap (INT_MIN too)
//   logical_not(logical_not(x)), invert(invert(x)) -> x
//   cast(x) to x's own dtype -> x
//   cast(cast(x, W), T) -> x       when x is T and W holds every T exactly (bool -> any,
//                                  int32 -> int64/float64, float32 -> float64)
//   where(c, x, x) -> x; where(constant c, x, y) -> x or y
// A scan whose argument became a constant (cumsum(x * 0 + 1) of integers) reads it through a
// broadcast into its domain: a scan combines one value per iteration of its domain.
// With fast_math only:
//   power(x, c) -> x*x*...         floats, 3 <= c <= 16 (pow is not a product of roundings)
//   add(x, +0.0) -> x              differs for x = -0.0
// Rewritten nodes are left for dead code elimination; new nodes may duplicate others (CSE).
#include <cmath>

#include "jetfuse/ir/passes.hpp"
#include "passes/rebuild.hpp"

namespace jf::ir {
namespace {

struct rewriter {
  const graph& in;
  const pass_options& opt;
  std::vector<node> out;
  domain_id domain = node::map_domain;  // of the node being rewritten: new nodes go there too

  const node& at(node_id id) const { return out[static_cast<std::size_t>(id)]; }
  node_id emit(const node& n) {
    out.push_back(n);
    return static_cast<node_id>(out.size() - 1);
  }
  node_id constant(dtype t, double v) {
    node c;
    c.code = op::constant;
    c.type = t;
    c.value = scalar_value::of(t, v);
    return emit(c);
  }
  node_id binary(op code, dtype t, node_id a, node_id b) {
    node n;
    n.code = code;
    n.type = t;
    n.nargs = 2;
    n.args = {a, b, no_node};
    n.domain = domain;
    return emit(n);
  }
  // Whether id is a constant equal to v (for floats, +0.0 and -0.0 are told apart by sign).
  bool is_value(node_id id, double v) const {
    const node& n = at(id);
    if (n.code != op::constant) return false;
    if (!is_floating(n.type)) return n.value.i == static_cast<std::int64_t>(v);
    return n.value.f == v && std::signbit(n.value.f) == std::signbit(v);
  }
  // x**c by squaring: c >= 1.
  node_id power_chain(node_id x, dtype t, std::int64_t c) {
    node_id result = no_node;
    node_id sq = x;
    for (std::int64_t e = c; e; e >>= 1) {
      if (e & 1) result = result == no_node ? sq : binary(op::multiply, t, result, sq);
      if (e >> 1) sq = binary(op::multiply, t, sq, sq);
    }
    return result;
  }
  // Widening casts that hold every value of `from` exactly.
  static bool exact_widening(dtype from, dtype to) {
    if (from == dtype::bool_) return true;
    if (from == dtype::float32) return to == dtype::float64;
    if (!is_integer(from) || size_of(to) <= size_of(from)) return false;
    if (is_floating(to)) return size_of(from) <= (to == dtype::float32 ? 2 : 4);  // 24 and 53 bits
    return is_unsigned_integer(from) || is_signed_integer(to);
  }

  // The node n (arguments already renamed) stands for; appends n when no rule applies.
  node_id rewrite(const node& n) {
    const dtype t = n.type;
    const node_id a = n.args[0], b = n.args[1];
    switch (n.code) {
    case op::power: {
      const node& c = at(b);
      if (c.code != op::constant) break;
      if (is_integer(t)) {
        const std::int64_t e = c.value.i;
        if (t == dtype::uint64 && e < 0) break;  // an exponent of 2^63 or more
        if (e < 0) return constant(t, 0);
        if (e == 0) return constant(t, 1);
        if (e <= 16) return power_chain(a, t, e);
        break;
      }
      const double e = c.value.f;
      if (e == 2) return binary(op::multiply, t, a, a);
      if (e == 1) return a;
      if (e == 0) return constant(t, 1);
      if (e == -1) return binary(op::true_divide, t, constant(t, 1), a);
      if (opt.fast_math && e >= 3 && e <= 16 && e == static_cast<double>(static_cast<int>(e)))
        return power_chain(a, t, static_cast<std::int64_t>(e));
      if (e == 0.5) {
        node s;
        s.code = op::sqrt;
        s.type = t;
        s.nargs = 1;
        s.args = {a, no_node, no_node};
        s.domain = domain;
        return emit(s);
      }
      break;
    }
    case op::multiply:
      if (is_value(b, 1)) return a;
      if (is_value(a, 1)) return b;
      if (!is_floating(t) && (is_value(a, 0) || is_value(b, 0))) return constant(t, 0);
      break;
    case op::add: {
      const bool exact_zero_ok = !is_floating(t);
      if (is_value(b, -0.0) && is_floating(t)) return a;
      if (is_value(a, -0.0) && is_floating(t)) return b;
      if (exact_zero_ok || opt.fast_math) {
        if (is_value(b, 0)) return a;
        if (is_value(a, 0)) return b;
      }
      break;
    }
    case op::subtract:
      if (is_value(b, 0)) return a;
      break;
    case op::true_divide:
      if (is_value(b, 1)) return a;
      break;
    case op::negative: case op::logical_not: case op::invert:
      if (at(a).code == n.code) return at(a).args[0];
      break;
    case op::cast: {
      if (at(a).type == t) return a;
      const node& inner = at(a);
      if (inner.code == op::cast) {
        const node_id x = inner.args[0];
        if (at(x).type == t && exact_widening(t, inner.type)) return x;
      }
      break;
    }
    case op::scan: {
      const node& x = at(a);
      if (x.code != op::constant && x.code != op::param && x.code != op::extent) break;
      node bc;
      bc.code = op::broadcast;
      bc.type = x.type;
      bc.nargs = 1;
      bc.args = {a, no_node, no_node};
      bc.domain = domain;
      node s = n;
      s.args[0] = emit(bc);
      return emit(s);
    }
    case op::where:
      if (b == n.args[2]) return b;
      if (at(a).code == op::constant) return at(a).value.i ? b : n.args[2];
      break;
    default: break;
    }
    return emit(n);
  }
};

}  // namespace

void simplify(graph& g, const pass_options& opt) {
  rewriter r{g, opt, {}};
  std::vector<node>& out = r.out;
  detail::rebuild(g, out, [&](const node& n, std::size_t) {
    r.domain = n.domain;
    return r.rewrite(n);
  });
}

}  // namespace jf::ir
