// The optimisation passes and the fusion planner: structure of the rewritten graphs, and the
// same results, bit for bit, before and after on random inputs (host interpreter, jf::ops).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ir_interp.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/passes.hpp"

using namespace jf;
using jf::ir::graph;
using jf::ir::layout;
using jf::ir::node_id;
using jf::ir::scalar_value;

namespace {

int count(const graph& g, op code) {
  int c = 0;
  for (const auto& n : g.nodes) c += n.code == code;
  return c;
}
scalar_value fv(double v) { return scalar_value{v, 0}; }
scalar_value iv(std::int64_t v) { return scalar_value{0, v}; }

// Applies a pass and checks it kept the results (and the graph valid).
template <class Pass> graph apply_checked(const graph& g, Pass pass, std::uint64_t seed = 1) {
  graph h = g;
  pass(h);
  h.validate();
  EXPECT_EQ(jf_test::same_results(g, h, seed), "") << "before:\n" << g.to_string() << "after:\n" << h.to_string();
  return h;
}

}  // namespace

// ---- CSE ----------------------------------------------------------------------------------------
TEST(Cse, MergesIdenticalSubexpressions) {
  graph g;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  const node_id b = g.add_input(dtype::float64, layout::contiguous);
  const node_id m1 = g.add_op(op::multiply, dtype::float64, {a, b});
  const node_id m2 = g.add_op(op::multiply, dtype::float64, {a, b});
  const node_id s = g.add_op(op::add, dtype::float64, {m1, m2});
  g.add_output(s, layout::contiguous);
  const graph h = apply_checked(g, ir::eliminate_common_subexpressions);
  EXPECT_EQ(count(h, op::multiply), 1);
  ASSERT_EQ(h.nodes.size(), 4u);
  EXPECT_EQ(h.nodes[3].args[0], h.nodes[3].args[1]);
  EXPECT_EQ(h.outputs[0].value, 3);
}

TEST(Cse, ConstantsByBitsParamsByIndex) {
  graph g;
  const node_id x = g.add_input(dtype::float64, layout::contiguous);
  const node_id p0 = g.add_param(dtype::float64);
  const node_id p1 = g.add_param(dtype::float64);
  const node_id z1 = g.add_constant(dtype::float64, fv(0.0));
  const node_id z2 = g.add_constant(dtype::float64, fv(-0.0));
  const node_id z3 = g.add_constant(dtype::float64, fv(0.0));
  const node_id s1 = g.add_op(op::add, dtype::float64, {x, z1});
  const node_id s2 = g.add_op(op::add, dtype::float64, {x, z2});
  const node_id s3 = g.add_op(op::add, dtype::float64, {x, z3});
  const node_id q1 = g.add_op(op::multiply, dtype::float64, {s1, p0});
  const node_id q2 = g.add_op(op::multiply, dtype::float64, {s2, p1});
  const node_id q3 = g.add_op(op::multiply, dtype::float64, {s3, p0});
  g.add_output(q1, layout::contiguous);
  g.add_output(q2, layout::contiguous);
  g.add_output(q3, layout::contiguous);
  const graph h = apply_checked(g, ir::eliminate_common_subexpressions);
  EXPECT_EQ(count(h, op::constant), 2);  // 0.0 and -0.0 stay apart
  EXPECT_EQ(count(h, op::param), 2);     // two params, two values
  EXPECT_EQ(count(h, op::add), 2);
  EXPECT_EQ(count(h, op::multiply), 2);
  EXPECT_EQ(h.outputs[0].value, h.outputs[2].value);
  EXPECT_NE(h.outputs[0].value, h.outputs[1].value);
}

