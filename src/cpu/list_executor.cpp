// The CPU executor of jf::ir graphs with list domains (root, list, elements, pairs or product:
// docs/design.md "List domains (contract)", "Pairs domains (contract)", "Product domains
// (contract)"), the reference of jagged evaluations. A product domain is run as a pairs domain of
// arity 2 whose slot 1 walks the second offsets (list i: every (j_a, j_b), j_a slowest).
//
// Schedule. The lists are cut into chunks by a rule of the offsets alone (consecutive lists until
// a chunk holds chunk_len elements, chunk_len combinations or chunk_len lists; a chunk holds at
// least one list), which the thread pool shares out. In a chunk every node needed is evaluated
// into a column: one value per list of the chunk (list domain), per element of its lists
// (elements domain, in increasing j), per combination of its lists (pairs domain, Awkward's
// lexicographic order; product domain: Awkward's cartesian order), or one value (the root). A reduction into the root needs every chunk, so the nodes are ordered
// in phases: a node's phase counts the root reductions on its longest path from the inputs; phase
// p runs over all chunks, storing the outputs of phase p and one partial per chunk of each root
// reduction whose operand is of phase p; the partials are then combined in chunk order.
//
// Order of combination (fixed by the offsets alone, whatever the threads): a per-list reduction
// cuts its list at every multiple of chunk_len elements into pieces, each accumulated as the dense
// executor's pieces (its lanes and pairwise blocks, src/cpu/executor.cpp, with f the position in
// the list), and combines the identity with pairwise(pieces); a root reduction does the same per
// chunk (pieces cut at multiples of chunk_len of the chunk's elements or lists), then combines the
// identity with pairwise(chunks' values).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/executor.hpp"
#include "cpu/executor_kernels.hpp"
#include "cpu/list_executor.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/errors.hpp"

namespace jf::cpu_exec {
namespace {

using ir::node_id;
constexpr ir::domain_id root = 0;

bool uniform(const ir::node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }

struct chunk {
  std::int64_t i0 = 0, i1 = 0;  // lists [i0, i1)
  std::int64_t j0 = 0, j1 = 0;  // their elements [j0, j1)
  std::int64_t p0 = 0, p1 = 0;  // their combinations [p0, p1) (pairs domains)
};

// C(m, k): the number of combinations of k of a list's m elements.
std::int64_t combinations_of(std::int64_t m, int k) {
  if (m < k) return 0;
  return k == 2 ? m * (m - 1) / 2 : m * (m - 1) * (m - 2) / 6;
}

// Calls f(j) for every combination j[0] < ... < j[k-1] of [s, s + m) in lexicographic order.
template <class F> void for_each_combination(std::int64_t s, std::int64_t m, int k, F&& f) {
  std::int64_t j[3] = {0, 0, 0};
  if (k == 2) {
    for (j[0] = s; j[0] < s + m; ++j[0])
      for (j[1] = j[0] + 1; j[1] < s + m; ++j[1]) f(j);
  } else {
    for (j[0] = s; j[0] < s + m; ++j[0])
      for (j[1] = j[0] + 1; j[1] < s + m; ++j[1])
        for (j[2] = j[1] + 1; j[2] < s + m; ++j[2]) f(j);
  }
}

struct program {
  program(const ir::graph& graph, const detail::step_bindings& bindings) : g(graph), b(bindings) {}
  const ir::graph& g;
  const detail::step_bindings& b;
  ir::domain_id lists = -1, elements = -1, pairs = -1;
  std::int32_t list_axis = 0, element_axis = 1;
  int arity = 0;                   // pairs: the combinations' size
  bool product = false;            // the pairs domain is a cartesian product (slot 1 walks offb)
  std::int32_t pair_axes[3] = {};  // pairs: the slots' global axes
  // The offsets, int64 on the host: the input itself where it is int64 and contiguous, else a copy
  // in off_store (offb: a product's second lists').
  const std::int64_t* off = nullptr;
  const std::int64_t* offb = nullptr;
  std::vector<std::int64_t> off_store, offb_store;
  std::vector<std::int64_t> poff;  // pairs: combinations (product: pairs) before list i (poff[0] = 0)
  std::vector<chunk> chunks;
  std::vector<int> phase;
  std::vector<char> is_root_reduce;
  // Root values: reductions into the root (combined after their phase), one acc per node.
  std::vector<std::vector<std::byte>> root_value;
  std::vector<std::vector<std::vector<std::byte>>> partial;  // per root reduction, per chunk: its accumulator

