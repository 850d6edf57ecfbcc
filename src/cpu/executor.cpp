// The CPU executor of jf::ir graphs (map and loop-nest graphs).
//
// Schedule. Values cross domains only through reduce (argument's domain -> an ancestor), scatter
// (index's domain -> a sibling box of counts) and broadcast (source's domain -> another), and all
// are materialised into buffers over the domain (a scan, in its own domain, too: its operand is
// materialised by the group of its level, which then scans that buffer row by row into another)
// of the value (row-major over its chain axes). A node's level counts the buffers on its longest
// path from the inputs; the graph is cut into groups, one per (level, domain) holding sinks: the
// reductions, buffer stores and outputs whose values are at that level in that domain. Groups run
// in order of level (then domain), each over every iteration of its domain, computing the nodes
// its sinks need (nodes of lower levels are recomputed, not stored). A group only reads buffers
// written by groups of lower levels, so every reduction a domain uses is complete before it runs.
// An output that shares memory with an input read by a later group, or that overlaps an input
// without being declared in place, is written to a temporary and copied at the end.
//
// A group runs over the flat (row-major) iterations of its domain in blocks of block_len
// iterations: every node is evaluated for the whole block into a column (typed loops,
// executor_kernels.cpp), contiguous operands are read in place and written directly. Blocks are
// grouped into tiles of chunk_len iterations, which the thread pool shares out.
//
// Order of combination of a reduction (fixed by the extents alone, whatever the threads): the flat
// iterations f of the argument's domain are cut at every multiple of chunk_len and at every
// boundary between results (result r holds f in [r*R, (r+1)*R), R the reduced iterations per
// result) into pieces. Let tree(l) = ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) and, over a sequence
// p0..p(n-1), pairwise(p) = p0 when n = 1, else pairwise(p0..p(h-1)) + pairwise(ph..p(n-1)) with h
// the largest power of two below n (balanced when n is a power of two).
//  - Floating-point sums (pairwise, as numpy's pairwise_sum): a piece is cut further at every
//    multiple of pair_len (128) into blocks; within a block, lane l = f % 8 adds its elements in
//    increasing f to the identity; the piece is pairwise(tree(lanes) of its blocks, in increasing f).
//  - Every other monoid and dtype: lane l = f % 8 accumulates the piece's elements in increasing f
//    from the identity; the piece is tree(lanes).
// A result is the identity combined with pairwise(its pieces in increasing f) (the identity alone
// when R = 0). A float sum's error so grows as log n, not with a lane's ~2048 sequential adds.
// Exception, outer-axis reductions (see outer_rows_apply: every sink of the group a sum, product,
// any, all or integer min/max keeping the same leading axes, at least 64 results and 2 reduced
// iterations each, and the operands contiguous along the innermost kept axis and along no
// reduced one, e.g. a column sum of a C-ordered matrix): a result is the identity combined
// sequentially with its elements in increasing reduced (row-major) index, numpy's order for a
// column sum. The order so depends on the operands' layout as well (as numpy's), never on threads.
#include "cpu/executor.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/host_pool.hpp"
#include "core/index_errors.hpp"
#include "jetfuse/detail/user_functions.hpp"
#include "cpu/executor_kernels.hpp"
#include "cpu/list_executor.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::cpu_exec {
namespace {

using ir::domain_id;
using ir::node_id;

// Where loads read or a store writes: the element of an iteration is at
// base + sum over the domain's chain axes of idx[a] * strides[a].
struct access {
  char* base = nullptr;
  int elem = 8;                       // bytes per element
  std::vector<std::int64_t> strides;  // one per global axis, in elements
  // A generated input (jf::random): element e is computed from (key, first + e), nothing is read.
  ir::generator gen = ir::generator::none;
  ir::bit_generator bits = ir::bit_generator::philox4x64;
  std::uint64_t key[2] = {0, 0}, first = 0, aux = 0;
  // An output an input overlaps: nothing is computed directly into it (its stores come after the
  // block is evaluated, or go through a temporary). Inputs are read in place all the same.
  bool overlaps = false;
};

enum class kind : std::uint8_t { uniform, load, compute, gather, search, index, check };

// n results of numpy.searchsorted (kind::search): element e searches the array at
// base + e * inner elements (TA) for values[e] (C), ops::jf_searchsorted shared with the kernels.
using search_fn = void (*)(const char* base, std::int64_t inner, const void* values, std::int64_t* out, std::int64_t size,
                           std::int64_t stride, std::int64_t n);
template <int Right, class TA, class C>
void search_column(const char* base, std::int64_t inner, const void* values, std::int64_t* out, std::int64_t size,
                   std::int64_t stride, std::int64_t n) {
  const auto* p = reinterpret_cast<const TA*>(base);
  const auto* v = static_cast<const C*>(values);
  for (std::int64_t e = 0; e < n; ++e) out[e] = ops::jf_searchsorted<Right>(p + e * inner, size, stride, v[e]);
}
// The array's dtype TA and the compared dtype C (the promotion of TA and the values' dtype).
template <int Right> search_fn search_for(dtype a, dtype c) {
  return visit_dtype(a, [c]<class TA>(std::type_identity<TA>) {
    return visit_dtype(c, []<class C>(std::type_identity<C>) -> search_fn { return &search_column<Right, TA, C>; });
  });
}
// A gather's rule (kind::gather: its one argument is the position, its access the input, whose
// strides address the axes other than the gathered one).
struct gather_src {
  std::int64_t size = 0, stride = 0;
  ir::gather_mode mode = ir::gather_mode::raise;
  int axis = 0;
  detail::index_error_record* error = nullptr;
  int rank = 0;  // check_index: its rank among one index tuple's checks
};

// Records an out-of-range index at iteration f (of rank `rank` among one tuple's checks: a later
// index array's failures rank after every failure of an earlier one, as numpy checks them); the
// engine raises jf::index_error afterwards. The earliest (rank, iteration) wins, as in the kernels.
void report_index(const gather_src& g, std::int64_t f, std::int64_t value) {
  static std::mutex report;
  std::lock_guard<std::mutex> lock(report);
  const std::uint64_t rank = ~(static_cast<std::uint64_t>(f) + (static_cast<std::uint64_t>(g.rank) << 48));
  if (rank > g.error->rank) *g.error = detail::index_error_record{rank, value, g.size, g.axis, 0};
}

// Position `at` (iteration f) normalised by the mode as the kernels' jf_nest::normalise_index:
// wrap, clip, raise (false after a report: nothing may be read) or unchecked (left as it is).
template <ir::gather_mode Mode> bool normalise_index(std::int64_t& at, const gather_src& g, std::int64_t f) {
  if constexpr (Mode == ir::gather_mode::wrap) {
    at %= g.size;
    if (at < 0) at += g.size;
  } else if constexpr (Mode == ir::gather_mode::clip) {
    at = at < 0 ? 0 : (at >= g.size ? g.size - 1 : at);
  } else if constexpr (Mode == ir::gather_mode::raise) {
    const std::int64_t given = at;
    if (at < 0) at += g.size;
    if (at < 0 || at >= g.size) [[unlikely]] {
      report_index(g, f, given);
      return false;
    }
  }
  return true;
}

// n checked positions (kind::check, numpy's bounds check of one index of a tuple): pos normalised
// into [0, size) by the mode into out; raise reports and gives 0.
template <ir::gather_mode Mode>
void check_elements(const gather_src& g, const std::int64_t* pos, std::int64_t* out, std::int64_t f0, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t at = pos[j];
    out[j] = normalise_index<Mode>(at, g, f0 + j) ? at : 0;
  }
}
void check_column(const gather_src& g, const std::int64_t* pos, std::int64_t* out, std::int64_t f0, std::int64_t n) {
  switch (g.mode) {
  case ir::gather_mode::wrap: return check_elements<ir::gather_mode::wrap>(g, pos, out, f0, n);
  case ir::gather_mode::clip: return check_elements<ir::gather_mode::clip>(g, pos, out, f0, n);
  default: return check_elements<ir::gather_mode::raise>(g, pos, out, f0, n);
  }
}
struct xnode {
  kind k = kind::uniform;
  dtype type = dtype::float64;
  domain_id dom = 0;
  int level = 0;
  std::array<int, 3> args{-1, -1, -1};
  int nargs = 0;
  elementwise_fn fn = nullptr;
  bool cast = false;       // compute: fn is a cast (of its one argument's dtype)
  int acc = -1;            // load: the access read
  std::uint64_t bits = 0;  // uniform: the value in the low bytes
  gather_src src{};        // gather
  const detail::user_function* udf = nullptr;  // compute: a user function (jf::elementwise) instead of fn
  search_fn search = nullptr;                    // search (size and stride in src)
  // index: (f / inner) % extent of the flat iteration f of its domain (extent 0: f itself).
  std::int64_t index_extent = 0, index_inner = 1;
};

// n elements of a gather at positions pos (iterations f0, f0 + 1, ... of its group) into dst;
// element e of the segment reads base + (e * inner + position * stride) elements. The element size
// and the mode are template arguments: a memcpy of a run-time size is a library call per element
// (half the time of a random gather of 2^24 doubles).
template <std::size_t Elem, ir::gather_mode Mode>
void gather_elements(const gather_src& g, const char* base, std::int64_t inner, const std::int64_t* pos, char* dst,
                     std::int64_t f0, std::int64_t n) {
  const auto elem = static_cast<std::int64_t>(Elem);
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t at = pos[j];
    if (!normalise_index<Mode>(at, g, f0 + j)) {  // recorded; the engine raises jf::index_error afterwards
      std::memset(dst + j * elem, 0, Elem);
      continue;
    }
    std::memcpy(dst + j * elem, base + (j * inner + at * g.stride) * elem, Elem);
  }
}
template <std::size_t Elem>
void gather_elements(const gather_src& g, const char* base, std::int64_t inner, const std::int64_t* pos, char* dst,
                     std::int64_t f0, std::int64_t n) {
  switch (g.mode) {
  case ir::gather_mode::wrap: return gather_elements<Elem, ir::gather_mode::wrap>(g, base, inner, pos, dst, f0, n);
  case ir::gather_mode::clip: return gather_elements<Elem, ir::gather_mode::clip>(g, base, inner, pos, dst, f0, n);
  case ir::gather_mode::unchecked:
    return gather_elements<Elem, ir::gather_mode::unchecked>(g, base, inner, pos, dst, f0, n);
  default: return gather_elements<Elem, ir::gather_mode::raise>(g, base, inner, pos, dst, f0, n);
  }
}
void gather_column(const gather_src& g, const char* base, std::int64_t inner, const std::int64_t* pos, char* dst, int elem,
                   std::int64_t f0, std::int64_t n) {
  switch (elem) {
  case 1: return gather_elements<1>(g, base, inner, pos, dst, f0, n);
  case 2: return gather_elements<2>(g, base, inner, pos, dst, f0, n);
  case 4: return gather_elements<4>(g, base, inner, pos, dst, f0, n);
  case 8: return gather_elements<8>(g, base, inner, pos, dst, f0, n);
  default: throw error("jf::cpu_exec: a gather of " + std::to_string(elem) + "-byte elements");
  }
}

