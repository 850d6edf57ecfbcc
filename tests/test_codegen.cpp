// The structure of generated CUDA sources (compiling them is test_codegen_nvrtc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>

#include "jetfuse/errors.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/ir/passes.hpp"

using namespace jf;
using jf::ir::graph;
using jf::ir::layout;
using jf::ir::node_id;
using jf::ir::scalar_value;

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The generated part, after the prelude.
std::string kernel_part(const ir::kernel_source& k) {
  EXPECT_EQ(k.source.compare(0, ir::scalar_ops_source().size(), ir::scalar_ops_source()), 0);
  return k.source.substr(ir::scalar_ops_source().size());
}

graph square_graph(dtype t, layout l = layout::contiguous) {
  graph g;
  const node_id x = g.add_input(t, l);
  g.add_output(g.add_op(op::power, t, {x, g.add_constant(t, scalar_value::of(t, 2))}), layout::contiguous);
  return g;
}

}  // namespace

TEST(Codegen, CudaTypes) {
  EXPECT_EQ(ir::cuda_type(dtype::bool_), "bool");
  EXPECT_EQ(ir::cuda_type(dtype::int32), "int");
  EXPECT_EQ(ir::cuda_type(dtype::int64), "long long");
  EXPECT_EQ(ir::cuda_type(dtype::float32), "float");
  EXPECT_EQ(ir::cuda_type(dtype::float64), "double");
  EXPECT_TRUE(has(std::string(ir::scalar_ops_source()), "jf_power"));
}

TEST(Codegen, SquareBecomesMultiplyAfterOptimize) {
  graph g = square_graph(dtype::float64);
  const std::string before = kernel_part(ir::generate_cuda(g));
  EXPECT_TRUE(has(before, "jf::ops::jf_power(v0, v1)")) << before;
  ir::optimize(g, {});
  const ir::kernel_source k = ir::generate_cuda(g);
  const std::string src = kernel_part(k);
  EXPECT_FALSE(has(src, "pow")) << src;
  EXPECT_TRUE(has(src, "const double v1 = jf::ops::jf_multiply(v0, v0);")) << src;
  EXPECT_TRUE(has(src, "out0[i] = v1;")) << src;
  EXPECT_TRUE(has(src, "extern \"C\" __global__ void " + k.name + "(const " + k.name + "_args a)")) << src;
  EXPECT_TRUE(std::regex_match(k.name, std::regex("jf_[0-9a-f]{16}_multiply"))) << k.name;
}

