// Kernel shape "list": the work of a jagged array's lists and elements (docs/design.md, "List
// kernels"): element-wise nodes over the elements domain E (x * 2 + met), reductions of each list
// reduce(m, x @ E) @ L (per-list sum, max, argmax, counts), element-wise nodes of the list domain L
// after them (mean = sum / count, count > 0) and maps over E reading them back (x - mean(x) per
// list): one kernel.
//
// Tiles of 256 consecutive lists, one per 256-thread block (grid-stride over tiles). The tile's 257
// offsets go to shared memory; its elements are the contiguous range [off[i0], off[i0 + 256]).
//  0. Per list (thread t owns list i0 + t): the values of L that E reads before the reductions
//     (broadcast(met @ L) @ E) are computed once per list and kept in shared memory.
//  1. Reductions. A tile of at most `cap` elements (Poisson lists: always) is staged: the block
//     walks the tile's elements coalesced (each element finds its list by a binary search in the
//     shared offsets, only when something reads the list index), computes the reductions' operands
//     and keeps them in shared memory; then each thread combines its own list serially. A larger
//     tile (long lists) schedules per list by length: a list of at most 32 elements by its thread,
//     up to 4096 by its warp (lanes strided, warp tree), longer by the whole block (threads
//     strided, block tree). No host synchronisation: the choice is made on the device per tile.
//  2. Per list: the results, L's element-wise nodes, L's outputs, and the values of L that the map
//     over E reads (kept in shared memory).
//  3. The map over E: the tile's elements, coalesced, each finding its list as in 1.
//
// Order of combination (fixed by the offsets, the same bits every run): a list of a staged tile,
// of at most 32 elements, is combined serially in increasing j; a warp's list: lane l combines
// j = lb + l, lb + l + 32, ... in order, then the warp tree (jf_nest::warp_reduce); a block's list:
// thread t combines lb + t, lb + t + 256, ... in order, then jf_nest::group_allreduce's tree.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int tile_lists = 256;       // lists per tile = threads per block
constexpr int thread_max = 32;        // longest list combined by one thread in an unstaged tile
constexpr int warp_max = 4096;        // longest list combined by one warp (longer: the block)
constexpr int stage_bytes = 32 * 1024;  // shared memory for the staged operands of a tile

// The nodes `targets` are computed from, not crossing reduces (their loops compute them) nor the
// nodes in `stops` (named before: values kept in shared memory); stops themselves are included.
std::vector<char> cone(const graph& g, const std::vector<node_id>& targets, const std::vector<char>& stops) {
  std::vector<char> need(g.nodes.size(), 0);
  for (node_id t : targets)
    if (t != no_node) need[static_cast<std::size_t>(t)] = 1;
  for (std::size_t k = g.nodes.size(); k-- > 0;) {
    if (!need[k] || stops[k]) continue;
    const node& n = g.nodes[k];
    if (n.code == op::reduce) continue;
    for (int a = 0; a < n.nargs; ++a) need[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])] = 1;
  }
  return need;
}

}  // namespace

