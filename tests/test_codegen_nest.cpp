// Code generation for loop-nest graphs (no GPU needed): which kernel shape each graph gets, the
// launch rules (grids, scratch, determinism of the configuration), and that every generated
// kernel compiles with NVRTC for sm_90 when the CUDA toolkit is present: every monoid at every
// dtype in every shape, guards, argmin/argmax, several reductions in one kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/device.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/ir/passes.hpp"
#include "jetfuse/scalar_ops.hpp"
#include "nest_graphs.hpp"
#include "test_support.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/launch_nest.hpp"
#include "cuda/runtime.hpp"
#include "nvrtc_units.hpp"
#endif

using namespace nest_test;
using jf::ir::configure_launch;
using jf::ir::device_limits;
using jf::ir::generate_cuda;
using jf::ir::kernel_shape;
using jf::ir::kernel_source;
using jf::ir::launch_config;

namespace {

const device_limits h100{132, 2048, 65535};
// The same with the H100's shared memory (227 KiB opt-in per block, 228 KiB per SM, 1 KiB reserved
// per block): the row cache of row_with_map is possible.
const device_limits h100_shared{132, 2048, 65535, 232448, 233472, 1024};

kernel_shape shape_of(const graph& g) { return generate_cuda(g).launch.shape; }

std::string describe(const graph& g) { return g.to_string(); }

// Kernels compiled together: one translation unit with the prelude once (each kernel has its own
// argument struct and name; the device helpers are guarded).
struct batch {
  std::vector<kernel_source> kernels;
  std::set<std::string> seen;

  void add(const graph& g) {
    kernel_source k;
    try {
      k = generate_cuda(g);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "generate_cuda threw: " << e.what() << "\n" << describe(g);
      return;
    }
    if (seen.insert(k.name).second) kernels.push_back(std::move(k));
  }

  // NVRTC compiles the kernels in translation units of `chunk` kernels, the units on a few threads at
  // once (NVRTC is thread-safe; one unit at a time took minutes on the GPU machine's loaded ctest):
  // cubins with a GPU, PTX without one (nvrtc_units.hpp).
  void compile([[maybe_unused]] std::size_t chunk = 40) {
#ifdef JF_HAVE_CUDA
    std::vector<std::size_t> firsts;
    for (std::size_t first = 0; first < kernels.size(); first += chunk) firsts.push_back(first);
    std::vector<std::string> failures(firsts.size());  // per unit: what went wrong, empty when fine
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t u; (u = next.fetch_add(1)) < firsts.size();) failures[u] = compile_unit(firsts[u], chunk);
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (const std::string& f : failures)
      if (!f.empty()) ADD_FAILURE() << f;
#else
    GTEST_SKIP() << "built without the CUDA toolkit: NVRTC compilation not checked";
#endif
  }

#ifdef JF_HAVE_CUDA
  std::string compile_unit(std::size_t first, std::size_t chunk) const {
    const std::size_t prelude = jf::ir::scalar_ops_source().size();
    const std::size_t last = std::min(kernels.size(), first + chunk);
    std::string tu(jf::ir::scalar_ops_source());
    for (std::size_t k = first; k < last; ++k) tu += kernels[k].source.substr(prelude);
    try {
      const std::string bytes = test_support::nvrtc_unit(tu);
      std::string missing;
      for (std::size_t k = first; k < last; ++k)
        if (bytes.find(kernels[k].name) == std::string::npos)
          missing += "kernel " + kernels[k].name + " missing from the compiled unit\n";
      return missing;
    } catch (const jf::compile_error&) {
      // Name the culprit: compile the unit's kernels one by one.
      for (std::size_t k = first; k < last; ++k) {
        try {
          jf::cuda_rt::nvrtc_compile(kernels[k].source, "sm_90", {});
        } catch (const jf::compile_error& e) {
          return "kernel " + kernels[k].name + " (" + std::string(jf::ir::name(kernels[k].launch.shape)) +
                 ") does not compile:\n" + e.what();
        }
      }
      return "the batch failed but every kernel compiles alone";
    }
  }
#endif
};

}  // namespace

// ---- shapes ---------------------------------------------------------------------------------

TEST(CodegenNest, ShapesAreRecognised) {
  EXPECT_EQ(shape_of(full(monoid::sum, dtype::float64, false)), kernel_shape::full_reduction);
  EXPECT_EQ(shape_of(full_three()), kernel_shape::full_reduction);
  EXPECT_EQ(shape_of(rows(monoid::sum, dtype::float32, false)), kernel_shape::row_reduction);
  EXPECT_EQ(shape_of(last_two_axes(dtype::float32)), kernel_shape::row_reduction);
  EXPECT_EQ(shape_of(columns(monoid::sum, dtype::float32, false)), kernel_shape::column_reduction);
  EXPECT_EQ(shape_of(middle_axis(monoid::max, dtype::int32)), kernel_shape::column_reduction);
  EXPECT_EQ(shape_of(minus_row_mean(dtype::float32, false)), kernel_shape::row_with_map);
  EXPECT_EQ(shape_of(minus_row_mean(dtype::float32, true)), kernel_shape::row_with_map);
  EXPECT_EQ(shape_of(max_of_row_sums(dtype::float64)), kernel_shape::generic_nest);
  EXPECT_EQ(shape_of(row_variance(dtype::float64)), kernel_shape::generic_nest);
}

TEST(CodegenNest, MapGraphsAreUnchanged) {
  graph g;
  const node_id x = g.add_input(dtype::float32, layout::contiguous);
  g.add_output(g.add_op(op::negative, dtype::float32, {x}), layout::contiguous);
  const kernel_source k = generate_cuda(g);
  EXPECT_EQ(k.launch.shape, kernel_shape::map);
  EXPECT_EQ(k.source.find("jf_nest"), std::string::npos);
  const std::int64_t n = 1000;
  const launch_config c = configure_launch(k, &n, 1, h100);
  EXPECT_EQ(c.grid[0], 4u);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  // Scalar maps: up to 4 waves of resident blocks; vector maps: a block per 256 vectors of the whole array.
  const std::int64_t big = 500000001;
  EXPECT_EQ(configure_launch(k, &big, 1, h100).grid[0], 132u * 8 * 4);
  g.vector_width = 4;
  const kernel_source kv = generate_cuda(g);
  EXPECT_EQ(kv.launch.vector_width, 4);
  EXPECT_EQ(configure_launch(kv, &big, 1, h100).grid[0], 488282u);  // ceil(ceil(n / 4) / 256)
}

TEST(CodegenNest, KernelNamesDependOnOutputDomains) {
  // The same nodes stored over different domains are different kernels.
  graph a = minus_row_mean(dtype::float32, true);
  graph b = a;
  b.outputs[1].domain = 0;  // (invalid as a plan, but the name must differ)
  EXPECT_NE(jf::ir::generate_cuda(a).name, jf::ir::generate_cuda(rows(monoid::sum, dtype::float32, false)).name);
  EXPECT_NE(generate_cuda(a).name, generate_cuda(minus_row_mean(dtype::float32, false)).name);
}

TEST(CodegenNest, UnsupportedGraphsThrow) {
  // A broadcast from a domain that does not enclose its own: the planner must store it first.
  graph g;
  g.ndim = 2;
  g.domains.resize(1);
  const domain_id c = g.add_box(0, {1}), ci = g.add_box(c, {0});
  const node_id x = input_at(g, dtype::float32, layout::strided, ci);
  const node_id colsum = g.add_reduce(monoid::sum, x);  // per column, in c
  const domain_id r = g.add_box(0, {0}), rc = g.add_box(r, {1});
  const node_id x2 = input_at(g, dtype::float32, layout::strided, rc);
  const node_id y = g.add_op(op::subtract, dtype::float32, {x2, g.add_broadcast(colsum, rc)});
  output_at(g, y, rc);
  EXPECT_THROW(generate_cuda(g), jf::error);
  // An in-place output of a loop nest.
  graph h = minus_row_mean(dtype::float32, false);
  h.outputs[0].same_as_input = 0;
  h.outputs[0].desc.lay = layout::contiguous;
  EXPECT_THROW(generate_cuda(h), jf::error);
}

// ---- launch rules ---------------------------------------------------------------------------

TEST(CodegenNest, FullReductionLaunch) {
  const kernel_source k = generate_cuda(full_three());
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(1) << 27}) {
    const launch_config c = configure_launch(k, &n, 1, h100);
    EXPECT_GE(c.grid[0], 1u) << "a full reduction always launches (it stores the identity for n = 0)";
    EXPECT_LE(c.grid[0], 132u * 8 * 2);
    EXPECT_EQ(c.block[0], 256u);
    // 1 counter (16 bytes), then partials: sum f64, max f64, argmin f64 + position.
    const std::size_t per = (c.grid[0] * 8 + 15) / 16 * 16;
    EXPECT_EQ(c.scratch_bytes, 16 + 4 * per) << "n = " << n;
    const launch_config again = configure_launch(k, &n, 1, h100);
    EXPECT_EQ(again.grid[0], c.grid[0]);
  }
  const std::int64_t big = std::int64_t(1) << 27;
  EXPECT_EQ(configure_launch(k, &big, 1, h100).grid[0], 132u * 8 * 2);
  EXPECT_NE(jf::ir::describe_launch(k).find("full reduction"), std::string::npos);
  // One-byte contiguous inputs: 16 elements a thread per 16-byte load first (shape_full_reduction.cpp).
  EXPECT_NE(generate_cuda(full(monoid::sum, dtype::bool_, false)).source.find("const uint4 jf_w"), std::string::npos);
  EXPECT_NE(generate_cuda(full(monoid::argmax, dtype::int8, true)).source.find("const uint4 jf_w"), std::string::npos);
  EXPECT_EQ(generate_cuda(full(monoid::sum, dtype::bool_, false, false, layout::strided)).source.find("jf_nv"),
            std::string::npos);
  EXPECT_EQ(generate_cuda(full(monoid::sum, dtype::int16, false)).source.find("jf_nv"), std::string::npos);
}

