// The shared half of the loop-nest kernel shapes (see nest_emitter.hpp), the recogniser that picks
// a shape, generate_nest, configure_launch and describe_launch.
#include "cuda/codegen/nest_emitter.hpp"

#include <algorithm>

#include "jetfuse/errors.hpp"

namespace jf::ir {

std::string_view name(kernel_shape s) {
  switch (s) {
  case kernel_shape::map: return "map";
  case kernel_shape::list: return "list";
  case kernel_shape::pairs: return "pairs";
  case kernel_shape::full_reduction: return "full reduction";
  case kernel_shape::row_reduction: return "row reduction";
  case kernel_shape::column_reduction: return "column reduction";
  case kernel_shape::row_with_map: return "row reduction with map";
  case kernel_shape::histogram: return "histogram";
  case kernel_shape::scan: return "scan";
  case kernel_shape::generic_nest: return "generic loop nest";
  case kernel_shape::scatter: return "scatter";
  }
  return "?";
}

int nest_abi_slots(const graph& g) {
  const int operands = static_cast<int>(g.outputs.size() + g.inputs.size());
  int generated = 0;
  for (const operand_desc& in : g.inputs) generated += in.gen != generator::none;
  return operands + static_cast<int>(g.params.size()) + g.ndim + g.ndim * operands + 3 +
         philox_round_key_slots * generated;
}

namespace nest {

namespace {

bool is_uniform(const node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }

// Device helpers of every loop-nest kernel (guarded: several kernels may share a translation unit).
constexpr const char* device_helpers = R"(
#ifndef JF_NEST_HELPERS
#define JF_NEST_HELPERS
// Warp and block reductions of the loop-nest kernels. Every reduction combines in a fixed tree
// order (never atomics on values), so a kernel gives the same bits on every run.
namespace jf_nest {
constexpr unsigned full_mask = 0xffffffffu;
__device__ __forceinline__ bool shfl_down(bool v, int d) { return __shfl_down_sync(full_mask, static_cast<int>(v), d) != 0; }
__device__ __forceinline__ int shfl_down(int v, int d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ long long shfl_down(long long v, int d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ float shfl_down(float v, int d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ double shfl_down(double v, int d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ unsigned shfl_down(unsigned v, int d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ unsigned long long shfl_down(unsigned long long v, int d) {
  return __shfl_down_sync(full_mask, v, d);
}
// 8- and 16-bit integers travel as int.
#define JF_SHFL_NARROW(T)                                                                     \
  __device__ __forceinline__ T shfl_down(T v, int d) {                                        \
    return static_cast<T>(shfl_down(static_cast<int>(v), d));                                 \
  }                                                                                           \
  __device__ __forceinline__ T shfl_first(T v) {                                              \
    return static_cast<T>(__shfl_sync(full_mask, static_cast<int>(v), 0));                    \
  }
JF_SHFL_NARROW(signed char)
JF_SHFL_NARROW(short)
JF_SHFL_NARROW(unsigned char)
JF_SHFL_NARROW(unsigned short)
#undef JF_SHFL_NARROW
template <class T> __device__ __forceinline__ jf::ops::jf_arg<T> shfl_down(jf::ops::jf_arg<T> v, int d) {
  return jf::ops::jf_arg<T>{shfl_down(v.value, d), shfl_down(v.index, d)};
}
__device__ __forceinline__ bool shfl_first(bool v) { return __shfl_sync(full_mask, static_cast<int>(v), 0) != 0; }
__device__ __forceinline__ int shfl_first(int v) { return __shfl_sync(full_mask, v, 0); }
__device__ __forceinline__ long long shfl_first(long long v) { return __shfl_sync(full_mask, v, 0); }
__device__ __forceinline__ float shfl_first(float v) { return __shfl_sync(full_mask, v, 0); }
__device__ __forceinline__ double shfl_first(double v) { return __shfl_sync(full_mask, v, 0); }
__device__ __forceinline__ unsigned shfl_first(unsigned v) { return __shfl_sync(full_mask, v, 0); }
__device__ __forceinline__ unsigned long long shfl_first(unsigned long long v) {
  return __shfl_sync(full_mask, v, 0);
}
// A read-only input's element through the non-coherent path (emitter::ldg_inputs).
template <class T> __device__ __forceinline__ T ld(const T* p) { return __ldg(p); }
__device__ __forceinline__ bool ld(const bool* p) { return __ldg(reinterpret_cast<const unsigned char*>(p)) != 0; }
template <class T> __device__ __forceinline__ jf::ops::jf_arg<T> shfl_first(jf::ops::jf_arg<T> v) {
  return jf::ops::jf_arg<T>{shfl_first(v.value), shfl_first(v.index)};
}

// Lane 0 ends with the warp's 32 values combined as a tree (lane l with lane l + d, d = 16 .. 1).
template <class T, class C> __device__ __forceinline__ T warp_reduce(T v, C combine) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v = combine(v, shfl_down(v, d));
  return v;
}

// Combines v over the blockDim.x threads of one group (threads with the same threadIdx.y) and
// returns the result to all of them. Either blockDim.x == 32 (a warp per group: shuffles only, no
// __syncthreads, groups may run different loop trip counts) or blockDim.y == 1 (the whole block,
// every thread must call it). Order: each warp's tree, then the warps' results in a tree in warp 0.
template <class T, class C> __device__ T group_allreduce(T v, C combine, T identity) {
  v = warp_reduce(v, combine);
  if (blockDim.x == 32) return shfl_first(v);
  __shared__ T warp_results[33];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warp_results[lane] : identity;
    v = warp_reduce(v, combine);
    if (lane == 0) warp_results[32] = v;
  }
  __syncthreads();
  v = warp_results[32];
  __syncthreads();  // warp_results may be reused by the next call
  return v;
}

// Reads a partial another block wrote (after its __threadfence): past the non-coherent L1.
template <class T> __device__ __forceinline__ T load_volatile(const T* p) { return *static_cast<const volatile T*>(p); }

// Gathers (numpy take): element j of `size` elements `stride` apart. Mode 0 (raise) records an
// out-of-range position in the evaluation's error record (the earliest iteration wins, under a
// spin lock taken only on failure) and reads nothing; 1 wraps, 2 clips (numpy's modes). The host
// checks size > 0 before any launch that gathers.
struct index_error_record {
  unsigned long long rank;  // ~position of the earliest failing iteration (0: none)
  long long value, size;
  int axis;
  unsigned lock;
  unsigned long long repeats;  // a store found an element named twice (the host remembers it)
};
// The rank is raised by atomicMax first: only a thread that raised it (a few among many failing
// ones, the running maxima) takes the lock, and writes its details only if its rank is still the
// highest, so the record ends with the details of the earliest failure. (Locking first made every
// failing thread of a wave queue on the lock: 35 s for 200000 failures on an H100.)
__device__ __noinline__ void report_index(index_error_record* e, unsigned long long pos, long long value, long long size,
                                          int axis) {
  const unsigned long long rank = ~pos;
  if (rank <= *static_cast<volatile unsigned long long*>(&e->rank)) return;
  if (atomicMax(&e->rank, rank) >= rank) return;
  while (atomicCAS(&e->lock, 0u, 1u) != 0u) {
  }
  if (*static_cast<volatile unsigned long long*>(&e->rank) == rank) {
    e->value = value;
    e->size = size;
    e->axis = axis;
  }
  __threadfence();
  atomicExch(&e->lock, 0u);
}
// Position j along an axis of `size` elements normalised by numpy's mode: 1 wraps, 2 clips, 0
// (raise) counts a negative j from the end and reports one outside [-size, size) in the
// evaluation's record (false: nothing may be read); 3 (unchecked) leaves an offset check_index
// nodes computed as it is.
template <int Mode>
__device__ __forceinline__ bool normalise_index(long long& j, long long size, index_error_record* e, unsigned long long pos,
                                                int axis) {
  if (Mode == 1) {
    j %= size;
    if (j < 0) j += size;
  } else if (Mode == 2) {
    j = j < 0 ? 0 : (j >= size ? size - 1 : j);
  } else if (Mode == 0) {
    const long long given = j;
    if (j < 0) j += size;
    if (static_cast<unsigned long long>(j) >= static_cast<unsigned long long>(size)) {
      report_index(e, pos, given, size, axis);
      return false;
    }
  }
  return true;
}
template <int Mode, class T>
__device__ __forceinline__ T gather(const T* p, long long j, long long size, long long stride, index_error_record* e,
                                    unsigned long long pos, int axis) {
  return normalise_index<Mode>(j, size, e, pos, axis) ? p[j * stride] : T();
}
// numpy's bounds check of one index of a tuple (x[i, j]): j normalised into [0, size) by the mode;
// raise reports (ranked after every failure of the tuple's earlier index arrays: `rank` in the
// position's top bits) and gives 0. The gather that reads the element is unchecked.
template <int Mode>
__device__ __forceinline__ long long check_index(long long j, long long size, index_error_record* e, unsigned long long pos,
                                                 int axis) {
  return normalise_index<Mode>(j, size, e, pos, axis) ? j : 0;
}

// The same without branches, the thread's earliest failure kept in registers and reported once at
// the end of the kernel (the generic nest shape, which also reads its inputs through the read-only
// path and runs four iterations a trip, their loads first). A report inside the loop, even one
// never taken, kept each index's load behind the previous iteration's branch: one load in flight
// a thread (a gather of 2^27 doubles by the identity 5.5 % slower than mode clip on an H200, 20 %
// once unrolled; now 0.8 %). A failing position reads element 0 instead (the host checks size >
// 0) and gives T().
struct thread_failure {
  unsigned long long rank = 0;  // as index_error_record's: ~position, 0 for none
  long long value = 0, size = 0;
  int axis = 0;
  __device__ __forceinline__ void note(bool ok, unsigned long long pos, long long given, long long n, int ax) {
    const unsigned long long r = ok ? 0ull : ~pos;
    const bool earlier = r > rank;
    rank = earlier ? r : rank;
    value = earlier ? given : value;
    size = earlier ? n : size;
    axis = earlier ? ax : axis;
  }
  __device__ __forceinline__ void report(index_error_record* e) const {
    if (rank != 0) report_index(e, ~rank, value, size, axis);
  }
};
// j normalised by the mode as normalise_index; false (raise) where it is outside [-size, size).
template <int Mode>
__device__ __forceinline__ bool normalise_index(long long& j, long long size, thread_failure& f, unsigned long long pos,
                                                int axis) {
  if (Mode != 0) return normalise_index<Mode>(j, size, static_cast<index_error_record*>(nullptr), pos, axis);
  const long long given = j;
  j = j < 0 ? j + size : j;
  const bool ok = static_cast<unsigned long long>(j) < static_cast<unsigned long long>(size);
  f.note(ok, pos, given, size, axis);
  j = ok ? j : 0;
  return ok;
}
template <int Mode, class T>
__device__ __forceinline__ T gather(const T* p, long long j, long long size, long long stride, thread_failure& f,
                                    unsigned long long pos, int axis) {
  const bool ok = normalise_index<Mode>(j, size, f, pos, axis);
  const T v = ld(p + j * stride);  // unconditional, read-only path: an unrolled loop's loads issue together
  return ok ? v : T();
}
template <int Mode>
__device__ __forceinline__ long long check_index(long long j, long long size, thread_failure& f, unsigned long long pos,
                                                 int axis) {
  normalise_index<Mode>(j, size, f, pos, axis);
  return j;
}

// A random leaf's element, out of line (chunked loops call it only for leaves their chunks do
// not serve: one copy of the Philox rounds in the kernel, not one per row); G its bit generator.
#define JF_NEST_AT(kind, T)                                                                                       \
  template <jf::ops::jf_bit_generator G>                                                                          \
  __device__ __noinline__ T at_##kind(unsigned long long k0, unsigned long long k1, unsigned long long first,     \
                                      unsigned long long aux, unsigned long long e) {                             \
    return jf::ops::jf_philox_##kind##_at<G>(k0, k1, first, aux, e);                                              \
  }
JF_NEST_AT(random_f64, double)
JF_NEST_AT(random_f32, float)
JF_NEST_AT(normal_f64, double)
JF_NEST_AT(normal_f32, float)
JF_NEST_AT(integers, long long)
#undef JF_NEST_AT

// Jagged arrays: the list holding element j, the last t with off[t] <= j (empty lists before it
// skipped), among a tile's n lists whose offsets s[0..n] are in shared memory, or among all n lists
// (offsets `st` elements apart in global memory).
__device__ __forceinline__ int list_in_tile(const long long* s, int n, long long j) {
  int lo = 0, hi = n;  // s[lo] <= j < s[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (s[mid] <= j) lo = mid;
    else hi = mid;
  }
  return lo;
}
template <class O>
__device__ __forceinline__ long long list_of(const O* off, long long st, long long n, long long j) {
  long long lo = 0, hi = n;  // off[lo] <= j < off[hi]
  while (hi - lo > 1) {
    const long long mid = (lo + hi) >> 1;
    if (off[mid * st] <= j) lo = mid;
    else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ unsigned long long align16(unsigned long long bytes) { return (bytes + 15) & ~15ull; }

// Bytes of dynamic shared memory this launch was given (the row cache checks it fits).
__device__ __forceinline__ unsigned dynamic_smem_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// N consecutive values at p in stores of Unit bytes (p aligned to Unit; N * sizeof(T) a multiple):
// a lane's run of generated values as 16-byte vectors (philox_chunks.cpp).
template <int Unit> struct store_word;
template <> struct store_word<1> { using type = unsigned char; };
template <> struct store_word<2> { using type = unsigned short; };
template <> struct store_word<4> { using type = unsigned; };
template <> struct store_word<8> { using type = uint2; };
template <> struct store_word<16> { using type = uint4; };
template <int Unit, class T, int N> __device__ __forceinline__ void store_run(T* p, const T (&v)[N]) {
  using W = typename store_word<Unit>::type;
  static_assert(N * sizeof(T) % Unit == 0, "a run is a whole number of stores");
#pragma unroll
  for (int i = 0; i < static_cast<int>(N * sizeof(T) / Unit); ++i) {
    W w;
    memcpy(&w, reinterpret_cast<const char*>(v) + i * Unit, Unit);
    reinterpret_cast<W*>(p)[i] = w;
  }
}
// A warp's Bytes (a multiple of 16) staged in shared memory s to p (16-byte aligned): 16 bytes per
// lane per store, so every store instruction writes 512 contiguous bytes (whole sectors).
template <int Bytes> __device__ __forceinline__ void store_staged(void* p, const unsigned char* s, unsigned lane) {
  constexpr int n = Bytes / 16;
#pragma unroll
  for (int i = 0; i < (n + 31) / 32; ++i) {
    const int x = i * 32 + static_cast<int>(lane);
    if (n % 32 == 0 || x < n) reinterpret_cast<uint4*>(p)[x] = reinterpret_cast<const uint4*>(s)[x];
  }
}
}  // namespace jf_nest
#endif
)";

}  // namespace

// ---- facts ----------------------------------------------------------------------------------

facts::facts(const graph& graph_)
    : g(graph_), uniform(g.nodes.size(), 0), after_reduce(g.nodes.size(), 0), input_used(g.inputs.size(), 0) {
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    uniform[k] = is_uniform(n);
    if (n.code == op::input || n.code == op::gather || n.code == op::search) input_used[static_cast<std::size_t>(n.index)] = 1;
    if (n.code == op::reduce) {
      reduces.push_back(static_cast<node_id>(k));
      after_reduce[k] = 1;
    }
    if (n.code == op::scatter) {
      scatters.push_back(static_cast<node_id>(k));
      after_reduce[k] = 1;
    }
    if (n.code == op::scan) {
      scans.push_back(static_cast<node_id>(k));
      after_reduce[k] = 1;
    }
    for (int a = 0; a < n.nargs; ++a)
      if (after_reduce[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])]) after_reduce[k] = 1;
  }
  for (const output_desc& o : g.outputs)
    if (std::find(output_domains.begin(), output_domains.end(), o.domain) == output_domains.end())
      output_domains.push_back(o.domain);
}

std::vector<char> facts::closure(const std::vector<node_id>& targets, bool stop_at_reduce) const {
  std::vector<char> need(g.nodes.size(), 0);
  for (node_id t : targets)
    if (t != no_node) need[static_cast<std::size_t>(t)] = 1;
  for (std::size_t k = g.nodes.size(); k-- > 0;) {
    if (!need[k]) continue;
    const node& n = g.nodes[k];
    if ((n.code == op::reduce || n.code == op::scatter || n.code == op::scan) && stop_at_reduce) continue;
    for (int a = 0; a < n.nargs; ++a) need[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])] = 1;
  }
  return need;
}