void emit_list(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const domain_id L = p.outer, E = p.inner;
  const std::int32_t a = g.dom(L).axes[0];
  const std::int32_t b = E >= 0 ? g.dom(E).axes[0] : -1;
  const std::size_t offsets = static_cast<std::size_t>(g.dom(L).source);
  li.block = tile_lists;
  li.outer_axes = {a};
  if (E >= 0) li.reduced_axes = {b};
  e.add_operand_axis(g.outputs.size() + offsets, a);
  e.max_threads = tile_lists;

  // Values of L read in E (through broadcasts): computed per list, kept in shared memory.
  std::vector<char> list_val(g.nodes.size(), 0);
  std::vector<node_id> before, after;  // before / after the reductions
  bool reads_list = false;             // E reads its list's index (values of L, index(a))
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (n.domain != E || e.f.uniform[k]) continue;
    if (n.code == op::index && n.attr[0] == a) reads_list = true;
    if (n.code != op::broadcast || e.f.uniform[static_cast<std::size_t>(n.args[0])]) continue;
    const node_id x = n.args[0];
    if (list_val[static_cast<std::size_t>(x)]) continue;
    list_val[static_cast<std::size_t>(x)] = 1;
    (e.f.after_reduce[static_cast<std::size_t>(x)] ? after : before).push_back(x);
    reads_list = true;
  }
  const std::vector<char> none(g.nodes.size(), 0);
  std::vector<node_id> reduce_args;
  for (node_id r : e.f.reduces)
    for (int k = 0; k < g.at(r).nargs; ++k) reduce_args.push_back(g.at(r).args[static_cast<std::size_t>(k)]);
  const std::vector<char> need0 = cone(g, before, none);
  const std::vector<char> need1 = cone(g, reduce_args, list_val);
  std::vector<node_id> list_targets = e.f.outputs_in(L);
  list_targets.insert(list_targets.end(), after.begin(), after.end());
  const std::vector<char> need2 = cone(g, list_targets, none);
  const std::vector<node_id> element_outputs = E >= 0 ? e.f.outputs_in(E) : std::vector<node_id>{};
  const std::vector<char> need3 = cone(g, element_outputs, list_val);

  // Staged operands: per reduce its operand (and guard) per element of the tile.
  int bytes_per_element = 0;
  for (node_id r : e.f.reduces) bytes_per_element += size_of(e.value_type(r)) + (g.at(r).nargs == 2 ? 1 : 0);
  int cap = bytes_per_element > 0 ? stage_bytes / bytes_per_element : 0;
  cap = std::min(2048, cap / tile_lists * tile_lists);
  if (!e.f.reduces.empty() && cap < tile_lists) cap = 0;  // too many reductions to stage: never staged
  li.list_stage_items = cap;

  std::string plan = cat("Tiles of ", tile_lists) + cat(" lists of D", L) + " per block (grid-stride over tiles), offsets in shared memory.";
  if (!e.f.reduces.empty())
    plan += cat("\nReductions: tiles of at most ", cap) + " elements staged in shared memory and combined by each list's thread;" +
            cat("\nlarger tiles: lists of at most ", thread_max) + cat(" elements by their thread, up to ", warp_max) +
            " by a warp, longer by the block.";
  if (!element_outputs.empty()) plan += cat("\nThe map over D", E) + ": the tile's elements, coalesced.";
  e.header(p, plan);
  e.args_struct();
  e.open_kernel(cat("// Launch: ", tile_lists) + "-thread blocks, grid fixed by configure_launch (tiles of lists, grid-stride).\n");
  e.prologue("  ");
  s << "  const long long* __restrict__ jf_off = a.in" << offsets << ";  // the offsets of D" << L << "\n";
  s << "  const long long jf_st_off = a.st_in" << offsets << "[" << a << "];\n";
  s << "  const long long jf_nl = e" << a << ";  // lists\n";
  // Whether E's loops need each element's list (a binary search): values of L, or an operand of E
  // that varies with the list index (a per-list value read in E; a content has stride 0 there).
  {
    std::string need = reads_list ? "true" : "false";
    if (E >= 0) {
      for (std::size_t k = 0; k < g.outputs.size(); ++k)
        if (g.outputs[k].domain == E) need += cat(" || a.st_out", k) + cat("[", a) + "] != 0";
      std::vector<char> seen(g.inputs.size(), 0);
      for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        const node& n = g.nodes[k];
        if (n.code != op::input || n.domain != E || (!need1[k] && !need3[k])) continue;
        const auto in = static_cast<std::size_t>(n.index);
        if (seen[in] || g.inputs[in].lay == layout::scalar) continue;
        seen[in] = 1;
        need += cat(" || a.st_in", n.index) + cat("[", a) + "] != 0";
      }
    }
    s << "  const bool jf_need_list = " << need << ";  // E's loops look up each element's list\n";
  }
  s << "  __shared__ long long s_off[" << tile_lists + 1 << "];\n";
  for (node_id x : before)
    s << "  __shared__ " << e.T(g.at(x).type) << " s_lv" << x << "[" << tile_lists << "];  // %" << x << " per list\n";
  for (node_id x : after)
    s << "  __shared__ " << e.T(g.at(x).type) << " s_lv" << x << "[" << tile_lists << "];  // %" << x << " per list\n";
  if (cap > 0)
    for (node_id r : e.f.reduces) {
      s << "  __shared__ " << e.T(e.value_type(r)) << " s_arg" << r << "[" << cap << "];  // staged operand of %" << r << "\n";
      if (g.at(r).nargs == 2) s << "  __shared__ bool s_keep" << r << "[" << cap << "];  // and its guard\n";
    }
  s << "  const long long ntiles = (jf_nl + " << tile_lists - 1 << ") / " << tile_lists << ";\n";
  s << "  const int me = static_cast<int>(threadIdx.x), lane = me & 31;\n";
  s << "  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n";
  const std::string in = "    ";
  s << in << "const long long i0 = tile * " << tile_lists << ";\n";
  s << in << "const int nl = static_cast<int>(jf_nl - i0 < " << tile_lists << " ? jf_nl - i0 : " << tile_lists << ");\n";
  s << in << "__syncthreads();  // the previous tile is done with the shared arrays\n";
  s << in << "for (int t = me; t <= nl; t += blockDim.x) s_off[t] = jf_off[(i0 + t) * jf_st_off];\n";
  s << in << "__syncthreads();\n";
  s << in << "const long long base = s_off[0], count = s_off[nl] - base;  // the tile's elements\n";
  s << in << "const bool mine = me < nl;  // this thread's list: i0 + me\n";
  s << in << "const long long jb = mine ? s_off[me] : 0, je = mine ? s_off[me + 1] : 0;\n";
  s << in << "const I il = static_cast<I>(i0 + me);\n";

  auto saved = e.vname;
  auto restore = [&] {
    e.vname = saved;
    std::fill(e.axis.begin(), e.axis.end(), std::string());
  };
  // Values of list `t` kept in shared memory, for the nodes of E.
  auto name_list_values = [&](const std::vector<node_id>& xs, const std::string& t) {
    for (node_id x : xs) e.vname[static_cast<std::size_t>(x)] = cat("s_lv", x) + "[" + t + "]";
  };
  // A loop over the tile's elements q = start, start + step, ... < count: element j = base + q and
  // (when needed) its list lt<sfx>, found in the shared offsets.
  auto tile_prelude = [&](const std::vector<node_id>& kept) {
    return [&, kept](const std::string& ind, const std::string& flat, const std::string& sfx) {
      s << ind << "const long long jj" << sfx << " = base + " << flat << ";\n";
      s << ind << "const int lt" << sfx << " = jf_need_list ? jf_nest::list_in_tile(s_off, nl, jj" << sfx << ") : 0;\n";
      s << ind << "const I il" << sfx << "_l = static_cast<I>(i0 + lt" << sfx << ");\n";
      e.axis[static_cast<std::size_t>(a)] = "il" + sfx + "_l";
      e.axis[static_cast<std::size_t>(b)] = "jj" + sfx;
      name_list_values(kept, "lt" + sfx);
    };
  };
  // A loop over one list's elements j = start, start + step, ... < end (list index `list`, slot `t`).
  auto list_prelude = [&](const std::string& list, const std::string& t, const std::vector<node_id>& kept) {
    return [&, list, t, kept](const std::string& ind, const std::string& flat, const std::string& sfx) {
      s << ind << "const long long jj" << sfx << " = " << flat << ";\n";
      e.axis[static_cast<std::size_t>(a)] = list;
      e.axis[static_cast<std::size_t>(b)] = "jj" + sfx;
      name_list_values(kept, t);
    };
  };

  // 0. Values of L read by E before the reductions.
  if (!before.empty()) {
    s << in << "if (mine) {  // values of the list that its elements read\n";
    e.axis[static_cast<std::size_t>(a)] = "il";
    e.emit_nodes(need0, in + "  ", "", emitter::which::all);
    for (node_id x : before) s << in << "  s_lv" << x << "[me] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
    s << in << "}\n";
    s << in << "__syncthreads();\n";
    restore();
  }

  // 1. Reductions.
  if (!e.f.reduces.empty()) {
    for (node_id r : e.f.reduces)
      s << in << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";  // reduce %" << r << " of list il\n";
    const std::string in2 = in + "  ";
    if (cap > 0) {
      s << in << "if (count <= " << cap << ") {\n";
      s << in2 << "// Staged: the tile's operands, coalesced, into shared memory.\n";
      e.laned_loop(in2, "q", "me", "static_cast<long long>(blockDim.x)", "count", {b}, 4, need1,
                   [&](const std::string& ind, const std::string& flat) {
                     for (node_id r : e.f.reduces) {
                       const node& n = g.at(r);
                       s << ind << "s_arg" << r << "[" << flat << "] = " << e.vname[static_cast<std::size_t>(n.args[0])] << ";\n";
                       if (n.nargs == 2)
                         s << ind << "s_keep" << r << "[" << flat << "] = " << e.vname[static_cast<std::size_t>(n.args[1])] << ";\n";
                     }
                   },
                   tile_prelude(before));
      s << in2 << "__syncthreads();\n";
      s << in2 << "// Each thread combines its list serially, in increasing j.\n";
      s << in2 << "for (long long j = jb; j < je; ++j) {\n";
      for (node_id r : e.f.reduces) {
        const node& n = g.at(r);
        const std::string v = cat("s_arg", r) + "[j - base]";
        const std::string val = is_arg_monoid(e.mono(r)) ? e.acc_type(r) + "{" + v + ", j - jb}" : v;
        s << in2 << "  ";
        if (n.nargs == 2) s << "if (" << cat("s_keep", r) << "[j - base]) ";
        s << "acc" << r << " = " << e.combine_fn(r) << "(acc" << r << ", " << val << ");\n";
      }
      s << in2 << "}\n";
      s << in << "} else {\n";
    } else {
      s << in << "{\n";
    }
    restore();
    auto acc_lanes = [&](const std::string& prefix, const std::string& lb) {
      return [&, prefix, lb](const std::string& ind, const std::string& flat) {
        for (node_id r : e.f.reduces) e.accumulate(ind, r, prefix + std::to_string(r), flat + " - " + lb);
      };
    };
    s << in2 << "// Unstaged (long lists in the tile): by length, a thread, a warp or the block per list.\n";
    s << in2 << "if (mine && je - jb <= " << thread_max << ") {\n";
    e.laned_loop(in2 + "  ", "j", "jb", "1", "je", {b}, 1, need1, acc_lanes("acc", "jb"), list_prelude("il", "me", before));
    restore();
    s << in2 << "}\n";
    s << in2 << "unsigned todo = __ballot_sync(jf_nest::full_mask, mine && je - jb > " << thread_max << " && je - jb <= "
      << warp_max << ");\n";
    s << in2 << "while (todo) {  // the warp's lists of medium length, one after the other\n";
    s << in2 << "  const int src = __ffs(todo) - 1;\n";
    s << in2 << "  todo &= todo - 1;\n";
    s << in2 << "  const int wt = (me & ~31) + src;\n";
    s << in2 << "  const long long lb = s_off[wt], le = s_off[wt + 1];\n";
    s << in2 << "  const I ilw = static_cast<I>(i0 + wt);\n";
    for (node_id r : e.f.reduces) s << in2 << "  " << e.acc_type(r) << " accw" << r << " = " << e.identity(r) << ";\n";
    e.laned_loop(in2 + "  ", "j", "lb + lane", "32LL", "le", {b}, e.unroll(), need1, acc_lanes("accw", "lb"),
                 list_prelude("ilw", "wt", before));
    restore();
    for (node_id r : e.f.reduces) {
      s << in2 << "  accw" << r << " = jf_nest::shfl_first(jf_nest::warp_reduce(accw" << r << ", " << e.combine_lambda(r) << "));\n";
      s << in2 << "  if (lane == src) acc" << r << " = accw" << r << ";\n";
    }
    s << in2 << "}\n";
    s << in2 << "for (int t = 0; t < nl; ++t) {  // long lists: the whole block (a block-uniform loop)\n";
    s << in2 << "  const long long lb = s_off[t], le = s_off[t + 1];\n";
    s << in2 << "  if (le - lb <= " << warp_max << ") continue;\n";
    s << in2 << "  const I ilb = static_cast<I>(i0 + t);\n";
    for (node_id r : e.f.reduces) s << in2 << "  " << e.acc_type(r) << " accb" << r << " = " << e.identity(r) << ";\n";
    e.laned_loop(in2 + "  ", "j", "lb + me", "static_cast<long long>(blockDim.x)", "le", {b}, e.unroll(), need1,
                 acc_lanes("accb", "lb"), list_prelude("ilb", "t", before));
    restore();
    for (node_id r : e.f.reduces) {
      s << in2 << "  accb" << r << " = jf_nest::group_allreduce(accb" << r << ", " << e.combine_lambda(r) << ", "
        << e.identity(r) << ");\n";
      s << in2 << "  if (me == t) acc" << r << " = accb" << r << ";\n";
    }
    s << in2 << "}\n";
    s << in << "}\n";
    // group_allreduce's static slots: 33 accumulators per reduction (jf_arg: 16 bytes).
    for (node_id r : e.f.reduces) {
      const std::size_t acc = is_arg_monoid(e.mono(r)) ? 16 : static_cast<std::size_t>(size_of(e.value_type(r)));
      li.static_shared_bytes += static_cast<int>((33 * acc + 15) / 16 * 16);
    }
  }

  // 2. Per list: the results, L's nodes and outputs, the values of L the map reads.
  if (!list_targets.empty()) {
    s << in << "if (mine) {  // list il: its results and outputs\n";
    e.axis[static_cast<std::size_t>(a)] = "il";
    for (node_id r : e.f.reduces) {
      const std::string v = cat("v", r);
      s << in << "  const " << e.T(g.at(r).type) << " " << v << " = " << e.result(r, cat("acc", r)) << ";\n";
      e.vname[static_cast<std::size_t>(r)] = v;
    }
    e.emit_nodes(need2, in + "  ", "", emitter::which::all);
    e.store_outputs(in + "  ", L);
    for (node_id x : after) s << in << "  s_lv" << x << "[me] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
    s << in << "}\n";
    restore();
  }

  // 3. The map over E.
  if (!element_outputs.empty()) {
    if (!after.empty()) s << in << "__syncthreads();  // the lists' values are in shared memory\n";
    std::vector<node_id> kept = before;
    kept.insert(kept.end(), after.begin(), after.end());
    e.laned_loop(in, "q", "me", "static_cast<long long>(blockDim.x)", "count", {b}, 4, need3,
                 [&](const std::string& ind, const std::string&) { e.store_outputs(ind, E); }, tile_prelude(kept));
    restore();
  }
  s << "  }\n";
  for (node_id x : before) li.static_shared_bytes += size_of(g.at(x).type) * tile_lists;
  for (node_id x : after) li.static_shared_bytes += size_of(g.at(x).type) * tile_lists;
  li.static_shared_bytes += 8 * (tile_lists + 1) + cap * bytes_per_element;
  e.close_kernel();
}