// ---- folding ------------------------------------------------------------------------------------
TEST(Fold, EvaluatesWithScalarOps) {
  graph g;
  const node_id x = g.add_input(dtype::float32, layout::contiguous);
  const node_id c = g.add_constant(dtype::float64, fv(2.0));
  const node_id s = g.add_op(op::sqrt, dtype::float64, {c});
  const node_id f = g.add_cast(dtype::float32, s);
  const node_id i = g.add_constant(dtype::int32, iv(-7));
  const node_id j = g.add_constant(dtype::int32, iv(2));
  const node_id fd = g.add_op(op::floor_divide, dtype::int32, {i, j});
  const node_id fc = g.add_cast(dtype::float32, fd);
  const node_id m = g.add_op(op::multiply, dtype::float32, {x, f});
  const node_id r = g.add_op(op::add, dtype::float32, {m, fc});
  g.add_output(r, layout::contiguous);
  graph h = apply_checked(g, ir::fold_constants);
  ir::remove_dead_code(h);
  EXPECT_EQ(count(h, op::sqrt), 0);
  EXPECT_EQ(count(h, op::floor_divide), 0);
  EXPECT_EQ(count(h, op::cast), 0);
  ASSERT_EQ(h.nodes.size(), 5u) << h.to_string();
  EXPECT_EQ(h.nodes[1].value.f, static_cast<double>(static_cast<float>(std::sqrt(2.0))));
  EXPECT_EQ(h.nodes[2].value.f, -4.0);  // numpy: -7 // 2 == -4
  EXPECT_EQ(jf_test::same_results(g, h, 3), "");
}