std::vector<node_id> facts::outputs_in(domain_id d) const {
  std::vector<node_id> v;
  for (const output_desc& o : g.outputs)
    if (o.domain == d) v.push_back(o.value);
  return v;
}

// ---- the recogniser -------------------------------------------------------------------------

namespace {

// Whether every non-uniform node lies in one of `allowed`.
bool nodes_within(const facts& f, const std::vector<domain_id>& allowed) {
  for (std::size_t k = 0; k < f.g.nodes.size(); ++k)
    if (!f.uniform[k] && std::find(allowed.begin(), allowed.end(), f.g.nodes[k].domain) == allowed.end()) return false;
  return true;
}

// Whether every broadcast reads a uniform value or one of an enclosing domain computed before any
// reduction (the one-pass shapes cannot carry a reduced value back inward, except row_with_map's
// map domains, checked by the caller).
bool broadcasts_enclosing(const facts& f) {
  for (const node& n : f.g.nodes) {
    if (n.code != op::broadcast) continue;
    const node& x = f.g.at(n.args[0]);
    if (!is_uniform(x) && !f.g.encloses(x.domain, n.domain)) return false;
  }
  return true;
}

// No reduce's argument or guard depends on a reduction (var's sum((x - mean)^2) needs two passes).
bool single_pass(const facts& f) {
  for (node_id r : f.reduces) {
    const node& n = f.g.at(r);
    for (int a = 0; a < n.nargs; ++a)
      if (f.after_reduce[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])]) return false;
  }
  return true;
}

