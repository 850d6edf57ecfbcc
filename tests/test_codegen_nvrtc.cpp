// Every generated kernel compiles with NVRTC (sm_90 cubins; PTX without a GPU, nvrtc_units.hpp):
// every operation at every dtype it accepts, every cast, and the layouts (contiguous / strided /
// broadcast scalar), vector widths 1/2/4, int and long long indices. NVRTC needs no GPU. To stay
// fast, kernels are compiled in batches: one translation unit with the prelude once and many
// kernels (each has its own struct and name).
#include <gtest/gtest.h>

#ifdef JF_HAVE_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/ir/passes.hpp"
#include "nvrtc_units.hpp"

using namespace jf;
using jf::ir::graph;
using jf::ir::layout;
using jf::ir::node_id;
using jf::ir::scalar_value;

namespace {

struct variant {
  int ndim = 1;
  layout lay0 = layout::contiguous;
  layout lay1 = layout::contiguous;
  layout out_lay = layout::contiguous;
  int width = 1;
  bool index32 = false;
};

// The largest vector width <= w valid for operands of these dtypes (16-byte vectors).
int fit_width(int w, std::initializer_list<dtype> ts) {
  for (dtype t : ts)
    while (w > 1 && w * size_of(t) > 16) w /= 2;
  return w;
}

struct batch {
  std::vector<std::string> names;
  std::string source;  // the kernels, without the prelude
  std::set<std::string> seen;
  std::vector<std::string> full;  // each kernel's full source, for error reports

  void add(const graph& g, const ir::codegen_options& opt = {}) {
    const ir::kernel_source k = ir::generate_cuda(g, opt);
    if (!seen.insert(k.name).second) return;
    ASSERT_EQ(k.source.compare(0, ir::scalar_ops_source().size(), ir::scalar_ops_source()), 0);
    names.push_back(k.name);
    source += k.source.substr(ir::scalar_ops_source().size());
    full.push_back(k.source);
  }

  // Compiles in chunks; on failure compiles the chunk's kernels one by one to name the culprit.
  void compile(const cuda_rt::compile_options& opt = {}, std::size_t chunk = 60) {
    std::vector<std::string> parts;
    {
      // Split `source` back per kernel: each part starts with its header comment.
      const std::string marker = "\n// ---- jetfuse kernel ";
      std::size_t at = 0;
      while (at < source.size()) {
        std::size_t next = source.find(marker, at + 1);
        if (next == std::string::npos) next = source.size();
        parts.push_back(source.substr(at, next - at));
        at = next;
      }
    }
    ASSERT_EQ(parts.size(), names.size());
    for (std::size_t first = 0; first < parts.size(); first += chunk) {
      const std::size_t last = std::min(parts.size(), first + chunk);
      std::string tu(ir::scalar_ops_source());
      for (std::size_t k = first; k < last; ++k) tu += parts[k];
      try {
        const std::string bytes = test_support::nvrtc_unit(tu, opt);  // cubin, or PTX without a GPU
        ASSERT_FALSE(bytes.empty());
        for (std::size_t k = first; k < last; ++k)
          EXPECT_NE(bytes.find(names[k]), std::string::npos) << "kernel " << names[k] << " missing from the unit";
      } catch (const jf::compile_error&) {
        for (std::size_t k = first; k < last; ++k) {
          try {
            cuda_rt::nvrtc_compile(full[k], "sm_90", opt);
          } catch (const jf::compile_error& e) {
            ADD_FAILURE() << e.what();
            return;
          }
        }
        ADD_FAILURE() << "the batch failed but every kernel compiles alone";
      }
    }
  }
};

graph make(const variant& v) {
  graph g;
  g.ndim = v.ndim;
  g.index32 = v.index32;
  g.vector_width = v.width;
  return g;
}

// One op on inputs of its compute dtype t, in variant v.
graph op_graph(op code, int arity, op_rule rule, dtype t, const variant& v) {
  graph g = make(v);
  const node_id x = g.add_input(t, v.lay0);
  if (code == op::where) {
    const node_id c = g.add_input(dtype::bool_, v.lay1);
    const node_id y = g.add_param(t);
    g.add_output(g.add_op(code, t, {c, x, y}), v.out_lay);
  } else if (arity == 1) {
    g.add_output(g.add_op(code, result_dtype(rule, t), {x}), v.out_lay);
  } else {
    const node_id y = g.add_input(t, v.lay1);
    g.add_output(g.add_op(code, result_dtype(rule, t), {x, y}), v.out_lay);
  }
  return g;
}

const variant variants[] = {
    {1, layout::contiguous, layout::contiguous, layout::contiguous, 1, false},
    {1, layout::contiguous, layout::scalar, layout::contiguous, 2, true},
    {2, layout::strided, layout::contiguous, layout::contiguous, 1, true},
    {3, layout::scalar, layout::strided, layout::strided, 1, false},
    {1, layout::contiguous, layout::contiguous, layout::contiguous, 4, false},
    {2, layout::contiguous, layout::strided, layout::strided, 1, true},
};

}  // namespace

