// Element-wise (map) evaluations on both backends: the run-time analysis and variant key (the hot
// path), the lowering of a variant on a miss; jf::cpu runs the lowered IR with the CPU executor,
// jf::cuda plans it through the pipeline (pipeline.hpp) and launches each step via the backend.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/step_bindings.hpp"
#include "core/strided_copy.hpp"
#include "cpu/executor.hpp"
#include "engine/backend.hpp"
#include "engine/pipeline.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/stats.hpp"

namespace jf::detail {

namespace {

constexpr std::int64_t int32_limit = std::int64_t(1) << 31;

// One step's argument struct (the ABI of graph.hpp) and the iteration space its launch covers.
struct packed_step {
  std::uint64_t slots[512];
  std::size_t ns = 0;
  std::size_t scalars_at = 0;  // slot of the first scalar parameter (step.params in order)
  std::int64_t extents[max_ndim > 1 ? max_ndim : 1] = {};
  int ndim = 0;
};

// Everything about one call that changes the generated code (the variant key), and the run-time
// facts the launch needs.
struct call_analysis {
  shape_t iter;
  std::int64_t n = 0;
  std::vector<strides_t> leaf_strides;     // effective strides of each array leaf
  std::vector<std::int32_t> leaf_input;    // kernel input of each array leaf
  std::vector<std::int32_t> input_leaf;    // first leaf of each kernel input
  std::vector<ir::layout> input_layout;
  std::vector<ir::layout> out_layout;
  std::vector<std::int32_t> out_same_as;   // input read element for element, or -1
  std::vector<bool> out_staged;            // output overlaps an input: computed into a temporary
  std::vector<bool> specialised;           // per scalar leaf
  // Stride classes of the strided operands (outputs, then inputs; -1: strides of its own):
  // operands whose strides are equal share one offset in the kernel (ir::operand_desc).
  std::vector<std::int8_t> out_class, input_class;
  std::vector<strides_t> out_strides;  // effective strides of each output
  bool index32 = true;
  int vector_width = 1;
  std::vector<std::int32_t> key;
  std::size_t operand_key = 0;  // key's length before the scalars' part
  bool from_memo = false;       // taken from the analysis memo (analysed()): the last call's operands

