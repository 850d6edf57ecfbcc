// Kernel shape "column reduction": reduce(s) into box K (under the root) from box R under it where
// the fastest axis is in K, e.g. sum(x, axis=0) of a row-major matrix. A thread per iteration of K
// (a column: consecutive threads read consecutive elements), looping over R. When K is small for
// the GPU, R is split over blockIdx.y: each split writes its partial per column to scratch and the
// last block of a column tile (a counter per tile) combines the splits and stores the outputs.
//
// Order of combination: a thread combines its rows in increasing order; splits are combined in
// order 0, 1, ... gridDim.y - 1. gridDim.y is fixed by configure_launch for given extents and device.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

void emit_column_reduction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const std::vector<std::int32_t> k_axes = g.dom(p.outer).axes, r_axes = g.dom(p.inner).axes;
  li.block = 256;
  li.outer_axes = k_axes;
  li.reduced_axes = r_axes;

  e.header(p, cat("A thread per column (an iteration of D", p.outer) + "), looping over its split of D" +
                  std::to_string(p.inner) + " (blockIdx.y);\nwith several splits the last block of each column tile "
                  "combines their partials in split order.");
  e.args_struct();
  e.open_kernel("// Launch: 256-thread blocks; grid = (column tiles, splits); scratch: a counter per tile + splits * n_cols partials.\n");
  e.prologue("  ");
  s << "  const long long n_cols = " << e.extent_product(k_axes) << ";  // iterations of D" << p.outer << "\n";
  s << "  const long long n_len = " << e.extent_product(r_axes) << ";  // iterations of D" << p.inner << " per column\n";
  s << "  const long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  s << "  const bool active = col < n_cols;  // inactive threads still take part in the tile's counter\n";
  s << "  const long long splits = gridDim.y;\n";
  s << "  const long long chunk = (n_len + splits - 1) / splits;\n";
  s << "  const long long lo = static_cast<long long>(blockIdx.y) * chunk;\n";
  s << "  const long long hi = lo + chunk < n_len ? lo + chunk : n_len;\n";

  std::vector<node_id> args;
  for (node_id r : e.f.reduces)
    for (int a = 0; a < g.at(r).nargs; ++a) args.push_back(g.at(r).args[static_cast<std::size_t>(a)]);
  const std::vector<char> need = e.f.closure(args);
  std::vector<char> need_outer(need.size(), 0);
  for (std::size_t k = 0; k < need.size(); ++k)
    need_outer[k] = need[k] && (g.nodes[k].domain == 0 || g.nodes[k].domain == p.outer);

  for (node_id r : e.f.reduces)
    s << "  " << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";  // reduce %" << r << "\n";
  s << "  if (active) {\n";
  {
    const auto saved_v = e.vname;
    const auto saved_a = e.axis;
    e.unravel("    ", "col", k_axes, "");
    e.emit_nodes(need_outer, "    ", "", emitter::which::all);
    // The split's rows as written, 8 a trip (nest_emitter.hpp): on an H200, sum(x, 0) of 4096x32768
    // / 32768x4096 float32 took 131-135 / 136-139 us pinned against 134 / 138-140 unrolled by NVVM
    // (A/B on one machine, rebuilt between, four runs each).
    e.pin_trip_loops = true;
    e.laned_loop("    ", "j", "lo", "1", "hi", r_axes, e.unroll(), need, [&](const std::string& ind, const std::string& flat) {
      for (node_id r : e.f.reduces) e.accumulate(ind, r, cat("acc", r), flat);
    });
    e.vname = saved_v;
    e.axis = saved_a;
  }
  s << "  }\n";
  s << "  if (splits > 1) {\n";
  e.scratch_pointers("    ", "gridDim.x", "splits * n_cols");
  s << "    if (active) {\n";
  for (node_id r : e.f.reduces) e.store_partial("      ", r, "blockIdx.y * n_cols + col", cat("acc", r));
  s << "    }\n";
  e.last_split_block("    ", "blockIdx.x", "return");
  s << "    if (active) {  // the column's splits, in order\n";
  for (node_id r : e.f.reduces) e.combine_splits("      ", r, cat("acc", r), "splits", "y * n_cols + col");
  s << "    }\n";
  s << "  }\n";
  s << "  if (!active) return;\n";
  e.unravel("  ", "col", k_axes, "");
  for (node_id r : e.f.reduces) {
    const std::string v = cat("v", r);
    s << "  const " << e.T(g.at(r).type) << " " << v << " = " << e.result(r, cat("acc", r)) << ";\n";
    e.vname[static_cast<std::size_t>(r)] = v;
  }
  e.emit_nodes(e.f.closure(e.f.outputs_in(p.outer)), "  ", "", emitter::which::all);
  e.store_outputs("  ", p.outer);
  e.close_kernel();
}

launch_config configure_column_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t cols = product(li.outer_axes, ext), len = product(li.reduced_axes, ext);
  const std::int64_t tiles = (cols + li.block - 1) / li.block;
  c.block[0] = static_cast<unsigned>(li.block);
  c.grid[0] = static_cast<unsigned>(tiles);  // 0 columns: nothing to launch
  if (tiles == 0) return c;
  // Split the columns' rows until one wave of blocks runs, not more, keeping 256 rows or more a
  // split (512 for 8-byte partials). Measured on an H200 (bench/experiments/column_sum_in_jetfuse.cu),
  // this kernel's shape on a 32768 x 4096 float32 matrix (16 column tiles) with 128 / 256 / 512 rows
  // a split: 143.2 / 131.6 / 126.4 us (2048 blocks, two waves, was the rule: 131.6); 4096 x 32768
  // (128 tiles) with 9 splits (1152 blocks, past the wave) 145.5 us, with 8 126.9; on 10000 x 5000
  // (column_sum_variants.cu) float32 with 128 / 256 / 512 rows a split 61.6 / 57.2 / 61.9 us,
  // float64 108.3 / 102.1 / 97.7 us. Fewer splits shorten the last block's combine until too few
  // loads are in flight; 8-byte values keep twice the bytes in flight per load.
  int widest = 0;
  for (int b : li.partial_bytes) widest = std::max(widest, b);
  const int wide = widest >= 8 ? 2 : 1;
  const std::int64_t target = resident_blocks(dev, li.block);
  std::int64_t splits = tiles >= target ? 1 : target / tiles;
  splits = std::min(splits, std::max<std::int64_t>(1, len / (256 * wide)));
  splits = std::clamp<std::int64_t>(splits, 1, dev.max_grid_y);
  c.grid[1] = static_cast<unsigned>(splits);
  if (splits > 1) {
    c.scratch_bytes = scratch_bytes(li, tiles, splits * cols);
    c.scratch_zero_bytes = align16(4 * static_cast<std::size_t>(tiles));  // the tiles' counters
    c.counters_reset_by_kernel = true;  // the last block of each tile resets its counter
  }
  return c;
}

}  // namespace jf::ir::nest
