// Kernel shapes "row reduction" and "row reduction with map": reduce(s) into box K (under the
// root) from box R under it, e.g. sum(x, axis=1); with map, K also holds rows of element-wise work
// in box(es) below K that read the reduced value (x - mean(x, 1, keepdims)).
//
// A group of blockDim.x threads handles one row (an iteration of K) at a time: a warp (blockDim =
// 32x8, 8 rows per block) for short rows, the whole block (256 threads, up to 1024 with the row
// cache) for long ones, chosen at launch from the row length. The group strides over the row,
// combines with jf_nest::group_allreduce (every thread of the group gets the row's value), thread 0
// stores K's outputs, then the group runs the map domains over the same row. Rows are a grid-stride
// loop over groups: a block for every row when a block handles a row (without the row cache), else
// 4 waves of resident blocks.
//
// Row cache: when a map domain is R itself (x - mean(x) with one load of x in R), the reduction
// loop keeps the loads the map loop reads too in dynamic shared memory and the map loop reads them
// back instead of reloading the row: x is read once. Both loops visit j = lane, lane + lanes, ...,
// so every thread reads back only what it stored itself and no barrier is needed. Only loads are
// kept (recomputing element-wise nodes costs no memory traffic and keeps the cache smallest).
// configure_launch passes the memory when the rows fit (row_cache_launch below); the kernel checks
// the size it was given and otherwise reloads, so every launch is correct.
//
// Order of combination: thread x combines elements x, x + blockDim.x, ... in increasing order, then
// the warp tree, then (blocks) the tree of warps. It depends on blockDim.x only, i.e. on the row
// length and (row cache) the device's shared memory: the same bits on every run.
#include <algorithm>
#include <atomic>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

