// Kernel shape "list": the work of a jagged array's lists and elements (docs/design.md, "List
// kernels"): element-wise nodes over the elements domain E (x * 2 + met), reductions of each list
// reduce(m, x @ E) @ L (per-list sum, max, argmax, counts), element-wise nodes of the list domain L
// after them (mean = sum / count, count > 0) and maps over E reading them back (x - mean(x) per
// list): one kernel.
//
// Warp tiles. A 256-thread block takes a tile of 8 * 32 * K consecutive lists per trip (grid-stride
// over tiles); warp w owns the tile's lists w * 32K .. w * 32K + 32K - 1, and lane l of it the lists
// l, l + 32, ..., l + 32 (K - 1) of those. The warps work alone: no barrier in a tile whose elements
// number at most warp_max (Poisson lists: every tile).
//  - Offsets: each lane loads its K lists' starts (coalesced, K independent loads), the ends are the
//    next lane's starts (shuffles).
//  - A list of at most thread_max elements is combined by its lane. The warp's lanes walk their K
//    lists in lock step, step m reading element b + m of every list of the warp: each load instruction
//    reads 32 consecutive lists' m-th elements, a window of a few cache lines; K independent loads per
//    step. Lanes past their lists' ends load a valid element (the warp's first) and combine a neutral
//    value instead (no branch: the compiler issues the loads of several steps ahead).
//  - A list of thread_max + 1 .. warp_max elements by the whole warp, one list after the other
//    (ballot): lanes strided over it, the warp tree; its values of L and its map too.
//  - A tile whose elements number more than warp_max (read from its first and last offsets, the same
//    value in every thread: the branch is block-uniform) may hold a longer list: those lists are
//    queued in shared memory and combined by the whole block after the warps' work (threads strided,
//    the block tree), each with its values of L and its map.
//  - Where the list domain's longest list is known (domain::longest, from the offsets' validation)
//    the paths no list needs are not emitted: at most warp_max, the tile bounds, queue and block
//    path; at most thread_max, also the ballots and the warp path.
//  - Per list of a lane: the results, L's element-wise nodes, L's outputs, the values of L that the
//    map over E reads (registers), then the map over E in lock step as the reductions.
// Values of L read in E before the reductions (broadcast(met @ L) @ E) are computed once per list.
// A sum of a uniform integer value (a list's count: validity, mean) is the list's length times it:
// no accumulator.
//
// Order of combination (fixed by the offsets alone: the same bits every run, on any grid): a list of
// at most thread_max elements serially in increasing j; up to warp_max: lane l combines
// j = lb + l, lb + l + 32, ... in order, then the warp tree (jf_nest::warp_reduce); longer: thread t
// combines lb + t, lb + t + 256, ... in order, then jf_nest::group_allreduce's tree.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int block_threads = 256;  // threads per block: 8 warps
constexpr int block_warps = block_threads / 32;
// The longest list combined by its lane, and by one warp (longer: the block): the classes of a
// list domain's known longest list (domain::longest).
constexpr int default_thread_max = static_cast<int>(list_length_classes[0]);
constexpr int warp_max = static_cast<int>(list_length_classes[1]);
constexpr int waves = 4;  // grid: tiles over at most this many waves of resident blocks

// The reduce's operand when it is a uniform value (a constant, param or extent, or a broadcast of
// one) summed without a guard in an integer dtype: its sum over a list is the list's length times
// it (wrapping as the sum does), no accumulator needed.
node_id uniform_summand(const emitter& e, node_id r) {
  const node& n = e.g.at(r);
  if (e.mono(r) != monoid::sum || n.nargs != 1) return no_node;
  const dtype t = e.value_type(r);
  if (t != dtype::int32 && t != dtype::int64) return no_node;
  node_id x = n.args[0];
  if (e.g.at(x).code == op::broadcast) x = e.g.at(x).args[0];
  return e.f.uniform[static_cast<std::size_t>(x)] ? x : no_node;
}

}  // namespace

list_schedule& list_schedule_override() {
  static list_schedule s;
  return s;
}