  // The launch of the last jf::cuda call that had this analysis, when its plan was one kernel
  // writing the outputs themselves: the variant, its key and the packed step. A call from the memo
  // with the same key launches it again with its own scalars (nothing else in the struct can
  // differ: pointers, extents and strides are the memo's).
  struct remembered_launch {
    const variant* v = nullptr;  // null: none (analyse() clears it)
    std::vector<std::int32_t> key;
    std::unique_ptr<packed_step> step;  // (4 KiB: allocated once, on the first launch remembered)
  } launch;
};

std::int64_t max_offset(const strides_t& s, const shape_t& iter) {
  std::int64_t m = 0;
  for (int k = 0; k < iter.size(); ++k) m += (iter[k] - 1) * (s[k] < 0 ? -s[k] : s[k]);
  return m;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

void analyse(const eval_request& r, const shape_t& iter, call_analysis& a) {
  a.launch.v = nullptr;
  a.iter = iter;
  a.n = iter.product();
  a.index32 = a.n < int32_limit;
  const int na = r.narrays;
  a.leaf_strides.resize(static_cast<std::size_t>(na));
  a.leaf_input.assign(static_cast<std::size_t>(na), -1);
  a.input_leaf.clear();
  a.input_layout.clear();
  for (int i = 0; i < na; ++i) {
    const array_base& x = *r.arrays[i];
    a.leaf_strides[i] = effective_strides(x, iter);
    if (max_offset(a.leaf_strides[i], iter) >= int32_limit) a.index32 = false;
    // Leaves that address the same elements (the same array used twice, or two handles of one
    // view) become one kernel input: read once.
    for (std::size_t k = 0; k < a.input_leaf.size(); ++k) {
      const array_base& y = *r.arrays[a.input_leaf[k]];
      if (detail::address_of(y) == detail::address_of(x) && y.dtype() == x.dtype() &&
          a.leaf_strides[a.input_leaf[k]] == a.leaf_strides[i]) {
        a.leaf_input[i] = static_cast<std::int32_t>(k);
        break;
      }
    }
    if (a.leaf_input[i] < 0) {
      a.leaf_input[i] = static_cast<std::int32_t>(a.input_leaf.size());
      a.input_leaf.push_back(i);
      a.input_layout.push_back(classify(a.leaf_strides[i], iter));
    }
  }
  a.out_layout.assign(static_cast<std::size_t>(r.nout), ir::layout::contiguous);
  a.out_same_as.assign(static_cast<std::size_t>(r.nout), -1);
  a.out_staged.assign(static_cast<std::size_t>(r.nout), false);
  a.out_strides.resize(static_cast<std::size_t>(r.nout));
  for (int o = 0; o < r.nout; ++o) {
    const array_base& out = r.outputs[o];
    strides_t& s = a.out_strides[static_cast<std::size_t>(o)];
    s = effective_strides(out, iter);
    if (max_offset(s, iter) >= int32_limit) a.index32 = false;
    a.out_layout[o] = classify(s, iter);
    if (a.out_layout[o] == ir::layout::scalar) a.out_layout[o] = ir::layout::strided;
    for (std::size_t k = 0; k < a.input_leaf.size(); ++k) {
      const array_base& in = *r.arrays[a.input_leaf[k]];
      if (!may_overlap(out, in)) continue;
      if (detail::address_of(in) == detail::address_of(out) && in.dtype() == out.dtype() &&
          a.leaf_strides[a.input_leaf[k]] == s)
        a.out_same_as[o] = static_cast<std::int32_t>(k);
      else
        a.out_staged[o] = true;
    }
    if (a.out_staged[o]) {
      a.out_same_as[o] = -1;
      a.out_layout[o] = ir::layout::contiguous;  // the temporary
    }
  }
  // 16-byte vector accesses when every operand is contiguous (or one broadcast element) and aligned.
  bool vec = a.n > 0;
  int widest = 1;
  auto consider = [&](ir::layout l, dtype t, const void* p) {
    if (l == ir::layout::strided || (l == ir::layout::contiguous && !aligned16(p))) vec = false;
    if (l == ir::layout::contiguous) widest = std::max(widest, size_of(t));
  };
  for (std::size_t k = 0; k < a.input_leaf.size(); ++k)
    consider(a.input_layout[k], r.arrays[a.input_leaf[k]]->dtype(), detail::address_of(*r.arrays[a.input_leaf[k]]));
  for (int o = 0; o < r.nout; ++o)
    consider(a.out_layout[o], r.out_types[o], a.out_staged[o] ? nullptr : detail::address_of(r.outputs[o]));
  a.vector_width = vec ? 16 / widest : 1;

  // Stride classes: the first strided operand with the same strides opens a class.
  a.out_class.assign(static_cast<std::size_t>(r.nout), -1);
  a.input_class.assign(a.input_leaf.size(), -1);
  thread_local std::vector<std::pair<const strides_t*, std::int8_t*>> strided;
  strided.clear();
  std::int8_t classes = 0;
  auto classify_strides = [&](const strides_t& st, std::int8_t& cls) {
    for (auto& [other, other_cls] : strided) {
      if (*other != st) continue;
      if (*other_cls < 0 && classes < 127) *other_cls = classes++;
      cls = *other_cls;
      break;
    }
    strided.push_back({&st, &cls});
  };
  for (int o = 0; o < r.nout; ++o)
    if (a.out_layout[o] == ir::layout::strided)
      classify_strides(a.out_strides[static_cast<std::size_t>(o)], a.out_class[o]);
  for (std::size_t k = 0; k < a.input_leaf.size(); ++k)
    if (a.input_layout[k] == ir::layout::strided)
      classify_strides(a.leaf_strides[static_cast<std::size_t>(a.input_leaf[k])], a.input_class[k]);

  // The variant key: everything above that shapes the generated code.
  const bool any_strided = std::any_of(a.input_layout.begin(), a.input_layout.end(),
                                       [](ir::layout l) { return l == ir::layout::strided; }) ||
                           std::any_of(a.out_layout.begin(), a.out_layout.end(),
                                       [](ir::layout l) { return l == ir::layout::strided; });
  auto& key = a.key;
  key.clear();
  key.push_back(r.outputs[0].device().ordinal);
  key.push_back(static_cast<std::int32_t>(r.opt.mode) * 2 + (r.opt.fast_math ? 1 : 0));
  key.push_back(any_strided ? std::max(1, iter.size()) : 1);
  key.push_back(a.index32 ? 1 : 0);
  key.push_back(a.vector_width);
  for (int o = 0; o < r.nout; ++o) {
    key.push_back(static_cast<std::int32_t>(r.out_types[o]));
    key.push_back(static_cast<std::int32_t>(a.out_layout[o]));
    key.push_back(a.out_same_as[o]);
  }
  for (int i = 0; i < na; ++i) key.push_back(a.leaf_input[i]);
  for (auto l : a.input_layout) key.push_back(static_cast<std::int32_t>(l));
  for (auto c : a.out_class) key.push_back(c);
  for (auto c : a.input_class) key.push_back(c);
  // Specialised exponents by value; comparisons with an integer outside the compared dtype have a
  // known answer (a constant in the IR).
  a.operand_key = key.size();
  specialise_scalars(r.scalars, r.nscalars, a.specialised, key);
}

// What analyse() reads of one operand; two operands with equal states have the same analysis.
struct operand_state {
  const void* data = nullptr;
  device dev{};
  buffer_source source = buffer_source::memory;
  dtype type{};
  shape_t shape;
  strides_t strides;

  void set(const array_base& x) {
    data = detail::address_of(x);
    dev = x.device();
    source = x.buffer()->source;
    type = x.dtype();
    shape = x.shape();
    strides = x.strides();
  }
  bool same(const array_base& x) const {
    return detail::address_of(x) == data && x.dtype() == type && x.shape() == shape && x.strides() == strides &&
           x.device() == dev && x.buffer()->source == source;
  }
};

// The last analysis of each expression type on this thread (a few, by their kernel slot) and the
// operands it was computed from. A call whose array leaves and outputs have the same states as
// that call's, with the same options, has the same analysis: analyse() reads nothing else but the
// scalars, whose part of the key is computed again. A loop calling one expression on the same
// arrays, the small call's case, so skips the analysis of strides, overlaps and layouts.
struct analysis_memo {
  const kernel_slot* slot = nullptr;
  eval_options opt{};
  std::vector<operand_state> operands;  // the array leaves, then the outputs
  std::vector<dtype> out_types;
  call_analysis a;

  bool matches(const eval_request& r) const {
    if (slot != r.slot || opt.mode != r.opt.mode || opt.fast_math != r.opt.fast_math ||
        operands.size() != static_cast<std::size_t>(r.narrays + r.nout))
      return false;
    for (int i = 0; i < r.narrays; ++i)
      if (!operands[static_cast<std::size_t>(i)].same(*r.arrays[i])) return false;
    for (int o = 0; o < r.nout; ++o)
      if (!operands[static_cast<std::size_t>(r.narrays + o)].same(r.outputs[o]) || out_types[o] != r.out_types[o])
        return false;
    return true;
  }
  void record(const eval_request& r) {
    slot = r.slot;
    opt = r.opt;
    operands.resize(static_cast<std::size_t>(r.narrays + r.nout));
    for (int i = 0; i < r.narrays; ++i) operands[static_cast<std::size_t>(i)].set(*r.arrays[i]);
    for (int o = 0; o < r.nout; ++o) operands[static_cast<std::size_t>(r.narrays + o)].set(r.outputs[o]);
    out_types.assign(r.out_types, r.out_types + r.nout);
  }
};

// This thread's analysis of a call (outputs prepared): the memo's when the operands are those of
// the last call of the expression, else computed. Valid until the next call on this thread of an
// expression that takes the same memo entry (an evaluation run from inside this one may).
call_analysis& analysed(const eval_request& r, const shape_t& iter) {
  // The last few expressions called, each in its own entry (a scan of 8 pointers); a new one
  // takes the entries in turn.
  thread_local analysis_memo memo[8];
  thread_local std::size_t next = 0;
  analysis_memo* entry = nullptr;
  for (analysis_memo& m : memo)
    if (m.slot == r.slot) entry = &m;
  if (entry == nullptr) {
    entry = &memo[next];
    next = (next + 1) % std::size(memo);
  }
  analysis_memo& m = *entry;
  if (m.matches(r)) {
    m.a.key.resize(m.a.operand_key);
    specialise_scalars(r.scalars, r.nscalars, m.a.specialised, m.a.key);
    bump(counter::analyses_reused);
    m.a.from_memo = true;
    return m.a;
  }
  m.slot = nullptr;  // not valid until recorded: analyse() may throw
  analyse(r, iter, m.a);
  m.a.from_memo = false;
  m.record(r);
  return m.a;
}

// Builds the IR of one variant (before the passes).
ir::graph lower_variant(const eval_request& r, const call_analysis& a) {
  ir::graph g;
  for (std::size_t k = 0; k < a.input_leaf.size(); ++k) {
    g.inputs.push_back({r.arrays[a.input_leaf[k]]->dtype(), a.input_layout[k]});
    g.inputs.back().stride_class = a.input_class[k];
  }
  std::vector<unsigned char> spec(a.specialised.begin(), a.specialised.end());
  spec.push_back(0);
  lowering_inputs in{a.leaf_input.data(), a.input_layout.data(), r.scalars, reinterpret_cast<const bool*>(spec.data())};
  std::vector<ir::node_id> roots;
  r.lower(g, in, static_cast<int>(a.input_leaf.size()), roots);
  g.params.assign(static_cast<std::size_t>(r.nscalars), dtype::int64);
  for (const auto& n : g.nodes)
    if (n.code == op::param) g.params[static_cast<std::size_t>(n.index)] = n.type;
  for (int o = 0; o < r.nout; ++o) {
    ir::node_id v = roots[static_cast<std::size_t>(o)];
    if (g.nodes[static_cast<std::size_t>(v)].type != r.out_types[o]) v = g.add_cast(r.out_types[o], v);
    g.add_output(v, a.out_layout[o], a.out_same_as[o]);
    g.outputs.back().desc.stride_class = a.out_class[o];
  }
  const bool any_strided = std::any_of(g.inputs.begin(), g.inputs.end(), [](const ir::operand_desc& d) { return d.lay == ir::layout::strided; }) ||
                           std::any_of(g.outputs.begin(), g.outputs.end(), [](const ir::output_desc& d) { return d.desc.lay == ir::layout::strided; });
  g.set_map_rank(any_strided ? std::max(1, a.iter.size()) : 1);
  g.index32 = a.index32;
  g.vector_width = a.vector_width;
  return g;
}

}  // namespace

kernel_slot* new_kernel_slot() { return new kernel_slot(); }

namespace {

const variant& find_or_build(const eval_request& r, const call_analysis& a) {
  return find_or_build_variant(*r.slot, a.key,
                               [&](variant& v) { build_variant(v, lower_variant(r, a), r.opt, device{device_kind::cuda, 0}); });
}

struct binding {
  const void* ptr;
  const strides_t* strides;  // effective strides on the iteration space (strided operands)
};

void pack_step(const ir::plan_step& step, const eval_request& r, const call_analysis& a,
               const std::vector<binding>& in_bind, const std::vector<binding>& out_bind,
               const std::vector<binding>& tmp_bind, const strides_t& contiguous, packed_step& p) {
  const ir::graph& g = step.kernel;
  std::uint64_t* slots = p.slots;
  std::size_t& ns = p.ns;
  ns = 0;
  auto put = [&](std::uint64_t v) {
    if (ns == std::size(p.slots)) throw error("jetfuse: kernel argument struct too large");
    slots[ns++] = v;
  };
  auto resolve = [&](const ir::operand_ref& ref) -> const binding& {
    switch (ref.k) {
    case ir::operand_ref::kind::input: return in_bind[static_cast<std::size_t>(ref.index)];
    case ir::operand_ref::kind::output: return out_bind[static_cast<std::size_t>(ref.index)];
    default: return tmp_bind[static_cast<std::size_t>(ref.index)];
    }
  };
  for (const auto& o : step.outputs) put(reinterpret_cast<std::uintptr_t>(resolve(o).ptr));
  for (const auto& i : step.inputs) put(reinterpret_cast<std::uintptr_t>(resolve(i).ptr));
  p.scalars_at = ns;
  for (auto s : step.params) put(r.scalars[s].bits);
  put(static_cast<std::uint64_t>(a.n));
  if (g.ndim == 1 && a.iter.size() != 1) {
    put(static_cast<std::uint64_t>(a.n));
  } else {
    for (int d = 0; d < g.ndim; ++d) put(static_cast<std::uint64_t>(a.iter[d]));
  }
  auto put_strides = [&](const binding& b) {
    const strides_t& s = b.strides ? *b.strides : contiguous;
    if (g.ndim == 1 && a.iter.size() != 1) {
      put(static_cast<std::uint64_t>(s.size() ? s[s.size() - 1] : 0));  // rank-0 iteration space
    } else {
      for (int d = 0; d < g.ndim; ++d) put(static_cast<std::uint64_t>(s[d]));
    }
  };
  for (std::size_t o = 0; o < g.outputs.size(); ++o)
    if (g.outputs[o].desc.lay == ir::layout::strided) put_strides(resolve(step.outputs[o]));
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.inputs[i].lay == ir::layout::strided) put_strides(resolve(step.inputs[i]));
  if (ir::has_unravel_divisors(g))
    for (int d = 1; d < g.ndim; ++d) put(ir::unravel_divisor(a.iter[d]));

