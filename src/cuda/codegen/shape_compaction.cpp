// Kernel shape "scan", compaction form: numpy's x[mask] and its relatives (lower_compaction: the
// selected values stored at positions that are an exclusive count of the mask over the whole
// flattened domain D). A reduce-then-scan in two launches of one kernel on one scratch buffer,
// tiles of 8192 consecutive elements of D, a 512-thread block per tile, each thread holding the 16
// consecutive elements thread * 16 .. + 15 of its tile (the blocked order):
//
//   launch 1: each tile's mask computed (one 16-byte load a thread where the mask is a contiguous
//     bool array, else the mask's nodes per element), its selected elements counted and the count
//     written to scratch, count_tiles (8) tiles a block, a bool array's words all loaded before any
//     is counted (the grid's other blocks return at once); the last block to finish turns the
//     counts into exclusive offsets.
//   launch 2: the same mask, the threads' counts scanned over the block, every element's rank in
//     its tile written to a table in shared memory (0xffff: not selected), then the tile read back
//     in the striped order (element j * 512 + thread: coalesced) and each selected element's value
//     computed and stored at offset + rank, in chunks of 8 whose loads are in flight together.
//
// No tile waits for another: measured on an H200 against the single-pass look-back the scan shape
// used for compactions before (bench/experiments/compaction_variants.cu, docs/benchmarks.md), the
// look-back's waits and its per-lane transposes were what bounded it, not DRAM. Integer counts are
// exact: the result is the same every run. Each block learns its launch from a ticket counter, as
// the scatter shape does.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int compaction_threads = 512;
constexpr int compaction_items = 16;  // consecutive elements a thread: one 16-byte word of a bool mask
constexpr int compaction_tile = compaction_threads * compaction_items;
// Launch 1's blocks count this many tiles each (the rest of its grid returns at once), a bool
// array mask's words all loaded before any is counted: with one tile a block its blocks were too
// short-lived to keep enough loads in flight (164 us for 16384 tiles of a 2^27-byte mask on an
// H200, ncu, where reading the mask takes about 35), with four counted one after another 110 us.
constexpr int count_tiles = 8;

constexpr const char* compaction_helpers = R"(
#ifndef JF_COMPACTION_HELPERS
#define JF_COMPACTION_HELPERS
namespace jf_compaction {
// Inclusive sum of one value per lane across a warp.
template <class T> __device__ __forceinline__ T warp_inclusive_sum(T v) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= static_cast<unsigned>(d)) v += y;
  }
  return v;
}
// Exclusive sum of one value per thread over the block (every thread calls it); *total gets the
// block's sum. `warps` is shared memory for blockDim.x / 32 values.
template <class T> __device__ __forceinline__ T block_exclusive_sum(T v, T* warps, T* total) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  const T inclusive = warp_inclusive_sum(v);
  if (lane == 31u) warps[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const T w = warp_inclusive_sum(lane < nwarps ? warps[lane] : T(0));
    __syncwarp();
    if (lane < nwarps) warps[lane] = w;
  }
  __syncthreads();
  *total = warps[nwarps - 1];
  const T before = (warp > 0 ? warps[warp - 1] : T(0)) + inclusive - v;
  __syncthreads();  // warps is free again
  return before;
}
// The last block of launch 1: the tiles' counts turned into exclusive offsets in place, each
// thread a run of consecutive tiles. The counts were written by other blocks: read past L1.
// Eight loads in flight a thread (one at a time, a run of 32 counts took 32 round trips to L2).
__device__ void tile_offsets(long long* counts, long long tiles, long long* warps) {
  const long long per = (tiles + blockDim.x - 1) / blockDim.x;
  const long long lo = min(tiles, static_cast<long long>(threadIdx.x) * per), hi = min(tiles, lo + per);
  long long sum = 0;
  for (long long q = lo; q < hi; q += 8) {
    long long c[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) c[u] = q + u < hi ? __ldcg(counts + q + u) : 0;
#pragma unroll
    for (int u = 0; u < 8; ++u) sum += c[u];
  }
  long long total;
  long long before = block_exclusive_sum(sum, warps, &total);
  for (long long q = lo; q < hi; q += 8) {
    long long c[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) c[u] = q + u < hi ? __ldcg(counts + q + u) : 0;
#pragma unroll
    for (int u = 0; u < 8; ++u)
      if (q + u < hi) {
        counts[q + u] = before;
        before += c[u];
      }
  }
  if (threadIdx.x == 0) counts[tiles] = total;
}
}  // namespace jf_compaction
#endif
)";

}  // namespace

