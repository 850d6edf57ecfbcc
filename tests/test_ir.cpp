// jf::ir::graph: builders, the listing, scalar_value::of and the invariant checker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "jetfuse/errors.hpp"
#include "jetfuse/ir/graph.hpp"

using namespace jf;
using jf::ir::graph;
using jf::ir::layout;
using jf::ir::node_id;
using jf::ir::scalar_value;

TEST(IrGraph, BuildersAndListing) {
  graph g;
  g.ndim = 2;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  const node_id b = g.add_input(dtype::int32, layout::strided);
  const node_id p = g.add_param(dtype::float64);
  const node_id c = g.add_constant(dtype::float64, scalar_value{2.5, 0});
  const node_id bf = g.add_cast(dtype::float64, b);
  const node_id m = g.add_op(op::multiply, dtype::float64, {a, bf});
  const node_id s = g.add_op(op::add, dtype::float64, {m, p});
  const node_id l = g.add_op(op::less, dtype::bool_, {s, c});
  g.add_output(s, layout::contiguous);
  g.add_output(l, layout::strided, -1);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(l, 7);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(b)].index, 1);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(p)].index, 0);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(m)].nargs, 2);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(m)].args[2], ir::no_node);
  EXPECT_EQ(g.outputs[1].desc.type, dtype::bool_);
  EXPECT_NO_THROW(g.validate());
  EXPECT_EQ(g.to_string(),
            "graph ndim=2 index=int64 vector_width=1\n"
            "%0 = input #0 f64 contiguous\n"
            "%1 = input #1 i32 strided\n"
            "%2 = param #0 f64\n"
            "%3 = constant f64 2.5\n"
            "%4 = cast f64 %1\n"
            "%5 = multiply f64 %0, %4\n"
            "%6 = add f64 %5, %2\n"
            "%7 = less bool %6, %3\n"
            "out #0 <- %6 (f64, contiguous)\n"
            "out #1 <- %7 (bool, strided)\n");
  EXPECT_EQ(ir::num_strided(g), 2);
  EXPECT_EQ(ir::abi_slots(g), 2 + 2 + 1 + 1 + 2 + 2 * 2);
}

// Operands of one stride class are listed with it (the kernel name hashes the listing); only
// strided operands may have one.
TEST(IrGraph, StrideClasses) {
  graph g;
  g.set_map_rank(2);
  g.index32 = true;
  const node_id a = g.add_input(dtype::float32, layout::strided);
  const node_id b = g.add_input(dtype::float32, layout::strided);
  g.inputs[0].stride_class = 0;
  g.inputs[1].stride_class = 0;
  g.add_output(g.add_op(op::add, dtype::float32, {a, b}), layout::strided);
  g.outputs[0].desc.stride_class = 0;
  EXPECT_NO_THROW(g.validate());
  const std::string listing = g.to_string();
  EXPECT_NE(listing.find("%0 = input #0 f32 strided class 0\n"), std::string::npos) << listing;
  EXPECT_NE(listing.find("out #0 <- %2 (f32, strided class 0)"), std::string::npos) << listing;
  // int indices, two axes, strided operands: the ABI ends with one divisor per axis after the first.
  EXPECT_TRUE(ir::has_unravel_divisors(g));
  EXPECT_EQ(ir::abi_slots(g), 1 + 2 + 1 + 2 + 3 * 2 + 1);
  g.index32 = false;
  EXPECT_FALSE(ir::has_unravel_divisors(g));
  EXPECT_EQ(ir::abi_slots(g), 1 + 2 + 1 + 2 + 3 * 2);
  g.inputs[1].lay = layout::contiguous;
  EXPECT_THROW(g.validate(), jf::error);
}