TEST(Fold, IntegerEdgeCasesAndWhere) {
  graph g;
  const node_id x = g.add_input(dtype::int32, layout::contiguous);
  const node_id mn = g.add_constant(dtype::int32, iv(std::numeric_limits<std::int32_t>::min()));
  const node_id m1 = g.add_constant(dtype::int32, iv(-1));
  const node_id q = g.add_op(op::floor_divide, dtype::int32, {mn, m1});  // wraps to INT_MIN
  const node_id lt = g.add_op(op::less, dtype::bool_, {q, m1});          // true
  const node_id w = g.add_op(op::where, dtype::int32, {lt, x, q});
  g.add_output(w, layout::contiguous);
  g.add_output(q, layout::contiguous);
  graph h = apply_checked(g, ir::fold_constants);
  EXPECT_EQ(h.nodes[3].code, op::constant);
  EXPECT_EQ(h.nodes[3].value.i, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(h.nodes[4].code, op::constant);
  EXPECT_EQ(h.nodes[4].value.i, 1);
  EXPECT_EQ(h.nodes[5].code, op::where);  // x is not constant
}

// ---- simplify -----------------------------------------------------------------------------------
namespace {
graph unary_graph(dtype t, layout l = layout::contiguous) {
  graph g;
  g.add_input(t, l);
  return g;
}
graph simplified(const graph& g, bool fast = false) {
  graph h = g;
  ir::simplify(h, ir::pass_options{fast});
  ir::remove_dead_code(h);
  h.validate();
  return h;
}
}  // namespace

TEST(Simplify, FloatPowerTwoIsMultiply) {
  for (dtype t : {dtype::float32, dtype::float64}) {
    graph g = unary_graph(t);
    g.add_output(g.add_op(op::power, t, {0, g.add_constant(t, fv(2.0))}), layout::contiguous);
    const graph h = simplified(g);
    EXPECT_EQ(count(h, op::power), 0);
    EXPECT_EQ(count(h, op::multiply), 1);
    EXPECT_EQ(jf_test::same_results(g, h, 5), "");
  }
}

TEST(Simplify, FloatPowerSmallExponents) {
  for (double e : {1.0, 0.0}) {
    graph g = unary_graph(dtype::float64);
    g.add_output(g.add_op(op::power, dtype::float64, {0, g.add_constant(dtype::float64, fv(e))}), layout::contiguous);
    const graph h = simplified(g);
    EXPECT_EQ(count(h, op::power), 0) << e;
    EXPECT_EQ(jf_test::same_results(g, h, 7), "") << "exponent " << e;
  }
}

// jf_power defines x**-1 as 1/x and x**0.5 as sqrt(x) (numpy's fast paths): exact rewrites.
TEST(Simplify, FloatPowerMinusOneAndHalfAreExact) {
  graph g = unary_graph(dtype::float64);
  g.add_output(g.add_op(op::power, dtype::float64, {0, g.add_constant(dtype::float64, fv(-1.0))}), layout::contiguous);
  const graph h = simplified(g);
  EXPECT_EQ(count(h, op::power), 0);
  EXPECT_EQ(count(h, op::true_divide), 1);
  EXPECT_EQ(jf_test::same_results(g, h, 5), "");
  graph s = unary_graph(dtype::float64);
  s.add_output(s.add_op(op::power, dtype::float64, {0, s.add_constant(dtype::float64, fv(0.5))}), layout::contiguous);
  const graph r = simplified(s);
  EXPECT_EQ(count(r, op::sqrt), 1);
  EXPECT_EQ(jf_test::same_results(s, r, 6), "");
}

TEST(Simplify, FloatPowerThreeOnlyWithFastMath) {
  graph g = unary_graph(dtype::float64);
  g.add_output(g.add_op(op::power, dtype::float64, {0, g.add_constant(dtype::float64, fv(3.0))}), layout::contiguous);
  EXPECT_EQ(count(simplified(g), op::power), 1);
  const graph fast = simplified(g, true);
  EXPECT_EQ(count(fast, op::power), 0);
  EXPECT_EQ(count(fast, op::multiply), 2);
}

TEST(Simplify, IntegerPowersAreMultiplicationChains) {
  for (dtype t : {dtype::int32, dtype::int64}) {
    for (std::int64_t e : {-3, -1, 0, 1, 2, 3, 5, 7, 8, 13, 16}) {
      graph g = unary_graph(t);
      g.add_output(g.add_op(op::power, t, {0, g.add_constant(t, iv(e))}), layout::contiguous);
      const graph h = simplified(g);
      EXPECT_EQ(count(h, op::power), 0) << e;
      // Squaring: at most 2 * log2(16) multiplications.
      EXPECT_LE(count(h, op::multiply), 8) << e;
      EXPECT_EQ(jf_test::same_results(g, h, 11 + static_cast<std::uint64_t>(e + 5)), "") << name(t) << " ** " << e;
    }
    graph big = unary_graph(t);
    big.add_output(big.add_op(op::power, t, {0, big.add_constant(t, iv(17))}), layout::contiguous);
    EXPECT_EQ(count(simplified(big), op::power), 1);
  }
}

TEST(Simplify, IdentityElements) {
  struct rule {
    op code;
    dtype t;
    double c;
    bool constant_first;
    bool applies;
  };
  const rule rules[] = {
      {op::multiply, dtype::float64, 1.0, false, true},  {op::multiply, dtype::float32, 1.0, true, true},
      {op::multiply, dtype::int32, 1.0, false, true},    {op::multiply, dtype::bool_, 1.0, true, true},
      {op::multiply, dtype::int64, 0.0, false, true},    {op::multiply, dtype::float64, 0.0, false, false},
      {op::add, dtype::int64, 0.0, true, true},          {op::add, dtype::bool_, 0.0, false, true},
      {op::add, dtype::float64, -0.0, false, true},      {op::add, dtype::float32, -0.0, true, true},
      {op::add, dtype::float64, 0.0, false, false},      {op::subtract, dtype::float64, 0.0, false, true},
      {op::subtract, dtype::float64, -0.0, false, false}, {op::subtract, dtype::int32, 0.0, false, true},
      {op::true_divide, dtype::float32, 1.0, false, true},
  };
  for (const rule& r : rules) {
    graph g = unary_graph(r.t);
    const node_id c = g.add_constant(r.t, scalar_value::of(r.t, r.c));
    const node_id v = r.constant_first ? g.add_op(r.code, r.t, {c, 0}) : g.add_op(r.code, r.t, {0, c});
    g.add_output(v, layout::contiguous);
    const graph h = simplified(g);
    EXPECT_EQ(count(h, r.code), r.applies ? 0 : 1) << info(r.code).name << " " << name(r.t) << " " << r.c;
    EXPECT_EQ(jf_test::same_results(g, h, 21), "") << info(r.code).name << " " << name(r.t) << " " << r.c;
  }
  // x + 0.0 only with fast math.
  graph g = unary_graph(dtype::float64);
  g.add_output(g.add_op(op::add, dtype::float64, {0, g.add_constant(dtype::float64, fv(0.0))}), layout::contiguous);
  EXPECT_EQ(count(simplified(g, true), op::add), 0);
}

TEST(Simplify, InvolutionsAndCasts) {
  {
    for (dtype t : {dtype::float64, dtype::int32}) {
      graph g = unary_graph(t);
      const node_id n1 = g.add_op(op::negative, t, {0});
      g.add_output(g.add_op(op::negative, t, {n1}), layout::contiguous);
      const graph h = simplified(g);
      EXPECT_EQ(h.nodes.size(), 1u);
      EXPECT_EQ(h.outputs[0].value, 0);
      EXPECT_EQ(jf_test::same_results(g, h, 31), "");
    }
  }
  {
    graph g = unary_graph(dtype::bool_);
    const node_id n1 = g.add_op(op::logical_not, dtype::bool_, {0});
    const node_id n2 = g.add_op(op::logical_not, dtype::bool_, {n1});
    const node_id i1 = g.add_op(op::invert, dtype::bool_, {n2});
    g.add_output(g.add_op(op::invert, dtype::bool_, {i1}), layout::contiguous);
    const graph h = simplified(g);
    EXPECT_EQ(h.nodes.size(), 1u);
    EXPECT_EQ(jf_test::same_results(g, h, 32), "");
  }
  {
    graph g = unary_graph(dtype::int32);
    const node_id same = g.add_cast(dtype::int32, 0);
    const node_id wide = g.add_cast(dtype::float64, same);
    const node_id back = g.add_cast(dtype::int32, wide);       // exact round trip
    const node_id narrow = g.add_cast(dtype::float32, back);   // int32 -> float32 rounds
    const node_id back2 = g.add_cast(dtype::int32, narrow);    // so this must stay
    g.add_output(back2, layout::contiguous);
    const graph h = simplified(g);
    EXPECT_EQ(count(h, op::cast), 2) << h.to_string();
    EXPECT_EQ(jf_test::same_results(g, h, 33), "");
  }
}

TEST(Simplify, Where) {
  graph g;
  const node_id c = g.add_input(dtype::bool_, layout::contiguous);
  const node_id x = g.add_input(dtype::float64, layout::contiguous);
  const node_id y = g.add_input(dtype::float64, layout::contiguous);
  g.add_output(g.add_op(op::where, dtype::float64, {c, x, x}), layout::contiguous);
  const node_id t = g.add_constant(dtype::bool_, iv(0));
  g.add_output(g.add_op(op::where, dtype::float64, {t, x, y}), layout::contiguous);
  g.add_output(g.add_op(op::where, dtype::float64, {c, x, y}), layout::contiguous);
  const graph h = simplified(g);
  EXPECT_EQ(count(h, op::where), 1);
  EXPECT_EQ(jf_test::same_results(g, h, 41), "");
}

// ---- dead code ----------------------------------------------------------------------------------
TEST(DeadCode, RemovesUnreachableKeepsAbi) {
  graph g;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  const node_id b = g.add_input(dtype::float64, layout::strided);
  g.add_param(dtype::int32);
  const node_id dead = g.add_op(op::sin, dtype::float64, {b});
  (void)dead;
  const node_id live = g.add_op(op::cos, dtype::float64, {a});
  g.add_output(live, layout::contiguous);
  const graph h = apply_checked(g, ir::remove_dead_code);
  ASSERT_EQ(h.nodes.size(), 2u);
  EXPECT_EQ(h.nodes[0].code, op::input);
  EXPECT_EQ(h.nodes[1].code, op::cos);
  EXPECT_EQ(h.nodes[1].args[0], 0);
  EXPECT_EQ(h.outputs[0].value, 1);
  EXPECT_EQ(h.inputs.size(), 2u);  // the ABI stays
  EXPECT_EQ(h.params.size(), 1u);
  EXPECT_EQ(ir::num_strided(h), 1);
}

// ---- optimize -----------------------------------------------------------------------------------
TEST(Optimize, QuadraticFormulaStyle) {
  // (-b + sqrt(b**2 - 4*a*c)) / (2*a), with 2 and 4 constants and a repeated b**2.
  graph g;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  const node_id b = g.add_input(dtype::float64, layout::contiguous);
  const node_id c = g.add_input(dtype::float64, layout::scalar);
  const node_id two = g.add_constant(dtype::float64, fv(2.0));
  const node_id four = g.add_constant(dtype::float64, fv(4.0));
  const node_id b2 = g.add_op(op::power, dtype::float64, {b, two});
  const node_id b2again = g.add_op(op::power, dtype::float64, {b, g.add_constant(dtype::float64, fv(2.0))});
  const node_id fa = g.add_op(op::multiply, dtype::float64, {four, a});
  const node_id fac = g.add_op(op::multiply, dtype::float64, {fa, c});
  const node_id d = g.add_op(op::subtract, dtype::float64, {b2, fac});
  const node_id sq = g.add_op(op::sqrt, dtype::float64, {d});
  const node_id nb = g.add_op(op::negative, dtype::float64, {b});
  const node_id num = g.add_op(op::add, dtype::float64, {nb, sq});
  const node_id den = g.add_op(op::multiply, dtype::float64, {two, a});
  const node_id r = g.add_op(op::true_divide, dtype::float64, {num, den});
  g.add_output(r, layout::contiguous);
  g.add_output(b2again, layout::contiguous);
  graph h = g;
  ir::optimize(h, {});
  EXPECT_EQ(count(h, op::power), 0);
  EXPECT_EQ(count(h, op::constant), 2);
  EXPECT_EQ(h.outputs[1].value, h.nodes[static_cast<std::size_t>(h.outputs[1].value)].code == op::multiply ? h.outputs[1].value : -2);
  EXPECT_EQ(jf_test::same_results(g, h, 51), "");
  graph again = h;
  ir::optimize(again, {});
  EXPECT_EQ(again.to_string(), h.to_string());  // a fixed point
}

TEST(Optimize, ConstantSubgraphFoldsAway) {
  graph g;
  const node_id x = g.add_input(dtype::int64, layout::contiguous);
  const node_id c3 = g.add_constant(dtype::int64, iv(3));
  const node_id c2 = g.add_constant(dtype::int64, iv(2));
  const node_id p = g.add_op(op::power, dtype::int64, {c3, c2});  // 9
  const node_id s = g.add_op(op::subtract, dtype::int64, {p, g.add_constant(dtype::int64, iv(8))});  // 1
  g.add_output(g.add_op(op::multiply, dtype::int64, {x, s}), layout::contiguous);
  graph h = g;
  ir::optimize(h, {});
  EXPECT_EQ(h.nodes.size(), 1u) << h.to_string();
  EXPECT_EQ(h.outputs[0].value, 0);
  EXPECT_EQ(jf_test::same_results(g, h, 52), "");
}

TEST(Optimize, RandomGraphsKeepResults) {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 300; ++trial) {
    const graph g = jf_test::random_graph(rng, 3 + trial % 12);
    ASSERT_NO_THROW(g.validate()) << g.to_string();
    for (bool fast : {false}) {
      graph h = g;
      ASSERT_NO_THROW(ir::optimize(h, ir::pass_options{fast})) << g.to_string();
      EXPECT_LE(h.nodes.size(), g.nodes.size() + 8);
      const std::string d = jf_test::same_results(g, h, static_cast<std::uint64_t>(trial));
      EXPECT_EQ(d, "") << "before:\n" << g.to_string() << "after:\n" << h.to_string();
      if (!d.empty()) return;
    }
  }
}