void emit_list(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const domain_id L = p.outer, E = p.inner;
  const std::int32_t a = g.dom(L).axes[0];
  const std::int32_t b = E >= 0 ? g.dom(E).axes[0] : -1;
  const std::size_t offsets = static_cast<std::size_t>(g.dom(L).source);
  const std::vector<node_id>& reduces = e.f.reduces;
  li.block = block_threads;
  li.outer_axes = {a};
  if (E >= 0) li.reduced_axes = {b};
  e.add_operand_axis(g.outputs.size() + offsets, a);
  e.max_threads = block_threads;
  e.ldg_inputs = true;    // (its kept arrays are the contents: global inputs)
  e.laned_counter = "I";  // (element indices: offsets values, of type I below)

  // Values of L read in E (through broadcasts), before or after the reductions.
  std::vector<char> list_val;
  std::vector<node_id> before, after;
  for (node_id x : list_values_read_in(e, E, list_val))
    (e.f.after_reduce[static_cast<std::size_t>(x)] ? after : before).push_back(x);
  const std::vector<char> none(g.nodes.size(), 0);
  // Reductions that combine per element (the others: a uniform summand, its length times it).
  std::vector<node_id> looped, reduce_args;
  std::vector<node_id> summand(g.nodes.size(), no_node);
  for (node_id r : reduces) {
    summand[static_cast<std::size_t>(r)] = uniform_summand(e, r);
    if (summand[static_cast<std::size_t>(r)] != no_node) continue;
    looped.push_back(r);
    for (int k = 0; k < g.at(r).nargs; ++k) reduce_args.push_back(g.at(r).args[static_cast<std::size_t>(k)]);
  }
  const std::vector<char> need0 = cone(g, before, none);
  const std::vector<char> need1 = cone(g, reduce_args, list_val);
  std::vector<node_id> list_targets = e.f.outputs_in(L);
  list_targets.insert(list_targets.end(), after.begin(), after.end());
  const std::vector<char> need2 = cone(g, list_targets, none);
  const std::vector<node_id> element_outputs = E >= 0 ? e.f.outputs_in(E) : std::vector<node_id>{};
  const std::vector<char> need3 = cone(g, element_outputs, list_val);
  if (!element_outputs.empty()) li.map_axes = {b};  // (describe_list: a map over the elements)
  const bool element_work = !looped.empty() || !element_outputs.empty();
  // Contents (contiguous inputs of E: stride 0 along the lists, 1 along the elements, by the
  // contract) are read at the element index alone.
  std::vector<std::string> content(g.nodes.size());
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (n.code == op::input && n.domain == E && g.inputs[static_cast<std::size_t>(n.index)].lay == layout::contiguous &&
        g.inputs[static_cast<std::size_t>(n.index)].gen == generator::none)
      content[k] = cat("in", n.index);
  }

  // Lists per lane: K independent loads per lock step, against the registers each list keeps
  // (accumulators, values of L) across the kernel's paths. 4 for a light kernel (reductions of the
  // contents themselves, at most 4 bytes per list: sum, max + validity, count), 2 up to 8 bytes, else
  // 1 (bench_lists' schedule rows measure the choices; docs/design.md, "List kernels").
  std::size_t per_list_bytes = 0;
  for (node_id r : looped)
    per_list_bytes += is_arg_monoid(e.mono(r)) ? 16 : static_cast<std::size_t>(size_of(e.value_type(r)));
  for (node_id x : before) per_list_bytes += static_cast<std::size_t>(size_of(g.at(x).type));
  for (node_id x : after) per_list_bytes += static_cast<std::size_t>(size_of(g.at(x).type));
  bool light = element_outputs.empty();
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (need1[k] && g.nodes[k].domain == E && g.nodes[k].code != op::input && g.nodes[k].code != op::broadcast &&
        g.nodes[k].code != op::cast)
      light = false;
  const list_schedule forced = list_schedule_override();
  const int K = forced.lists_per_lane > 0      ? forced.lists_per_lane
                : light && per_list_bytes <= 4 ? 4
                : per_list_bytes <= 8          ? 2
                                               : 1;
  const int thread_max = forced.thread_max > 0 ? forced.thread_max : default_thread_max;
  // Lock steps per trip of the reductions' loop: 1. ptxas unrolls a loop of sums by itself with every
  // load ahead (16 in flight at K = 4) but keeps 3 in flight in a loop of max; two or four steps
  // written per trip put 8 or 16 in flight there, and were slower (more registers): bench_lists'
  // schedule rows, docs/design.md "Loads in flight".
  const int lock_steps = forced.lock_steps > 0 ? forced.lock_steps : 1;
  const int warp_lists = 32 * K, tile_lists = block_warps * warp_lists;
  // Where every list is known to be short (validated offsets: domain::longest), the paths for
  // longer lists are left out: no tile-bound loads, ballots or block queue (the per-list sum of
  // 10M Poisson(2) lists 65.4 -> 51.1 us with lanes only, bench/experiments/list_kernel_variants).
  const std::int64_t longest = g.dom(L).longest;
  const bool warp_path = longest < 0 || longest > thread_max;
  const bool block_path = longest < 0 || longest > warp_max;
  li.list_longest = longest;
  if (forced.min_blocks > 0) e.min_blocks = forced.min_blocks;
  li.list_lists_per_lane = K;
  li.list_thread_max = thread_max;
  li.list_warp_max = warp_max;
  li.list_lock_steps = lock_steps;

  std::string plan = cat("Warp tiles: ", tile_lists) + cat(" lists of D", L) + cat(" per ", block_threads) +
                     cat("-thread block (grid-stride over tiles), ", warp_lists) + cat(" per warp, ", K) +
                     " per lane (lists l, l + 32, ...).";
  plan += cat("\nA list of at most ", thread_max) + " elements by its lane (the warp's lanes in lock step)";
  if (warp_path) plan += cat(", up to ", warp_max) + " by its warp";
  if (block_path) plan += cat(", longer by the block (tiles of more than ", warp_max) + " elements only)";
  if (!block_path) plan += cat(" (every list has at most ", longest) + " elements)";
  plan += ".";
  e.header(p, plan);
  e.args_struct();
  e.open_kernel(cat("// Launch: ", block_threads) +
                "-thread blocks, grid fixed by configure_launch (tiles of lists, grid-stride).\n");
  e.prologue("  ");
  s << "  const " << offsets_ctype(g, offsets) << "* __restrict__ jf_off = a.in" << offsets << ";  // the offsets of D"
    << L << "\n";
  // Offsets values, list starts and ends and element indices are of type I: with int (the engine's
  // index32) every offsets value is below 2^31, and 32-bit arithmetic keeps the tile's bookkeeping
  // short (bench/experiments/list_kernel_variants: 72 -> 63 us for the per-list sum). Contiguous
  // offsets are read without a stride (the layout's promise).
  const bool off_unit = g.inputs[offsets].lay == layout::contiguous;
  if (!off_unit) s << "  const long long jf_st_off = a.st_in" << offsets << "[" << a << "];\n";
  auto off_at = [&](const std::string& i) {
    return "static_cast<I>(jf_off[" + (off_unit ? i : "(" + i + ") * jf_st_off") + "])";
  };
  s << "  const long long jf_nl = e" << a << ";  // lists\n";
  s << "  const int me = static_cast<int>(threadIdx.x), lane = me & 31, wp = me >> 5;\n";
  s << "  (void)lane;\n";
  if (block_path) {
    s << "  // The lists of a tile longer than " << warp_max << " elements (tile positions), for the whole block.\n";
    s << "  __shared__ int s_big[" << tile_lists << "];\n";
    s << "  __shared__ int s_nbig;\n";
  }
  s << "  const long long ntiles = (jf_nl + " << tile_lists - 1 << ") / " << tile_lists << ";\n";
  s << "  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n";
  const std::string in = "    ", in2 = in + "  ", in3 = in2 + "  ";
  s << in << "const long long i0 = tile * " << tile_lists << ", iw = i0 + wp * " << warp_lists << ";\n";
  auto ks = [](int k) { return cat("_", k); };
  // Offsets: list iw + lane + 32 k starts at jb_k and ends at je_k (empty past the last list); the
  // tile's first and last offsets. All loaded before the first use (and before the heavy tile's
  // barrier, which no load may cross): one memory latency per tile.
  for (int k = 0; k < K; ++k)
    s << in << "const long long jf_i" << k << " = iw + lane + " << 32 * k << ";\n"
      << in << "const I jb" << ks(k) << " = " << off_at(cat("jf_i", k) + cat(" < jf_nl ? jf_i", k) + " : jf_nl")
      << ";\n";
  s << in << "const I jf_wend = " << off_at(cat("iw + ", warp_lists) + cat(" < jf_nl ? iw + ", warp_lists) + " : jf_nl")
    << ";\n";
  if (block_path) {
    s << in << "const I jf_tb = " << off_at("i0")
      << ", jf_te = " << off_at(cat("i0 + ", tile_lists) + cat(" < jf_nl ? i0 + ", tile_lists) + " : jf_nl") << ";\n";
    s << in << "// More than " << warp_max << " elements in the tile (block-uniform): a list may need the block.\n";
    s << in << "const bool jf_heavy = jf_te - jf_tb > " << warp_max << ";\n";
    s << in << "if (jf_heavy) {\n";
    s << in2 << "__syncthreads();  // the previous tile is done with s_big\n";
    s << in2 << "if (me == 0) s_nbig = 0;\n";
    s << in2 << "__syncthreads();\n";
    s << in << "}\n";
  }
  // (Every lane runs every shuffle: a shuffle some lanes skip would wait for them forever.)
  for (int k = 0; k < K; ++k) {
    s << in << "const I jf_down" << k << " = __shfl_down_sync(jf_nest::full_mask, jb" << ks(k) << ", 1);\n";
    if (k + 1 < K)
      s << in << "const I jf_next" << k << " = __shfl_sync(jf_nest::full_mask, jb" << ks(k + 1) << ", 0);\n";
    s << in << "const I je" << ks(k) << " = lane == 31 ? " << (k + 1 < K ? cat("jf_next", k) : std::string("jf_wend"))
      << " : jf_down" << k << ";\n";
  }
  s << in << "const I jf_wb = __shfl_sync(jf_nest::full_mask, jb_0, 0);  // an element of the warp's lists (if any)\n";
  for (int k = 0; k < K; ++k) {
    s << in << "const I il" << ks(k) << " = static_cast<I>(jf_i" << k << " < jf_nl ? jf_i" << k << " : jf_nl - 1);\n";
    s << in << "const bool jf_mine" << ks(k) << " = jf_i" << k << " < jf_nl";
    if (warp_path) s << " && je" << ks(k) << " - jb" << ks(k) << " <= " << thread_max;
    s << ";  // combined by this lane\n";
    s << in << "const int jn" << ks(k) << " = jf_mine" << ks(k) << " ? static_cast<int>(je" << ks(k) << " - jb" << ks(k)
      << ") : 0;\n";
    if (warp_path)
      s << in << "const unsigned jf_warp" << ks(k) << " = __ballot_sync(jf_nest::full_mask, jf_i" << k
        << " < jf_nl && je" << ks(k) << " - jb" << ks(k) << " > " << thread_max << " && je" << ks(k) << " - jb" << ks(k)
        << " <= " << warp_max << ");  // lists " << 32 * k << " + l for the warp\n";
  }
  if (block_path) {
    s << in << "if (jf_heavy) {  // queue the lists longer than " << warp_max << "\n";
    for (int k = 0; k < K; ++k)
      s << in2 << "if (jf_i" << k << " < jf_nl && je" << ks(k) << " - jb" << ks(k) << " > " << warp_max
        << ") s_big[atomicAdd(&s_nbig, 1)] = static_cast<int>(jf_i" << k << " - i0);\n";
    s << in << "}\n";
  }
  if (element_work) {
    s << in << "int jf_steps = jn_0;\n";
    for (int k = 1; k < K; ++k) s << in << "jf_steps = max(jf_steps, jn" << ks(k) << ");\n";
    s << "#if __CUDA_ARCH__ >= 800\n";
    s << in << "jf_steps = __reduce_max_sync(jf_nest::full_mask, jf_steps);  // lock-step trips of the warp\n";
    s << "#else\n";
    s << in
      << "for (int d = 16; d > 0; d >>= 1) jf_steps = max(jf_steps, __shfl_xor_sync(jf_nest::full_mask, jf_steps, "
         "d));\n";
    s << "#endif\n";
  }

  const std::vector<std::string> saved = e.vname;
  auto reset_axes = [&] {
    std::fill(e.axis.begin(), e.axis.end(), std::string());
    e.kept = content;
    e.flat_index.clear();
  };
  // Per lane list k: the values of L read in E before the reductions (names kept in vk[k]).
  std::vector<std::vector<std::string>> vk(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    e.vname = saved;
    reset_axes();
    e.axis[static_cast<std::size_t>(a)] = "il" + ks(k);
    e.emit_nodes(need0, in, ks(k), emitter::which::all);
    vk[static_cast<std::size_t>(k)] = e.vname;
  }
  // A lock-step loop over m < jf_steps, `unroll` steps per trip: element jb_k + m' of each lane list
  // k for m' = m, m + 1, ... (a valid element when m' >= jn_k), the loads of every step and k first;
  // body(k, ind, m') runs for the lists with m' < jn_k. (`unroll`: lock_steps above.)
  auto lockstep = [&](const std::vector<char>& need,
                      const std::function<void(int, const std::string&, const std::string&)>& body, bool guarded,
                      int unroll) {
    if (unroll > 1) s << "#pragma unroll 1\n";  // (the trip's loads as written: see above)
    s << in << "for (int m = 0; m < jf_steps; m += " << unroll << ") {\n";
    std::vector<std::vector<std::string>> names(static_cast<std::size_t>(K * unroll));
    auto step = [](int u) { return u == 0 ? std::string("m") : cat("(m + ", u) + ")"; };
    auto sfx = [&](int u, int k) { return u == 0 ? ks(k) : cat("_", u) + ks(k); };
    for (int u = 0; u < unroll; ++u)
      for (int k = 0; k < K; ++k) {
        e.vname = vk[static_cast<std::size_t>(k)];
        reset_axes();
        s << in2 << "const I jj" << sfx(u, k) << " = " << step(u) << " < jn" << ks(k) << " ? jb" << ks(k) << " + "
          << step(u) << " : jf_wb;\n";
        e.axis[static_cast<std::size_t>(a)] = "il" + ks(k);
        e.axis[static_cast<std::size_t>(b)] = "jj" + sfx(u, k);
        e.flat_index = "jj" + sfx(u, k);
        e.emit_nodes(need, in2, sfx(u, k), emitter::which::loads);
        names[static_cast<std::size_t>(u * K + k)] = e.vname;
      }
    for (int u = 0; u < unroll; ++u)
      for (int k = 0; k < K; ++k) {
        e.vname = names[static_cast<std::size_t>(u * K + k)];
        e.axis[static_cast<std::size_t>(a)] = "il" + ks(k);
        e.axis[static_cast<std::size_t>(b)] = "jj" + sfx(u, k);
        e.flat_index = "jj" + sfx(u, k);
        e.emit_nodes(need, in2, sfx(u, k), emitter::which::compute);
        if (!guarded) {
          body(k, in2, step(u));
          continue;
        }
        s << in2 << "if (" << step(u) << " < jn" << ks(k) << ") {\n";
        body(k, in3, step(u));
        s << in2 << "}\n";
      }
    s << in << "}\n";
  };
  // A list's results from its accumulators acc<r><sfx> and its length `len` (uniform summands).
  auto results = [&](const std::string& ind, const std::string& prefix, const std::string& sfx,
                     const std::string& len) {
    for (node_id r : reduces) {
      const std::string v = cat("v", r) + sfx;
      const node_id u = summand[static_cast<std::size_t>(r)];
      const std::string t = e.T(g.at(r).type);
      if (u != no_node)
        s << ind << "const " << t << " " << v << " = jf::ops::jf_multiply(static_cast<" << e.T(e.value_type(r)) << ">("
          << len << "), " << e.vname[static_cast<std::size_t>(u)] << ");  // a sum of a uniform value\n";
      else
        s << ind << "const " << t << " " << v << " = " << e.result(r, prefix + std::to_string(r) + sfx) << ";\n";
      e.vname[static_cast<std::size_t>(r)] = v;
    }
  };

  // Reductions by the lanes. A step combines every list's value, or a neutral one past the list's end
  // (or where the guard is false): no branch, so the compiler issues the loads of several steps
  // ahead (a branch per list made the loads wait on the comparisons). Neutral: the identity, -0.0
  // for float sums (x + -0.0 is x, -0.0 included). argmin/argmax have none: a branch.
  if (!looped.empty()) {
    for (int k = 0; k < K; ++k)
      for (node_id r : looped) s << in << e.acc_type(r) << " acc" << r << ks(k) << " = " << e.identity(r) << ";\n";
    lockstep(
        need1,
        [&](int k, const std::string& ind, const std::string& m) {
          for (node_id r : looped) {
            const node& n = g.at(r);
            const std::string acc = cat("acc", r) + ks(k);
            std::string cond = m + " < jn" + ks(k);
            if (n.nargs == 2) cond += " && " + e.vname[static_cast<std::size_t>(n.args[1])];
            const std::string& x = e.vname[static_cast<std::size_t>(n.args[0])];
            if (is_arg_monoid(e.mono(r))) {
              s << ind << "if (" << cond << ") " << acc << " = " << e.combine_fn(r) << "(" << acc << ", "
                << e.acc_type(r) << "{" << x << ", static_cast<long long>(" << m << ")});\n";
              continue;
            }
            const dtype t = e.value_type(r);
            const std::string neutral = e.mono(r) == monoid::sum && (t == dtype::float32 || t == dtype::float64)
                                            ? "static_cast<" + e.T(t) + ">(-0.0)"
                                            : e.identity(r);
            s << ind << acc << " = " << e.combine_fn(r) << "(" << acc << ", " << cond << " ? " << x << " : " << neutral
              << ");\n";
          }
        },
        false, lock_steps);
  }
  // Per lane list: results, L's nodes and outputs, the values of L the map reads.
  for (int k = 0; k < K; ++k) {
    e.vname = vk[static_cast<std::size_t>(k)];
    reset_axes();
    e.axis[static_cast<std::size_t>(a)] = "il" + ks(k);
    results(in, "acc", ks(k), "jn" + ks(k));  // (stored only for the lane's own lists: jn is their length)
    e.emit_nodes(need2, in, ks(k), emitter::which::all);
    if (!e.f.outputs_in(L).empty()) {
      s << in << "if (jf_mine" << ks(k) << ") {\n";
      e.store_outputs(in2, L);
      s << in << "}\n";
    }
    vk[static_cast<std::size_t>(k)] = e.vname;
  }
  // The map over E, lane lists.
  if (!element_outputs.empty())
    lockstep(
        need3, [&](int, const std::string& ind, const std::string&) { e.store_outputs(ind, E); }, true, 1);

  // One list by a group of threads (the warp or the block): `lo`, `hi` its elements, `il` its index,
  // `start`/`step` the group's lanes, `combine(acc)` the group's tree (the result in every thread),
  // `first` the thread that stores L's outputs.
  auto group_list = [&](const std::string& ind, const std::string& il, const std::string& lo, const std::string& hi,
                        const std::string& start, const std::string& step, int lanes, const std::string& pre,
                        const std::function<std::string(node_id, const std::string&)>& tree, const std::string& first) {
    e.vname = saved;
    reset_axes();
    e.axis[static_cast<std::size_t>(a)] = il;
    e.emit_nodes(need0, ind, pre, emitter::which::all);
    const std::vector<std::string> vlist = e.vname;
    auto prelude = [&](const std::string& pind, const std::string& flat, const std::string& sfx) {
      s << pind << "const I jj" << sfx << " = " << flat << ";\n";
      e.axis[static_cast<std::size_t>(a)] = il;
      e.axis[static_cast<std::size_t>(b)] = "jj" + sfx;
    };
    if (!looped.empty()) {
      for (node_id r : looped) s << ind << e.acc_type(r) << " " << pre << r << " = " << e.identity(r) << ";\n";
      e.laned_loop(
          ind, "j", start, step, hi, {b}, lanes, need1,
          [&](const std::string& lind, const std::string& flat) {
            for (node_id r : looped) e.accumulate(lind, r, pre + std::to_string(r), flat + " - " + lo);
          },
          prelude);
      e.vname = vlist;
      reset_axes();
      for (node_id r : looped) s << ind << pre << r << " = " << tree(r, pre + std::to_string(r)) << ";\n";
    }
    e.axis[static_cast<std::size_t>(a)] = il;
    results(ind, pre, "", hi + " - " + lo);
    e.emit_nodes(need2, ind, pre, emitter::which::all);
    if (!e.f.outputs_in(L).empty()) {
      s << ind << "if (" << first << ") {\n";
      e.store_outputs(ind + "  ", L);
      s << ind << "}\n";
    }
    if (!element_outputs.empty()) {
      const std::vector<std::string> vmap = e.vname;
      e.laned_loop(
          ind, "jm", start, step, hi, {b}, 4, need3,
          [&](const std::string& lind, const std::string&) { e.store_outputs(lind, E); }, prelude);
      e.vname = vmap;
    }
  };

  // Lists of thread_max + 1 .. warp_max elements: the warp, one after the other.
  for (int k = 0; k < K && warp_path; ++k) {
    s << in << "for (unsigned todo = jf_warp" << ks(k) << "; todo; todo &= todo - 1) {  // the warp's lists " << 32 * k
      << " + l of medium length\n";
    s << in2 << "const long long iw1 = iw + " << 32 * k << " + __ffs(todo) - 1;\n";
    s << in2 << "const I lb = " << off_at("iw1") << ", le = " << off_at("iw1 + 1") << ";\n";
    s << in2 << "const I ilw = static_cast<I>(iw1);\n";
    group_list(
        in2, "ilw", "lb", "le", "lb + lane", "32", std::max(2, e.unroll() / 2), "accw",
        [&](node_id r, const std::string& acc) {
          return "jf_nest::shfl_first(jf_nest::warp_reduce(" + acc + ", " + e.combine_lambda(r) + "))";
        },
        "lane == 0");
    s << in << "}\n";
  }
  // Lists longer than warp_max (heavy tiles only): the block, one after the other.
  if (block_path) {
    s << in << "if (jf_heavy) {\n";
    s << in2 << "__syncthreads();  // s_big is complete\n";
    s << in2 << "const int nbig = s_nbig;\n";
    s << in2 << "for (int q = 0; q < nbig; ++q) {  // a block-uniform loop\n";
    s << in3 << "const long long ib = i0 + s_big[q];\n";
    s << in3 << "const I lb = " << off_at("ib") << ", le = " << off_at("ib + 1") << ";\n";
    s << in3 << "const I ilb = static_cast<I>(ib);\n";
    group_list(
        in3, "ilb", "lb", "le", "lb + me", std::to_string(block_threads), e.unroll(), "accb",
        [&](node_id r, const std::string& acc) {
          return "jf_nest::group_allreduce(" + acc + ", " + e.combine_lambda(r) + ", " + e.identity(r) + ")";
        },
        "me == 0");
    s << in2 << "}\n";
    s << in << "}\n";
  }
  e.vname = saved;
  reset_axes();
  s << "  }\n";
  li.static_shared_bytes = block_path ? 4 * tile_lists + 16 : 0;
  // group_allreduce's static slots: 33 accumulators per reduction (jf_arg: 16 bytes).
  for (node_id r : looped) {
    if (!block_path) break;
    const std::size_t acc = is_arg_monoid(e.mono(r)) ? 16 : static_cast<std::size_t>(size_of(e.value_type(r)));
    li.static_shared_bytes += static_cast<int>((33 * acc + 15) / 16 * 16);
  }
  e.close_kernel();
}