// unravel_divisor's magic numbers against the division they replace, evaluated as the kernel does
// (32-bit multiply-high, add, shift): every extent up to 3000, powers of two and their neighbours,
// random extents up to 2^31 - 1; numerators at the ends, near multiples, random.
TEST(IrGraph, UnravelDivisorsDivideExactly) {
  std::vector<std::int64_t> extents;
  for (std::int64_t d = 1; d <= 3000; ++d) extents.push_back(d);
  for (int b = 1; b < 31; ++b)
    for (std::int64_t e : {(std::int64_t(1) << b) - 1, std::int64_t(1) << b, (std::int64_t(1) << b) + 1})
      extents.push_back(e);
  extents.push_back((std::int64_t(1) << 31) - 1);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (int k = 0; k < 2000; ++k) extents.push_back(static_cast<std::int64_t>(next() % 0x7fffffffull) + 1);
  int failures = 0;
  for (std::int64_t d : extents) {
    const std::uint64_t slot = ir::unravel_divisor(d);
    const auto m = static_cast<std::uint32_t>(slot), l = static_cast<std::uint32_t>(slot >> 32);
    auto check = [&](std::uint32_t i) {
      const auto hi = static_cast<std::uint32_t>((std::uint64_t(i) * m) >> 32);
      const std::uint32_t q = (hi + i) >> l;
      if (q != i / d && failures++ < 5)
        ADD_FAILURE() << i << " / " << d << ": " << q << " (m " << m << ", l " << l << ")";
    };
    for (std::uint32_t i : {0u, 1u, 0x7ffffffeu, 0x7fffffffu}) check(i);
    for (int k = 0; k < 64; ++k) {
      const std::uint64_t near =
          (next() % (0x80000000ull / static_cast<std::uint64_t>(d) + 1)) * static_cast<std::uint64_t>(d);
      for (std::int64_t delta : {-1, 0, 1})
        if (static_cast<std::int64_t>(near) + delta >= 0 && static_cast<std::int64_t>(near) + delta < 0x80000000ll)
          check(static_cast<std::uint32_t>(static_cast<std::int64_t>(near) + delta));
      check(static_cast<std::uint32_t>(next() & 0x7fffffffu));
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_THROW(ir::unravel_divisor(0), jf::error);
  EXPECT_THROW(ir::unravel_divisor(std::int64_t(1) << 31), jf::error);
}

TEST(IrGraph, ScalarValueOfCastsLikeNumpy) {
  EXPECT_EQ(scalar_value::of(dtype::float32, 0.1).f, static_cast<double>(0.1f));
  EXPECT_NE(scalar_value::of(dtype::float32, 0.1).f, 0.1);
  EXPECT_EQ(scalar_value::of(dtype::float64, 0.1).f, 0.1);
  EXPECT_EQ(scalar_value::of(dtype::int32, -3.7).i, -3);
  EXPECT_EQ(scalar_value::of(dtype::int32, std::nan("")).i, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(scalar_value::of(dtype::int32, 1e10).i, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(scalar_value::of(dtype::int64, 1e10).i, 10000000000LL);
  EXPECT_EQ(scalar_value::of(dtype::bool_, 0.5).i, 1);
  EXPECT_EQ(scalar_value::of(dtype::bool_, -0.0).i, 0);
  EXPECT_TRUE(std::signbit(scalar_value::of(dtype::float64, -0.0).f));
  EXPECT_EQ(scalar_value::of(dtype::int64, 7).as_double(dtype::int64), 7.0);
}

TEST(IrGraph, ListingShowsAliasingAndFlags) {
  graph g;
  g.index32 = true;
  g.vector_width = 2;
  const node_id a = g.add_input(dtype::float64, layout::contiguous);
  g.add_output(g.add_op(op::sqrt, dtype::float64, {a}), layout::contiguous, 0);
  EXPECT_NO_THROW(g.validate());
  const std::string s = g.to_string();
  EXPECT_NE(s.find("index=int32 vector_width=2"), std::string::npos) << s;
  EXPECT_NE(s.find("out #0 <- %1 (f64, contiguous, same as input #0)"), std::string::npos) << s;
}

namespace {
graph two_inputs(dtype x, dtype y) {
  graph g;
  g.add_input(x, layout::contiguous);
  g.add_input(y, layout::contiguous);
  return g;
}
}  // namespace

TEST(IrValidate, RejectsBadGraphs) {
  {  // arguments of different dtypes: a missing cast
    graph g = two_inputs(dtype::float32, dtype::float64);
    g.add_output(g.add_op(op::add, dtype::float64, {0, 1}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // result dtype not the compute dtype
    graph g = two_inputs(dtype::float32, dtype::float32);
    g.add_output(g.add_op(op::add, dtype::float64, {0, 1}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // float function on integers (the compute dtype would be float64)
    graph g = two_inputs(dtype::int32, dtype::int32);
    g.add_output(g.add_op(op::sqrt, dtype::int32, {0}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // shift of floats
    graph g = two_inputs(dtype::float64, dtype::float64);
    g.add_output(g.add_op(op::left_shift, dtype::float64, {0, 1}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // negative of bool
    graph g = two_inputs(dtype::bool_, dtype::bool_);
    g.add_output(g.add_op(op::negative, dtype::bool_, {0}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // comparison result must be bool
    graph g = two_inputs(dtype::int64, dtype::int64);
    g.add_output(g.add_op(op::less, dtype::int64, {0, 1}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // where: condition must be bool
    graph g = two_inputs(dtype::int64, dtype::int64);
    g.add_output(g.add_op(op::where, dtype::int64, {0, 1, 1}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // wrong arity
    graph g = two_inputs(dtype::float64, dtype::float64);
    g.add_output(g.add_op(op::add, dtype::float64, {0}), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // forward reference
    graph g = two_inputs(dtype::float64, dtype::float64);
    ir::node n;
    n.code = op::exp;
    n.nargs = 1;
    n.args[0] = 5;
    g.add_output(g.add(n), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // input index out of range
    graph g;
    ir::node n;
    n.code = op::input;
    n.index = 0;
    g.add_output(g.add(n), layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // output dtype differs from its node
    graph g = two_inputs(dtype::float64, dtype::float64);
    g.add_output(0, layout::contiguous);
    g.outputs[0].desc.type = dtype::float32;
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // in place on an input of another dtype
    graph g = two_inputs(dtype::float64, dtype::float32);
    g.add_output(0, layout::contiguous, 1);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // vectors with a strided operand, and vectors wider than 16 bytes
    graph g;
    g.vector_width = 2;
    g.add_input(dtype::float64, layout::strided);
    g.add_output(0, layout::contiguous);
    EXPECT_THROW(g.validate(), jf::error);
    g.inputs[0].lay = layout::contiguous;
    EXPECT_NO_THROW(g.validate());
    g.vector_width = 4;
    EXPECT_THROW(g.validate(), jf::error);
    g.vector_width = 3;
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // scalar outputs make no sense
    graph g = two_inputs(dtype::float64, dtype::float64);
    g.add_output(0, layout::scalar);
    EXPECT_THROW(g.validate(), jf::error);
  }
  {  // the message names the node
    graph g = two_inputs(dtype::float32, dtype::float64);
    g.add_output(g.add_op(op::hypot, dtype::float64, {0, 1}), layout::contiguous);
    try {
      g.validate();
      FAIL() << "no exception";
    } catch (const jf::error& e) {
      EXPECT_NE(std::string(e.what()).find("%2"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("hypot"), std::string::npos) << e.what();
    }
  }
}

TEST(IrValidate, AcceptsEveryOpAtItsComputeDtypes) {
  struct entry {
    op code;
    int arity;
    op_rule rule;
  };
  std::vector<entry> table;
  for (op o : elementwise_ops) table.push_back({o, info(o).arity, info(o).rule});
  int accepted = 0;
  for (const entry& e : table) {
    for (int d = 0; d < num_dtypes; ++d) {
      const auto t = static_cast<dtype>(d);
      if (!accepts(e.rule, t) || compute_dtype(e.rule, t) != t) continue;
      graph g;
      const node_id x = g.add_input(t, layout::contiguous);
      const node_id c = g.add_input(dtype::bool_, layout::scalar);
      node_id v;
      if (e.code == op::where) v = g.add_op(e.code, t, {c, x, x});
      else if (e.arity == 1) v = g.add_op(e.code, result_dtype(e.rule, t), {x});
      else v = g.add_op(e.code, result_dtype(e.rule, t), {x, x});
      g.add_output(v, layout::contiguous);
      EXPECT_NO_THROW(g.validate()) << info(e.code).name << " " << name(t);
      // ... and rejects a result of the wrong dtype.
      g.nodes[static_cast<std::size_t>(v)].type = t == dtype::int32 ? dtype::int64 : dtype::int32;
      g.outputs[0].desc.type = g.nodes[static_cast<std::size_t>(v)].type;
      EXPECT_THROW(g.validate(), jf::error) << info(e.code).name << " " << name(t);
      ++accepted;
    }
  }
  EXPECT_GT(accepted, 150);
}