TEST(Optimize, RejectsInvalidGraph) {
  graph g;
  const node_id a = g.add_input(dtype::float32, layout::contiguous);
  const node_id b = g.add_input(dtype::float64, layout::contiguous);
  g.add_output(g.add_op(op::add, dtype::float64, {a, b}), layout::contiguous);
  EXPECT_THROW(ir::optimize(g, {}), jf::error);
}

// ---- make_plan ----------------------------------------------------------------------------------
namespace {

// Runs a plan over simulated memory: in-place outputs ARE their input's buffer.
std::vector<jf_test::column> run_plan(const graph& g, const ir::plan& p, const jf_test::sample& s) {
  std::vector<jf_test::column> inputs = s.inputs;
  std::vector<jf_test::column> outputs(g.outputs.size(), jf_test::column(s.n));
  std::vector<jf_test::column> temps(p.temporaries.size(), jf_test::column(s.n));
  auto buffer = [&](const ir::operand_ref& r) -> jf_test::column& {
    switch (r.k) {
    case ir::operand_ref::kind::input: return inputs.at(static_cast<std::size_t>(r.index));
    case ir::operand_ref::kind::temporary: return temps.at(static_cast<std::size_t>(r.index));
    default: {
      const auto& o = g.outputs.at(static_cast<std::size_t>(r.index));
      return o.same_as_input >= 0 ? inputs.at(static_cast<std::size_t>(o.same_as_input))
                                  : outputs.at(static_cast<std::size_t>(r.index));
    }
    }
  };
  for (const ir::plan_step& st : p.steps) {
    std::vector<jf_test::column> in;
    for (const auto& r : st.inputs) in.push_back(buffer(r));
    std::vector<scalar_value> params;
    for (auto k : st.params) params.push_back(s.params.at(static_cast<std::size_t>(k)));
    const auto res = jf_test::run(st.kernel, s.n, in, params);
    for (std::size_t o = 0; o < st.outputs.size(); ++o) buffer(st.outputs[o]) = res[o];
  }
  std::vector<jf_test::column> result;
  for (std::size_t o = 0; o < g.outputs.size(); ++o)
    result.push_back(buffer({ir::operand_ref::kind::output, static_cast<std::int32_t>(o)}));
  return result;
}

void check_plan(const graph& g, ir::fusion_mode mode, std::uint64_t seed) {
  const ir::plan p = ir::make_plan(g, mode);
  std::mt19937_64 rng(seed);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{333}}) {
    const jf_test::sample s = jf_test::random_sample(g, n, rng);
    const auto expected = jf_test::run(g, n, s.inputs, s.params);
    EXPECT_EQ(jf_test::compare(g, expected, run_plan(g, p, s)), "") << g.to_string();
  }
  for (const auto& st : p.steps) {
    EXPECT_NO_THROW(st.kernel.validate());
    EXPECT_EQ(st.kernel.inputs.size(), st.inputs.size());
    EXPECT_EQ(st.kernel.params.size(), st.params.size());
    EXPECT_EQ(st.kernel.outputs.size(), st.outputs.size());
    for (std::size_t k = 0; k < st.params.size(); ++k)
      EXPECT_EQ(st.kernel.params[k], g.params.at(static_cast<std::size_t>(st.params[k])));
    if (mode == ir::fusion_mode::unfused) {
      int ops = 0;
      for (const auto& nd : st.kernel.nodes) ops += nd.code != op::input && nd.code != op::param && nd.code != op::constant;
      EXPECT_LE(ops, 1);
      for (std::size_t k = 0; k < st.inputs.size(); ++k)
        if (st.inputs[k].k == ir::operand_ref::kind::temporary) {
          EXPECT_EQ(st.kernel.inputs[k].lay, layout::contiguous);
        }
    }
  }
}

}  // namespace

