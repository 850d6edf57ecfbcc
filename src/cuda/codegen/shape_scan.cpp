// Kernel shape "scan": one scan node (numpy's cumsum, cumprod) along one axis of its domain D, or
// along D's whole chain flattened, with its producers computed per element before the scan and
// its consumers (the outputs, all stored over D) after it. Three ways to run, by where the scanned
// axis lies and, at launch, how long it is (configure_scan; the kernel tells them by blockDim.x):
//
//  - rows (the scanned axes hold the fastest axis), long rows or one row: TILE MODE. A 256-thread
//    block scans a tile of 256 * items consecutive elements of a row; tiles are numbered by an
//    atomic counter in scratch in the order blocks start, so a block only ever waits for blocks
//    that already run (no deadlock whatever the scheduler does). Single-pass decoupled look-back:
//    a block publishes its tile's aggregate (status 1), finds the latest earlier tile of its row
//    whose inclusive prefix is published (status 2), and folds the aggregates after it forward in
//    tile order onto that prefix; it then publishes its own inclusive prefix (status 2). Every
//    inclusive prefix is therefore the left fold agg(0) + agg(1) + ... + agg(t) whatever tile the
//    look-back stopped at, so floating-point results are the same bits every run. Integers are
//    exact in any order: their look-back combines each step of 32 tiles as a warp tree (CUB's),
//    which keeps the look-back short. Status words, aggregates and prefixes live in the zeroed
//    scratch of the loop-nest ABI.
//  - rows, short ones (at most warp_row_max elements) and several of them: WARP MODE, a warp per
//    row, segments of 32 * items elements in order with a carry.
//  - the scanned axis is not the fastest: COLUMN MODE, a thread per row (rows numbered with the
//    fastest axis fastest, so neighbouring threads read neighbouring elements), serially along the
//    axis: numpy's own order.
//
// Order of combination within a tile or segment (fixed): lane l of a warp holds elements
// j * 32 + l (j < items, coalesced loads); each 32-element row j is scanned across the warp
// (Kogge-Stone: lane l combines with lane l - d for d = 1, 2, 4, 8, 16), then combined onto the
// carry of rows 0..j-1; a warp's total is its last carry; in tile mode the warps' totals are
// folded left to right, warp w's elements combined onto the fold of the totals before it, then
// onto the tile's exclusive prefix. An element's value is thus prefix + (warps before + (rows
// before + row scan)): for floats not numpy's sequential sum, but within the same n * eps bound
// (docs/design.md), and the same bits every run. Integer results are exact (wrapping as numpy's).
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int tile_threads = 256;
constexpr int tile_items = 16;    // elements per lane in a tile: tiles of 4096
constexpr int warp_items = 4;     // per lane in a warp-mode segment: segments of 128
constexpr std::int64_t warp_row_max = 4096;

constexpr const char* scan_helpers = R"(
#ifndef JF_SCAN_HELPERS
#define JF_SCAN_HELPERS
namespace jf_scan {
// Inclusive scan of one value per lane across a warp, in a fixed order (Kogge-Stone).
template <class T, class C> __device__ __forceinline__ T warp_inclusive(T v, C combine) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= static_cast<unsigned>(d)) v = combine(y, v);
  }
  return v;
}
template <class T> __device__ __forceinline__ T lane_value(T v, int lane) { return __shfl_sync(0xffffffffu, v, lane); }
__device__ __forceinline__ void store_volatile(unsigned* p, unsigned v) { *static_cast<volatile unsigned*>(p) = v; }
}  // namespace jf_scan
#endif
)";

std::size_t align16(std::size_t b) { return (b + 15) & ~std::size_t(15); }

}  // namespace