struct sink {
  bool reduce = false;
  bool scatter = false;  // into `result` at the position an index names (a histogram's counts)
  bool store = false;    // scatter: the value is stored, not added (compaction; positions distinct)
  int value = -1;
  int guard = -1;
  int index = -1;        // scatter: the int64 position within the results of one parent iteration
  int acc = -1;  // store: the access written
  // reduce: R iterations per result, `results` results into `result` (row-major over its domain).
  reduce_kernels rk{};
  monoid m = monoid::sum;
  // reduce: how many leading chain axes of the group's domain are the result's (its chain is a
  // prefix of the argument's), or npos.
  std::size_t kept = std::string::npos;
  char* result = nullptr;
  std::int64_t per_result = 0, results = 0;
  // The pieces of results that straddle a multiple of chunk_len: per chunk k, the piece of the
  // result that started in chunk k and goes on (last), or that started before k (first).
  // Written by the worker threads (distinct slots), hence mutable.
  mutable std::vector<std::byte> first, last;
  // scatter: `results` = the parent's iterations times `bins`, per_result iterations of the
  // index's domain per parent iteration; every worker sums privately and adds its sums here at
  // the end (integer sums: any order gives the same bits).
  std::int64_t bins = 0;
  std::shared_ptr<std::mutex> merge;
  mutable bool out_of_range = false;
  // put (numpy's scatters into the output `acc`): `index` names the element along the target's
  // scattered axis of `bins` elements `stride` apart. Applied in order of f (numpy's order): its
  // group runs on one thread. check_put: the put's indices checked in the claim domain (its
  // iterations are the claim positions), where mode raise records an index outside [-n, n).
  bool put = false, check_put = false;
  ir::put_rule rule = ir::put_rule::store;
  ir::gather_mode mode = ir::gather_mode::raise;
  int axis = 0;
  std::int64_t stride = 0;
  put_combine_fn combine = nullptr;
  detail::index_error_record* error = nullptr;
};
bool stores(const sink& s) { return !s.reduce && !s.scatter && !s.put && !s.check_put; }

// n values of generated input a at element offsets off, off + stride, ... (the kinds of
// ir::generator, the conversions of scalar_ops.hpp). A block call of either bit generator gives 4
// outputs (8 float32 halves): consecutive positions reuse the last block computed.
void generate(const access& a, char* dst, std::int64_t off, std::int64_t stride, std::int64_t n) {
  std::uint64_t block = ~std::uint64_t(0);
  unsigned long long w[4] = {0, 0, 0, 0};
  const auto block_of = a.bits == ir::bit_generator::philox4x32 ? &ops::jf_philox4x32_block : &ops::jf_philox_block;
  auto output = [&](std::uint64_t q) {
    if (q >> 2 != block) {
      block = q >> 2;
      block_of(a.key[0], a.key[1], block, w);
    }
    return w[q & 3];
  };
  auto put = [&](std::int64_t j, auto v) { std::memcpy(dst + static_cast<std::int64_t>(sizeof v) * j, &v, sizeof v); };
  for (std::int64_t j = 0; j < n; ++j) {
    const auto e = static_cast<std::uint64_t>(off + j * stride);
    switch (a.gen) {
    case ir::generator::philox_f64: put(j, ops::jf_philox_to_f64(output(a.first + e))); break;
    case ir::generator::philox_f32: {
      const std::uint64_t h = ops::jf_philox_position(a.first, a.aux, e);
      const std::uint64_t word = output(h >> 1);
      put(j, ops::jf_philox_to_f32(static_cast<std::uint32_t>((h & 1) ? word >> 32 : word & 0xffffffffu)));
      break;
    }
    case ir::generator::normal_f64: {
      const std::uint64_t q = a.first + (e & ~std::uint64_t(1));  // even: one block holds the pair
      const std::uint64_t u1 = output(q);
      put(j, ops::jf_philox_to_normal_f64(u1, output(q + 1), e & 1));
      break;
    }
    case ir::generator::normal_f32: {
      const std::uint64_t word = output((a.first + e) >> 1);
      put(j, ops::jf_philox_to_normal_f32(static_cast<std::uint32_t>(word & 0xffffffffu), static_cast<std::uint32_t>(word >> 32),
                                          e & 1));
      break;
    }
    case ir::generator::integers: {
      const long long v = ops::jf_philox_to_integer(output(a.first + e), a.aux);
      if (a.elem == 8) put(j, v);
      else put(j, static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long long>(v))));
      break;
    }
    case ir::generator::none: break;
    }
  }
}

// A scan (numpy's accumulate) of the buffer `src` (the operand, materialised over `dom` by this
// group) into the buffer `dst`, run when the group's tiles are done: sequentially along each row,
// out[0] = x[0], out[i] = combine(out[i-1], x[i]) (numpy's order, the reference for the GPU).
struct scan_job {
  int src = -1, dst = -1;  // accesses of buffers over dom (row-major over its chain)
  // src an input laid out as such a buffer, converted a chunk at a time by `convert` (a cast to
  // `type`; null: the input has that dtype) before it is scanned (scan_from_inputs).
  elementwise_fn convert = nullptr;
  int src_elem = 0;
  domain_id dom = 0;
  monoid m = monoid::sum;
  std::int32_t axis = -1;  // a global axis of dom's chain, or -1: the whole chain, flattened
  dtype type = dtype::float64;
};

struct group {
  int level = 0;
  domain_id dom = 0;
  std::vector<sink> sinks;
  std::vector<scan_job> scans;  // after the sinks
  std::vector<int> nodes;   // evaluated per block, in topological order
  std::vector<int> direct;  // per position in nodes: a store sink it may be computed into, or -1
  bool tiles = true;        // false: its only sink went (scan_from_inputs), only its scans run
};

struct plan {
  std::vector<std::int64_t> extents;
  std::vector<std::vector<std::int32_t>> chains;  // chain_axes of every domain
  std::vector<access> accesses;                   // inputs, then outputs, then buffers
  std::vector<xnode> nodes;
  std::vector<detail::host_block> buffers;
  std::map<std::pair<int, domain_id>, group> groups;

  std::int64_t iterations(domain_id d) const {
    std::int64_t n = 1;
    for (std::int32_t a : chains[static_cast<std::size_t>(d)]) {
      if (__builtin_mul_overflow(n, extents[static_cast<std::size_t>(a)], &n))
        throw error("jf::cpu_exec: the iterations of a domain overflow int64");
    }
    return n;
  }
  group& group_at(int level, domain_id d) {
    group& g = groups[{level, d}];
    g.level = level;
    g.dom = d;
    return g;
  }
  // A buffer over domain d (row-major over its chain axes); returns its access.
  int new_buffer(dtype t, domain_id d) {
    const std::int64_t n = iterations(d);
    const std::size_t words = (static_cast<std::size_t>(n) * static_cast<std::size_t>(size_of(t)) + 7) / 8;
    buffers.emplace_back(words * 8);
    access a;
    a.base = static_cast<char*>(buffers.back().p);
    a.elem = size_of(t);
    a.strides.assign(extents.size(), 0);
    std::int64_t s = 1;
    const auto& ch = chains[static_cast<std::size_t>(d)];
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
      a.strides[static_cast<std::size_t>(*it)] = s;
      s *= extents[static_cast<std::size_t>(*it)];
    }
    accesses.push_back(std::move(a));
    return static_cast<int>(accesses.size() - 1);
  }
  int add_node(const xnode& n) {
    nodes.push_back(n);
    return static_cast<int>(nodes.size() - 1);
  }
  int add_load(dtype t, domain_id d, int level, int acc) {
    xnode n;
    n.k = kind::load;
    n.type = t;
    n.dom = d;
    n.level = level;
    n.acc = acc;
    return add_node(n);
  }
};

std::uint64_t bits_of(dtype t, const ir::scalar_value& v) {
  std::uint64_t b = 0;
  visit_dtype(t, [&](auto ti) {
    using T = typename decltype(ti)::type;
    const T x = is_floating(t) ? static_cast<T>(v.f) : static_cast<T>(v.i);
    std::memcpy(&b, &x, sizeof x);
  });
  return b;
}

bool subset(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  for (std::int32_t x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) return false;
  return true;
}

// ---- building the plan --------------------------------------------------------------------------

void check_bindings(const ir::graph& g, const detail::step_bindings& b) {
  const auto nd = static_cast<std::size_t>(g.ndim);
  if (b.extents.size() != nd)
    throw error("jf::cpu_exec: " + std::to_string(b.extents.size()) + " extents for a graph of " +
                std::to_string(g.ndim) + " axes");
  for (std::int64_t e : b.extents)
    if (e < 0) throw error("jf::cpu_exec: negative extent " + std::to_string(e));
  if (b.inputs.size() != g.inputs.size() || b.outputs.size() != g.outputs.size() || b.params.size() != g.params.size())
    throw error("jf::cpu_exec: the bindings do not have the graph's inputs, outputs and params");
  for (const auto* ops : {&b.inputs, &b.outputs})
    for (const detail::operand_binding& o : *ops)
      if (o.strides.size() != nd) throw error("jf::cpu_exec: an operand's strides are not one per global axis");
}

// Buffer of the value of node x (over its domain), shared by every broadcast of it; returns the
// access and adds the store to x's group.
int materialise(plan& p, std::vector<int>& buffer_of, int x) {
  if (buffer_of[static_cast<std::size_t>(x)] >= 0) return buffer_of[static_cast<std::size_t>(x)];
  const xnode& n = p.nodes[static_cast<std::size_t>(x)];
  const int acc = p.new_buffer(n.type, n.dom);
  sink s;
  s.value = x;
  s.acc = acc;
  p.group_at(n.level, n.dom).sinks.push_back(std::move(s));
  buffer_of[static_cast<std::size_t>(x)] = acc;
  return acc;
}

// A uniform's value is the low bytes of its bits, as wide as its dtype: `n` copies of it at c, as
// the loops read it, and the value a loop wrote at c.
template <class F>
void by_width(dtype t, F f) {
  switch (size_of(t)) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    default:
      return f(std::uint64_t{});
  }
}
void fill_uniform(void* c, std::int64_t n, dtype t, std::uint64_t bits) {
  by_width(t, [&](auto u) {
    using U = decltype(u);
    std::fill_n(static_cast<U*>(c), n, static_cast<U>(bits));
  });
}
std::uint64_t uniform_bits(const void* c, dtype t) {
  std::uint64_t bits = 0;
  by_width(t, [&](auto u) {
    decltype(u) v;
    std::memcpy(&v, c, sizeof v);
    bits = v;
  });
  return bits;
}

// An operation of uniform values only (a histogram's bins - 1 from the bins' extent, a product of
// two params) is computed here, once, by the same loop on one element, and becomes uniform itself:
// not a column per block.
void fold_uniform(const plan& p, xnode& x) {
  std::array<std::uint64_t, 3> in{};
  std::array<const void*, 3> a{};
  for (int k = 0; k < x.nargs; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const xnode& v = p.nodes[static_cast<std::size_t>(x.args[i])];
    if (v.k != kind::uniform) return;
    fill_uniform(&in[i], 1, v.type, v.bits);
    a[i] = &in[i];
  }
  std::uint64_t out = 0;
  x.fn(a.data(), &out, 1);
  x = xnode{.type = x.type, .dom = x.dom, .bits = uniform_bits(&out, x.type)};
}

