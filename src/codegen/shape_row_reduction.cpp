// Kernel shapes "row reduction" and "row reduction with map": reduce(s) into box K (under the
// root) from box R under it, e.g. sum(x, axis=1); with map, K also holds rows of element-wise work
// in box(es) below K that read the reduced value (x - mean(x, 1, keepdims)).
//
// A group of blockDim.x threads handles one row (an iteration of K) at a time: a warp (blockDim =
// 32x8, 8 rows per block) for short rows, the whole 256-thread block for long ones, chosen at launch
// from the row length. The group strides over the row, combines with jf_nest::group_allreduce
// (every thread of the group gets the row's value), thread 0 stores K's outputs, then the group
// runs the map domains over the same row. Rows are a grid-stride loop over groups.
//
// Order of combination: thread x combines elements x, x + blockDim.x, ... in increasing order, then
// the warp tree, then (blocks) the tree of warps. It depends on blockDim.x only, i.e. on the row
// length: the same bits on every run and on every device.
#include <algorithm>

#include "codegen/nest_emitter.hpp"

namespace jf::ir::nest {

void emit_row_reduction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const bool with_map = p.shape == kernel_shape::row_with_map;
  const std::vector<std::int32_t> k_axes = g.dom(p.outer).axes, r_axes = g.dom(p.inner).axes;
  li.block = 256;
  li.outer_axes = k_axes;
  li.reduced_axes = r_axes;
  for (domain_id m : p.map_domains)
    for (std::int32_t a : g.dom(m).axes)
      if (std::find(li.map_axes.begin(), li.map_axes.end(), a) == li.map_axes.end()) li.map_axes.push_back(a);

  std::string plan = cat("A group of blockDim.x threads per row (an iteration of D", p.outer) +
                     cat("): it reduces D", p.inner) + " over the row";
  if (with_map) {
    plan += ",\nshares the result, then runs the element-wise work of";
    for (domain_id m : p.map_domains) plan += cat(" D", m);
    plan += " for the same row";
  }
  e.header(p, plan + ".");
  e.args_struct();
  e.open_kernel("// Launch: blockDim = (32, 8) (a warp per row) or (256, 1) (a block per row), from the row length.\n");
  e.prologue("  ");
  s << "  const long long n_rows = " << e.extent_product(k_axes) << ";  // iterations of D" << p.outer << "\n";
  s << "  const long long n_len = " << e.extent_product(r_axes) << ";  // iterations of D" << p.inner << " per row\n";
  s << "  const long long lane = threadIdx.x, lanes = blockDim.x;\n";
  s << "  for (long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; row < n_rows;\n"
    << "       row += static_cast<long long>(gridDim.x) * blockDim.y) {  // the same for the whole group\n";
  const std::string ind = "    ";
  e.unravel(ind, "row", k_axes, "");

  std::vector<node_id> args;
  for (node_id r : e.f.reduces)
    for (int a = 0; a < g.at(r).nargs; ++a) args.push_back(g.at(r).args[static_cast<std::size_t>(a)]);
  const std::vector<char> need = e.f.closure(args);
  std::vector<char> need_outer(need.size(), 0);  // the row's values the reduced domain reads
  for (std::size_t k = 0; k < need.size(); ++k)
    need_outer[k] = need[k] && (g.nodes[k].domain == 0 || g.nodes[k].domain == p.outer);
  e.emit_nodes(need_outer, ind, "", emitter::which::all);

  for (node_id r : e.f.reduces)
    s << ind << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";  // reduce %" << r << "\n";
  e.laned_loop(ind, "j", "lane", "lanes", "n_len", r_axes, e.unroll(), need, [&](const std::string& in2, const std::string& flat) {
    for (node_id r : e.f.reduces) e.accumulate(in2, r, cat("acc", r), flat);
  });
  s << ind << "// The row's value, in every thread of the group.\n";
  for (node_id r : e.f.reduces) {
    const std::string v = cat("v", r);
    s << ind << "const " << e.acc_type(r) << " red" << r << " = jf_nest::group_allreduce(acc" << r << ", "
      << e.combine_lambda(r) << ", " << e.identity(r) << ");\n";
    s << ind << "const " << e.T(g.at(r).type) << " " << v << " = " << e.result(r, cat("red", r)) << ";\n";
    e.vname[static_cast<std::size_t>(r)] = v;
  }
  // K's own values after the reductions (every thread: the map work may read them).
  std::vector<node_id> k_targets = e.f.outputs_in(p.outer);
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (g.nodes[k].code == op::broadcast && g.nodes[k].domain != p.outer) k_targets.push_back(g.nodes[k].args[0]);
  std::vector<char> need_k = e.f.closure(k_targets);
  for (std::size_t k = 0; k < need_k.size(); ++k)
    need_k[k] = need_k[k] && (g.nodes[k].domain == 0 || g.nodes[k].domain == p.outer);
  e.emit_nodes(need_k, ind, "", emitter::which::all);
  if (!e.f.outputs_in(p.outer).empty()) {
    s << ind << "if (lane == 0) {\n";
    e.store_outputs(ind + "  ", p.outer);
    s << ind << "}\n";
  }
  for (domain_id m : p.map_domains) {
    const std::vector<std::int32_t> m_axes = g.dom(m).axes;
    s << ind << "// The row's element-wise work over D" << m << ".\n";
    s << ind << "{\n";
    const std::string in2 = ind + "  ";
    s << in2 << "const long long n_map = " << e.extent_product(m_axes) << ";\n";
    const auto saved = e.vname;
    e.forget_below(p.outer);
    std::vector<char> need_m = e.f.closure(e.f.outputs_in(m));
    e.laned_loop(in2, "j", "lane", "lanes", "n_map", m_axes, std::min(4, e.unroll()), need_m,
                 [&](const std::string& in3, const std::string&) { e.store_outputs(in3, m); });
    e.vname = saved;
    s << ind << "}\n";
  }
  s << "  }\n";
  e.close_kernel();
}

launch_config configure_row_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t rows = product(li.outer_axes, ext);
  std::int64_t len = product(li.reduced_axes, ext);
  if (!li.map_axes.empty()) len = std::max(len, product(li.map_axes, ext));
  // A block per row once every thread of it has 8 elements or more; else a warp per row.
  const bool block_per_row = len >= 2048;
  c.block[0] = block_per_row ? 256 : 32;
  c.block[1] = block_per_row ? 1 : 8;
  const std::int64_t per_block = c.block[1];
  const std::int64_t blocks = std::min<std::int64_t>((rows + per_block - 1) / per_block, resident_blocks(dev, 256) * 4);
  c.grid[0] = static_cast<unsigned>(blocks);  // 0 rows: nothing to launch
  return c;
}

}  // namespace jf::ir::nest