// Graphs with a pairs domain P under the list domain L (docs/design.md, "Pairs domains (contract)"
// and "Pairs kernels"): reductions of each list's combinations into the list (guards allowed),
// element-wise work in P (the combination's body) and in L (values P reads before the reductions,
// work on the results after them), outputs over L. The caller has checked what every list graph
// must satisfy (no scans, scatters, gathers, one pass).
shape_plan recognise_pairs(const facts& f, domain_id list, domain_id elements, domain_id pairs) {
  const graph& g = f.g;
  auto refuse = [&](const std::string& why) {
    return error("jf::ir codegen: " + why + " (pairs graphs: docs/design.md, \"Pairs kernels\")\n" + g.to_string());
  };
  if (list < 0 || g.dom(pairs).parent != list) throw refuse(cat("pairs domain D", pairs) + " is not under a list domain");
  if (f.reduces.empty()) throw refuse(cat("no reduction of the combinations of D", pairs) + " (combinations are not materialised)");
  for (node_id r : f.reduces) {
    const node& n = g.at(r);
    const domain_id from = g.at(n.args[0]).domain;
    if (n.domain == 0 && from == pairs)
      throw refuse(cat("reduce %", r) + ": a reduction of every combination of every list into the root (not yet: reduce "
                                        "per list first)");
    if (from == elements) throw refuse(cat("reduce %", r) + ": a reduction of elements beside reductions of combinations");
    if (n.domain != list || from != pairs)
      throw refuse(cat("reduce %", r) + " is not a reduction of each list's combinations into the list");
  }
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    if (g.outputs[k].domain != list)
      throw refuse(cat("out #", static_cast<long long>(k)) + " is not stored over the lists (combinations are not materialised)");
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    if (f.uniform[k]) continue;
    const domain_id d = g.nodes[k].domain;
    if (d != list && d != pairs)
      throw refuse(cat("%", static_cast<long long>(k)) + cat(" in D", d) +
                   ": a pairs kernel computes in its list and pairs domains only");
  }
  shape_plan p;
  p.shape = kernel_shape::pairs;
  p.outer = list;
  p.inner = pairs;
  return p;
}

// Graphs with a list domain (docs/design.md, "List domains (contract)"): the list kernel, or a
// full reduction of the elements (or the lists) into the root. Throws for what no shape runs.
shape_plan recognise_list(const facts& f) {
  const graph& g = f.g;
  auto refuse = [&](const std::string& why) {
    return error("jf::ir codegen: " + why + " (list graphs: docs/design.md, \"List kernels\")\n" + g.to_string());
  };
  domain_id list = -1, elements = -1, pairs = -1;
  for (std::size_t d = 1; d < g.domains.size(); ++d) {
    const domain_kind k = g.domains[d].kind;
    if (k == domain_kind::list) {
      if (list >= 0) throw refuse("two list domains in one kernel");
      list = static_cast<domain_id>(d);
    } else if (k == domain_kind::elements) {
      if (elements >= 0) throw refuse("two elements domains in one kernel");
      elements = static_cast<domain_id>(d);
    } else if (is_tuple_domain(k)) {  // combinations or a cartesian product: the pairs kernel
      if (pairs >= 0) throw refuse("two pairs or product domains in one kernel");
      pairs = static_cast<domain_id>(d);
    } else {
      throw refuse(cat("domain D", static_cast<long long>(d)) + " (a box) beside a list domain");
    }
  }
  if (!f.scans.empty() || !f.scatters.empty()) throw refuse("scans and scatters do not occur in list graphs yet");
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (n.code == op::gather || n.code == op::search || n.code == op::put || n.code == op::check_index)
      throw refuse(cat("%", static_cast<long long>(k)) + ": gathers, searches and puts do not occur in list graphs yet");
    if (n.code == op::index && n.attr[0] < 0) throw refuse(cat("%", static_cast<long long>(k)) + ": a flat index over a list domain");
  }
  if (!broadcasts_enclosing(f) || !single_pass(f))
    throw refuse("a reduction reads a reduced value, or a broadcast comes from a domain that does not enclose its own; "
                 "the planner stores those first");
  shape_plan p;
  if (pairs >= 0) return recognise_pairs(f, list, elements, pairs);
  if (!f.reduces.empty() && f.g.at(f.reduces[0]).domain == 0) {
    // Every element (or every list) into the root: the full reduction.
    const domain_id from = g.at(g.at(f.reduces[0]).args[0]).domain;
    for (node_id r : f.reduces)
      if (g.at(r).domain != 0 || g.at(g.at(r).args[0]).domain != from)
        throw refuse("reductions into the root and into the lists, or from several domains, in one kernel");
    for (const output_desc& o : g.outputs)
      if (o.domain != 0) throw refuse("a full reduction's kernel with an output that is not in the root");
    if (!nodes_within(f, from == list ? std::vector<domain_id>{0, list} : std::vector<domain_id>{0, list, elements}))
      throw refuse("element-wise work of the lists or elements after a full reduction");
    p.shape = kernel_shape::full_reduction;
    p.outer = 0;
    p.inner = from;
    return p;
  }
  for (node_id r : f.reduces)
    if (g.at(r).domain != list || g.at(g.at(r).args[0]).domain != elements)
      throw refuse(cat("reduce %", r) + " is not a reduction of each list's elements into the list");
  for (const output_desc& o : g.outputs)
    if (o.domain != list && o.domain != elements) throw refuse("an output over the root beside per-list work");
  if (!nodes_within(f, {list, elements})) throw refuse("element-wise work in the root of a list kernel");
  p.shape = kernel_shape::list;
  p.outer = list;
  p.inner = elements;
  return p;
}

}  // namespace

