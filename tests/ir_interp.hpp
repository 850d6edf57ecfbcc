// A host interpreter of jf::ir graphs for the compiler's tests: every element computed with the
// jf::ops functions, one logical element at a time (layouts only say which element is read: a
// scalar operand is element 0). Independent of the passes' own constant folder on purpose.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "jetfuse/ir/graph.hpp"
#include "jetfuse/ir/passes.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf_test {

using jf::dtype;
using jf::ir::scalar_value;
using column = std::vector<scalar_value>;

inline scalar_value apply(const jf::ir::node& n, dtype arg_t, dtype from_t, const scalar_value* a) {
  return jf::ir::apply(n.code, n.type, n.code == jf::op::cast ? from_t : arg_t, a);
}

// Evaluates g over n elements. inputs[k] has n elements (1 for a scalar layout); params one value
// each. Returns one column of n values per output.
inline std::vector<column> run(const jf::ir::graph& g, std::size_t n, const std::vector<column>& inputs,
                               const std::vector<scalar_value>& params) {
  std::vector<column> out(g.outputs.size(), column(n));
  std::vector<scalar_value> v(g.nodes.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const jf::ir::node& nd = g.nodes[id];
      switch (nd.code) {
      case jf::op::input: {
        const column& c = inputs.at(static_cast<std::size_t>(nd.index));
        v[id] = g.inputs[static_cast<std::size_t>(nd.index)].lay == jf::ir::layout::scalar ? c.at(0) : c.at(i);
        break;
      }
      case jf::op::param: v[id] = params.at(static_cast<std::size_t>(nd.index)); break;
      case jf::op::constant: v[id] = nd.value; break;
      default: {
        scalar_value a[3];
        for (int k = 0; k < nd.nargs; ++k) a[k] = v[static_cast<std::size_t>(nd.args[static_cast<std::size_t>(k)])];
        const dtype from = g.nodes[static_cast<std::size_t>(nd.args[0])].type;
        const dtype arg_t = nd.code == jf::op::where ? g.nodes[static_cast<std::size_t>(nd.args[1])].type : from;
        v[id] = apply(nd, arg_t, from, a);
      }
      }
    }
    for (std::size_t o = 0; o < g.outputs.size(); ++o) out[o][i] = v[static_cast<std::size_t>(g.outputs[o].value)];
  }
  return out;
}

// Bit-exact equality (any NaN equals any NaN: payloads are not part of numpy's semantics).
inline bool same_bits(dtype t, const scalar_value& a, const scalar_value& b) {
  if (jf::is_floating(t)) {
    if (std::isnan(a.f) && std::isnan(b.f)) return true;
    return std::bit_cast<std::uint64_t>(a.f) == std::bit_cast<std::uint64_t>(b.f);
  }
  return a.i == b.i;
}

// Random values with the edge cases mixed in.
inline scalar_value random_value(dtype t, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 9);
  const bool special = pick(rng) == 0;
  switch (t) {
  case dtype::bool_: return scalar_value{0, static_cast<std::int64_t>(rng() & 1)};
  case dtype::int32: {
    static const std::int64_t edge[] = {0, 1, -1, 2, 31, 32, std::numeric_limits<std::int32_t>::min(),
                                        std::numeric_limits<std::int32_t>::max()};
    if (special) return scalar_value{0, edge[rng() % 8]};
    return scalar_value{0, std::uniform_int_distribution<std::int64_t>(-1000, 1000)(rng)};
  }
  case dtype::int64: {
    static const std::int64_t edge[] = {0, 1, -1, 2, 63, 64, std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max()};
    if (special) return scalar_value{0, edge[rng() % 8]};
    return scalar_value{0, std::uniform_int_distribution<std::int64_t>(-100000, 100000)(rng)};
  }
  default: {
    static const double edge[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                                  1e300, -1e-300};
    double x = special ? edge[rng() % 11] : std::uniform_real_distribution<double>(-10, 10)(rng);
    return scalar_value::of(t, x);
  }
  }
}

inline column random_column(dtype t, std::size_t n, std::mt19937_64& rng) {
  column c(n);
  for (auto& x : c) x = random_value(t, rng);
  return c;
}

struct sample {
  std::size_t n = 0;
  std::vector<column> inputs;
  std::vector<scalar_value> params;
};