TEST(Codegen, ArgumentStructSlots) {
  graph g;
  g.ndim = 3;
  const node_id a = g.add_input(dtype::float32, layout::strided);
  const node_id b = g.add_input(dtype::bool_, layout::scalar);
  const node_id c = g.add_input(dtype::int64, layout::contiguous);
  const node_id p = g.add_param(dtype::bool_);
  const node_id q = g.add_param(dtype::float32);
  const node_id cond = g.add_op(op::logical_and, dtype::bool_, {b, p});
  const node_id cf = g.add_cast(dtype::float32, c);
  const node_id w = g.add_op(op::where, dtype::float32, {cond, a, cf});
  g.add_output(g.add_op(op::multiply, dtype::float32, {w, q}), layout::strided);
  g.add_output(cond, layout::contiguous);
  const ir::kernel_source k = ir::generate_cuda(g);
  const std::string src = kernel_part(k);
  // 2 outputs + 3 inputs + 2 params + n + shape[3] + 2 strided operands * 3.
  EXPECT_EQ(ir::abi_slots(g), 2 + 3 + 2 + 1 + 3 + 6);
  EXPECT_TRUE(has(src, "static_assert(sizeof(" + k.name + "_args) == 17 * 8")) << src;
  const std::string fields[] = {
      "alignas(8) float* out0;",           "alignas(8) bool* out1;",
      "alignas(8) const float* in0;",      "alignas(8) const bool* in1;",
      "alignas(8) const long long* in2;",  "alignas(8) bool p0;",
      "alignas(8) float p1;",              "alignas(8) long long n;",
      "alignas(8) long long shape[3];",    "alignas(8) long long strides_out0[3];",
      "alignas(8) long long strides_in0[3];"};
  std::size_t last = 0;
  for (const auto& f : fields) {
    const std::size_t at = src.find(f);
    ASSERT_NE(at, std::string::npos) << f << "\n" << src;
    EXPECT_GT(at, last) << "field order: " << f;
    last = at;
  }
  // Broadcast scalar loaded once, before the loop; params read from the struct.
  const std::size_t loop = src.find("for (I i = start");
  ASSERT_NE(loop, std::string::npos);
  EXPECT_LT(src.find("const bool v1 = in1[0];"), loop) << src;
  EXPECT_LT(src.find("const bool v3 = a.p0;"), loop) << src;
  // One unravel shared by the strided operands, last axis fastest.
  EXPECT_TRUE(has(src, "const I c2 = r % shape2;")) << src;
  EXPECT_TRUE(has(src, "const I o_out0 = c0 * st_out0_0 + c1 * st_out0_1 + c2 * st_out0_2;")) << src;
  EXPECT_TRUE(has(src, "const float v0 = in0[o_in0];")) << src;
  EXPECT_TRUE(has(src, "out0[o_out0] = v")) << src;
  EXPECT_TRUE(has(src, "out1[i] = v5;")) << src;
  EXPECT_TRUE(has(src, "jf::ops::jf_cast<float>(v2)")) << src;
  EXPECT_TRUE(has(src, "//   %7 = where f32 %5, %0, %6")) << src;  // the IR in the header
  EXPECT_FALSE(has(src, "jf_vec")) << src;
  EXPECT_TRUE(has(src, "using I = long long;"));
}

TEST(Codegen, IndexTypeAndVectorPath) {
  graph g;
  const node_id x = g.add_input(dtype::float32, layout::contiguous);
  const node_id s = g.add_input(dtype::float32, layout::scalar);
  g.add_output(g.add_op(op::add, dtype::float32, {x, s}), layout::contiguous);
  g.index32 = true;
  g.vector_width = 4;
  const std::string src = kernel_part(ir::generate_cuda(g));
  EXPECT_TRUE(has(src, "using I = int;")) << src;
  EXPECT_TRUE(has(src, "struct alignas(sizeof(T) * W) jf_vec")) << src;
  EXPECT_TRUE(has(src, "const I nv = n / 4;")) << src;
  EXPECT_TRUE(has(src, "const jf_vec<float, 4> x_in0 = reinterpret_cast<const jf_vec<float, 4>*>(in0)[j];")) << src;
  EXPECT_TRUE(has(src, "reinterpret_cast<jf_vec<float, 4>*>(out0)[j] = y_out0;")) << src;
  EXPECT_TRUE(has(src, "for (I i = nv * 4 + start; i < n;")) << src;  // the tail
  EXPECT_FALSE(has(src, "x_in1")) << src;                              // the scalar is not a vector
  g.vector_width = 1;
  g.index32 = false;
  const std::string plain = kernel_part(ir::generate_cuda(g));
  EXPECT_FALSE(has(plain, "jf_vec")) << plain;
  EXPECT_TRUE(has(plain, "for (I i = start; i < n; i += step)")) << plain;
}

TEST(Codegen, RestrictDroppedWhenAliased) {
  graph g;
  const node_id x = g.add_input(dtype::float64, layout::contiguous);
  const node_id y = g.add_input(dtype::float64, layout::contiguous);
  g.add_output(g.add_op(op::add, dtype::float64, {x, y}), layout::contiguous);
  const std::string plain = kernel_part(ir::generate_cuda(g));
  EXPECT_TRUE(has(plain, "double* __restrict__ out0 = a.out0;")) << plain;
  EXPECT_TRUE(has(plain, "const double* __restrict__ in0 = a.in0;")) << plain;
  g.outputs[0].same_as_input = 0;
  const std::string aliased = kernel_part(ir::generate_cuda(g));
  EXPECT_TRUE(has(aliased, "double* out0 = a.out0;")) << aliased;
  EXPECT_TRUE(has(aliased, "const double* in0 = a.in0;")) << aliased;
  EXPECT_TRUE(has(aliased, "const double* __restrict__ in1 = a.in1;")) << aliased;
}