shape_plan recognise(const facts& f) {
  const graph& g = f.g;
  for (const domain& d : g.domains)
    if (d.kind != domain_kind::root && d.kind != domain_kind::box) return recognise_list(f);
  shape_plan p;
  // Scatter: the one output is a put, nothing reduced (the engine refuses reductions in its operands).
  for (const output_desc& o : g.outputs) {
    const node& n = g.at(o.value);
    if (n.code != op::put) continue;
    if (g.outputs.size() != 1 || !f.reduces.empty() || !f.scatters.empty() || !broadcasts_enclosing(f))
      throw error("jf::ir codegen: a put must be the one output of a kernel without reductions\n" + g.to_string());
    p.shape = kernel_shape::scatter;
    p.inner = n.domain;
    p.outer = claims_of_put(n);
    return p;
  }
  // Scan: one scan, every output stored over its domain D and every node in D (its producers per
  // element before the scan, its consumers after it). Compaction: every output is a store of values
  // of D into one box B under the root at positions computed in D (from the scan, or read).
  bool compaction = !f.scatters.empty();
  for (node_id k : f.scatters) compaction = compaction && stores(g.at(k));
  if (!f.scans.empty() || compaction) {
    if (f.scans.size() > 1 || !f.reduces.empty()) return p;
    const domain_id d = f.scans.empty() ? g.at(g.at(f.scatters[0]).args[1]).domain : g.at(f.scans[0]).domain;
    std::vector<domain_id> allowed{d};
    if (!f.scatters.empty()) {
      const domain_id b = g.at(f.scatters[0]).domain;
      if (g.dom(b).parent != 0) return p;
      for (node_id k : f.scatters)
        if (g.at(k).domain != b || g.at(g.at(k).args[1]).domain != d) return p;
      for (const output_desc& o : g.outputs)
        if (!stores(g.at(o.value)) || o.domain != b) return p;
      if (g.outputs.size() != f.scatters.size()) return p;
      allowed.push_back(b);
    } else {
      for (const output_desc& o : g.outputs)
        if (o.domain != d) return p;
    }
    if (!nodes_within(f, allowed)) return p;
    p.shape = kernel_shape::scan;
    p.inner = d;
    p.outer = f.scatters.empty() ? 0 : g.at(f.scatters[0]).domain;
    return p;
  }
  // Histogram: one scatter into a box under the root, its operands computed in the index's domain
  // (or the root) from nothing reduced, and it is the one output.
  if (!f.scatters.empty()) {
    const node& sc = g.at(f.scatters[0]);
    const domain_id from = g.at(sc.args[1]).domain;
    if (f.scatters.size() != 1 || !f.reduces.empty() || g.dom(sc.domain).parent != 0 || g.outputs.size() != 1 ||
        g.outputs[0].value != f.scatters[0] || !broadcasts_enclosing(f) || !nodes_within(f, {0, from, sc.domain}) ||
        sc.type != dtype::int64)
      return p;
    for (int a = 0; a < sc.nargs; ++a)
      if (f.after_reduce[static_cast<std::size_t>(sc.args[static_cast<std::size_t>(a)])]) return p;
    p.shape = kernel_shape::histogram;
    p.outer = sc.domain;
    p.inner = from;
    return p;
  }
  if (f.reduces.empty() || !broadcasts_enclosing(f) || !single_pass(f)) return p;
  const domain_id into = g.at(f.reduces[0]).domain;
  const domain_id from = g.at(g.at(f.reduces[0]).args[0]).domain;
  for (node_id r : f.reduces)
    if (g.at(r).domain != into || g.at(g.at(r).args[0]).domain != from) return p;

  // Full reduction: everything stored in the root, reductions of one box chain into it.
  if (into == 0) {
    for (const output_desc& o : g.outputs)
      if (o.domain != 0) return p;
    if (!nodes_within(f, {0, from})) return p;
    p.shape = kernel_shape::full_reduction;
    p.outer = 0;
    p.inner = from;
    return p;
  }

  // Row / column / row-with-map: K directly under the root, R directly under K.
  if (g.dom(into).parent != 0 || g.dom(from).parent != into) return p;
  std::vector<domain_id> allowed{0, into, from};
  for (domain_id d : f.output_domains) {
    if (d == into) continue;
    if (d == 0 || g.dom(d).kind != domain_kind::box || g.dom(d).parent != into) return p;
    p.map_domains.push_back(d);
    allowed.push_back(d);
  }
  if (!nodes_within(f, allowed)) return p;
  // Nodes of R that are not map work must be computable before the reduction ends.
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (f.uniform[k] || !f.after_reduce[k]) continue;
    if (n.domain == 0) return p;  // (cannot happen: nothing reduces into the root)
    if (n.domain == from && std::find(p.map_domains.begin(), p.map_domains.end(), from) == p.map_domains.end())
      return p;
  }
  p.outer = into;
  p.inner = from;
  if (!p.map_domains.empty()) {
    p.shape = kernel_shape::row_with_map;
    return p;
  }
  // Row or column: where the fastest axis is. Global axes are numbered as the array's axes, so
  // the highest-numbered axis of the chain is the one of stride 1 for row-major operands.
  const std::vector<std::int32_t> chain = g.chain_axes(from);
  const auto& r_axes = g.dom(from).axes;
  const bool fastest_in_r =
      chain.empty() || std::find(r_axes.begin(), r_axes.end(), *std::max_element(chain.begin(), chain.end())) != r_axes.end();
  p.shape = fastest_in_r ? kernel_shape::row_reduction : kernel_shape::column_reduction;
  return p;
}

// ---- the emitter ----------------------------------------------------------------------------

emitter::emitter(const graph& graph_, const codegen_options& o, std::string name)
    : g(graph_), f(graph_), opt(o), kname(std::move(name)), vname(graph_.nodes.size()),
      axis(static_cast<std::size_t>(graph_.ndim)), kept(graph_.nodes.size()),
      operand_axes_(graph_.outputs.size() + graph_.inputs.size()) {
  auto add_axes = [&](std::vector<std::int32_t>& to, domain_id d) {
    for (std::int32_t a : g.chain_axes(d))
      if (std::find(to.begin(), to.end(), a) == to.end()) to.push_back(a);
  };
  for (std::size_t k = 0; k < g.outputs.size(); ++k) add_axes(operand_axes_[k], g.outputs[k].domain);
  for (const node& n : g.nodes)
    if (n.code == op::input || n.code == op::gather || n.code == op::search)
      add_axes(operand_axes_[g.outputs.size() + static_cast<std::size_t>(n.index)], n.domain);
}

std::string emitter::T(dtype t) const { return std::string(cuda_type(t)); }

void emitter::header(const shape_plan& p, const std::string& plan_text) {
  s << "\n// ---- jetfuse kernel " << kname << " ----------------------------------------------------\n";
  s << "// Loop nest over " << g.ndim << " global axes, " << (g.index32 ? "int" : "long long") << " offsets"
    << (opt.fast_math ? ", fast math" : ", IEEE math") << ". Kernel shape: " << name(p.shape) << ".\n";
  std::istringstream lines(plan_text);
  for (std::string line; std::getline(lines, line);) s << "// " << line << "\n";
  s << "// IR:\n";
  std::istringstream ir(g.to_string());
  for (std::string line; std::getline(ir, line);) s << "//   " << line << "\n";
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    s << "//   out #" << k << " is stored over " << (g.outputs[k].domain == 0 ? std::string("root") : nest::cat("D", g.outputs[k].domain))
      << "\n";
  s << device_helpers;
  s << codegen_detail::user_functions(g);
}