TEST(Plan, FusedIsOneStep) {
  graph g;
  const node_id a = g.add_input(dtype::float32, layout::strided);
  const node_id p = g.add_param(dtype::float32);
  g.add_output(g.add_op(op::multiply, dtype::float32, {a, p}), layout::contiguous);
  g.add_output(a, layout::strided);
  const ir::plan pl = ir::make_plan(g, ir::fusion_mode::fused);
  ASSERT_EQ(pl.steps.size(), 1u);
  EXPECT_EQ(pl.steps[0].kernel.to_string(), g.to_string());
  EXPECT_TRUE(pl.temporaries.empty());
  check_plan(g, ir::fusion_mode::fused, 61);
}

TEST(Plan, UnfusedOneStepPerOperation) {
  graph g;
  const node_id a = g.add_input(dtype::float32, layout::strided);
  const node_id b = g.add_input(dtype::int32, layout::scalar);
  const node_id p = g.add_param(dtype::float64);
  const node_id af = g.add_cast(dtype::float64, a);
  const node_id bf = g.add_cast(dtype::float64, b);
  const node_id m = g.add_op(op::multiply, dtype::float64, {af, bf});
  const node_id s = g.add_op(op::add, dtype::float64, {m, p});
  const node_id e = g.add_op(op::exp, dtype::float64, {s});
  const node_id h = g.add_op(op::hypot, dtype::float64, {e, g.add_constant(dtype::float64, fv(3.0))});
  g.add_output(h, layout::contiguous);
  g.add_output(m, layout::strided);
  g.add_output(h, layout::contiguous);
  g.add_output(b, layout::contiguous);  // a copy step
  g.add_output(p, layout::contiguous);  // a copy step
  const ir::plan pl = ir::make_plan(g, ir::fusion_mode::unfused);
  EXPECT_EQ(pl.steps.size(), 6u + 2u);
  EXPECT_EQ(pl.steps[5].outputs.size(), 2u);  // hypot writes both of its outputs
  EXPECT_EQ(pl.temporaries.size(), 4u);       // af, bf, s, e (m lives in output 1)
  check_plan(g, ir::fusion_mode::unfused, 62);
}