void emit_scan(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  // Without a scan (the stores of a compaction whose positions were computed before): a thread per
  // iteration, the "column" loop with nothing scanned.
  const bool has_scan = !e.f.scans.empty();
  const node_id sc = has_scan ? e.f.scans[0] : no_node;
  const domain_id d = p.inner;
  const std::vector<std::int32_t> chain = g.chain_axes(d);
  const std::int32_t ax = has_scan ? axis_of_scan(g.at(sc)) : -1;
  std::vector<std::int32_t> scanned, rows;
  if (!has_scan) scanned = {};
  else if (ax < 0) scanned = chain;
  else scanned = {ax};
  for (std::int32_t a : chain)
    if (std::find(scanned.begin(), scanned.end(), a) == scanned.end()) rows.push_back(a);
  const std::int32_t fastest = chain.empty() ? -1 : *std::max_element(chain.begin(), chain.end());
  li.scan_columns = !has_scan || std::find(scanned.begin(), scanned.end(), fastest) == scanned.end();
  if (li.scan_columns) std::sort(rows.begin(), rows.end());  // the fastest axis varies fastest across threads
  li.reduced_axes = scanned;
  li.outer_axes = rows;
  li.block = tile_threads;
  li.scan_tile_items = tile_items;
  li.scan_warp_items = warp_items;
  const dtype vt = has_scan ? g.at(sc).type : dtype::int64;
  li.scan_value_bytes = size_of(vt);
  e.max_threads = tile_threads;
  e.min_blocks = 4;  // 64 registers: 1024 threads per SM keep loads in flight while blocks look back

  const std::string T = e.T(vt);
  const std::string m = has_scan ? std::string(name(monoid_of_scan(g.at(sc)))) : "sum";
  const std::string combine = "[](" + T + " x, " + T + " y) { return jf::ops::jf_" + m + "_combine(x, y); }";
  const std::string identity = "jf::ops::jf_" + m + "_identity<" + T + ">()";
  const node_id arg = has_scan ? g.at(sc).args[0] : no_node;
  const std::vector<char> need_arg = e.f.closure({arg});
  std::vector<node_id> outs;
  for (const output_desc& o : g.outputs) outs.push_back(o.value);
  const std::vector<char> need_out = e.f.closure(outs);
  // The outputs at the current element: stored over D, or (compaction) the selected values stored
  // at their positions along B's axis (values computed only where selected: unselected elements of
  // a sparse selection are not read).
  const std::int32_t b_axis = p.outer > 0 ? g.dom(p.outer).axes[0] : -1;
  auto store_outputs = [&](const std::string& ind) {
    if (e.f.scatters.empty()) {
      e.emit_nodes(need_out, ind, "", emitter::which::all);
      e.store_outputs(ind, d);
      return;
    }
    for (std::size_t k = 0; k < g.outputs.size(); ++k) {
      const node& st = g.at(g.outputs[k].value);
      std::vector<node_id> at{st.args[1]};
      if (st.nargs == 3) at.push_back(st.args[2]);
      e.emit_nodes(e.f.closure(at), ind, "", emitter::which::all);
      const auto before = e.vname;
      s << ind << "if (" << (st.nargs == 3 ? e.vname[static_cast<std::size_t>(st.args[2])] : std::string("true")) << ") {\n";
      const std::string ix = cat("ix", b_axis) + "_at";
      s << ind << "  const I " << ix << " = static_cast<I>(" << e.vname[static_cast<std::size_t>(st.args[1])] << ");\n";
      e.axis[static_cast<std::size_t>(b_axis)] = ix;
      e.emit_nodes(e.f.closure({st.args[0]}), ind + "  ", "", emitter::which::all);
      s << ind << "  out" << k << "[" << e.offset(true, k, p.outer) << "] = " << e.vname[static_cast<std::size_t>(st.args[0])]
        << ";\n";
      s << ind << "}\n";
      e.vname = before;
    }
  };

  e.header(p, std::string(li.scan_columns ? "A thread per row, serially along the scanned axis."
                                          : "Tiles of a row with a decoupled look-back (256-thread blocks), or a warp per "
                                            "short row;\nproducers computed as elements are loaded, outputs stored after "
                                            "the scan.") +
                  (p.outer > 0 ? "\nCompaction: the selected values stored at their positions (an exclusive count)." : ""));
  s << scan_helpers;
  e.args_struct();
  e.open_kernel("// Launch: configure_scan (blockDim.x 256: tiles, or a thread per row; 32: a warp per row).\n");
  e.prologue("  ");
  s << "  const long long L = " << e.extent_product(scanned) << ";  // elements of a row (scanned)\n";
  s << "  const long long rows = " << e.extent_product(rows) << ";\n";
  s << "  const auto combine = " << combine << ";\n";

  const auto saved = e.vname;
  // The operand at position i of the current row (its axes fixed): defines `dst` when i < L.
  auto load_element = [&](const std::string& ind, const std::string& i, const std::string& dst) {
    s << ind << dst << " = " << identity << ";  // past the row's end: not stored\n";
    s << ind << "if (" << i << " < L) {\n";
    e.unravel(ind + "  ", i, scanned, "");
    e.emit_nodes(need_arg, ind + "  ", "", emitter::which::all);
    s << ind << "  " << dst << " = " << e.vname[static_cast<std::size_t>(arg)] << ";\n";
    s << ind << "}\n";
    e.vname = saved;
  };
  // The outputs at position i, the scan's value being `value`.
  auto store_element = [&](const std::string& ind, const std::string& i, const std::string& value) {
    s << ind << "if (" << i << " < L) {\n";
    e.unravel(ind + "  ", i, scanned, "");
    s << ind << "  const " << T << " " << cat("v", sc) << " = " << value << ";\n";
    e.vname[static_cast<std::size_t>(sc)] = cat("v", sc);
    store_outputs(ind + "  ");
    s << ind << "}\n";
    e.vname = saved;
  };
  // A warp's segment of 32 * items elements from position `seg` of the row: loaded into jf_v,
  // scanned across the warp row by row onto the carry (jf_carry, jf_has_carry).
  auto segment = [&](const std::string& ind, int items, const std::string& seg) {
    s << ind << T << " jf_v[" << items << "];\n";
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 0; j < " << items << "; ++j) {\n";
    s << ind << "  const long long jf_i = " << seg << " + j * 32 + jf_lane;\n";
    load_element(ind + "  ", "jf_i", "jf_v[j]");
    s << ind << "}\n";
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 0; j < " << items << "; ++j) {\n";
    s << ind << "  jf_v[j] = jf_scan::warp_inclusive(jf_v[j], combine);\n";
    s << ind << "  if (jf_has_carry) jf_v[j] = combine(jf_carry, jf_v[j]);\n";
    s << ind << "  jf_carry = jf_scan::lane_value(jf_v[j], 31);\n";
    s << ind << "  jf_has_carry = true;\n";
    s << ind << "}\n";
  };
  auto store_segment = [&](const std::string& ind, int items, const std::string& seg) {
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 0; j < " << items << "; ++j) {\n";
    s << ind << "  const long long jf_i = " << seg << " + j * 32 + jf_lane;\n";
    store_element(ind + "  ", "jf_i", "jf_v[j]");
    s << ind << "}\n";
  };

  if (li.scan_columns) {
    s << "\n  // A thread per row, serially along the scanned axis (numpy's order).\n";
    s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
    s << "  for (long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += step) {\n";
    e.unravel("    ", "row", rows, "_r");
    if (has_scan) s << "    " << T << " jf_acc = " << identity << ";\n";
    s << "#pragma unroll 8\n";
    s << "    for (long long jf_i = 0; jf_i < L; ++jf_i) {\n";
    e.unravel("      ", "jf_i", scanned, "");
    if (has_scan) {
      e.emit_nodes(need_arg, "      ", "", emitter::which::all);
      s << "      jf_acc = jf_i == 0 ? " << e.vname[static_cast<std::size_t>(arg)] << " : combine(jf_acc, "
        << e.vname[static_cast<std::size_t>(arg)] << ");\n";
      e.vname = saved;
      s << "      const " << T << " " << cat("v", sc) << " = jf_acc;\n";
      e.vname[static_cast<std::size_t>(sc)] = cat("v", sc);
    }
    store_outputs("      ");
    e.vname = saved;
    s << "    }\n";
    s << "  }\n";
    e.close_kernel();
    return;
  }

  s << "  const unsigned jf_lane = threadIdx.x & 31u;\n";
  s << "\n  if (blockDim.x == 32) {  // WARP MODE: a warp per row (threadIdx.y picks the row)\n";
  s << "    const long long step = static_cast<long long>(gridDim.x) * blockDim.y;\n";
  s << "    for (long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows; row += step) {\n";
  e.unravel("      ", "row", rows, "_r");
  s << "      " << T << " jf_carry = " << identity << ";\n";
  s << "      bool jf_has_carry = false;\n";
  s << "      for (long long jf_seg = 0; jf_seg < L; jf_seg += " << 32 * warp_items << ") {\n";
  segment("        ", warp_items, "jf_seg");
  store_segment("        ", warp_items, "jf_seg");
  s << "      }\n";
  s << "    }\n";
  s << "    return;\n";
  s << "  }\n";

  const int tile = tile_threads * tile_items;
  s << "\n  // TILE MODE: tile t (from the counter: blocks only wait for blocks that already run) is tile\n";
  s << "  // t % tiles_per_row of row t / tiles_per_row. Scratch: the counter, then per tile a status word\n";
  s << "  // (0 nothing, 1 aggregate, 2 inclusive prefix), its aggregate and its inclusive prefix.\n";
  s << "  constexpr long long tile = " << tile << ";\n";
  s << "  const long long tiles_per_row = (L + tile - 1) / tile;\n";
  s << "  const long long tiles = tiles_per_row * rows;\n";
  s << "  unsigned long long* jf_counter = reinterpret_cast<unsigned long long*>(a.scratch);\n";
  s << "  unsigned* jf_status = reinterpret_cast<unsigned*>(a.scratch + 16);\n";
  s << "  " << T << "* jf_aggregate = reinterpret_cast<" << T << "*>(a.scratch + 16 + jf_nest::align16(4ull * tiles));\n";
  s << "  " << T << "* jf_inclusive = jf_aggregate + jf_nest::align16(sizeof(" << T << ") * tiles) / sizeof(" << T << ");\n";
  s << "  __shared__ long long jf_tile;\n";
  s << "  __shared__ " << T << " jf_warp_total[" << tile_threads / 32 << "];\n";
  s << "  __shared__ " << T << " jf_prefix;\n";
  s << "  if (threadIdx.x == 0) jf_tile = static_cast<long long>(atomicAdd(jf_counter, 1ull));\n";
  s << "  __syncthreads();\n";
  s << "  const long long t = jf_tile;\n";
  s << "  const long long row = t / tiles_per_row, k = t % tiles_per_row;\n";
  e.unravel("  ", "row", rows, "_r");
  s << "  const unsigned jf_warp = threadIdx.x >> 5;\n";
  s << "  const long long jf_seg = k * tile + static_cast<long long>(jf_warp) * " << 32 * tile_items << ";\n";
  s << "  " << T << " jf_carry = " << identity << ";\n";
  s << "  bool jf_has_carry = false;\n";
  segment("  ", tile_items, "jf_seg");
  s << "  if (jf_lane == 31) jf_warp_total[jf_warp] = jf_carry;\n";
  s << "  __syncthreads();\n";
  s << "  // The warp's elements onto the totals of the warps before it (folded left to right).\n";
  s << "  if (jf_warp > 0) {\n";
  s << "    " << T << " before = jf_warp_total[0];\n";
  s << "    for (unsigned w = 1; w < jf_warp; ++w) before = combine(before, jf_warp_total[w]);\n";
  s << "#pragma unroll\n";
  s << "    for (int j = 0; j < " << tile_items << "; ++j) jf_v[j] = combine(before, jf_v[j]);\n";
  s << "  }\n";
  s << "  if (jf_warp == 0) {\n";
  s << "    " << T << " aggregate = jf_warp_total[0];\n";
  s << "    for (unsigned w = 1; w < " << tile_threads / 32 << "; ++w) aggregate = combine(aggregate, jf_warp_total[w]);\n";
  s << "    if (k == 0) {  // the row's first tile: its aggregate is its inclusive prefix\n";
  s << "      if (jf_lane == 0) {\n";
  s << "        jf_inclusive[t] = aggregate;\n";
  s << "        __threadfence();\n";
  s << "        jf_scan::store_volatile(jf_status + t, 2u);\n";
  s << "      }\n";
  s << "    } else {\n";
  s << "      if (jf_lane == 0) {\n";
  s << "        jf_aggregate[t] = aggregate;\n";
  s << "        __threadfence();\n";
  s << "        jf_scan::store_volatile(jf_status + t, 1u);\n";
  s << "      }\n";
  s << "      const long long first = t - k;\n";
  s << "      long long hi = t - 1;\n";
  if (is_integer(vt)) {
    // Integers are exact in any order: each step of 32 tiles back combines, as a warp tree, the
    // aggregates down to the latest published prefix (CUB's look-back), and stops there.
    s << "      // Look back, 32 tiles at a time, down to the latest tile of the row with its inclusive prefix,\n";
    s << "      // combining the aggregates on the way (integers: exact in any order).\n";
    s << "      " << T << " prefix = " << identity << ";\n";
    s << "      while (true) {\n";
    s << "        const long long q = hi - static_cast<long long>(jf_lane);\n";
    s << "        unsigned status = 0;\n";
    s << "        if (q >= first)\n";
    s << "          while ((status = jf_nest::load_volatile(jf_status + q)) == 0u) {\n";
    s << "          }\n";
    s << "        const unsigned with_prefix = __ballot_sync(0xffffffffu, q >= first && status == 2u);\n";
    s << "        const unsigned last = with_prefix ? static_cast<unsigned>(__ffs(with_prefix) - 1) : 31u;\n";
    s << "        __threadfence();  // the values behind the status words seen\n";
    s << "        " << T << " x = " << identity << ";\n";
    s << "        if (q >= first && jf_lane <= last)\n";
    s << "          x = jf_nest::load_volatile((status == 2u ? jf_inclusive : jf_aggregate) + q);\n";
    s << "#pragma unroll\n";
    s << "        for (int d = 16; d > 0; d >>= 1) x = combine(x, __shfl_xor_sync(0xffffffffu, x, d));\n";
    s << "        prefix = combine(prefix, x);\n";
    s << "        if (with_prefix) break;\n";
    s << "        hi -= 32;\n";
    s << "      }\n";
  } else {
    s << "      // Look back, 32 tiles at a time, for the latest tile of the row with its inclusive prefix.\n";
    s << "      long long found = -1;\n";
    s << "      while (found < 0) {\n";
    s << "        const long long q = hi - static_cast<long long>(jf_lane);\n";
    s << "        unsigned status = 0;\n";
    s << "        if (q >= first)\n";
    s << "          while ((status = jf_nest::load_volatile(jf_status + q)) == 0u) {\n";
    s << "          }\n";
    s << "        const unsigned with_prefix = __ballot_sync(0xffffffffu, q >= first && status == 2u);\n";
    s << "        if (with_prefix) found = hi - (__ffs(with_prefix) - 1);\n";
    s << "        hi -= 32;\n";
    s << "      }\n";
    s << "      __threadfence();  // the values behind the status words seen\n";
    s << "      // Forward from that prefix, the aggregates after it in tile order: the left fold (the\n";
    s << "      // same bits whichever tile the look-back stopped at). The 32 shuffles of a step are\n";
    s << "      // independent: only the additions are serial.\n";
    s << "      " << T << " prefix = jf_nest::load_volatile(jf_inclusive + found);\n";
    s << "      for (long long base = found + 1; base < t; base += 32) {\n";
    s << "        const long long q = base + jf_lane;\n";
    s << "        const " << T << " x = q < t ? jf_nest::load_volatile(jf_aggregate + q) : " << identity << ";\n";
    s << "        const long long count = t - base;\n";
    s << "#pragma unroll\n";
    s << "        for (int r = 0; r < 32; ++r) {\n";
    s << "          const " << T << " y = jf_scan::lane_value(x, r);\n";
    s << "          if (r < count) prefix = combine(prefix, y);\n";
    s << "        }\n";
    s << "      }\n";
  }
  s << "      if (jf_lane == 0) {\n";
  s << "        jf_prefix = prefix;\n";
  s << "        jf_inclusive[t] = combine(prefix, aggregate);\n";
  s << "        __threadfence();\n";
  s << "        jf_scan::store_volatile(jf_status + t, 2u);\n";
  s << "      }\n";
  s << "    }\n";
  s << "  }\n";
  s << "  __syncthreads();\n";
  s << "  if (k > 0) {\n";
  s << "    const " << T << " prefix = jf_prefix;\n";
  s << "#pragma unroll\n";
  s << "    for (int j = 0; j < " << tile_items << "; ++j) jf_v[j] = combine(prefix, jf_v[j]);\n";
  s << "  }\n";
  store_segment("  ", tile_items, "jf_seg");
  e.close_kernel();
}