void emitter::args_struct() {
  const std::string args = kname + "_args";
  s << "\n// The kernel's one argument (loop-nest ABI, jf::ir::graph): every field in its own 8-byte slot.\n";
  s << "struct " << args << " {\n";
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    s << "  alignas(8) " << T(g.outputs[k].desc.type) << "* out" << k << ";\n";
  for (std::size_t k = 0; k < g.inputs.size(); ++k) s << "  alignas(8) const " << T(g.inputs[k].type) << "* in" << k << ";\n";
  for (std::size_t k = 0; k < g.params.size(); ++k) s << "  alignas(8) " << T(g.params[k]) << " p" << k << ";\n";
  if (g.ndim > 0) {
    s << "  alignas(8) long long extents[" << g.ndim << "];  // per global axis\n";
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      s << "  alignas(8) long long st_out" << k << "[" << g.ndim << "];  // in elements, per global axis\n";
    for (std::size_t k = 0; k < g.inputs.size(); ++k)
      s << "  alignas(8) long long st_in" << k << "[" << g.ndim << "];\n";
  }
  s << "  alignas(8) unsigned char* scratch;  // zero-initialised by the launcher (partials, counters)\n";
  s << "  alignas(8) jf_nest::index_error_record* err;  // gathers' out-of-bounds report (null: no gathers)\n";
  s << "  alignas(8) unsigned* aux;  // memory the engine keeps between calls (a put's winners), or null\n";
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (g.inputs[k].gen != generator::none)
      s << "  alignas(8) unsigned long long rk" << k << "[" << philox_round_key_slots << "];  // in" << k
        << "'s Philox round keys (launcher)\n";
  s << "};\n";
  s << "static_assert(sizeof(" << args << ") == " << nest_abi_slots(g) << " * 8, \"jetfuse loop-nest ABI: 8-byte slots\");\n";
}

void emitter::open_kernel(const std::string& comment) {
  s << "\n" << comment;
  s << "extern \"C\" __global__ void ";
  if (max_threads > 0) s << "__launch_bounds__(" << max_threads << (min_blocks > 0 ? cat(", ", min_blocks) : std::string()) << ") ";
  s << kname << "(const " << kname << "_args a) {\n";
}

void emitter::prologue(const std::string& ind) {
  s << ind << "using I = " << (g.index32 ? "int" : "long long") << ";  // offsets and indices\n";
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    s << ind << T(g.outputs[k].desc.type) << "* __restrict__ out" << k << " = a.out" << k << ";\n";
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (f.input_used[k]) s << ind << "const " << T(g.inputs[k].type) << "* __restrict__ in" << k << " = a.in" << k << ";\n";
  for (int d = 0; d < g.ndim; ++d) s << ind << "const long long e" << d << " = a.extents[" << d << "];\n";
  auto strides = [&](const std::string& nm, std::size_t slot, bool contiguous_last) {
    const auto& axes = operand_axes_[slot];
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (contiguous_last && i + 1 == axes.size()) continue;  // stride 1 by the layout's promise
      s << ind << "const I st_" << nm << "_" << axes[i] << " = static_cast<I>(a.st_" << nm << "[" << axes[i] << "]);\n";
    }
  };
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    strides(nest::cat("out", k), k, false);
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (f.input_used[k] && g.inputs[k].lay != layout::scalar) strides(nest::cat("in", k), g.outputs.size() + k, false);
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const node& n = g.nodes[id];
    const std::string v = nest::cat("v", id);
    if (n.code == op::param) {
      s << ind << "const " << T(n.type) << " " << v << " = a.p" << n.index << ";\n";
    } else if (n.code == op::constant) {
      s << ind << "const " << T(n.type) << " " << v << " = " << codegen_detail::literal(n.type, n.value) << ";\n";
    } else if (n.code == op::extent) {
      const auto& axes = g.dom(static_cast<domain_id>(n.attr[0])).axes;
      s << ind << "const long long " << v << " = " << extent_product({axes.begin(), axes.end()})
        << ";  // iterations of D" << n.attr[0] << " per iteration of its parent\n";
    } else {
      continue;
    }
    vname[id] = v;
  }
}

std::string emitter::extent_product(const std::vector<std::int32_t>& axes) const {
  if (axes.empty()) return "1LL";
  if (axes.size() == 1) return nest::cat("e", axes[0]);
  std::string p = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) p += nest::cat(i ? " * e" : "e", axes[i]);
  return p + ")";
}

void emitter::unravel(const std::string& ind, const std::string& flat, const std::vector<std::int32_t>& axes,
                      const std::string& sfx) {
  if (axes.empty()) return;
  if (axes.size() == 1) {
    const std::string v = nest::cat("ix", axes[0]) + sfx;
    s << ind << "const I " << v << " = static_cast<I>(" << flat << ");\n";
    axis[static_cast<std::size_t>(axes[0])] = v;
    return;
  }
  const std::string r = fresh("rest");
  s << ind << "I " << r << " = static_cast<I>(" << flat << ");  // unravelled, last axis fastest\n";
  for (std::size_t i = axes.size(); i-- > 0;) {
    const std::string v = nest::cat("ix", axes[i]) + sfx;
    if (i == 0) {
      s << ind << "const I " << v << " = " << r << ";\n";
    } else {
      s << ind << "const I " << v << " = " << r << " % static_cast<I>(e" << axes[i] << ");\n";
      s << ind << r << " /= static_cast<I>(e" << axes[i] << ");\n";
    }
    axis[static_cast<std::size_t>(axes[i])] = v;
  }
}

std::string emitter::offset(bool output, std::size_t k, domain_id d) const {
  const layout lay = output ? g.outputs[k].desc.lay : g.inputs[k].lay;
  if (lay == layout::scalar) return "0";
  const std::vector<std::int32_t> chain = g.chain_axes(d);
  if (chain.empty()) return "0";
  const std::string nm = nest::cat(output ? "out" : "in", static_cast<long long>(k));
  std::string o;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const std::string& ax = axis[static_cast<std::size_t>(chain[i])];
    if (ax.empty()) throw error(nest::cat("jf::ir codegen: internal error: axis ", chain[i]) + " not fixed for " + nm);
    if (!o.empty()) o += " + ";
    if (lay == layout::contiguous && i + 1 == chain.size()) o += ax;  // stride 1 (the layout's promise)
    else o += ax + " * st_" + nm + nest::cat("_", chain[i]);
  }
  return o;
}