TEST(Plan, InPlaceOutputsAreWrittenLast) {
  // a, b = b + a, a (both in place): every step must read the old values.
  graph g;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  const node_id b = g.add_input(dtype::float64, layout::contiguous);
  const node_id s = g.add_op(op::add, dtype::float64, {b, a});
  const node_id t = g.add_op(op::multiply, dtype::float64, {s, a});
  g.add_output(s, layout::contiguous, 0);
  g.add_output(a, layout::contiguous, 1);
  g.add_output(t, layout::contiguous);
  check_plan(g, ir::fusion_mode::unfused, 63);
  // Swap.
  graph w;
  const node_id x = w.add_input(dtype::int64, layout::contiguous);
  const node_id y = w.add_input(dtype::int64, layout::contiguous);
  w.add_output(y, layout::contiguous, 0);
  w.add_output(x, layout::contiguous, 1);
  check_plan(w, ir::fusion_mode::unfused, 64);
  check_plan(w, ir::fusion_mode::fused, 65);
}

TEST(Plan, RandomGraphsUnfusedMatch) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 100; ++trial) {
    graph g = jf_test::random_graph(rng, 2 + trial % 8);
    if (trial % 2) ir::optimize(g, {});
    check_plan(g, ir::fusion_mode::unfused, static_cast<std::uint64_t>(trial));
    if (HasFailure()) return;
  }
}

TEST(Plan, VectorWidthFitsEachStep) {
  graph g;
  g.vector_width = 4;
  const node_id a = g.add_input(dtype::float32, layout::contiguous);
  const node_id d = g.add_cast(dtype::float64, a);
  const node_id e = g.add_op(op::exp, dtype::float64, {d});
  g.add_output(g.add_cast(dtype::float32, e), layout::contiguous);
  const ir::plan pl = ir::make_plan(g, ir::fusion_mode::unfused);
  ASSERT_EQ(pl.steps.size(), 3u);
  EXPECT_EQ(pl.steps[0].kernel.vector_width, 2);  // f32 -> f64 temporary
  EXPECT_EQ(pl.steps[1].kernel.vector_width, 2);
  EXPECT_EQ(pl.steps[2].kernel.vector_width, 2);
  check_plan(g, ir::fusion_mode::unfused, 66);
}