launch_config configure_list(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t lists = ext[li.outer_axes[0]];
  const std::int64_t tile = static_cast<std::int64_t>(block_warps) * 32 * std::max(1, li.list_lists_per_lane);
  const std::int64_t tiles = (lists + tile - 1) / tile;
  // Tiles grid-strided over at most `waves` waves of resident blocks (fewer when shared memory limits them).
  std::int64_t resident = resident_blocks(dev, block_threads);
  if (dev.shared_per_sm > 0 && li.static_shared_bytes > 0)
    resident = std::min<std::int64_t>(
        resident, static_cast<std::int64_t>(std::max(1, dev.sm_count)) *
                      std::max<std::int64_t>(
                          1, static_cast<std::int64_t>(dev.shared_per_sm) /
                                 (li.static_shared_bytes + static_cast<std::int64_t>(dev.shared_reserved_per_block))));
  c.grid[0] = static_cast<unsigned>(std::min<std::int64_t>(tiles, resident * waves));
  c.block[0] = block_threads;
  return c;
}

std::string describe_list(const launch_info& li, const launch_config* c) {
  const int K = std::max(1, li.list_lists_per_lane);
  std::string s = cat("list kernel: warp tiles of ", 32 * K) + cat(" lists (", K) + " per lane), " +
                  cat("", block_warps * 32 * K) + cat(" lists per ", block_threads) + "-thread block (grid-stride)";
  if (!li.reduced_axes.empty()) {
    const std::int64_t longest = li.list_longest;
    s += cat("; each list by its lane up to ", li.list_thread_max) +
         cat(" elements (the warp's lanes in lock step, ", std::max(1, li.list_lock_steps)) + " per trip)";
    if (longest < 0 || longest > li.list_thread_max) s += cat(", by its warp up to ", li.list_warp_max);
    if (longest < 0 || longest > li.list_warp_max) s += ", else by the block";
    if (longest >= 0) s += cat(" (lists of at most ", longest) + " elements)";
  }
  if (!li.map_axes.empty()) s += "; maps over the elements by the same lanes";
  if (c && c->grid[0] > 0) s += cat(" (", c->grid[0]) + " blocks)";
  return s;
}

}  // namespace jf::ir::nest