void emitter::emit_nodes(const std::vector<char>& needed, const std::string& ind, const std::string& sfx, which w,
                         const std::function<void(node_id, const std::string&)>& on_reduce) {
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (!needed[id] || !vname[id].empty() || f.uniform[id]) continue;
    const node& n = g.nodes[id];
    const bool load = n.code == op::input || !kept[id].empty();
    if ((w == which::loads) != load && w != which::all) continue;
    if (!kept[id].empty()) {
      if (flat_index.empty())
        throw error(nest::cat("jf::ir codegen: internal error: kept %", id) + " read outside a loop");
      s << ind << "const " << T(n.type) << " " << nest::cat("v", id) << sfx << " = "
        << (ldg_inputs ? "jf_nest::ld(" + kept[id] + " + " + flat_index + ")" : kept[id] + "[" + flat_index + "]")
        << ";  // kept by the reduction loop\n";
      vname[id] = nest::cat("v", id) + sfx;
      continue;
    }
    if (n.code == op::scan || n.code == op::scatter)
      throw error(nest::cat("jf::ir codegen: internal error: %", id) + " (a scan or scatter) used before its value");
    if (n.code == op::reduce) {
      if (!on_reduce) throw error(nest::cat("jf::ir codegen: internal error: reduce %", id) + " used before its value");
      on_reduce(static_cast<node_id>(id), ind);
      continue;
    }
    const std::string v = nest::cat("v", id) + sfx;
    const std::string decl = ind + "const " + T(n.type) + " " + v + " = ";
    auto arg = [&](int a) {
      const std::string& nm = vname[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])];
      if (nm.empty())
        throw error(nest::cat("jf::ir codegen: internal error: %", n.args[static_cast<std::size_t>(a)]) +
                    nest::cat(" is not available for %", id));
      return nm;
    };
    switch (n.code) {
    case op::input: {
      const std::size_t k = static_cast<std::size_t>(n.index);
      const operand_desc& in = g.inputs[k];
      if (in.gen != generator::none && k < gen_value_row.size() && !gen_value_row[k].empty()) {
        s << decl << gen_value_row[k] << ";  // from the chunk's Philox blocks (philox_chunks.cpp)\n";
        break;
      }
      if (in.gen != generator::none) {  // computed from its position: nothing is loaded
        s << decl << "static_cast<" << T(n.type) << ">(jf::ops::jf_philox_" << generator_name(in.gen)
          << "_at<jf::ops::jf_" << bit_generator_name(in.bits) << ">(static_cast<unsigned long long>(a.p" << in.param << "), static_cast<unsigned long long>(a.p"
          << in.param + 1 << "), static_cast<unsigned long long>(a.p" << in.param + 2
          << "), static_cast<unsigned long long>(a.p" << in.param + 3 << "), static_cast<unsigned long long>("
          << offset(false, k, n.domain) << ")));\n";
        break;
      }
      if (ldg_inputs) s << decl << "jf_nest::ld(in" << k << " + (" << offset(false, k, n.domain) << "));\n";
      else s << decl << "in" << k << "[" << offset(false, k, n.domain) << "];\n";
      break;
    }
    case op::broadcast: {
      const node& x = g.at(n.args[0]);
      if (!is_uniform(x) && !g.encloses(x.domain, n.domain))
        throw error(nest::cat("jf::ir codegen: broadcast %", id) +
                    " reads a value of a domain that does not enclose its own; the planner must store it first");
      s << decl << arg(0) << ";  // broadcast from D" << x.domain << "\n";
      break;
    }
    case op::cast: s << decl << "jf::ops::jf_cast<" << T(n.type) << ">(" << arg(0) << ");\n"; break;
    case op::index: {
      if (n.attr[0] >= 0) {
        const std::string& ax = axis[static_cast<std::size_t>(n.attr[0])];
        if (ax.empty()) throw error(nest::cat("jf::ir codegen: internal error: axis ", n.attr[0]) + " not fixed for an index");
        s << decl << "static_cast<long long>(" << ax << ");\n";
      } else {
        s << decl << position(n.domain) << ";  // the flat (row-major) position\n";
      }
      break;
    }
    case op::search: {
      const std::string rest = offset(false, static_cast<std::size_t>(n.index), n.domain);
      const std::string base = nest::cat("in", n.index) + (rest.empty() ? std::string() : " + (" + rest + ")");
      s << decl << "jf::ops::jf_searchsorted<" << n.attr[0] << ">(" << base << ", " << arg(1) << ", " << arg(2) << ", "
        << arg(0) << ");\n";
      break;
    }
    case op::check_index: {
      s << decl << "jf_nest::check_index<" << static_cast<int>(mode_of_gather(n)) << ">(" << arg(0) << ", " << arg(1)
        << ", " << error_record << ", static_cast<unsigned long long>(" << position(n.domain) << ")"
        << (rank_of_check(n) ? nest::cat(" + (", rank_of_check(n)) + "ull << 48)" : std::string()) << ", "
        << axis_of_gather(n) << ");\n";
      break;
    }
    case op::gather: {
      // The input's other axes are addressed by its strides; the gathered one by the position.
      const std::string rest = offset(false, static_cast<std::size_t>(n.index), n.domain);
      const std::string base = nest::cat("in", n.index) + (rest.empty() ? std::string() : " + (" + rest + ")");
      s << decl << "jf_nest::gather<" << static_cast<int>(mode_of_gather(n)) << ">(" << base << ", " << arg(0) << ", "
        << arg(1) << ", " << arg(2) << ", " << error_record << ", static_cast<unsigned long long>("
        << position(n.domain) << "), " << axis_of_gather(n) << ");\n";
      break;
    }
    default: {
      s << decl << codegen_detail::call_name(n) << "(";
      for (int a = 0; a < n.nargs; ++a) s << (a ? ", " : "") << arg(a);
      s << ");\n";
    }
    }
    vname[id] = v;
  }
}

std::string emitter::position(domain_id d) const {
  // Row-major over the domain's chain of global axes (the error report's "earliest" iteration).
  std::string pos;
  for (std::int32_t x : g.chain_axes(d)) {
    const std::string& ax = axis[static_cast<std::size_t>(x)];
    if (ax.empty()) throw error(nest::cat("jf::ir codegen: internal error: axis ", x) + " not fixed for a gather");
    pos = pos.empty() ? "static_cast<long long>(" + ax + ")"
                      : "(" + pos + ") * a.extents[" + std::to_string(x) + "] + static_cast<long long>(" + ax + ")";
  }
  return pos.empty() ? "0" : pos;
}

void emitter::forget_below(domain_id d) {
  for (std::size_t id = 0; id < g.nodes.size(); ++id)
    if (!f.uniform[id] && !g.encloses(g.nodes[id].domain, d)) vname[id].clear();
}

monoid emitter::mono(node_id r) const { return static_cast<monoid>(g.at(r).attr[0]); }
dtype emitter::value_type(node_id r) const { return g.at(g.at(r).args[0]).type; }

std::string emitter::acc_type(node_id r) const {
  if (is_arg_monoid(mono(r))) return "jf::ops::jf_arg<" + T(value_type(r)) + ">";
  return T(value_type(r));
}

std::string emitter::identity(node_id r) const {
  return "jf::ops::jf_" + std::string(name(mono(r))) + "_identity<" + T(value_type(r)) + ">()";
}

std::string emitter::combine_fn(node_id r) const { return "jf::ops::jf_" + std::string(name(mono(r))) + "_combine"; }

std::string emitter::combine_lambda(node_id r) const {
  const std::string t = acc_type(r);
  return "[](" + t + " x, " + t + " y) { return " + combine_fn(r) + "(x, y); }";
}

void emitter::accumulate(const std::string& ind, node_id r, const std::string& acc, const std::string& pos) {
  const node& n = g.at(r);
  const std::string& x = vname[static_cast<std::size_t>(n.args[0])];
  std::string value = x;
  if (is_arg_monoid(mono(r))) value = "jf::ops::jf_arg<" + T(value_type(r)) + ">{" + x + ", static_cast<long long>(" + pos + ")}";
  s << ind;
  if (n.nargs == 2) s << "if (" << vname[static_cast<std::size_t>(n.args[1])] << ") ";
  s << acc << " = " << combine_fn(r) << "(" << acc << ", " << value << ");\n";
}

std::string emitter::result(node_id r, const std::string& acc) const {
  return is_arg_monoid(mono(r)) ? acc + ".index" : acc;
}

void emitter::store_outputs(const std::string& ind, domain_id d) {
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const output_desc& o = g.outputs[k];
    if (o.domain != d) continue;
    s << ind << "out" << k << "[" << offset(true, k, d) << "] = " << vname[static_cast<std::size_t>(o.value)] << ";\n";
  }
}

void emitter::laned_loop(const std::string& ind, const std::string& c, const std::string& start, const std::string& step,
                         const std::string& n, const std::vector<std::int32_t>& axes, int lanes,
                         const std::vector<char>& needed,
                         const std::function<void(const std::string&, const std::string&)>& at_lane,
                         const std::function<void(const std::string&, const std::string&, const std::string&)>& prelude) {
  const auto saved_v = vname;
  const auto saved_a = axis;
  const std::string in2 = ind + "  ";
  s << ind << laned_counter << " " << c << " = " << start << ";\n";
  if (lanes > 1) {
    s << ind << "// " << lanes << " independent iterations per trip: all their loads are issued first.\n";
    if (pin_trip_loops) s << ind << "#pragma unroll 1\n";
    s << ind << "for (; " << c << " < " << n << " - " << (lanes - 1) << " * " << step << "; " << c << " += " << lanes << " * "
      << step << ") {\n";
    std::vector<std::vector<std::string>> lane_v(static_cast<std::size_t>(lanes));
    std::vector<std::vector<std::string>> lane_a(static_cast<std::size_t>(lanes));
    auto flat = [&](int u) { return u == 0 ? c : "(" + c + nest::cat(" + ", u) + " * " + step + ")"; };
    for (int u = 0; u < lanes; ++u) {
      vname = saved_v;
      axis = saved_a;
      unravel(in2, flat(u), axes, nest::cat("_", u));
      if (prelude) prelude(in2, flat(u), nest::cat("_", u));
      flat_index = flat(u);
      emit_nodes(needed, in2, nest::cat("_", u), which::loads);
      lane_v[static_cast<std::size_t>(u)] = vname;
      lane_a[static_cast<std::size_t>(u)] = axis;
    }
    for (int u = 0; u < lanes; ++u) {
      vname = lane_v[static_cast<std::size_t>(u)];
      axis = lane_a[static_cast<std::size_t>(u)];
      flat_index = flat(u);
      emit_nodes(needed, in2, nest::cat("_", u), which::compute);
      at_lane(in2, flat(u));
    }
    s << ind << "}\n";
  }
  vname = saved_v;
  axis = saved_a;
  s << ind << "for (; " << c << " < " << n << "; " << c << " += " << step << ") {\n";
  unravel(in2, c, axes, "");
  if (prelude) prelude(in2, c, "");
  flat_index = c;
  emit_nodes(needed, in2, "", which::all);
  at_lane(in2, c);
  s << ind << "}\n";
  vname = saved_v;
  axis = saved_a;
  flat_index.clear();
}