  // The iteration space as the kernel sees it (one axis when no operand is strided).
  p.ndim = g.ndim;
  if (g.ndim == 1 && a.iter.size() != 1)
    p.extents[0] = a.n;
  else
    for (int d = 0; d < g.ndim; ++d) p.extents[d] = a.iter[d];
}

void launch_packed(const variant& v, std::size_t s, const packed_step& p) {
  backend::launch_map(v.sources[s], *v.kernels[s], p.slots, p.ns * sizeof(std::uint64_t), p.extents, p.ndim);
}

void evaluate_cuda(const eval_request& r, device dev) {
  backend::require_cuda();
  const shape_t value_shape = broadcast_leaves(r.arrays, r.narrays);
  const shape_t iter = prepare_outputs(r.outputs, r.out_types, r.nout, value_shape, dev);

  call_analysis& a = analysed(r, iter);
  call_analysis::remembered_launch& again = a.launch;
  if (a.from_memo && again.v != nullptr && again.key == a.key) {  // the small call's path
    packed_step& p = *again.step;
    const auto& params = again.v->plan.steps[0].params;
    for (std::size_t i = 0; i < params.size(); ++i) p.slots[p.scalars_at + i] = r.scalars[params[i]].bits;
    return launch_packed(*again.v, 0, p);
  }
  const variant& v = find_or_build(r, a);
  if (a.n == 0) return;

  const strides_t contiguous = contiguous_strides(iter);
  thread_local std::vector<binding> in_bind, out_bind, tmp_bind;
  in_bind.clear();
  out_bind.clear();
  tmp_bind.clear();
  for (std::size_t k = 0; k < a.input_leaf.size(); ++k) {
    const int leaf = a.input_leaf[k];
    in_bind.push_back({detail::address_of(*r.arrays[leaf]), &a.leaf_strides[static_cast<std::size_t>(leaf)]});
  }
  // Outputs that overlap an input elsewhere than element for element go through a temporary.
  std::vector<array_base> staged;
  for (int o = 0; o < r.nout; ++o) {
    if (a.out_staged[o]) {
      staged.push_back(make_array(dev, r.out_types[o], iter));
      bump(counter::temporaries);
      bump(counter::temporary_bytes, static_cast<std::uint64_t>(a.n * size_of(r.out_types[o])));
      out_bind.push_back({detail::address_of(staged.back()), nullptr});
    } else {
      out_bind.push_back({detail::address_of(r.outputs[o]), &a.out_strides[static_cast<std::size_t>(o)]});
    }
  }
  std::vector<array_base> temporaries;
  temporaries.reserve(v.plan.temporaries.size());
  for (dtype t : v.plan.temporaries) {
    temporaries.push_back(make_array(dev, t, iter));
    bump(counter::temporaries);
    bump(counter::temporary_bytes, static_cast<std::uint64_t>(a.n * size_of(t)));
    tmp_bind.push_back({detail::address_of(temporaries.back()), nullptr});
  }
  thread_local packed_step packed;
  for (std::size_t s = 0; s < v.plan.steps.size(); ++s) {
    pack_step(v.plan.steps[s], r, a, in_bind, out_bind, tmp_bind, contiguous, packed);
    launch_packed(v, s, packed);
  }
  // One kernel into the outputs themselves: remembered for the next call with this analysis.
  if (v.plan.steps.size() == 1 && temporaries.empty() && staged.empty()) {
    again.v = &v;
    again.key = a.key;
    if (!again.step) again.step = std::make_unique<packed_step>();
    *again.step = packed;  // all of the slots, as this launch passed them
  }
  // The copies run the engine again (and may take this call's analysis memo entry): collect the targets first.
  std::vector<int> staged_outputs;
  for (int o = 0; o < r.nout; ++o)
    if (a.out_staged[o]) staged_outputs.push_back(o);
  for (std::size_t si = 0; si < staged_outputs.size(); ++si) cuda_strided_copy(r.outputs[staged_outputs[si]], staged[si]);
}

void evaluate_cpu(const eval_request& r, device dev) {
  const shape_t value_shape = broadcast_leaves(r.arrays, r.narrays);
  const shape_t iter = prepare_outputs(r.outputs, r.out_types, r.nout, value_shape, dev);
  call_analysis& a = analysed(r, iter);
  // The CPU runs the IR as lowered over the full iteration space: its rank is part of the key.
  a.key.push_back(-1000 - iter.size());
  const variant& v = find_or_build_variant(*r.slot, a.key, [&](variant& nv) {
    nv.lowered = lower_variant(r, a);
    nv.lowered.set_map_rank(iter.size());
    nv.lowered.vector_width = 1;
    nv.lowered.validate();
  });
  bump(counter::cpu_evaluations, static_cast<std::uint64_t>(r.nout));
  bump(counter::cpu_elements, static_cast<std::uint64_t>(a.n * r.nout));
  if (a.n == 0) return;
  step_bindings b;
  b.extents.assign(iter.begin(), iter.end());
  auto strides_of = [&](const strides_t& s) { return std::vector<std::int64_t>(s.begin(), s.end()); };
  for (std::size_t k = 0; k < a.input_leaf.size(); ++k) {
    const int leaf = a.input_leaf[k];
    b.inputs.push_back({const_cast<void*>(static_cast<const void*>(detail::address_of(*r.arrays[leaf]))),
                        strides_of(a.leaf_strides[static_cast<std::size_t>(leaf)])});
  }
  // Outputs that overlap an input elsewhere than element for element are computed into temporaries.
  std::vector<array_base> staged(static_cast<std::size_t>(r.nout));
  for (int o = 0; o < r.nout; ++o) {
    if (a.out_staged[o]) {
      staged[static_cast<std::size_t>(o)] = make_array(dev, r.out_types[o], iter);
      bump(counter::temporaries);
      bump(counter::temporary_bytes, static_cast<std::uint64_t>(a.n * size_of(r.out_types[o])));
      b.outputs.push_back(
          {detail::address_of(staged[static_cast<std::size_t>(o)]), strides_of(contiguous_strides(iter))});
    } else {
      b.outputs.push_back({detail::address_of(r.outputs[o]), strides_of(a.out_strides[static_cast<std::size_t>(o)])});
    }
  }
  for (int p = 0; p < r.nscalars; ++p) b.params.push_back(r.scalars[p].bits);
  cpu_exec::execute_validated(v.lowered, b);
  // Not `a` from here on: a user function's host callable may have run evaluations on this thread.
  for (int o = 0; o < r.nout; ++o)
    if (!staged[static_cast<std::size_t>(o)].is_null()) assign(r.outputs[o], staged[static_cast<std::size_t>(o)]);
}

// What the CPU executor does with one evaluation (src/cpu/executor.cpp): the IR above, as
// lowered (no pass), over blocks of iterations on the thread pool.
void describe_cpu(std::ostringstream& os, const eval_request& r, const shape_t& iter) {
  const std::int64_t n = iter.product();
  bool flat = true;
  for (int i = 0; i < r.narrays; ++i)
    if (classify(effective_strides(*r.arrays[i], iter), iter) != ir::layout::contiguous) flat = false;
  os << "--- CPU plan: the CPU executor (src/cpu/executor.cpp) runs the IR above as lowered (the optimiser's "
        "passes are for generated kernels), node by node over blocks of iterations, with the scalar functions of "
        "jetfuse/scalar_ops.hpp ---\n";
  os << "operands: " << (flat ? "flat, every operand contiguous" : "strided, some operand strided or broadcast")
     << "\n";
  const int threads = cpu_eval::num_threads();
  os << "threads: up to " << threads << " on the pool (" << n << " element(s))\n";
  if (r.opt.mode == eval_mode::unfused)
    os << "unfused: no effect on the CPU (the values are the same as fused)\n";
  os << "no kernel is generated or compiled on the CPU\n";
}

}  // namespace

void evaluate(const eval_request& r) {
  if (r.program) return evaluate_nest(r);  // with reductions: loop nests, both backends
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  if (dev.kind == device_kind::cuda) evaluate_cuda(r, dev);
  else evaluate_cpu(r, dev);
}

std::string explain(const eval_request& r) {
  const device dev = common_device(r.arrays, r.narrays, r.outputs, r.nout);
  const shape_t value_shape = broadcast_leaves(r.arrays, r.narrays);
  std::vector<array_base> outs = described_outputs(r.outputs, r.out_types, r.nout, value_shape);
  eval_request rr = r;
  rr.outputs = outs.data();
  call_analysis a;
  analyse(rr, value_shape, a);
  std::ostringstream os;
  os << "jetfuse: evaluation of shape " << to_string(value_shape) << " on " << to_string(dev) << "\n";
  ir::graph g = lower_variant(rr, a);
  if (dev.kind == device_kind::cpu && !r.opt.explain_cuda) {
    const std::string ir = g.to_string();  // without its first line: index and vector width are for kernels
    os << "--- IR ---\n" << ir.substr(ir.find('\n') + 1);
    describe_cpu(os, rr, value_shape);
    return os.str();
  }
  os << describe_cuda(g, r.opt);
  return os.str();
}

}  // namespace jf::detail
