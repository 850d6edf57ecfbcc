// Kernel shape "scan": one scan node (numpy's cumsum, cumprod) along one axis of its domain D, or
// along D's whole chain flattened, with its producers computed per element before the scan and
// its consumers (the outputs, all stored over D) after it. Three ways to run, by where the scanned
// axis lies and, at launch, how long it is (configure_scan; the kernel tells them by blockDim.x):
//
//  - rows (the scanned axes hold the fastest axis), long rows or one row: TILE MODE. A 512-thread
//    block scans a tile of 512 * items consecutive elements of a row; tiles are numbered by an
//    atomic counter in scratch in the order blocks start, so a block only ever waits for blocks
//    that already run (no deadlock whatever the scheduler does). Single-pass decoupled look-back:
//    a block publishes its tile's aggregate, finds the latest earlier tile of its row whose
//    inclusive prefix is published, and folds the aggregates after it forward in tile order onto
//    that prefix; it then publishes its own inclusive prefix. Every inclusive prefix is therefore
//    the left fold agg(0) + agg(1) + ... + agg(t) whatever tile the look-back stopped at, so
//    floating-point results are the same bits every run. Integers are exact in any order: their
//    look-back combines each step of 32 tiles as a warp tree (CUB's). A tile's aggregate and its
//    prefix are two 16-byte words {flag, value}, each written once and read whole (a reader sees
//    a flag and its value together), and a lane reads both of its tile's words at once: one L2
//    round trip per look-back step. They live in the zeroed scratch of the loop-nest ABI.
//  - rows, short ones (at most warp_row_max elements) and several of them: WARP MODE, a warp per
//    row, segments of 32 * items elements in order with a carry.
//  - the scanned axis is not the fastest: COLUMN MODE, a thread per row (rows numbered with the
//    fastest axis fastest, so neighbouring threads read neighbouring elements), serially along the
//    axis: numpy's own order.
//
// Order of combination within a tile or segment (fixed): a warp loads its 32 * items elements
// coalesced (lane l: j * 32 + l), turns them through shared memory so that lane l holds the
// `items` consecutive elements l * items + j, scans those serially, scans the lanes' totals
// across the warp (Kogge-Stone: lane l combines with lane l - d for d = 1, 2, 4, 8, 16) and
// combines each lane's elements onto the total of the lanes before it, then onto the carry of the
// warp's earlier segments (warp mode); in tile mode the warps' totals are scanned across a warp
// the same way, and warp w's elements are combined onto the totals of warps 0..w-1, then onto the
// tile's exclusive prefix. An element's value is thus prefix + (warps before + (lanes before +
// serial sum)): for floats not numpy's sequential sum, but within the same n * eps bound
// (docs/design.md), and the same bits every run. Integer results are exact (wrapping as numpy's).
// Tiles whose operand has at most 4 bytes before an exact widening (numpy's cumsum of int32 into
// int64) hold it as loaded, in shared memory, from the loads to the stores, and fold each lane's
// elements again at the stores (the lean form: the same combinations in the same order for
// floats; integers fold onto the lane's whole offset, exact in any order).
// Compactions (a scan of the mask's counts whose consumers are stores at the positions it gives)
// have their own two-launch form: shape_compaction.cpp.
#include <algorithm>
#include <utility>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