void build(plan& p, const ir::graph& g, const detail::step_bindings& b) {
  const bool map = g.is_map();
  p.extents = b.extents;
  for (std::size_t d = 0; d < g.domains.size(); ++d) {
    const ir::domain& dm = g.domains[d];
    if (dm.kind != ir::domain_kind::root && dm.kind != ir::domain_kind::box)
      throw error("jf::cpu_exec: domain D" + std::to_string(d) +
                  " is a jagged domain (list/elements/pairs/product), which the CPU executor supports with the "
                  "jagged issue, not yet");
    auto ch = g.chain_axes(static_cast<domain_id>(d));
    auto sorted = ch;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw error("jf::cpu_exec: domain D" + std::to_string(d) + " has a global axis twice in its chain");
    p.chains.push_back(std::move(ch));
  }
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    access a;
    a.base = static_cast<char*>(b.inputs[k].ptr);
    a.elem = size_of(g.inputs[k].type);
    a.strides = b.inputs[k].strides;
    a.gen = g.inputs[k].gen;
    a.bits = g.inputs[k].bits;
    if (a.gen != ir::generator::none) {
      const auto q = static_cast<std::size_t>(g.inputs[k].param);
      a.key[0] = b.params[q];
      a.key[1] = b.params[q + 1];
      a.first = b.params[q + 2];
      a.aux = b.params[q + 3];
    }
    p.accesses.push_back(std::move(a));
  }
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    access a;
    a.base = static_cast<char*>(b.outputs[k].ptr);
    a.elem = size_of(g.outputs[k].desc.type);
    a.strides = b.outputs[k].strides;
    p.accesses.push_back(std::move(a));
  }

  std::vector<int> imap(g.nodes.size(), -1);  // graph node -> plan node
  std::vector<int> buffer_of;                 // plan node -> its materialised buffer's access
  auto grow = [&] { buffer_of.resize(p.nodes.size(), -1); };
  auto level_of = [&](int x) { return p.nodes[static_cast<std::size_t>(x)].level; };
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const ir::node& n = g.nodes[k];
    auto arg = [&](int a) { return imap[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])]; };
    xnode x;
    x.type = n.type;
    x.dom = map ? ir::node::map_domain : n.domain;
    switch (n.code) {
      case op::constant:
        x.bits = bits_of(n.type, n.value);
        break;
      case op::param: {
        x.bits = b.params[static_cast<std::size_t>(n.index)];
        if (n.type == dtype::bool_) x.bits = (x.bits & 0xff) != 0;
        break;
      }
      case op::extent: {
        std::int64_t e = 1;
        for (std::int32_t a : g.dom(static_cast<domain_id>(n.attr[0])).axes)
          e *= p.extents[static_cast<std::size_t>(a)];
        x.bits = static_cast<std::uint64_t>(e);
        break;
      }
      case op::input:
        x.k = kind::load;
        x.acc = n.index;
        break;
      case op::reduce: {
        const int v = arg(0), gd = n.nargs == 2 ? arg(1) : -1;
        const domain_id from = g.at(n.args[0]).domain;  // the graph's: v may have become a uniform alias
        int lv = level_of(v);
        if (gd >= 0) lv = std::max(lv, level_of(gd));
        const auto m = static_cast<monoid>(n.attr[0]);
        sink s;
        s.reduce = true;
        s.value = v;
        s.guard = gd;
        s.rk = find_reduce(m, p.nodes[static_cast<std::size_t>(v)].type);
        s.m = m;
        s.results = p.iterations(n.domain);
        s.per_result = 1;
        const auto& outer = p.chains[static_cast<std::size_t>(n.domain)];
        if (const auto& inner = p.chains[static_cast<std::size_t>(from)];
            outer.size() <= inner.size() && std::equal(outer.begin(), outer.end(), inner.begin()))
          s.kept = outer.size();
        for (std::int32_t a : p.chains[static_cast<std::size_t>(from)])
          if (std::find(outer.begin(), outer.end(), a) == outer.end())
            s.per_result *= p.extents[static_cast<std::size_t>(a)];
        const int acc = p.new_buffer(n.type, n.domain);
        s.result = p.accesses[static_cast<std::size_t>(acc)].base;
        p.group_at(lv, from).sinks.push_back(std::move(s));
        x.k = kind::load;
        x.acc = acc;
        x.level = lv + 1;
        break;
      }
      case op::scatter: {
        const int v = arg(0), ix = arg(1), gd = n.nargs == 3 ? arg(2) : -1;
        const domain_id from = g.at(n.args[1]).domain;
        int lv = std::max(level_of(v), level_of(ix));
        if (gd >= 0) lv = std::max(lv, level_of(gd));
        sink s;
        s.scatter = true;
        s.store = ir::stores(n);
        s.value = v;
        s.index = ix;
        s.guard = gd;
        s.bins = p.extents[static_cast<std::size_t>(g.dom(n.domain).axes[0])];
        const domain_id parent = g.dom(n.domain).parent;
        s.results = p.iterations(n.domain);
        s.per_result = p.iterations(from) / std::max<std::int64_t>(1, p.iterations(parent));
        const int acc = p.new_buffer(n.type, n.domain);
        s.result = p.accesses[static_cast<std::size_t>(acc)].base;
        std::memset(s.result, 0, static_cast<std::size_t>(s.results) * static_cast<std::size_t>(size_of(n.type)));
        s.merge = std::make_shared<std::mutex>();
        p.group_at(lv, from).sinks.push_back(std::move(s));
        x.k = kind::load;
        x.acc = acc;
        x.level = lv + 1;
        break;
      }
      case op::put: {
        const domain_id d = n.domain;
        const int v = arg(0);
        int ix = arg(1);
        if (p.nodes[static_cast<std::size_t>(ix)].k != kind::uniform && p.nodes[static_cast<std::size_t>(ix)].dom != d) {
          // The index of an enclosing (claim) domain, read in the put's domain like a broadcast.
          grow();
          const int acc = materialise(p, buffer_of, ix);
          ix = p.add_load(dtype::int64, d, level_of(ix) + 1, acc);
        }
        sink s;
        s.value = v;
        s.index = ix;
        s.rule = ir::rule_of_put(n);
        s.mode = ir::mode_of_put(n);
        s.axis = ir::axis_of_put(n);
        const std::int32_t w = g.dom(ir::target_of_put(n)).axes[0];
        s.bins = p.extents[static_cast<std::size_t>(w)];
        s.per_result = p.iterations(d) / std::max<std::int64_t>(1, p.iterations(ir::claims_of_put(n)));
        for (std::size_t o = 0; o < g.outputs.size(); ++o)
          if (g.outputs[o].value == static_cast<node_id>(k)) s.acc = static_cast<int>(g.inputs.size() + o);
        if (s.acc < 0) throw error("jf::cpu_exec: a put is not the value of an output");
        s.stride = p.accesses[static_cast<std::size_t>(s.acc)].strides[static_cast<std::size_t>(w)];
        if (s.rule != ir::put_rule::store && s.rule != ir::put_rule::store_any) {  // both in order: the last wins
          s.combine = find_put_combine(ir::put_rule_op(s.rule), n.type, g.at(n.args[0]).type);
          if (!s.combine)
            throw dtype_error("jf::cpu_exec: " + std::string(ir::put_rule_name(s.rule)) + " is not defined for " +
                              std::string(name(g.at(n.args[0]).type)));
        }
        s.error = static_cast<detail::index_error_record*>(b.error);
        if (s.mode == ir::gather_mode::raise) {
          if (!s.error) throw error("jf::cpu_exec: a put that raises needs an error record");
          sink c = s;  // every index checked where it is computed, before any group writes
          c.check_put = true;
          c.index = arg(1);
          c.value = arg(1);
          c.per_result = 1;
          p.group_at(level_of(arg(1)), ir::claims_of_put(n)).sinks.push_back(std::move(c));
        }
        s.put = true;
        p.group_at(std::max(level_of(v), level_of(ix)), d).sinks.push_back(std::move(s));
        imap[k] = v;  // written by the sink, not stored as an output
        continue;
      }
      case op::scan: {
        const int v = arg(0);
        grow();
        const int src = materialise(p, buffer_of, v);
        const xnode& vx = p.nodes[static_cast<std::size_t>(v)];
        if (vx.k == kind::uniform || vx.dom != n.domain) throw error("jf::cpu_exec: a scan's operand is not in its domain");
        scan_job job;
        job.src = src;
        job.dst = p.new_buffer(n.type, n.domain);
        job.dom = n.domain;
        job.m = ir::monoid_of_scan(n);
        job.axis = ir::axis_of_scan(n);
        job.type = n.type;
        x.k = kind::load;
        x.acc = job.dst;
        x.level = vx.level + 1;
        p.group_at(vx.level, vx.dom).scans.push_back(job);
        break;
      }
      case op::index: {
        x.k = kind::index;
        if (n.attr[0] >= 0) {
          const auto& chain = p.chains[static_cast<std::size_t>(n.domain)];
          const auto at = std::find(chain.begin(), chain.end(), static_cast<std::int32_t>(n.attr[0]));
          x.index_extent = p.extents[static_cast<std::size_t>(n.attr[0])];
          for (auto it = at + 1; it != chain.end(); ++it) x.index_inner *= p.extents[static_cast<std::size_t>(*it)];
        }
        break;
      }
      case op::gather: {
        if (b.error == nullptr) throw error("jf::cpu_exec: a gather needs an error record in the bindings");
        x.k = kind::gather;
        x.nargs = 1;  // the position; size and stride are uniform
        x.args[0] = arg(0);
        x.level = level_of(arg(0));
        x.acc = n.index;  // inputs are the first accesses
        x.src.size = static_cast<std::int64_t>(p.nodes[static_cast<std::size_t>(arg(1))].bits);
        x.src.stride = static_cast<std::int64_t>(p.nodes[static_cast<std::size_t>(arg(2))].bits);
        x.src.mode = ir::mode_of_gather(n);
        x.src.axis = ir::axis_of_gather(n);
        x.src.error = static_cast<detail::index_error_record*>(b.error);
        break;
      }
      case op::check_index: {
        if (b.error == nullptr) throw error("jf::cpu_exec: an index check needs an error record in the bindings");
        x.k = kind::check;
        x.nargs = 1;  // the position; the size is uniform
        x.args[0] = arg(0);
        x.level = level_of(arg(0));
        x.src.size = static_cast<std::int64_t>(p.nodes[static_cast<std::size_t>(arg(1))].bits);
        x.src.mode = ir::mode_of_gather(n);
        x.src.axis = ir::axis_of_gather(n);
        x.src.rank = ir::rank_of_check(n);
        x.src.error = static_cast<detail::index_error_record*>(b.error);
        break;
      }
      case op::search: {
        x.k = kind::search;
        x.nargs = 1;  // the value; size and stride are uniform
        x.args[0] = arg(0);
        x.level = level_of(arg(0));
        x.acc = n.index;
        x.src.size = static_cast<std::int64_t>(p.nodes[static_cast<std::size_t>(arg(1))].bits);
        x.src.stride = static_cast<std::int64_t>(p.nodes[static_cast<std::size_t>(arg(2))].bits);
        const dtype a = g.inputs[static_cast<std::size_t>(n.index)].type, c = g.at(n.args[0]).type;
        x.search = n.attr[0] ? search_for<1>(a, c) : search_for<0>(a, c);
        break;
      }
      case op::broadcast: {
        const int v = arg(0);
        const xnode& src = p.nodes[static_cast<std::size_t>(v)];
        if (src.k == kind::uniform || src.dom == n.domain) {
          imap[k] = v;  // the value itself
          continue;
        }
        grow();
        x.k = kind::load;
        x.acc = materialise(p, buffer_of, v);
        x.level = src.level + 1;
        break;
      }
      default: {  // cast and the element-wise operations
        x.k = kind::compute;
        x.nargs = n.nargs;
        for (int a = 0; a < n.nargs; ++a) {
          x.args[static_cast<std::size_t>(a)] = arg(a);
          x.level = std::max(x.level, level_of(arg(a)));
        }
        if (n.code == op::user) {
          x.udf = &detail::user_function_at(n.attr[0]);
          break;
        }
        if (n.code == op::cast) {
          x.fn = find_cast(n.type, g.at(n.args[0]).type);
          x.cast = true;
        } else if (n.code == op::where)
          x.fn = find_elementwise(n.code, g.at(n.args[1]).type);
        else
          x.fn = find_elementwise(n.code, g.at(n.args[0]).type);
        if (!x.fn)
          throw dtype_error("jf::cpu_exec: " + std::string(info(n.code).name) + " is not defined for " +
                            std::string(name(g.at(n.args[0]).type)));
        fold_uniform(p, x);
      }
    }
    imap[k] = p.add_node(x);
  }
  grow();
  for (std::size_t o = 0; o < g.outputs.size(); ++o) {
    const ir::output_desc& od = g.outputs[o];
    if (g.at(od.value).code == op::put) continue;  // its sink writes it
    const domain_id to = map ? ir::node::map_domain : od.domain;
    if (to < 0 || static_cast<std::size_t>(to) >= g.domains.size())
      throw error("jf::cpu_exec: output #" + std::to_string(o) + " is stored over no domain D" + std::to_string(to));
    int v = imap[static_cast<std::size_t>(od.value)];
    const xnode n = p.nodes[static_cast<std::size_t>(v)];  // a copy: add_load grows p.nodes
    int level = n.level;
    if (n.k == kind::uniform) {
      level = 0;
    } else if (n.dom != to) {
      if (!subset(p.chains[static_cast<std::size_t>(n.dom)], p.chains[static_cast<std::size_t>(to)]))
        throw error("jf::cpu_exec: output #" + std::to_string(o) + " is stored over D" + std::to_string(to) +
                    ", which lacks axes of its value's domain D" + std::to_string(n.dom));
      const int acc = materialise(p, buffer_of, v);
      v = p.add_load(n.type, to, n.level + 1, acc);
      level = n.level + 1;
      grow();
    }
    sink s;
    s.value = v;
    s.acc = static_cast<int>(g.inputs.size() + o);
    p.group_at(level, to).sinks.push_back(std::move(s));
  }
}