void emit_compaction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const node_id sc = e.f.scans[0];
  const domain_id d = p.inner;
  const std::vector<std::int32_t> chain = g.chain_axes(d);
  if (axis_of_scan(g.at(sc)) >= 0 || p.outer <= 0)
    throw error("jf::ir codegen: internal error: a compaction scans its whole domain into an outer one");
  // Every store selects with the same mask (one compaction per graph, nest_analysis.cpp).
  const node_id mask = g.at(g.outputs[0].value).nargs == 3 ? g.at(g.outputs[0].value).args[2] : no_node;
  for (const output_desc& o : g.outputs) {
    const node& st = g.at(o.value);
    if (st.code != op::scatter || st.nargs != 3 || st.args[2] != mask)
      throw error("jf::ir codegen: internal error: a compaction's outputs are stores selected by one mask");
  }
  li.reduced_axes = chain;
  li.outer_axes = {};
  li.block = compaction_threads;
  li.scan_tile_items = compaction_items;
  li.scan_compaction = true;
  li.launches = 2;
  e.max_threads = compaction_threads;
  e.min_blocks = 2;
  const std::int32_t b_axis = g.dom(p.outer).axes[0];
  // Elements whose values are loaded before any of them is stored. 8 measured faster than all 16
  // of a thread's at 50 % selected (H200, bench_scan: 744 against 854 us; docs/benchmarks.md).
  const int store_chunk = compaction_items / 2;

  // The mask as 16-byte words: a bool input read over D itself, when at run time it is C-contiguous
  // over D's axes and its address 16-byte aligned (each thread's 16 elements are then one word).
  const node& mn = g.at(mask);
  const bool word_mask = mn.code == op::input && mn.domain == d &&
                         g.inputs[static_cast<std::size_t>(mn.index)].type == dtype::bool_ &&
                         g.inputs[static_cast<std::size_t>(mn.index)].gen == generator::none &&
                         g.inputs[static_cast<std::size_t>(mn.index)].lay == layout::contiguous;

  e.header(p, "Compaction: tiles of " + std::to_string(compaction_tile) +
                  " elements (512-thread blocks) launched twice: launch 1 counts each tile's selected\n"
                  "elements and its last block turns the counts into offsets; launch 2 stores each tile's\n"
                  "selected values at its offset plus their ranks (a table in shared memory).");
  s << compaction_helpers;
  e.args_struct();
  e.open_kernel(
      "// Launch: configure_compaction (twice, one scratch: a ticket counter, a done counter, the tiles' offsets).\n");
  e.prologue("  ");
  s << "  const long long L = " << e.extent_product(chain) << ";  // elements of D (flattened)\n";
  s << "  constexpr int items = " << compaction_items << ";\n";
  s << "  constexpr long long tile = " << compaction_tile << ";\n";
  s << "  const long long tiles = (L + tile - 1) / tile;\n";
  s << "  unsigned* jf_ticket = reinterpret_cast<unsigned*>(a.scratch);\n";
  s << "  unsigned* jf_done = jf_ticket + 1;\n";
  s << "  long long* jf_offsets = reinterpret_cast<long long*>(a.scratch + 16);  // per tile; then the total\n";
  s << "  __shared__ unsigned jf_launch;\n";
  s << "  __shared__ bool jf_last;\n";
  s << "  __shared__ unsigned jf_warps[" << compaction_threads / 32 << "];\n";
  s << "  __shared__ long long jf_warps64[" << compaction_threads / 32 << "];\n";
  s << "  __shared__ __align__(16) unsigned short jf_rank[tile];  // launch 2: each element's rank in its tile, 0xffff "
       "if not selected\n";
  s << "  if (threadIdx.x == 0) jf_launch = atomicAdd(jf_ticket, 1u) / gridDim.x;\n";
  s << "  __syncthreads();\n";
  s << "  const long long t = blockIdx.x;\n";
  s << "  const long long jf_t0 = t * tile;\n";
  s << "  const long long jf_base = jf_t0 + static_cast<long long>(threadIdx.x) * items;  // the thread's 16 "
       "elements\n";
  s << "  const long long jf_offset = jf_launch == 0 ? 0 : jf_offsets[t];  // launch 2: the tile's, loaded early\n";

  // The 16 mask values of the thread's elements base .. base + 15 as the bits of `bits`.
  const auto saved = e.vname;
  auto generic_mask = [&](const std::string& ind, const std::string& base, const std::string& bits) {
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 0; j < items; ++j) {\n";
    s << ind << "  if (" << base << " + j < L) {\n";
    e.unravel(ind + "    ", base + " + j", chain, "");
    e.emit_nodes(e.f.closure({mask}), ind + "    ", "", emitter::which::all);
    s << ind << "    if (static_cast<bool>(" << e.vname[static_cast<std::size_t>(mask)] << ")) " << bits
      << " |= 1u << j;\n";
    s << ind << "  }\n";
    s << ind << "}\n";
    e.vname = saved;
  };
  if (word_mask) {  // the run-time condition for 16-byte words
    const std::string in = cat("in", mn.index);
    std::string c_order = "(reinterpret_cast<unsigned long long>(" + in + ") & 15ull) == 0";
    std::string inner = "1LL";
    for (std::size_t i = chain.size(); i-- > 0;) {
      if (i + 1 < chain.size()) c_order += " && static_cast<long long>(st_" + in + cat("_", chain[i]) + ") == " + inner;
      inner += cat(" * e", chain[i]);
    }
    s << "  // The mask is a bool array: one 16-byte word a thread where it is C-contiguous and aligned.\n";
    s << "  const bool jf_words = " << c_order << ";\n";
  }
  auto mask_bits = [&](const std::string& ind, const std::string& base, const std::string& bits) {
    s << ind << "unsigned " << bits << " = 0;  // bit j: element " << base << " + j is selected\n";
    if (!word_mask) return generic_mask(ind, base, bits);
    s << ind << "if (jf_words && " << base << " + items <= L) {\n";
    s << ind << "  const uint4 w = *reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned char*>(in"
      << mn.index << ") + " << base << ");\n";
    s << ind << "  const unsigned words[4] = {w.x, w.y, w.z, w.w};\n";
    s << ind << "#pragma unroll\n";
    s << ind << "  for (int j = 0; j < items; ++j) " << bits
      << " |= (((words[j / 4] >> (8 * (j % 4))) & 0xffu) != 0u ? 1u : 0u) << j;\n";
    s << ind << "} else {\n";
    generic_mask(ind + "  ", base, bits);
    s << ind << "}\n";
  };

  s << "\n  if (jf_launch == 0) {  // LAUNCH 1: tiles counted, " << count_tiles
    << " a block (more loads in flight); the last block makes the offsets\n";
  s << "    const long long jf_first = t * " << count_tiles << ";\n";
  s << "    if (jf_first >= tiles) return;  // the grid is a block per tile: the rest of it has nothing to count\n";
  s << "    unsigned jf_n[" << count_tiles << "];  // the thread's selected elements in each tile\n";
  std::string ind = "    ";
  if (word_mask) {  // all the words' loads issued before any is counted
    s << "    if (jf_words && (jf_first + " << count_tiles << ") * tile <= L) {\n";
    s << "      uint4 jf_w[" << count_tiles << "];\n";
    s << "#pragma unroll\n";
    s << "      for (int u = 0; u < " << count_tiles << "; ++u)\n";
    s << "        jf_w[u] = *reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned char*>(in" << mn.index
      << ") + (jf_first + u) * tile + static_cast<long long>(threadIdx.x) * items);\n";
    s << "#pragma unroll\n";
    s << "      for (int u = 0; u < " << count_tiles << "; ++u)  // nonzero bytes: __vcmpne4 sets all 8 bits of each\n";
    s << "        jf_n[u] = (__popc(__vcmpne4(jf_w[u].x, 0u)) + __popc(__vcmpne4(jf_w[u].y, 0u)) + "
         "__popc(__vcmpne4(jf_w[u].z, 0u)) + __popc(__vcmpne4(jf_w[u].w, 0u))) >> 3;\n";
    s << "    } else {\n";
    ind = "      ";
  }
  s << ind << "#pragma unroll\n";
  s << ind << "for (int u = 0; u < " << count_tiles << "; ++u) {\n";
  s << ind << "  const long long jf_base1 = (jf_first + u) * tile + static_cast<long long>(threadIdx.x) * items;\n";
  mask_bits(ind + "  ", "jf_base1", "jf_bits1");
  s << ind << "  jf_n[u] = __popc(jf_bits1);\n";
  s << ind << "}\n";
  if (word_mask) s << "    }\n";
  s << "    // Each tile's total: warp sums, then a thread a tile adds its warps'.\n";
  s << "    __shared__ unsigned jf_sums[" << count_tiles << "][" << compaction_threads / 32 << "];\n";
  s << "#pragma unroll\n";
  s << "    for (int u = 0; u < " << count_tiles << "; ++u) {\n";
  s << "      const unsigned w = __reduce_add_sync(0xffffffffu, jf_n[u]);\n";
  s << "      if ((threadIdx.x & 31u) == 0u) jf_sums[u][threadIdx.x >> 5] = w;\n";
  s << "    }\n";
  s << "    __syncthreads();\n";
  s << "    if (threadIdx.x < " << count_tiles << "u && jf_first + threadIdx.x < tiles) {\n";
  s << "      long long total = 0;\n";
  s << "#pragma unroll\n";
  s << "      for (int w = 0; w < " << compaction_threads / 32 << "; ++w) total += jf_sums[threadIdx.x][w];\n";
  s << "      jf_offsets[jf_first + threadIdx.x] = total;\n";
  s << "      __threadfence();  // the count is visible before the block is counted done\n";
  s << "    }\n";
  s << "    __syncthreads();\n";
  s << "    if (threadIdx.x == 0)\n";
  s << "      jf_last = atomicAdd(jf_done, 1u) == static_cast<unsigned>((tiles + " << count_tiles - 1 << ") / "
    << count_tiles << ") - 1;\n";
  s << "    __syncthreads();\n";
  s << "    if (jf_last) {\n";
  s << "      __threadfence();\n";
  s << "      jf_compaction::tile_offsets(jf_offsets, tiles, jf_warps64);\n";
  s << "    }\n";
  s << "    return;\n";
  s << "  }\n";
  s << "\n  // LAUNCH 2: the tile's mask again, each thread's count scanned over the block.\n";
  mask_bits("  ", "jf_base", "jf_bits");
  s << "  unsigned jf_total;\n";
  s << "  unsigned jf_before = jf_compaction::block_exclusive_sum(static_cast<unsigned>(__popc(jf_bits)), jf_warps, "
       "&jf_total);\n";
  s << "  // The ranks, then the selected values stored at the tile's offset plus their rank.\n";
  s << "  unsigned jf_pack[items / 2];  // two ranks a word: the thread's 16 as two 16-byte stores\n";
  s << "#pragma unroll\n";
  s << "  for (int j = 0; j < items; ++j) {\n";
  s << "    const bool f = (jf_bits >> j) & 1u;\n";
  s << "    const unsigned r = f ? jf_before : 0xffffu;\n";
  s << "    jf_pack[j / 2] = j % 2 == 0 ? r : jf_pack[j / 2] | (r << 16);\n";
  s << "    jf_before += f ? 1u : 0u;\n";
  s << "  }\n";
  s << "  uint4* jf_mine = reinterpret_cast<uint4*>(jf_rank + threadIdx.x * items);\n";
  s << "  jf_mine[0] = make_uint4(jf_pack[0], jf_pack[1], jf_pack[2], jf_pack[3]);\n";
  s << "  jf_mine[1] = make_uint4(jf_pack[4], jf_pack[5], jf_pack[6], jf_pack[7]);\n";
  s << "  __syncthreads();\n";
  // Per chunk: every selected element's values first (their loads independent, in flight
  // together), then the stores at the positions (the output may alias an input as far as the
  // compiler knows). The ranks are read from shared memory again and the positions computed at the
  // stores, so that only the values occupy registers across the chunk (with positions and ranks
  // kept, a chunk of 16 spilled).
  // values: the element's axes fixed for its value's nodes (the positions need only the count).
  auto selected_element = [&](const std::string& in, bool values) {
    s << in << "const unsigned jf_r = jf_rank[(c + jj) * " << compaction_threads << " + threadIdx.x];\n";
    s << in << "if (jf_r != 0xffffu) {  // selected (so the element is before L)\n";
    if (values)
      e.unravel(in + "  ", "jf_t0 + (c + jj) * " + std::to_string(compaction_threads) + " + threadIdx.x", chain, "");
    e.vname[static_cast<std::size_t>(mask)] = "true";
    e.vname[static_cast<std::size_t>(sc)] = "(jf_offset + jf_r + 1)";  // the inclusive count
  };
  s << "#pragma unroll\n";
  s << "  for (int c = 0; c < items; c += " << store_chunk << ") {\n";
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    s << "    " << e.T(g.at(g.at(g.outputs[k].value).args[0]).type) << " jf_val" << k << "[" << store_chunk << "];\n";
  s << "#pragma unroll\n";
  s << "    for (int jj = 0; jj < " << store_chunk << "; ++jj) {\n";
  selected_element("      ", true);
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const node& st = g.at(g.outputs[k].value);
    e.emit_nodes(e.f.closure({st.args[0]}), "        ", "", emitter::which::all);
    s << "        jf_val" << k << "[jj] = " << e.vname[static_cast<std::size_t>(st.args[0])] << ";\n";
  }
  e.vname = saved;
  s << "      }\n";
  s << "    }\n";
  s << "#pragma unroll\n";
  s << "    for (int jj = 0; jj < " << store_chunk << "; ++jj) {\n";
  selected_element("      ", false);
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const node& st = g.at(g.outputs[k].value);
    e.emit_nodes(e.f.closure({st.args[1]}), "        ", "", emitter::which::all);
    const std::string ix = cat("ix", b_axis) + "_at";
    s << "        const I " << ix << " = static_cast<I>(" << e.vname[static_cast<std::size_t>(st.args[1])] << ");\n";
    e.axis[static_cast<std::size_t>(b_axis)] = ix;
    s << "        out" << k << "[" << e.offset(true, k, p.outer) << "] = jf_val" << k << "[jj];\n";
  }
  e.vname = saved;
  s << "      }\n";
  s << "    }\n";
  s << "  }\n";
  e.close_kernel();
}

launch_config configure_compaction(const launch_info& li, const std::int64_t* ext) {
  launch_config c;
  const std::int64_t len = product(li.reduced_axes, ext);
  if (len == 0) {
    c.grid[0] = 0;
    return c;
  }
  const std::int64_t tiles = (len + compaction_tile - 1) / compaction_tile;
  if (tiles > 0x7fffffff)
    throw error("jf::ir: a compaction of " + std::to_string(len) + " elements needs more tiles than a grid holds");
  c.grid[0] = static_cast<unsigned>(tiles);
  c.block[0] = compaction_threads;
  c.launches = 2;
  c.scratch_bytes = 16 + 8 * static_cast<std::size_t>(tiles + 1);  // two counters, the offsets and the total
  c.scratch_zero_bytes = 16;                                       // the counters
  return c;
}

std::string describe_compaction() {
  return cat("compaction: tiles of ", compaction_tile) +
         " elements (512-thread blocks), launched twice: each tile's selected elements counted and the "
         "counts scanned by the last block, then each tile's values stored at its offset plus their ranks";
}

}  // namespace jf::ir::nest