void emit_row_reduction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const bool with_map = p.shape == kernel_shape::row_with_map;
  const std::vector<std::int32_t> k_axes = g.dom(p.outer).axes, r_axes = g.dom(p.inner).axes;
  li.block = 256;
  e.pin_trip_loops = true;  // rows are a few trips long: no unrolling beyond the lanes (nest_emitter.hpp)
  li.outer_axes = k_axes;
  li.reduced_axes = r_axes;
  for (domain_id m : p.map_domains)
    for (std::int32_t a : g.dom(m).axes)
      if (std::find(li.map_axes.begin(), li.map_axes.end(), a) == li.map_axes.end()) li.map_axes.push_back(a);

  std::vector<node_id> args;
  for (node_id r : e.f.reduces)
    for (int a = 0; a < g.at(r).nargs; ++a) args.push_back(g.at(r).args[static_cast<std::size_t>(a)]);
  const std::vector<char> need = e.f.closure(args);

  // The row cache: loads of R that the reduction loop and the map loop over R both read.
  std::vector<node_id> cached;
  if (with_map && std::find(p.map_domains.begin(), p.map_domains.end(), p.inner) != p.map_domains.end()) {
    const std::vector<char> need_map = e.f.closure(e.f.outputs_in(p.inner));
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      const node& n = g.nodes[k];
      if (n.code == op::input && n.domain == p.inner && need[k] && need_map[k] &&
          g.inputs[static_cast<std::size_t>(n.index)].lay != layout::scalar)
        cached.push_back(static_cast<node_id>(k));
    }
  }
  for (node_id c : cached) li.row_cache_bytes.push_back(size_of(g.at(c).type));
  // group_allreduce's static slots: 33 accumulators per reduction (jf_arg: 16 bytes).
  for (node_id r : e.f.reduces) {
    const std::size_t acc = is_arg_monoid(e.mono(r)) ? 16 : static_cast<std::size_t>(size_of(e.value_type(r)));
    li.static_shared_bytes += static_cast<int>((33 * acc + 15) / 16 * 16);
  }
  if (!cached.empty()) e.max_threads = 1024;  // the cached launch's block per row

  std::string plan = cat("A group of blockDim.x threads per row (an iteration of D", p.outer) +
                     cat("): it reduces D", p.inner) + " over the row";
  if (with_map) {
    plan += ",\nshares the result, then runs the element-wise work of";
    for (domain_id m : p.map_domains) plan += cat(" D", m);
    plan += " for the same row";
  }
  plan += ".";
  if (!cached.empty()) {
    plan += "\nRow cache: the reduction loop keeps";
    for (node_id c : cached) plan += cat(" %", c);
    plan += cat(" in dynamic shared memory for the loop over D", p.inner) +
            " when the launch gives enough of it (the row fits);\nelse that loop reloads them.";
  }
  e.header(p, plan);
  e.args_struct();
  if (cached.empty())
    e.open_kernel("// Launch: blockDim = (32, 8) (a warp per row) or (256, 1) (a block per row), from the row "
                  "length.\n");
  else
    e.open_kernel("// Launch: blockDim = (32, 8) (a warp per row) or (256 to 1024, 1) (a block per row), from the\n"
                  "// row length and the device; dynamic shared memory: the row cache (blockDim.y rows) or none.\n");
  e.prologue("  ");
  s << "  const long long n_rows = " << e.extent_product(k_axes) << ";  // iterations of D" << p.outer << "\n";
  s << "  const long long n_len = " << e.extent_product(r_axes) << ";  // iterations of D" << p.inner << " per row\n";
  s << "  const long long lane = threadIdx.x, lanes = blockDim.x;\n";
  if (!cached.empty()) {
    s << "  // The row cache: per kept value blockDim.y rows, this group's at threadIdx.y. Each thread reads back\n"
      << "  // only the elements it stored (the same j in both loops): no barrier.\n";
    s << "  extern __shared__ __align__(16) unsigned char jf_row_cache[];\n";
    s << "  unsigned long long jf_cache_bytes = 0;\n";
    for (node_id c : cached) {
      const std::string t = e.T(g.at(c).type);
      s << "  " << t << "* const kept" << c << " = reinterpret_cast<" << t
        << "*>(jf_row_cache + jf_cache_bytes) + threadIdx.y * n_len;  // %" << c << "\n";
      s << "  jf_cache_bytes += jf_nest::align16(sizeof(" << t << ") * blockDim.y * n_len);\n";
    }
    s << "  const bool cached = jf_cache_bytes <= jf_nest::dynamic_smem_bytes();  // else the map loop reloads\n";
  }
  // Splits (row reduction without map): configure_row_reduction may split few long rows over
  // blockIdx.y; block (x, y) then reduces elements [jf_lo, jf_hi) of its rows, runs of 256 so that
  // the loads stay aligned, and the last block of a row combines the splits' partials in order.
  const bool splits = !with_map;
  li.row_splits = splits;
  if (splits) {
    s << "  // Splits of the rows over blockIdx.y (few long rows); one split: the whole row.\n";
    s << "  const long long jf_splits = gridDim.y;\n";
    s << "  const long long jf_chunk = ((n_len + jf_splits - 1) / jf_splits + 255) / 256 * 256;\n";
    s << "  const long long jf_lo = min(n_len, static_cast<long long>(blockIdx.y) * jf_chunk);\n";
    s << "  const long long jf_hi = min(n_len, jf_lo + jf_chunk);\n";
  }
  s << "  for (long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; row < n_rows;\n"
    << "       row += static_cast<long long>(gridDim.x) * blockDim.y) {  // the same for the whole group\n";
  const std::string ind = "    ";
  e.unravel(ind, "row", k_axes, "");

  std::vector<char> need_outer(need.size(), 0);  // the row's values the reduced domain reads
  for (std::size_t k = 0; k < need.size(); ++k)
    need_outer[k] = need[k] && (g.nodes[k].domain == 0 || g.nodes[k].domain == p.outer);
  e.emit_nodes(need_outer, ind, "", emitter::which::all);

  for (node_id r : e.f.reduces)
    s << ind << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";  // reduce %" << r << "\n";
  // A cached row is read by one block per SM: twice the loads in flight per thread keep the memory
  // busy while other SMs write.
  const int read_unroll = cached.empty() ? e.unroll() : 2 * e.unroll();
  e.laned_loop(ind, "j", splits ? "jf_lo + lane" : "lane", "lanes", splits ? "jf_hi" : "n_len", r_axes, read_unroll,
               need, [&](const std::string& in2, const std::string& flat) {
                 for (node_id c : cached)
                   s << in2 << "if (cached) kept" << c << "[" << flat << "] = " << e.vname[static_cast<std::size_t>(c)]
                     << ";\n";
                 for (node_id r : e.f.reduces) e.accumulate(in2, r, cat("acc", r), flat);
               });
  s << ind << "// The row's value, in every thread of the group.\n";
  for (node_id r : e.f.reduces)
    s << ind << (splits ? "" : "const ") << e.acc_type(r) << " red" << r << " = jf_nest::group_allreduce(acc" << r
      << ", " << e.combine_lambda(r) << ", " << e.identity(r) << ");\n";
  if (splits) {
    // The column reduction's handshake: partials, a fence, a counter per row.
    s << ind << "if (jf_splits > 1) {  // this block's split of the row: the last block of the row combines them\n";
    const std::string in2 = ind + "  ";
    e.scratch_pointers(in2, "n_rows", "n_rows * jf_splits");
    s << in2 << "if (lane == 0) {\n";
    for (node_id r : e.f.reduces) e.store_partial(in2 + "  ", r, "row * jf_splits + blockIdx.y", cat("red", r));
    s << in2 << "}\n";
    e.last_split_block(in2, "row", "continue");  // the next row (the same for the whole block)
    for (node_id r : e.f.reduces) e.combine_splits(in2, r, cat("red", r), "jf_splits", "row * jf_splits + y");
    s << ind << "}\n";
  }
  for (node_id r : e.f.reduces) {
    const std::string v = cat("v", r);
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
  // The element-wise work over D<m>, reading the kept values of `keep` from the row cache.
  auto map_loop = [&](const std::string& in2, domain_id m, const std::vector<node_id>& keep) {
    const std::vector<std::int32_t> m_axes = g.dom(m).axes;
    const auto saved = e.vname;
    e.forget_below(p.outer);
    for (node_id c : keep) e.kept[static_cast<std::size_t>(c)] = cat("kept", c);
    const std::vector<char> need_m = e.f.closure(e.f.outputs_in(m));
    e.laned_loop(in2, "j", "lane", "lanes", "n_map", m_axes, std::min(4, e.unroll()), need_m,
                 [&](const std::string& in3, const std::string&) { e.store_outputs(in3, m); });
    for (node_id c : keep) e.kept[static_cast<std::size_t>(c)].clear();
    e.vname = saved;
  };
  for (domain_id m : p.map_domains) {
    s << ind << "// The row's element-wise work over D" << m << ".\n";
    s << ind << "{\n";
    const std::string in2 = ind + "  ";
    s << in2 << "const long long n_map = " << e.extent_product(g.dom(m).axes) << ";\n";
    if (m == p.inner && !cached.empty()) {
      s << in2 << "if (cached) {  // the row's loads from the row cache\n";
      map_loop(in2 + "  ", m, cached);
      s << in2 << "} else {  // the row did not fit: reload it\n";
      map_loop(in2 + "  ", m, {});
      s << in2 << "}\n";
    } else {
      map_loop(in2, m, {});
    }
    s << ind << "}\n";
  }
  s << "  }\n";
  e.close_kernel();
}