launch_config configure_scan(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t len = product(li.reduced_axes, ext), rows = product(li.outer_axes, ext);
  if (len == 0 || rows == 0) {
    c.grid[0] = 0;
    return c;
  }
  if (li.scan_columns) {
    const std::int64_t blocks = std::min<std::int64_t>((rows + 255) / 256, resident_blocks(dev, 256) * 4);
    c.grid[0] = static_cast<unsigned>(blocks);
    c.block[0] = 256;
    return c;
  }
  if (rows > 1 && len <= warp_row_max) {
    const std::int64_t blocks = std::min<std::int64_t>((rows + 7) / 8, resident_blocks(dev, 256) * 4);
    c.grid[0] = static_cast<unsigned>(blocks);
    c.block[0] = 32;
    c.block[1] = 8;
    return c;
  }
  const std::int64_t tile = static_cast<std::int64_t>(li.block) * li.scan_tile_items;
  const std::int64_t tiles = (len + tile - 1) / tile * rows;
  if (tiles > 0x7fffffff) throw error("jf::ir: a scan of " + std::to_string(len * rows) + " elements needs more tiles than a grid holds");
  c.grid[0] = static_cast<unsigned>(tiles);
  c.block[0] = static_cast<unsigned>(li.block);
  const std::size_t t = static_cast<std::size_t>(tiles);
  c.scratch_bytes = 16 + align16(4 * t) + 2 * align16(static_cast<std::size_t>(li.scan_value_bytes) * t);
  return c;
}

std::string describe_scan(const launch_info& li, const launch_config* c) {
  if (li.scan_columns && li.reduced_axes.empty()) return "scan: stores at computed positions, a thread per element";
  if (li.scan_columns) return "scan: a thread per row (256-thread blocks), serially along the scanned axis (numpy's order)";
  const std::string tiles = cat("tiles of ", 256LL * li.scan_tile_items) +
                            " elements (256-thread blocks) numbered by an atomic counter, single-pass decoupled "
                            "look-back that folds the tile aggregates in tile order (the same bits every run)";
  const std::string warps = cat("a warp per row in segments of ", 32LL * li.scan_warp_items) + " elements";
  if (!c) return "scan: " + tiles + "; rows of at most " + std::to_string(warp_row_max) + " elements (several rows): " + warps;
  return "scan: " + (c->block[0] == 32 ? warps : tiles);
}

}  // namespace jf::ir::nest