TEST(CodegenNest, RowReductionLaunch) {
  const kernel_source k = generate_cuda(rows(monoid::sum, dtype::float32, false));
  std::int64_t ext[2] = {4096, 32768};
  launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.block[1], 1u);
  EXPECT_EQ(c.grid[0], 4096u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  // A block for every row, also beyond 4 waves of resident blocks (132 SMs x 8 x 4 = 4224).
  std::int64_t many[2] = {32768, 4096};
  EXPECT_EQ(configure_launch(k, many, 2, h100).grid[0], 32768u);
  // The trip loop (8 of the row's elements a thread per trip) stays as written: NVVM's unroll slowed it.
  EXPECT_NE(k.source.find("#pragma unroll 1\n    for (; j < jf_hi - 7 * lanes;"), std::string::npos) << k.source;
  ext[1] = 33;
  c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.block[0], 32u);
  EXPECT_EQ(c.block[1], 8u);
  EXPECT_EQ(c.grid[0], 512u);
  // A warp per row: groups loop over the rows in 4 waves of resident blocks.
  std::int64_t short_rows[2] = {std::int64_t(1) << 20, 33};
  EXPECT_EQ(configure_launch(k, short_rows, 2, h100).grid[0], 132u * 8 * 4);
  ext[0] = 0;
  EXPECT_TRUE(configure_launch(k, ext, 2, h100).empty());
  // Few long rows: each row split over blockIdx.y until one wave runs (1056 blocks / 8 rows = 132
  // splits), a counter per row and 8 x 132 partials; a block per row with splits off.
  std::int64_t few[2] = {8, std::int64_t(1) << 24};
  EXPECT_NE(k.source.find("jf_splits"), std::string::npos);
  c = configure_launch(k, few, 2, h100);
  EXPECT_EQ(c.grid[0], 8u);
  EXPECT_EQ(c.grid[1], 132u);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.scratch_bytes, 32u + 8u * 132 * 4);
  EXPECT_EQ(c.scratch_zero_bytes, 32u);
  EXPECT_TRUE(c.counters_reset_by_kernel);
  EXPECT_NE(jf::ir::describe_launch(k).find("long rows split over blockIdx.y"), std::string::npos);
  EXPECT_NE(jf::ir::describe_launch(k, c).find("each row split over 132 blocks [grid 8x132x1"), std::string::npos)
      << jf::ir::describe_launch(k, c);
  std::int64_t hundred[2] = {100, 1 << 20};  // 1056 / 100: 10 splits, not 11 (a second round of 44 blocks)
  EXPECT_EQ(configure_launch(k, hundred, 2, h100).grid[1], 10u);
  std::int64_t short_few[2] = {8, 6000};  // 4096 elements a split at least: one split
  EXPECT_EQ(configure_launch(k, short_few, 2, h100).grid[1], 1u);
  std::int64_t enough[2] = {1056, 1 << 20};  // a whole wave of rows already: no split
  EXPECT_EQ(configure_launch(k, enough, 2, h100).grid[1], 1u);
  std::int64_t half_wave[2] = {600, 1 << 20};  // 600 blocks: a split more would make a second round
  EXPECT_EQ(configure_launch(k, half_wave, 2, h100).grid[1], 1u);
  // Just past whole waves (the last round of 44 or 88 blocks) and under 4 waves: about 4 waves of splits.
  std::int64_t past_wave[2] = {1100, 1 << 17};
  c = configure_launch(k, past_wave, 2, h100);
  EXPECT_EQ(c.grid[0], 1100u);
  EXPECT_EQ(c.grid[1], 4u);
  EXPECT_EQ(c.scratch_bytes, 4u * 1100 + 1100u * 4 * 4);  // counters, then 1100 x 4 partials
  std::int64_t past_two[2] = {2200, 1 << 16};
  EXPECT_EQ(configure_launch(k, past_two, 2, h100).grid[1], 2u);
  // The last round more than half full, or 4 waves and more: whole rows.
  std::int64_t most_of_four[2] = {4096, 32768};
  c = configure_launch(k, most_of_four, 2, h100);
  EXPECT_EQ(c.grid[1], 1u);
  EXPECT_EQ(jf::ir::describe_launch(k, c).find("each row split"), std::string::npos);
  std::int64_t past_four[2] = {4300, 1 << 16};
  EXPECT_EQ(configure_launch(k, past_four, 2, h100).grid[1], 1u);
  jf::ir::nest::set_row_splits(false);
  c = configure_launch(k, few, 2, h100);
  EXPECT_EQ(c.grid[1], 1u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  jf::ir::nest::set_row_splits(true);
  const kernel_source m = generate_cuda(minus_row_mean(dtype::float32, true));
  std::int64_t ext2[2] = {4096, 32768};
  c = configure_launch(m, ext2, 2, h100);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.grid[0], 4096u);
  // With a map the row's value is needed by the same block: rows are never split.
  EXPECT_EQ(m.source.find("jf_splits"), std::string::npos);
  EXPECT_EQ(configure_launch(m, few, 2, h100).grid[1], 1u);
}

// ---- row_with_map: the row cache ---------------------------------------------------------------

TEST(CodegenNest, RowCacheSharedDomainGraph) {
  // The lowering's graph: one load of x in R, read by the reduce and (after the broadcast) by the
  // subtract stored over R itself.
  const graph g = x_minus_row_mean(dtype::float32);
  const node_id x = 0;
  ASSERT_EQ(g.at(x).code, op::input) << describe(g);
  int readers = 0;
  for (const auto& n : g.nodes)
    for (int a = 0; a < n.nargs; ++a) readers += n.args[static_cast<std::size_t>(a)] == x;
  EXPECT_EQ(readers, 2) << "x must be one node read by the reduce and the subtract:\n" << describe(g);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].domain, g.at(x).domain) << "the map domain is the reduced domain";
  const kernel_source k = generate_cuda(g);
  ASSERT_EQ(k.launch.shape, kernel_shape::row_with_map) << describe(g);
  EXPECT_EQ(k.launch.row_cache_bytes, std::vector<int>{4}) << "x (float32) is the one kept load";
  EXPECT_NE(k.source.find("__launch_bounds__(1024)"), std::string::npos);
  EXPECT_NE(k.source.find("extern __shared__ __align__(16) unsigned char jf_row_cache[];"), std::string::npos)
      << k.source;
  EXPECT_NE(k.source.find("if (cached) kept0[j] = v0_0;"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("= kept0[j];  // kept by the reduction loop"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("} else {  // the row did not fit: reload it"), std::string::npos) << k.source;
  // The lowering's graph and the test graph with the mean output are the same shape of kernel.
  EXPECT_EQ(generate_cuda(minus_row_mean(dtype::float64, true)).launch.row_cache_bytes, std::vector<int>{8});
  EXPECT_EQ(generate_cuda(minus_row_reduce(monoid::max, dtype::int32)).launch.row_cache_bytes, std::vector<int>{4});
  EXPECT_EQ(generate_cuda(row_cache_mixed()).launch.row_cache_bytes, (std::vector<int>{4, 8}))
      << "a (float32) and b (float64) are kept; c is read by the map only";
}

TEST(CodegenNest, NoRowCacheWithoutASharedDomain) {
  for (const graph& g : {minus_row_mean_sibling(dtype::float32), rows(monoid::sum, dtype::float32, false),
                         last_two_axes(dtype::float32)}) {
    const kernel_source k = generate_cuda(g);
    EXPECT_TRUE(k.launch.row_cache_bytes.empty()) << describe(g);
    EXPECT_EQ(k.source.find("jf_row_cache"), std::string::npos) << describe(g);
    EXPECT_EQ(k.source.find("__launch_bounds__"), std::string::npos) << describe(g);
    std::int64_t ext[3] = {4096, 32768, 1};
    const launch_config c = configure_launch(k, ext, g.ndim, h100_shared);
    EXPECT_EQ(c.shared_bytes, 0u) << describe(g);
    EXPECT_LE(c.block[0], 256u) << describe(g);
  }
  EXPECT_EQ(shape_of(minus_row_mean_sibling(dtype::float32)), kernel_shape::row_with_map);
}

TEST(CodegenNest, RowCacheLaunch) {
  struct want {
    dtype t;
    std::int64_t rows, len;
    unsigned block_x, block_y;  // the launch
    std::size_t shared;         // 0: not cached
  };
  const want cases[] = {
      // The benchmark: 128 KiB rows, one 1024-thread block per SM.
      {dtype::float32, 4096, 32768, 1024, 1, 32768 * 4},
      {dtype::float32, 2, 40000, 1024, 1, 160000},
      {dtype::float32, 3, 4097, 256, 1, (4097 * 4 + 15) / 16 * 16},  // 13 blocks fit an SM: 256 threads
      {dtype::float32, 3, 16384, 1024, 1, 65536},  // 3 blocks fit the shared memory, 2 the threads: 2048 resident
      {dtype::float32, 7, 33, 32, 8, (8 * 33 * 4 + 15) / 16 * 16},  // a warp per row, 8 rows cached per block
      {dtype::float32, 5, 1000, 32, 8, 8 * 1000 * 4},
      {dtype::float32, 1, 1, 32, 8, 32},
      {dtype::float64, 2, 40000, 256, 1, 0},  // 320 KB: does not fit, the map reloads
      {dtype::float32, 2, 70000, 256, 1, 0},  // 280 KB: does not fit
      {dtype::float64, 64, 2000, 32, 8, 0},   // 128 KB per 8 rows: one 256-thread block per SM, too few loads in flight
      {dtype::float64, 3, 20000, 1024, 1, 160000},
  };
  for (const want& w : cases) {
    const kernel_source k = generate_cuda(x_minus_row_mean(w.t));
    std::int64_t ext[2] = {w.rows, w.len};
    const launch_config c = configure_launch(k, ext, 2, h100_shared);
    const std::string at = std::string(jf::name(w.t)) + " " + std::to_string(w.rows) + " x " + std::to_string(w.len) +
                           ": " + jf::ir::describe_launch(k, c);
    EXPECT_EQ(c.block[0], w.block_x) << at;
    EXPECT_EQ(c.block[1], w.block_y) << at;
    EXPECT_EQ(c.shared_bytes, w.shared) << at;
    EXPECT_EQ(c.scratch_bytes, 0u) << at;
    EXPECT_GE(c.grid[0], 1u) << at;
    EXPECT_LE(std::int64_t(c.grid[0]) * c.block[1], std::max<std::int64_t>(w.rows, c.block[1])) << at;
    // describe_launch says which it is.
    const std::string d = jf::ir::describe_launch(k, c);
    EXPECT_EQ(d.find("row cached in shared memory") != std::string::npos, w.shared > 0) << at;
    EXPECT_EQ(d.find("read twice") != std::string::npos, w.shared == 0) << at;
    if (w.shared > 0) {
      EXPECT_LE(c.shared_bytes + std::size_t(k.launch.static_shared_bytes), h100_shared.shared_per_block) << at;
    }
    // A pure function of the extents and the device.
    const launch_config again = configure_launch(k, ext, 2, h100_shared);
    EXPECT_EQ(again.grid[0], c.grid[0]) << at;
    EXPECT_EQ(again.block[0], c.block[0]) << at;
    EXPECT_EQ(again.shared_bytes, c.shared_bytes) << at;
  }
  const kernel_source k = generate_cuda(x_minus_row_mean(dtype::float32));
  std::int64_t ext[2] = {4096, 32768};
  EXPECT_EQ(configure_launch(k, ext, 2, h100_shared).grid[0], 132u * 4) << "4 waves of one resident block per SM";
  // Without the device's shared memory (unknown): never cached, today's launch.
  launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.shared_bytes, 0u);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.grid[0], 4096u);
  // No rows: nothing to launch.
  ext[0] = 0;
  EXPECT_TRUE(configure_launch(k, ext, 2, h100_shared).empty());
  // Several kept loads: one buffer each, 16-byte aligned, 8 rows of each per warp-per-row block.
  const kernel_source mixed = generate_cuda(row_cache_mixed());
  std::int64_t ext2[2] = {100, 33};
  c = configure_launch(mixed, ext2, 2, h100_shared);
  EXPECT_EQ(c.shared_bytes, std::size_t((8 * 33 * 4 + 15) / 16 * 16 + 8 * 33 * 8));
  // Without a launch configuration the description promises nothing.
  const std::string plain = jf::ir::describe_launch(k);
  EXPECT_EQ(plain.find("row cached in shared memory"), std::string::npos) << plain;
  EXPECT_NE(plain.find("shared memory when they fit"), std::string::npos) << plain;
}

