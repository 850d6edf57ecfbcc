// Random leaves read along a grid-stride loop, a Philox block shared by the iterations it feeds.
//
// One Philox4x64-10 block gives 4 64-bit outputs: 4 consecutive float64 draws or 8 float32 ones.
// Computed per element (emit_nodes' default), each element pays for the whole block and uses a
// quarter or an eighth of it; the block's ~250 integer instructions then bound the kernel (pi from
// 2^31 draws: 32 ms on an H100). Here each warp takes chunks of 32 blocks' worth of consecutive
// iterations: lane l computes block l of the chunk, the warp writes the words to shared memory,
// and every lane reads the value of its iteration of each of the chunk's 32-iteration rows. The
// iterations keep the usual lane order (row j: lane l at chunk start + 32 j + l), so loads and
// stores stay coalesced.
//
// Chunks are aligned on the blocks of one leaf, the anchor (the one with most draws per block).
// Another leaf whose first position is congruent to the anchor's modulo its draws per block is
// aligned too (gen.random({n}) twice with n a multiple of 8, say); one that is not, or whose
// offsets are not the flat index (broadcast along an outer axis: known only from the strides at
// run time), computes a block per element (a call, to keep the kernel small), and so does a
// float32 leaf's element 0 when it is numpy's kept half (its position is not first + 0).
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

