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
//
// Jagged arrays: reduce(m, x @ L) @ R runs over the lists as over a box (i = 0 .. n - 1);
// reduce(m, x @ E) @ R over every element of every list as one flat range t = 0 .. extent(E) - 1,
// element j = offsets[0] + t (the position of argmin/argmax is t = j - offsets[0]); its list is
// found by a binary search in the offsets only when something reads it (values of the list, or an
// operand with a stride along the list axis).
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

namespace {

// One-byte inputs (bool masks, int8) read a byte a lane make a 32-byte request of every warp load:
// count_nonzero(m) of 2^27 bools (16 lanes a trip) ran at about half the rate of count_true_fast's
// 16-byte loads on an H200 (bench/experiments/count_mask_paths.cpp). Applies when every value the
// loop computes lies in the reduced box, every input it reads is one-byte, contiguous and read at
// the iteration's own position, and nothing needs the axes' indices.
bool byte_vectors_apply(const emitter& e, domain_id inner, const std::vector<char>& need) {
  const graph& g = e.g;
  bool reads = false;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    if (!need[k] || e.f.uniform[k]) continue;
    const node& n = g.nodes[k];
    if (n.domain != inner || !e.kept[k].empty()) return false;
    switch (n.code) {
      case op::input: {
        const operand_desc& in = g.inputs[static_cast<std::size_t>(n.index)];
        if (in.gen != generator::none || in.lay != layout::contiguous || size_of(in.type) != 1) return false;
        reads = true;
        break;
      }
      case op::cast:
      case op::broadcast:
      case op::constant:
      case op::param:
      case op::user:
        break;
      default:
        if (info(n.code).rule == op_rule::special) return false;  // reductions, gathers, searches, indices, ...
    }
  }
  return reads;
}

// Each thread takes 16 elements per input with one 16-byte load (two vectors a trip, both loaded
// first), elements v * 16 .. v * 16 + 15 of vector v in increasing order, vectors grid-strided;
// in the kernel only when the inputs are 16-byte aligned and their strides row-major (else jf_nv
// is 0). The laned loop then runs the elements from jf_nv * 16 on.
void byte_vector_loop(emitter& e, const std::vector<std::int32_t>& axes, const std::vector<char>& need,
                      const std::function<void(const std::string&, const std::string&)>& accumulate) {
  const graph& g = e.g;
  auto& s = e.s;
  std::vector<std::size_t> reads;  // input nodes of the loop
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (need[k] && !e.f.uniform[k] && g.nodes[k].code == op::input) reads.push_back(k);
  std::string ok;
  std::vector<int> seen;
  for (std::size_t id : reads) {
    const int k = g.nodes[id].index;
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    ok += cat(" && (reinterpret_cast<unsigned long long>(in", k) + ") & 15) == 0";
    std::string row = "1";  // the row-major stride of axes[i]: the extents after it
    for (std::size_t i = axes.size() - 1; i-- > 0;) {
      row = row == "1" ? cat("e", axes[i + 1]) : row + cat(" * e", axes[i + 1]);
      ok += cat(" && a.st_in", k) + cat("[", axes[i]) + "] == " + row;
    }
  }
  s << "  // One-byte inputs: 16 elements a thread per 16-byte load when aligned and row-major.\n";
  s << "  const long long jf_nv = (true" << ok << ") ? n / 16 : 0;  // 16-element vectors\n";
  s << "  long long jf_vi = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  const auto saved = e.vname;
  auto load = [&](const std::string& ind, const std::string& vec, const std::string& sfx) {
    for (int k : seen)
      s << ind << cat("const uint4 jf_w", k) << sfx << " = "
        << (e.ldg_inputs ? cat("__ldg(reinterpret_cast<const uint4*>(in", k) + ") + " + vec + ")"
                         : cat("reinterpret_cast<const uint4*>(in", k) + ")[" + vec + "]")
        << ";\n";
  };
  auto compute = [&](const std::string& ind, const std::string& vec, const std::string& sfx) {
    for (int u = 0; u < 16; ++u) {
      e.vname = saved;
      const std::string lane = sfx + cat("_", u);
      for (std::size_t id : reads) {
        const node& n = g.nodes[id];
        const std::string v = cat("v", id) + lane;
        s << ind << "const " << e.T(n.type) << " " << v << " = reinterpret_cast<const " << e.T(n.type) << "*>(&jf_w"
          << n.index << sfx << ")[" << u << "];\n";
        e.vname[id] = v;
      }
      e.emit_nodes(need, ind, lane, emitter::which::compute);
      accumulate(ind, "(" + vec + cat(" * 16 + ", u) + ")");
    }
  };
  s << "  #pragma unroll 1\n";
  s << "  for (; jf_vi + step < jf_nv; jf_vi += 2 * step) {\n";
  load("    ", "jf_vi", "_a");
  load("    ", "(jf_vi + step)", "_b");
  compute("    ", "jf_vi", "_a");
  compute("    ", "(jf_vi + step)", "_b");
  s << "  }\n";
  s << "  if (jf_vi < jf_nv) {\n";
  load("    ", "jf_vi", "_a");
  compute("    ", "jf_vi", "_a");
  s << "  }\n";
  e.vname = saved;
}

}  // namespace

