// Kernel shape "histogram": one scatter of counts into a box of bins under the root (numpy's
// histogram and bincount), fused with the expression that computes each value's bin.
//
// Every thread takes a grid-stride share of the values' domain; where the guard holds it adds 1 to
// its warp group's copy of the block's counts in shared memory (unsigned: configure_histogram
// keeps a block under 2^31 values; several copies per block so that warps rarely contend for a
// bin). The block then adds its counts to the grid's (64-bit integer atomics on scratch), and the
// last block to finish stores them. Without room in shared memory (many bins, or a value other
// than 1) threads add to the grid's counts directly. Integer sums: the same bits on every run.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

void emit_histogram(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const node_id sc = e.f.scatters[0];
  const node& n = g.at(sc);
  const std::vector<std::int32_t> axes = g.chain_axes(p.inner);
  const std::int32_t bin_axis = g.dom(p.outer).axes[0];
  const node& value = g.at(n.args[0]);
  li.block = 256;
  li.reduced_axes = axes;
  li.outer_axes = {bin_axis};
  li.private_counts = value.code == op::constant && value.value.i == 1;

  e.header(p, cat("Every thread takes a grid-stride share of D", p.inner) + cat(" and counts into the bins of D", p.outer) +
                  (li.private_counts ? " (block counts in shared memory when they fit)" : " (global counts)") +
                  ";\nthe last block stores the grid's counts.");
  e.args_struct();
  e.open_kernel("// Launch: 256-thread blocks, grid and dynamic shared memory (copies x bins unsigned counts, 0: none) from\n"
                "// configure_histogram; scratch: 1 counter (16 bytes) + bins 64-bit counts, zeroed by the launcher.\n");
  e.prologue("  ");
  s << "  const long long n = " << e.extent_product(axes) << ";  // iterations of D" << p.inner << "\n";
  s << "  const long long bins = e" << bin_axis << ";\n";
  std::vector<node_id> args;
  for (int a = 0; a < n.nargs; ++a) args.push_back(n.args[static_cast<std::size_t>(a)]);
  const std::vector<char> need = e.f.closure(args);
  std::vector<char> need_root(need.size(), 0);
  for (std::size_t k = 0; k < need.size(); ++k) need_root[k] = need[k] && g.nodes[k].domain == 0;
  e.emit_nodes(need_root, "  ", "", emitter::which::all);

  s << "  unsigned* jf_counters = reinterpret_cast<unsigned*>(a.scratch);\n";
  s << "  unsigned long long* jf_counts = reinterpret_cast<unsigned long long*>(a.scratch + 16);\n";
  if (li.private_counts) {
    s << "  extern __shared__ unsigned jf_private[];\n";
    s << "  const long long copies = static_cast<long long>(jf_nest::dynamic_smem_bytes() / 4u) / bins;\n";
    s << "  unsigned* jf_mine = jf_private + (copies > 0 ? static_cast<long long>(threadIdx.x >> 5) % copies : 0) * bins;\n";
    s << "  for (long long i = threadIdx.x; i < copies * bins; i += blockDim.x) jf_private[i] = 0u;\n";
    s << "  __syncthreads();\n";
  }
  s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
  auto count = [&](const std::string& ind, const std::string&) {
    const std::string& ix = e.vname[static_cast<std::size_t>(n.args[1])];
    s << ind;
    if (n.nargs == 3) s << "if (" << e.vname[static_cast<std::size_t>(n.args[2])] << ") ";
    // In range by construction (numpy's bins, bincount's checked length); never written outside.
    s << "if (static_cast<unsigned long long>(" << ix << ") < static_cast<unsigned long long>(bins)) {\n";
    if (li.private_counts)
      s << ind << "  if (copies > 0) atomicAdd(jf_mine + " << ix << ", 1u);\n"
        << ind << "  else atomicAdd(jf_counts + " << ix << ", 1ull);\n";
    else
      s << ind << "  atomicAdd(jf_counts + " << ix << ", static_cast<unsigned long long>("
        << e.vname[static_cast<std::size_t>(n.args[0])] << "));\n";
    s << ind << "}\n";
  };
  if (!e.chunked_loop("  ", axes, "n", need, count))
    e.laned_loop("  ", "t", "static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x", "step", "n", axes, e.unroll(),
                 need, count);
  if (e.chunk_words) li.static_shared_bytes += 8192;
  if (li.private_counts) {
    s << "\n  // The block's counts (its copies summed) into the grid's.\n";
    s << "  __syncthreads();\n";
    s << "  if (copies > 0)\n";
    s << "    for (long long i = threadIdx.x; i < bins; i += blockDim.x) {\n";
    s << "      unsigned long long c = 0;\n";
    s << "      for (long long k = 0; k < copies; ++k) c += jf_private[k * bins + i];\n";
    s << "      if (c) atomicAdd(jf_counts + i, c);\n";
    s << "    }\n";
  }
  s << "  __threadfence();  // this block's counts are visible before the counter says so\n";
  s << "  __syncthreads();\n";
  s << "  __shared__ bool jf_last;\n";
  s << "  if (threadIdx.x == 0) jf_last = atomicAdd(jf_counters, 1u) == gridDim.x - 1;\n";
  s << "  __syncthreads();\n";
  s << "  if (!jf_last) return;\n";
  s << "  __threadfence();\n";
  s << "\n  // The last block stores the counts.\n";
  s << "  for (long long i = threadIdx.x; i < bins; i += blockDim.x) {\n";
  s << "    const I ix" << bin_axis << " = static_cast<I>(i);\n";
  e.axis[static_cast<std::size_t>(bin_axis)] = cat("ix", bin_axis);
  s << "    out0[" << e.offset(true, 0, p.outer) << "] = static_cast<long long>(jf_nest::load_volatile(jf_counts + i));\n";
  s << "  }\n";
  e.close_kernel();
}

launch_config configure_histogram(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t n = product(li.reduced_axes, ext);
  const std::int64_t bins = product(li.outer_axes, ext);
  // Enough blocks to fill the GPU twice over at most, at least 4 values per thread, and fewer
  // than 2^31 values per block (its unsigned shared counts cannot wrap).
  const std::int64_t by_work = (n + li.block * 4 - 1) / (li.block * 4);
  std::int64_t blocks = std::clamp<std::int64_t>(by_work, 1, resident_blocks(dev, li.block) * 2);
  blocks = std::max<std::int64_t>(blocks, (n >> 31) + 1);
  c.grid[0] = static_cast<unsigned>(blocks);
  c.block[0] = static_cast<unsigned>(li.block);
  // One copy of the counts per warp (8), as many as fit in 32 KiB (no opt-in needed).
  const std::size_t fixed = 2048 + static_cast<std::size_t>(li.static_shared_bytes);  // jf_last, chunked Philox words
  const std::size_t room = std::min<std::size_t>(32768, dev.shared_per_block > fixed ? dev.shared_per_block - fixed : 0);
  const std::size_t one = static_cast<std::size_t>(bins) * 4;
  if (li.private_counts && bins > 0 && one <= room) c.shared_bytes = std::min<std::size_t>(8, room / one) * one;
  c.scratch_bytes = 16 + 8 * static_cast<std::size_t>(bins);
  return c;
}

}  // namespace jf::ir::nest
