// Kernel shape "generic loop nest": any valid loop-nest graph of root and box domains, e.g. nested
// reductions (the sum over rows of each row's max), a variance's two passes, reductions of several
// domains. Always correct, never fast: for each output domain in turn (a phase), a thread per
// iteration of it (grid-stride), and every reduction it needs as a serial loop over the reduced
// iterations, recomputing the values of the domains below (and reductions of enclosing domains
// once per iteration). Order of combination: the reduced iterations in row-major order.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

// The serial loop of reduce node r, emitted where its value is first needed.
void serial_reduce(emitter& e, node_id r, const std::string& ind) {
  const graph& g = e.g;
  auto& s = e.s;
  const node& n = g.at(r);
  const domain_id into = n.domain, from = g.at(n.args[0]).domain;
  const std::vector<std::int32_t> outer = g.chain_axes(into), all = g.chain_axes(from);
  const std::vector<std::int32_t> below(all.begin() + static_cast<std::ptrdiff_t>(outer.size()), all.end());
  const std::string acc = cat("acc", r), q = cat("q", r), sfx = cat("_r", r);
  s << ind << "// reduce %" << r << ": " << name(e.mono(r)) << " over D" << from << " for this iteration of "
    << (into == 0 ? std::string("the root") : cat("D", into)) << "\n";
  s << ind << e.acc_type(r) << " " << acc << " = " << e.identity(r) << ";\n";
  s << ind << "for (long long " << q << " = 0; " << q << " < " << e.extent_product(below) << "; ++" << q << ") {\n";
  const auto saved_v = e.vname;
  const auto saved_a = e.axis;
  e.forget_below(into);  // values below `into` vary inside the loop
  const std::string in2 = ind + "  ";
  e.unravel(in2, q, below, sfx);
  std::vector<node_id> args{n.args[0]};
  if (n.nargs == 2) args.push_back(n.args[1]);
  e.emit_nodes(e.f.closure(args), in2, sfx, emitter::which::all,
               [&](node_id inner, const std::string& ind2) { serial_reduce(e, inner, ind2); });
  e.accumulate(in2, r, acc, q);
  e.vname = saved_v;
  e.axis = saved_a;
  s << ind << "}\n";
  const std::string v = cat("v", r);
  s << ind << "const " << e.T(n.type) << " " << v << " = " << e.result(r, acc) << ";\n";
  e.vname[static_cast<std::size_t>(r)] = v;
}

}  // namespace

void emit_generic_nest(emitter& e, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  shape_plan p;
  p.shape = kernel_shape::generic_nest;
  li.block = 256;
  std::string plan = "Phases, one per output domain:";
  for (domain_id d : e.f.output_domains) {
    plan += ' ';
    plan += d == 0 ? std::string("root") : cat("D", d);
  }
  e.header(p, plan + "; a thread per iteration of each, serial loops for the reductions.");
  e.args_struct();
  e.open_kernel("// Launch: 256-thread blocks, a grid-stride loop per phase.\n");
  e.prologue("  ");
  // One exit (the kernel's end): raising gathers record in registers, reported there. The report
  // (a call) keeps the compiler from the read-only path for the inputs and from unrolling the loop:
  // both are asked for (the kernel never writes what it reads: outputs that overlap an input are
  // staged).
  bool raises = false;
  for (const node& n : g.nodes)
    raises = raises || ((n.code == op::gather || n.code == op::check_index) && mode_of_gather(n) == gather_mode::raise);
  if (raises) {
    e.error_record = "jf_fail";
    e.ldg_inputs = true;
    s << "  jf_nest::thread_failure jf_fail;  // the thread's earliest out-of-range index, reported at the end\n";
  }
  s << "  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
  for (domain_id d : e.f.output_domains) {
    const std::vector<std::int32_t> axes = g.chain_axes(d);
    li.phase_axes.push_back(axes);
    s << "  // Phase: the outputs stored over " << (d == 0 ? std::string("the root") : cat("D", d)) << ".\n";
    const std::vector<char> need = e.f.closure(e.f.outputs_in(d));
    bool reduces = false;
    for (node_id r : e.f.reduces) reduces = reduces || need[static_cast<std::size_t>(r)];
    // A map phase reading random leaves: warps take chunks that share Philox blocks.
    if (!reduces && e.chunked_loop(
                        "  ", axes, e.extent_product(axes), need,
                        [&](const std::string& ind, const std::string&) { e.store_outputs(ind, d); }, d))
      continue;
    if (raises && !reduces) {  // four iterations a trip, their loads first (emitter::laned_loop)
      e.laned_loop("  ", "t", "first", "step", e.extent_product(axes), axes, 4, need,
                   [&](const std::string& ind, const std::string&) { e.store_outputs(ind, d); });
      continue;
    }
    s << "  for (long long t = first; t < " << e.extent_product(axes) << "; t += step) {\n";
    const auto saved_v = e.vname;
    const auto saved_a = e.axis;
    e.unravel("    ", "t", axes, "");
    e.emit_nodes(need, "    ", "", emitter::which::all,
                 [&](node_id r, const std::string& ind) { serial_reduce(e, r, ind); });
    e.store_outputs("    ", d);
    e.vname = saved_v;
    e.axis = saved_a;
    s << "  }\n";
  }
  if (raises) s << "  jf_fail.report(a.err);\n";
  e.close_kernel();
}

launch_config configure_generic_nest(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  std::int64_t n = 0;
  for (const auto& axes : li.phase_axes) n = std::max(n, product(axes, ext));
  c.block[0] = static_cast<unsigned>(li.block);
  c.grid[0] = static_cast<unsigned>(std::min<std::int64_t>((n + li.block - 1) / li.block, resident_blocks(dev, li.block) * 4));
  return c;
}

}  // namespace jf::ir::nest