inline sample random_sample(const jf::ir::graph& g, std::size_t n, std::mt19937_64& rng) {
  sample s;
  s.n = n;
  for (const auto& d : g.inputs) s.inputs.push_back(random_column(d.type, d.lay == jf::ir::layout::scalar ? 1 : n, rng));
  for (dtype t : g.params) s.params.push_back(random_value(t, rng));
  return s;
}

// "" when equal, else a description of the first difference.
inline std::string compare(const jf::ir::graph& ref, const std::vector<column>& a, const std::vector<column>& b) {
  if (a.size() != b.size()) return "different number of outputs";
  for (std::size_t o = 0; o < a.size(); ++o)
    for (std::size_t i = 0; i < a[o].size(); ++i)
      if (!same_bits(ref.outputs[o].desc.type, a[o][i], b[o][i]))
        return "output " + std::to_string(o) + " element " + std::to_string(i) + ": " + std::to_string(a[o][i].f) + "/" +
               std::to_string(a[o][i].i) + " vs " + std::to_string(b[o][i].f) + "/" + std::to_string(b[o][i].i);
  return "";
}

// Checks that `after` computes exactly what `before` does on fresh random inputs of several sizes.
inline std::string same_results(const jf::ir::graph& before, const jf::ir::graph& after, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
    const sample s = random_sample(before, n, rng);
    const std::string d = compare(before, run(before, n, s.inputs, s.params), run(after, n, s.inputs, s.params));
    if (!d.empty()) return "n=" + std::to_string(n) + ": " + d;
  }
  return "";
}

// A random valid graph: operations of the table on random operands, casts inserted to each
// operation's compute dtype as the front end does, constants with the values the rules look for.
inline jf::ir::graph random_graph(std::mt19937_64& rng, int num_ops) {
  using namespace jf;
  ir::graph g;
  const int nin = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < nin; ++k) g.add_input(static_cast<dtype>(rng() % 5), rng() % 4 == 0 ? ir::layout::scalar : ir::layout::contiguous);
  if (rng() % 2) g.add_param(static_cast<dtype>(rng() % 5));
  std::vector<op> ops;
#define JF_X(code, nm, ar, rl) ops.push_back(op::code);
  JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
  static const double consts[] = {0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, 4.0, 16.0, 17.0, -2.0};
  auto any_node = [&]() { return static_cast<ir::node_id>(rng() % g.nodes.size()); };
  auto to = [&](ir::node_id id, dtype t) { return g.nodes[static_cast<std::size_t>(id)].type == t ? id : g.add_cast(t, id); };
  for (int made = 0; made < num_ops;) {
    if (rng() % 5 == 0) {
      g.add_constant(static_cast<dtype>(rng() % 5), ir::scalar_value::of(static_cast<dtype>(rng() % 5), consts[rng() % 11]));
      auto& c = g.nodes.back();
      c.value = ir::scalar_value::of(c.type, consts[rng() % 11]);
      continue;
    }
    const op o = ops[rng() % ops.size()];
    const op_info oi = info(o);
    ir::node_id a[3] = {any_node(), any_node(), any_node()};
    if (oi.rule == op_rule::select) {
      const dtype p = promote_types(g.nodes[static_cast<std::size_t>(a[1])].type, g.nodes[static_cast<std::size_t>(a[2])].type);
      const ir::node_id c = to(a[0], dtype::bool_), x = to(a[1], p), y = to(a[2], p);
      g.add_op(o, p, {c, x, y});
      ++made;
      continue;
    }
    dtype p = g.nodes[static_cast<std::size_t>(a[0])].type;
    if (oi.arity == 2) p = promote_types(p, g.nodes[static_cast<std::size_t>(a[1])].type);
    if (!accepts(oi.rule, p)) continue;
    const dtype c = compute_dtype(oi.rule, p);
    if (oi.arity == 1) g.add_op(o, result_dtype(oi.rule, c), {to(a[0], c)});
    else {
      const ir::node_id x = to(a[0], c), y = to(a[1], c);
      g.add_op(o, result_dtype(oi.rule, c), {x, y});
    }
    ++made;
  }
  const int nout = 1 + static_cast<int>(rng() % 2);
  for (int k = 0; k < nout; ++k) {
    const auto v = static_cast<ir::node_id>(g.nodes.size() - 1 - static_cast<std::size_t>(rng() % std::min<std::size_t>(3, g.nodes.size())));
    g.add_output(v, ir::layout::contiguous);
  }
  return g;
}

}  // namespace jf_test