TEST(CodegenNest, ColumnReductionLaunch) {
  const kernel_source k = generate_cuda(columns(monoid::sum, dtype::float32, false));
  std::int64_t ext[2] = {32768, 4096};  // axis 0 reduced, 4096 columns
  launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.grid[0], 16u);
  EXPECT_NE(k.source.find("#pragma unroll 1\n    for (; j < hi - 7 * 1;"), std::string::npos) << k.source;
  // Few columns: the rows split over blockIdx.y until a wave of blocks runs (1056 / 16 tiles).
  EXPECT_EQ(c.grid[1], 66u);
  EXPECT_EQ(c.scratch_bytes, (16 * 4 + 15) / 16 * 16 + std::size_t(c.grid[1]) * 4096 * 4);
  std::int64_t wider[2] = {4096, 32768};  // 128 tiles: 8 splits fill the wave, 9 would pass it
  EXPECT_EQ(configure_launch(k, wider, 2, h100).grid[1], 8u);
  std::int64_t short_columns[2] = {1000, 4096};  // 256 rows a split at least
  EXPECT_EQ(configure_launch(k, short_columns, 2, h100).grid[1], 3u);
  std::int64_t wide[2] = {100, 1 << 22};
  c = configure_launch(k, wide, 2, h100);
  EXPECT_EQ(c.grid[1], 1u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  std::int64_t none[2] = {100, 0};
  EXPECT_TRUE(configure_launch(k, none, 2, h100).empty());
}

TEST(CodegenNest, GenericLaunch) {
  const kernel_source k = generate_cuda(max_of_row_sums(dtype::float64));
  std::int64_t ext[2] = {1000, 7};
  const launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.grid[0], 4u);  // the largest phase: 1000 rows
  EXPECT_EQ(c.scratch_bytes, 0u);
}

TEST(CodegenNest, ScanLaunch) {
  // Along the fastest axis: tiles of 8192 with the look-back (scratch: the counter, then per tile
  // an aggregate word and a prefix word), or a warp per row for rows of at most 4096.
  const kernel_source k = generate_cuda(scan_of(monoid::sum, dtype::int64, 2, 1));
  ASSERT_EQ(k.launch.shape, kernel_shape::scan);
  EXPECT_FALSE(k.launch.scan_columns);
  std::int64_t ext[2] = {1, std::int64_t(1) << 27};
  launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.block[0], 512u);
  EXPECT_EQ(c.grid[0], 16384u);
  EXPECT_EQ(c.scratch_bytes, 16u + 32 * 16384);  // the counter, two 16-byte words per tile
  ext[0] = 3;
  ext[1] = 8193;  // two tiles per row
  c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.grid[0], 6u);
  EXPECT_EQ(c.scratch_bytes, 16u + 32 * 6);
  ext[1] = 4096;  // short rows: a warp each, 8 rows per block, no scratch
  c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.block[0], 32u);
  EXPECT_EQ(c.block[1], 8u);
  EXPECT_EQ(c.grid[0], 1u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  ext[0] = 0;
  EXPECT_TRUE(configure_launch(k, ext, 2, h100).empty());
  // Not along the fastest axis: a thread per row.
  const kernel_source col = generate_cuda(scan_of(monoid::prod, dtype::float32, 2, 0));
  EXPECT_TRUE(col.launch.scan_columns);
  std::int64_t e2[2] = {1000, 3000};
  c = configure_launch(col, e2, 2, h100);
  EXPECT_EQ(c.block[0], 256u);
  EXPECT_EQ(c.grid[0], 12u);
  EXPECT_EQ(c.scratch_bytes, 0u);
  // Flattened: one row of every element, in tiles.
  const kernel_source flat = generate_cuda(scan_of(monoid::sum, dtype::float64, 3, -1));
  EXPECT_FALSE(flat.launch.scan_columns);
  std::int64_t e3[3] = {2, 3, 2000};  // 12000 elements: two tiles of 8192
  EXPECT_EQ(configure_launch(flat, e3, 3, h100).grid[0], 2u);
  EXPECT_NE(k.source.find("Kernel shape: scan"), std::string::npos);
  EXPECT_NE(k.source.find("atomicAdd(jf_counter, 1ull)"), std::string::npos) << k.source;
  // A scan with a consumer stays one kernel; a scan inside another shape's graph is refused.
  EXPECT_EQ(shape_of(scan_of(monoid::sum, dtype::float32, 1, 0, true)), kernel_shape::scan);
}

TEST(CodegenNest, CompactionIsAScanWithStores) {
  const kernel_source k = generate_cuda(compaction(dtype::float64, 1));
  ASSERT_EQ(k.launch.shape, kernel_shape::scan);
  EXPECT_TRUE(k.launch.scan_compaction);
  EXPECT_NE(k.source.find("out0[ix1_at * st_out0_1] = "), std::string::npos) << k.source;
  EXPECT_EQ(k.source.find("jf_words"), std::string::npos) << "x > 0 is computed per element, not read as words";
  std::int64_t ext[2] = {std::int64_t(1) << 27, std::int64_t(1) << 26};  // the mask's length, the count
  const launch_config c = configure_launch(k, ext, 2, h100);
  EXPECT_EQ(c.grid[0], 16384u) << "tiles of the mask, not of the count";
  EXPECT_EQ(c.launches, 2) << "tiles counted, then stored at their offsets";
  EXPECT_EQ(c.scratch_bytes, 16u + 8 * (16384 + 1));  // two counters, an offset per tile and the total
  EXPECT_EQ(c.scratch_zero_bytes, 16u);
  EXPECT_NE(jf::ir::describe_launch(k, c).find("launched twice"), std::string::npos) << jf::ir::describe_launch(k, c);
  ext[0] = 0;
  EXPECT_TRUE(configure_launch(k, ext, 2, h100).empty());
  EXPECT_EQ(shape_of(compaction(dtype::int32, 3, true)), kernel_shape::scan);
  // A bool array as the mask: read as 16-byte words where it is C-contiguous and aligned (a run-time
  // check over all of D's axes).
  const kernel_source w = generate_cuda(compaction(dtype::float32, 2, false, false, true));
  EXPECT_NE(w.source.find("const bool jf_words = (reinterpret_cast<unsigned long long>(in1) & 15ull) == 0 && "
                          "static_cast<long long>(st_in1_0) == 1LL * e1;"),
            std::string::npos)
      << w.source;
}

TEST(CodegenNest, GeneratedSourceIsReadable) {
  const kernel_source k = generate_cuda(minus_row_mean(dtype::float32, true));
  EXPECT_NE(k.source.find("Kernel shape: row reduction with map"), std::string::npos);
  EXPECT_NE(k.source.find("jf::ops::jf_sum_combine"), std::string::npos);
  EXPECT_NE(k.source.find("static_assert(sizeof("), std::string::npos);
  EXPECT_EQ(jf::ir::nest_abi_slots(minus_row_mean(dtype::float32, true)),
            2 /*outputs*/ + 1 /*input*/ + 0 + 2 /*extents*/ + 2 * 3 /*strides*/ + 1 /*scratch*/ + 1 /*error record*/ +
                1 /*aux*/);
}

// ---- random leaves (philox_chunks.cpp) -----------------------------------------------------

// A generated input (its four params appended: key words, first position, aux) read over d.
node_id generated_at(graph& g, jf::ir::generator kind, dtype t, domain_id d,
                     jf::ir::bit_generator bits = jf::ir::bit_generator::philox4x64) {
  const node_id x = input_at(g, t, layout::contiguous, d);
  g.inputs.back().gen = kind;
  g.inputs.back().bits = bits;
  g.inputs.back().param = static_cast<std::int32_t>(g.params.size());
  for (int i = 0; i < 4; ++i) g.params.push_back(dtype::int64);
  return x;
}

// out = f(leaves) over a box of `axes` axes (a generic nest's map phase); an array input too if asked.
graph generated_map(std::vector<jf::ir::generator> kinds, dtype out, layout out_lay, int axes = 1, bool array = false,
                    jf::ir::bit_generator bits = jf::ir::bit_generator::philox4x64) {
  graph g;
  g.loop_nest = true;
  g.ndim = axes;
  g.domains.resize(1);
  std::vector<std::int32_t> ax;
  for (int a = 0; a < axes; ++a) ax.push_back(a);
  const domain_id d = g.add_box(0, ax);
  node_id v = jf::ir::no_node;
  for (jf::ir::generator k : kinds) {
    const dtype t = k == jf::ir::generator::integers                                           ? dtype::int64
                    : k == jf::ir::generator::philox_f32 || k == jf::ir::generator::normal_f32 ? dtype::float32
                                                                                               : dtype::float64;
    const node_id x = g.add_cast(dtype::float64, generated_at(g, k, t, d, bits));
    v = v == jf::ir::no_node ? x : g.add_op(op::add, dtype::float64, {v, x});
  }
  if (array) v = g.add_op(op::add, dtype::float64, {v, input_at(g, dtype::float64, layout::contiguous, d)});
  if (out == dtype::bool_)
    v = g.add_op(op::less, dtype::bool_,
                 {v, g.add_constant(dtype::float64, jf::ir::scalar_value::of(dtype::float64, 0.5))});
  else
    v = g.add_cast(out, v);
  output_at(g, v, d, out_lay);
  return g;
}

// sum (and argmax) of a generated leaf's values over a 1-d box: a full reduction.
graph generated_sum(jf::ir::generator kind, dtype t, jf::ir::bit_generator bits = jf::ir::bit_generator::philox4x64) {
  graph g;
  g.loop_nest = true;
  g.ndim = 1;
  g.domains.resize(1);
  const domain_id d = g.add_box(0, {0});
  const node_id x = generated_at(g, kind, t, d, bits);
  output_at(g, g.add_reduce(monoid::sum, x), 0, layout::contiguous);
  output_at(g, g.add_reduce(monoid::argmax, x), 0, layout::contiguous);
  return g;
}