namespace {

// The launch of the row cache, or threads == 0 when the rows do not fit. The cache must fit a
// block's opt-in shared memory, and the SM must keep at least half its threads resident (enough
// loads in flight; with fewer, reloading the row is the faster of the two). A block per row gets
// more threads (up to 1024) while the shared memory limits the blocks per SM.
struct row_cache_launch {
  unsigned threads = 0;            // blockDim.x
  std::size_t bytes = 0;           // dynamic shared memory per block
  std::int64_t blocks_per_sm = 0;  // resident
};

row_cache_launch plan_row_cache(const launch_info& li, std::int64_t len, unsigned groups, const device_limits& dev) {
  if (li.row_cache_bytes.empty() || dev.shared_per_block == 0 || dev.shared_per_sm == 0 || len <= 0) return {};
  if (static_cast<std::uint64_t>(len) > dev.shared_per_block) return {};  // (and no overflow below)
  std::size_t bytes = 0;  // the kernel's jf_cache_bytes
  for (int b : li.row_cache_bytes)
    bytes += align16(static_cast<std::size_t>(b) * groups * static_cast<std::size_t>(len));
  const std::size_t per_block = bytes + static_cast<std::size_t>(li.static_shared_bytes);
  if (per_block > dev.shared_per_block) return {};
  const std::int64_t by_shared =
      static_cast<std::int64_t>(dev.shared_per_sm / (per_block + dev.shared_reserved_per_block));
  const std::int64_t max_threads = std::max(32, dev.max_threads_per_sm);
  unsigned threads = groups == 1 ? 256 : 32;
  if (groups == 1)
    while (threads < 1024 && by_shared * threads < max_threads) threads *= 2;
  const std::int64_t block_threads = static_cast<std::int64_t>(threads) * groups;
  const std::int64_t per_sm = std::min(by_shared, max_threads / block_threads);
  if (per_sm * block_threads * 2 < max_threads) return {};
  return {threads, bytes, per_sm};
}

}  // namespace

namespace {
std::atomic<bool> split_rows{true};
}  // namespace

void set_row_splits(bool on) { split_rows.store(on, std::memory_order_relaxed); }
bool row_splits_on() { return split_rows.load(std::memory_order_relaxed); }