// The nodes a group evaluates: everything its sinks reach through arguments.
void close_group(const plan& p, group& gr) {
  std::vector<char> need(p.nodes.size(), 0);
  for (const sink& s : gr.sinks) {
    need[static_cast<std::size_t>(s.value)] = 1;
    if (s.guard >= 0) need[static_cast<std::size_t>(s.guard)] = 1;
    if (s.index >= 0) need[static_cast<std::size_t>(s.index)] = 1;
  }
  for (std::size_t k = p.nodes.size(); k-- > 0;)
    if (need[k])
      for (int a = 0; a < p.nodes[k].nargs; ++a)
        need[static_cast<std::size_t>(p.nodes[k].args[static_cast<std::size_t>(a)])] = 1;
  gr.nodes.clear();
  for (std::size_t k = 0; k < p.nodes.size(); ++k)
    if (need[k]) gr.nodes.push_back(static_cast<int>(k));
  gr.direct.assign(gr.nodes.size(), -1);
  for (std::size_t i = 0; i < gr.nodes.size(); ++i) {
    if (p.nodes[static_cast<std::size_t>(gr.nodes[i])].k != kind::compute) continue;
    for (std::size_t s = 0; s < gr.sinks.size(); ++s)
      if (stores(gr.sinks[s]) && gr.sinks[s].value == gr.nodes[i] &&
          !p.accesses[static_cast<std::size_t>(gr.sinks[s].acc)].overlaps) {
        gr.direct[i] = static_cast<int>(s);
        break;
      }
  }
}

// [lo, hi) bytes an access reaches over the given axes (empty when an extent is 0).
std::pair<const char*, const char*> range_of(const plan& p, const access& a, const std::vector<char>& axes) {
  std::int64_t lo = 0, hi = 0;
  for (std::size_t ax = 0; ax < axes.size(); ++ax) {
    if (!axes[ax]) continue;
    const std::int64_t e = p.extents[ax];
    if (e == 0) return {nullptr, nullptr};
    const std::int64_t span = (e - 1) * a.strides[ax];
    (span < 0 ? lo : hi) += span;
  }
  return {a.base + lo * a.elem, a.base + (hi + 1) * a.elem};
}

// Whether two accesses address the elements of domain d alike (equal strides on its axes that
// have more than one element).
bool same_layout_over(const plan& p, domain_id d, const access& a, const access& b) {
  for (std::int32_t ax : p.chains[static_cast<std::size_t>(d)])
    if (p.extents[static_cast<std::size_t>(ax)] > 1 &&
        a.strides[static_cast<std::size_t>(ax)] != b.strides[static_cast<std::size_t>(ax)])
      return false;
  return true;
}
// Whether two accesses reach no common byte over all axes.
bool disjoint_accesses(const plan& p, const access& a, const access& b) {
  const std::vector<char> all(p.extents.size(), 1);
  const auto ra = range_of(p, a, all), rb = range_of(p, b, all);
  return ra.first == ra.second || rb.first == rb.second || ra.second <= rb.first || rb.second <= ra.first;
}

// Overlaps between inputs and outputs; outputs that must not be written in their group go
// through a temporary written back by a last group.
void resolve_aliasing(plan& p, const ir::graph& g) {
  const std::size_t ni = g.inputs.size(), no = g.outputs.size(), nd = p.extents.size();
  std::vector<std::vector<char>> axes(ni + no, std::vector<char>(nd, 0));
  for (const xnode& n : p.nodes)
    if ((n.k == kind::load || n.k == kind::gather || n.k == kind::search) && n.acc < static_cast<int>(ni))
      for (std::int32_t a : p.chains[static_cast<std::size_t>(n.dom)])
        axes[static_cast<std::size_t>(n.acc)][static_cast<std::size_t>(a)] = 1;
  // The output sinks, in the order groups run.
  std::vector<std::pair<group*, std::size_t>> where(no, {nullptr, 0});
  std::vector<group*> order;
  for (auto& [key, gr] : p.groups) {
    order.push_back(&gr);
    for (std::size_t s = 0; s < gr.sinks.size(); ++s) {
      const int acc = gr.sinks[s].acc;
      if (stores(gr.sinks[s]) && acc >= static_cast<int>(ni) && acc < static_cast<int>(ni + no)) {
        where[static_cast<std::size_t>(acc) - ni] = {&gr, s};
        for (std::int32_t a : p.chains[static_cast<std::size_t>(gr.dom)])
          axes[static_cast<std::size_t>(acc)][static_cast<std::size_t>(a)] = 1;
      }
    }
  }
  std::vector<std::vector<char>> reads(order.size(), std::vector<char>(ni, 0));  // group -> inputs it reads
  for (std::size_t gi = 0; gi < order.size(); ++gi) {
    close_group(p, *order[gi]);
    for (int id : order[gi]->nodes) {
      const xnode& n = p.nodes[static_cast<std::size_t>(id)];
      if ((n.k == kind::load || n.k == kind::gather || n.k == kind::search) && n.acc < static_cast<int>(ni)) reads[gi][static_cast<std::size_t>(n.acc)] = 1;
    }
  }
  const int last_level = p.groups.empty() ? 0 : p.groups.rbegin()->first.first + 1;
  for (std::size_t o = 0; o < no; ++o) {
    if (!where[o].first) continue;  // a put's target: the engine copies inputs it overlaps first
    access& out = p.accesses[ni + o];
    const auto ro = range_of(p, out, axes[ni + o]);
    if (ro.first == ro.second) continue;
    bool defer = false;
    const std::size_t gi =
        static_cast<std::size_t>(std::find(order.begin(), order.end(), where[o].first) - order.begin());
    for (std::size_t k = 0; k < ni; ++k) {
      if (p.accesses[k].gen != ir::generator::none) continue;  // no memory
      const auto ri = range_of(p, p.accesses[k], axes[k]);
      if (ri.first == ri.second || !(ri.first < ro.second && ro.first < ri.second)) continue;
      out.overlaps = true;
      bool same = static_cast<std::size_t>(g.outputs[o].same_as_input) == k;
      for (std::size_t a = 0; a < nd && same; ++a)
        if (axes[ni + o][a] && p.extents[a] > 1) same = p.accesses[k].strides[a] == out.strides[a];
      // Element for element, an input is read before its element is written in the same block;
      // a later group would read what was already overwritten.
      bool later = false;
      for (std::size_t j = gi + 1; j < order.size(); ++j) later = later || reads[j][k];
      if (!same || later) defer = true;
    }
    if (!defer) continue;
    group& gr = *where[o].first;
    sink& s = gr.sinks[where[o].second];
    const dtype t = p.nodes[static_cast<std::size_t>(s.value)].type;
    const int tmp = p.new_buffer(t, gr.dom);
    s.acc = tmp;
    const int v = p.add_load(t, gr.dom, last_level, tmp);
    sink w;
    w.value = v;
    w.acc = static_cast<int>(ni + o);
    p.group_at(last_level, gr.dom).sinks.push_back(std::move(w));
  }
  for (auto& [key, gr] : p.groups) close_group(p, gr);
}