TEST(CodegenNest, RandomLeavesPickTheirChunkLayout) {
  using jf::ir::generator;
  // A fill: each lane stores its run of 8 float32 as two 16-byte vectors, and the rows layout
  // serves outputs found unaligned (or strided) at run time. Each block's round keys come from the
  // argument.
  const kernel_source fill = generate_cuda(generated_map({generator::philox_f32}, dtype::float32, layout::contiguous));
  EXPECT_EQ(fill.launch.shape, kernel_shape::generic_nest);
  EXPECT_NE(fill.source.find("const bool jf_runs = "), std::string::npos);
  EXPECT_NE(fill.source.find("jf_nest::store_run<16>(out0 + jf_o, jf_v)"), std::string::npos);
  EXPECT_EQ(fill.source.find("jf_stage"), std::string::npos);
  EXPECT_NE(fill.source.find("__shared__ unsigned long long jf_words"), std::string::npos);
  EXPECT_NE(fill.source.find("jf_philox_block_rk(a.rk0, "), std::string::npos);
  EXPECT_NE(fill.source.find("unsigned long long rk0[20];"), std::string::npos);
  EXPECT_TRUE(fill.launch.philox_chunks);
  EXPECT_EQ(fill.launch.round_key_params, std::vector<std::int32_t>{0});
  // bool results of a float64 anchor: runs of 4 one-byte values, one 4-byte store per lane.
  EXPECT_NE(generate_cuda(generated_map({generator::philox_f64}, dtype::bool_, layout::contiguous))
                .source.find("store_run<4>(out0"),
            std::string::npos);
  // 8-byte values: staged, the warp stores whole chunks (float64 of a float32 anchor: 2 KiB per warp).
  const std::string wide =
      generate_cuda(generated_map({generator::philox_f32}, dtype::float64, layout::contiguous)).source;
  EXPECT_NE(wide.find("jf_nest::store_run<16>(reinterpret_cast<double*>(jf_staged) + 8 * jf_lane, jf_v)"),
            std::string::npos);
  EXPECT_NE(wide.find("jf_nest::store_staged<2048>(out0 + jf_e0, jf_staged, jf_lane)"), std::string::npos);
  EXPECT_NE(wide.find("unsigned char jf_stage[8][2048]"), std::string::npos);
  EXPECT_NE(wide.find("if (jf_e0 >= 0 && jf_e0 + 256 <= "), std::string::npos);  // whole chunks only
  // A strided output or an array operand: rows only (loads and stores in lane order).
  for (const graph& g : {generated_map({generator::philox_f32}, dtype::float32, layout::strided),
                         generated_map({generator::philox_f64}, dtype::float64, layout::contiguous, 1, true)}) {
    const kernel_source k = generate_cuda(g);
    EXPECT_EQ(k.source.find("jf_runs"), std::string::npos) << k.source;
    EXPECT_NE(k.source.find("jf_words"), std::string::npos);
  }
  // A reduction of generated values: lane runs only, no shared words; 64 registers, 4 blocks per SM.
  const kernel_source sum = generate_cuda(generated_sum(generator::philox_f64, dtype::float64));
  EXPECT_EQ(sum.launch.shape, kernel_shape::full_reduction);
  EXPECT_EQ(sum.source.find("jf_words"), std::string::npos);
  EXPECT_NE(sum.source.find("lane l takes iterations chunk start + 4 l"), std::string::npos);
  EXPECT_NE(sum.source.find("__launch_bounds__(256, 4)"), std::string::npos);
  // The ABI: 20 round-key slots per generated input after the error record and the aux pointer.
  const graph two =
      generated_map({generator::philox_f32, generator::normal_f64}, dtype::float64, layout::contiguous, 2);
  EXPECT_EQ(jf::ir::nest_abi_slots(two),
            1 + 2 /*pointers*/ + 8 /*params*/ + 2 /*extents*/ + 2 * 3 /*strides*/ + 3 + 2 * 20);
  EXPECT_EQ(generate_cuda(two).launch.round_key_params, (std::vector<std::int32_t>{0, 4}));
  // Philox4x32 leaves: the same chunks (two blocks give 4 outputs), their own block functions and
  // per-element functions, their round keys' kind for the launcher. Lane runs are split: a lane's
  // blocks are l and 32 + l of the chunk, each of its two stores one 512-byte warp store.
  const auto p32 = jf::ir::bit_generator::philox4x32;
  const kernel_source fast =
      generate_cuda(generated_map({generator::philox_f32}, dtype::float32, layout::contiguous, 1, false, p32));
  EXPECT_NE(fast.source.find("jf::ops::jf_philox4x32_split_rk(a.rk0, "), std::string::npos);
  EXPECT_NE(fast.source.find("jf::ops::jf_philox4x32_block_rk(a.rk0, "), std::string::npos);  // the rows' blocks
  EXPECT_EQ(fast.source.find("jf::ops::jf_philox_block_rk("), std::string::npos);
  EXPECT_NE(fast.source.find("jf_nest::at_random_f32<jf::ops::jf_philox4x32>("),
            std::string::npos);  // numpy's kept half
  EXPECT_NE(fast.source.find("lane l takes iterations chunk start + 4 l ... and 128 + 4 l"), std::string::npos);
  EXPECT_NE(fast.source.find("store_run<16>(out0 + jf_o, jf_v)"), std::string::npos);
  EXPECT_NE(fast.source.find("store_run<16>(out0 + jf_o + 128, jf_v1)"), std::string::npos);
  // Whole chunks in a loop without guards; the first and last chunk (partial, or holding numpy's
  // kept half) guarded, after it.
  EXPECT_NE(fast.source.find("const long long jf_lo = (jf_shift > 0 || a.p3 != 0) ? 1 : 0;"), std::string::npos);
  EXPECT_NE(fast.source.find("jf_c < jf_hi; jf_c += jf_warps) {"), std::string::npos);
  EXPECT_NE(fast.source.find("if (jf_c < 0 || (jf_c >= jf_lo && jf_c < jf_hi) || (jf_x == 1 && jf_c == 0)) continue;"),
            std::string::npos);
  EXPECT_EQ(fast.launch.round_key_bits, std::vector<jf::ir::bit_generator>{p32});
  EXPECT_EQ(fill.launch.round_key_bits, std::vector<jf::ir::bit_generator>{jf::ir::bit_generator::philox4x64});
  const kernel_source fast_sum = generate_cuda(generated_sum(generator::philox_f64, dtype::float64, p32));
  EXPECT_NE(fast_sum.source.find("lane l takes iterations chunk start + 2 l ... and 64 + 2 l"), std::string::npos);
  EXPECT_NE(fast_sum.source.find("jf_philox4x32_split_rk("), std::string::npos);
  // 8-byte values of a split run: staged in position order, then whole chunks.
  const std::string wide32 =
      generate_cuda(generated_map({generator::philox_f32}, dtype::float64, layout::contiguous, 1, false, p32)).source;
  EXPECT_NE(wide32.find("store_run<16>(reinterpret_cast<double*>(jf_staged) + 4 * jf_lane + 128, jf_v1)"),
            std::string::npos);
  EXPECT_NE(wide32.find("jf_nest::store_staged<2048>(out0 + jf_e0, jf_staged, jf_lane)"), std::string::npos);
  // Unchunked (a leaf broadcast along an outer axis, per element): the bit generator's _at function.
  EXPECT_NE(generate_cuda(generated_map({generator::normal_f64}, dtype::float64, layout::strided, 2, false, p32))
                .source.find("at_normal_f64<jf::ops::jf_philox4x32>("),
            std::string::npos);
}

#ifdef JF_HAVE_CUDA
// The launcher appends each generated input's 20 round keys after the error record, from its key
// params; blocks computed from them are the blocks of the key (numpy's, tested in test_random).
TEST(CodegenNest, LauncherPacksTheRoundKeys) {
  using jf::ir::generator;
  const graph g = generated_map({generator::philox_f32, generator::normal_f64}, dtype::float64, layout::contiguous, 2);
  const kernel_source k = generate_cuda(g);
  jf::detail::step_bindings b;
  b.extents = {3, 5};
  b.outputs.resize(1, jf::detail::operand_binding{nullptr, {5, 1}});
  b.inputs.resize(2, jf::detail::operand_binding{nullptr, {5, 1}});
  std::mt19937_64 r(test_support::seed());
  for (int i = 0; i < 8; ++i) b.params.push_back(r());
  const std::vector<std::uint64_t> slots = jf::cuda_rt::pack_nest_args(k, b, nullptr);
  ASSERT_EQ(slots.size(), static_cast<std::size_t>(jf::ir::nest_abi_slots(g)));
  const std::size_t first = slots.size() - 40;
  for (int leaf = 0; leaf < 2; ++leaf)
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t k0 = b.params[static_cast<std::size_t>(4 * leaf)],
                          k1 = b.params[static_cast<std::size_t>(4 * leaf + 1)];
      EXPECT_EQ(slots[first + static_cast<std::size_t>(20 * leaf + 2 * round)],
                k0 + static_cast<std::uint64_t>(round) * 0x9E3779B97F4A7C15ULL);
      EXPECT_EQ(slots[first + static_cast<std::size_t>(20 * leaf + 2 * round + 1)],
                k1 + static_cast<std::uint64_t>(round) * 0xBB67AE8584CAA73BULL);
    }
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t k0 = r(), k1 = i % 2 ? r() : 0, blk = i < 10 ? static_cast<std::uint64_t>(i) - 1 : r();
    unsigned long long rk[20], a[4], c[4];
    jf::ops::jf_philox_round_keys(k0, k1, rk);
    jf::ops::jf_philox_block_rk(rk, blk, a);
    jf::ops::jf_philox_block(k0, k1, blk, c);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(a[w], c[w]) << "key " << k0 << ", " << k1 << ", block " << blk;
  }
  // Philox4x32 leaves: their 32-bit round keys, zero-extended, in the same slots.
  graph g32 = g;
  g32.inputs[1].bits = jf::ir::bit_generator::philox4x32;
  const kernel_source k32 = generate_cuda(g32);
  const std::vector<std::uint64_t> s32 = jf::cuda_rt::pack_nest_args(k32, b, nullptr);
  ASSERT_EQ(s32.size(), slots.size());
  for (std::size_t i = 0; i < first + 20; ++i) EXPECT_EQ(s32[i], slots[i]);  // leaf 0 is numpy's Philox
  for (int round = 0; round < 10; ++round) {
    EXPECT_EQ(s32[first + 20 + static_cast<std::size_t>(2 * round)],
              static_cast<std::uint32_t>(b.params[4] + static_cast<std::uint64_t>(round) * 0x9E3779B9u));
    EXPECT_EQ(s32[first + 20 + static_cast<std::size_t>(2 * round + 1)],
              static_cast<std::uint32_t>(b.params[5] + static_cast<std::uint64_t>(round) * 0xBB67AE85u));
  }
}
#endif

// ---- NVRTC ----------------------------------------------------------------------------------

TEST(CodegenNestNvrtc, RandomLeavesInEveryLayout) {
  using jf::ir::generator;
  batch b;
  const generator kinds[] = {generator::philox_f64, generator::philox_f32, generator::normal_f64, generator::normal_f32,
                             generator::integers};
  for (generator k : kinds) {
    for (dtype out : {dtype::bool_, dtype::int32, dtype::float32, dtype::float64})
      b.add(generated_map({k}, out, layout::contiguous));
    b.add(generated_map({k, generator::philox_f64}, dtype::float64, layout::contiguous, 2));
    b.add(generated_map({k}, dtype::float64, layout::strided, 2));
    b.add(generated_map({k, generator::philox_f32}, dtype::float32, layout::contiguous, 1, true));
    b.add(generated_sum(k, k == generator::integers                                   ? dtype::int64
                           : k == generator::philox_f32 || k == generator::normal_f32 ? dtype::float32
                                                                                      : dtype::float64));
  }
  // Philox4x32 leaves (the kinds' conversions are the ones above): rows and per element (strided, 2
  // axes) of every kind, lane runs, two passes of rows (an array operand), a reduction.
  const auto p32 = jf::ir::bit_generator::philox4x32;
  for (generator k : kinds) b.add(generated_map({k}, dtype::float64, layout::strided, 2, false, p32));
  b.add(generated_map({generator::philox_f32}, dtype::float32, layout::contiguous, 1, false, p32));
  b.add(
      generated_map({generator::normal_f64, generator::philox_f32}, dtype::float64, layout::contiguous, 1, true, p32));
  b.add(generated_sum(generator::philox_f64, dtype::float64, p32));
  // Split lane runs: staged 8-byte values, two leaves into 1-byte values, 2 draws a block, a sum.
  b.add(generated_map({generator::philox_f32}, dtype::float64, layout::contiguous, 1, false, p32));
  b.add(generated_map({generator::normal_f32, generator::philox_f32}, dtype::bool_, layout::contiguous, 1, false, p32));
  b.add(generated_map({generator::integers}, dtype::int32, layout::contiguous, 1, false, p32));
  b.add(generated_map({generator::philox_f64}, dtype::bool_, layout::contiguous, 1, false, p32));  // 2-byte stores
  b.add(generated_sum(generator::normal_f32, dtype::float32, p32));
  EXPECT_EQ(b.kernels.size(), 5u * 8 + 5 + 8);
  b.compile();
}