// Measured on an H100 (bench_scan, 2^27 elements in one row, where the look-back chain is the
// limit): 512 x 16 beats 256 x 16 (float64 cumsum 87 % of copy against 69 %); 24 or 32 items a
// lane spill registers; 1024 threads are no faster; looking back two or four windows of 32 tiles
// a step, or sleeping while a tile has no word yet, made it slower.
constexpr int tile_threads = 512;
constexpr int tile_items = 16;   // elements per lane in a tile: tiles of 8192
constexpr int look_windows = 1;  // windows of 32 tiles read per look-back step
constexpr int warp_items = 4;    // per lane in a warp-mode segment: segments of 128
constexpr int tile_blocks = 2;   // tile blocks an SM (__launch_bounds__): 64 registers a thread
// The lean form (held elements of at most 4 bytes, below) fits 40 registers: three blocks an SM,
// more tiles loading while others look back. H200, cumsum of 2^27 int32 (bench_scan, one run):
// 3 x 512 463 us, 2 x 768 486, 2 x 512 495; CUB 541.
constexpr int lean_tile_blocks = 3;
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
// A warp's 32 * N values in shared memory, one slot skipped every 128 bytes so that both the
// striped (j * 32 + lane) and the blocked (lane * N + j) accesses are free of bank conflicts.
template <class T> __device__ __forceinline__ int padded(int i) { return i + i / static_cast<int>(128 / sizeof(T)); }
template <class T, int N> __device__ __forceinline__ void to_blocked(T (&v)[N], T* buf) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
#pragma unroll
  for (int j = 0; j < N; ++j) buf[padded<T>(j * 32 + lane)] = v[j];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) v[j] = buf[padded<T>(lane * N + j)];
  __syncwarp();
}
template <class T, int N> __device__ __forceinline__ void to_striped(T (&v)[N], T* buf) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
#pragma unroll
  for (int j = 0; j < N; ++j) buf[padded<T>(lane * N + j)] = v[j];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) v[j] = buf[padded<T>(j * 32 + lane)];
  __syncwarp();
}
// A tile's word {status, value bits}: one 16-byte access each way, so a reader sees a status and
// its value together (one L2 round trip per look-back step; CUB's ScanTileState does the same).
template <class T> __device__ __forceinline__ void store_word(ulonglong2* p, unsigned long long status, T v) {
  union { T v; unsigned long long bits; } u;
  u.bits = 0;
  u.v = v;
  const unsigned long long bits = u.bits;
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(status), "l"(bits) : "memory");
}
__device__ __forceinline__ ulonglong2 load_word(const ulonglong2* p) {
  ulonglong2 w;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
  return w;
}
// The status words of W windows of 32 tiles, the lane's tile hi - 32u - lane in window u (none
// before `first`): each tile's inclusive prefix if there, else its aggregate, waiting until every
// tile has one of them. All 2W words of a lane are read at once (one round trip).
template <int W>
__device__ __forceinline__ void window_status(ulonglong2 (&w)[W], const ulonglong2* aggregate, const ulonglong2* inclusive,
                                              long long hi, long long first) {
  const long long lane = static_cast<long long>(threadIdx.x & 31u);
  while (true) {
    ulonglong2 i[W], a[W];
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const long long q = hi - 32 * u - lane;
      i[u] = a[u] = make_ulonglong2(0, 0);
      if (q >= first) {
        i[u] = load_word(inclusive + q);
        a[u] = load_word(aggregate + q);
      }
    }
    bool ready = true;
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const long long q = hi - 32 * u - lane;
      w[u] = i[u].x != 0u ? i[u] : a[u];
      ready = ready && (q < first || w[u].x != 0u);
    }
    if (ready) return;
  }
}
// The 16-byte words wholly inside [p, p + bytes) read into L2 (sm_90's bulk prefetch, one
// instruction; a hint: nothing on older devices).
__device__ __forceinline__ void prefetch_l2(const void* p, long long bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned long long a = (reinterpret_cast<unsigned long long>(p) + 15ull) & ~15ull;
  const unsigned long long b = (reinterpret_cast<unsigned long long>(p) + static_cast<unsigned long long>(bytes)) & ~15ull;
  if (b > a && b - a < (1ull << 31))
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(static_cast<unsigned>(b - a)) : "memory");
#endif
}
// The SMs of the device (%nsmid: the highest SM id + 1).
__device__ __forceinline__ unsigned sm_count() {
  unsigned n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}
template <class T> __device__ __forceinline__ T value_of(unsigned long long bits) {
  union { T v; unsigned long long bits; } u;
  u.bits = bits;
  return u.v;
}
}  // namespace jf_scan
#endif
)";

// Bytes of n values of b bytes in a warp's transpose buffer, one slot skipped every 128 bytes.
int padded_bytes(int n, int b) { return (n + n / (128 / b)) * b; }

// Slots (of the scanned value) at the start of a warp's buffer that hold its held elements
// (lean form: the tile's segment as loaded, in the held type).
int held_slots(const launch_info& li) {
  const int v = li.scan_value_bytes;
  return (padded_bytes(32 * li.scan_tile_items, li.scan_held_bytes) + v - 1) / v;
}

// Slots (of the scanned value) of a warp's buffer: the transposes of a warp-mode segment (from the
// start), and of a tile's segment: scanned (unheld form), or held, then half its stores at a time
// after the held elements (lean form).
int xpose_slots(const launch_info& li) {
  const int v = li.scan_value_bytes;
  const int warp_mode = (padded_bytes(32 * li.scan_warp_items, v) + v - 1) / v;
  if (li.scan_held_bytes > 0 && li.scan_held_bytes <= 4)
    return std::max(warp_mode, held_slots(li) + (padded_bytes(32 * li.scan_tile_items / 2, v) + v - 1) / v);
  return std::max(warp_mode, (padded_bytes(32 * li.scan_tile_items, v) + v - 1) / v);
}

}  // namespace