  ir::domain_id domain_of(node_id k) const {
    const ir::node& n = g.at(k);
    return uniform(n) ? root : n.domain;
  }
};

// One chunk's columns (a worker's scratch).
struct columns {
  std::vector<std::vector<std::byte>> col;
  std::vector<char> done;
};

std::int64_t length_in(const program& p, const chunk& c, ir::domain_id d) {
  if (d == p.elements) return c.j1 - c.j0;
  if (d == p.lists) return c.i1 - c.i0;
  if (d == p.pairs) return c.p1 - c.p0;
  return 1;
}

std::uint64_t param_bits(const program& p, const ir::node& n) {
  if (n.code == op::param) return p.b.params[static_cast<std::size_t>(n.index)];
  if (n.code == op::extent) {  // only box-like list domains: the number of lists
    const std::int64_t e = p.b.extents[static_cast<std::size_t>(p.list_axis)];
    std::uint64_t v = 0;
    std::memcpy(&v, &e, 8);
    return v;
  }
  std::uint64_t v = 0;
  visit_dtype(n.type, [&](auto t) {
    using T = typename decltype(t)::type;
    const T x = is_floating(n.type) ? static_cast<T>(n.value.f) : static_cast<T>(n.value.i);
    std::memcpy(&v, &x, sizeof(T));
  });
  return v;
}

// Fills n values of elem bytes with one value.
void fill(std::byte* dst, const void* value, std::int64_t n, std::size_t elem) {
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<std::size_t>(i) * elem, value, elem);
}

const std::byte* evaluate(const program& p, const chunk& c, columns& w, node_id k);

// The value of node k as a column of domain d (uniform and root values repeated, list values
// repeated over their elements).
const std::byte* column_in(const program& p, const chunk& c, columns& w, node_id k, ir::domain_id d,
                           std::vector<std::byte>& scratch) {
  const ir::domain_id from = p.domain_of(k);
  const std::byte* v = evaluate(p, c, w, k);
  if (from == d) return v;
  const std::size_t elem = size_of(p.g.at(k).type);
  const std::int64_t n = length_in(p, c, d);
  scratch.resize(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * elem);
  if (from == root) {
    fill(scratch.data(), v, n, elem);
  } else {  // list values over their elements or combinations
    std::size_t at = 0;
    for (std::int64_t i = c.i0; i < c.i1; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const std::int64_t len = d == p.pairs ? p.poff[ii + 1] - p.poff[ii] : p.off[ii + 1] - p.off[ii];
      fill(scratch.data() + at * elem, v + static_cast<std::size_t>(i - c.i0) * elem, len, elem);
      at += static_cast<std::size_t>(len);
    }
  }
  return scratch.data();
}

// Identity combined with pairwise(pieces) (src/cpu/executor.cpp's rule).
void pairwise(const reduce_kernels& rk, const std::vector<std::vector<std::byte>>& pieces, std::size_t lo, std::size_t n,
              std::byte* out) {
  if (n == 1) {
    std::memcpy(out, pieces[lo].data(), rk.acc_bytes);
    return;
  }
  std::size_t h = 1;
  while (2 * h < n) h *= 2;
  std::vector<std::byte> right(rk.acc_bytes);
  pairwise(rk, pieces, lo, h, out);
  pairwise(rk, pieces, lo + h, n - h, right.data());
  rk.combine(out, right.data());
}

// The accumulator of x[0..n) (guard may be null), positions pos0 + i: pieces cut every chunk_len.
void accumulate_range(const reduce_kernels& rk, const std::byte* x, std::size_t elem, const bool* guard, std::int64_t n,
                      std::int64_t pos0, std::byte* acc) {
  rk.identity(acc);
  if (n == 0) return;
  std::vector<std::vector<std::byte>> pieces;
  std::vector<std::byte> state(rk.state_bytes);
  for (std::int64_t f = 0; f < n; f += chunk_len) {
    const std::int64_t len = std::min(chunk_len, n - f);
    rk.begin(state.data());
    rk.accumulate(state.data(), x + static_cast<std::size_t>(f) * elem, guard ? guard + f : nullptr, len, f, pos0 + f);
    pieces.emplace_back(rk.acc_bytes);
    rk.end(state.data(), pieces.back().data());
  }
  std::vector<std::byte> total(rk.acc_bytes);
  pairwise(rk, pieces, 0, pieces.size(), total.data());
  rk.combine(acc, total.data());
}

const std::byte* evaluate(const program& p, const chunk& c, columns& w, node_id k) {
  const auto kk = static_cast<std::size_t>(k);
  if (w.done[kk]) return w.col[kk].data();
  const ir::node& n = p.g.at(k);
  const ir::domain_id d = p.domain_of(k);
  const std::size_t elem = size_of(n.type);
  const std::int64_t len = length_in(p, c, d);
  std::vector<std::byte>& out = w.col[kk];
  out.resize(std::max<std::size_t>(static_cast<std::size_t>(len) * elem, 16));
  switch (n.code) {
  case op::constant: case op::param: case op::extent: {
    const std::uint64_t v = param_bits(p, n);
    std::memcpy(out.data(), &v, elem);
    break;
  }
  case op::input: {
    const detail::operand_binding& ob = p.b.inputs[static_cast<std::size_t>(n.index)];
    const std::int64_t sa = ob.strides[static_cast<std::size_t>(p.list_axis)];
    const std::int64_t sb = ob.strides[static_cast<std::size_t>(p.element_axis)];
    const std::byte* base = static_cast<const std::byte*>(ob.ptr);
    const auto e = static_cast<std::int64_t>(elem);
    if (d == p.pairs) {
      std::int64_t sk[3] = {};
      for (int k = 0; k < p.arity; ++k) sk[k] = ob.strides[static_cast<std::size_t>(p.pair_axes[k])];
      std::size_t at = 0;
      for (std::int64_t i = c.i0; i < c.i1; ++i) {
        const auto ii = static_cast<std::size_t>(i);
        const std::int64_t s0 = p.off[ii];
        if (p.product) {  // Awkward's cartesian order: j_a slowest
          for (std::int64_t ja = s0; ja < p.off[ii + 1]; ++ja)
            for (std::int64_t jb = p.offb[ii]; jb < p.offb[ii + 1]; ++jb)
              std::memcpy(out.data() + at++ * elem, base + (i * sa + ja * sk[0] + jb * sk[1]) * e, elem);
          continue;
        }
        for_each_combination(s0, p.off[ii + 1] - s0, p.arity, [&](const std::int64_t* j) {
          std::int64_t q = i * sa;
          for (int k = 0; k < p.arity; ++k) q += j[k] * sk[k];
          std::memcpy(out.data() + at++ * elem, base + q * e, elem);
        });
      }
    } else if (d == p.elements && sa == 0) {
      gather(out.data(), base + c.j0 * sb * e, sb, len, static_cast<int>(elem));
    } else if (d == p.elements) {
      std::size_t at = 0;
      for (std::int64_t i = c.i0; i < c.i1; ++i)
        for (std::int64_t j = p.off[static_cast<std::size_t>(i)]; j < p.off[static_cast<std::size_t>(i + 1)]; ++j, ++at)
          std::memcpy(out.data() + at * elem, base + (i * sa + j * sb) * e, elem);
    } else if (d == p.lists) {
      gather(out.data(), base + c.i0 * sa * e, sa, len, static_cast<int>(elem));
    } else {
      std::memcpy(out.data(), base, elem);
    }
    break;
  }
  case op::broadcast: {
    std::vector<std::byte> scratch;
    const std::byte* v = column_in(p, c, w, n.args[0], d, scratch);
    std::memcpy(out.data(), v, static_cast<std::size_t>(len) * elem);
    break;
  }
  case op::reduce: {
    if (d == root) {  // combined after its phase
      std::memcpy(out.data(), p.root_value[kk].data(), p.root_value[kk].size());
      break;
    }
    // Per list (d == lists) of an elements- or pairs-domain operand (positions: in the list, or
    // the combination's rank).
    const ir::node& x = p.g.at(n.args[0]);
    const reduce_kernels rk = find_reduce(static_cast<monoid>(n.attr[0]), x.type);
    const ir::domain_id from = p.domain_of(n.args[0]) == p.pairs ? p.pairs : p.elements;
    const std::int64_t* start = from == p.pairs ? p.poff.data() : p.off;
    const std::int64_t first = from == p.pairs ? c.p0 : c.j0;
    if (static_cast<monoid>(n.attr[0]) == monoid::sum && n.nargs == 1 && x.code == op::broadcast &&
        is_integer(x.type) && uniform(p.g.at(x.args[0]))) {
      // A count (the validity of a max, a mean's divisor): an integer sum of one value over each
      // list is the value times the list's length (modulo 2^bits, as the sum's additions), without
      // a column of copies.
      visit_dtype(x.type, [&](auto ti) {
        using T = typename decltype(ti)::type;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          using U = std::make_unsigned_t<T>;
          T v;
          std::memcpy(&v, evaluate(p, c, w, x.args[0]), sizeof(T));
          T* r = reinterpret_cast<T*>(out.data());
          for (std::int64_t i = c.i0; i < c.i1; ++i) {
            const auto ii = static_cast<std::size_t>(i);
            r[i - c.i0] = static_cast<T>(static_cast<U>(v) * static_cast<U>(start[ii + 1] - start[ii]));
          }
        }
      });
      break;
    }
    std::vector<std::byte> s0, s1;
    const std::byte* xv = column_in(p, c, w, n.args[0], from, s0);
    const bool* guard = nullptr;
    if (n.nargs == 2) guard = reinterpret_cast<const bool*>(column_in(p, c, w, n.args[1], from, s1));
    rk.reduce_segments(xv, guard, start + c.i0, first, c.i1 - c.i0, out.data());
    break;
  }
  default: {
    const dtype at = n.code == op::where ? p.g.at(n.args[1]).type : p.g.at(n.args[0]).type;
    const elementwise_fn fn = n.code == op::cast ? find_cast(n.type, at) : find_elementwise(n.code, at);
    std::vector<std::byte> scratch[3];
    const void* args[3] = {};
    for (int a = 0; a < n.nargs; ++a)
      args[a] = column_in(p, c, w, n.args[static_cast<std::size_t>(a)], d, scratch[a]);
    fn(args, out.data(), len);
    break;
  }
  }
  w.done[kk] = 1;
  return out.data();
}