TEST(CodegenNestNvrtc, EveryMonoidAndDtypeInEveryShape) {
  batch b;
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) {
        const bool i32 = guard;  // both index types, alternating
        b.add(full(m, t, guard, i32, guard ? layout::strided : layout::contiguous));
        if (guard && size_of(t) == 1) b.add(full(m, t, true, !i32, layout::contiguous));  // the byte vectors
        b.add(rows(m, t, guard, !i32));
        b.add(columns(m, t, guard, i32));
        if (!guard) b.add(middle_axis(m, t));
      }
    }
  EXPECT_GT(b.kernels.size(), 150u);
  b.compile();
}

TEST(CodegenNestNvrtc, ScansOfEveryDtypeAndMode) {
  batch b;
  for (monoid m : {monoid::sum, monoid::prod})
    for (dtype t : {dtype::int32, dtype::int64, dtype::uint64, dtype::float32, dtype::float64})
      for (bool i32 : {false, true}) {
        b.add(scan_of(m, t, 1, 0, false, i32, layout::contiguous));
        b.add(scan_of(m, t, 2, 1, !i32, i32));
        b.add(scan_of(m, t, 2, 0, i32, i32));
        b.add(scan_of(m, t, 3, -1, false, i32));
      }
  for (dtype t : all_dtypes)
    for (bool i32 : {false, true}) {
      b.add(compaction(t, 1, false, i32));
      b.add(compaction(t, 2, i32, i32));
    }
  b.add(compaction(dtype::float32, 3, true));
  b.add(compaction(dtype::float64, 1, false, false, true));
  b.add(compaction(dtype::int8, 3, false, true, true));
  EXPECT_EQ(b.kernels.size(), 80u + 47u);
  b.compile();
}

TEST(CodegenNestNvrtc, MapsSeveralReductionsAndGeneric) {
  batch b;
  for (dtype t : {dtype::float32, dtype::float64}) {
    b.add(minus_row_mean(t, false));
    b.add(minus_row_mean(t, true, true));
    b.add(row_variance(t));
    b.add(last_two_axes(t));
  }
  for (dtype t : all_dtypes) b.add(max_of_row_sums(t == dtype::bool_ ? dtype::int32 : t));
  b.add(full_three());
  b.add(full_three(true));
  b.compile();
}

TEST(CodegenNestNvrtc, RowCacheVariants) {
  // The same kernel serves rows that fit (the cached loop) and rows that do not (the reload): the
  // launch decides, the kernel checks the shared memory it got. Both paths are in every kernel.
  batch b;
  for (dtype t : {dtype::float32, dtype::float64})
    for (bool i32 : {false, true}) {
      b.add(x_minus_row_mean(t, i32));
      b.add(minus_row_mean(t, true, i32));
    }
  for (dtype t : {dtype::int32, dtype::int64, dtype::float32})
    for (monoid m : {monoid::sum, monoid::max, monoid::nanmin}) b.add(minus_row_reduce(m, t, t == dtype::int32));
  b.add(row_cache_mixed(false));
  b.add(row_cache_mixed(true));
  b.add(minus_row_mean_sibling(dtype::float32));
  for (const kernel_source& k : b.kernels) EXPECT_EQ(k.launch.shape, kernel_shape::row_with_map) << k.name;
  EXPECT_EQ(b.kernels.size(), 20u);
  b.compile();
  // Row lengths that fit and that do not, for each: the launch is one of the two paths.
  for (const kernel_source& k : b.kernels) {
    if (k.launch.row_cache_bytes.empty()) continue;
    std::int64_t fits[2] = {1000, 500}, too_long[2] = {10, 100000};
    EXPECT_GT(configure_launch(k, fits, 2, h100_shared).shared_bytes, 0u) << k.name;
    EXPECT_EQ(configure_launch(k, too_long, 2, h100_shared).shared_bytes, 0u) << k.name;
  }
}

TEST(CodegenNestNvrtc, FastMathSourceIsTheSame) {
  // fast math is an NVRTC option only: the source differs by its name and header only.
  jf::ir::codegen_options fast;
  fast.fast_math = true;
  const kernel_source a = generate_cuda(full_three()), b = generate_cuda(full_three(), fast);
  EXPECT_NE(a.name, b.name);
  EXPECT_EQ(a.launch.shape, b.launch.shape);
}

// ---- jagged arrays: list graphs ----------------------------------------------------------------

TEST(CodegenNestLists, ShapesAreRecognised) {
  EXPECT_EQ(shape_of(list_reduce(monoid::max, dtype::float32, false)), kernel_shape::list);
  EXPECT_EQ(shape_of(list_map(dtype::float32, false)), kernel_shape::list);
  EXPECT_EQ(shape_of(list_map(dtype::float64, true)), kernel_shape::list);
  EXPECT_EQ(shape_of(list_mean(dtype::float32)), kernel_shape::list);
  EXPECT_EQ(shape_of(list_minus_mean()), kernel_shape::list);
  EXPECT_EQ(shape_of(list_pipeline_max()), kernel_shape::list);
  EXPECT_EQ(shape_of(list_full(monoid::sum, dtype::float32, false, false)), kernel_shape::full_reduction);
  EXPECT_EQ(shape_of(list_full(monoid::argmax, dtype::int32, true, true)), kernel_shape::full_reduction);
  const kernel_source k = generate_cuda(list_reduce(monoid::sum, dtype::float32, false));
  EXPECT_EQ(jf::ir::name(k.launch.shape), "list");
  // A light kernel (the reduction of a content itself, one 4-byte accumulator per list): 4 lists per
  // lane; the thresholds of the lane and the warp.
  EXPECT_EQ(k.launch.list_lists_per_lane, 4);
  EXPECT_EQ(k.launch.list_thread_max, 16);
  EXPECT_EQ(k.launch.list_warp_max, 4096);
  const std::string d = describe_launch(k);
  EXPECT_NE(d.find("list kernel: warp tiles of 128 lists (4 per lane), 1024 lists per 256-thread block"),
            std::string::npos)
      << d;
  // Element-wise work before the reduction (the pipeline): 2 lists per lane.
  EXPECT_EQ(generate_cuda(list_pipeline_max()).launch.list_lists_per_lane, 2);
  EXPECT_NE(d.find("by its lane up to 16 elements"), std::string::npos) << d;
  EXPECT_NE(d.find("by its warp up to 4096, else by the block"), std::string::npos) << d;
  EXPECT_EQ(d.find("maps over the elements"), std::string::npos) << d;  // a reduction only
  const std::string map = describe_launch(generate_cuda(list_map(dtype::float32, false)));
  EXPECT_NE(map.find("by its lane up to 16"), std::string::npos) << map;  // maps are scheduled per list too
  EXPECT_NE(map.find("maps over the elements"), std::string::npos) << map;
  // Lists known to be short (domain::longest, from the offsets' validation): the paths for longer
  // lists left out, said by the plan and the launch; the warp path stays for lanes up to 1 element.
  for (std::int64_t longest : {16, 4096}) {
    graph g = list_reduce(monoid::sum, dtype::float32, false);
    g.domains[1].longest = longest;
    const kernel_source ks = generate_cuda(g);
    const std::string body = ks.source.substr(ks.source.find("extern \"C\" __global__"));
    const std::string dl = describe_launch(ks);
    EXPECT_EQ(ks.launch.list_longest, longest);
    EXPECT_EQ(body.find("s_big"), std::string::npos) << body;
    EXPECT_EQ(body.find("jf_heavy"), std::string::npos) << body;
    EXPECT_EQ(body.find("__ballot_sync") == std::string::npos, longest == 16) << body;
    EXPECT_EQ(ks.launch.static_shared_bytes, 0);
    EXPECT_EQ(dl.find("else by the block"), std::string::npos) << dl;
    EXPECT_EQ(dl.find("by its warp") == std::string::npos, longest == 16) << dl;
    EXPECT_NE(dl.find("(lists of at most " + std::to_string(longest) + " elements)"), std::string::npos) << dl;
    jf::ir::nest::list_schedule_override().thread_max = 1;
    const std::string lanes1 = generate_cuda(g).source;
    jf::ir::nest::list_schedule_override() = {};
    EXPECT_NE(lanes1.find("__ballot_sync", lanes1.find("extern \"C\" __global__")), std::string::npos);
  }
  EXPECT_NE(k.source.find("s_big"), std::string::npos);  // (not known: every path)
  // x - mean(x): 16 bytes per list (the float64 sum and the mean the map reads): 1 list per lane.
  const kernel_source both = generate_cuda(list_minus_mean());
  EXPECT_EQ(both.launch.list_lists_per_lane, 1);
  EXPECT_NE(describe_launch(both).find("by its lane up to 16"), std::string::npos) << describe_launch(both);
  EXPECT_NE(describe_launch(both).find("maps over the elements"), std::string::npos) << describe_launch(both);
  // A count per list (a sum of ones, as the validity of an option result) needs no accumulator:
  // it is the list's length.
  const std::string mean = generate_cuda(list_mean(dtype::float32)).source;
  EXPECT_NE(mean.find("a sum of a uniform value"), std::string::npos);
  // The schedule can be forced (bench_lists compares settings).
  jf::ir::nest::list_schedule_override() = {4, 8};
  const kernel_source forced = generate_cuda(list_reduce(monoid::sum, dtype::float32, false));
  jf::ir::nest::list_schedule_override() = {};
  EXPECT_EQ(forced.launch.list_lists_per_lane, 4);
  EXPECT_EQ(forced.launch.list_thread_max, 8);
  // The offsets input is addressed along the list axis (its span is checked under int indices).
  ASSERT_EQ(k.launch.operand_axes.size(), 3u);
  EXPECT_EQ(k.launch.operand_axes[1], std::vector<std::int32_t>{0});
}