launch_config configure_list(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t lists = ext[li.outer_axes[0]];
  const std::int64_t tiles = (lists + tile_lists - 1) / tile_lists;
  // Tiles grid-strided over at most 4 waves of resident blocks (fewer when shared memory limits them).
  std::int64_t resident = resident_blocks(dev, tile_lists);
  if (dev.shared_per_sm > 0 && li.static_shared_bytes > 0)
    resident = std::min<std::int64_t>(
        resident, static_cast<std::int64_t>(std::max(1, dev.sm_count)) *
                      std::max<std::int64_t>(1, static_cast<std::int64_t>(dev.shared_per_sm) /
                                                    (li.static_shared_bytes + static_cast<std::int64_t>(dev.shared_reserved_per_block))));
  c.grid[0] = static_cast<unsigned>(std::min<std::int64_t>(tiles, resident * 4));
  c.block[0] = tile_lists;
  return c;
}

std::string describe_list(const launch_info& li, const launch_config* c) {
  std::string s = cat("list kernel: tiles of ", tile_lists) + " lists per 256-thread block (grid-stride), offsets in shared memory";
  if (!li.reduced_axes.empty() && li.list_stage_items > 0)
    s += cat("; per-list reductions: a tile of at most ", li.list_stage_items) +
         " elements staged in shared memory (coalesced) and combined by each list's thread, a larger tile per list by length "
         "(a thread up to 32 elements, a warp up to 4096, else the block)";
  else if (!li.reduced_axes.empty())
    s += "; per-list reductions by length (a thread up to 32 elements, a warp up to 4096, else the block)";
  s += "; maps over the elements coalesced over the tile";
  if (c && c->grid[0] > 0) s += cat(" (", c->grid[0]) + " blocks)";
  return s;
}

}  // namespace jf::ir::nest