// A scan whose result an output stores as it is (the only store reading its buffer, same element
// size, the buffer's layout over the scan's domain, no memory shared with any input or other
// output) is scanned straight into that output, and the store goes (a copy of the whole result);
// every other load of the buffer then reads the output, which nothing else writes. cumsum of
// 2^24 int32 on the 2-core machine: 17.8 -> 12.1 ms (bench_cpu, three runs; the loop 5.6).
void scan_into_outputs(plan& p, const ir::graph& g) {
  const int ni = static_cast<int>(g.inputs.size()), no = static_cast<int>(g.outputs.size());
  // The first sink storing buffer `buf` as it is into an output over domain d.
  const auto store_of = [&](int buf, domain_id d) -> std::pair<group*, std::size_t> {
    for (auto& [key, gr] : p.groups)
      for (std::size_t s = 0; s < gr.sinks.size(); ++s) {
        const sink& sk = gr.sinks[s];
        const xnode& v = p.nodes[static_cast<std::size_t>(sk.value)];
        if (gr.dom == d && stores(sk) && v.k == kind::load && v.acc == buf && sk.acc >= ni && sk.acc < ni + no)
          return {&gr, s};
      }
    return {nullptr, 0};
  };
  std::vector<std::pair<int, domain_id>> emptied;
  for (auto& [key, gr] : p.groups)
    for (scan_job& j : gr.scans) {
      const auto [sg, si] = store_of(j.dst, j.dom);
      if (!sg) continue;
      const int o = sg->sinks[si].acc;
      const access& buf = p.accesses[static_cast<std::size_t>(j.dst)];
      const access& out = p.accesses[static_cast<std::size_t>(o)];
      bool fits = out.elem == buf.elem && same_layout_over(p, j.dom, out, buf);
      for (int k = 0; k < ni + no && fits; ++k)
        if (k != o && p.accesses[static_cast<std::size_t>(k)].gen == ir::generator::none)
          fits = disjoint_accesses(p, p.accesses[static_cast<std::size_t>(k)], out);
      if (!fits) continue;
      for (xnode& n : p.nodes)
        if (n.k == kind::load && n.acc == j.dst) n.acc = o;
      j.dst = o;
      sg->sinks.erase(sg->sinks.begin() + static_cast<std::ptrdiff_t>(si));
      if (sg->sinks.empty() && sg->scans.empty()) emptied.push_back({sg->level, sg->dom});
    }
  for (const auto& key : emptied) p.groups.erase(key);
}

// A scan whose operand is an input, as it is or cast (cumsum of int32 into int64), reads the input
// itself where the input is laid out as the operand's buffer would be (row-major over the scan's
// domain) and the scanned rows are contiguous: a cast converts a chunk of a row at a time into the
// scan, and the materialised operand (a pass writing it, one reading it) goes. The input shares no
// memory with any output: the scan reads it after its group's blocks, whose stores it must not
// see. cumsum of 2^24 int32 on the 2-core machine: see docs/benchmarks.md's CPU table.
void scan_from_inputs(plan& p, const ir::graph& g) {
  const int ni = static_cast<int>(g.inputs.size()), no = static_cast<int>(g.outputs.size());
  for (auto& [key, gr] : p.groups)
    for (scan_job& j : gr.scans) {
      if (j.convert || j.src < ni) continue;
      const auto& chain = p.chains[static_cast<std::size_t>(j.dom)];
      if (j.axis >= 0 && (chain.empty() || chain.back() != j.axis)) continue;  // rows elements apart
      std::size_t si = gr.sinks.size();
      for (std::size_t s = 0; s < gr.sinks.size(); ++s)
        if (stores(gr.sinks[s]) && gr.sinks[s].acc == j.src) si = s;
      if (si == gr.sinks.size()) continue;
      const xnode& v = p.nodes[static_cast<std::size_t>(gr.sinks[si].value)];
      const xnode* load = &v;
      if (v.k == kind::compute && v.cast && v.nargs == 1) load = &p.nodes[static_cast<std::size_t>(v.args[0])];
      if (load->k != kind::load || load->acc < 0 || load->acc >= ni || load->dom != j.dom) continue;
      const access& in = p.accesses[static_cast<std::size_t>(load->acc)];
      const access& buf = p.accesses[static_cast<std::size_t>(j.src)];
      if (in.gen != ir::generator::none || !in.base) continue;
      bool fits = same_layout_over(p, j.dom, in, buf);
      for (const xnode& n : p.nodes) fits = fits && !(n.k == kind::load && n.acc == j.src);  // read elsewhere
      for (int o = ni; o < ni + no && fits; ++o)
        fits = disjoint_accesses(p, in, p.accesses[static_cast<std::size_t>(o)]);
      if (!fits) continue;
      j.src = load->acc;
      j.src_elem = in.elem;
      if (&v != load) j.convert = v.fn;
      gr.sinks.erase(gr.sinks.begin() + static_cast<std::ptrdiff_t>(si));
      if (gr.sinks.empty()) gr.tiles = false;
    }
}

// ---- running a group ----------------------------------------------------------------------------

// The iterations of a group's domain with axes of extent 1 dropped and axes merged where every
// access steps evenly across them; local access numbers index `accs`.
struct shape {
  std::int64_t n = 0;
  std::vector<std::int64_t> ext;  // outer to inner, at least one axis
  std::vector<int> accs;          // plan accesses used
  std::vector<std::int64_t> str;  // str[local * q + j]
  std::vector<int> local;         // per plan access: local number or -1
  std::size_t q() const { return ext.size(); }
};

// The group's iterations in the order of `order` (its domain's chain axes, permuted).
shape shape_of(const plan& p, const group& gr, const std::vector<std::int32_t>& order) {
  shape sh;
  sh.local.assign(p.accesses.size(), -1);
  auto use = [&](int acc) {
    if (sh.local[static_cast<std::size_t>(acc)] < 0) {
      sh.local[static_cast<std::size_t>(acc)] = static_cast<int>(sh.accs.size());
      sh.accs.push_back(acc);
    }
  };
  for (int id : gr.nodes)
    if (const kind k = p.nodes[static_cast<std::size_t>(id)].k; k == kind::load || k == kind::gather || k == kind::search)
      use(p.nodes[static_cast<std::size_t>(id)].acc);
  for (const sink& s : gr.sinks)
    if (stores(s) || s.put) use(s.acc);
  const std::size_t na = sh.accs.size();
  std::vector<std::int64_t> ext;
  std::vector<std::vector<std::int64_t>> str(na);
  sh.n = p.iterations(gr.dom);
  for (std::int32_t a : order) {
    const std::int64_t e = p.extents[static_cast<std::size_t>(a)];
    if (e == 1) continue;
    bool merge = !ext.empty();
    for (std::size_t l = 0; l < na && merge; ++l)
      merge =
          str[l].back() == p.accesses[static_cast<std::size_t>(sh.accs[l])].strides[static_cast<std::size_t>(a)] * e;
    if (merge) {
      ext.back() *= e;
      for (std::size_t l = 0; l < na; ++l)
        str[l].back() = p.accesses[static_cast<std::size_t>(sh.accs[l])].strides[static_cast<std::size_t>(a)];
    } else {
      ext.push_back(e);
      for (std::size_t l = 0; l < na; ++l)
        str[l].push_back(p.accesses[static_cast<std::size_t>(sh.accs[l])].strides[static_cast<std::size_t>(a)]);
    }
  }
  if (ext.empty()) {
    ext.push_back(1);
    for (auto& s : str) s.push_back(0);
  }
  sh.ext = ext;
  sh.str.resize(na * ext.size());
  for (std::size_t l = 0; l < na; ++l)
    std::copy(str[l].begin(), str[l].end(), sh.str.begin() + static_cast<std::ptrdiff_t>(l * ext.size()));
  return sh;
}

// One thread's state while it runs tiles of a group.
struct worker {
  const plan& p;
  const group& gr;
  const shape& sh;
  // One column of block_len 8-byte slots per node position, from the host pool and never zeroed
  // (each column is written before it is read): a zeroed vector per worker was a memset of a
  // column per node on every call, half of a small call's 4.8 us.
  detail::host_block scratch;
  std::vector<const void*> col;                         // per node position: this block's values
  std::vector<int> pos_of;                              // plan node -> position in gr.nodes
  std::vector<std::int64_t> seg_pos, seg_len, seg_off;  // this block's runs along the inner axis
  std::vector<char> done;                               // per sink: computed directly into its memory this block
  struct piece_state {
    bool open = false;
    std::int64_t r = 0, k = 0, start = 0, end = 0;
    std::vector<std::byte> state, piece, acc;
  };
  std::vector<piece_state> pieces;  // per sink
  std::vector<std::vector<std::uint64_t>> counts;  // per scatter sink: this worker's sums (wrapping)
  bool oob = false;
  // A put's group runs twice where something may raise: first checking (gathers and indices report,
  // nothing is written), then writing, unless a failure was recorded.
  bool checking = false;

  worker(const plan& pl, const group& g, const shape& s)
      : p(pl), gr(g), sh(s), scratch(std::max<std::size_t>(1, g.nodes.size()) * static_cast<std::size_t>(block_len) * 8) {
    const std::size_t nn = gr.nodes.size();
    col.assign(nn, nullptr);
    pos_of.assign(p.nodes.size(), -1);
    for (std::size_t i = 0; i < nn; ++i) {
      pos_of[static_cast<std::size_t>(gr.nodes[i])] = static_cast<int>(i);
      const xnode& n = p.nodes[static_cast<std::size_t>(gr.nodes[i])];
      if (n.k != kind::uniform) continue;
      // A uniform value's column is filled once and never changes; blocks are never longer than
      // the group's iterations (a small call fills a few slots, not block_len).
      char* c = column(i);
      const std::int64_t len = std::clamp<std::int64_t>(sh.n, 1, block_len);
      fill_uniform(c, len, n.type, n.bits);
      col[i] = c;
    }
    done.assign(gr.sinks.size(), 0);
    pieces.resize(gr.sinks.size());
    counts.resize(gr.sinks.size());
    for (std::size_t s = 0; s < gr.sinks.size(); ++s)
      if (gr.sinks[s].reduce) {
        const reduce_kernels& rk = gr.sinks[s].rk;
        pieces[s].state.resize(rk.state_bytes);
        pieces[s].piece.resize(rk.acc_bytes);
        pieces[s].acc.resize(rk.acc_bytes);
      }
  }
  char* column(std::size_t i) {
    return static_cast<char*>(scratch.p) + i * static_cast<std::size_t>(block_len) * 8;
  }

  void segments(std::int64_t f0, std::int64_t len) {
    const std::size_t q = sh.q(), na = sh.accs.size();
    std::int64_t idx[64];
    std::int64_t rest = f0;
    for (std::size_t j = q; j-- > 0;) {
      idx[j] = rest % sh.ext[j];
      rest /= sh.ext[j];
    }
    seg_pos.clear();
    seg_len.clear();
    seg_off.clear();
    for (std::int64_t pos = 0; pos < len;) {
      const std::int64_t n = std::min(len - pos, sh.ext[q - 1] - idx[q - 1]);
      seg_pos.push_back(pos);
      seg_len.push_back(n);
      for (std::size_t l = 0; l < na; ++l) {
        std::int64_t off = 0;
        for (std::size_t j = 0; j < q; ++j) off += idx[j] * sh.str[l * q + j];
        seg_off.push_back(off);
      }
      pos += n;
      idx[q - 1] += n;
      for (std::size_t j = q - 1; j > 0 && idx[j] == sh.ext[j]; --j) {
        idx[j] = 0;
        ++idx[j - 1];
      }
    }
  }
  std::int64_t inner_stride(int local) const { return sh.str[static_cast<std::size_t>(local) * sh.q() + sh.q() - 1]; }
  // Where access `local` has the block's elements contiguously, or null.
  char* in_place(int acc, int local) const {
    if (seg_len.size() != 1 || inner_stride(local) != 1) return nullptr;
    const access& a = p.accesses[static_cast<std::size_t>(acc)];
    return a.base + seg_off[static_cast<std::size_t>(local)] * a.elem;
  }