TEST(CodegenNestLists, LaunchSizesFromTheListCount) {
  const kernel_source k = generate_cuda(list_pipeline_max());
  std::int64_t none[2] = {0, 0}, few[2] = {1000, 2000}, many[2] = {10000000, 20000000};
  EXPECT_TRUE(configure_launch(k, none, 2, h100).empty());
  const jf::ir::launch_config c = configure_launch(k, few, 2, h100);
  EXPECT_EQ(c.grid[0], 2u);  // ceil(1000 / 512) tiles (2 lists per lane)
  EXPECT_EQ(c.block[0], 256u);
  const jf::ir::launch_config big = configure_launch(k, many, 2, h100_shared);
  EXPECT_GT(big.grid[0], 132u);
  EXPECT_LE(big.grid[0], 132u * 8 * 4);
  EXPECT_NE(describe_launch(k, big).find("blocks"), std::string::npos);
}

TEST(CodegenNestLists, RefusesWhatItDoesNotRun) {
  // A pairs domain without its slot axes: refused by the graph's validation.
  {
    domain_id l, e;
    graph g = list_graph(false, l, e);
    g.domains.push_back(jf::ir::domain{jf::ir::domain_kind::pairs, l, {}, -1, 2});
    const node_id x = input_at(g, dtype::float32, layout::strided, e);
    output_at(g, g.add_reduce(monoid::max, x, jf::ir::no_node, l), l);
    try {
      generate_cuda(g);
      ADD_FAILURE() << "a pairs domain without axes was accepted";
    } catch (const jf::error& err) {
      EXPECT_NE(std::string(err.what()).find("a pairs domain has"), std::string::npos) << err.what();
    }
  }
  // A product domain without its slot axes and second offsets: refused by the graph's validation.
  {
    domain_id l, e;
    graph g = list_graph(false, l, e);
    g.domains.push_back(jf::ir::domain{jf::ir::domain_kind::product, l, {}, -1, 0});
    const node_id x = input_at(g, dtype::float32, layout::strided, e);
    output_at(g, g.add_reduce(monoid::max, x, jf::ir::no_node, l), l);
    try {
      generate_cuda(g);
      ADD_FAILURE() << "a product domain was accepted";
    } catch (const jf::error& err) {
      EXPECT_NE(std::string(err.what()).find("product domain"), std::string::npos) << err.what();
    }
  }
  // A box beside a list, and a reduction into the root beside per-list outputs.
  {
    domain_id l, e;
    graph g = list_graph(false, l, e);
    const node_id x = input_at(g, dtype::float32, layout::strided, e);
    output_at(g, g.add_reduce(monoid::max, x, jf::ir::no_node, l), l);
    output_at(g, g.add_reduce(monoid::sum, x, jf::ir::no_node, 0), 0);
    try {
      generate_cuda(g);
      ADD_FAILURE() << "reductions into the root and the lists in one kernel were accepted";
    } catch (const jf::error& err) {
      EXPECT_NE(std::string(err.what()).find("List kernels"), std::string::npos) << err.what();
    }
  }
}

TEST(CodegenNestLists, PlannerKeepsTheListKernelOneStep) {
  // x - mean(x) per list: one step (the reduction, the mean, the map), its offsets carried along.
  const jf::ir::plan p = jf::ir::make_nest_plan(list_minus_mean(), jf::ir::fusion_mode::fused);
  ASSERT_EQ(p.steps.size(), 1u);
  const graph& k = p.steps[0].kernel;
  EXPECT_EQ(generate_cuda(k).launch.shape, kernel_shape::list);
  ASSERT_EQ(k.domains.size(), 3u);
  const std::int32_t off = k.domains[1].source;
  ASSERT_GE(off, 0);
  ASSERT_LT(static_cast<std::size_t>(off), p.steps[0].inputs.size());
  EXPECT_EQ(p.steps[0].inputs[static_cast<std::size_t>(off)].index, 0);  // the graph's offsets
  EXPECT_EQ(k.inputs[static_cast<std::size_t>(off)].type, dtype::int64);
  // Unfused: every operation its own step, each list step with its offsets.
  const jf::ir::plan u = jf::ir::make_nest_plan(list_minus_mean(), jf::ir::fusion_mode::unfused);
  EXPECT_GT(u.steps.size(), 2u);
  for (const jf::ir::plan_step& s : u.steps)
    for (const jf::ir::domain& d : s.kernel.domains)
      if (d.kind == jf::ir::domain_kind::list) {
        EXPECT_EQ(s.kernel.inputs[static_cast<std::size_t>(d.source)].type, dtype::int64);
      }
}

TEST(CodegenNestNvrtc, ListKernelsOfEveryMonoidAndDtype) {
  batch b;
  for (monoid m : all_monoids)
    for (dtype t : some_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) {
        b.add(list_reduce(m, t, guard, guard));
        b.add(list_full(m, t, guard, false, !guard));
        b.add(list_full(m, t, guard, true, guard));
      }
    }
  for (bool i32 : {false, true}) {
    for (dtype t : {dtype::float32, dtype::float64, dtype::int32}) {
      b.add(list_map(t, false, i32));
      b.add(list_map(t, true, i32));
      b.add(list_mean(t, i32));
    }
    b.add(list_minus_mean(i32));
    b.add(list_pipeline_max(i32));
  }
  EXPECT_GT(b.kernels.size(), 200u);
  b.compile();
}

TEST(CodegenNestNvrtc, ListKernelsAtEverySchedule) {
  // Lists per lane 1, 2, 4, lane thresholds 1, 16, 32 and 1-3 lock steps per trip (the kernel's
  // name does not change with the schedule: one batch per schedule); every path, and lists known
  // to be short.
  for (int lists_per_lane : {1, 2, 4})
    for (int thread_max : {1, 16, 32}) {
      const int lock_steps = thread_max == 1 ? 1 : thread_max == 16 ? 2 : 3;
      jf::ir::nest::list_schedule_override() = {lists_per_lane, thread_max, 0, lock_steps};
      batch b;
      for (bool i32 : {false, true}) {
        b.add(list_reduce(monoid::argmax, dtype::float64, true, i32));
        b.add(list_reduce(monoid::max, dtype::float32, false, i32));
        b.add(list_reduce(monoid::sum, dtype::bool_, true, i32));
        b.add(list_map(dtype::float32, true, i32));
        b.add(list_mean(dtype::float32, i32));
        b.add(list_minus_mean(i32));
        b.add(list_pipeline_max(i32));
        // Lists known to be short (domain::longest): without the block path, or the warp's too
        // (with 4 lists per lane: the paths left out do not depend on the other choices).
        for (std::int64_t longest : {16, 4096}) {
          if (lists_per_lane != 4) break;
          graph g1 = list_minus_mean(i32), g2 = list_reduce(monoid::argmax, dtype::float64, true, i32);
          for (graph* g : {&g1, &g2}) {
            g->domains[1].longest = longest;
            b.add(*g);
          }
        }
      }
      jf::ir::nest::list_schedule_override() = {};
      for (const kernel_source& k : b.kernels) {
        EXPECT_EQ(k.launch.list_lists_per_lane, lists_per_lane) << k.name;
        EXPECT_EQ(k.launch.list_thread_max, thread_max) << k.name;
        EXPECT_EQ(k.launch.list_lock_steps, lock_steps) << k.name;
      }
      SCOPED_TRACE(testing::Message() << lists_per_lane << " lists per lane, lanes up to " << thread_max);
      b.compile();
    }
}

TEST(CodegenNestLists, PlannerStoresPerListValuesThatAnotherReductionReads) {
  // max over the lists of each list's sum: the per-list sums are stored (a list kernel over L), then
  // a full reduction over the lists reads them; each step keeps the offsets of its list domain.
  domain_id l, e;
  graph g = list_graph(false, l, e);
  const node_id x = input_at(g, dtype::float32, layout::strided, e);
  const node_id sum = g.add_reduce(monoid::sum, x, jf::ir::no_node, l);
  output_at(g, g.add_reduce(monoid::max, sum, jf::ir::no_node, 0), 0, layout::contiguous);
  const jf::ir::plan p = jf::ir::make_nest_plan(g, jf::ir::fusion_mode::fused);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(generate_cuda(p.steps[0].kernel).launch.shape, kernel_shape::list);
  EXPECT_EQ(generate_cuda(p.steps[1].kernel).launch.shape, kernel_shape::full_reduction);
  ASSERT_EQ(p.temporary_domain.size(), 1u);
  EXPECT_EQ(p.temporary_domain[0], l);
  for (const jf::ir::plan_step& s : p.steps) {
    const auto& doms = s.kernel.domains;
    const auto list = std::find_if(doms.begin(), doms.end(),
                                   [](const jf::ir::domain& d) { return d.kind == jf::ir::domain_kind::list; });
    ASSERT_NE(list, doms.end());
    ASSERT_GE(list->source, 0);
    EXPECT_EQ(s.inputs[static_cast<std::size_t>(list->source)].k, jf::ir::operand_ref::kind::input);
    EXPECT_EQ(s.inputs[static_cast<std::size_t>(list->source)].index, 0);
  }
  // The per-list variance's second pass reads the mean: stored first, then one list kernel.
  domain_id l2, e2;
  graph v = list_graph(false, l2, e2);
  const node_id y = input_at(v, dtype::float64, layout::strided, e2);
  const node_id s1 = v.add_reduce(monoid::sum, y, jf::ir::no_node, l2);
  const node_id d = v.add_op(op::subtract, dtype::float64, {y, v.add_broadcast(s1, e2)});
  output_at(v, v.add_reduce(monoid::sum, v.add_op(op::multiply, dtype::float64, {d, d}), jf::ir::no_node, l2), l2);
  const jf::ir::plan pv = jf::ir::make_nest_plan(v, jf::ir::fusion_mode::fused);
  ASSERT_EQ(pv.steps.size(), 2u);
  for (const jf::ir::plan_step& s : pv.steps) EXPECT_EQ(generate_cuda(s.kernel).launch.shape, kernel_shape::list);
}

// ---- combinations: pairs kernels ----------------------------------------------------------------

