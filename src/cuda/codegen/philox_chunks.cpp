// Random leaves read along a grid-stride loop, a Philox block shared by the iterations it feeds.
//
// One block call gives 4 64-bit outputs (one Philox4x64-10 block, or two Philox4x32-10 blocks:
// ops::jf_philox_block_rk, jf_philox4x32_block_rk): 4 consecutive float64 draws or 8 float32 ones.
// Computed per element (emit_nodes' default), each element pays for the whole block and uses a
// quarter or an eighth of it; the block's ~190 integer instructions then bound the kernel (pi from
// 2^31 draws: 32 ms on an H100). Here each warp takes chunks of 32 blocks' worth of consecutive
// iterations (`per` rows of 32, per = the anchor's draws per block), in one of two layouts:
//
// * Lane runs: lane l takes the `per` consecutive iterations chunk start + per l .. + per - 1 and
//   computes their blocks itself (its values are the words of its own blocks). Used when nothing is
//   loaded at the iteration (loads want the lanes' order to coalesce): reductions and histograms
//   of generated values, and maps whose every store is contiguous along the loop and aligned at
//   run time (else the kernel takes the rows layout). A lane stores its run of values as 16-byte
//   vectors; runs of 8-byte values are staged in shared memory and stored by the warp, 512
//   contiguous bytes per instruction (see `staged` below).
// * Rows: lane l computes block l of the chunk into shared memory, and every lane reads the value of
//   its iteration of each 32-iteration row (row j: lane l at chunk start + 32 j + l), so loads and
//   stores keep the usual lane order and stay coalesced.
//
// Chunks are aligned on the blocks of one leaf, the anchor (the one with most draws per block).
// Another leaf whose first position is congruent to the anchor's modulo its draws per block is
// aligned too (gen.random({n}) twice with n a multiple of 8, say); one that is not, or whose
// offsets are not the flat index (broadcast along an outer axis: known only from the strides at
// run time), computes a block per element (a call, to keep the kernel small), and so does a
// float32 leaf's element 0 when it is numpy's kept half (its position is not first + 0). Blocks
// take their round keys from the kernel's argument (the launcher computes them once per launch).
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"

