// Kernel shape "list": the work of a jagged array's lists and elements (docs/design.md, "List
// kernels"): element-wise nodes over the elements domain E (x * 2 + met), reductions of each list
// reduce(m, x @ E) @ L (per-list sum, max, argmax, counts), element-wise nodes of the list domain L
// after them (mean = sum / count, count > 0) and maps over E reading them back (x - mean(x) per
// list): one kernel.
//
// Tiles of 1024 consecutive lists per 256-thread block (grid-stride over tiles); thread t owns the
// tile's lists t, t + 256, ... The tile's offsets go to shared memory; its elements are the
// contiguous range [off[i0], off[i0 + 1024]).
//  0. Per list: the values of L that E reads before the reductions (broadcast(met @ L) @ E),
//     computed once per list and kept in shared memory.
//  1. Reductions. A tile of at most `cap` elements (Poisson lists: always) is staged: the block
//     loads the tile's elements coalesced (the loads of E only: a content needs no list index)
//     into shared memory, then each thread walks its lists serially, computing E's nodes from the
//     staged loads. A larger tile (long lists) schedules per list by length: a list of at most 32
//     elements by its thread, up to 4096 by a warp (lanes strided, warp tree), longer by the whole
//     block (threads strided, block tree); results meet in shared memory. The choice is made on
//     the device per tile: no host synchronisation.
//  2. Per list: the results, L's element-wise nodes, L's outputs, and the values of L that the map
//     over E reads (kept in shared memory).
//  3. The map over E: the tile's elements, coalesced; each finds its list by a binary search in
//     the shared offsets when it reads a value of its list.
//
// Order of combination (fixed by the offsets alone: the same bits every run, on any grid): a list
// of a staged tile or of at most 32 elements is combined serially in increasing j; a warp's list:
// lane l combines j = lb + l, lb + l + 32, ... in order, then the warp tree (jf_nest::warp_reduce);
// a block's list: thread t combines lb + t, lb + t + 256, ... in order, then
// jf_nest::group_allreduce's tree.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int tile_lists = 1024;        // lists per tile
constexpr int block_threads = 256;      // threads per block: each owns tile_lists / block_threads lists
constexpr int thread_max = 32;          // longest list combined by one thread in an unstaged tile
constexpr int warp_max = 4096;          // longest list combined by one warp (longer: the block)
constexpr int stage_bytes = 24 * 1024;  // shared memory for the staged loads of a tile
constexpr int max_cap = 4096;           // staged elements per tile at most


}  // namespace

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

  // Values of L read in E (through broadcasts): computed per list, kept in shared memory.
  std::vector<char> list_val;
  std::vector<node_id> before, after;  // before / after the reductions
  for (node_id x : list_values_read_in(e, E, list_val))
    (e.f.after_reduce[static_cast<std::size_t>(x)] ? after : before).push_back(x);
  std::vector<node_id> kept_values = before;
  kept_values.insert(kept_values.end(), after.begin(), after.end());
  const std::vector<char> none(g.nodes.size(), 0);
  std::vector<node_id> reduce_args;
  for (node_id r : reduces)
    for (int k = 0; k < g.at(r).nargs; ++k) reduce_args.push_back(g.at(r).args[static_cast<std::size_t>(k)]);
  const std::vector<char> need0 = cone(g, before, none);
  const std::vector<char> need1 = cone(g, reduce_args, list_val);
  std::vector<node_id> list_targets = e.f.outputs_in(L);
  list_targets.insert(list_targets.end(), after.begin(), after.end());
  const std::vector<char> need2 = cone(g, list_targets, none);
  const std::vector<node_id> element_outputs = E >= 0 ? e.f.outputs_in(E) : std::vector<node_id>{};
  const std::vector<char> need3 = cone(g, element_outputs, list_val);
  if (!element_outputs.empty()) li.map_axes = {b};  // (describe_list: a map over the elements)

  // Staged loads: the inputs of E the reductions read (one copy per element of the tile).
  std::vector<node_id> staged;
  std::vector<char> staged_set(g.nodes.size(), 0);
  std::size_t bytes_per_element = 0;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (!need1[k] || n.code != op::input || n.domain != E) continue;
    const operand_desc& in = g.inputs[static_cast<std::size_t>(n.index)];
    if (in.lay == layout::scalar || in.gen != generator::none) continue;  // nothing to load per element
    staged.push_back(static_cast<node_id>(k));
    staged_set[k] = 1;
    bytes_per_element += static_cast<std::size_t>(size_of(n.type));
  }
  int cap = 0;
  if (!reduces.empty()) {
    cap = bytes_per_element == 0 ? max_cap : static_cast<int>(stage_bytes / bytes_per_element);
    cap = std::min(max_cap, cap / block_threads * block_threads);
  }
  li.list_stage_items = cap;
  // The per-list results of the unstaged path share the staging memory (one path runs per tile).
  std::size_t result_bytes = 0;
  for (node_id r : reduces)
    result_bytes += align16(tile_lists * (size_of(e.value_type(r)) + (is_arg_monoid(e.mono(r)) ? 8 : 0)));
  std::size_t staged_total = 0;
  for (node_id x : staged) staged_total += align16(static_cast<std::size_t>(cap) * size_of(g.at(x).type));
  const std::size_t raw_bytes = std::max<std::size_t>(16, std::max(staged_total, result_bytes + 16 * reduces.size()));

  std::string plan = cat("Tiles of ", tile_lists) + cat(" lists of D", L) + cat(" per ", block_threads) +
                     "-thread block (grid-stride over tiles), offsets in shared memory.";
  if (!reduces.empty())
    plan += cat("\nReductions: tiles of at most ", cap) +
            " elements staged (their loads, coalesced) in shared memory and combined by each list's thread;" +
            cat("\nlarger tiles: lists of at most ", thread_max) + cat(" elements by their thread, up to ", warp_max) +
            " by a warp, longer by the block.";
  if (!element_outputs.empty()) plan += cat("\nThe map over D", E) + ": the tile's elements, coalesced.";
  e.header(p, plan);
  e.args_struct();
  e.open_kernel(cat("// Launch: ", block_threads) +
                "-thread blocks, grid fixed by configure_launch (tiles of lists, grid-stride).\n");
  e.prologue("  ");
  s << "  const long long* __restrict__ jf_off = a.in" << offsets << ";  // the offsets of D" << L << "\n";
  s << "  const long long jf_st_off = a.st_in" << offsets << "[" << a << "];\n";
  s << "  const long long jf_nl = e" << a << ";  // lists\n";
  // Whether a loop over the tile's elements needs each element's list (a binary search): values of
  // L, index(a), or an operand that varies with the list (a per-list value read in E; a content
  // has stride 0 along the lists).
  auto need_list = [&](const std::vector<char>& need, bool outputs) {
    std::string v = "false";
    std::vector<char> seen(g.inputs.size(), 0);
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      const node& n = g.nodes[k];
      if (!need[k] || n.domain != E) continue;
      if (n.code == op::index && n.attr[0] == a) v = "true";
      if (n.code == op::broadcast && list_val[static_cast<std::size_t>(n.args[0])]) v = "true";
      if (n.code != op::input) continue;
      const auto in = static_cast<std::size_t>(n.index);
      if (seen[in] || g.inputs[in].lay == layout::scalar) continue;
      seen[in] = 1;
      v += cat(" || a.st_in", n.index) + cat("[", a) + "] != 0";
    }
    if (outputs)
      for (std::size_t k = 0; k < g.outputs.size(); ++k)
        if (g.outputs[k].domain == E) v += cat(" || a.st_out", static_cast<long long>(k)) + cat("[", a) + "] != 0";
    return v;
  };
  if (!staged.empty()) {
    std::vector<char> loads(g.nodes.size(), 0);
    for (node_id x : staged) loads[static_cast<std::size_t>(x)] = 1;
    s << "  const bool jf_stage_list = " << need_list(loads, false) << ";  // the staged loads need their list\n";
  }
  if (!element_outputs.empty())
    s << "  const bool jf_map_list = " << need_list(need3, true) << ";  // the map needs its list\n";
  s << "  __shared__ long long s_off[" << tile_lists + 1 << "];\n";
  for (node_id x : kept_values)
    s << "  __shared__ " << e.T(g.at(x).type) << " s_lv" << x << "[" << tile_lists << "];  // %" << x << " per list\n";
  if (!reduces.empty()) {
    s << "  // Staged loads (a staged tile) or per-list results (a tile of long lists): one buffer.\n";
    s << "  __shared__ alignas(16) unsigned char s_raw[" << raw_bytes << "];\n";
    std::size_t at = 0;
    for (node_id x : staged) {
      s << "  " << e.T(g.at(x).type) << "* const s_in" << x << " = reinterpret_cast<" << e.T(g.at(x).type)
        << "*>(s_raw + " << at << ");  // %" << x << " per element of a staged tile\n";
      at += align16(static_cast<std::size_t>(cap) * size_of(g.at(x).type));
    }
    at = 0;
    for (node_id r : reduces) {
      const std::string t = e.T(e.value_type(r));
      s << "  " << t << "* const s_res" << r << " = reinterpret_cast<" << t << "*>(s_raw + " << at << ");  // %" << r
        << " per list of an unstaged tile\n";
      at += align16(tile_lists * static_cast<std::size_t>(size_of(e.value_type(r))));
      if (is_arg_monoid(e.mono(r))) {
        s << "  long long* const s_pos" << r << " = reinterpret_cast<long long*>(s_raw + " << at << ");\n";
        at += align16(tile_lists * 8);
      }
    }
  }
  s << "  const long long ntiles = (jf_nl + " << tile_lists - 1 << ") / " << tile_lists << ";\n";
  s << "  const int me = static_cast<int>(threadIdx.x), lane = me & 31;\n";
  s << "  (void)lane;\n";
  s << "  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n";
  const std::string in = "    ";
  s << in << "const long long i0 = tile * " << tile_lists << ";\n";
  s << in << "const int nl = static_cast<int>(jf_nl - i0 < " << tile_lists << " ? jf_nl - i0 : " << tile_lists
    << ");\n";
  s << in << "__syncthreads();  // the previous tile is done with the shared arrays\n";
  s << in << "for (int t = me; t <= nl; t += blockDim.x) s_off[t] = jf_off[(i0 + t) * jf_st_off];\n";
  s << in << "__syncthreads();\n";
  s << in << "const long long base = s_off[0], count = s_off[nl] - base;  // the tile's elements\n";

  const auto saved = e.vname;
  auto restore = [&] {
    e.vname = saved;
    std::fill(e.axis.begin(), e.axis.end(), std::string());
    std::fill(e.kept.begin(), e.kept.end(), std::string());
    e.flat_index.clear();
  };
  auto name_list_values = [&](const std::vector<node_id>& xs, const std::string& t) {
    for (node_id x : xs) e.vname[static_cast<std::size_t>(x)] = cat("s_lv", x) + "[" + t + "]";
  };
  // A loop over the tile's elements q = start, start + step, ... < count: element j = base + q and
  // (when `flag` says so) its list lt<sfx>, found in the shared offsets.
  auto tile_prelude = [&](const std::vector<node_id>& kept, const std::string& flag) {
    return [&, kept, flag](const std::string& ind, const std::string& flat, const std::string& sfx) {
      s << ind << "const long long jj" << sfx << " = base + " << flat << ";\n";
      s << ind << "const int lt" << sfx << " = " << flag << " ? jf_nest::list_in_tile(s_off, nl, jj" << sfx
        << ") : 0;\n";
      s << ind << "const I il" << sfx << "_l = static_cast<I>(i0 + lt" << sfx << ");\n";
      e.axis[static_cast<std::size_t>(a)] = "il" + sfx + "_l";
      e.axis[static_cast<std::size_t>(b)] = "jj" + sfx;
      name_list_values(kept, "lt" + sfx);
    };
  };
  // A loop over one list's elements j = start, start + step, ... < end (list index `list`, slot `t`).
  auto list_prelude = [&](const std::string& list, const std::string& t) {
    return [&, list, t](const std::string& ind, const std::string& flat, const std::string& sfx) {
      s << ind << "const long long jj" << sfx << " = " << flat << ";\n";
      e.axis[static_cast<std::size_t>(a)] = list;
      e.axis[static_cast<std::size_t>(b)] = "jj" + sfx;
      name_list_values(before, t);
    };
  };
  // Per list t (index il): its results (accumulator expressions), L's nodes and outputs, the values
  // of L the map reads.
  auto finish_list = [&](const std::string& ind, const std::vector<std::string>& accs) {
    e.axis[static_cast<std::size_t>(a)] = "il";
    for (std::size_t k = 0; k < reduces.size(); ++k) {
      const node_id r = reduces[k];
      const std::string v = cat("v", r);
      s << ind << "const " << e.T(g.at(r).type) << " " << v << " = " << e.result(r, accs[k]) << ";\n";
      e.vname[static_cast<std::size_t>(r)] = v;
    }
    e.emit_nodes(need2, ind, "", emitter::which::all);
    e.store_outputs(ind, L);
    for (node_id x : after) s << ind << "s_lv" << x << "[t] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
    restore();
  };
  const std::string in2 = in + "  ", in3 = in2 + "  ";

  // 0. Values of L read by E before the reductions.
  if (!before.empty()) {
    s << in << "for (int t = me; t < nl; t += blockDim.x) {  // values of the lists that their elements read\n";
    s << in2 << "const I il = static_cast<I>(i0 + t);\n";
    e.axis[static_cast<std::size_t>(a)] = "il";
    e.emit_nodes(need0, in2, "", emitter::which::all);
    for (node_id x : before) s << in2 << "s_lv" << x << "[t] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
    s << in << "}\n";
    s << in << "__syncthreads();\n";
    restore();
  }

  // 1. Reductions (then 2 per list).
  if (!reduces.empty()) {
    std::vector<std::string> accs;
    for (node_id r : reduces) accs.push_back(cat("acc", r));
    auto serial = [&](const std::string& ind, bool from_stage) {
      for (node_id r : reduces) s << ind << e.acc_type(r) << " acc" << r << " = " << e.identity(r) << ";\n";
      s << ind << "for (long long j = jb; j < je; ++j) {\n";
      e.axis[static_cast<std::size_t>(a)] = std::string("il");
      e.axis[static_cast<std::size_t>(b)] = std::string("j");
      if (from_stage) {
        for (node_id x : staged) e.kept[static_cast<std::size_t>(x)] = cat("s_in", x);
        e.flat_index = "(j - base)";
      }
      name_list_values(before, "t");
      e.emit_nodes(need1, ind + "  ", "", emitter::which::all);
      for (node_id r : reduces) e.accumulate(ind + "  ", r, cat("acc", r), "j - jb");
      s << ind << "}\n";
      restore();
    };
    s << in << "if (count <= " << cap << ") {\n";
    if (!staged.empty()) {
      s << in2 << "// Staged: the tile's loads, coalesced, into shared memory.\n";
      std::vector<char> loads(g.nodes.size(), 0);
      for (node_id x : staged) loads[static_cast<std::size_t>(x)] = 1;
      e.laned_loop(
          in2, "q", "me", "static_cast<long long>(blockDim.x)", "count", {b}, e.unroll(), loads,
          [&](const std::string& ind, const std::string& flat) {
            for (node_id x : staged)
              s << ind << "s_in" << x << "[" << flat << "] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
          },
          tile_prelude({}, "jf_stage_list"));
      restore();
      s << in2 << "__syncthreads();\n";
    }
    s << in2 << "for (int t = me; t < nl; t += blockDim.x) {  // each thread its lists, serially in increasing j\n";
    s << in3 << "const I il = static_cast<I>(i0 + t);\n";
    s << in3 << "const long long jb = s_off[t], je = s_off[t + 1];\n";
    serial(in3, true);
    finish_list(in3, accs);
    s << in2 << "}\n";
    s << in << "} else {\n";
    s << in2 << "// Unstaged (long lists in the tile): by length, a thread, a warp or the block per list; the\n";
    s << in2 << "// results meet in shared memory.\n";
    auto store_result = [&](const std::string& ind, const std::string& slot, const std::string& prefix) {
      for (node_id r : reduces) {
        if (is_arg_monoid(e.mono(r))) {
          s << ind << "s_res" << r << "[" << slot << "] = " << prefix << r << ".value;\n";
          s << ind << "s_pos" << r << "[" << slot << "] = " << prefix << r << ".index;\n";
        } else {
          s << ind << "s_res" << r << "[" << slot << "] = " << prefix << r << ";\n";
        }
      }
    };
    s << in2 << "for (int t = me; t < nl; t += blockDim.x) {\n";
    s << in3 << "const I il = static_cast<I>(i0 + t);\n";
    s << in3 << "const long long jb = s_off[t], je = s_off[t + 1];\n";
    s << in3 << "if (je - jb > " << thread_max << ") continue;\n";
    serial(in3, false);
    store_result(in3, "t", "acc");
    s << in2 << "}\n";
    auto acc_lanes = [&](const std::string& prefix, const std::string& lb) {
      return [&, prefix, lb](const std::string& ind, const std::string& flat) {
        for (node_id r : reduces) e.accumulate(ind, r, prefix + std::to_string(r), flat + " - " + lb);
      };
    };
    s << in2 << "for (int t0 = me; t0 - lane < nl; t0 += blockDim.x) {  // a warp per list of medium length\n";
    s << in3 << "unsigned todo = __ballot_sync(jf_nest::full_mask, t0 < nl && s_off[t0 + 1] - s_off[t0] > "
      << thread_max << " && s_off[t0 + 1] - s_off[t0] <= " << warp_max << ");\n";
    s << in3 << "while (todo) {\n";
    const std::string in4 = in3 + "  ";
    s << in4 << "const int wt = t0 - lane + __ffs(todo) - 1;\n";
    s << in4 << "todo &= todo - 1;\n";
    s << in4 << "const long long lb = s_off[wt], le = s_off[wt + 1];\n";
    s << in4 << "const I ilw = static_cast<I>(i0 + wt);\n";
    for (node_id r : reduces) s << in4 << e.acc_type(r) << " accw" << r << " = " << e.identity(r) << ";\n";
    e.laned_loop(in4, "j", "lb + lane", "32LL", "le", {b}, e.unroll(), need1, acc_lanes("accw", "lb"),
                 list_prelude("ilw", "wt"));
    restore();
    for (node_id r : reduces)
      s << in4 << "accw" << r << " = jf_nest::warp_reduce(accw" << r << ", " << e.combine_lambda(r) << ");\n";
    s << in4 << "if (lane == 0) {\n";
    store_result(in4 + "  ", "wt", "accw");
    s << in4 << "}\n";
    s << in3 << "}\n";
    s << in2 << "}\n";
    s << in2 << "for (int t = 0; t < nl; ++t) {  // long lists: the whole block (a block-uniform loop)\n";
    s << in3 << "const long long lb = s_off[t], le = s_off[t + 1];\n";
    s << in3 << "if (le - lb <= " << warp_max << ") continue;\n";
    s << in3 << "const I ilb = static_cast<I>(i0 + t);\n";
    for (node_id r : reduces) s << in3 << e.acc_type(r) << " accb" << r << " = " << e.identity(r) << ";\n";
    e.laned_loop(in3, "j", "lb + me", "static_cast<long long>(blockDim.x)", "le", {b}, e.unroll(), need1,
                 acc_lanes("accb", "lb"), list_prelude("ilb", "t"));
    restore();
    for (node_id r : reduces)
      s << in3 << "accb" << r << " = jf_nest::group_allreduce(accb" << r << ", " << e.combine_lambda(r) << ", "
        << e.identity(r) << ");\n";
    s << in3 << "if (me == 0) {\n";
    store_result(in3 + "  ", "t", "accb");
    s << in3 << "}\n";
    s << in2 << "}\n";
    s << in2 << "__syncthreads();\n";
    s << in2 << "for (int t = me; t < nl; t += blockDim.x) {  // each list's results\n";
    s << in3 << "const I il = static_cast<I>(i0 + t);\n";
    std::vector<std::string> loaded;
    for (node_id r : reduces) {
      const std::string v = is_arg_monoid(e.mono(r)) ? e.acc_type(r) + cat("{s_res", r) + cat("[t], s_pos", r) + "[t]}"
                                                     : cat("s_res", r) + "[t]";
      loaded.push_back(v);
    }
    finish_list(in3, loaded);
    s << in2 << "}\n";
    s << in << "}\n";
  } else if (!list_targets.empty()) {
    s << in << "for (int t = me; t < nl; t += blockDim.x) {  // each list's outputs\n";
    s << in2 << "const I il = static_cast<I>(i0 + t);\n";
    finish_list(in2, {});
    s << in << "}\n";
  }

  // 3. The map over E.
  if (!element_outputs.empty()) {
    if (!after.empty()) s << in << "__syncthreads();  // the lists' values are in shared memory\n";
    e.laned_loop(
        in, "q", "me", "static_cast<long long>(blockDim.x)", "count", {b}, 4, need3,
        [&](const std::string& ind, const std::string&) { e.store_outputs(ind, E); },
        tile_prelude(kept_values, "jf_map_list"));
    restore();
  }
  s << "  }\n";
  li.static_shared_bytes = static_cast<int>(8 * (tile_lists + 1) + (reduces.empty() ? 0 : raw_bytes));
  for (node_id x : kept_values) li.static_shared_bytes += size_of(g.at(x).type) * tile_lists;
  // group_allreduce's static slots: 33 accumulators per reduction (jf_arg: 16 bytes).
  for (node_id r : reduces) {
    const std::size_t acc = is_arg_monoid(e.mono(r)) ? 16 : static_cast<std::size_t>(size_of(e.value_type(r)));
    li.static_shared_bytes += static_cast<int>((33 * acc + 15) / 16 * 16);
  }
  e.close_kernel();
}