namespace {

// The message of the jf::error generate_cuda throws for g ("" when it does not throw).
std::string refusal(const graph& g) {
  try {
    generate_cuda(g);
  } catch (const jf::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CodegenNestPairs, ShapesAreRecognised) {
  for (int arity : {2, 3}) {
    EXPECT_EQ(shape_of(pairs_reduce(monoid::max, dtype::float32, arity, false)), kernel_shape::pairs);
    EXPECT_EQ(shape_of(pairs_reduce(monoid::argmax, dtype::int64, arity, true)), kernel_shape::pairs);
    EXPECT_EQ(shape_of(pairs_with_list_values(arity)), kernel_shape::pairs);
  }
  for (bool charge : {false, true}) EXPECT_EQ(shape_of(pairs_dielectron(charge, true)), kernel_shape::pairs);
  const kernel_source k = generate_cuda(pairs_dielectron(true));
  EXPECT_EQ(jf::ir::name(k.launch.shape), "pairs");
  EXPECT_EQ(k.launch.pairs_arity, 2);
  EXPECT_EQ(k.launch.pairs_tile_lists, 1024);
  // Eight float32 and int32 fields: 16384 / 32 = 512 staged elements at least; a list of 182 has
  // more than 16384 pairs, so it is the shortest heavy list.
  EXPECT_EQ(k.launch.list_stage_items, 512);
  EXPECT_EQ(k.launch.pairs_min_heavy, 182);
  EXPECT_EQ(generate_cuda(pairs_reduce(monoid::sum, dtype::float64, 3, false)).launch.pairs_min_heavy,
            48);  // C(48, 3) = 17296
  const std::string d = describe_launch(k);
  EXPECT_NE(d.find("pairs kernel (combinations of 2)"), std::string::npos) << d;
  EXPECT_NE(d.find("queued on the device"), std::string::npos) << d;
  // The offsets are addressed along the list axis; the slot fields along the slots' axes.
  ASSERT_EQ(k.launch.operand_axes.size(), 3u + 9u);
  EXPECT_EQ(k.launch.operand_axes[3], std::vector<std::int32_t>{0});
  EXPECT_EQ(k.launch.operand_axes[4], (std::vector<std::int32_t>{0, 2, 3}));
  // The kernel is readable: both phases; the slots promised by operand_desc::slot (shown in the
  // listing) are compiled in, else classified from the strides at run time.
  EXPECT_NE(k.source.find("input #4 f32 strided slot 1"), std::string::npos);
  EXPECT_NE(k.source.find("slot 1's field"), std::string::npos);
  EXPECT_EQ(k.source.find("const int md"), std::string::npos);
  const kernel_source unpromised = generate_cuda(pairs_dielectron(true, false, false, false));
  EXPECT_NE(unpromised.source.find("const int md"), std::string::npos);
  // Registers for 5 blocks per SM (their shared memory fits 5) when every slot is promised.
  EXPECT_NE(k.source.find("__launch_bounds__(256, 5)"), std::string::npos);
  EXPECT_NE(unpromised.source.find("__launch_bounds__(256) "), std::string::npos);
  EXPECT_NE(unpromised.name, k.name);
  EXPECT_NE(k.source.find("Phase 1: tiles of lists"), std::string::npos);
  EXPECT_NE(k.source.find("Phase 2: heavy lists"), std::string::npos);
  EXPECT_NE(k.source.find("jf_pairs::unrank2"), std::string::npos);
}

TEST(CodegenNestPairs, LaunchSizesFromTheListAndElementCounts) {
  const kernel_source k = generate_cuda(pairs_dielectron(false));
  std::int64_t none[4] = {0, 0, 0, 0}, one[4] = {1, 5, 5, 5}, many[4] = {10000000, 15000000, 15000000, 15000000};
  EXPECT_TRUE(configure_launch(k, none, 4, h100).empty());
  const launch_config c1 = configure_launch(k, one, 4, h100);
  EXPECT_EQ(c1.block[0], 256u);
  EXPECT_EQ(c1.grid[0], 2u);  // one tile, and one possible heavy chunk
  EXPECT_GT(c1.scratch_bytes, 0u);
  EXPECT_EQ(c1.scratch_zero_bytes, 32u + 4u);  // the counters and one ready flag
  const launch_config big = configure_launch(k, many, 4, h100_shared);
  EXPECT_GE(big.grid[0], 132u * 4);
  EXPECT_LE(big.grid[0], 132u * 8);  // one wave: blocks take tiles from a counter
  // Queue: 15e6 / 182 + 1 entries (4-byte flags zeroed, 32-byte entries), 15e6 / 8 + that many
  // chunk partials of the max (4 bytes) and the count (8 bytes).
  const std::size_t q = 15000000 / 182 + 1, chunks = 15000000 / 8 + q;
  auto a16 = [](std::size_t b) { return (b + 15) / 16 * 16; };
  EXPECT_EQ(big.scratch_zero_bytes, 32 + 4 * q);
  EXPECT_EQ(big.scratch_bytes, a16(32 + 4 * q) + a16(32 * q) + a16(8 * chunks) + a16(4 * chunks));
  const launch_config again = configure_launch(k, many, 4, h100_shared);
  EXPECT_EQ(again.grid[0], big.grid[0]);
  EXPECT_NE(describe_launch(k, big).find("blocks"), std::string::npos);
}

TEST(CodegenNestPairs, RefusesWhatItDoesNotRun) {
  // Every combination of every list into the root.
  {
    domain_id l, p;
    graph g = pairs_graph(2, false, l, p);
    output_at(g, g.add_reduce(monoid::sum, pairs_body(g, dtype::float32, 2, p), jf::ir::no_node, 0), 0,
              layout::contiguous);
    const std::string why = refusal(g);
    EXPECT_NE(why.find("into the root"), std::string::npos) << why;
    EXPECT_NE(why.find("reduce %"), std::string::npos) << why;
  }
  // A reduction of elements beside one of combinations.
  {
    domain_id l, p;
    graph g = pairs_graph(2, false, l, p);
    output_at(g, g.add_reduce(monoid::max, pairs_body(g, dtype::float32, 2, p), jf::ir::no_node, l), l);
    const node_id x = input_at(g, dtype::float32, layout::strided, 2);
    output_at(g, g.add_reduce(monoid::sum, x, jf::ir::no_node, l), l);
    const std::string why = refusal(g);
    EXPECT_NE(why.find("a reduction of elements beside reductions of combinations"), std::string::npos) << why;
  }
  // Work in the elements domain, and an output over the pairs (combinations are not materialised).
  {
    domain_id l, p;
    graph g = pairs_graph(2, false, l, p);
    const node_id v = pairs_body(g, dtype::float32, 2, p);
    output_at(g, g.add_reduce(monoid::max, v, jf::ir::no_node, l), l);
    output_at(g, v, p);
    const std::string why = refusal(g);
    EXPECT_NE(why.find("out #1 is not stored over the lists"), std::string::npos) << why;
  }
  {
    domain_id l, p;
    graph g = pairs_graph(2, false, l, p);
    output_at(g, g.add_reduce(monoid::max, pairs_body(g, dtype::float32, 2, p), jf::ir::no_node, l), l);
    const node_id x = input_at(g, dtype::float32, layout::strided, 2);
    in_domain(g, g.add_op(op::multiply, dtype::float32, {x, x}), 2);  // work in E (refused at its input)
    const std::string why = refusal(g);
    EXPECT_NE(why.find("%" + std::to_string(x) + " in D2: a pairs kernel computes in its list and pairs domains only"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("Pairs kernels"), std::string::npos) << why;
  }
  // No reduction at all.
  {
    domain_id l, p;
    graph g = pairs_graph(2, false, l, p);
    output_at(g, input_at(g, dtype::float32, layout::strided, l), l);
    const std::string why = refusal(g);
    EXPECT_NE(why.find("no reduction of the combinations"), std::string::npos) << why;
  }
}

TEST(CodegenNestPairs, PlannerKeepsTheDielectronQueryOneStep) {
  for (bool charge : {false, true}) {
    const jf::ir::plan p = jf::ir::make_nest_plan(pairs_dielectron(charge, true), jf::ir::fusion_mode::fused);
    ASSERT_EQ(p.steps.size(), 1u);
    EXPECT_EQ(generate_cuda(p.steps[0].kernel).launch.shape, kernel_shape::pairs);
  }
  const jf::ir::plan p = jf::ir::make_nest_plan(pairs_with_list_values(3), jf::ir::fusion_mode::fused);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(generate_cuda(p.steps[0].kernel).launch.shape, kernel_shape::pairs);
}

// ---- cartesian products: the pairs kernel's product form ---------------------------------------

TEST(CodegenNestPairs, ProductDomainsAreThePairsShape) {
  EXPECT_EQ(shape_of(pairs_reduce(monoid::max, dtype::float32, 2, false, false, true, true)), kernel_shape::pairs);
  EXPECT_EQ(shape_of(pairs_with_list_values(2, false, true, true)), kernel_shape::pairs);
  const kernel_source k = generate_cuda(pairs_dielectron(true, true, false, true, true, true));
  EXPECT_TRUE(k.launch.pairs_product);
  EXPECT_EQ(k.launch.pairs_min_heavy, 257);  // na * nb > 16384 needs na + nb >= 257
  EXPECT_NE(k.source.find("jf_pairs::unrank_product"), std::string::npos);
  EXPECT_NE(k.source.find("s_offb"), std::string::npos);
  EXPECT_EQ(k.source.find("jf_pairs::unrank2"), std::string::npos);
  // Both offsets inputs are addressed along the list axis.
  ASSERT_GE(k.launch.operand_axes.size(), 5u);
  const std::size_t outs = 4;
  EXPECT_EQ(k.launch.operand_axes[outs + 0], std::vector<std::int32_t>{0});
  EXPECT_EQ(k.launch.operand_axes[outs + 1], std::vector<std::int32_t>{0});
  const std::string d = describe_launch(k);
  EXPECT_NE(d.find("cartesian product"), std::string::npos) << d;
  // The queue and chunks are sized from both sides' elements: scratch grows with either.
  std::int64_t ext_a[4] = {1000, 5000, 5000, 10}, ext_b[4] = {1000, 10, 10, 5000};
  EXPECT_EQ(configure_launch(k, ext_a, 4, h100).scratch_bytes, configure_launch(k, ext_b, 4, h100).scratch_bytes);
  // Operands whose slot is not promised are refused (the engine always promises them).
  try {
    generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, false, false, false, true));
    ADD_FAILURE() << "a product kernel without promised slots was accepted";
  } catch (const jf::error& err) {
    EXPECT_NE(std::string(err.what()).find("promised"), std::string::npos) << err.what();
  }
}

TEST(CodegenNestNvrtc, ProductKernelsOfEveryMonoidAndDtype) {
  batch b;
  // (One float and one integer dtype: the product form changes the walk, not the combines, which
  // the pairs kernels' test compiles for every dtype.)
  for (monoid m : all_monoids)
    for (dtype t : {dtype::float32, dtype::int64}) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) b.add(pairs_reduce(m, t, 2, guard, guard, true, true));
    }
  for (bool i32 : {false, true}) {
    for (bool charge : {false, true}) b.add(pairs_dielectron(charge, true, i32, true, true, true));
    b.add(pairs_with_list_values(2, i32, true, true));
  }
  EXPECT_GT(b.kernels.size(), 20u);
  b.compile(20);
}

TEST(CodegenNestPairs, AThreadPerShortListNeverTakesAHeavyList) {
  // A forced thread_max is cut to the longest list that is never queued as heavy (16384
  // combinations: 181 elements for pairs, 47 for triples; 128 x 128 for a product).
  jf::ir::nest::pairs_schedule_override().thread_max = 1000;
  const int pairs = generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, false)).launch.pairs_thread_max;
  const int triples = generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 3, false)).launch.pairs_thread_max;
  const int product =
      generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, false, false, true, true)).launch.pairs_thread_max;
  jf::ir::nest::pairs_schedule_override() = {};
  EXPECT_EQ(pairs, 181);
  EXPECT_EQ(triples, 47);
  EXPECT_EQ(product, 128);
  EXPECT_EQ(generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, false)).launch.pairs_thread_max,
            0);  // (not forced)
}