  // Every node of the group over iterations f0 .. f0 + len - 1 into col.
  void evaluate(std::int64_t f0, std::int64_t len) {
    segments(f0, len);
    const std::size_t na = sh.accs.size();
    std::fill(done.begin(), done.end(), 0);
    for (std::size_t i = 0; i < gr.nodes.size(); ++i) {
      const xnode& n = p.nodes[static_cast<std::size_t>(gr.nodes[i])];
      if (n.k == kind::load) {
        const access& a = p.accesses[static_cast<std::size_t>(n.acc)];
        const int local = sh.local[static_cast<std::size_t>(n.acc)];
        if (a.gen != ir::generator::none) {  // computed at the elements' positions
          char* c = column(i);
          for (std::size_t s = 0; s < seg_len.size(); ++s)
            generate(a, c + seg_pos[s] * a.elem, seg_off[s * na + static_cast<std::size_t>(local)], inner_stride(local),
                     seg_len[s]);
          col[i] = c;
          continue;
        }
        // Read in place even when an output overlaps it: such an output is either the same
        // elements (written by this block's stores, after every node of the block is evaluated,
        // and by no other block) or deferred to a temporary (copied back after the last group).
        const char* direct = in_place(n.acc, local);
        if (direct) {
          col[i] = direct;
          continue;
        }
        char* c = column(i);
        for (std::size_t s = 0; s < seg_len.size(); ++s)
          gather(c + seg_pos[s] * a.elem, a.base + seg_off[s * na + static_cast<std::size_t>(local)] * a.elem,
                 inner_stride(local), seg_len[s], a.elem);
        col[i] = c;
      } else if (n.k == kind::search) {
        const access& a = p.accesses[static_cast<std::size_t>(n.acc)];
        const int local = sh.local[static_cast<std::size_t>(n.acc)];
        const void* v = col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(n.args[0])])];
        char* c = column(i);
        const int ve = size_of(p.nodes[static_cast<std::size_t>(n.args[0])].type);
        for (std::size_t s = 0; s < seg_len.size(); ++s)
          n.search(a.base + seg_off[s * na + static_cast<std::size_t>(local)] * a.elem, inner_stride(local),
                   static_cast<const char*>(v) + seg_pos[s] * ve, reinterpret_cast<std::int64_t*>(c) + seg_pos[s], n.src.size,
                   n.src.stride, seg_len[s]);
        col[i] = c;
      } else if (n.k == kind::index) {  // from the block's flat iterations f0, f0 + 1, ...
        auto* c = reinterpret_cast<std::int64_t*>(column(i));
        for (std::int64_t j = 0; j < len; ++j)
          c[j] = n.index_extent ? (f0 + j) / n.index_inner % n.index_extent : f0 + j;
        col[i] = c;
      } else if (n.k == kind::check) {
        const auto* pos = static_cast<const std::int64_t*>(
            col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(n.args[0])])]);
        auto* c = reinterpret_cast<std::int64_t*>(column(i));
        for (std::size_t s = 0; s < seg_len.size(); ++s)
          check_column(n.src, pos + seg_pos[s], c + seg_pos[s], f0 + seg_pos[s], seg_len[s]);
        col[i] = c;
      } else if (n.k == kind::gather) {
        const access& a = p.accesses[static_cast<std::size_t>(n.acc)];
        const int local = sh.local[static_cast<std::size_t>(n.acc)];
        const auto* pos = static_cast<const std::int64_t*>(col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(n.args[0])])]);
        char* c = column(i);
        for (std::size_t s = 0; s < seg_len.size(); ++s)
          gather_column(n.src, a.base + seg_off[s * na + static_cast<std::size_t>(local)] * a.elem, inner_stride(local),
                        pos + seg_pos[s], c + seg_pos[s] * a.elem, a.elem, f0 + seg_pos[s], seg_len[s]);
        col[i] = c;
      } else if (n.k == kind::compute) {
        void* out = column(i);
        if (const int d = gr.direct[i]; d >= 0) {
          const int acc = gr.sinks[static_cast<std::size_t>(d)].acc;
          if (char* m = in_place(acc, sh.local[static_cast<std::size_t>(acc)])) {
            out = m;
            done[static_cast<std::size_t>(d)] = 1;
          }
        }
        const void* args[3] = {};
        for (int a = 0; a < n.nargs; ++a)
          args[a] =
              col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])])];
        if (n.udf) n.udf->cpu(args, out, len);
        else n.fn(args, out, len);
        col[i] = out;
      }
    }
  }

  void block(std::int64_t f0, std::int64_t len) {
    evaluate(f0, len);
    const std::size_t na = sh.accs.size();
    for (std::size_t s = 0; s < gr.sinks.size(); ++s) {
      const sink& sk = gr.sinks[s];
      const void* v = col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(sk.value)])];
      if (sk.reduce) {
        const bool* guard =
            sk.guard >= 0
                ? static_cast<const bool*>(col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(sk.guard)])])
                : nullptr;
        reduce(s, static_cast<const char*>(v), guard, f0, len);
      } else if (sk.scatter) {
        const bool* guard =
            sk.guard >= 0
                ? static_cast<const bool*>(col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(sk.guard)])])
                : nullptr;
        const auto* index =
            static_cast<const std::int64_t*>(col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(sk.index)])]);
        if (sk.store) scatter_store(s, static_cast<const char*>(v), index, guard, f0, len);
        else scatter_add(s, static_cast<const char*>(v), index, guard, f0, len);
      } else if (sk.put || sk.check_put) {
        const auto* index =
            static_cast<const std::int64_t*>(col[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(sk.index)])]);
        if (sk.check_put) check_put(s, index, f0, len);
        else if (!checking) put(s, static_cast<const char*>(v), index);
      } else if (!done[s]) {
        const access& a = p.accesses[static_cast<std::size_t>(sk.acc)];
        const int local = sh.local[static_cast<std::size_t>(sk.acc)];
        for (std::size_t g = 0; g < seg_len.size(); ++g)
          scatter(a.base + seg_off[g * na + static_cast<std::size_t>(local)] * a.elem, inner_stride(local),
                  static_cast<const char*>(v) + seg_pos[g] * a.elem, seg_len[g], a.elem);
      }
    }
  }

  // Check sink s: an index outside [-n, n) is recorded (the earliest claim position kept).
  void check_put(std::size_t s, const std::int64_t* index, std::int64_t f0, std::int64_t len) const {
    const sink& sk = gr.sinks[s];
    for (std::int64_t j = 0; j < len; ++j) {
      const std::int64_t at = index[j] < 0 ? index[j] + sk.bins : index[j];
      if (at >= 0 && at < sk.bins) continue;
      static std::mutex report;
      std::lock_guard<std::mutex> lock(report);
      const std::uint64_t rank = ~static_cast<std::uint64_t>(f0 + j);
      if (rank > sk.error->rank) *sk.error = detail::index_error_record{rank, index[j], sk.bins, sk.axis, 0};
    }
  }
  // Put sink s: every iteration's value written or combined into the target, in order.
  void put(std::size_t s, const char* v, const std::int64_t* index) const {
    const sink& sk = gr.sinks[s];
    const access& a = p.accesses[static_cast<std::size_t>(sk.acc)];
    const int local = sh.local[static_cast<std::size_t>(sk.acc)];
    const std::size_t na = sh.accs.size();
    const std::int64_t size = sk.bins, inner = inner_stride(local);
    const int ve = size_of(p.nodes[static_cast<std::size_t>(sk.value)].type);
    for (std::size_t g = 0; g < seg_len.size(); ++g) {
      const std::int64_t base = seg_off[g * na + static_cast<std::size_t>(local)];
      for (std::int64_t j = seg_pos[g]; j < seg_pos[g] + seg_len[g]; ++j) {
        std::int64_t at = index[j];
        if (sk.mode == ir::gather_mode::wrap && size > 0) {
          at %= size;
          if (at < 0) at += size;
        } else if (sk.mode == ir::gather_mode::clip && size > 0) {
          at = at < 0 ? 0 : (at >= size ? size - 1 : at);
        } else if (at < 0) {
          at += size;
        }
        if (at < 0 || at >= size) continue;  // checked before (raise) or an empty axis (the engine refuses it)
        char* dst = a.base + (base + (j - seg_pos[g]) * inner + at * sk.stride) * a.elem;
        if (sk.combine) sk.combine(dst, v + j * ve);
        else std::memcpy(dst, v + j * ve, static_cast<std::size_t>(a.elem));
      }
    }
  }

  // Adds the block's values of scatter sink s to this worker's counts (see merge_counts).
  void scatter_add(std::size_t s, const char* v, const std::int64_t* index, const bool* guard, std::int64_t f0,
                   std::int64_t len) {
    const sink& sk = gr.sinks[s];
    std::vector<std::uint64_t>& c = counts[s];
    if (c.empty()) c.assign(static_cast<std::size_t>(sk.results), 0);
    if (size_of(p.nodes[static_cast<std::size_t>(sk.value)].type) == 8)
      add_counts(c.data(), reinterpret_cast<const std::int64_t*>(v), index, guard, f0, len, sk.per_result, sk.bins);
    else
      add_counts(c.data(), reinterpret_cast<const std::int32_t*>(v), index, guard, f0, len, sk.per_result, sk.bins);
  }
  // counts[parent of f0 + j][index[j]] += v[j]: the parent iteration followed along the block (a
  // division per element was most of a histogram's time here).
  template <class V>
  void add_counts(std::uint64_t* counts_of, const V* v, const std::int64_t* index, const bool* guard, std::int64_t f0,
                  std::int64_t len, std::int64_t per_result, std::int64_t bins) {
    std::int64_t next = (f0 / per_result + 1) * per_result;
    std::uint64_t* c = counts_of + f0 / per_result * bins;
    for (std::int64_t j = 0; j < len; ++j) {
      if (f0 + j == next) {
        next += per_result;
        c += bins;
      }
      if (guard && !guard[j]) continue;
      const std::int64_t i = index[j];
      if (i < 0 || i >= bins) {  // the lowering's indices are in range by construction
        oob = true;
        continue;
      }
      c[i] += static_cast<std::uint64_t>(static_cast<std::int64_t>(v[j]));
    }
  }
  // Stores the block's selected values of scatter sink s at their positions (distinct: no race).
  void scatter_store(std::size_t s, const char* v, const std::int64_t* index, const bool* guard, std::int64_t f0,
                     std::int64_t len) {
    const sink& sk = gr.sinks[s];
    const std::size_t e = static_cast<std::size_t>(size_of(p.nodes[static_cast<std::size_t>(sk.value)].type));
    for (std::int64_t j = 0; j < len; ++j) {
      if (guard && !guard[j]) continue;
      const std::int64_t i = index[j];
      if (i < 0 || i >= sk.bins) {  // positions are an exclusive count of the selected: in range
        oob = true;
        continue;
      }
      std::memcpy(sk.result + static_cast<std::size_t>((f0 + j) / sk.per_result * sk.bins + i) * e,
                  v + static_cast<std::size_t>(j) * e, e);
    }
  }
  // Adds this worker's counts into the scatter sinks' results.
  void merge_counts() {
    for (std::size_t s = 0; s < gr.sinks.size(); ++s) {
      const sink& sk = gr.sinks[s];
      if (!sk.scatter) continue;
      std::lock_guard<std::mutex> lock(*sk.merge);
      if (oob) sk.out_of_range = true;
      if (sk.store) continue;
      const std::vector<std::uint64_t>& c = counts[s];
      const bool wide = size_of(p.nodes[static_cast<std::size_t>(sk.value)].type) == 8;
      for (std::size_t k = 0; k < c.size(); ++k) {
        if (wide) {
          std::uint64_t r;
          std::memcpy(&r, sk.result + 8 * k, 8);
          r += c[k];
          std::memcpy(sk.result + 8 * k, &r, 8);
        } else {
          std::uint32_t r;
          std::memcpy(&r, sk.result + 4 * k, 4);
          r += static_cast<std::uint32_t>(c[k]);
          std::memcpy(sk.result + 4 * k, &r, 4);
        }
      }
    }
  }

  // Adds the block's values of reduce sink s to its pieces (see the top of the file).
  void reduce(std::size_t s, const char* x, const bool* guard, std::int64_t f0, std::int64_t len) {
    const sink& sk = gr.sinks[s];
    piece_state& ps = pieces[s];
    const std::int64_t R = sk.per_result, xe = size_of(p.nodes[static_cast<std::size_t>(sk.value)].type);
    for (std::int64_t i = 0, f = f0; i < len;) {
      if (!ps.open) {
        ps.open = true;
        ps.r = f / R;
        ps.k = f / chunk_len;
        ps.start = f;
        ps.end = std::min((ps.r + 1) * R, (ps.k + 1) * chunk_len);
        sk.rk.begin(ps.state.data());
      }
      const std::int64_t n = std::min(len - i, ps.end - f);
      sk.rk.accumulate(ps.state.data(), x + i * xe, guard ? guard + i : nullptr, n, f, f - ps.r * R);
      f += n;
      i += n;
      if (f != ps.end) continue;
      ps.open = false;
      const std::int64_t r0 = ps.r * R;
      if (ps.start == r0 && ps.end == r0 + R) {
        sk.rk.end(ps.state.data(), ps.piece.data());
        sk.rk.identity(ps.acc.data());
        sk.rk.combine(ps.acc.data(), ps.piece.data());
        sk.rk.store(ps.acc.data(), sk.result, ps.r);
      } else {
        auto& slots = ps.k == r0 / chunk_len ? sk.last : sk.first;
        // Distinct tiles write distinct slots (a slot belongs to one chunk).
        sk.rk.end(ps.state.data(), slots.data() + static_cast<std::size_t>(ps.k) * sk.rk.acc_bytes);
      }
    }
  }
};