void emit_full_reduction(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const bool over_elements = g.dom(p.inner).kind == domain_kind::elements;
  const std::vector<std::int32_t> axes = over_elements ? g.dom(p.inner).axes : g.chain_axes(p.inner);
  li.block = 256;
  li.reduced_axes = axes;

  e.header(p, cat("Every thread accumulates a grid-stride share of D", p.inner) +
                  "; blocks write partials, the last block to finish\ncombines them in block order and stores the "
                  "outputs.");
  e.args_struct();
  // Random leaves (Philox rounds in the loop): at most 64 registers, so that 4 blocks fit per SM.
  for (const operand_desc& in : g.inputs)
    if (in.gen != generator::none && !over_elements) {
      e.max_threads = 256;
      e.min_blocks = 4;
    }
  e.open_kernel("// Launch: 256-thread blocks, grid fixed by configure_launch; scratch: 1 counter + gridDim.x partials per reduction.\n");
  e.prologue("  ");
  s << "  const long long n = " << e.extent_product(axes) << ";  // iterations of D" << p.inner << "\n";
  std::function<void(const std::string&, const std::string&, const std::string&)> prelude;
  if (over_elements) {
    const domain_id list = g.dom(p.inner).parent;
    const std::int32_t la = g.dom(list).axes[0], eb = axes[0];
    const std::size_t offsets = static_cast<std::size_t>(g.dom(list).source);
    e.add_operand_axis(g.outputs.size() + offsets, la);
    std::string need = "false";
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      const node& n = g.nodes[k];
      if (e.f.uniform[k]) continue;
      if (n.domain == list || (n.code == op::index && n.attr[0] == la)) need = "true";
      if (n.code == op::input && n.domain == p.inner && g.inputs[static_cast<std::size_t>(n.index)].lay != layout::scalar)
        need += cat(" || a.st_in", n.index) + cat("[", la) + "] != 0";
    }
    s << "  const " << offsets_ctype(g, offsets) << "* __restrict__ jf_off = a.in" << offsets << ";  // the offsets of D" << list << "\n";
    s << "  const long long jf_st_off = a.st_in" << offsets << "[" << la << "];\n";
    s << "  const long long jf_off0 = jf_off[0];\n";
    s << "  const bool jf_need_list = " << need << ";  // elements look up their list\n";
    prelude = [&e, la, eb](const std::string& ind, const std::string& flat, const std::string& sfx) {
      e.s << ind << "const long long jj" << sfx << " = jf_off0 + " << flat << ";\n";
      e.s << ind << "const I il" << sfx << " = jf_need_list ? static_cast<I>(jf_nest::list_of(jf_off, jf_st_off, e" << la
          << ", jj" << sfx << ")) : I(0);\n";
      e.axis[static_cast<std::size_t>(la)] = "il" + sfx;
      e.axis[static_cast<std::size_t>(eb)] = "jj" + sfx;
    };
  }

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
  // Bytes in flight: 16 lanes of one-byte inputs (bool masks: count_nonzero(m) of 2^27 with 8 ran
  // at 1.3 TB/s on an H200, a third of the copy).
  const int lanes = e.widest_input() == 1 && !over_elements ? 16 : e.unroll();
  std::string start = "static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x";
  if (!over_elements && !axes.empty() && byte_vectors_apply(e, p.inner, need)) {
    byte_vector_loop(e, axes, need, accumulate);
    start = "jf_nv * 16 + " + start;  // the elements after the vectors
  }
  if (over_elements || !e.chunked_loop("  ", axes, "n", need, accumulate))
    e.laned_loop("  ", "t", start, "step", "n", axes, lanes, need, accumulate, prelude);

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
  // At least 4 elements per thread per block-row; at most one wave of resident blocks up to 2^26
  // iterations, two beyond. Measured on an H200 (2026-11-29, bench_reductions SumOnly, sum of
  // float64; median of 10): one wave 36.1 / 66.9 / 125 us at 2^24 / 2^25 / 2^26 against 39.0 / 69.4
  // / 127 with two (CuPy's CUB 37.3 at 2^24), two waves 245 us at 2^27 against 249 with one; three,
  // four and six waves slower at every size.
  const std::int64_t by_work = (n + li.block * 4 - 1) / (li.block * 4);
  const std::int64_t waves = n > (std::int64_t(1) << 26) ? 2 : 1;
  const std::int64_t blocks = std::clamp<std::int64_t>(by_work, 1, resident_blocks(dev, li.block) * waves);
  c.grid[0] = static_cast<unsigned>(blocks);
  c.block[0] = static_cast<unsigned>(li.block);
  c.scratch_bytes = scratch_bytes(li, 1, blocks);
  c.scratch_zero_bytes = 16;           // the counter; every block writes its partial before the last reads it
  c.counters_reset_by_kernel = true;  // the last block resets the counter
  return c;
}

}  // namespace jf::ir::nest