TEST(Codegen, ExactLiterals) {
  graph g;
  const node_id x = g.add_input(dtype::float64, layout::contiguous);
  const node_id xf = g.add_input(dtype::float32, layout::contiguous);
  const node_id xi = g.add_input(dtype::int64, layout::contiguous);
  const node_id xj = g.add_input(dtype::int32, layout::contiguous);
  const double vals[] = {0.1, -0.0, std::numeric_limits<double>::infinity(), std::nan(""), 5e-324};
  node_id acc = x;
  for (double v : vals) acc = g.add_op(op::add, dtype::float64, {acc, g.add_constant(dtype::float64, scalar_value{v, 0})});
  g.add_output(acc, layout::contiguous);
  g.add_output(g.add_op(op::multiply, dtype::float32, {xf, g.add_constant(dtype::float32, scalar_value::of(dtype::float32, 0.1))}),
               layout::contiguous);
  g.add_output(g.add_op(op::add, dtype::int64, {xi, g.add_constant(dtype::int64, scalar_value{0, INT64_MIN})}), layout::contiguous);
  g.add_output(g.add_op(op::add, dtype::int32, {xj, g.add_constant(dtype::int32, scalar_value{0, -5})}), layout::contiguous);
  const std::string src = kernel_part(ir::generate_cuda(g));
  EXPECT_TRUE(has(src, "= 0x1.999999999999ap-4;")) << src;
  EXPECT_TRUE(has(src, "= -0x0p+0;")) << src;
  EXPECT_TRUE(has(src, "__longlong_as_double(static_cast<long long>(0x7ff0000000000000ull))")) << src;
  EXPECT_TRUE(has(src, "__longlong_as_double(static_cast<long long>(0x7ff8000000000000ull))")) << src;
  EXPECT_TRUE(has(src, "= 0x0.0000000000001p-1022;")) << src;
  EXPECT_TRUE(has(src, "= 0x1.99999ap-4f;")) << src;
  EXPECT_TRUE(has(src, "(-9223372036854775807LL - 1)")) << src;
  EXPECT_TRUE(has(src, "const int v") && has(src, " = -5;")) << src;
}

TEST(Codegen, NamesAreDeterministicAndDistinct) {
  const graph a = square_graph(dtype::float64);
  const graph b = square_graph(dtype::float32);
  graph c = square_graph(dtype::float64);
  c.nodes[1].value.f = 3.0;
  EXPECT_EQ(ir::generate_cuda(a).name, ir::generate_cuda(square_graph(dtype::float64)).name);
  EXPECT_EQ(ir::generate_cuda(a).source, ir::generate_cuda(square_graph(dtype::float64)).source);
  EXPECT_NE(ir::generate_cuda(a).name, ir::generate_cuda(b).name);
  EXPECT_NE(ir::generate_cuda(a).name, ir::generate_cuda(c).name);
  EXPECT_NE(ir::generate_cuda(a).name, ir::generate_cuda(a, {true}).name);
  graph d = square_graph(dtype::float64, layout::strided);
  EXPECT_NE(ir::generate_cuda(a).name, ir::generate_cuda(d).name);
}

TEST(Codegen, InvalidGraphThrows) {
  graph g;
  const node_id a = g.add_input(dtype::int32, layout::contiguous);
  g.add_output(g.add_op(op::exp, dtype::int32, {a}), layout::contiguous);
  EXPECT_THROW(ir::generate_cuda(g), jf::error);
}