std::string p(const operand_desc& in, int j) { return cat("a.p", in.param + j); }
std::string u64(const std::string& v) { return "static_cast<unsigned long long>(" + v + ")"; }

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
                           const std::function<void(const std::string&, const std::string&)>& at_lane) {
  std::vector<std::size_t> leaves = contiguous_generated(needed, axes);
  if (leaves.empty()) return false;
  // The anchor first: the most draws per block (a float32 leaf if there is one).
  std::stable_sort(leaves.begin(), leaves.end(), [&](std::size_t x, std::size_t y) {
    return draws_per_block(g.inputs[x].gen) > draws_per_block(g.inputs[y].gen);
  });
  const operand_desc& anchor = g.inputs[leaves[0]];
  const int per = draws_per_block(anchor.gen);  // rows of 32 iterations per chunk
  const int chunk = 32 * per;
  const auto saved_v = vname;
  const auto saved_a = axis;
  const std::string in2 = ind + "  ", in3 = in2 + "  ";

  s << ind << "// Chunks of " << chunk << " consecutive iterations per warp, one Philox block per lane for each random\n"
    << ind << "// leaf (philox_chunks.cpp): iteration chunk start + 32 j + lane in row j.\n";
  s << ind << "{\n";
  s << in2 << "__shared__ unsigned long long jf_words[8][128];  // a warp's 32 blocks (blockDim.x <= 256)\n";
  s << in2 << "unsigned long long* const jf_draws = jf_words[threadIdx.x >> 5];\n";
  s << in2 << "const unsigned jf_lane = threadIdx.x & 31u;\n";
  s << in2 << "const long long jf_shift = static_cast<long long>(" << u64(p(anchor, 2)) << " % " << per
    << "u);  // chunks start on the anchor's blocks\n";
  s << in2 << "const long long jf_chunks = (" << n << " + jf_shift + " << chunk - 1 << ") / " << chunk << ";\n";
  s << in2 << "const long long jf_warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;\n";
  // Per leaf, whether the chunk's blocks serve it: its offsets are the flat index (strides compact:
  // not a broadcast along an outer axis) and, but for the anchor, its positions are aligned.
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const std::size_t k = leaves[i];
    const operand_desc& in = g.inputs[k];
    std::string fast;
    for (std::size_t x = 0; x + 1 < axes.size(); ++x)
      fast += cat("static_cast<long long>(st_in", static_cast<long long>(k)) + cat("_", axes[x]) +
              ") == " + extent_product({axes.begin() + static_cast<std::ptrdiff_t>(x) + 1, axes.end()}) + " && ";
    if (i > 0)
      fast += "((" + u64(p(in, 2)) + " - " + u64(p(anchor, 2)) + ") & " + std::to_string(draws_per_block(in.gen) - 1) +
              "u) == 0 && ";
    s << in2 << "const bool jf_fast" << k << " = " << fast << "true;\n";
  }
  s << in2 << "for (long long jf_c = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; jf_c < jf_chunks; "
            "jf_c += jf_warps) {\n";
  s << in3 << "const long long jf_e0 = jf_c * " << chunk << " - jf_shift;  // the chunk's first iteration (< 0: none)\n";

  gen_value.assign(g.inputs.size(), std::vector<std::string>{});
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const std::size_t k = leaves[i];
    const operand_desc& in = g.inputs[k];
    const bool f32 = in.gen == generator::philox_f32;  // numpy's kept half: random float32 only
    const int d = draws_per_block(in.gen);
    const std::string t = T(in.type), r = cat("jf_r", static_cast<long long>(k)) + "_";
    const std::string key = u64(p(in, 0)) + ", " + u64(p(in, 1));
    s << in3 << "// random leaf in" << k << " (" << generator_name(in.gen) << "): row j's values\n";
    for (int j = 0; j < per; ++j) {
      s << in3 << t << " " << r << j << " = 0;\n";
      gen_value[k].push_back(r + std::to_string(j));
    }
    const std::string pos = u64(p(in, 2)) + " + " + u64("jf_e0");  // position of the chunk's first iteration
    s << in3 << "if (jf_fast" << k << ") {\n";
    const std::string in4 = in3 + "  ";
    // per / d passes of 32 blocks (two for a float64 leaf under a float32 anchor).
    for (int pass = 0; pass < per / d; ++pass) {
      s << in4 << "__syncwarp();  // the previous reads of jf_draws are done\n";
      s << in4 << "jf::ops::jf_philox_block(" << key << ", (" << pos << ") / " << d << "u + " << 32 * pass
        << "u + jf_lane, jf_draws + 4 * jf_lane);\n";
      s << in4 << "__syncwarp();\n";
      for (int j = pass * d; j < (pass + 1) * d; ++j) {
        const std::string at = cat("32 * ", j - pass * d) + " + jf_lane";
        s << in4 << r << j << " = " << from_words(in, cat("32 * ", j - pass * d) + " + jf_lane") << ";\n";
      }
    }
    if (f32) {  // numpy's kept half: element 0 is not at first + 0
      s << in4 << "if (" << p(in, 3) << " != 0 && jf_e0 <= 0) {\n";
      for (int j = 0; j < per; ++j)
        s << in4 << "  if (jf_e0 + 32 * " << j << " + static_cast<long long>(jf_lane) == 0) " << r << j
          << " = jf_nest::at_random_f32(" << key << ", " << u64(p(in, 2)) << ", " << u64(p(in, 3)) << ", 0);\n";
      s << in4 << "}\n";
    }
    // Not served by the chunk: a block per value, at the leaf's own offsets (a call: the rounds
    // once in the kernel, not once per row).
    domain_id dom = 0;
    for (std::size_t id = 0; id < g.nodes.size(); ++id)
      if (needed[id] && g.nodes[id].code == op::input && static_cast<std::size_t>(g.nodes[id].index) == k) dom = g.nodes[id].domain;
    s << in3 << "} else {\n";
    for (int j = 0; j < per; ++j) {
      const auto saved = axis;
      unravel(in4, cat("(jf_e0 + 32 * ", j) + " + jf_lane)", axes, cat("_g", j));
      s << in4 << r << j << " = static_cast<" << t << ">(jf_nest::at_" << generator_name(in.gen) << "(" << key << ", "
        << u64(p(in, 2)) << ", " << u64(p(in, 3)) << ", " << u64(offset(false, k, dom)) << "));\n";
      axis = saved;
    }
    s << in3 << "}\n";
  }

  auto row = [&](int j) { return cat("(jf_e0 + 32 * ", j) + " + jf_lane)"; };
  auto body = [&](const std::string& i4, int j, which w) {
    for (std::size_t k : leaves) gen_value_row[k] = gen_value[k][static_cast<std::size_t>(j)];
    emit_nodes(needed, i4, cat("_", j), w);
  };
  gen_value_row.assign(g.inputs.size(), std::string{});
  // Whole chunks: every row's loads first (memory-level parallelism), then the rows in order.
  s << in3 << "if (jf_e0 >= 0 && jf_e0 + " << chunk << " <= " << n << ") {\n";
  const std::string in4 = in3 + "  ";
  std::vector<std::vector<std::string>> row_v(static_cast<std::size_t>(per)), row_a(static_cast<std::size_t>(per));
  for (int j = 0; j < per; ++j) {
    vname = saved_v;
    axis = saved_a;
    unravel(in4, row(j), axes, cat("_", j));
    flat_index = row(j);
    body(in4, j, which::loads);
    row_v[static_cast<std::size_t>(j)] = vname;
    row_a[static_cast<std::size_t>(j)] = axis;
  }
  for (int j = 0; j < per; ++j) {
    vname = row_v[static_cast<std::size_t>(j)];
    axis = row_a[static_cast<std::size_t>(j)];
    flat_index = row(j);
    body(in4, j, which::compute);
    at_lane(in4, row(j));
  }
  s << in3 << "} else {  // the first or last chunk: rows guarded\n";
  for (int j = 0; j < per; ++j) {
    vname = saved_v;
    axis = saved_a;
    s << in4 << "if (" << row(j) << " >= 0 && " << row(j) << " < " << n << ") {\n";
    const std::string in5 = in4 + "  ";
    unravel(in5, row(j), axes, cat("_", j));
    flat_index = row(j);
    body(in5, j, which::all);
    at_lane(in5, row(j));
    s << in4 << "}\n";
  }
  s << in3 << "}\n";
  s << in2 << "}\n";
  s << ind << "}\n";
  vname = saved_v;
  axis = saved_a;
  flat_index.clear();
  gen_value_row.assign(g.inputs.size(), std::string{});
  chunked = true;
  return true;
}

}  // namespace jf::ir::nest