struct group_job {
  const plan* p;
  const group* gr;
  const shape* sh;
  bool checking = false;
  std::int64_t row = 0;  // blocks end at multiples of it too (0: no rows)
};

// Where a group only stores and its innermost axis is long but no multiple of block_len (strided
// rows, as the slices of a stencil give), its blocks also end at the rows' ends: a block within
// one row has each contiguous operand in place, one that straddles two is copied into columns
// first. The diffusion step (2000 x 2000 float32 with slices, 1998 x 1998 iterations) on the
// 2-core machine: 2.53 -> 2.13-2.19 ms (bench_cpu, three runs; the loop 1.37-1.59). Reductions
// keep their blocks: the pieces of their order of combination are cut at fixed multiples.
std::int64_t block_row(const group& gr, const shape& sh) {
  if (sh.q() == 0 || !std::all_of(gr.sinks.begin(), gr.sinks.end(), stores)) return 0;
  const std::int64_t inner = sh.ext[sh.q() - 1];
  return inner >= block_len / 4 && inner % block_len != 0 && inner < sh.n ? inner : 0;
}

void run_tiles(void* ctx, std::int64_t t0, std::int64_t t1) {
  const group_job& j = *static_cast<const group_job*>(ctx);
  worker w(*j.p, *j.gr, *j.sh);
  w.checking = j.checking;
  for (std::int64_t t = t0; t < t1; ++t) {
    const std::int64_t end = std::min(j.sh->n, (t + 1) * chunk_len);
    for (std::int64_t f = t * chunk_len; f < end;) {
      std::int64_t n = std::min(block_len, end - f);
      if (j.row > 0) n = std::min(n, j.row - f % j.row);
      w.block(f, n);
      f += n;
    }
  }
  w.merge_counts();
}

// piece(lo) .. piece(lo + n - 1) combined pairwise (see the top of the file) into out.
template <class P>
void combine_pairwise(const reduce_kernels& rk, std::int64_t lo, std::int64_t n, const P& piece, std::byte* out) {
  if (n == 1) {
    std::memcpy(out, piece(lo), rk.acc_bytes);
    return;
  }
  std::int64_t h = 1;  // the largest power of two below n
  while (2 * h < n) h *= 2;
  std::vector<std::byte> right(rk.acc_bytes);
  combine_pairwise(rk, lo, h, piece, out);
  combine_pairwise(rk, lo + h, n - h, piece, right.data());
  rk.combine(out, right.data());
}

// The results of sink s that straddle chunk boundaries, and those of empty reductions.
void finish_reduce(sink& s, std::int64_t n) {
  const std::int64_t R = s.per_result;
  std::vector<std::byte> acc(s.rk.acc_bytes), pieces(s.rk.acc_bytes);
  if (R == 0) {
    s.rk.identity(acc.data());
    for (std::int64_t r = 0; r < s.results; ++r) s.rk.store(acc.data(), s.result, r);
    return;
  }
  const std::int64_t chunks = (n + chunk_len - 1) / chunk_len;
  std::int64_t prev = -1;
  for (std::int64_t k = 1; k < chunks; ++k) {
    const std::int64_t b = k * chunk_len;
    if (b % R == 0 || b / R == prev) continue;
    const std::int64_t r = prev = b / R;
    const std::int64_t k0 = r * R / chunk_len, k1 = (r * R + R - 1) / chunk_len;
    // Its pieces: the end of chunk k0, then the start of every chunk up to k1.
    auto piece = [&](std::int64_t i) {
      return (i == 0 ? s.last : s.first).data() + static_cast<std::size_t>(k0 + i) * s.rk.acc_bytes;
    };
    combine_pairwise(s.rk, 0, k1 - k0 + 1, piece, pieces.data());
    s.rk.identity(acc.data());
    s.rk.combine(acc.data(), pieces.data());
    s.rk.store(acc.data(), s.result, r);
  }
}

// One row of a scan: len elements `stride` apart.
template <class T, bool Prod> void scan_row(const T* x, T* y, std::int64_t len, std::int64_t stride) {
  if (len == 0) return;
  T acc = x[0];
  y[0] = acc;
  for (std::int64_t i = 1; i < len; ++i) {
    acc = Prod ? ops::jf_prod_combine(acc, x[i * stride]) : ops::jf_sum_combine(acc, x[i * stride]);
    y[i * stride] = acc;
  }
}