struct phase_job {
  const program* p;
  int phase;
  std::vector<node_id> root_reductions;  // of this phase
  std::vector<std::size_t> outputs;      // list and elements outputs of this phase
  std::vector<std::vector<std::vector<std::byte>>>* partial;
};

void store_output(const program& p, const chunk& c, columns& w, std::size_t o) {
  const ir::output_desc& od = p.g.outputs[o];
  const detail::operand_binding& ob = p.b.outputs[o];
  const ir::domain_id d = od.domain;
  std::vector<std::byte> scratch;
  const std::byte* v = column_in(p, c, w, od.value, d, scratch);
  const std::size_t elem = size_of(od.desc.type);
  const auto e = static_cast<std::int64_t>(elem);
  std::byte* base = static_cast<std::byte*>(ob.ptr);
  const std::int64_t sa = ob.strides[static_cast<std::size_t>(p.list_axis)];
  const std::int64_t sb = ob.strides[static_cast<std::size_t>(p.element_axis)];
  if (d == p.elements && sa == 0) {
    scatter(base + c.j0 * sb * e, sb, v, c.j1 - c.j0, static_cast<int>(elem));
  } else if (d == p.elements) {
    std::size_t at = 0;
    for (std::int64_t i = c.i0; i < c.i1; ++i)
      for (std::int64_t j = p.off[static_cast<std::size_t>(i)]; j < p.off[static_cast<std::size_t>(i + 1)]; ++j, ++at)
        std::memcpy(base + (i * sa + j * sb) * e, v + at * elem, elem);
  } else if (d == p.lists) {
    scatter(base + c.i0 * sa * e, sa, v, c.i1 - c.i0, static_cast<int>(elem));
  } else {
    std::memcpy(base, v, elem);
  }
}