TEST(CodegenNestNvrtc, PairsKernelsWithAThreadPerShortList) {
  // pairs_schedule::thread_max: lists of at most 8 elements combined by a thread each (fields read
  // in place), the others in staged runs; pairs, triples, products, per-list values, operands
  // classified at run time (the kernel's name does not change with the schedule: its own batch).
  jf::ir::nest::pairs_schedule_override().thread_max = 8;
  batch b;
  for (int arity : {2, 3})
    for (monoid m : {monoid::sum, monoid::max, monoid::argmax, monoid::prod})
      for (bool guard : {false, true}) b.add(pairs_reduce(m, dtype::float32, arity, guard, guard));
  for (monoid m : {monoid::sum, monoid::argmin}) b.add(pairs_reduce(m, dtype::int64, 2, true, true, true, true));
  for (bool i32 : {false, true}) {
    for (bool charge : {false, true}) b.add(pairs_dielectron(charge, true, i32));
    b.add(pairs_with_list_values(3, i32));
    b.add(pairs_dielectron(true, true, i32, true, true, true));
  }
  b.add(pairs_reduce(monoid::argmax, dtype::float32, 2, true, false, false));
  jf::ir::nest::pairs_schedule_override() = {};
  for (const kernel_source& k : b.kernels) {
    EXPECT_EQ(k.launch.pairs_thread_max, 8) << k.name;
    EXPECT_NE(k.source.find("a thread each"), std::string::npos) << k.name;
  }
  b.compile(20);
}

// Every list domain of g known to hold lists of at most `longest` elements (domain::longest, as
// the engine sets it from the offsets' validation).
graph with_longest(graph g, std::int64_t longest) {
  for (auto& d : g.domains)
    if (d.kind == jf::ir::domain_kind::list) d.longest = longest;
  return g;
}

TEST(CodegenNestPairs, WarpSegmentsWhereEveryListIsShort) {
  // The generator's choice: warp segments where every list has at most 16 elements (no staging
  // buffer: less shared memory); staged runs where lists may be longer or are not known; never for
  // a product (b's lengths are not known); forced either way by pairs_schedule::warp_segments.
  const graph g = pairs_dielectron(true, true, false);
  const kernel_source short16 = generate_cuda(with_longest(g, 16)), long4096 = generate_cuda(with_longest(g, 4096)),
                      unknown = generate_cuda(g);
  EXPECT_TRUE(short16.launch.pairs_warp_segments);
  EXPECT_FALSE(long4096.launch.pairs_warp_segments);
  EXPECT_FALSE(unknown.launch.pairs_warp_segments);
  EXPECT_NE(short16.source.find("warp segments"), std::string::npos);
  EXPECT_EQ(unknown.source.find("warp segments"), std::string::npos);
  EXPECT_EQ(short16.source.find("the warp walks each"), std::string::npos);  // (no list is longer)
  EXPECT_LT(short16.launch.static_shared_bytes + 8000, unknown.launch.static_shared_bytes);
  EXPECT_NE(jf::ir::describe_launch(short16).find("each warp taking its share"), std::string::npos);
  EXPECT_FALSE(generate_cuda(with_longest(pairs_reduce(monoid::sum, dtype::float32, 2, true, false, true, true), 16))
                   .launch.pairs_warp_segments);  // a product
  EXPECT_TRUE(generate_cuda(with_longest(pairs_reduce(monoid::argmax, dtype::float64, 3, true), 16))
                  .launch.pairs_warp_segments);
  // Short on average (at most 1.875 elements a list), lists up to 4096 elements: warp segments, lists
  // of more than 16 elements in the warp queue; not short on average: the staged runs.
  graph mean_short = with_longest(g, 4096);
  for (auto& d : mean_short.domains) d.short_on_average = d.kind == jf::ir::domain_kind::list;
  const kernel_source queued = generate_cuda(mean_short);
  EXPECT_TRUE(queued.launch.pairs_warp_segments);
  EXPECT_EQ(queued.launch.pairs_warp_queue, 16);
  EXPECT_EQ(queued.source.find("the warp walks each"), std::string::npos);
  EXPECT_EQ(short16.launch.pairs_warp_queue, 0);
  EXPECT_EQ(long4096.launch.pairs_warp_queue, 0);
  EXPECT_NE(mean_short.to_string().find("at most 1.875 elements a list on average"), std::string::npos);
  jf::ir::nest::pairs_schedule_override().warp_segments = -1;
  const bool forced_off = generate_cuda(with_longest(g, 16)).launch.pairs_warp_segments;
  jf::ir::nest::pairs_schedule_override().warp_segments = 1;
  const bool forced_on = generate_cuda(g).launch.pairs_warp_segments;
  jf::ir::nest::pairs_schedule_override() = {};
  EXPECT_FALSE(forced_off);
  EXPECT_TRUE(forced_on);
}

TEST(CodegenNestNvrtc, PairsKernelsInWarpSegments) {
  // Warp segments (forced: lists of any length up to the heavy queue's): pairs and triples of every
  // kind of reduction, guards, int32 offsets, slots classified at run time, per-list values, the
  // dielectron query with its count, validity and argmax; no warp queue: longer lists walked by
  // their warp inside the tile.
  jf::ir::nest::pairs_schedule_override() = {.warp_segments = 1, .warp_queue = -1};
  batch b;
  for (int arity : {2, 3})
    for (monoid m : {monoid::sum, monoid::max, monoid::argmax, monoid::prod, monoid::min, monoid::any})
      for (bool guard : {false, true}) b.add(pairs_reduce(m, dtype::float32, arity, guard, guard));
  for (monoid m : {monoid::sum, monoid::argmin}) b.add(pairs_reduce(m, dtype::int64, 2, true, true, true));
  for (bool i32 : {false, true}) {
    for (bool charge : {false, true}) b.add(pairs_dielectron(charge, true, i32));
    for (int arity : {2, 3}) b.add(pairs_with_list_values(arity, i32));
  }
  for (int arity : {2, 3}) b.add(pairs_reduce(monoid::argmax, dtype::float32, arity, true, false, false));
  b.add(pairs_with_list_values(2, false, false));
  jf::ir::nest::pairs_schedule_override() = {};
  for (const kernel_source& k : b.kernels) {
    EXPECT_TRUE(k.launch.pairs_warp_segments) << k.name;
    EXPECT_EQ(k.launch.pairs_warp_queue, 0) << k.name;
    EXPECT_NE(k.source.find("warp segments"), std::string::npos) << k.name;
    EXPECT_NE(k.source.find("the warp walks each"), std::string::npos) << k.name;  // (lists may be longer)
    EXPECT_EQ(k.source.find("Staged: each field once"), std::string::npos) << k.name;
  }
  b.compile(20);
}

TEST(CodegenNestNvrtc, PairsKernelsWithAWarpQueue) {
  // pairs_schedule::warp_queue = Q: lists of more than Q elements queued as their tile is counted
  // and combined after the tiles, a warp each; beside warp segments (Q = 16: no list left for the
  // warp's walk) and beside the staged runs (Q = 32). None where no list can be that long, nor for a
  // product.
  batch b;
  for (const auto& [segments, queue] : {std::pair{1, 16}, std::pair{-1, 32}}) {
    jf::ir::nest::pairs_schedule_override() = {.warp_segments = segments, .warp_queue = queue};
    for (int arity : {2, 3})
      for (monoid m : {monoid::sum, monoid::max, monoid::argmax})
        for (bool guard : {false, true}) b.add(pairs_reduce(m, dtype::float32, arity, guard, guard));
    b.add(pairs_reduce(monoid::argmin, dtype::int64, 2, true, true, true));
    for (bool i32 : {false, true}) b.add(pairs_dielectron(true, true, i32));
    for (int arity : {2, 3}) b.add(pairs_with_list_values(arity, true));
    b.add(pairs_reduce(monoid::argmax, dtype::float32, 2, true, false, false));
  }
  jf::ir::nest::pairs_schedule_override() = {.warp_queue = 16};
  const int short_lists = generate_cuda(with_longest(pairs_dielectron(true, true, false), 16)).launch.pairs_warp_queue;
  const int product =
      generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, true, false, true, true)).launch.pairs_warp_queue;
  jf::ir::nest::pairs_schedule_override() = {};
  for (const kernel_source& k : b.kernels) {
    const bool segments = k.launch.pairs_warp_segments;
    EXPECT_EQ(k.launch.pairs_warp_queue, segments ? 16 : 32) << k.name;
    EXPECT_NE(k.source.find("The warp queue: lists of more than"), std::string::npos) << k.name;
    EXPECT_NE(k.source.find("the warp queue writes it"), std::string::npos) << k.name;
    EXPECT_EQ(k.source.find("the warp walks each"), std::string::npos) << k.name;  // (queued instead)
    EXPECT_NE(jf::ir::describe_launch(k).find("a warp each"), std::string::npos) << k.name;
  }
  EXPECT_EQ(short_lists, 0);  // (no list longer than 16: nothing to queue)
  EXPECT_EQ(product, 0);
  b.compile(20);
}

TEST(CodegenNestNvrtc, PairsKernelsSplitByWeight) {
  // pairs_schedule::list_weight: the runs split by weight (4 per combination, 4 per list), each
  // thread's first combination in shared memory taken from the staging buffer: the same shared
  // memory, so as many blocks per SM; pairs, triples, products, per-list values, run-time slots.
  const kernel_source even = generate_cuda(pairs_dielectron(true, true, false));
  jf::ir::nest::pairs_schedule_override().list_weight = 4;
  batch b;
  for (int arity : {2, 3})
    for (monoid m : {monoid::sum, monoid::argmax}) b.add(pairs_reduce(m, dtype::float32, arity, true, true));
  b.add(pairs_reduce(monoid::sum, dtype::int64, 2, true, true, true, true));
  b.add(pairs_dielectron(true, true, false));
  b.add(pairs_with_list_values(2, true));
  b.add(pairs_reduce(monoid::argmax, dtype::float32, 2, true, false, false));
  jf::ir::nest::pairs_schedule_override() = {};
  for (const kernel_source& k : b.kernels) {
    EXPECT_EQ(k.launch.pairs_list_weight, 4) << k.name;
    EXPECT_NE(k.source.find("first_at_unit(s_pre, t0, t1, 4,"), std::string::npos) << k.name;
  }
  const kernel_source& weighted = b.kernels[5];
  EXPECT_EQ(weighted.launch.static_shared_bytes, even.launch.static_shared_bytes);
  EXPECT_LT(weighted.launch.list_stage_items, even.launch.list_stage_items);
  EXPECT_EQ(even.launch.pairs_list_weight, 0);
  b.compile(20);
}

TEST(CodegenNestNvrtc, PairsKernelsOfEveryMonoidAndDtype) {
  batch b;
  for (int arity : {2, 3})
    for (monoid m : all_monoids)
      for (dtype t : some_dtypes) {
        if (!monoid_accepts(m, t)) continue;
        for (bool guard : {false, true}) b.add(pairs_reduce(m, t, arity, guard, guard));
      }
  for (bool i32 : {false, true}) {
    for (bool charge : {false, true}) b.add(pairs_dielectron(charge, true, i32));
    for (int arity : {2, 3}) b.add(pairs_with_list_values(arity, i32));
  }
  // Slots found from the strides at run time (no operand_desc::slot promise).
  for (int arity : {2, 3}) {
    b.add(pairs_with_list_values(arity, false, false));
    for (monoid m : {monoid::sum, monoid::argmax}) b.add(pairs_reduce(m, dtype::float32, arity, true, false, false));
  }
  b.add(pairs_dielectron(true, true, false, false));
  EXPECT_GT(b.kernels.size(), 150u);
  b.compile(20);
}