launch_config configure_row_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t rows = product(li.outer_axes, ext);
  const std::int64_t reduced = product(li.reduced_axes, ext);
  std::int64_t len = reduced;
  if (!li.map_axes.empty()) len = std::max(len, product(li.map_axes, ext));
  // A block per row once every thread of it has 8 elements or more; else a warp per row.
  const bool block_per_row = len >= 2048;
  c.block[0] = block_per_row ? 256 : 32;
  c.block[1] = block_per_row ? 1 : 8;
  std::int64_t resident = resident_blocks(dev, 256);
  if (rows > 0) {
    const row_cache_launch cache = plan_row_cache(li, reduced, c.block[1], dev);
    if (cache.threads > 0) {
      c.block[0] = cache.threads;
      c.shared_bytes = cache.bytes;
      resident = std::max(1, dev.sm_count) * cache.blocks_per_sm;
    }
  }
  const std::int64_t per_block = c.block[1];
  // A block per row without the row cache: a block for every row (the hardware balances the last
  // wave; 4 waves of looping blocks left 32768 rows at 7.76 a block, 2.3 % slower on an H200,
  // bench/experiments/row_sum_in_jetfuse.cu). Else the blocks loop over the rows in 4 waves.
  const std::int64_t cap = block_per_row && c.shared_bytes == 0 ? std::int64_t(0x7fffffff) : resident * 4;
  const std::int64_t blocks = std::min<std::int64_t>((rows + per_block - 1) / per_block, cap);
  c.grid[0] = static_cast<unsigned>(blocks);  // 0 rows: nothing to launch
  // Long rows that leave the last wave of blocks nearly idle are split over blockIdx.y, 4096
  // elements a split at least (16 a thread). Fewer rows than a wave: one whole wave of splits, not
  // more (every block the same size, all in flight at once). On an H200, sum(x, 1) of 8 x 2^24
  // float32: a block a row 4063 us, 8 x 132 splits (one wave) 132.4, x 264 (two) 136.3, x 528
  // (four) 149.3; CUB's segmented reduce 3454.5 (bench/experiments/row_sum_in_jetfuse.cu); blocks
  // just past one wave (as ceil would give for 100 rows) leave a last round nearly empty, as the
  // column reduction's 9 splits of 128 tiles (1152 blocks, a wave 1056) did: 145.5 us against
  // 126.9 with 8 (column_sum_in_jetfuse.cu). Rows just past whole waves (the last under half full)
  // and fewer than 4 waves: split until about 4 waves run, so that the lone last round is short:
  // 1100 rows of 2^17 157.0 us whole, 4 splits 138.8, 8 137.9, 16 138.6 (CUB 136.2). Else the
  // rows stay whole: a split costs its partial's write and the last block's fence, 4096 rows of
  // 2^15 (3.9 waves) 123.5 us whole, 129.6 in 2 splits. set_row_splits(false) turns it off (tests
  // compare the two kernels).
  if (row_splits_on() && li.row_splits && block_per_row && c.shared_bytes == 0 && rows > 0) {
    std::int64_t splits = 1;
    if (rows < resident)
      splits = resident / rows;
    else if (rows < 4 * resident && rows % resident != 0 && rows % resident < resident / 2)
      splits = (4 * resident + rows - 1) / rows;
    splits = std::min(splits, std::max<std::int64_t>(1, reduced / 4096));
    splits = std::clamp<std::int64_t>(splits, 1, dev.max_grid_y);
    if (splits > 1) {
      c.grid[1] = static_cast<unsigned>(splits);
      c.scratch_bytes = scratch_bytes(li, rows, rows * splits);
      c.scratch_zero_bytes = align16(4 * static_cast<std::size_t>(rows));  // the rows' counters
      c.counters_reset_by_kernel = true;  // the last block of each row resets its counter
    }
  }
  return c;
}

std::string describe_row_with_map(const launch_info& li, const launch_config* c) {
  const std::string work = " reduces the row, shares the result, then runs the element-wise work of the same row";
  if (c == nullptr) {
    std::string s = "row reduction with map: a warp (short rows) or a block per row" + work;
    if (li.row_cache_bytes.empty()) return s + " (the row is read twice)";
    return s + "; it keeps the row's loads in shared memory when they fit (a block of up to 1024 threads per long "
               "row), else reads the row twice";
  }
  std::string s = "row reduction with map: ";
  s += c->block[1] > 1 ? cat("a warp per row (", c->block[1]) + " rows per block)"
                       : cat("a ", c->block[0]) + "-thread block per row";
  s += work;
  if (c->shared_bytes > 0) return s + ", row cached in shared memory (read once)";
  if (li.row_cache_bytes.empty()) return s + " (the row is read twice)";
  return s + " (the row is read twice: its loads do not fit this device's shared memory)";
}

}  // namespace jf::ir::nest