void run_chunks(void* ctx, std::int64_t c0, std::int64_t c1) {
  const phase_job& job = *static_cast<const phase_job*>(ctx);
  const program& p = *job.p;
  columns w;
  for (std::int64_t ci = c0; ci < c1; ++ci) {
    const chunk& c = p.chunks[static_cast<std::size_t>(ci)];
    w.col.resize(p.g.nodes.size());
    w.done.assign(p.g.nodes.size(), 0);
    for (std::size_t r = 0; r < job.root_reductions.size(); ++r) {  // this chunk's partial
      const ir::node& n = p.g.at(job.root_reductions[r]);
      const ir::node& x = p.g.at(n.args[0]);
      const reduce_kernels rk = find_reduce(static_cast<monoid>(n.attr[0]), x.type);
      const ir::domain_id xd = p.domain_of(n.args[0]);
      std::vector<std::byte> s0, s1;
      const std::byte* xv = column_in(p, c, w, n.args[0], xd, s0);
      const bool* guard = n.nargs == 2 ? reinterpret_cast<const bool*>(column_in(p, c, w, n.args[1], xd, s1)) : nullptr;
      const std::int64_t pos0 = xd == p.elements ? c.j0 - p.off[0] : xd == p.pairs ? c.p0 : c.i0;
      auto& acc = (*job.partial)[r][static_cast<std::size_t>(ci)];
      acc.resize(rk.acc_bytes);
      accumulate_range(rk, xv, size_of(x.type), guard, length_in(p, c, xd), pos0, acc.data());
    }
    for (std::size_t o : job.outputs) store_output(p, c, w, o);
  }
}

}  // namespace