void emitter::scratch_pointers(const std::string& ind, const std::string& counters, const std::string& count) {
  s << ind << "// Scratch: " << counters << " counter(s), then per reduction " << count
    << " partials (and their positions for argmin/argmax), 16-byte aligned.\n";
  s << ind << "unsigned* jf_counters = reinterpret_cast<unsigned*>(a.scratch);\n";
  s << ind << "unsigned char* jf_next = a.scratch + jf_nest::align16(4ull * (" << counters << "));\n";
  for (node_id r : f.reduces) {
    const std::string t = T(value_type(r));
    s << ind << t << "* part" << r << " = reinterpret_cast<" << t << "*>(jf_next);\n";
    s << ind << "jf_next += jf_nest::align16(sizeof(" << t << ") * (" << count << "));\n";
    if (is_arg_monoid(mono(r))) {
      s << ind << "long long* part" << r << "_pos = reinterpret_cast<long long*>(jf_next);\n";
      s << ind << "jf_next += jf_nest::align16(8ull * (" << count << "));\n";
    }
  }
}

void emitter::store_partial(const std::string& ind, node_id r, const std::string& index, const std::string& acc) {
  if (is_arg_monoid(mono(r))) {
    s << ind << "part" << r << "[" << index << "] = " << acc << ".value;\n";
    s << ind << "part" << r << "_pos[" << index << "] = " << acc << ".index;\n";
  } else {
    s << ind << "part" << r << "[" << index << "] = " << acc << ";\n";
  }
}

void emitter::last_split_block(const std::string& ind, const std::string& counter, const std::string& leave) {
  s << ind << "__threadfence();  // the partials are visible before the counter says so\n";
  s << ind << "__syncthreads();\n";
  s << ind << "__shared__ bool jf_last;\n";
  s << ind << "if (threadIdx.x == 0) {\n";
  s << ind << "  jf_last = atomicAdd(jf_counters + " << counter << ", 1u) == gridDim.y - 1;\n";
  s << ind << "  if (jf_last) jf_counters[" << counter << "] = 0;  // every split has counted: ready for the next launch\n";
  s << ind << "}\n";
  s << ind << "__syncthreads();\n";
  s << ind << "if (!jf_last) " << leave << ";\n";
  s << ind << "__threadfence();\n";
}

void emitter::combine_splits(const std::string& ind, node_id r, const std::string& acc, const std::string& splits,
                             const std::string& index_of_y) {
  s << ind << acc << " = " << identity(r) << ";\n";
  s << "#pragma unroll 8  // the partials' loads in flight together\n";
  s << ind << "for (long long y = 0; y < " << splits << "; ++y) " << acc << " = " << combine_fn(r) << "(" << acc << ", "
    << load_partial(r, index_of_y) << ");\n";
}

std::string emitter::load_partial(node_id r, const std::string& index) const {
  const std::string v = nest::cat("jf_nest::load_volatile(part", r) + " + " + index + ")";
  if (!is_arg_monoid(mono(r))) return v;
  return acc_type(r) + "{" + v + nest::cat(", jf_nest::load_volatile(part", r) + "_pos + " + index + ")}";
}

int emitter::widest_input() const {
  int widest = 1;
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (f.input_used[k]) widest = std::max(widest, size_of(g.inputs[k].type));
  return widest;
}

int emitter::unroll() const { return widest_input() >= 8 ? 4 : 8; }

kernel_source emitter::finish(launch_info li) {
  li.index32 = g.index32;
  li.operand_axes = operand_axes_;
  li.philox_chunks = chunked;
  li.round_key_params.clear();
  li.round_key_bits.clear();
  for (const operand_desc& in : g.inputs)
    if (in.gen != generator::none) {
      li.round_key_params.push_back(in.param);
      li.round_key_bits.push_back(in.bits);
    }
  for (node_id r : f.reduces) {
    li.partial_bytes.push_back(size_of(value_type(r)));
    if (is_arg_monoid(mono(r))) li.partial_bytes.push_back(8);
  }
  kernel_source k;
  k.name = kname;
  k.source = std::string(scalar_ops_source()) + s.str();
  k.launch = std::move(li);
  return k;
}

// ---- launch rules ---------------------------------------------------------------------------

std::int64_t product(const std::vector<std::int32_t>& axes, const std::int64_t* ext) {
  std::int64_t p = 1;
  for (std::int32_t a : axes) p *= ext[a];
  return p;
}

std::int64_t resident_blocks(const device_limits& dev, int threads) {
  return static_cast<std::int64_t>(std::max(1, dev.sm_count)) * std::max(1, dev.max_threads_per_sm / threads);
}

std::string offsets_ctype(const graph& g, std::size_t input) {
  const dtype t = g.inputs.at(input).type;
  if (t == dtype::int64) return "long long";
  if (t == dtype::int32) return "int";
  throw error("jetfuse codegen: offsets of dtype " + std::string(name(t)) + " (int64 or int32 only)");
}

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

std::size_t align16(std::size_t b) { return (b + 15) & ~std::size_t(15); }

std::vector<node_id> list_values_read_in(const emitter& e, domain_id inner, std::vector<char>& read) {
  const graph& g = e.g;
  read.assign(g.nodes.size(), 0);
  std::vector<node_id> values;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (n.domain != inner || e.f.uniform[k] || n.code != op::broadcast || e.f.uniform[static_cast<std::size_t>(n.args[0])])
      continue;
    const node_id x = n.args[0];
    if (read[static_cast<std::size_t>(x)]) continue;
    read[static_cast<std::size_t>(x)] = 1;
    values.push_back(x);
  }
  return values;
}

std::size_t scratch_bytes(const launch_info& li, std::int64_t counters, std::int64_t count) {
  std::size_t bytes = align16(4 * static_cast<std::size_t>(counters));
  for (int b : li.partial_bytes) bytes += align16(static_cast<std::size_t>(b) * static_cast<std::size_t>(count));
  return bytes;
}

}  // namespace nest

// ---- entry points ---------------------------------------------------------------------------

namespace codegen_detail {

kernel_source generate_nest(const graph& g, const codegen_options& opt) {
  for (const output_desc& o : g.outputs)
    if (o.same_as_input >= 0)
      throw error("jf::ir codegen: an output of a loop-nest graph shares memory with an input; the planner must "
                  "store it to a temporary first (reductions read other iterations' elements)");
  nest::emitter e(g, opt, kernel_name(g, opt));
  const nest::shape_plan p = nest::recognise(e.f);
  launch_info li;
  li.shape = p.shape;
  switch (p.shape) {
  case kernel_shape::full_reduction: nest::emit_full_reduction(e, p, li); break;
  case kernel_shape::row_reduction:
  case kernel_shape::row_with_map: nest::emit_row_reduction(e, p, li); break;
  case kernel_shape::column_reduction: nest::emit_column_reduction(e, p, li); break;
  case kernel_shape::histogram: nest::emit_histogram(e, p, li); break;
  case kernel_shape::scatter: nest::emit_scatter(e, p, li); break;
  case kernel_shape::scan: nest::emit_scan(e, p, li); break;
  case kernel_shape::list: nest::emit_list(e, p, li); break;
  case kernel_shape::pairs: nest::emit_pairs(e, p, li); break;
  default:
    if (!e.f.scans.empty())
      throw error("jf::ir codegen: a scan must be the one scan of its kernel, every output stored over its domain "
                  "and every node in that domain (the planner stores the rest first)\n" + g.to_string());
    if (!e.f.scatters.empty())
      throw error("jf::ir codegen: a scatter must be the one output of its kernel, its operands computed from nothing "
                  "reduced in the kernel (the planner stores them first)\n" + g.to_string());
    nest::emit_generic_nest(e, li);
    break;
  }
  return e.finish(std::move(li));
}

}  // namespace codegen_detail