namespace jf::ir::nest {

namespace {

// The value of a leaf's row from the chunk's words in shared memory (jf_draws), `at` the index of
// its draw among the pass's 32 blocks (the lane's parity is the draw's: a normal's pair is at&~1,
// at|1).
std::string from_words(const operand_desc& in, const std::string& at) {
  const std::string h = "reinterpret_cast<const unsigned*>(jf_draws)";
  switch (in.gen) {
  case generator::philox_f32: return "jf::ops::jf_philox_to_f32(" + h + "[" + at + "])";
  case generator::normal_f64:
    return "jf::ops::jf_philox_to_normal_f64(jf_draws[(" + at + ") & ~1u], jf_draws[(" + at + ") | 1u], jf_lane & 1u)";
  case generator::normal_f32:
    return "jf::ops::jf_philox_to_normal_f32(" + h + "[(" + at + ") & ~1u], " + h + "[(" + at + ") | 1u], jf_lane & 1u)";
  case generator::integers:
    return "static_cast<" + std::string(in.type == dtype::int32 ? "int" : "long long") +
           ">(jf::ops::jf_philox_to_integer(jf_draws[" + at + "], static_cast<unsigned long long>(a.p" +
           std::to_string(in.param + 3) + ")))";
  default: return "jf::ops::jf_philox_to_f64(jf_draws[" + at + "])";
  }
}

// The value of draw i (0 .. draws per block - 1) of a lane's own block `w` (4 words in registers):
// a draw's parity is i's (blocks start on even positions).
std::string from_block(const operand_desc& in, const std::string& w, int i) {
  auto word = [&](int x) { return w + "[" + std::to_string(x) + "]"; };
  auto half = [&](int x) { return "static_cast<unsigned>(" + word(x / 2) + (x % 2 ? " >> 32" : std::string()) + ")"; };
  const std::string odd = i % 2 ? "true" : "false";
  switch (in.gen) {
    case generator::philox_f32:
      return "jf::ops::jf_philox_to_f32(" + half(i) + ")";
    case generator::normal_f64:
      return "jf::ops::jf_philox_to_normal_f64(" + word(i & ~1) + ", " + word(i | 1) + ", " + odd + ")";
    case generator::normal_f32:
      return "jf::ops::jf_philox_to_normal_f32(" + half(i & ~1) + ", " + half(i | 1) + ", " + odd + ")";
    case generator::integers:
      return "static_cast<" + std::string(in.type == dtype::int32 ? "int" : "long long") +
             ">(jf::ops::jf_philox_to_integer(" + word(i) + ", static_cast<unsigned long long>(a.p" +
             std::to_string(in.param + 3) + ")))";
    default:
      return "jf::ops::jf_philox_to_f64(" + word(i) + ")";
  }
}

std::string p(const operand_desc& in, int j) { return cat("a.p", in.param + j); }
// The leaf's bit generator as the template argument of the jf_philox_* functions, and its block function.
std::string bits_arg(const operand_desc& in) { return std::string("<jf::ops::jf_") + bit_generator_name(in.bits) + ">"; }
std::string block_rk(const operand_desc& in) {
  return in.bits == bit_generator::philox4x32 ? "jf::ops::jf_philox4x32_block_rk" : "jf::ops::jf_philox_block_rk";
}
std::string u64(const std::string& v) { return "static_cast<unsigned long long>(" + v + ")"; }

// Bytes of one store of a lane's run of `per` values of type t: 16 at most, a power of two.
int run_unit(int per, dtype t) { return std::min(16, per * static_cast<int>(size_of(t))); }

}  // namespace

std::vector<std::size_t> emitter::contiguous_generated(const std::vector<char>& needed,
                                                       const std::vector<std::int32_t>& axes) const {
  std::vector<char> ok(g.inputs.size(), 1), seen(g.inputs.size(), 0);
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const node& n = g.nodes[id];
    if (!needed[id] || n.code != op::input) continue;
    const auto k = static_cast<std::size_t>(n.index);
    if (g.inputs[k].gen == generator::none) continue;
    seen[k] = 1;
    // Its element offset is the loop's flat index: row-major over exactly the loop's axes.
    if (g.inputs[k].lay != layout::contiguous || g.chain_axes(n.domain) != axes) ok[k] = 0;
  }
  std::vector<std::size_t> v;
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (seen[k] && ok[k]) v.push_back(k);
  return v;
}