launch_config configure_list(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t lists = ext[li.outer_axes[0]];
  const std::int64_t tiles = (lists + tile_lists - 1) / tile_lists;
  // Tiles grid-strided over at most 4 waves of resident blocks (fewer when shared memory limits them).
  std::int64_t resident = resident_blocks(dev, block_threads);
  if (dev.shared_per_sm > 0 && li.static_shared_bytes > 0)
    resident = std::min<std::int64_t>(
        resident, static_cast<std::int64_t>(std::max(1, dev.sm_count)) *
                      std::max<std::int64_t>(
                          1, static_cast<std::int64_t>(dev.shared_per_sm) /
                                 (li.static_shared_bytes + static_cast<std::int64_t>(dev.shared_reserved_per_block))));
  c.grid[0] = static_cast<unsigned>(std::min<std::int64_t>(tiles, resident * 4));
  c.block[0] = block_threads;
  return c;
}

std::string describe_list(const launch_info& li, const launch_config* c) {
  std::string s = cat("list kernel: tiles of ", tile_lists) + cat(" lists per ", block_threads) +
                  "-thread block (grid-stride), offsets in shared memory";
  if (!li.reduced_axes.empty() && li.list_stage_items > 0)
    s += cat("; per-list reductions: a tile of at most ", li.list_stage_items) +
         " elements staged in shared memory (their loads, coalesced) and combined by each list's thread, a larger tile "
         "per list by length "
         "(a thread up to 32 elements, a warp up to 4096, else the block)";
  else if (!li.partial_bytes.empty())  // (one entry per reduction, or two for argmin/argmax)
    s += "; per-list reductions by length (a thread up to 32 elements, a warp up to 4096, else the block)";
  if (!li.map_axes.empty()) s += "; maps over the elements coalesced over the tile";
  if (c && c->grid[0] > 0) s += cat(" (", c->grid[0]) + " blocks)";
  return s;
}

}  // namespace jf::ir::nest
