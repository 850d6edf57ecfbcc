// Evaluation of expressions with reductions on both backends: the run-time analysis (shapes,
// global axes, domains, strides, aliasing) and the variant key; on a miss the IR of loop nests is
// lowered once; jf::cpu executes it as lowered, jf::cuda optimises, plans and launches its steps.
#include <algorithm>
#include <cstdint>
#include <sstream>

#include "core/index_errors.hpp"
#include "core/step_bindings.hpp"
#include "cpu/executor.hpp"
#include "engine/backend.hpp"
#include "engine/deferred_index_checks.hpp"
#include "engine/nest_analysis.hpp"
#include "engine/pipeline.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/stats.hpp"

namespace jf::detail {
namespace {

constexpr std::int64_t int32_limit = std::int64_t(1) << 31;

struct nest_call {
  nest_analysis a;
  shape_t iter;
  std::vector<std::vector<std::int64_t>> leaf_strides;  // per array leaf, over the global axes
  std::vector<std::int32_t> leaf_input, input_leaf;
  std::vector<ir::layout> input_layout;
  std::vector<std::int32_t> input_param;  // generated inputs: their first param (else -1)
  std::vector<std::vector<std::int64_t>> out_strides;
  std::vector<ir::layout> out_layout;
  std::vector<std::int32_t> out_same_as;
  std::vector<bool> out_staged, specialised;
  std::vector<char> existed;  // per output: it was an array before this evaluation (not allocated by it)
  bool index32 = true;
  std::vector<std::int32_t> key;
  array_base target;  // scatters: the array written (put's flattened), r.outputs[0] is a handle of it
  void* record = nullptr;  // run(): the deferred checks' record it claimed (jf::cuda, mode raise)
};

// contiguous: stride 1 along the last axis of the domain's chain (what a kernel can coalesce).
ir::layout layout_in(const nest_analysis& a, ir::domain_id d, const std::vector<std::int64_t>& s) {
  const auto chain = chain_axes(a, d);
  return chain.empty() || s[static_cast<std::size_t>(chain.back())] == 1 ? ir::layout::contiguous : ir::layout::strided;
}

bool fits32(const nest_analysis& a, const std::vector<std::int64_t>& s) {
  std::int64_t m = 0;
  for (std::size_t g = 0; g < s.size(); ++g)
    m += (a.extents[g] > 0 ? a.extents[g] - 1 : 0) * (s[g] < 0 ? -s[g] : s[g]);
  return m < int32_limit;
}

void analyse(const eval_request& r, device dev, nest_call& c) {
  nest_analysis& a = c.a;
  const scatter_spec* sc = r.scatter;
  if (sc) analyse_scatter_shapes(a, r.program, r.program_size, r.arrays, r.scalars, *sc, c.target);
  else analyse_shapes(a, r.program, r.program_size, r.arrays, r.specs, r.nspecs, r.scalars);
  number_extra_params(a, r.nscalars);
  // Outputs this evaluation allocates are not handed out if it fails (a gather's index error).
  std::vector<char>& existed = c.existed;
  existed.assign(static_cast<std::size_t>(r.nout), 0);
  for (int o = 0; o < r.nout; ++o) existed[static_cast<std::size_t>(o)] = !r.outputs[o].is_null();
  if (sc) {  // the values' shape; the target is written where the indices say
    c.iter = a.value_shape;
    assign_scatter_domains(a, c.target);
    a.raises = a.raises || sc->mode == ir::gather_mode::raise;
  } else {
    c.iter = prepare_outputs(r.outputs, r.out_types, r.nout, a.value_shape, dev);
    // A flattened scan of an n-d operand: the loops run over the operand's shape, and each output
    // (1-d, the result's length) is seen as that shape (a view of a 1-d array always exists); an
    // output of another shape (a destination the result broadcasts to) goes through a temporary.
    if (a.flat_root) c.iter = a.flat_shape;
    assign_domains(a, c.iter);
  }
  // Kernel shapes read the memory order from the axis numbers: the highest-numbered axis is the one
  // the operands are contiguous along. Renumber by the operands' strides (largest first).
  const int na = r.narrays;
  c.leaf_strides.resize(static_cast<std::size_t>(na));
  {
    const std::size_t ng = a.extents.size();
    std::vector<std::int64_t> speed(ng, INT64_MAX);  // the smallest stride any operand has along it
    for (int i = 0; i < na; ++i) {
      auto& st = c.leaf_strides[static_cast<std::size_t>(i)];
      array_base padded;
      st = global_strides(a, aligned_leaf(a, *r.arrays[i], i, padded), a.leaf_region[static_cast<std::size_t>(i)]);
      for (std::size_t g = 0; g < ng; ++g)
        if (st[g] != 0) speed[g] = std::min(speed[g], st[g] < 0 ? -st[g] : st[g]);
    }
    if (sc) {  // the target's writes count too (a row written along its contiguous axis)
      const std::vector<std::int64_t> st = scatter_target_strides(a, c.target);
      for (std::size_t g = 0; g < ng; ++g)
        if (st[g] != 0 && static_cast<std::int32_t>(g) != a.target_axis) speed[g] = std::min(speed[g], st[g] < 0 ? -st[g] : st[g]);
    }
    std::vector<std::int32_t> order(ng);
    for (std::size_t g = 0; g < ng; ++g) order[g] = static_cast<std::int32_t>(g);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) {
      return speed[static_cast<std::size_t>(x)] > speed[static_cast<std::size_t>(y)];
    });
    std::vector<std::int32_t> to(ng);
    for (std::size_t k = 0; k < ng; ++k) to[static_cast<std::size_t>(order[k])] = static_cast<std::int32_t>(k);
    renumber_axes(a, to);
    for (auto& st : c.leaf_strides) {  // the same strides under the new numbers
      std::vector<std::int64_t> renamed(ng);
      for (std::size_t g = 0; g < ng; ++g) renamed[static_cast<std::size_t>(to[g])] = st[g];
      st = std::move(renamed);
    }
  }
  std::int64_t iterations = 1;  // of every loop (a scatter's target axis is no loop)
  for (std::size_t g = 0; g < a.extents.size(); ++g) {
    const std::int64_t e = a.extents[g];
    if (static_cast<std::int32_t>(g) != a.target_axis)
      iterations = e == 0 ? 0 : (iterations > int32_limit ? iterations : iterations * e);
  }
  c.index32 = iterations < int32_limit;
  c.leaf_input.assign(static_cast<std::size_t>(na), -1);
  c.input_leaf.clear();
  c.input_layout.clear();
  c.input_param.clear();
  for (int i = 0; i < na; ++i) {
    const array_base& x = *r.arrays[i];
    const int region = a.leaf_region[static_cast<std::size_t>(i)];
    if (!fits32(a, c.leaf_strides[static_cast<std::size_t>(i)])) c.index32 = false;
    const bool generated = x.buffer()->source != buffer_source::memory;
    for (std::size_t k = 0; k < c.input_leaf.size(); ++k) {  // the same elements in one region: read (or generated) once
      const int j = c.input_leaf[k];
      const bool same = generated ? r.arrays[j]->buffer() == x.buffer()
                                  : r.arrays[j]->buffer()->source == buffer_source::memory &&
                                        detail::address_of(*r.arrays[j]) == detail::address_of(x);
      if (same && r.arrays[j]->dtype() == x.dtype() &&
          a.regions[static_cast<std::size_t>(a.leaf_region[static_cast<std::size_t>(j)])].domain == a.regions[static_cast<std::size_t>(region)].domain &&
          c.leaf_strides[static_cast<std::size_t>(j)] == c.leaf_strides[static_cast<std::size_t>(i)]) {
        c.leaf_input[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(k);
        break;
      }
    }
    if (c.leaf_input[static_cast<std::size_t>(i)] < 0) {
      c.leaf_input[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(c.input_leaf.size());
      c.input_leaf.push_back(i);
      c.input_layout.push_back(layout_in(a, a.regions[static_cast<std::size_t>(region)].domain, c.leaf_strides[static_cast<std::size_t>(i)]));
      const auto& st = c.leaf_strides[static_cast<std::size_t>(i)];
      if (a.leaf_gathered[static_cast<std::size_t>(i)] && std::all_of(st.begin(), st.end(), [](std::int64_t v) { return v == 0; }))
        c.input_layout.back() = ir::layout::scalar;  // a 1-d take: only the position moves the read
      c.input_param.push_back(-1);
      if (generated) {  // its key and first position: params after the scalars and histograms'
        c.input_param.back() = r.nscalars + static_cast<std::int32_t>(a.extra_params.size());
        const buffer& b = *x.buffer();
        for (std::uint64_t v : {b.key[0], b.key[1], b.first, b.aux}) a.extra_params.push_back(v);
      }
    }
  }
  // Gathered leaves: their length and stride (elements) are params, after the others.
  a.gather_param.assign(static_cast<std::size_t>(na), -1);
  for (int i = 0; i < na; ++i) {
    if (!a.leaf_gathered[static_cast<std::size_t>(i)]) continue;
    const array_base& x = *r.arrays[i];
    if (x.buffer()->source != buffer_source::memory)
      throw value_error("jf::take: gathering from a random leaf is not supported; evaluate it into an array first");
    a.gather_param[static_cast<std::size_t>(i)] = r.nscalars + static_cast<std::int32_t>(a.extra_params.size());
    a.extra_params.push_back(static_cast<std::uint64_t>(a.gather_size[static_cast<std::size_t>(i)]));
    a.extra_params.push_back(static_cast<std::uint64_t>(a.gather_stride[static_cast<std::size_t>(i)]));
    if (a.pair_size[static_cast<std::size_t>(i)] >= 0) {  // x(i, j): the second axis's length and stride
      a.extra_params.push_back(static_cast<std::uint64_t>(a.pair_size[static_cast<std::size_t>(i)]));
      a.extra_params.push_back(static_cast<std::uint64_t>(a.pair_stride[static_cast<std::size_t>(i)]));
    }
  }
  const ir::domain_id out_domain = a.regions[0].domain;
  c.out_strides.assign(static_cast<std::size_t>(r.nout), {});
  c.out_layout.assign(static_cast<std::size_t>(r.nout), ir::layout::contiguous);
  c.out_same_as.assign(static_cast<std::size_t>(r.nout), -1);
  c.out_staged.assign(static_cast<std::size_t>(r.nout), false);
  for (int o = 0; o < r.nout && sc; ++o) {  // the target: written in place, inputs it overlaps were copied
    auto& s = c.out_strides[static_cast<std::size_t>(o)];
    s = scatter_target_strides(a, c.target);
    if (!fits32(a, s)) c.index32 = false;
    c.out_layout[static_cast<std::size_t>(o)] = layout_in(a, out_domain, s);
  }
  for (int o = 0; o < r.nout && !sc; ++o) {
    const array_base& out = r.outputs[o];
    auto& s = c.out_strides[static_cast<std::size_t>(o)];
    if (!a.flat_root) {
      s = global_strides(a, out, 0);
    } else if (out.shape() == a.value_shape) {  // 1-d: seen as the operand's shape, a view
      strides_t st = contiguous_strides(a.flat_shape);
      for (int k = 0; k < st.size(); ++k) st[k] *= out.strides()[0];
      s = global_strides(a, array_base(out.buffer(), out.dtype(), a.flat_shape, st, out.offset()), 0);
    } else {
      c.out_staged[static_cast<std::size_t>(o)] = true;
    }
    if (!fits32(a, s)) c.index32 = false;
    // An output that shares memory with any input goes through a temporary: a reduction may read
    // an element after another iteration wrote it, and kernels of loop nests do not run in place.
    for (std::size_t k = 0; k < c.input_leaf.size(); ++k)
      if (may_overlap(out, *r.arrays[c.input_leaf[k]])) c.out_staged[static_cast<std::size_t>(o)] = true;
    for (int p = 0; p < o; ++p)
      if (may_overlap(out, r.outputs[p])) c.out_staged[static_cast<std::size_t>(o)] = true;
    if (c.out_staged[static_cast<std::size_t>(o)]) {
      c.out_same_as[static_cast<std::size_t>(o)] = -1;
      const array_base tmp(nullptr, r.out_types[o], c.iter, contiguous_strides(c.iter), 0);
      s = global_strides(a, tmp, 0);
    }
    c.out_layout[static_cast<std::size_t>(o)] = layout_in(a, out_domain, s);
  }
  // The variant key: everything above that shapes the IR or the generated code.
  auto& key = c.key;
  key.clear();
  key.push_back(static_cast<std::int32_t>(dev.kind));
  key.push_back(dev.ordinal);
  key.push_back(static_cast<std::int32_t>(r.opt.mode) * 2 + (r.opt.fast_math ? 1 : 0));
  key.push_back(c.index32 ? 1 : 0);
  key.push_back(static_cast<std::int32_t>(a.extents.size()));
  for (const ir::domain& d : a.domains) {
    key.push_back(d.parent);
    key.push_back(static_cast<std::int32_t>(d.axes.size()));
    for (std::int32_t x : d.axes) key.push_back(x);
  }
  for (const auto& R : a.regions) {
    key.push_back(R.domain);
    key.push_back(R.result_domain);
    for (std::int32_t x : R.axis) key.push_back(x);
    key.push_back(-2);
  }
  key.push_back(a.flat_root ? 1 : 0);
  for (std::size_t q = 0; q < a.specs.size(); ++q) {
    key.push_back(a.specs[q].ddof);
    if (is_scan(a.specs[q].kind)) key.push_back(a.specs[q].scan_axis);
    if (a.specs[q].kind == reducer::compact) key.push_back(a.specs[q].index_axis);
    const binning& b = a.binnings[q];  // what shapes a histogram's code (not its numbers: params)
    if (a.specs[q].kind == reducer::histogram)
      key.push_back(static_cast<std::int32_t>(b.work) * 4 + (b.guarded ? 2 : 0) + (b.step_zero ? 1 : 0));
  }
  for (int o = 0; o < r.nout; ++o) {
    key.push_back(static_cast<std::int32_t>(r.out_types[o]));
    key.push_back(static_cast<std::int32_t>(c.out_layout[static_cast<std::size_t>(o)]));
    key.push_back(c.out_same_as[static_cast<std::size_t>(o)]);
  }
  for (int i = 0; i < na; ++i) key.push_back(c.leaf_input[static_cast<std::size_t>(i)]);
  for (std::int32_t x : a.gather_axis) key.push_back(x);  // a gather's axis is in its error message
  if (sc) {
    key.push_back(static_cast<std::int32_t>(sc->kind) * 256 + static_cast<std::int32_t>(sc->rule) * 16 +
                  static_cast<std::int32_t>(sc->mode));
    key.push_back(sc->axis);
    key.push_back(sc->remembered);
    key.push_back(static_cast<std::int32_t>(sc->value_type));
    key.push_back(a.target_axis);
  }
  for (auto l : c.input_layout) key.push_back(static_cast<std::int32_t>(l));
  for (std::size_t k = 0; k < c.input_leaf.size(); ++k) {  // a generated input's kind and bit generator
    const buffer& b = *r.arrays[c.input_leaf[k]]->buffer();
    key.push_back(static_cast<std::int32_t>(b.source) * 4 + static_cast<std::int32_t>(b.bits));
  }
  specialise_scalars(r.scalars, r.nscalars, c.specialised, key);
}

ir::graph lower_nest(const eval_request& r, const nest_call& c) {
  ir::graph g;
  g.loop_nest = true;
  g.ndim = static_cast<int>(c.a.extents.size());
  g.domains = c.a.domains;
  g.index32 = c.index32;
  for (std::size_t k = 0; k < c.input_leaf.size(); ++k) {
    ir::operand_desc d{r.arrays[c.input_leaf[k]]->dtype(), c.input_layout[k]};
    switch (r.arrays[c.input_leaf[k]]->buffer()->source) {
    case buffer_source::memory: break;
    case buffer_source::philox_f64: d.gen = ir::generator::philox_f64; break;
    case buffer_source::philox_f32: d.gen = ir::generator::philox_f32; break;
    case buffer_source::normal_f64: d.gen = ir::generator::normal_f64; break;
    case buffer_source::normal_f32: d.gen = ir::generator::normal_f32; break;
    case buffer_source::integers: d.gen = ir::generator::integers; break;
    }
    d.bits = r.arrays[c.input_leaf[k]]->buffer()->bits == bit_generator::philox4x32 ? ir::bit_generator::philox4x32
                                                                                   : ir::bit_generator::philox4x64;
    d.param = c.input_param[k];
    g.inputs.push_back(d);
  }
  std::vector<unsigned char> spec(c.specialised.begin(), c.specialised.end());
  spec.push_back(0);
  lowering_inputs in{c.leaf_input.data(), c.input_layout.data(), r.scalars, reinterpret_cast<const bool*>(spec.data()), &c.a};
  std::vector<ir::node_id> roots;
  r.lower(g, in, static_cast<int>(c.input_leaf.size()), roots);
  g.params.assign(static_cast<std::size_t>(r.nscalars) + c.a.extra_params.size(), dtype::int64);
  for (const auto& n : g.nodes)
    if (n.code == op::param) g.params[static_cast<std::size_t>(n.index)] = n.type;
  const ir::domain_id out_domain = c.a.regions[0].domain;
  if (const scatter_spec* sc = r.scatter) {  // roots: the indices, the values; one output, the target
    const ir::domain_id claims = c.a.regions[1].domain;
    const ir::node_id index = lower_cast(g, roots[0], dtype::int64, claims);
    const ir::node_id value = lower_cast(g, roots[1], sc->value_type, out_domain);
    const ir::node_id put =
        g.add_put(sc->rule, r.out_types[0], value, index, c.a.target_domain, claims, out_domain, sc->mode, sc->axis,
                  sc->remembered & remembered_indices::in_bounds, sc->remembered & remembered_indices::repeats,
                  (sc->remembered & remembered_indices::winners)        ? ir::put_winners::use
                  : (sc->remembered & remembered_indices::find_winners) ? ir::put_winners::build
                                                                        : ir::put_winners::none);
    g.add_output(put, c.out_layout[0]);
    g.outputs.back().domain = out_domain;
  }
  for (int o = 0; o < r.nout && !r.scatter; ++o) {
    ir::node_id v = roots[static_cast<std::size_t>(o)];
    v = lower_cast(g, v, r.out_types[o], out_domain);
    const ir::node& n = g.at(v);
    if (n.code == op::constant || n.code == op::param || n.code == op::extent) {
      // A value without a domain (all of it folded): stored at every iteration of the result.
    } else if (n.domain != out_domain) {
      v = g.add_broadcast(v, out_domain);
    }
    g.add_output(v, c.out_layout[static_cast<std::size_t>(o)], c.out_same_as[static_cast<std::size_t>(o)]);
    g.outputs.back().domain = out_domain;
  }
  // Constants, params and extents belong to no loop: the root (the builders default to domain 1).
  for (ir::node& n : g.nodes)
    if (n.code == op::constant || n.code == op::param || n.code == op::extent) n.domain = 0;
  g.validate();
  return g;
}

const variant& find_or_build(const eval_request& r, const nest_call& c, device dev) {
  return find_or_build_variant(*r.slot, c.key, [&](variant& v) { build_variant(v, lower_nest(r, c), r.opt, dev); });
}

// Row-major strides of a temporary over the chain of its domain.
std::vector<std::int64_t> temporary_strides(const nest_analysis& a, ir::domain_id d, shape_t& shape) {
  const auto chain = chain_axes(a, d);
  std::vector<std::int64_t> s(a.extents.size(), 0);
  std::int64_t step = 1;
  shape = shape_t{};
  for (std::int32_t x : chain) shape.push_back(a.extents[static_cast<std::size_t>(x)]);
  for (std::size_t i = chain.size(); i-- > 0;) {
    s[static_cast<std::size_t>(chain[i])] = step;
    step *= std::max<std::int64_t>(1, a.extents[static_cast<std::size_t>(chain[i])]);
  }
  return s;
}

// Param p of the lowered graph: a scalar leaf, then the histograms' numbers.
std::uint64_t param_bits(const eval_request& r, const nest_call& c, std::int32_t p) {
  if (p < r.nscalars) return r.scalars[p].bits;
  return c.a.extra_params.at(static_cast<std::size_t>(p - r.nscalars));
}

// Runs an analysed evaluation: the variant (built on a miss), the bindings, the launches or the CPU
// executor, and numpy's IndexError when a gather or scatter recorded one.
void run(const eval_request& r, device dev, nest_call& c) {
  c.record = nullptr;
  // Nothing to do without iterations (a scatter's indices are checked even when its values are empty).
  if ((r.scatter ? c.a.index_shape.product() : c.iter.product()) == 0) return;
  const variant& v = find_or_build(r, c, dev);
  // Outputs that overlap an input go through a temporary (see analyse).
  std::vector<array_base> staged(static_cast<std::size_t>(r.nout));
  for (int o = 0; o < r.nout; ++o)
    if (c.out_staged[static_cast<std::size_t>(o)]) {
      staged[static_cast<std::size_t>(o)] = make_array(dev, r.out_types[o], c.iter);
      bump(counter::temporaries);
      bump(counter::temporary_bytes, static_cast<std::uint64_t>(c.iter.product() * size_of(r.out_types[o])));
    }
  auto out_binding = [&](int o) {
    const auto so = static_cast<std::size_t>(o);
    return operand_binding{c.out_staged[so] ? detail::address_of(staged[so]) : detail::address_of(r.outputs[o]),
                           c.out_strides[so]};
  };
  auto in_binding = [&](std::int32_t k) {
    const int leaf = c.input_leaf[static_cast<std::size_t>(k)];
    return operand_binding{const_cast<void*>(static_cast<const void*>(detail::address_of(*r.arrays[leaf]))),
                           c.leaf_strides[static_cast<std::size_t>(leaf)]};
  };
  step_bindings b;
  b.extents = c.a.extents;
  // Gathers and scatters report an out-of-range index in this record (host memory, or a device
  // record of the thread's deferred checks).
  const bool gathers = c.a.raises ||
                       std::any_of(c.a.gather_param.begin(), c.a.gather_param.end(), [](std::int32_t p) { return p >= 0; });
  const bool any_staged = std::any_of(c.out_staged.begin(), c.out_staged.end(), [](bool s) { return s; });
  index_error_record failure{};
  c.record = nullptr;
  if (gathers && dev.kind == device_kind::cuda && c.a.raises)
    c.record = b.error = deferred_index_checks::claim();
  else if (gathers && dev.kind == device_kind::cuda)
    b.error = deferred_index_checks::unchecked();
  else if (gathers)
    b.error = &failure;
  b.aux = r.scatter ? r.scatter->winners : nullptr;
  try {
    if (dev.kind == device_kind::cpu) {
      for (std::size_t k = 0; k < c.input_leaf.size(); ++k) b.inputs.push_back(in_binding(static_cast<std::int32_t>(k)));
      for (int o = 0; o < r.nout; ++o) b.outputs.push_back(out_binding(o));
      for (std::size_t p = 0; p < v.lowered.params.size(); ++p) b.params.push_back(param_bits(r, c, static_cast<std::int32_t>(p)));
      bump(counter::cpu_evaluations);
      bump(counter::cpu_elements, static_cast<std::uint64_t>(c.iter.product()));
      cpu_exec::execute(v.lowered, b);
    } else {
      std::vector<array_base> temporaries;
      std::vector<std::vector<std::int64_t>> temp_strides;
      for (std::size_t t = 0; t < v.plan.temporaries.size(); ++t) {
        shape_t shape;
        temp_strides.push_back(temporary_strides(c.a, v.plan.temporary_domain[t], shape));
        temporaries.push_back(make_array(dev, v.plan.temporaries[t], shape));
        bump(counter::temporaries);
        bump(counter::temporary_bytes, static_cast<std::uint64_t>(shape.product() * size_of(v.plan.temporaries[t])));
      }
      auto bind = [&](const ir::operand_ref& ref) {
        switch (ref.k) {
        case ir::operand_ref::kind::input: return in_binding(ref.index);
        case ir::operand_ref::kind::output: return out_binding(ref.index);
        default: {
          const auto t = static_cast<std::size_t>(ref.index);
          return operand_binding{detail::address_of(temporaries[t]), temp_strides[t]};
        }
        }
      };
      launch_steps(v, b, bind, [&](std::int32_t p) { return param_bits(r, c, p); });
    }
    // numpy raises IndexError before returning: so does a gather with mode raise on the CPU. On the
    // GPU the error is raised at the thread's next synchronisation (deferred_index_checks.hpp),
    // except where an output overlaps an input: its temporary is copied back only after the check,
    // so the input is untouched on failure. Other outputs that existed hold what the kernels wrote.
    if (c.a.raises && dev.kind == device_kind::cuda && any_staged) deferred_index_checks::wait_and_raise();
    if (failure.rank != 0) throw index_error(index_error_message(failure));
  } catch (...) {
    for (int o = 0; o < r.nout; ++o)  // an output this evaluation allocated is not handed out
      if (!c.existed[static_cast<std::size_t>(o)]) r.outputs[o] = array_base(nullptr, r.out_types[o], shape_t{}, shape_t{}, 0);
    throw;
  }
  for (int o = 0; o < r.nout; ++o) {
    if (!c.out_staged[static_cast<std::size_t>(o)]) continue;
    const array_base& tmp = staged[static_cast<std::size_t>(o)];
    assign(r.outputs[o], c.a.flat_root ? reshape(tmp, c.a.value_shape) : tmp);
  }
}

// numpy.put's values repeat cyclically over the indices; they fuse where that is broadcasting: the
// values' shape, leading 1s dropped, is the end of the indices' (equal shapes, a scalar).
bool cyclic_is_broadcast(const shape_t& values, const shape_t& indices) {
  int lead = 0;
  while (lead < values.size() && values[lead] == 1) ++lead;
  const int nv = values.size() - lead;
  if (nv > indices.size() || values.size() > indices.size()) return false;
  for (int k = 0; k < nv; ++k)
    if (values[lead + k] != indices[indices.size() - nv + k]) return false;
  return true;
}

// v's elements (C order) repeated to fill `shape` (numpy.put's values, np.resize's rule).
array_base cyclic_values(const array_base& v, const shape_t& shape, device dev) {
  const std::int64_t n = shape.product(), nv = v.size();
  const array_base flat = reshape(to_backend(v, dev), shape_t{1, nv});
  const array_base tiled = make_array(dev, v.dtype(), shape_t{(n + nv - 1) / nv, nv});
  assign(tiled, flat);
  const array_base first(tiled.buffer(), v.dtype(), shape_t{n}, contiguous_strides(shape_t{n}), tiled.offset());
  return reshape(first, shape);
}

// What is remembered about a scatter's index array (remembered_indices.hpp), put into `sp`: on
// jf::cuda (jf::explain, without a lesson, describes jf::cuda's plan on any backend), mode raise,
// indices that are one array leaf. Returns whether the scatter can teach the facts (`*l`, learned
// when its record is found clean); `kept`: its indices are the caller's array (not a copy), so a
// store through indices known to repeat may find the winners for the next calls (explain describes
// that plan without a bitmap).
bool use_remembered(scatter_spec& sp, const eval_request& r, const array_base& target, device dev,
                    remembered_indices::lesson* l, bool kept) {
  const bool explained = l == nullptr;
  sp.remembered = 0;
  sp.winners = nullptr;
  if ((dev.kind != device_kind::cuda && !explained) || sp.mode != ir::gather_mode::raise || sp.index_arrays != 1 ||
      sp.index_program != 1 || r.program[0].kind != prog_entry::array || target.ndim() == 0)
    return false;
  const array_base& indices = *r.arrays[0];
  const std::int64_t extent = target.shape()[0];  // the scattered axis: put's flattened target, x's first
  const bool store = sp.rule == ir::put_rule::store;
  const remembered_indices::known known =
      remembered_indices::lookup_for_store(indices, extent, store && (kept || explained));
  if (known.facts & remembered_indices::in_bounds) {
    sp.remembered = known.facts;
    if (store && (known.facts & remembered_indices::distinct)) sp.rule = ir::put_rule::store_any;
    if (store && (known.facts & remembered_indices::winners))
      sp.winners = known.winners->ptr;
    else
      sp.remembered &= static_cast<std::uint8_t>(~remembered_indices::winners);
    if (!explained) bump(counter::indices_remembered);
  }
  if (explained) {  // described as the call would run, finding the winners if it would
    if (known.find_winners) sp.remembered |= remembered_indices::find_winners;
    return false;
  }
  // A store that still marks its elements reports whether one was named twice.
  const bool marked = store && !(known.facts & remembered_indices::repeats);
  if (!remembered_indices::lesson_for(indices, extent, marked, *l)) {
    sp.remembered &= static_cast<std::uint8_t>(~remembered_indices::winners);  // (kept only through a lesson)
    sp.winners = nullptr;
    return false;
  }
  if (sp.winners != nullptr) l->winners = known.winners;  // alive until the wait after the kernel
  if (known.find_winners) {  // a bit a position, zeroed; the kernel sets the winners' (ir::put_winners::build)
    const std::uint32_t zero = 0;
    try {
      l->winners = fill(dev, dtype::uint32, shape_t{(indices.size() + 31) / 32}, &zero).buffer();
    } catch (const out_of_memory&) {
      return true;  // the winners are an optimisation: without the memory, the claims as before
    }
    remembered_indices::finding_winners(indices, extent, l->winners);
    sp.remembered |= remembered_indices::find_winners;
    sp.winners = l->winners->ptr;
  }
  return true;
}

}  // namespace

void evaluate_nest(const eval_request& r) {
  if (has_jagged_leaves(r)) return evaluate_lists(r);
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  if (dev.kind == device_kind::cuda) backend::require_cuda();
  thread_local nest_call c;
  c.target = array_base();
  analyse(r, dev, c);
  run(r, dev, c);
}

void evaluate_scatter(const eval_request& request) {
  const scatter_spec& sp = *request.scatter;
  const array_base& x = sp.target;
  if (x.is_null()) throw value_error("jetfuse: a scatter into a null array handle (default-constructed); create it first");
  const device dev = common_device(request.arrays, request.narrays, &x, 1);
  if (dev.kind == device_kind::cuda) backend::require_cuda();
  require_writable(x);
  // numpy.put writes the flattened array: in place when it is contiguous (or 1-d), else into a copy
  // written back afterwards (numpy's WRITEBACKIFCOPY).
  array_base target = x, written_back;
  if (sp.kind == scatter_kind::put && x.ndim() != 1) {
    if (x.is_contiguous()) {
      target = reshape(x, shape_t{-1});
    } else {
      written_back = to_backend(x, dev);
      target = reshape(written_back, shape_t{-1});
    }
  }
  // Leaves that share memory with the target are read from copies: numpy computes the indices and
  // the values before it assigns (x(p) = x(q), x(p) += 1).
  std::vector<const array_base*> leaves(request.arrays, request.arrays + request.narrays);
  std::vector<array_base> copies;
  copies.reserve(leaves.size() + 1);
  for (const array_base*& leaf : leaves)
    if (leaf->buffer()->source == buffer_source::memory && may_overlap(*leaf, target)) {
      copies.push_back(to_backend(*leaf, dev));
      leaf = &copies.back();
    }
  eval_request r = request;
  r.arrays = leaves.data();
  scatter_spec spec = sp;
  remembered_indices::lesson lesson;
  // (Indices read from a copy, as they overlap x, teach nothing: the copy is gone after the call.)
  const bool kept = !leaves.empty() && leaves[0] == request.arrays[0];
  const bool teaches = use_remembered(spec, r, target, dev, &lesson, kept) && kept;
  r.scatter = &spec;
  array_base out = target;
  const dtype out_type = x.dtype();
  r.outputs = &out;
  r.out_types = &out_type;
  r.nout = 1;
  thread_local nest_call c;
  c.target = target;
  if (sp.kind == scatter_kind::put) {
    analyse_scatter_shapes(c.a, r.program, r.program_size, r.arrays, r.scalars, sp, target);
    const std::int64_t ni = c.a.index_shape.product(), nv = c.a.values_shape.product();
    if (ni > 0 && target.size() == 0) throw index_error("cannot replace elements of an empty array");
    if (ni == 0 || nv == 0) return;  // numpy: nothing to put
    if (!cyclic_is_broadcast(c.a.values_shape, c.a.index_shape)) {
      if (r.program_size != sp.index_program + 1 || r.program[sp.index_program].kind != prog_entry::array)
        throw value_error("jf::put: values computed by an expression of shape " + numpy_shape(c.a.values_shape) +
                          " for indices of shape " + numpy_shape(c.a.index_shape) +
                          ": numpy repeats the values cyclically; evaluate them into an array first (or give them "
                          "the indices' shape)");
      copies.push_back(cyclic_values(*leaves.back(), c.a.index_shape, dev));
      leaves.back() = &copies.back();
    }
  }
  analyse(r, dev, c);
  run(r, dev, c);
  if (teaches && c.record) deferred_index_checks::learn_when_clean(c.record, std::move(lesson));
  if (!written_back.is_null()) assign(x, written_back);
}

std::string explain_scatter(const eval_request& request) {
  const scatter_spec& sp = *request.scatter;
  const array_base& x = sp.target;
  if (x.is_null()) throw value_error("jetfuse: a scatter into a null array handle (default-constructed); create it first");
  const device dev = common_device(request.arrays, request.narrays, &x, 1);
  nest_call c;
  c.target = x;
  if (sp.kind == scatter_kind::put && x.ndim() != 1)  // as evaluate_scatter: flat, or a contiguous copy
    c.target = x.is_contiguous() ? reshape(x, shape_t{-1})
                                 : array_base(x.buffer(), x.dtype(), shape_t{x.size()}, contiguous_strides(shape_t{x.size()}), 0);
  std::vector<const array_base*> leaves(request.arrays, request.arrays + request.narrays);
  array_base cyclic;
  eval_request r = request;
  r.arrays = leaves.data();
  scatter_spec spec = sp;  // described with what is remembered about its indices, as it would run
  use_remembered(spec, r, c.target, dev, nullptr, false);
  r.scatter = &spec;
  array_base out = c.target;
  const dtype out_type = x.dtype();
  r.outputs = &out;
  r.out_types = &out_type;
  r.nout = 1;
  if (sp.kind == scatter_kind::put) {
    analyse_scatter_shapes(c.a, r.program, r.program_size, r.arrays, r.scalars, sp, c.target);
    if (!cyclic_is_broadcast(c.a.values_shape, c.a.index_shape) && r.program_size == sp.index_program + 1) {
      cyclic = array_base(leaves.back()->buffer(), leaves.back()->dtype(), c.a.index_shape, contiguous_strides(c.a.index_shape), 0);
      leaves.back() = &cyclic;  // described as evaluate_scatter's repeated values
    }
  }
  analyse(r, dev, c);
  std::ostringstream os;
  os << "jetfuse: scatter of " << to_string(c.a.index_shape) << " indices, values " << to_string(c.iter) << ", into an array of shape "
     << to_string(x.shape()) << " on " << to_string(dev) << "\n";
  ir::graph g = lower_nest(r, c);
  os << describe_backend(g, dev, r.opt, "src/cpu/executor.cpp",
                         "the indices checked first, then the values written in numpy's order on one thread");
  return os.str();
}

std::string explain_nest(const eval_request& r) {
  if (has_jagged_leaves(r)) return explain_lists(r);
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  // Describe outputs without allocating them.
  nest_analysis probe;
  analyse_shapes(probe, r.program, r.program_size, r.arrays, r.specs, r.nspecs, r.scalars);
  std::vector<array_base> outs = described_outputs(r.outputs, r.out_types, r.nout, probe.value_shape);
  eval_request rr = r;
  rr.outputs = outs.data();
  nest_call c;
  analyse(rr, dev, c);
  std::ostringstream os;
  os << "jetfuse: evaluation of shape " << to_string(c.iter) << " with " << r.nspecs << " reduction(s) on "
     << to_string(dev) << "\n";
  os << "global axes:";
  for (std::size_t x = 0; x < c.a.extents.size(); ++x) os << " axis " << x << " = " << c.a.extents[x] << (x + 1 < c.a.extents.size() ? "," : "");
  os << "\n";
  ir::graph g = lower_nest(rr, c);
  os << describe_backend(g, dev, r.opt, "src/cpu/executor.cpp",
                         "domain by domain, element-wise nodes over blocks of iterations, reductions combined in a "
                         "fixed order on the thread pool; no kernel is generated");
  return os.str();
}

}  // namespace jf::detail