bool emitter::chunked_loop(const std::string& ind, const std::vector<std::int32_t>& axes, const std::string& n,
                           const std::vector<char>& needed,
                           const std::function<void(const std::string&, const std::string&)>& at_lane,
                           domain_id stores) {
  std::vector<std::size_t> leaves = contiguous_generated(needed, axes);
  if (leaves.empty()) return false;
  // The anchor first: the most draws per block (a float32 leaf if there is one).
  std::stable_sort(leaves.begin(), leaves.end(), [&](std::size_t x, std::size_t y) {
    return draws_per_block(g.inputs[x].gen) > draws_per_block(g.inputs[y].gen);
  });
  const operand_desc& anchor = g.inputs[leaves[0]];
  const int per = draws_per_block(anchor.gen);  // rows of 32 iterations per chunk; a lane run's length
  const int chunk = 32 * per;
  // Split runs (every leaf Philox4x32 with the anchor's draws per block): a lane's two blocks are
  // blocks l and 32 + l of the chunk, not two consecutive ones, so its run is two segments of
  // `seg` values 32 seg apart and each of the warp's stores covers contiguous bytes (uniform float32
  // into 2^28 values on an H200, bench/experiments/philox4x32_fill_variants.cu: 280 us, 85 % of a
  // memset, against 424 us with a lane's 8 consecutive values in two 16-byte stores).
  const bool split = std::all_of(leaves.begin(), leaves.end(), [&](std::size_t k) {
    return g.inputs[k].bits == bit_generator::philox4x32 && draws_per_block(g.inputs[k].gen) == per;
  });
  const int seg = split ? per / 2 : per;  // consecutive values of a lane's run
  const auto saved_v = vname;
  const auto saved_a = axis;
  const std::string in2 = ind + "  ", in3 = in2 + "  ";

  // Lane runs when nothing is loaded per iteration and every store (a map's) is contiguous along
  // the loop; such a map checks its outputs' strides and alignment at run time.
  bool runs = true;
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const node& nd = g.nodes[id];
    if (needed[id] && nd.code == op::input && g.inputs[static_cast<std::size_t>(nd.index)].gen == generator::none &&
        g.inputs[static_cast<std::size_t>(nd.index)].lay != layout::scalar)
      runs = false;
    if (needed[id] && !kept[id].empty()) runs = false;
  }
  std::vector<std::size_t> outs;
  if (stores >= 0)
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      if (g.outputs[k].domain == stores) {
        outs.push_back(k);
        if (g.outputs[k].desc.lay != layout::contiguous || g.chain_axes(stores) != axes) runs = false;
      }
  const bool rows = !runs || !outs.empty();  // the row layout is emitted (alone, or as the fallback)

  s << ind << "// Chunks of " << chunk
    << " consecutive iterations per warp, one Philox block per lane for each random\n"
    << ind << "// leaf (philox_chunks.cpp)"
    << (!runs    ? ": iteration chunk start + 32 j + lane in row j."
        : split ? ": lane l takes iterations chunk start + " + std::to_string(seg) + " l ... and " +
                       std::to_string(32 * seg) + " + " + std::to_string(seg) + " l ..."
                : ": lane l takes iterations chunk start + " + std::to_string(per) + " l ...")
    << "\n";
  s << ind << "{\n";
  if (rows) {
    s << in2 << "__shared__ unsigned long long jf_words[8][128];  // a warp's 32 blocks (blockDim.x <= 256)\n";
    s << in2 << "unsigned long long* const jf_draws = jf_words[threadIdx.x >> 5];\n";
  }
  s << in2 << "const unsigned jf_lane = threadIdx.x & 31u;\n";
  s << in2 << "const long long jf_shift = static_cast<long long>(" << u64(p(anchor, 2)) << " % " << per
    << "u);  // chunks start on the anchor's blocks\n";
  s << in2 << "const long long jf_chunks = (" << n << " + jf_shift + " << chunk - 1 << ") / " << chunk << ";\n";
  s << in2 << "const long long jf_warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;\n";
  // Per leaf, whether the chunk's blocks serve it: its offsets are the flat index (strides compact:
  // not a broadcast along an outer axis) and, but for the anchor, its positions are aligned.
  auto compact = [&](const std::string& st) {
    std::string c;
    for (std::size_t x = 0; x + 1 < axes.size(); ++x)
      c += "static_cast<long long>(" + st + cat("_", axes[x]) +
           ") == " + extent_product({axes.begin() + static_cast<std::ptrdiff_t>(x) + 1, axes.end()}) + " && ";
    return c;
  };
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const std::size_t k = leaves[i];
    const operand_desc& in = g.inputs[k];
    std::string fast = compact(cat("st_in", static_cast<long long>(k)));
    if (i > 0)
      fast += "((" + u64(p(in, 2)) + " - " + u64(p(anchor, 2)) + ") & " + std::to_string(draws_per_block(in.gen) - 1) +
              "u) == 0 && ";
    s << in2 << "const bool jf_fast" << k << " = " << fast << "true;\n";
  }
  // A lane's run of 4-byte (or smaller) values is stored directly (two 16-byte vectors of a float32
  // run: each sector's halves come from the warp's two consecutive stores; 2^28 float32 in 460 us on
  // an H100); a run of 8-byte values goes through shared memory: stored directly, the compiler
  // splits it into 8-byte stores 32 bytes apart, and such a fill ran 3.4 times slower than staged.
  auto staged = [&](std::size_t k) { return size_of(g.outputs[k].desc.type) == 8; };
  int stage_bytes = 0;  // a warp's chunk of its largest staged output
  if (runs && !outs.empty()) {
    // Direct runs are whole aligned vectors; staged chunks start on 16 bytes (a multiple of 16).
    std::string ok;
    for (std::size_t k : outs) {
      const dtype t = g.outputs[k].desc.type;
      if (staged(k)) stage_bytes = std::max(stage_bytes, chunk * static_cast<int>(size_of(t)));
      ok += compact(cat("st_out", static_cast<long long>(k))) + "(reinterpret_cast<unsigned long long>(out" +
            std::to_string(k) + ") - static_cast<unsigned long long>(jf_shift) * " + std::to_string(size_of(t)) +
            "u) % " + std::to_string(staged(k) ? 16 : run_unit(seg, t)) + "u == 0 && ";
    }
    s << in2 << "const bool jf_runs = " << ok << "true;  // outputs contiguous and aligned: vector stores\n";
    if (stage_bytes > 0) {
      s << in2 << "__shared__ __align__(16) unsigned char jf_stage[8][" << stage_bytes
        << "];  // a warp's chunk of values, stored coalesced\n";
      s << in2 << "unsigned char* const jf_staged = jf_stage[threadIdx.x >> 5];\n";
    }
  }
  const std::string loop_head =
      "for (long long jf_c = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; "
      "jf_c < jf_chunks; jf_c += jf_warps) {\n";

  // Values of leaf k, one variable per row (row j: the j-th iteration of the lane's run, or of row j).
  auto declare_values = [&](const std::string& i3, std::size_t k) {
    const std::string t = T(g.inputs[k].type), r = cat("jf_r", static_cast<long long>(k)) + "_";
    gen_value[k].clear();
    for (int j = 0; j < per; ++j) {
      s << i3 << t << " " << r << j << " = 0;\n";
      gen_value[k].push_back(r + std::to_string(j));
    }
  };
  // The leaf's values when its blocks are not the chunk's: a block per value at the leaf's own offsets.
  auto per_element = [&](const std::string& i4, std::size_t k, const std::function<std::string(int)>& flat) {
    const operand_desc& in = g.inputs[k];
    domain_id dom = 0;
    for (std::size_t id = 0; id < g.nodes.size(); ++id)
      if (needed[id] && g.nodes[id].code == op::input && static_cast<std::size_t>(g.nodes[id].index) == k)
        dom = g.nodes[id].domain;
    for (int j = 0; j < per; ++j) {
      const auto saved = axis;
      unravel(i4, flat(j), axes, cat("_g", j));
      s << i4 << gen_value[k][static_cast<std::size_t>(j)] << " = static_cast<" << T(in.type) << ">(jf_nest::at_"
        << generator_name(in.gen) << bits_arg(in) << "(" << u64(p(in, 0)) << ", " << u64(p(in, 1)) << ", " << u64(p(in, 2)) << ", "
        << u64(p(in, 3)) << ", " << u64(offset(false, k, dom)) << "));\n";
      axis = saved;
    }
  };
  // numpy's kept half (random float32 only): element 0 is not at first + 0.
  auto kept_half = [&](const std::string& i4, std::size_t k, const std::string& guard,
                       const std::function<std::string(int)>& flat) {
    const operand_desc& in = g.inputs[k];
    if (in.gen != generator::philox_f32) return;
    s << i4 << "if (" << p(in, 3) << " != 0 && " << guard << ") {\n";
    for (int j = 0; j < per; ++j)
      s << i4 << "  if (" << flat(j) << " == 0) " << gen_value[k][static_cast<std::size_t>(j)]
        << " = jf_nest::at_random_f32" << bits_arg(in) << "(" << u64(p(in, 0)) << ", " << u64(p(in, 1)) << ", " << u64(p(in, 2)) << ", "
        << u64(p(in, 3)) << ", 0);\n";
    s << i4 << "}\n";
  };
  auto body = [&](const std::string& i4, int j, which w) {
    for (std::size_t k : leaves) gen_value_row[k] = gen_value[k][static_cast<std::size_t>(j)];
    emit_nodes(needed, i4, cat("_", j), w);
  };
  gen_value.assign(g.inputs.size(), std::vector<std::string>{});
  gen_value_row.assign(g.inputs.size(), std::string{});

  // ---- lane runs ----
  // Chunks [jf_lo, jf_hi) lie inside [0, n) and hold no kept half: their loop has no guards and no
  // fix-ups (every instruction counts: a Philox4x32 fill is bound by issue and stores together, and
  // the guards of every chunk cost it 15 %; philox4x32_fill_variants.cu). The first and the last
  // chunk, when partial or holding a kept half, are done by warp 0 after it, iterations guarded.
  auto emit_runs = [&](const std::string& i2) {
    const std::string i3 = i2 + "  ", i4 = i3 + "  ", i5 = i4 + "  ";
    auto flat = [&](int j) { return cat("(jf_o + ", j < seg ? j : 32 * seg + j - seg) + ")"; };
    std::string first_special = "jf_shift > 0";
    for (std::size_t k : leaves)
      if (g.inputs[k].gen == generator::philox_f32) first_special += " || " + p(g.inputs[k], 3) + " != 0";
    s << i2 << "const long long jf_lo = (" << first_special << ") ? 1 : 0;  // chunk 0 partial or holding a kept half\n";
    s << i2 << "const long long jf_hi = (" << n << " + jf_shift) / " << chunk << ";  // chunks ending within n\n";
    auto chunk_start = [&](const std::string& i) {
      s << i << "const long long jf_e0 = jf_c * " << chunk << " - jf_shift;  // the chunk's first iteration (< 0: none)\n";
      s << i << "const long long jf_o = jf_e0 + " << seg << " * static_cast<long long>(jf_lane);  // the lane's run\n";
    };
    auto values = [&](const std::string& i, bool edge) {
      const std::string in = i + "  ";
      for (std::size_t k : leaves) {
        const operand_desc& leaf = g.inputs[k];
        const int d = draws_per_block(leaf.gen);
        s << i << "// random leaf in" << k << " (" << generator_name(leaf.gen) << "): the run's values\n";
        declare_values(i, k);
        s << i << "if (jf_fast" << k << ") {\n";
        for (int b = 0; b < per / d; ++b) {
          const std::string w = cat("jf_w", static_cast<long long>(k)) + cat("_", b);
          s << in << "unsigned long long " << w << "[4];\n";
          if (split)  // blocks (first + jf_e0) / seg + jf_lane and 32 blocks further (d == per)
            s << in << "jf::ops::jf_philox4x32_split_rk(a.rk" << k << ", (" << u64(p(leaf, 2)) << " + " << u64("jf_e0")
              << ") / " << seg << "u + jf_lane, " << w << ");\n";
          else
            s << in << block_rk(leaf) << "(a.rk" << k << ", (" << u64(p(leaf, 2)) << " + " << u64("jf_e0") << ") / "
              << d << "u + " << per / d << "u * jf_lane + " << b << "u, " << w << ");\n";
          for (int x = 0; x < d; ++x)
            s << in << gen_value[k][static_cast<std::size_t>(b * d + x)] << " = " << from_block(leaf, w, x) << ";\n";
        }
        if (edge) kept_half(in, k, "jf_o <= 0", flat);
        s << i << "} else {\n";
        per_element(in, k, flat);
        s << i << "}\n";
      }
    };

    // Whole chunks.
    s << i2 << "for (long long jf_c = ((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) + jf_lo; "
               "jf_c < jf_hi; jf_c += jf_warps) {\n";
    chunk_start(i3);
    values(i3, false);
    // Staged outputs: each lane writes its run to the buffer, then the warp stores the chunk in
    // 16-byte vectors, 512 contiguous bytes per instruction (whole sectors); otherwise the lane's run.
    std::vector<std::vector<std::string>> stored(outs.size());
    for (int j = 0; j < per; ++j) {
      vname = saved_v;
      axis = saved_a;
      unravel(i3, flat(j), axes, cat("_", j));
      flat_index = flat(j);
      body(i3, j, which::all);
      if (outs.empty()) at_lane(i3, flat(j));
      for (std::size_t o = 0; o < outs.size(); ++o)
        stored[o].push_back(vname[static_cast<std::size_t>(g.outputs[outs[o]].value)]);
    }
    for (std::size_t o = 0; o < outs.size(); ++o) {
      const std::size_t k = outs[o];
      const dtype t = g.outputs[k].desc.type;
      s << i3 << "{\n";
      // The run's segments (one, or two 32 seg apart), each a whole number of stores.
      for (int h = 0; h < per / seg; ++h) {
        const std::string v = h ? "jf_v" + std::to_string(h) : std::string("jf_v");
        const std::string at = h ? cat(" + ", 32 * seg * h) : std::string();
        s << i4 << "const " << T(t) << " " << v << "[" << seg << "] = {";
        for (int j = 0; j < seg; ++j) s << (j ? ", " : "") << stored[o][static_cast<std::size_t>(h * seg + j)];
        s << "};\n";
        if (staged(k))
          s << i4 << "jf_nest::store_run<" << run_unit(seg, t) << ">(reinterpret_cast<" << T(t) << "*>(jf_staged) + "
            << seg << " * jf_lane" << at << ", " << v << ");\n";
        else
          s << i4 << "jf_nest::store_run<" << run_unit(seg, t) << ">(out" << k << " + jf_o" << at << ", " << v << ");\n";
      }
      if (staged(k))
        s << i4 << "__syncwarp();\n"
          << i4 << "jf_nest::store_staged<" << chunk * static_cast<int>(size_of(t)) << ">(out" << k
          << " + jf_e0, jf_staged, jf_lane);\n"
          << i4 << "__syncwarp();  // read before the next values are written\n";
      s << i3 << "}\n";
    }
    s << i2 << "}\n";

    // The first and the last chunk when they are not whole (or chunk 0 holds a kept half).
    s << i2 << "if (((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) == 0) {\n";
    s << i3 << "for (int jf_x = 0; jf_x < 2; ++jf_x) {\n";
    s << i4 << "const long long jf_c = jf_x == 0 ? 0 : jf_chunks - 1;\n";
    s << i4 << "if (jf_c < 0 || (jf_c >= jf_lo && jf_c < jf_hi) || (jf_x == 1 && jf_c == 0)) continue;\n";
    chunk_start(i4);
    values(i4, true);
    for (int j = 0; j < per; ++j) {
      vname = saved_v;
      axis = saved_a;
      s << i4 << "if (" << flat(j) << " >= 0 && " << flat(j) << " < " << n << ") {\n";
      unravel(i5, flat(j), axes, cat("_", j));
      flat_index = flat(j);
      body(i5, j, which::all);
      at_lane(i5, flat(j));
      s << i4 << "}\n";
    }
    s << i3 << "}\n";
    s << i2 << "}\n";
  };

  // ---- rows ----
  auto emit_rows = [&](const std::string& i2) {
    const std::string i3 = i2 + "  ", i4 = i3 + "  ", i5 = i4 + "  ";
    s << i2 << loop_head;
    s << i3 << "const long long jf_e0 = jf_c * " << chunk
      << " - jf_shift;  // the chunk's first iteration (< 0: none)\n";
    auto row = [&](int j) { return cat("(jf_e0 + 32 * ", j) + " + jf_lane)"; };
    for (std::size_t k : leaves) {
      const operand_desc& in = g.inputs[k];
      const int d = draws_per_block(in.gen);
      s << i3 << "// random leaf in" << k << " (" << generator_name(in.gen) << "): row j's values\n";
      declare_values(i3, k);
      s << i3 << "if (jf_fast" << k << ") {\n";
      // per / d passes of 32 blocks (two for a float64 leaf under a float32 anchor).
      for (int pass = 0; pass < per / d; ++pass) {
        s << i4 << "__syncwarp();  // the previous reads of jf_draws are done\n";
        s << i4 << block_rk(in) << "(a.rk" << k << ", (" << u64(p(in, 2)) << " + " << u64("jf_e0") << ") / "
          << d << "u + " << 32 * pass << "u + jf_lane, jf_draws + 4 * jf_lane);\n";
        s << i4 << "__syncwarp();\n";
        for (int j = pass * d; j < (pass + 1) * d; ++j)
          s << i4 << gen_value[k][static_cast<std::size_t>(j)] << " = "
            << from_words(in, cat("32 * ", j - pass * d) + " + jf_lane") << ";\n";
      }
      kept_half(i4, k, "jf_e0 <= 0", row);
      s << i3 << "} else {\n";
      per_element(i4, k, row);
      s << i3 << "}\n";
    }
    // Whole chunks: every row's loads first (memory-level parallelism), then the rows in order.
    s << i3 << "if (jf_e0 >= 0 && jf_e0 + " << chunk << " <= " << n << ") {\n";
    std::vector<std::vector<std::string>> row_v(static_cast<std::size_t>(per)), row_a(static_cast<std::size_t>(per));
    for (int j = 0; j < per; ++j) {
      vname = saved_v;
      axis = saved_a;
      unravel(i4, row(j), axes, cat("_", j));
      flat_index = row(j);
      body(i4, j, which::loads);
      row_v[static_cast<std::size_t>(j)] = vname;
      row_a[static_cast<std::size_t>(j)] = axis;
    }
    for (int j = 0; j < per; ++j) {
      vname = row_v[static_cast<std::size_t>(j)];
      axis = row_a[static_cast<std::size_t>(j)];
      flat_index = row(j);
      body(i4, j, which::compute);
      at_lane(i4, row(j));
    }
    s << i3 << "} else {  // the first or last chunk: rows guarded\n";
    for (int j = 0; j < per; ++j) {
      vname = saved_v;
      axis = saved_a;
      s << i4 << "if (" << row(j) << " >= 0 && " << row(j) << " < " << n << ") {\n";
      unravel(i5, row(j), axes, cat("_", j));
      flat_index = row(j);
      body(i5, j, which::all);
      at_lane(i5, row(j));
      s << i4 << "}\n";
    }
    s << i3 << "}\n";
    s << i2 << "}\n";
  };

  if (runs && outs.empty()) {
    emit_runs(in2);
  } else if (runs) {
    s << in2 << "if (jf_runs) {\n";
    emit_runs(in3);
    s << in2 << "} else {\n";
    vname = saved_v;
    axis = saved_a;
    emit_rows(in3);
    s << in2 << "}\n";
  } else {
    emit_rows(in2);
  }
  s << ind << "}\n";
  vname = saved_v;
  axis = saved_a;
  flat_index.clear();
  gen_value_row.assign(g.inputs.size(), std::string{});
  chunked = true;
  chunk_words = chunk_words || rows;
  return true;
}

}  // namespace jf::ir::nest
