// Kernel shape "full reduction": reduce(s) of one box chain into the root, e.g. sum(a*b).
// One launch, no host synchronisation: grid-stride accumulation of the fused producer per thread,
// a block tree, one partial per block in scratch, and the last block to finish combines the
// partials in block order and computes the root's nodes after the reductions (sqrt(sum(x*x))).
//
// Order of combination (fixed for given extents and device, so the bits repeat): each thread
// combines its elements t, t + step, ... in increasing order (with random leaves, the rows of its
// warp's chunks, philox_chunks.cpp: still increasing); a block combines its threads with
// jf_nest::group_allreduce's tree; the last block combines the partials b = tid, tid + 256, ... per
// thread in increasing order, then the same tree.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

void emit_full_reduction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const std::vector<std::int32_t> axes = g.chain_axes(p.inner);
  li.block = 256;
  li.reduced_axes = axes;

  e.header(p, cat("Every thread accumulates a grid-stride share of D", p.inner) +
                  "; blocks write partials, the last block to finish\ncombines them in block order and stores the "
                  "outputs.");
  e.args_struct();
  e.open_kernel("// Launch: 256-thread blocks, grid fixed by configure_launch; scratch: 1 counter + gridDim.x partials per reduction.\n");
  e.prologue("  ");
  s << "  const long long n = " << e.extent_product(axes) << ";  // iterations of D" << p.inner << "\n";

  // Root values the reduced domain reads (through broadcasts): every thread computes them first.
  std::vector<node_id> args;
  for (node_id r : e.f.reduces)
    for (int a = 0; a < g.at(r).nargs; ++a) args.push_back(g.at(r).args[static_cast<std::size_t>(a)]);
  const std::vector<char> need = e.f.closure(args);
  std::vector<char> need_root(need.size(), 0);
  for (std::size_t k = 0; k < need.size(); ++k) need_root[k] = need[k] && g.nodes[k].domain == 0;
  e.emit_nodes(need_root, "  ", "", emitter::which::all);

  for (node_id r : e.f.reduces)
    s << "  " << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";  // reduce %" << r << "\n";
  s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
  auto accumulate = [&](const std::string& ind, const std::string& flat) {
    for (node_id r : e.f.reduces) e.accumulate(ind, r, cat("acc", r), flat);
  };
  if (!e.chunked_loop("  ", axes, "n", need, accumulate))
    e.laned_loop("  ", "t", "static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x", "step", "n", axes, e.unroll(),
                 need, accumulate);

  s << "\n  // The block's total (tree order), one partial per block.\n";
  for (node_id r : e.f.reduces)
    s << "  acc" << r << " = jf_nest::group_allreduce(acc" << r << ", " << e.combine_lambda(r) << ", " << e.identity(r) << ");\n";
  e.scratch_pointers("  ", "1", "gridDim.x");
  s << "  __shared__ bool jf_last;\n";
  s << "  if (threadIdx.x == 0) {\n";
  for (node_id r : e.f.reduces) e.store_partial("    ", r, "blockIdx.x", cat("acc", r));
  s << "    __threadfence();  // the partials are visible before the counter says so\n";
  s << "    jf_last = atomicAdd(jf_counters, 1u) == gridDim.x - 1;\n";
  s << "  }\n";
  s << "  __syncthreads();\n";
  s << "  if (!jf_last) return;\n";
  s << "  __threadfence();\n";
  s << "\n  // The last block: every partial, in block order per thread, then the tree.\n";
  for (node_id r : e.f.reduces) {
    s << "  acc" << r << " = " << e.identity(r) << ";\n";
    s << "  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) acc" << r << " = " << e.combine_fn(r) << "(acc" << r
      << ", " << e.load_partial(r, "b") << ");\n";
    s << "  acc" << r << " = jf_nest::group_allreduce(acc" << r << ", " << e.combine_lambda(r) << ", " << e.identity(r) << ");\n";
  }
  s << "  if (threadIdx.x != 0) return;\n";
  s << "  jf_counters[0] = 0;  // ready for the next launch on the same scratch\n";
  for (node_id r : e.f.reduces) {
    const std::string v = cat("v", r);
    s << "  const " << e.T(g.at(r).type) << " " << v << " = " << e.result(r, cat("acc", r)) << ";\n";
    e.vname[static_cast<std::size_t>(r)] = v;
  }
  e.emit_nodes(e.f.closure(e.f.outputs_in(0)), "  ", "", emitter::which::all);
  e.store_outputs("  ", 0);
  e.close_kernel();
}

launch_config configure_full_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t n = product(li.reduced_axes, ext);
  // Enough blocks to fill the GPU twice over at most; at least 4 elements per thread per block-row.
  const std::int64_t by_work = (n + li.block * 4 - 1) / (li.block * 4);
  const std::int64_t blocks = std::clamp<std::int64_t>(by_work, 1, resident_blocks(dev, li.block) * 2);
  c.grid[0] = static_cast<unsigned>(blocks);
  c.block[0] = static_cast<unsigned>(li.block);
  c.scratch_bytes = scratch_bytes(li, 1, blocks);
  return c;
}

}  // namespace jf::ir::nest