void emit_scan(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  // Without a scan (the stores of a compaction whose positions were computed before): a thread per
  // iteration, the "column" loop with nothing scanned.
  const bool has_scan = !e.f.scans.empty();
  if (has_scan && !e.f.scatters.empty()) return emit_compaction(e, p, li);  // shape_compaction.cpp
  const node_id sc = has_scan ? e.f.scans[0] : no_node;
  const domain_id d = p.inner;
  const std::vector<std::int32_t> chain = g.chain_axes(d);
  const std::int32_t ax = has_scan ? axis_of_scan(g.at(sc)) : -1;
  std::vector<std::int32_t> scanned, rows;
  if (!has_scan)
    scanned = {};
  else if (ax < 0)
    scanned = chain;
  else
    scanned = {ax};
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
  // A tile's elements are held between their loads and their stores as the scan's operand before
  // an exact widening (numpy's cumsum of int32 is int64: the int32 are held), in shared memory,
  // and each lane's running values are folded again at the stores, half of them at a time (the
  // lean form, when the held elements have at most 4 bytes). H200, cumsum of 2^27 int32, before
  // the prefetch of later tiles (below): 547 us against 564-573 for the unheld form and CUB's 540
  // (bench_scan, same runs as CUB). It runs three blocks an SM (lean_tile_blocks): 40 registers,
  // no spills once the stores share one address (below); with the elements held in registers it
  // spilled (627 us), so they stay in shared memory (68 KB a block).
  const node_id arg = has_scan ? g.at(sc).args[0] : no_node;
  node_id held = arg;
  if (has_scan && g.at(arg).code == op::cast) {
    const dtype from = g.at(g.at(arg).args[0]).type;
    const bool exact = (is_integer(vt) && (is_integer(from) || from == dtype::bool_)) ||
                       (vt == dtype::float64 && from == dtype::float32);
    if (exact && size_of(from) < size_of(vt)) held = g.at(arg).args[0];
  }
  const dtype ht = has_scan ? g.at(held).type : vt;
  const bool lean = size_of(ht) <= 4;
  li.scan_held_bytes = static_cast<int>(size_of(ht));
  const int blocks = lean ? lean_tile_blocks : tile_blocks;
  e.max_threads = tile_threads;
  e.min_blocks = blocks;  // keep loads in flight while blocks look back

  const std::string T = e.T(vt);
  const std::string m = has_scan ? std::string(name(monoid_of_scan(g.at(sc)))) : "sum";
  const std::string combine = "[](" + T + " x, " + T + " y) { return jf::ops::jf_" + m + "_combine(x, y); }";
  const std::string identity = "jf::ops::jf_" + m + "_identity<" + T + ">()";
  const std::vector<char> need_arg = e.f.closure({arg});
  const std::vector<char> need_held = e.f.closure({held});
  const std::string H = e.T(ht);
  std::vector<node_id> outs;
  for (const output_desc& o : g.outputs) outs.push_back(o.value);
  const std::vector<char> need_out = e.f.closure(outs);
  // The outputs at the current element: stored over D, or (compaction) the selected values stored
  // at their positions along B's axis (values computed only where selected: unselected elements of
  // a sparse selection are not read).
  const std::int32_t b_axis = p.outer > 0 ? g.dom(p.outer).axes[0] : -1;
  // Output k's store (a compaction's): emits its selection and position, returns their names.
  auto selection_of = [&](std::size_t k, const std::string& ind) {
    const node& st = g.at(g.outputs[k].value);
    std::vector<node_id> at{st.args[1]};
    if (st.nargs == 3) at.push_back(st.args[2]);
    e.emit_nodes(e.f.closure(at), ind, "", emitter::which::all);
    return std::pair<std::string, std::string>{st.nargs == 3 ? e.vname[static_cast<std::size_t>(st.args[2])] : "true",
                                               e.vname[static_cast<std::size_t>(st.args[1])]};
  };
  auto store_outputs = [&](const std::string& ind) {
    if (e.f.scatters.empty()) {
      e.emit_nodes(need_out, ind, "", emitter::which::all);
      e.store_outputs(ind, d);
      return;
    }
    for (std::size_t k = 0; k < g.outputs.size(); ++k) {
      const node& st = g.at(g.outputs[k].value);
      const auto [selected, position] = selection_of(k, ind);
      const auto before = e.vname;
      s << ind << "if (" << selected << ") {\n";
      const std::string ix = cat("ix", b_axis) + "_at";
      s << ind << "  const I " << ix << " = static_cast<I>(" << position << ");\n";
      e.axis[static_cast<std::size_t>(b_axis)] = ix;
      e.emit_nodes(e.f.closure({st.args[0]}), ind + "  ", "", emitter::which::all);
      s << ind << "  out" << k << "[" << e.offset(true, k, p.outer)
        << "] = " << e.vname[static_cast<std::size_t>(st.args[0])] << ";\n";
      s << ind << "}\n";
      e.vname = before;
    }
  };

  e.header(p,
           std::string(li.scan_columns ? "A thread per row, serially along the scanned axis."
                                       : "Tiles of a row with a decoupled look-back (512-thread blocks), or a warp per "
                                         "short row;\nproducers computed as elements are loaded, outputs stored after "
                                         "the scan.") +
               (p.outer > 0 ? "\nThe selected values stored at their positions, computed before." : ""));
  s << scan_helpers;
  e.args_struct();
  e.open_kernel("// Launch: configure_scan (blockDim.x 512: tiles; 256: a thread per row; 32: a warp per row).\n");
  e.prologue("  ");
  s << "  const long long L = " << e.extent_product(scanned) << ";  // elements of a row (scanned)\n";
  s << "  const long long rows = " << e.extent_product(rows) << ";\n";
  s << "  const auto combine = " << combine << ";\n";

  const auto saved = e.vname;
  // The operand (or, held, the operand before its widening) at position i of the current row (its
  // axes fixed): defines `dst` when i < L.
  auto load_node = [&](const std::string& ind, const std::string& i, const std::string& dst, node_id v,
                       const std::vector<char>& need, const std::string& past_end) {
    s << ind << dst << " = " << past_end << ";  // past the row's end: not stored\n";
    s << ind << "if (" << i << " < L) {\n";
    e.unravel(ind + "  ", i, scanned, "");
    e.emit_nodes(need, ind + "  ", "", emitter::which::all);
    s << ind << "  " << dst << " = " << e.vname[static_cast<std::size_t>(v)] << ";\n";
    s << ind << "}\n";
    e.vname = saved;
  };
  auto load_element = [&](const std::string& ind, const std::string& i, const std::string& dst) {
    load_node(ind, i, dst, arg, need_arg, identity);
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
  // A warp's segment of 32 * items elements from position `seg` of the row: loaded into jf_v
  // (lane l: elements j * 32 + l, coalesced), turned through shared memory into `items`
  // consecutive elements per lane, scanned serially per lane, the lanes' totals scanned across the
  // warp, and all of it combined onto the carry (jf_carry, jf_has_carry: the last value so far).
  // jf_v ends in the loaded (striped) order again, for the stores.
  auto segment = [&](const std::string& ind, int items, const std::string& seg) {
    s << ind << T << " jf_v[" << items << "];\n";
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 0; j < " << items << "; ++j) {\n";
    s << ind << "  const long long jf_i = " << seg << " + j * 32 + jf_lane;\n";
    load_element(ind + "  ", "jf_i", "jf_v[j]");
    s << ind << "}\n";
    s << ind << "jf_scan::to_blocked(jf_v, jf_xpose[jf_wid]);\n";
    s << ind << "#pragma unroll\n";
    s << ind << "for (int j = 1; j < " << items << "; ++j) jf_v[j] = combine(jf_v[j - 1], jf_v[j]);\n";
    s << ind << "{\n";
    s << ind << "  const " << T << " jf_before = __shfl_up_sync(0xffffffffu, jf_scan::warp_inclusive(jf_v[" << items - 1
      << "], combine), 1);\n";
    s << ind << "#pragma unroll\n";
    s << ind << "  for (int j = 0; j < " << items << "; ++j) {\n";
    s << ind << "    if (jf_lane > 0) jf_v[j] = combine(jf_before, jf_v[j]);\n";
    s << ind << "    if (jf_has_carry) jf_v[j] = combine(jf_carry, jf_v[j]);\n";
    s << ind << "  }\n";
    s << ind << "}\n";
    s << ind << "jf_carry = jf_scan::lane_value(jf_v[" << items - 1 << "], 31);\n";
    s << ind << "jf_has_carry = true;\n";
    s << ind << "jf_scan::to_striped(jf_v, jf_xpose[jf_wid]);\n";
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
    s << "  for (long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += "
         "step) {\n";
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
  s << "  const unsigned jf_wid = (threadIdx.y * blockDim.x + threadIdx.x) >> 5;  // the block's warp\n";
  s << "  extern __shared__ __align__(16) unsigned char jf_dynamic[];  // a buffer per warp for jf_scan::to_blocked\n";
  s << "  " << T << " (*jf_xpose)[" << xpose_slots(li) << "] = reinterpret_cast<" << T << " (*)[" << xpose_slots(li)
    << "]>(jf_dynamic);\n";
  s << "\n  if (blockDim.x == 32) {  // WARP MODE: a warp per row (threadIdx.y picks the row)\n";
  s << "    const long long step = static_cast<long long>(gridDim.x) * blockDim.y;\n";
  s << "    for (long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows; row += "
       "step) {\n";
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

  // The inputs of the tile a quarter of the resident blocks later (blocks start in tile order)
  // read into L2 by thread 0 when a block starts: those DRAM reads overlap the look-back waits of
  // the blocks before it, whose loads and stores then find the memory busy (H200, cumsum of 2^27
  // int32: 547 -> 495 us, CUB 535 (bench_scan); by hand, bench/experiments/scan_variants.cu, 530 ->
  // 474 us with 512 x 16 and 2 blocks an SM, 490 -> 450 with 3; half the resident blocks ahead or
  // more was slower). Only an input whose elements of that tile are consecutive in memory (checked
  // at run time: the offsets of the tile's first and last elements) is prefetched.
  auto prefetch_later_tile = [&](const std::vector<char>& need) {
    std::vector<std::pair<std::size_t, domain_id>> ins;
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const node& n = g.nodes[id];
      if (!need[id] || n.code != op::input) continue;
      const std::size_t k = static_cast<std::size_t>(n.index);
      const operand_desc& in = g.inputs[k];
      if (in.gen != generator::none || in.lay == layout::scalar) continue;
      if (std::none_of(ins.begin(), ins.end(), [&](const auto& x) { return x.first == k; }))
        ins.emplace_back(k, n.domain);
    }
    if (ins.empty()) return;
    const auto axes_before = e.axis;
    s << "  if (threadIdx.x == 0) {  // a later tile's inputs into L2\n";
    s << "    const long long jf_pt = t + static_cast<long long>(jf_scan::sm_count()) * " << blocks << " / 4;\n";
    s << "    if (jf_pt < tiles) {\n";
    s << "      const long long jf_prow = jf_pt / tiles_per_row, jf_p0 = jf_pt % tiles_per_row * tile;\n";
    s << "      const long long jf_pn = L - jf_p0 < tile ? L - jf_p0 : tile;\n";
    e.unravel("      ", "jf_prow", rows, "_pr");
    for (int end = 0; end < 2; ++end) {
      e.unravel("      ", end ? "jf_p0 + jf_pn - 1" : "jf_p0", scanned, end ? "_p1" : "_p0");
      for (const auto& [k, dom] : ins)
        s << "      const long long jf_o" << end << "_" << k << " = " << e.offset(false, k, dom) << ";\n";
    }
    for (const auto& [k, dom] : ins)
      s << "      if (jf_o1_" << k << " - jf_o0_" << k << " == jf_pn - 1) jf_scan::prefetch_l2(in" << k << " + jf_o0_"
        << k << ", jf_pn * static_cast<long long>(sizeof(*in" << k << ")));\n";
    s << "    }\n";
    s << "  }\n";
    e.axis = axes_before;
  };
  const int tile = tile_threads * tile_items;
  s << "\n  // TILE MODE: tile t (from the counter: blocks only wait for blocks that already run) is tile\n";
  s << "  // t % tiles_per_row of row t / tiles_per_row. Scratch: the counter, then per tile two 16-byte\n";
  s << "  // words {flag, value}, each written once and read whole: its aggregate (flag 1) and its\n";
  s << "  // inclusive prefix (flag 2). A tile's status: 2 if its prefix is there, else 1 if its aggregate.\n";
  s << "  constexpr long long tile = " << tile << ";\n";
  s << "  const long long tiles_per_row = (L + tile - 1) / tile;\n";
  s << "  const long long tiles = tiles_per_row * rows;\n";
  s << "  unsigned long long* jf_counter = reinterpret_cast<unsigned long long*>(a.scratch);\n";
  s << "  ulonglong2* jf_aggregate = reinterpret_cast<ulonglong2*>(a.scratch + 16);\n";
  s << "  ulonglong2* jf_inclusive = jf_aggregate + tiles;\n";
  s << "  __shared__ long long jf_tile;\n";
  s << "  __shared__ " << T << " jf_warp_total[" << tile_threads / 32 << "];\n";
  s << "  __shared__ " << T << " jf_prefix;\n";
  s << "  if (threadIdx.x == 0) jf_tile = static_cast<long long>(atomicAdd(jf_counter, 1ull));\n";
  s << "  __syncthreads();\n";
  s << "  const long long t = jf_tile;\n";
  s << "  const long long row = t / tiles_per_row, k = t % tiles_per_row;\n";
  e.unravel("  ", "row", rows, "_r");
  prefetch_later_tile(lean ? need_held : need_arg);
  s << "  const unsigned jf_warp = threadIdx.x >> 5;\n";
  s << "  const long long jf_seg = k * tile + static_cast<long long>(jf_warp) * " << 32 * tile_items << ";\n";
  if (lean) {
    // Held: each lane's `items` consecutive elements (loaded striped, turned through shared memory)
    // stay as loaded; the lane's total is their serial fold, the lanes' totals are scanned across
    // the warp, and the running values are folded again at the stores (the same combinations in
    // the same order as the unheld form: the same bits).
    s << "  " << H << " jf_h[" << tile_items << "];\n";
    s << "#pragma unroll\n";
    s << "  for (int j = 0; j < " << tile_items << "; ++j) {\n";
    s << "    const long long jf_i = jf_seg + j * 32 + jf_lane;\n";
    load_node("    ", "jf_i", "jf_h[j]", held, need_held, "static_cast<" + H + ">(" + identity + ")");
    s << "  }\n";
    // Kept in shared memory (not registers) from here to the stores: few registers live through
    // the look-back.
    s << "  " << H << "* jf_held = reinterpret_cast<" << H << "*>(jf_xpose[jf_wid]);\n";
    s << "#pragma unroll\n";
    s << "  for (int j = 0; j < " << tile_items << "; ++j) jf_held[jf_scan::padded<" << H
      << ">(j * 32 + static_cast<int>(jf_lane))] = jf_h[j];\n";
    s << "  __syncwarp();\n";
    s << "#define JF_HELD(j) jf::ops::jf_cast<" << T << ">(jf_held[jf_scan::padded<" << H
      << ">(static_cast<int>(jf_lane) * " << tile_items << " + (j))])\n";
    s << "  " << T << " jf_total = JF_HELD(0);\n";
    s << "#pragma unroll\n";
    s << "  for (int j = 1; j < " << tile_items << "; ++j) jf_total = combine(jf_total, JF_HELD(j));\n";
    s << "  const " << T
      << " jf_before = __shfl_up_sync(0xffffffffu, jf_scan::warp_inclusive(jf_total, combine), 1);\n";
    s << "  if (jf_lane == 31) jf_warp_total[jf_warp] = combine(jf_before, jf_total);\n";
  } else {
    s << "  " << T << " jf_carry = " << identity << ";\n";
    s << "  bool jf_has_carry = false;\n";
    segment("  ", tile_items, "jf_seg");
    s << "  if (jf_lane == 31) jf_warp_total[jf_warp] = jf_carry;\n";
  }
  s << "  __syncthreads();\n";
  s << "  if (jf_warp == 0) {\n";
  s << "    // The warps' totals scanned across warp 0 (lane w: warps 0..w), the tile's aggregate the last;\n";
  s << "    // warp w's elements go onto lane w - 1's value after the look-back.\n";
  s << "    constexpr unsigned warps = " << tile_threads / 32 << ";\n";
  s << "    const " << T << " through = jf_scan::warp_inclusive(jf_lane < warps ? jf_warp_total[jf_lane] : " << identity
    << ", combine);\n";
  s << "    const " << T << " aggregate = jf_scan::lane_value(through, warps - 1);\n";
  s << "    __syncwarp();\n";
  s << "    if (jf_lane < warps) jf_warp_total[jf_lane] = through;\n";
  s << "    if (k == 0) {  // the row's first tile: its aggregate is its inclusive prefix\n";
  s << "      if (jf_lane == 0) jf_scan::store_word(jf_inclusive + t, 2u, aggregate);\n";
  s << "    } else {\n";
  s << "      if (jf_lane == 0) jf_scan::store_word(jf_aggregate + t, 1u, aggregate);\n";
  s << "      const long long first = t - k;\n";
  s << "      long long hi = t - 1;\n";
  s << "      // Look back, " << 32 * look_windows << " tiles a step (each lane reads the two words of " << look_windows
    << " tiles at once: one\n";
  s << "      // L2 round trip a step), for the latest tile of the row with its inclusive prefix.\n";
  s << "      constexpr int W = " << look_windows
    << ";  // windows of 32 tiles a step; window u: tiles hi - 32u - lane\n";
  s << "      ulonglong2 w[W];\n";
  if (is_integer(vt)) {
    // Integers are exact in any order: each window combines, as a warp tree, the values down to the
    // latest published prefix (CUB's look-back), and the look-back stops there.
    s << "      // Integers: the values down to it combined as a warp tree per window (exact in any order).\n";
    s << "      " << T << " prefix = " << identity << ";\n";
    s << "      bool done = false;\n";
    s << "      while (!done) {\n";
    s << "        jf_scan::window_status(w, jf_aggregate, jf_inclusive, hi, first);\n";
    s << "#pragma unroll\n";
    s << "        for (int u = 0; u < W; ++u) {\n";
    s << "          if (done) break;\n";
    s << "          const long long q = hi - 32 * u - static_cast<long long>(jf_lane);\n";
    s << "          const unsigned with_prefix = __ballot_sync(0xffffffffu, q >= first && w[u].x == 2u);\n";
    s << "          const unsigned last = with_prefix ? static_cast<unsigned>(__ffs(with_prefix) - 1) : 31u;\n";
    s << "          " << T << " x = q >= first && jf_lane <= last ? jf_scan::value_of<" << T
      << ">(w[u].y) : " << identity << ";\n";
    s << "#pragma unroll\n";
    s << "          for (int d = 16; d > 0; d >>= 1) x = combine(x, __shfl_xor_sync(0xffffffffu, x, d));\n";
    s << "          prefix = combine(prefix, x);\n";
    s << "          done = with_prefix != 0u;\n";
    s << "        }\n";
    s << "        if (!done) hi -= 32 * W;\n";
    s << "      }\n";
  } else {
    s << "      // Floats: from that prefix forward, the aggregates after it in tile order (the left fold:\n";
    s << "      // the same bits whichever tile the look-back stopped at). The last step's aggregates come\n";
    s << "      // with its words; earlier steps (nearer t, rare) read the aggregate words again.\n";
    s << "      unsigned with_prefix = 0u;\n";
    s << "      int found_window = 0;\n";
    s << "      while (true) {\n";
    s << "        jf_scan::window_status(w, jf_aggregate, jf_inclusive, hi, first);\n";
    s << "#pragma unroll\n";
    s << "        for (int u = 0; u < W; ++u) {\n";
    s << "          const long long q = hi - 32 * u - static_cast<long long>(jf_lane);\n";
    s << "          const unsigned b = __ballot_sync(0xffffffffu, q >= first && w[u].x == 2u);\n";
    s << "          if (!with_prefix && b) {\n";
    s << "            with_prefix = b;\n";
    s << "            found_window = u;\n";
    s << "          }\n";
    s << "        }\n";
    s << "        if (with_prefix) break;\n";
    s << "        hi -= 32 * W;\n";
    s << "      }\n";
    s << "      const int found_lane = __ffs(with_prefix) - 1;  // the prefix: tile hi - 32 * found_window - "
         "found_lane\n";
    s << "      " << T << " prefix = " << identity << ";\n";
    s << "#pragma unroll\n";
    s << "      for (int u = W - 1; u >= 0; --u) {\n";
    s << "        if (u > found_window) continue;\n";
    s << "        const " << T << " x = jf_scan::value_of<" << T << ">(w[u].y);\n";
    s << "        if (u == found_window) {  // usually a few tiles: a loop as long as they are\n";
    s << "          prefix = jf_scan::lane_value(x, found_lane);\n";
    s << "          for (int r = found_lane - 1; r >= 0; --r) prefix = combine(prefix, jf_scan::lane_value(x, r));\n";
    s << "        } else {\n";
    s << "#pragma unroll\n";
    s << "          for (int r = 31; r >= 0; --r) prefix = combine(prefix, jf_scan::lane_value(x, r));\n";
    s << "        }\n";
    s << "      }\n";
    s << "      for (long long base = hi + 1; base < t; base += 32) {\n";
    s << "        const long long q = base + jf_lane;\n";
    s << "        const " << T << " z = q < t ? jf_scan::value_of<" << T
      << ">(jf_scan::load_word(jf_aggregate + q).y) : " << identity << ";\n";
    s << "#pragma unroll\n";
    s << "        for (int r = 0; r < 32; ++r) {\n";
    s << "          const " << T << " y = jf_scan::lane_value(z, r);\n";
    s << "          if (base + r < t) prefix = combine(prefix, y);\n";
    s << "        }\n";
    s << "      }\n";
  }
  s << "      if (jf_lane == 0) {\n";
  s << "        jf_prefix = prefix;\n";
  s << "        jf_scan::store_word(jf_inclusive + t, 2u, combine(prefix, aggregate));\n";
  s << "      }\n";
  s << "    }\n";
  s << "  }\n";
  s << "  __syncthreads();\n";
  if (lean) {
    // The stores in two halves of items / 2 a lane: lane l's running values of the half written
    // blocked into shared memory, read back striped (lane l: slot j * 32 + l, which is lane
    // (j * 32 + l) / half's element (j * 32 + l) % half of the half): runs of `half` consecutive
    // elements a store instruction.
    const int half = tile_items / 2;
    s << "  " << T << "* jf_buf = jf_xpose[jf_wid] + " << held_slots(li) << ";  // after the held elements\n";
    if (is_integer(vt)) {
      // Integers (wrapping sums and products: associative and commutative): the lane's offset
      // combined once, its elements folded onto it (fewer live registers).
      s << "  " << T << " jf_s = jf_lane > 0 ? jf_before : " << identity << ";\n";
      s << "  if (jf_warp > 0) jf_s = combine(jf_warp_total[jf_warp - 1], jf_s);\n";
      s << "  if (k > 0) jf_s = combine(jf_prefix, jf_s);\n";
    } else {
      s << "  const bool jf_warp_before = jf_warp > 0;\n";
      s << "  const " << T << " jf_warps = jf_warp_before ? jf_warp_total[jf_warp - 1] : " << identity << ";\n";
      s << "  const " << T << " jf_tile_prefix = k > 0 ? jf_prefix : " << identity << ";\n";
      s << "  " << T << " jf_s = " << identity << ";\n";
    }
    s << "#pragma unroll\n";
    s << "  for (int jf_half = 0; jf_half < 2; ++jf_half) {\n";
    s << "#pragma unroll\n";
    s << "    for (int j = 0; j < " << half << "; ++j) {\n";
    s << "      const int jj = jf_half * " << half << " + j;\n";
    if (is_integer(vt)) {
      s << "      jf_s = combine(jf_s, JF_HELD(jj));\n";
      s << "      const " << T << " v = jf_s;\n";
    } else {
      // Floats: the same combinations in the same order as the unheld form (the same bits).
      s << "      jf_s = jj == 0 ? JF_HELD(0) : combine(jf_s, JF_HELD(jj));\n";
      s << "      " << T << " v = jf_s;\n";
      s << "      if (jf_lane > 0) v = combine(jf_before, v);\n";
      s << "      if (jf_warp_before) v = combine(jf_warps, v);\n";
      s << "      if (k > 0) v = combine(jf_tile_prefix, v);\n";
    }
    s << "      jf_buf[jf_scan::padded<" << T << ">(static_cast<int>(jf_lane) * " << half << " + j)] = v;\n";
    s << "    }\n";
    s << "    __syncwarp();\n";
    s << "#pragma unroll\n";
    s << "    for (int j = 0; j < " << half << "; ++j) {\n";
    s << "      const int jf_slot = j * 32 + static_cast<int>(jf_lane);\n";
    // Lane l's slot j * 32 + l is element (j * 32 + l) / half * items + (j * 32 + l) % half of the
    // half, written as j * (32 / half) * items + l / half * items + l % half (half divides 32): the
    // offsets a constant apart across j, so one address serves every store of the lane (a register
    // pair an element otherwise: 64 registers, spilling at 40).
    static_assert(32 % (tile_items / 2) == 0);
    s << "      const long long jf_i = jf_seg + j * " << 32 / half * tile_items
      << " + static_cast<long long>(jf_lane / " << half << ") * " << tile_items << " + jf_half * " << half
      << " + static_cast<long long>(jf_lane % " << half << ");\n";
    store_element("      ", "jf_i", "jf_buf[jf_scan::padded<" + T + ">(jf_slot)]");
    s << "    }\n";
    s << "    __syncwarp();\n";
    s << "  }\n";
    s << "#undef JF_HELD\n";
    e.close_kernel();
    return;
  }
  s << "  if (jf_warp > 0) {\n";
  s << "    const " << T << " before = jf_warp_total[jf_warp - 1];\n";
  s << "#pragma unroll\n";
  s << "    for (int j = 0; j < " << tile_items << "; ++j) jf_v[j] = combine(before, jf_v[j]);\n";
  s << "  }\n";
  s << "  if (k > 0) {\n";
  s << "    const " << T << " prefix = jf_prefix;\n";
  s << "#pragma unroll\n";
  s << "    for (int j = 0; j < " << tile_items << "; ++j) jf_v[j] = combine(prefix, jf_v[j]);\n";
  s << "  }\n";
  store_segment("  ", tile_items, "jf_seg");
  e.close_kernel();
}

launch_config configure_scan(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  if (li.scan_compaction) return configure_compaction(li, ext);
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
    c.shared_bytes = 8 * static_cast<std::size_t>(xpose_slots(li) * li.scan_value_bytes);
    return c;
  }
  const std::int64_t tile = static_cast<std::int64_t>(li.block) * li.scan_tile_items;
  const std::int64_t tiles = (len + tile - 1) / tile * rows;
  if (tiles > 0x7fffffff)
    throw error("jf::ir: a scan of " + std::to_string(len * rows) + " elements needs more tiles than a grid holds");
  c.grid[0] = static_cast<unsigned>(tiles);
  c.block[0] = static_cast<unsigned>(li.block);
  c.shared_bytes =
      static_cast<std::size_t>(li.block / 32) * static_cast<std::size_t>(xpose_slots(li) * li.scan_value_bytes);
  const std::size_t t = static_cast<std::size_t>(tiles);
  c.scratch_bytes = 16 + 32 * t;  // the counter, two 16-byte words per tile
  return c;
}

std::string describe_scan(const launch_info& li, const launch_config* c) {
  if (li.scan_compaction) return describe_compaction();
  if (li.scan_columns && li.reduced_axes.empty()) return "scan: stores at computed positions, a thread per element";
  if (li.scan_columns)
    return "scan: a thread per row (256-thread blocks), serially along the scanned axis (numpy's order)";
  const std::string tiles = cat("tiles of ", static_cast<long long>(li.block) * li.scan_tile_items) + " elements (" +
                            std::to_string(li.block) +
                            "-thread blocks) numbered by an atomic counter, single-pass decoupled "
                            "look-back that folds the tile aggregates in tile order (the same bits every run)";
  const std::string warps = cat("a warp per row in segments of ", 32LL * li.scan_warp_items) + " elements";
  if (!c)
    return "scan: " + tiles + "; rows of at most " + std::to_string(warp_row_max) +
           " elements (several rows): " + warps;
  return "scan: " + (c->block[0] == 32 ? warps : tiles);
}

}  // namespace jf::ir::nest