launch_config configure_launch(const kernel_source& k, const std::int64_t* extents, int ndim, const device_limits& dev) {
  const launch_info& li = k.launch;
  for (int d = 0; d < ndim; ++d)
    if (extents[d] < 0) throw error(nest::cat("jf::ir::configure_launch: negative extent on axis ", d));
  auto check_axes = [&](const std::vector<std::int32_t>& axes) {
    for (std::int32_t a : axes)
      if (a < 0 || a >= ndim) throw error("jf::ir::configure_launch: kernel " + k.name + nest::cat(" uses axis ", a) +
                                          nest::cat(" but only ", ndim) + " extents were given");
  };
  check_axes(li.outer_axes);
  check_axes(li.reduced_axes);
  check_axes(li.map_axes);
  for (const auto& ph : li.phase_axes) check_axes(ph);
  switch (li.shape) {
  case kernel_shape::map: {
    launch_config c;
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= extents[d];
    const std::int64_t work = (n + li.vector_width - 1) / std::max(1, li.vector_width);
    // Vector maps: a block per tile of the whole array (each thread one 16-byte vector; the grid-
    // stride loop runs once): on an H200 at the copy's speed where a grid capped at 4 or 16 waves of
    // resident blocks stayed 5-7 % behind (bench/experiments/map_launch_variants.cu). Scalar maps
    // (strided or unaligned operands) keep 4 waves: a block per 256 such elements made the 2000^2
    // diffusion step 30 % slower (17.7 against 13.7 us; too little work per block). Row loops for
    // strided maps (the last axis on the grid's x, rows on y, no division per element) were slower
    // each time they were tried (docs/benchmarks.md; bench/experiments/strided_map_variants.cu; H200
    // 2026-11-29: 19.8 us with a row per y, 14.4 with rows within 4 waves, 13.7 flat): Nsight
    // Compute finds the kernel bound by its instructions (64-70 % SM throughput, DRAM 19 %), five
    // operands' offsets computed apart where the hand-written stencil has one address.
    const std::int64_t cap = li.vector_width > 1 ? std::int64_t(0x7fffffff) : nest::resident_blocks(dev, li.block) * 4;
    const std::int64_t blocks = std::min<std::int64_t>((work + li.block - 1) / li.block, cap);
    c.grid[0] = static_cast<unsigned>(blocks);
    c.block[0] = static_cast<unsigned>(li.block);
    return c;
  }
  case kernel_shape::full_reduction: return nest::configure_full_reduction(li, extents, dev);
  case kernel_shape::row_reduction:
  case kernel_shape::row_with_map: return nest::configure_row_reduction(li, extents, dev);
  case kernel_shape::column_reduction: return nest::configure_column_reduction(li, extents, dev);
  case kernel_shape::histogram: return nest::configure_histogram(li, extents, dev);
  case kernel_shape::scan: return nest::configure_scan(li, extents, dev);
  case kernel_shape::generic_nest: return nest::configure_generic_nest(li, extents, dev);
  case kernel_shape::list: return nest::configure_list(li, extents, dev);
  case kernel_shape::pairs: return nest::configure_pairs(li, extents, dev);
  case kernel_shape::scatter: {
    check_axes({li.scatter_axis});
    return nest::configure_scatter(li, extents, dev);
  }
  }
  throw error("jf::ir::configure_launch: unknown kernel shape");
}

namespace {
std::string describe_shape(const kernel_source& k) {
  const launch_info& li = k.launch;
  switch (li.shape) {
  case kernel_shape::map:
    return "map: a grid-stride loop, 256-thread blocks, a grid covering the whole array with vectors (else up to 4 waves of resident blocks)" +
           std::string(li.vector_width > 1 ? nest::cat(", ", li.vector_width) + "-element vectors" : "");
  case kernel_shape::full_reduction:
    return "full reduction: grid-stride accumulation in 256-thread blocks (2 waves of resident blocks at most), a "
           "block tree per block, one partial per block, the last block combines the partials in block order";
  case kernel_shape::row_reduction:
    return std::string(
               "row reduction: a warp per row (8 rows per block) for rows shorter than 2048, else a 256-thread "
               "block per row; each row combined in a fixed tree order") +
           (li.row_splits
                ? "; long rows split over blockIdx.y when a block a row would leave SMs idle (fewer rows than "
                  "a wave of blocks, or just past whole waves), the splits' partials combined in order by "
                  "the row's last block"
                : "");
  case kernel_shape::row_with_map: return nest::describe_row_with_map(li, nullptr);
  case kernel_shape::column_reduction:
    return "column reduction: a thread per column (256-column tiles), the reduced axes split over blockIdx.y when "
           "there are few columns (partials combined in split order by the last block of each tile)";
  case kernel_shape::histogram:
    return "histogram: grid-stride over the values in 256-thread blocks (2 waves of resident blocks at most), "
           "counts per warp group in shared memory when the bins fit (else global), added to the grid's counts by "
           "integer atomics (the same bits every run); the last block stores them";
  case kernel_shape::scan: return nest::describe_scan(li, nullptr);
  case kernel_shape::list: return nest::describe_list(li, nullptr);
  case kernel_shape::pairs: return nest::describe_pairs(li, nullptr);
  case kernel_shape::generic_nest:
    return "generic loop nest: a thread per iteration of each output domain, serial loops for the reductions";
  case kernel_shape::scatter:
    if (li.claim_bytes)
      return "scatter: launched 5 times, grid-stride in 256-thread blocks: the indices checked and each element "
             "named marked in a bitmap, the marks counted, then the values stored when no element was named twice; "
             "after a duplicate each target element claimed by its last writer (atomicMax of positions) and the "
             "values stored by the claimants; nothing after a failed check";
    return li.launches == 2
               ? std::string(
                     "scatter: launched twice, grid-stride in 256-thread blocks: the indices (or the values' "
                     "gathers) checked, then the values combined by atomics (or stored: unique or remembered "
                     "distinct indices, or the remembered winners), nothing after a failed check")
               : std::string(
                     "scatter: one launch, grid-stride in 256-thread blocks, the values combined by atomics (or "
                     "stored: unique or remembered distinct indices, or the remembered winners)");
  }
  return "?";
}
}  // namespace

std::string describe_launch(const kernel_source& k) {
  return describe_shape(k) +
         (k.launch.philox_chunks ? "; random leaves: a warp per chunk of 32 Philox blocks, each block computed once" : "");
}

std::string describe_launch(const kernel_source& k, const launch_config& c) {
  std::string s = k.launch.shape == kernel_shape::row_with_map ? nest::describe_row_with_map(k.launch, &c)
                  : k.launch.shape == kernel_shape::scan       ? nest::describe_scan(k.launch, &c)
                  : k.launch.shape == kernel_shape::list       ? nest::describe_list(k.launch, &c)
                  : k.launch.shape == kernel_shape::pairs      ? nest::describe_pairs(k.launch, &c)
                                                               : describe_launch(k);
  if (k.launch.shape == kernel_shape::row_reduction && c.grid[1] > 1)
    s += nest::cat("; each row split over ", c.grid[1]) + " blocks";
  s += nest::cat(" [grid ", c.grid[0]) + nest::cat("x", c.grid[1]) + nest::cat("x", c.grid[2]) +
       nest::cat(", block ", c.block[0]) + nest::cat("x", c.block[1]) + nest::cat("x", c.block[2]);
  if (c.shared_bytes) s += nest::cat(", ", c.shared_bytes) + " B shared";
  if (c.scratch_bytes) s += nest::cat(", ", c.scratch_bytes) + " B scratch";
  return s + "]";
}

}  // namespace jf::ir