bool has_list_domains(const ir::graph& g) {
  for (const ir::domain& d : g.domains)
    if (d.kind == ir::domain_kind::list || d.kind == ir::domain_kind::elements) return true;
  return false;
}

void execute_lists(const ir::graph& g, const detail::step_bindings& b) {
  program p(g, b);
  for (std::size_t d = 1; d < g.domains.size(); ++d) {
    const ir::domain& dm = g.domains[d];
    if (dm.kind == ir::domain_kind::list && p.lists < 0) {
      p.lists = static_cast<ir::domain_id>(d);
      p.list_axis = dm.axes[0];
    } else if (dm.kind == ir::domain_kind::elements && p.elements < 0) {
      p.elements = static_cast<ir::domain_id>(d);
      p.element_axis = dm.axes[0];
    } else if (ir::is_tuple_domain(dm.kind) && p.pairs < 0 && dm.parent == p.lists) {
      p.pairs = static_cast<ir::domain_id>(d);
      p.arity = dm.arity;
      p.product = dm.kind == ir::domain_kind::product;
      for (int k = 0; k < dm.arity; ++k) p.pair_axes[k] = dm.axes[static_cast<std::size_t>(k)];
    } else {
      throw error("jf::cpu_exec: a graph of list domains must hold one list domain under the root, one elements domain "
                  "and at most one pairs or product domain under it");
    }
  }
  if (p.lists < 0 || p.elements < 0 || g.dom(p.elements).parent != p.lists)
    throw error("jf::cpu_exec: a graph of list domains needs an elements domain under its list domain");
  // What a chunk's evaluation supports (checked here: the pool's workers must not throw).
  for (const ir::node& n : g.nodes) {
    if (n.code == op::user || n.code == op::scan || n.code == op::gather || n.code == op::search || n.code == op::put ||
        n.code == op::scatter || n.code == op::index || n.code == op::check_index)
      throw error("jf::cpu_exec: " + std::string(info(n.code).name) + " in a graph of list domains is not supported yet");
    if (n.code == op::reduce) {
      const ir::domain_id from = uniform(g.at(n.args[0])) ? root : g.at(n.args[0]).domain;
      if (!(n.domain == p.lists && (from == p.elements || (from == p.pairs && p.pairs >= 0))) && n.domain != root)
        throw error("jf::cpu_exec: a reduction into D" + std::to_string(n.domain) + " in a graph of list domains");
      find_reduce(static_cast<monoid>(n.attr[0]), g.at(n.args[0]).type);  // throws for an undefined monoid
    } else if (n.code == op::broadcast && p.pairs >= 0 && n.domain == p.pairs && !uniform(g.at(n.args[0])) &&
               g.at(n.args[0]).domain != p.lists && g.at(n.args[0]).domain != p.pairs) {
      throw error("jf::cpu_exec: a broadcast into a pairs domain comes from its list domain (or is uniform)");
    } else if (!uniform(n) && n.code != op::input && n.code != op::broadcast) {
      const dtype at = n.code == op::where ? g.at(n.args[1]).type : g.at(n.args[0]).type;
      if (!(n.code == op::cast ? find_cast(n.type, at) : find_elementwise(n.code, at)))
        throw dtype_error("jf::cpu_exec: " + std::string(info(n.code).name) + " is not defined for " + std::string(name(at)));
    }
  }
  // The offsets on the host, int64 (int32 offsets, Awkward's Index32, are read as given and widened).
  const std::int64_t nl = b.extents[static_cast<std::size_t>(p.list_axis)];
  const auto host_offsets = [&](ir::domain_id d, std::vector<std::int64_t>& out) -> const std::int64_t* {
    const auto k = static_cast<std::size_t>(g.dom(d).source);
    const detail::operand_binding& ob = b.inputs[k];
    const std::int64_t st = ob.strides[static_cast<std::size_t>(p.list_axis)];
    // Read in place when int64 and contiguous, unless an output is written over them (in place, or
    // starting inside them; offsets are immutable once a jf::jagged holds them, as Awkward's).
    const auto* first = static_cast<const std::byte*>(ob.ptr);
    bool overlap = false;
    for (std::size_t o = 0; o < b.outputs.size(); ++o) {
      const auto* q = static_cast<const std::byte*>(b.outputs[o].ptr);
      overlap = overlap || g.outputs[o].same_as_input == static_cast<std::int32_t>(k) ||
                (q >= first && q < first + (nl + 1) * 8);
    }
    if (g.inputs[k].type == dtype::int64 && st == 1 && !overlap) return static_cast<const std::int64_t*>(ob.ptr);
    out.resize(static_cast<std::size_t>(nl + 1));
    if (g.inputs[k].type == dtype::int32) {
      std::vector<std::int32_t> narrow(out.size());
      gather(narrow.data(), ob.ptr, st, nl + 1, 4);
      std::copy(narrow.begin(), narrow.end(), out.begin());
    } else if (g.inputs[k].type == dtype::int64) {
      gather(out.data(), ob.ptr, st, nl + 1, 8);
    } else {
      throw error("jf::cpu_exec: offsets of dtype " + std::string(name(g.inputs[k].type)) + " (int64 or int32 only)");
    }
    return out.data();
  };
  p.off = host_offsets(p.lists, p.off_store);
  for (const ir::output_desc& o : g.outputs)
    if (p.pairs >= 0 && o.domain == p.pairs) throw error("jf::cpu_exec: an output over a pairs or product domain (its tuples are not materialised)");
  // The combinations before each list.
  if (p.product) p.offb = host_offsets(p.pairs, p.offb_store);
  if (p.pairs >= 0) {  // (without a pairs domain every chunk's combinations are [0, 0))
    p.poff.assign(static_cast<std::size_t>(nl + 1), 0);
    for (std::int64_t i = 0; i < nl; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const std::int64_t m = p.off[ii + 1] - p.off[ii];
      p.poff[ii + 1] = p.poff[ii] + (p.product ? m * (p.offb[ii + 1] - p.offb[ii]) : combinations_of(m, p.arity));
    }
  }
  const auto pre = [&](std::int64_t i) { return p.pairs >= 0 ? p.poff[static_cast<std::size_t>(i)] : std::int64_t{0}; };
  // Chunks of lists: a rule of the offsets alone.
  for (std::int64_t i = 0; i < nl;) {
    chunk c;
    c.i0 = i;
    c.j0 = p.off[static_cast<std::size_t>(i)];
    c.p0 = pre(i);
    do ++i;
    while (i < nl && i - c.i0 < chunk_len && p.off[static_cast<std::size_t>(i)] - c.j0 < chunk_len &&
           pre(i) - c.p0 < chunk_len);
    c.i1 = i;
    c.j1 = p.off[static_cast<std::size_t>(i)];
    c.p1 = pre(i);
    p.chunks.push_back(c);
  }
  // Phases.
  const std::size_t nn = g.nodes.size();
  p.phase.assign(nn, 0);
  p.is_root_reduce.assign(nn, 0);
  p.root_value.assign(nn, {});
  int last_phase = 0;
  for (std::size_t k = 0; k < nn; ++k) {
    const ir::node& n = g.nodes[k];
    int ph = 0;
    for (int a = 0; a < n.nargs; ++a) ph = std::max(ph, p.phase[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])]);
    if (n.code == op::reduce && n.domain == root) {
      p.is_root_reduce[k] = 1;
      ++ph;
    }
    p.phase[k] = ph;
    last_phase = std::max(last_phase, ph);
  }
  for (int ph = 0; ph <= last_phase; ++ph) {
    phase_job job{&p, ph, {}, {}, &p.partial};  // NOLINT
    for (std::size_t k = 0; k < nn; ++k)
      if (p.is_root_reduce[k] && p.phase[k] == ph + 1) job.root_reductions.push_back(static_cast<node_id>(k));
    for (std::size_t o = 0; o < g.outputs.size(); ++o)
      if (g.outputs[o].domain != root && p.phase[static_cast<std::size_t>(g.outputs[o].value)] == ph) job.outputs.push_back(o);
    if (job.root_reductions.empty() && job.outputs.empty()) continue;
    p.partial.assign(job.root_reductions.size(), std::vector<std::vector<std::byte>>(p.chunks.size()));
    cpu_eval::parallel_for(static_cast<std::int64_t>(p.chunks.size()), 1, &run_chunks, &job);
    for (std::size_t r = 0; r < job.root_reductions.size(); ++r) {  // identity combined with pairwise(chunks)
      const ir::node& n = g.at(job.root_reductions[r]);
      const reduce_kernels rk = find_reduce(static_cast<monoid>(n.attr[0]), g.at(n.args[0]).type);
      std::vector<std::byte> acc(rk.acc_bytes), total(rk.acc_bytes), value(16);
      rk.identity(acc.data());
      if (!p.chunks.empty()) {
        pairwise(rk, p.partial[r], 0, p.chunks.size(), total.data());
        rk.combine(acc.data(), total.data());
      }
      rk.store(acc.data(), value.data(), 0);
      p.root_value[static_cast<std::size_t>(job.root_reductions[r])] = value;
    }
  }
  // Root outputs: evaluated once, with no list.
  columns w;
  w.col.resize(nn);
  w.done.assign(nn, 0);
  const chunk none{};
  for (std::size_t o = 0; o < g.outputs.size(); ++o)
    if (g.outputs[o].domain == root) store_output(p, none, w, o);
}

}  // namespace jf::cpu_exec