struct scan_run {
  const char* src;
  char* dst;
  std::int64_t len, inner;  // the scanned extent; the iterations of the chain's axes after it
  void (*row)(const char*, char*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  // An input converted as it is scanned (scan_job::convert; contiguous rows).
  elementwise_fn convert = nullptr;
  int src_elem = 0;
  void (*converted_row)(const scan_run&, std::int64_t) = nullptr;
};
// Row r of a scan whose operand is converted from the input a chunk at a time: the same sequence of
// combines as scan_row on the materialised operand.
template <class T, bool Prod>
void scan_converted_row(const scan_run& s, std::int64_t row) {
  constexpr std::int64_t chunk = 1024;
  T x[chunk];
  const char* in = s.src + row * s.len * s.src_elem;
  T* y = reinterpret_cast<T*>(s.dst) + row * s.len;
  T acc{};
  for (std::int64_t c = 0; c < s.len; c += chunk) {
    const std::int64_t m = std::min(chunk, s.len - c);
    const void* args[1] = {in + c * s.src_elem};
    s.convert(args, x, m);
    std::int64_t i = 0;
    if (c == 0) {
      acc = x[0];
      y[0] = acc;
      i = 1;
    }
    for (; i < m; ++i) {
      acc = Prod ? ops::jf_prod_combine(acc, x[i]) : ops::jf_sum_combine(acc, x[i]);
      y[c + i] = acc;
    }
  }
}
template <class T, bool Prod>
void scan_rows(const char* src, char* dst, std::int64_t row, std::int64_t len, std::int64_t inner, std::int64_t) {
  // Row r: outer index r / inner, inner index r % inner; elements inner apart.
  const std::int64_t base = (row / inner) * len * inner + row % inner;
  scan_row<T, Prod>(reinterpret_cast<const T*>(src) + base, reinterpret_cast<T*>(dst) + base, len, inner);
}
// Scans run in numpy's accumulation dtypes (reduced_dtype: int64, uint64, float32, float64):
// f(std::type_identity<T>) for the one t names.
template <class F>
auto with_scan_type(dtype t, F f) {
  switch (t) {
    case dtype::int64:
      return f(std::type_identity<std::int64_t>{});
    case dtype::uint64:
      return f(std::type_identity<std::uint64_t>{});
    case dtype::float32:
      return f(std::type_identity<float>{});
    case dtype::float64:
      return f(std::type_identity<double>{});
    default:
      throw dtype_error("jf::cpu_exec: a scan of " + std::string(name(t)) +
                        " (scans run in int64, uint64, float32 or float64)");
  }
}
template <bool Prod>
auto scan_rows_for(dtype t) {
  return with_scan_type(t, []<class T>(std::type_identity<T>) { return &scan_rows<T, Prod>; });
}
template <bool Prod>
auto scan_converted_row_for(dtype t) {
  return with_scan_type(t, []<class T>(std::type_identity<T>) { return &scan_converted_row<T, Prod>; });
}
void run_scan_rows(void* ctx, std::int64_t r0, std::int64_t r1) {
  const scan_run& s = *static_cast<const scan_run*>(ctx);
  for (std::int64_t r = r0; r < r1; ++r) {
    if (s.converted_row)
      s.converted_row(s, r);
    else
      s.row(s.src, s.dst, r, s.len, s.inner, 0);
  }
}

void run_scan(const plan& p, const scan_job& j) {
  const auto& chain = p.chains[static_cast<std::size_t>(j.dom)];
  const std::int64_t total = p.iterations(j.dom);
  if (total == 0) return;
  scan_run s{p.accesses[static_cast<std::size_t>(j.src)].base, p.accesses[static_cast<std::size_t>(j.dst)].base, total, 1,
             j.m == monoid::prod ? scan_rows_for<true>(j.type) : scan_rows_for<false>(j.type)};
  if (j.axis >= 0) {
    const auto at = std::find(chain.begin(), chain.end(), j.axis);
    if (at == chain.end()) throw error("jf::cpu_exec: a scan along an axis its domain lacks");
    s.len = p.extents[static_cast<std::size_t>(j.axis)];
    for (auto it = at + 1; it != chain.end(); ++it) s.inner *= p.extents[static_cast<std::size_t>(*it)];
  }
  if (j.convert) {
    if (s.inner != 1) throw error("jf::cpu_exec: internal: a converted scan of rows that are not contiguous");
    s.convert = j.convert;
    s.src_elem = j.src_elem;
    s.converted_row =
        j.m == monoid::prod ? scan_converted_row_for<true>(j.type) : scan_converted_row_for<false>(j.type);
  }
  // Rows in parallel (each sequential): at least 64K elements of work per chunk.
  const std::int64_t rows = total / s.len;
  cpu_eval::parallel_for(rows, std::max<std::int64_t>(1, (std::int64_t(1) << 16) / s.len), &run_scan_rows, &s);
}

// Outer-axis reductions (a column sum): where the group's sinks are all reductions keeping the
// same leading chain axes, and its operands are contiguous along the kept axes but not along the
// reduced ones, the iterations are visited with the reduced axes outer: every row of `rows`
// reduced iterations is combined into a vector of `results` accumulators, one per result, in
// increasing reduced index (numpy's order for a column sum), so memory is read contiguously.
// Only for the monoids where that order is documented (sums and products) or exact (any, all,
// integer minima and maxima), and nodes that do not depend on the flat iteration.
struct rows_job {
  const plan* p;
  const group* gr;
  const shape* sh;  // the iterations with the reduced axes outer
  std::int64_t results = 0, rows = 0;
  std::int64_t width = block_len;  // results a tile: each row is read in runs of this many
};

// A tile a thread, as wide as that makes it, in whole blocks, with at most 256 KiB of accumulators
// (then more tiles): each row's part of a tile is read as one contiguous run, and longer runs
// stream faster. sum(x, 0) of float64 on a 2-core machine (median of 21 calls,
// bench/experiments/cpu_column_sum_tiles.cpp): 4096 x 4096 7.04 ms in tiles of 1024 results, 6.11
// in 2048 (a tile a thread); 1024 x 16384 7.15 / 4.06 (8192); 256 x 65536 8.73 / 3.96 (32768).
// The width changes no result: each one still combines its rows in increasing order.
std::int64_t rows_tile_width(const group& gr, std::int64_t results) {
  std::size_t acc_bytes = 0;
  for (const sink& s : gr.sinks) acc_bytes += s.rk.acc_bytes;
  acc_bytes = std::max<std::size_t>(acc_bytes, 1);
  const std::int64_t threads = std::max(1, cpu_eval::num_threads());
  const std::int64_t blocks = ((results + threads - 1) / threads + block_len - 1) / block_len;
  const std::int64_t cap =
      std::max<std::int64_t>(1, static_cast<std::int64_t>((std::size_t{256} << 10) / acc_bytes) / block_len);
  return std::clamp<std::int64_t>(blocks, 1, cap) * block_len;
}

bool outer_rows_apply(const plan& p, const group& gr, std::int64_t& results, std::int64_t& rows) {
  if (gr.sinks.empty() || !gr.scans.empty()) return false;
  const auto& ch = p.chains[static_cast<std::size_t>(gr.dom)];
  const std::size_t kept = gr.sinks[0].kept;
  if (kept == 0 || kept >= ch.size()) return false;
  for (const sink& s : gr.sinks) {
    if (!s.reduce || s.kept != kept || !s.rk.accumulate_rows) return false;
    const dtype t = p.nodes[static_cast<std::size_t>(s.value)].type;
    const bool exact_any_order = s.m == monoid::any || s.m == monoid::all ||
                                 ((s.m == monoid::min || s.m == monoid::max || s.m == monoid::nanmin ||
                                   s.m == monoid::nanmax) &&
                                  !is_floating(t));
    if (s.m != monoid::sum && s.m != monoid::prod && !exact_any_order) return false;
  }
  for (int id : gr.nodes)
    if (const kind k = p.nodes[static_cast<std::size_t>(id)].k; k != kind::load && k != kind::compute && k != kind::uniform)
      return false;
  results = rows = 1;
  int inner_kept = -1, inner_reduced = -1;  // the innermost axes of extent > 1
  for (std::size_t i = 0; i < ch.size(); ++i) {
    const std::int64_t e = p.extents[static_cast<std::size_t>(ch[i])];
    (i < kept ? results : rows) *= e;
    if (e > 1) (i < kept ? inner_kept : inner_reduced) = ch[i];
  }
  if (results < 64 || rows < 2 || inner_kept < 0 || inner_reduced < 0) return false;
  bool kept_contiguous = false;
  for (int id : gr.nodes) {
    const xnode& n = p.nodes[static_cast<std::size_t>(id)];
    if (n.k != kind::load) continue;
    const access& a = p.accesses[static_cast<std::size_t>(n.acc)];
    if (a.gen != ir::generator::none) continue;
    const auto unit = [&](int ax) { return std::abs(a.strides[static_cast<std::size_t>(ax)]) == 1; };
    if (unit(inner_reduced)) return false;
    kept_contiguous = kept_contiguous || unit(inner_kept);
  }
  return kept_contiguous;
}

void run_rows(void* ctx, std::int64_t t0, std::int64_t t1) {
  const rows_job& j = *static_cast<const rows_job*>(ctx);
  const auto& sinks = j.gr->sinks;
  worker w(*j.p, *j.gr, *j.sh);
  std::vector<std::vector<std::byte>> acc(sinks.size());
  for (std::int64_t t = t0; t < t1; ++t) {
    const std::int64_t c0 = t * j.width, n = std::min(j.width, j.results - c0);
    for (std::size_t s = 0; s < sinks.size(); ++s) {
      const std::size_t ab = sinks[s].rk.acc_bytes;
      acc[s].resize(static_cast<std::size_t>(n) * ab);
      for (std::int64_t i = 0; i < n; ++i) sinks[s].rk.identity(acc[s].data() + static_cast<std::size_t>(i) * ab);
    }
    for (std::int64_t r = 0; r < j.rows; ++r) {
      for (std::int64_t b0 = 0; b0 < n; b0 += block_len) {
        const std::int64_t nb = std::min(block_len, n - b0);
        w.evaluate(r * j.results + c0 + b0, nb);
        for (std::size_t s = 0; s < sinks.size(); ++s) {
          const sink& sk = sinks[s];
          const void* v = w.col[static_cast<std::size_t>(w.pos_of[static_cast<std::size_t>(sk.value)])];
          const bool* guard = sk.guard >= 0
                                  ? static_cast<const bool*>(
                                        w.col[static_cast<std::size_t>(w.pos_of[static_cast<std::size_t>(sk.guard)])])
                                  : nullptr;
          sk.rk.accumulate_rows(acc[s].data() + static_cast<std::size_t>(b0) * sk.rk.acc_bytes, v, guard, nb);
        }
      }
    }
    for (std::size_t s = 0; s < sinks.size(); ++s)
      for (std::int64_t i = 0; i < n; ++i)
        sinks[s].rk.store(acc[s].data() + static_cast<std::size_t>(i) * sinks[s].rk.acc_bytes, sinks[s].result, c0 + i);
  }
}

void run_group(const plan& p, group& gr) {
  const auto& chain = p.chains[static_cast<std::size_t>(gr.dom)];
  if (std::int64_t results = 0, rows = 0; outer_rows_apply(p, gr, results, rows)) {
    const std::size_t kept = gr.sinks[0].kept;
    std::vector<std::int32_t> order(chain.begin() + static_cast<std::ptrdiff_t>(kept), chain.end());
    order.insert(order.end(), chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(kept));
    const shape sh = shape_of(p, gr, order);
    for (int acc : sh.accs)
      if (!p.accesses[static_cast<std::size_t>(acc)].base && p.accesses[static_cast<std::size_t>(acc)].gen == ir::generator::none)
        throw error("jf::cpu_exec: an operand has a null pointer");
    rows_job j{&p, &gr, &sh, results, rows, rows_tile_width(gr, results)};
    // Tiles of j.width results; a tile reads rows * j.width elements, a block at a time.
    cpu_eval::parallel_for((results + j.width - 1) / j.width, 1, &run_rows, &j);
    return;
  }
  const shape sh = shape_of(p, gr, chain);
  const std::int64_t chunks = (sh.n + chunk_len - 1) / chunk_len;
  for (sink& s : gr.sinks)
    if (s.reduce) {
      s.first.assign(static_cast<std::size_t>(chunks) * s.rk.acc_bytes, std::byte{0});
      s.last.assign(static_cast<std::size_t>(chunks) * s.rk.acc_bytes, std::byte{0});
    }
  if (sh.n > 0 && gr.tiles) {
    for (int acc : sh.accs)
      if (!p.accesses[static_cast<std::size_t>(acc)].base && p.accesses[static_cast<std::size_t>(acc)].gen == ir::generator::none)
        throw error("jf::cpu_exec: an operand has a null pointer");
    group_job j{&p, &gr, &sh, false, block_row(gr, sh)};
    const auto put = std::find_if(gr.sinks.begin(), gr.sinks.end(), [](const sink& s) { return s.put; });
    if (put != gr.sinks.end()) {
      // numpy's order: the iterations one after another on this thread. Where something can raise
      // (a put or gather with mode raise), a first pass checks every index and nothing is written
      // if any failed: numpy evaluates the values and checks the indices before assigning.
      if (put->error) {
        j.checking = true;
        run_tiles(&j, 0, chunks);
        j.checking = false;
        if (put->error->rank != 0) return;
      }
      run_tiles(&j, 0, chunks);
    } else {
      // Tiles of chunk_len iterations; at least 4 per parallel chunk (64K iterations).
      cpu_eval::parallel_for(chunks, 4, &run_tiles, &j);
    }
  }
  for (sink& s : gr.sinks) {
    if (s.reduce) finish_reduce(s, sh.n);
    if (s.scatter && s.out_of_range) throw error("jf::cpu_exec: internal: a scatter index is out of range");
  }
  for (const scan_job& j : gr.scans) run_scan(p, j);
}

}  // namespace

void execute(const ir::graph& g, const detail::step_bindings& b) {
  g.validate();
  execute_validated(g, b);
}

void execute_validated(const ir::graph& g, const detail::step_bindings& b) {
  check_bindings(g, b);
  if (has_list_domains(g)) return execute_lists(g, b);
  plan p;
  build(p, g, b);
  scan_into_outputs(p, g);
  scan_from_inputs(p, g);
  resolve_aliasing(p, g);
  for (auto& [key, gr] : p.groups) run_group(p, gr);
}

}  // namespace jf::cpu_exec