TEST(CodegenNvrtc, EveryOpAndDtype) {
  struct entry {
    op code;
    int arity;
    op_rule rule;
  };
  std::vector<entry> table;
  for (op o : elementwise_ops) table.push_back({o, info(o).arity, info(o).rule});
  batch b;
  int count = 0;
  for (const entry& e : table) {
    for (int d = 0; d < num_dtypes; ++d) {
      const auto t = static_cast<dtype>(d);
      if (!accepts(e.rule, t) || compute_dtype(e.rule, t) != t) continue;
      // A layout variant per (op, dtype), rotating so every op sees several.
      variant v = variants[static_cast<std::size_t>(count++) % std::size(variants)];
      const dtype out_t = result_dtype(e.rule, t);
      v.width = fit_width(v.width, {t, out_t});
      b.add(op_graph(e.code, e.arity, e.rule, t, v));
    }
  }
  EXPECT_GT(count, 150);
  b.compile();
}

TEST(CodegenNvrtc, EveryCast) {
  batch b;
  for (int f = 0; f < num_dtypes; ++f)
    for (int t = 0; t < num_dtypes; ++t) {
      const auto from = static_cast<dtype>(f), to = static_cast<dtype>(t);
      variant v = variants[static_cast<std::size_t>(f * num_dtypes + t) % std::size(variants)];
      v.width = fit_width(v.width, {from, to});
      graph g = make(v);
      const node_id x = g.add_input(from, v.lay0);
      g.add_output(g.add_cast(to, x), v.out_lay);
      b.add(g);
    }
  b.compile();
}

TEST(CodegenNvrtc, LayoutsWidthsAndIndexTypes) {
  batch b;
  const layout lays[] = {layout::contiguous, layout::strided, layout::scalar};
  for (dtype t : {dtype::float64, dtype::float32, dtype::int32, dtype::bool_})
    for (layout l0 : lays)
      for (layout l1 : lays)
        for (layout lo : {layout::contiguous, layout::strided})
          for (int w : {1, 2, 4})
            for (bool i32 : {false, true})
              for (int ndim : {1, 2, 3}) {
                if (ndim == 2 && t != dtype::float64) continue;  // the row loop without a middle axis
                const bool strided = l0 == layout::strided || l1 == layout::strided || lo == layout::strided;
                if (w > 1 && (strided || fit_width(w, {t}) != w)) continue;
                const variant v{ndim, l0, l1, lo, w, i32};
                b.add(op_graph(op::add, 2, op_rule::same, t, v));
                if (t == dtype::float64 && ndim == 1) b.add(op_graph(op::where, 3, op_rule::select, t, v));
              }
  // Several outputs, one of them in place, a param and constants of every dtype.
  for (int w : {1, 2}) {
    graph g;
    g.vector_width = w;
    const node_id x = g.add_input(dtype::float64, layout::contiguous);
    const node_id s = g.add_input(dtype::float32, layout::scalar);
    const node_id p = g.add_param(dtype::int64);
    const node_id xf = g.add_op(op::multiply, dtype::float64, {x, g.add_cast(dtype::float64, s)});
    const node_id inf = g.add_constant(dtype::float64, scalar_value{1.0 / 0.0 * (w == 1 ? 1 : -1), 0});
    const node_id nan = g.add_constant(dtype::float32, scalar_value{std::nan(""), 0});
    const node_id y = g.add_op(op::fmin, dtype::float64, {xf, inf});
    const node_id z = g.add_op(op::add, dtype::float32, {s, nan});
    const node_id q = g.add_op(op::remainder, dtype::int64,
                               {p, g.add_constant(dtype::int64, scalar_value{0, INT64_MIN})});
    const node_id k = g.add_op(op::bitwise_xor, dtype::int32,
                               {g.add_cast(dtype::int32, q), g.add_constant(dtype::int32, scalar_value{0, -2147483647 - 1})});
    const node_id bb = g.add_op(op::logical_or, dtype::bool_, {g.add_cast(dtype::bool_, k), g.add_constant(dtype::bool_, scalar_value{0, 1})});
    g.add_output(y, layout::contiguous, 0);
    g.add_output(z, layout::contiguous);
    g.add_output(k, layout::contiguous);
    g.add_output(bb, layout::contiguous);
    g.add_output(p, layout::contiguous);
    b.add(g);
  }
  EXPECT_GT(b.names.size(), 100u);
  b.compile();
}

TEST(CodegenNvrtc, OptimizedGraphsAndFastMath) {
  batch b;
  for (dtype t : {dtype::float32, dtype::float64, dtype::int32, dtype::int64}) {
    for (std::int64_t e : {0, 1, 2, 3, 7, 16}) {
      graph g;
      const node_id x = g.add_input(t, layout::contiguous);
      g.add_output(g.add_op(op::power, t, {x, g.add_constant(t, scalar_value::of(t, static_cast<double>(e)))}),
                   layout::contiguous);
      graph h = g;
      ir::optimize(h, ir::pass_options{true});
      b.add(h, {true});
      // Unfused plans: each step is a kernel of its own.
      for (const auto& st : ir::make_plan(g, ir::fusion_mode::unfused).steps) b.add(st.kernel);
    }
  }
  b.compile({true});
}

TEST(CodegenNvrtc, ReportsCompileErrors) {
  EXPECT_THROW(cuda_rt::nvrtc_compile("extern \"C\" __global__ void broken( { }", "sm_90", {}), jf::compile_error);
}

#else

TEST(CodegenNvrtc, Skipped) { GTEST_SKIP() << "built without CUDA"; }

#endif
