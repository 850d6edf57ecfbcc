// Kernel shape "pairs": reductions of each list's combinations into the list (docs/design.md,
// "Pairs domains (contract)" and "Pairs kernels"): ak.combinations(x, 2 or 3) -> element-wise body
// in registers -> reduce(m, body [if guard]) @ L, then the list's element-wise work and outputs;
// the combinations are never materialised. The dielectron query
//   max(sqrt(2 * e1.pt * e2.pt * (cosh(e1.eta - e2.eta) - cos(e1.phi - e2.phi))), -1)
// is one launch.
//
// Schedule (one launch, no host synchronisation):
//  Phase 1. A 256-thread block takes a tile of consecutive lists from a device counter (so a block
//   that drew light tiles takes more). It loads the tile's offsets to shared memory and counts each
//   list's combinations (an exclusive scan over the tile); a list with more than `heavy` (16384)
//   combinations, or more elements than the staging buffer holds, is queued for phase 2 instead.
//   Then, for each run of consecutive lists whose elements fit the staging buffer (all of a tile of
//   HEP lists), the block stages the fields the body reads in shared memory (coalesced loads, one
//   copy of a field that several slots read) and spreads the run's combinations evenly over its
//   threads: thread r takes the contiguous range [W r / 256, W (r + 1) / 256) of the run's flat
//   combination sequence and walks it in one loop, (list, j0, j1[, j2]) advanced incrementally with
//   the slot-0 (and slot-1) values hoisted out of the innermost index, the move to the next list a
//   short branch inside the loop. Every lane runs the body in every trip, whatever the lengths of
//   the lists. A list wholly inside one thread's range is combined by it; a list cut by
//   range boundaries is combined by the thread where it starts: its own partial, then the partials
//   of the following threads in thread order (a block-wide segmented reduction in shared memory).
//  Phase 2. Blocks done with the tiles take heavy lists from the queue in chunks of combinations
//   (ceil(C / 8192) chunks, at most ceil(n / 8)); thread t takes the chunk's combinations t, t + 256,
//   ... (a warp reads consecutive elements from global memory; the index advances by 256 with the
//   research's incremental carry), the block's tree gives the chunk's
//   partial, and the block that completes a list's last chunk combines the partials in chunk order
//   and computes the list's results. Blocks wait (sleeping) only while tiles are still being taken
//   by running blocks, so no block waits on one that has not started.
//
//  Warp segments instead of the runs (the generator's choice where every list is known to have at
//   most 16 elements or lists are short on average; forced by pairs_schedule::warp_segments): each
//   warp takes its share of the tile's lists and their combinations 32 at a time, a lane each, the
//   fields read in place; a segmented reduction over the lanes combines each list's part of the 32
//   left to right, which its first lane adds to the list's result. (Forced without the warp queue
//   where lists may be longer, the warp walks each list of more than 16 elements, lane l its
//   combinations l, l + 32, ...)
//  The warp queue (Q = 16 beside warp segments where lists may be longer; forced by
//   pairs_schedule::warp_queue = Q): a list of more than Q elements, not heavy, is queued as its
//   tile is counted (no combinations in the tile's runs or trips) and combined once every tile is
//   counted and no heavy chunk is left, a warp each, lane l its combinations l, l + 32, ..., then
//   the warp's tree; lane 0 writes the list's results. No block waits at a tile's barrier on one
//   long list.
//  With pairs_schedule::thread_max = T > 0 (forced; measured slower than the runs), a list of at
//   most T elements (both sides of a product) is left out of the runs and combined by one thread,
//   every combination in Awkward's order, its fields read in place (the hand-written hybrid's
//   shape for short events).
//  With pairs_schedule::list_weight = w > 0 (forced; measured slower), a run is split by weight:
//   4 units per combination and w per list, each thread's first combination kept in s_lo.
//
// Order of combination (fixed by the offsets alone: the same bits on every run, on any grid and at
// any timing): a light list's combinations are folded in Awkward's order within each thread's
// range, the ranges' partials left to right (in warp segments: the lanes' values left to right
// within a trip, the trips left to right; a walked or queued list: each lane's strided share in order,
// then the warp's tree); a heavy list's chunk: each thread its
// strided share in order, then jf_nest::group_allreduce's tree, then the chunks left to right (a thread per strided
// share of chunks and the tree). argmin/argmax carry the combination's rank in the list (Awkward's order), ties to the
// lowest rank whatever the order.
//
// A product domain (jf::cartesian: list i of a x list i of b, j_a slowest) runs in the same kernel:
// a list holds len_a * len_b pairs, rank r = u0 * len_b + u1, slot 0's fields are staged from a's
// run of lists and slot 1's from b's (b's offsets: the domain's source), and a list is heavy when
// either side overflows the staging buffer or it has more than `heavy` pairs (every such list has
// at least 257 elements on both sides together: the queue and the chunks are sized from both
// sides' element counts).
//
// Operands read in the pairs domain: a field of slot s (stride 0 along the lists and along the
// other slots: staged in shared memory, read at j_s), a value per list (stride 0 along every slot:
// read once per list), or anything else (read in place at i s_a + sum_k j_k s_b_k), as
// operand_desc::slot promises (compiled in) or, without a promise, as the strides say at run time.
#include <algorithm>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr int block_threads = 256;                  // threads per block (the kernel assumes it)
constexpr long long heavy_combinations = 16384;     // a list with more combinations is queued (phase 2)
constexpr long long chunk_combinations = 8192;      // a heavy list's chunks: ceil(C / 8192) ...
constexpr long long chunk_elements = 8;             // ... but at most ceil(n / 8) (bounds the partials)
constexpr std::int64_t warp_segments_longest = 16;  // lists of at most this many: warp segments
constexpr int max_cap = 4096;                       // staged elements per run at most
constexpr int max_static_shared = 46 * 1024;        // under the 48 KiB of static shared memory

long long combinations(long long n, int k) {
  if (n < k) return 0;
  return k == 2 ? n * (n - 1) / 2 : n * (n - 1) / 2 * (n - 2) / 3;
}

// Device helpers of the pairs kernels (guarded: several kernels may share a translation unit).
std::string pairs_helpers() {
  std::string h = R"(
#ifndef JF_PAIRS_HELPERS
#define JF_PAIRS_HELPERS
// Combinations of a list (ak.combinations order: lexicographic, j0 slowest), their ranks, and the
// device-side queue of heavy lists (docs/design.md, "Pairs kernels").
namespace jf_pairs {
constexpr long long heavy_combinations = )" +
                  std::to_string(heavy_combinations) + R"(LL;
constexpr long long chunk_combinations = )" +
                  std::to_string(chunk_combinations) + R"(LL;
constexpr long long chunk_elements = )" +
                  std::to_string(chunk_elements) + R"(LL;
// C(n, K), 0 when n < K (K = 2, 3; C(n, 3) fits in 64 bits up to n of about 3.8 million).
template <int K> __device__ __forceinline__ long long comb(long long n) {
  if (n < K) return 0;
  return K == 2 ? n * (n - 1) / 2 : n * (n - 1) / 2 * (n - 2) / 3;
}
// A heavy list is combined in phase 2: more combinations than a block should spend on one list in a
// tile, or more elements than the staging buffer holds.
template <int K> __device__ __forceinline__ bool heavy(long long n, int cap) {
  return n > cap || comb<K>(n) > heavy_combinations;
}
// The chunks of a heavy list's combinations (one block each).
template <int K> __device__ __forceinline__ long long chunks(long long n) {
  const long long by_work = (comb<K>(n) + chunk_combinations - 1) / chunk_combinations;
  const long long by_size = (n + chunk_elements - 1) / chunk_elements;
  const long long c = by_work < by_size ? by_work : by_size;
  return c > 0 ? c : 1;
}
// A cartesian product's list (na x nb pairs): heavy as a list of combinations, its chunks bounded
// by both sides' elements, the pair of rank r.
__device__ __forceinline__ bool heavy_product(long long na, long long nb, int cap) {
  return na > cap || nb > cap || na * nb > heavy_combinations;
}
__device__ __forceinline__ long long chunks_product(long long na, long long nb) {
  const long long by_work = (na * nb + chunk_combinations - 1) / chunk_combinations;
  const long long by_size = (na + nb + chunk_elements - 1) / chunk_elements;
  const long long c = by_work < by_size ? by_work : by_size;
  return c > 0 ? c : 1;
}
__device__ __forceinline__ void unrank_product(long long nb, long long r, long long& u0, long long& u1) {
  u0 = r / nb;
  u1 = r - u0 * nb;
}
// The pair of rank r (0 <= r < C(n, 2)): rows before u0 hold F(u0) = u0 (2n - u0 - 1) / 2 pairs.
__device__ __forceinline__ void unrank2(long long n, long long r, long long& u0, long long& u1) {
  const double b = 2.0 * static_cast<double>(n) - 1.0;
  long long x = static_cast<long long>((b - sqrt(b * b - 8.0 * static_cast<double>(r))) * 0.5);
  if (x > n - 2) x = n - 2;
  if (x < 0) x = 0;
  while (x > 0 && x * (2 * n - x - 1) / 2 > r) --x;
  while (x < n - 2 && (x + 1) * (2 * n - x - 2) / 2 <= r) ++x;
  u0 = x;
  u1 = x + 1 + (r - x * (2 * n - x - 1) / 2);
}
// The same in 32-bit arithmetic for a list of at most 181 elements (a light list: r < 16384), the
// square root in single precision (within one of the row; the loops correct it).
__device__ __forceinline__ void unrank2_light(int n, int r, int& u0, int& u1) {
  const float b = static_cast<float>(2 * n - 1);
  int x = static_cast<int>((b - sqrtf(b * b - 8.0f * static_cast<float>(r))) * 0.5f);
  if (x > n - 2) x = n - 2;
  if (x < 0) x = 0;
  while (x > 0 && x * (2 * n - x - 1) / 2 > r) --x;
  while (x < n - 2 && (x + 1) * (2 * n - x - 2) / 2 <= r) ++x;
  u0 = x;
  u1 = x + 1 + (r - x * (2 * n - x - 1) / 2);
}
// The triple of rank r (0 <= r < C(n, 3)): triples with a first index below u0 number
// C(n, 3) - C(n - u0, 3) (a binary search), then the pair of the rest among the n - u0 - 1 after it.
__device__ __forceinline__ void unrank3(long long n, long long r, long long& u0, long long& u1, long long& u2) {
  const long long total = comb<3>(n);
  long long lo = 0, hi = n - 3;
  while (lo < hi) {
    const long long mid = (lo + hi + 1) >> 1;
    if (total - comb<3>(n - mid) <= r) lo = mid;
    else hi = mid - 1;
  }
  long long v0, v1;
  unrank2(n - lo - 1, r - (total - comb<3>(n - lo)), v0, v1);
  u0 = lo;
  u1 = lo + 1 + v0;
  u2 = lo + 1 + v1;
}
// Exclusive prefix sum of v over the block (blockDim.x a multiple of 32, at most 1024); *total gets
// the block's sum. s: 32 ints of shared memory. Every thread must call it.
__device__ __forceinline__ int block_exclusive_scan(int v, int* s, int* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  int x = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  if (lane == 31) s[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int w = lane < warps ? s[lane] : 0;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += y;
    }
    if (lane < warps) s[lane] = w;
  }
  __syncthreads();
  const int before = (warp ? s[warp - 1] : 0) + x - v;
  *total = s[warps - 1];
  __syncthreads();  // s may be reused
  return before;
}
// The largest t1 in [t0, nl] with off[t1] <= limit (off non-decreasing, off[t0] <= limit).
__device__ __forceinline__ int last_fitting(const long long* off, int t0, int nl, long long limit) {
  int lo = t0, hi = nl;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (off[mid] <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
// The list holding combination `at`: the largest t in [t0, t1) with pre[t] <= at (pre[t1] > at).
__device__ __forceinline__ int list_at(const int* pre, int t0, int t1, int at) {
  int lo = t0, hi = t1 - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (pre[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
// Weighted split of a run (pairs_schedule::list_weight = w): list t's units start at
// 4 (pre[t] - pre[t0]) + w (t - t0), its setup (w units), then 4 per combination. The first
// combination (rank in the run) of a thread whose range starts at unit u: the first of the list
// holding u that starts at or after u (the next list's first when u is past its last).
__device__ __forceinline__ int first_at_unit(const int* pre, int t0, int t1, int w, long long u) {
  int lo = t0, hi = t1 - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (4LL * (pre[mid] - pre[t0]) + static_cast<long long>(w) * (mid - t0) <= u) lo = mid;
    else hi = mid - 1;
  }
  const int c = pre[lo + 1] - pre[lo];
  const long long into = u - 4LL * (pre[lo] - pre[t0]) - static_cast<long long>(w) * (lo - t0) - w;
  const long long k = into <= 0 ? 0 : (into + 3) / 4;
  return pre[lo] - pre[t0] + static_cast<int>(k < c ? k : c);
}
// A heavy list in the queue: its list, its first partial, its chunks; chunks taken, chunks done.
struct entry {
  long long list, base, chunks;
  unsigned taken, arrived;
};
}  // namespace jf_pairs
#endif
)";
  return h;
}

}  // namespace

pairs_schedule& pairs_schedule_override() {
  static pairs_schedule s;
  return s;
}

void emit_pairs(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const domain_id L = p.outer, P = p.inner;
  const int K = g.dom(P).arity;
  const std::int32_t A = g.dom(L).axes[0];
  const std::vector<std::int32_t>& B = g.dom(P).axes;
  const std::size_t offsets = static_cast<std::size_t>(g.dom(L).source);
  const bool X = g.dom(P).kind == domain_kind::product;  // a cartesian product: slot 1 walks b's offsets
  const std::size_t offsets_b = X ? static_cast<std::size_t>(g.dom(P).source) : offsets;
  const std::vector<node_id>& reduces = e.f.reduces;
  li.block = block_threads;
  li.outer_axes = {A};
  li.reduced_axes = B;
  li.pairs_arity = K;
  li.pairs_product = X;
  e.add_operand_axis(g.outputs.size() + offsets, A);
  if (X) e.add_operand_axis(g.outputs.size() + offsets_b, A);
  // Per list (device code): its pairs, whether it is heavy, its chunks; na (n) and nb its lengths.
  const std::string Ks = std::to_string(K);
  auto count_of = [&](const std::string& n, const std::string& nb) {
    return X ? "(" + n + ") * (" + nb + ")" : "jf_pairs::comb<" + Ks + ">(" + n + ")";
  };
  auto heavy_of = [&](const std::string& n, const std::string& nb) {
    return X ? "jf_pairs::heavy_product(" + n + ", " + nb + ", jf_cap)"
             : "jf_pairs::heavy<" + Ks + ">(" + n + ", jf_cap)";
  };
  // Slot k's first element: of a's list (qb, jb) or, in a product, slot 1's of b's (qb1, jb1).
  auto base_of = [&](const char* stem, int k) {
    std::string r(stem);
    if (X && k == 1) r += '1';
    return r;
  };
  e.max_threads = block_threads;

  // Values of L that P reads (broadcasts, computed before the reductions: the recogniser's one pass).
  std::vector<char> list_val;
  const std::vector<node_id> before = list_values_read_in(e, P, list_val);
  const std::vector<char> none(g.nodes.size(), 0);
  std::vector<node_id> reduce_args;
  for (node_id r : reduces)
    for (int k = 0; k < g.at(r).nargs; ++k) reduce_args.push_back(g.at(r).args[static_cast<std::size_t>(k)]);
  const std::vector<char> need0 = cone(g, before, none);
  const std::vector<char> need1 = cone(g, reduce_args, list_val);
  const std::vector<char> need2 = cone(g, e.f.outputs_in(L), none);

  // Operands of P read in the body: a slot's field (staged), a value per list, or other strides, as
  // operand_desc::slot promises or, without its promise, as the strides say at run time.
  struct field {
    node_id x;
    std::size_t k;  // the kernel input
    dtype t;
    int hint;  // 0 .. K - 1: the slot's field; K: a value per list; -1: classified at run time
  };
  auto staged = [K](const field& fd) { return fd.hint != K; };  // (at run time: when its strides say so)
  std::vector<field> fields;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const node& n = g.nodes[k];
    if (!need1[k] || n.code != op::input || n.domain != P) continue;
    const operand_desc& in = g.inputs[static_cast<std::size_t>(n.index)];
    if (in.lay == layout::scalar || in.gen != generator::none) continue;  // emit_nodes reads those
    const int hint = in.slot >= 0 && in.slot <= K ? in.slot : -1;
    fields.push_back({static_cast<node_id>(k), static_cast<std::size_t>(n.index), n.type, hint});
  }
  // Staging order: wider dtypes first (every field's offset stays aligned: cap is a multiple of 8).
  std::vector<field> by_size;
  for (const field& fd : fields)
    if (staged(fd)) by_size.push_back(fd);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const field& x, const field& y) { return size_of(x.t) > size_of(y.t); });

  // Shared memory: lists per tile and staging bytes that fit in the static 48 KiB.
  std::size_t per_list = (X ? 16 : 8) + 4, per_block = 32 * 4 + 64;
  for (node_id r : reduces) {
    const std::size_t v = static_cast<std::size_t>(size_of(e.value_type(r))) + (is_arg_monoid(e.mono(r)) ? 8 : 0);
    per_list += v;
    per_block += block_threads * v + 33 * (is_arg_monoid(e.mono(r)) ? 16 : v) + 16;  // heads, group_allreduce
  }
  for (node_id x : before) per_list += static_cast<std::size_t>(size_of(g.at(x).type));
  int tile_lists = 0, stage_bytes = 0;
  const pairs_schedule forced = pairs_schedule_override();
  for (int tl : {1024, 512, 256}) {
    if (forced.tile_lists && tl != forced.tile_lists) continue;
    for (int st : {16384, 8192, 24576}) {
      if (forced.stage_bytes ? st != forced.stage_bytes : st == 24576) continue;
      if (per_block + per_list * static_cast<std::size_t>(tl + 1) + static_cast<std::size_t>(st) <= max_static_shared) {
        tile_lists = tl;
        stage_bytes = st;
        break;
      }
    }
    if (tile_lists) break;
  }
  // A weighted split keeps each thread's first combination in shared memory (s_lo, 257 ints), taken
  // from the staging buffer so that as many blocks stay resident.
  const int list_weight = std::max(forced.list_weight, 0);
  constexpr int s_lo_bytes = 1040;
  if (list_weight > 0 && tile_lists) {
    stage_bytes -= s_lo_bytes;
    per_block += s_lo_bytes;
  }
  if (!tile_lists)
    throw error("jf::ir codegen: a pairs kernel with " + std::to_string(reduces.size()) + " reductions and " +
                std::to_string(before.size()) +
                " per-list values does not fit in shared memory (docs/design.md, \"Pairs kernels\")\n" + g.to_string());
  const int lists_per_thread = tile_lists / block_threads;
  std::size_t all_bytes = 0;
  for (const field& fd : by_size) all_bytes += static_cast<std::size_t>(size_of(fd.t));
  const int cap_min =
      all_bytes == 0 ? max_cap
                     : std::min<int>(max_cap, static_cast<int>(static_cast<std::size_t>(stage_bytes) / all_bytes) & ~7);
  if (cap_min < 8)
    throw error("jf::ir codegen: a pairs kernel reading " + std::to_string(fields.size()) +
                " operands per combination cannot stage 8 elements of each (docs/design.md, \"Pairs kernels\")\n" +
                g.to_string());
  int n_heavy = K;  // the shortest list with more than heavy_combinations combinations
  while (combinations(n_heavy, K) <= heavy_combinations) ++n_heavy;
  if (X) n_heavy = 257;  // na * nb > 16384 needs na + nb >= 257
  li.pairs_min_heavy = std::min(cap_min + 1, n_heavy);
  li.pairs_tile_lists = tile_lists;
  // Lists combined by one thread each (fields read in place), outside the staged runs: a shape to
  // measure against the runs (bench_pairs, bench_dielectron); off unless forced.
  // (Never a heavy list: at most n_heavy - 1 elements, 128 on both sides of a product.)
  const int thread_max = std::min({forced.thread_max, cap_min, X ? 128 : n_heavy - 1});
  li.pairs_thread_max = std::max(thread_max, 0);
  // Lists in warp segments: each warp of the block takes its share of the tile's lists and their
  // combinations 32 at a time, a lane each, the fields read in place (no staging, no block-wide
  // split); a segmented reduction over the lanes gives each list's part of the 32. The generator's
  // choice where every list is known to be short (domain::longest: at most 16 elements, 120 pairs,
  // 560 triples), or where lists are short on average (domain::short_on_average: at most 1.875
  // elements) beside the warp queue below; not for products (b's lengths are not known). Forced
  // either way for tests and benchmarks.
  const std::int64_t longest = g.dom(L).longest;
  const bool all_short = longest >= 0 && longest <= warp_segments_longest;
  const bool warp_segments =
      !X && (forced.warp_segments > 0 || (forced.warp_segments == 0 && (all_short || g.dom(L).short_on_average)));
  li.pairs_warp_segments = warp_segments;
  // The warp queue: lists of more than Q elements (not heavy, not a thread's) are queued on the
  // device as the tiles are counted and combined once every tile is, a warp each (lane l its
  // combinations l, l + 32, ..., then the warp's tree; lane 0 writes the list's results), so that
  // no block waits at a tile's barrier on a warp (or its threads) busy with one long list: the
  // hand-written hybrid's shape. The generator's choice beside warp segments where lists may be
  // longer than 16 elements (Q = 16: (B) of issue 11, 0.5 % of events with 64 electrons, 785 us
  // against 850 for the warp's own walk and 867 for the staged runs); not for products; none where
  // no list can be that long.
  const int queue_over = forced.warp_queue > 0    ? forced.warp_queue
                         : forced.warp_queue == 0 ? (warp_segments ? static_cast<int>(warp_segments_longest) : 0)
                                                  : 0;
  const int warp_queue =
      X || queue_over <= 0 || (longest >= 0 && longest <= queue_over) ? 0 : std::max(queue_over, forced.thread_max);
  li.pairs_warp_queue = warp_queue;
  // Lists of more than 16 elements in warp segments (forced), not queued: walked by their warp.
  const bool walk_longer = warp_segments && !all_short && !(warp_queue > 0 && warp_queue <= warp_segments_longest);
  // Whether list (n, nb) is combined by its own thread (device code).
  auto short_of = [&](const std::string& n, const std::string& nb) {
    const std::string t = std::to_string(thread_max);
    return X ? n + " <= " + t + " && " + nb + " <= " + t : n + " <= " + t;
  };
  li.list_stage_items = cap_min;

  std::string plan =
      cat("Tiles of ", tile_lists) + cat(" lists of D", L) +
      " taken from a device counter by 256-thread blocks; each run of" + "\nlists whose fields fit " +
      std::to_string(stage_bytes) + " bytes of shared memory is staged and its combinations of D" + std::to_string(P) +
      "\nspread evenly over the threads (per-list partials combined in thread order); lists with more than " +
      std::to_string(heavy_combinations) +
      "\ncombinations are queued and combined in chunks by blocks done with the tiles.";
  if (warp_segments)
    plan = cat("Tiles of ", tile_lists) + cat(" lists of D", L) +
           " taken from a device counter by 256-thread blocks; each warp takes its share of" +
           cat("\na tile's lists and their combinations of D", P) +
           " 32 at a time, a lane each, fields read in place (a segmented" +
           "\nreduction over the lanes per list); lists with more than " + std::to_string(heavy_combinations) +
           "\ncombinations are queued and combined in chunks by blocks done with the tiles.";
  if (warp_queue > 0)
    plan += cat("\nLists of more than ", warp_queue) + " elements: queued, a warp each after the tiles.";
  if (thread_max > 0)
    plan += cat("\nLists of at most ", thread_max) + " elements: a thread each, fields read in place.";
  if (list_weight > 0) plan += cat("\nThe runs split by weight: 4 per combination, ", list_weight) + " per list.";
  li.pairs_list_weight = list_weight;
  e.header(p, plan);
  s << pairs_helpers();
  e.args_struct();
  // Registers for as many blocks per SM as the shared memory admits (228 KiB per SM on H100 and H200,
  // 1 KiB reserved per block), up to 5: the walk's state would otherwise take 64 registers (4 blocks).
  const bool stage = !by_size.empty() && !warp_segments;  // (warp segments read the fields in place)
  li.static_shared_bytes = static_cast<int>(per_block + per_list * static_cast<std::size_t>(tile_lists + 1) +
                                            static_cast<std::size_t>(stage ? stage_bytes : 16));
  bool runtime = false;  // operands classified at run time
  for (const field& fd : fields) runtime = runtime || fd.hint < 0;
  if (X && runtime)
    throw error("jf::ir codegen: a product kernel needs every operand's slot promised (operand_desc::slot)\n" +
                g.to_string());
  // (Not with operands classified at run time: their selects need the registers; they spill else.)
  if (!runtime) e.min_blocks = std::clamp(233472 / (li.static_shared_bytes + 1024), 1, 5);
  e.open_kernel(
      "// Launch: 256-thread blocks (the kernel assumes it), grid fixed by configure_launch; scratch: counters,\n"
      "// the heavy-list queue and its chunks' partials (sized from the element count).\n");
  e.prologue("  ");
  const std::string ne = X ? cat("e", B[0]) + cat(" + e", B[1]) : cat("e", B[0]);
  s << "  const " << offsets_ctype(g, offsets) << "* __restrict__ jf_off = a.in" << offsets << ";  // the offsets of D"
    << L << "\n";
  s << "  const long long jf_st_off = a.st_in" << offsets << "[" << A << "];\n";
  if (X) {
    s << "  const " << offsets_ctype(g, offsets_b) << "* __restrict__ jf_offb = a.in" << offsets_b
      << ";  // the offsets of slot 1's lists\n";
    s << "  const long long jf_st_offb = a.st_in" << offsets_b << "[" << A << "];\n";
  }
  s << "  const long long jf_nl = e" << A << ";  // lists\n";
  s << "  const long long jf_ne = " << ne << ";  // elements (sizes the queue)\n";
  s << "  const int me = static_cast<int>(threadIdx.x);\n";

  // ---- operands of the body: their roles, and one staged copy of each field
  auto nm = [](const char* stem, node_id x) { return cat(stem, x); };
  // Operand k's stride along global axis `axis` (1 along the chain's last axis of a contiguous one:
  // the layout's promise), read from the kernel's argument where it is used.
  auto stride = [&](std::size_t k, std::int32_t axis) {
    if (g.inputs[k].lay == layout::contiguous && axis == B[static_cast<std::size_t>(K - 1)]) return std::string("1LL");
    return "a.st_in" + std::to_string(k) + "[" + std::to_string(axis) + "]";
  };
  if (runtime)
    s << "  // Operands without a promised role: md = s < " << K << ": slot s's field (staged), " << K
      << ": a value per list, " << K + 1 << ": read in place.\n";
  for (const field& fd : fields) {
    const node_id x = fd.x;
    if (fd.hint == K) {
      s << "  // %" << x << " (input #" << fd.k << "): a value per list\n";
      continue;
    }
    if (fd.hint >= 0) {
      s << "  const long long " << nm("es", x) << " = " << stride(fd.k, B[static_cast<std::size_t>(fd.hint)])
        << ";  // %" << x << " (input #" << fd.k << "): slot " << fd.hint << "'s field, its stride per element\n";
      s << "  bool " << nm("own", x) << " = true;  // staged, not a copy of another\n";
      s << "  int " << nm("src", x) << " = " << x << ";\n";
      continue;
    }
    s << "  const int " << nm("md", x) << " = ";  // %x: its role from its strides
    for (int k = 0; k < K; ++k) {
      s << stride(fd.k, A) << " == 0";
      for (int o = 0; o < K; ++o)
        s << " && " << stride(fd.k, B[static_cast<std::size_t>(o)]) << (o == k ? " != 0" : " == 0");
      s << " ? " << k << " : ";
    }
    s << "(";
    for (int o = 0; o < K; ++o) s << (o ? " && " : "") << stride(fd.k, B[static_cast<std::size_t>(o)]) << " == 0";
    s << ") ? " << K << " : " << K + 1 << ";  // %" << x << " (input #" << fd.k << ")\n";
    s << "  const long long " << nm("es", x) << " = ";
    for (int k = 0; k + 1 < K; ++k)
      s << nm("md", x) << " == " << k << " ? " << stride(fd.k, B[static_cast<std::size_t>(k)]) << " : ";
    s << stride(fd.k, B[static_cast<std::size_t>(K - 1)]) << ";  // its stride per element\n";
    s << "  bool " << nm("own", x) << " = " << nm("md", x) << " < " << K << ";  // staged, not a copy of another\n";
    s << "  int " << nm("src", x) << " = " << x << ";\n";
  }
  // A field several slots (or nodes) read is staged once: same pointer, same stride per element.
  // (In node order: an earlier field's `own` is final when a later one is compared with it.)
  for (std::size_t i = 0; i < fields.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const field &fx = fields[i], &fy = fields[j];
      if (!staged(fx) || !staged(fy) || fx.t != fy.t || (X && fx.hint != fy.hint)) continue;
      const node_id x = fx.x, y = fy.x;
      s << "  if (" << nm("own", x) << " && " << nm("own", y) << " && a.in" << fx.k << " == a.in" << fy.k << " && "
        << nm("es", x) << " == " << nm("es", y) << ") {\n";
      s << "    " << nm("own", x) << " = false;\n";
      s << "    " << nm("src", x) << " = " << y << ";\n";
      s << "  }\n";
    }
  s << "  int jf_bpe = 0;  // staged bytes per element\n";
  for (const field& fd : by_size) s << "  if (" << nm("own", fd.x) << ") jf_bpe += " << size_of(fd.t) << ";\n";
  s << "  int jf_cap = jf_bpe > 0 ? " << stage_bytes << " / jf_bpe : " << max_cap << ";  // staged elements per run\n";
  s << "  jf_cap = (jf_cap < " << max_cap << " ? jf_cap : " << max_cap << ") & ~7;\n";
  s << "  __shared__ alignas(16) unsigned char s_stage[" << (stage ? stage_bytes : 16) << "];\n";
  s << "  (void)s_stage;\n";
  if (stage) {
    s << "  int jf_so = 0;\n";
    for (const field& fd : by_size) {
      s << "  int " << nm("so", fd.x) << " = 0;\n";
      s << "  if (" << nm("own", fd.x) << ") {\n";
      s << "    " << nm("so", fd.x) << " = jf_so;\n";
      s << "    jf_so += jf_cap * " << size_of(fd.t) << ";\n";
      s << "  }\n";
    }
    for (const field& fx : by_size)
      for (const field& fy : by_size)
        if (fy.x < fx.x && fx.t == fy.t)
          s << "  if (" << nm("src", fx.x) << " == " << fy.x << ") " << nm("so", fx.x) << " = " << nm("so", fy.x)
            << ";\n";
    for (const field& fd : by_size)
      s << "  " << e.T(fd.t) << "* const " << nm("W", fd.x) << " = reinterpret_cast<" << e.T(fd.t) << "*>(s_stage + "
        << nm("so", fd.x) << ");\n";
  }

  // ---- shared memory and scratch
  s << "  __shared__ long long s_off[" << tile_lists + 1 << "];\n";
  if (X) s << "  __shared__ long long s_offb[" << tile_lists + 1 << "];  // slot 1's lists\n";
  s << "  __shared__ int s_pre[" << tile_lists + 1 << "];  // combinations before each list (light lists)\n";
  s << "  __shared__ int s_scan[32];\n";
  if (list_weight > 0)
    s << "  __shared__ int s_lo[" << block_threads + 1 << "];  // each thread's first combination in the run\n";
  s << "  __shared__ long long s_tile, s_we, s_wc;\n";
  s << "  __shared__ bool s_last;\n";
  for (node_id r : reduces) {
    const std::string t = e.T(e.value_type(r));
    s << "  __shared__ " << t << " s_res" << r << "[" << tile_lists << "], s_hd" << r << "[" << block_threads
      << "];  // %" << r << ": per list, per thread's first list\n";
    if (is_arg_monoid(e.mono(r)))
      s << "  __shared__ long long s_resp" << r << "[" << tile_lists << "], s_hdp" << r << "[" << block_threads
        << "];\n";
  }
  for (node_id x : before)
    s << "  __shared__ " << e.T(g.at(x).type) << " s_lv" << x << "[" << tile_lists << "];  // %" << x << " per list\n";
  s << "  // Scratch: counters [tiles taken, tiles done, heavy lists, first heavy list not exhausted], the\n"
       "  // chunk total, counters [warp-queue lists, taken]; ready flags (zeroed by the launcher), queue\n"
       "  // entries, chunk partials, the warp queue.\n";
  s << "  unsigned* const jf_ctr = reinterpret_cast<unsigned*>(a.scratch);\n";
  s << "  unsigned long long* const jf_nchunks = reinterpret_cast<unsigned long long*>(a.scratch + 16);\n";
  s << "  const long long jf_maxq = jf_ne / " << li.pairs_min_heavy << " + 1;  // heavy lists at most\n";
  s << "  unsigned* const jf_ready = reinterpret_cast<unsigned*>(a.scratch + 32);\n";
  s << "  jf_pairs::entry* const jf_entries = reinterpret_cast<jf_pairs::entry*>(a.scratch + jf_nest::align16(32 + "
       "4ull * jf_maxq));\n";
  s << "  unsigned char* jf_next = reinterpret_cast<unsigned char*>(jf_entries) + "
       "jf_nest::align16(sizeof(jf_pairs::entry) * jf_maxq);\n";
  s << "  const long long jf_maxc = jf_ne / jf_pairs::chunk_elements + jf_maxq;  // chunks at most\n";
  for (node_id r : reduces) {
    const std::string t = e.T(e.value_type(r));
    s << "  " << t << "* const part" << r << " = reinterpret_cast<" << t << "*>(jf_next);\n";
    s << "  jf_next += jf_nest::align16(sizeof(" << t << ") * jf_maxc);\n";
    if (is_arg_monoid(e.mono(r))) {
      s << "  long long* const part" << r << "_pos = reinterpret_cast<long long*>(jf_next);\n";
      s << "  jf_next += jf_nest::align16(8ull * jf_maxc);\n";
    }
  }
  if (warp_queue > 0) {
    s << "  long long* const jf_wq = reinterpret_cast<long long*>(jf_next);  // the warp queue's lists\n";
    s << "  jf_next += jf_nest::align16(8ull * (jf_ne / " << warp_queue + 1 << " + 1));\n";
  }
  s << "  (void)jf_next;\n";
  s << "  const long long ntiles = (jf_nl + " << tile_lists - 1 << ") / " << tile_lists << ";\n";

  const auto saved = e.vname;
  auto restore = [&] {
    e.vname = saved;
    std::fill(e.axis.begin(), e.axis.end(), std::string());
    std::fill(e.kept.begin(), e.kept.end(), std::string());
    e.flat_index.clear();
  };
  auto store_acc = [&](const std::string& ind, const std::string& arr, const std::string& index,
                       const std::string& acc) {
    for (node_id r : reduces) {
      if (is_arg_monoid(e.mono(r))) {
        s << ind << "s_" << arr << r << "[" << index << "] = " << acc << r << ".value;\n";
        s << ind << "s_" << arr << "p" << r << "[" << index << "] = " << acc << r << ".index;\n";
      } else {
        s << ind << "s_" << arr << r << "[" << index << "] = " << acc << r << ";\n";
      }
    }
  };
  auto load_acc = [&](node_id r, const std::string& arr, const std::string& index) {
    if (is_arg_monoid(e.mono(r)))
      return e.acc_type(r) + "{s_" + arr + std::to_string(r) + "[" + index + "], s_" + arr + "p" + std::to_string(r) +
             "[" + index + "]}";
    return "s_" + arr + std::to_string(r) + "[" + index + "]";
  };
  auto declare_accs = [&](const std::string& ind, const std::string& prefix) {
    for (node_id r : reduces) s << ind << e.acc_type(r) << " " << prefix << r << " = " << e.identity(r) << ";\n";
  };
  // The list's results (accumulator expressions), L's nodes, L's outputs; axis A at `il`.
  auto finish_list = [&](const std::string& ind, const std::vector<std::string>& accs) {
    e.axis[static_cast<std::size_t>(A)] = "il";
    for (std::size_t k = 0; k < reduces.size(); ++k) {
      const node_id r = reduces[k];
      s << ind << "const " << e.T(g.at(r).type) << " v" << r << " = " << e.result(r, accs[k]) << ";\n";
      e.vname[static_cast<std::size_t>(r)] = cat("v", r);
    }
    e.emit_nodes(need2, ind, "", emitter::which::all);
    e.store_outputs(ind, L);
    restore();
  };
  // The body at the current combination: the fields' values (from `read(x, slot)`: staged or in
  // place), P's nodes, the accumulation at rank `rank`. Hoisted values h<k><x> (slots below K - 1)
  // and hl<x> (per list) are declared by the caller.
  auto body = [&](const std::string& ind, const std::function<std::string(const field&, int)>& read,
                  const std::string& rank, const std::string& prefix) {
    for (const field& fd : fields) {
      const node_id x = fd.x;
      std::string v;
      if (fd.hint == K) {
        v = nm("hl", x);
      } else if (fd.hint == K - 1) {
        v = read(fd, K - 1);
      } else if (fd.hint >= 0) {
        v = cat("h", fd.hint) + std::to_string(x);
      } else {
        std::string general = "in" + std::to_string(fd.k) + "[il * " + stride(fd.k, A);
        for (int k = 0; k < K; ++k)
          general += cat(" + (jb + u", k) + ") * " + stride(fd.k, B[static_cast<std::size_t>(k)]);
        general += "]";
        v = nm("md", x) + cat(" == ", K - 1) + " ? " + read(fd, K - 1) + " : " + nm("md", x) + cat(" == ", K + 1) +
            " ? " + general + " : " + (K == 2 ? nm("h0", x) : nm("h1", x));
      }
      s << ind << "const " << e.T(fd.t) << " " << nm("vp", x) << " = " << v << ";\n";
      e.vname[static_cast<std::size_t>(x)] = nm("vp", x);
    }
    e.emit_nodes(need1, ind, "", emitter::which::all);
    for (node_id r : reduces) e.accumulate(ind, r, prefix + std::to_string(r), rank);
  };
  // The values of the slots below K - 1, hoisted out of the faster indices: re-read when slot
  // `level`'s index moves.
  auto hoist = [&](const std::string& ind, int level, const std::function<std::string(const field&, int)>& read,
                   bool declare) {
    for (const field& fd : fields) {
      const node_id x = fd.x;
      const std::string h = cat("h", level) + std::to_string(x), decl = declare ? e.T(fd.t) + " " : std::string();
      if (fd.hint == level) {
        s << ind << decl << h << " = " << read(fd, level) << ";\n";
      } else if (fd.hint < 0) {
        const std::string prev = level == 0 ? nm("hl", x) : nm("h0", x);
        s << ind << decl << h << " = " << nm("md", x) << " == " << level << " ? " << read(fd, level) << " : " << prev
          << ";\n";
      }
    }
  };
  // Values per list (read once per list): promised ones, and those the strides say are.
  auto list_values = [&](const std::string& ind, bool declare) {
    for (const field& fd : fields) {
      const std::string load = "in" + std::to_string(fd.k) + "[il * " + stride(fd.k, A) + "]";
      const std::string lhs = (declare ? e.T(fd.t) + " " : std::string()) + nm("hl", fd.x);
      if (fd.hint == K)
        s << ind << lhs << " = " << load << ";\n";
      else if (fd.hint < 0)
        s << ind << lhs << " = " << nm("md", fd.x) << " == " << K << " ? " << load << " : static_cast<" << e.T(fd.t)
          << ">(0);\n";
    }
  };
  // The next combination `stride` places on in Awkward's order, within one list (the research's
  // incremental carry: the overflow of the fastest index moves to the next row), re-reading the
  // hoisted values when a slower index moved.
  auto advance_by = [&](const std::string& ind, const std::string& stride_,
                        const std::function<std::string(const field&, int)>& read) {
    if (X) {  // a product's rank: u0 * nb + u1 (slot 0's values re-read only while u0 is in the list)
      s << ind << "u1 += " << stride_ << ";\n";
      s << ind << "if (u1 >= nb) {\n";
      s << ind << "  u0 += u1 / nb;\n";
      s << ind << "  u1 %= nb;\n";
      s << ind << "  if (u0 < n) {\n";
      hoist(ind + "    ", 0, read, false);
      s << ind << "  }\n";
      s << ind << "}\n";
    } else if (K == 2) {
      s << ind << "u1 += " << stride_ << ";\n";
      s << ind << "if (u1 >= n) {\n";
      s << ind << "  while (u1 >= n && u0 < n - 2) {\n";
      s << ind << "    const auto x = u1 - n;\n";
      s << ind << "    ++u0;\n";
      s << ind << "    u1 = u0 + 1 + x;\n";
      s << ind << "  }\n";
      hoist(ind + "  ", 0, read, false);
      s << ind << "}\n";
    } else {
      s << ind << "u2 += " << stride_ << ";\n";
      s << ind << "if (u2 >= n) {\n";
      s << ind << "  while (u2 >= n && (u0 < n - 3 || u1 < n - 2)) {\n";
      s << ind << "    const auto x = u2 - n;\n";
      s << ind << "    if (++u1 == n - 1) {\n";
      s << ind << "      ++u0;\n";
      s << ind << "      u1 = u0 + 1;\n";
      s << ind << "    }\n";
      s << ind << "    u2 = u1 + 1 + x;\n";
      s << ind << "  }\n";
      hoist(ind + "  ", 0, read, false);
      hoist(ind + "  ", 1, read, false);
      s << ind << "}\n";
    }
  };
  // The next combination in Awkward's order (u_{K-1} fastest), re-reading the hoisted values.
  auto advance = [&](const std::string& ind, const std::function<std::string(const field&, int)>& read) {
    if (X) {
      s << ind << "if (++u1 == nb) {\n";
      s << ind << "  u1 = 0;\n";
      s << ind << "  if (++u0 < n) {\n";
      hoist(ind + "    ", 0, read, false);
      s << ind << "  }\n";
      s << ind << "}\n";
    } else if (K == 2) {
      s << ind << "if (++u1 == n) {\n";
      s << ind << "  ++u0;\n";
      s << ind << "  u1 = u0 + 1;\n";
      hoist(ind + "  ", 0, read, false);
      s << ind << "}\n";
    } else {
      s << ind << "if (++u2 == n) {\n";
      s << ind << "  if (++u1 == n - 1) {\n";
      s << ind << "    ++u0;\n";
      s << ind << "    u1 = u0 + 1;\n";
      hoist(ind + "    ", 0, read, false);
      s << ind << "  }\n";
      s << ind << "  u2 = u1 + 1;\n";
      hoist(ind + "  ", 1, read, false);
      s << ind << "}\n";
    }
  };
  auto name_axes = [&] {
    e.axis[static_cast<std::size_t>(A)] = "il";
    for (int k = 0; k < K; ++k) {
      std::string v = "(";  // appended: g++ 12's -Wrestrict misfires on "(" + std::string
      v += base_of("jb", k);
      v += cat(" + u", k);
      v += ")";
      e.axis[static_cast<std::size_t>(B[static_cast<std::size_t>(k)])] = v;
    }
  };
  auto name_list_values = [&](const std::string& t) {
    for (node_id x : before) e.vname[static_cast<std::size_t>(x)] = cat("s_lv", x) + "[" + t + "]";
  };

  // ================= Phase 1: tiles =================
  const std::string in = "    ", in2 = in + "  ", in3 = in2 + "  ", in4 = in3 + "  ", in5 = in4 + "  ",
                    in6 = in5 + "  ";
  s << "\n  // ---- Phase 1: tiles of lists, taken from a counter.\n";
  s << "  for (;;) {\n";
  s << in << "__syncthreads();  // the previous tile is done with the shared arrays\n";
  s << in << "if (me == 0) s_tile = atomicAdd(jf_ctr, 1u);\n";
  s << in << "__syncthreads();\n";
  s << in << "const long long tile = s_tile;\n";
  s << in << "if (tile >= ntiles) break;\n";
  s << in << "const long long i0 = tile * " << tile_lists << ";\n";
  s << in << "const int nl = static_cast<int>(jf_nl - i0 < " << tile_lists << " ? jf_nl - i0 : " << tile_lists
    << ");\n";
  s << in << "for (int t = me; t <= nl; t += " << block_threads << ") s_off[t] = jf_off[(i0 + t) * jf_st_off];\n";
  if (X)
    s << in << "for (int t = me; t <= nl; t += " << block_threads << ") s_offb[t] = jf_offb[(i0 + t) * jf_st_offb];\n";
  s << in << "__syncthreads();\n";
  s << in << "// Per list: its combinations (0 for a heavy list, queued), identity results, values P reads.\n";
  s << in << "int jf_c[" << lists_per_thread << "];\n";
  s << in << "int jf_mine = 0;\n";
  s << in << "for (int u = 0; u < " << lists_per_thread << "; ++u) {\n";
  s << in2 << "const int t = me * " << lists_per_thread << " + u;\n";
  s << in2 << "int c = 0;\n";
  s << in2 << "if (t < nl) {\n";
  s << in3 << "const long long n = s_off[t + 1] - s_off[t];\n";
  if (X) s << in3 << "const long long nb = s_offb[t + 1] - s_offb[t];\n";
  s << in3 << "const I il = static_cast<I>(i0 + t);\n";
  s << in3 << "if (" << heavy_of("n", "nb") << ") {  // to the queue: phase 2 combines it\n";
  s << in4 << "const long long m = "
    << (X ? std::string("jf_pairs::chunks_product(n, nb)") : "jf_pairs::chunks<" + Ks + ">(n)") << ";\n";
  s << in4 << "const unsigned q = atomicAdd(jf_ctr + 2, 1u);\n";
  s << in4 << "jf_entries[q].list = static_cast<long long>(il);\n";
  s << in4
    << "jf_entries[q].base = static_cast<long long>(atomicAdd(jf_nchunks, static_cast<unsigned long long>(m)));\n";
  s << in4 << "jf_entries[q].chunks = m;\n";
  s << in4 << "jf_entries[q].taken = 0u;\n";
  s << in4 << "jf_entries[q].arrived = 0u;\n";
  s << in4 << "__threadfence();  // the entry before its flag\n";
  s << in4 << "atomicExch(jf_ready + q, 1u);\n";
  s << in3 << "} else {\n";
  s << in4 << "c = static_cast<int>(" << count_of("n", "nb") << ");\n";
  if (warp_queue > 0) {
    s << in4 << "if (n > " << warp_queue << ") {  // to the warp queue (after the tiles): not in the "
      << (warp_segments ? "trips" : "runs") << "\n";
    s << in5 << "c = 0;\n";
    s << in5 << "jf_wq[atomicAdd(jf_ctr + 6, 1u)] = static_cast<long long>(il);\n";
    s << in5 << "__threadfence();  // the entry before the tile is counted done\n";
    s << in4 << "}\n";
  }
  if (walk_longer) s << in4 << "if (n > " << warp_segments_longest << ") c = 0;  // walked (below): not in the trips\n";
  if (thread_max > 0)
    s << in4 << "if (" << short_of("n", "nb") << ") c = 0;  // its own thread's (below): not in the runs\n";
  s << in3 << "}\n";
  for (node_id r : reduces) {
    s << in3 << "s_res" << r << "[t] = " << (is_arg_monoid(e.mono(r)) ? e.identity(r) + ".value" : e.identity(r))
      << ";\n";
    if (is_arg_monoid(e.mono(r))) s << in3 << "s_resp" << r << "[t] = -1;\n";
  }
  if (!before.empty()) {
    e.axis[static_cast<std::size_t>(A)] = "il";
    e.emit_nodes(need0, in3, "", emitter::which::all);
    for (node_id x : before) s << in3 << "s_lv" << x << "[t] = " << e.vname[static_cast<std::size_t>(x)] << ";\n";
    restore();
  }
  s << in2 << "}\n";
  s << in2 << "jf_c[u] = c;\n";
  s << in2 << "jf_mine += c;\n";
  s << in << "}\n";
  s << in << "int jf_total;\n";
  s << in << "int jf_at = jf_pairs::block_exclusive_scan(jf_mine, s_scan, &jf_total);\n";
  s << in << "for (int u = 0; u < " << lists_per_thread << "; ++u) {\n";
  s << in2 << "const int t = me * " << lists_per_thread << " + u;\n";
  s << in2 << "if (t < nl) s_pre[t] = jf_at;\n";
  s << in2 << "jf_at += jf_c[u];\n";
  s << in << "}\n";
  s << in << "if (me == 0) s_pre[nl] = jf_total;\n";
  s << in << "__syncthreads();\n";
  s << in << "if (me == 0) {\n";
  s << in2 << "__threadfence();\n";
  s << in2 << "atomicAdd(jf_ctr + 1, 1u);  // this tile's heavy lists are queued\n";
  s << in << "}\n";

  // The walk over a list's combinations in Awkward's order, up to its first trip's body: the
  // per-list values, the fields of the outer slots hoisted, the loop `loop`, the body at rank r.
  // (Both walks, a thread's own list and a thread's range of a run, then advance and close it.)
  auto open_walk = [&](const std::string& ind, const std::function<std::string(const field&, int)>& read,
                       const std::string& loop) {
    const std::string inner = ind + "  ";
    list_values(ind, true);
    hoist(ind, 0, read, true);
    if (K == 3) hoist(ind, 1, read, true);
    s << ind << loop << "\n";
    name_axes();
    name_list_values("t");
    body(inner, read, "r", "acc");
    restore();
    s << inner << "++r;\n";
  };
  auto direct_read = [&](const field& fd, int k) {
    return "in" + std::to_string(fd.k) + "[(" + base_of("jb", k) + cat(" + u", k) + ") * " + nm("es", fd.x) + "]";
  };
  if (thread_max > 0) {
    // Short lists: a thread each, every combination in Awkward's order, the fields read in place
    // (adjacent threads, adjacent lists); the result to s_res like a run's.
    s << in << "for (int t = me; t < nl; t += " << block_threads << ") {  // lists of at most " << thread_max
      << " elements: a thread each\n";
    s << in2 << "const int n = static_cast<int>(s_off[t + 1] - s_off[t]);\n";
    if (X) s << in2 << "const int nb = static_cast<int>(s_offb[t + 1] - s_offb[t]);\n";
    s << in2 << "if (!(" << short_of("n", "nb") << ")) continue;\n";
    s << in2 << "const long long jb = s_off[t];\n";
    if (X) s << in2 << "const long long jb1 = s_offb[t];\n";
    s << in2 << "const I il = static_cast<I>(i0 + t);\n";
    declare_accs(in2, "acc");
    s << in2 << "const int cnt = static_cast<int>(" << count_of("n", "nb") << ");\n";
    s << in2 << "if (cnt > 0) {\n";
    s << in3 << "int r = 0, ";
    for (int k = 0; k < K; ++k) s << (k ? ", " : "") << "u" << k << " = " << (X ? 0 : k);
    s << ";\n";
    open_walk(in3, direct_read, "for (int f = 0; f < cnt; ++f) {");
    s << in4 << "if (f + 1 < cnt) {  // (past the last combination nothing is read)\n";
    advance(in5, direct_read);
    s << in4 << "}\n";
    s << in3 << "}\n";
    s << in2 << "}\n";
    store_acc(in2, "res", "t", "acc");
    s << in << "}\n";
    s << in << "__syncthreads();  // (the results loop below reads s_res of other threads' lists)\n";
  }

  // The combination of rank r (int) in a list of n (int) elements, not heavy: (u0, u1[, u2]), the
  // list's values and the outer slots' fields hoisted (warp segments, a walk, the warp queue).
  auto combination_at_r = [&](const std::string& ind) {
    if (K == 2) {
      s << ind << "int u0, u1;\n";
      s << ind << "jf_pairs::unrank2_light(n, r, u0, u1);\n";
    } else {
      s << ind << "long long w0, w1, w2;\n";
      s << ind << "jf_pairs::unrank3(n, r, w0, w1, w2);\n";
      s << ind << "int u0 = static_cast<int>(w0), u1 = static_cast<int>(w1), u2 = static_cast<int>(w2);\n";
    }
    list_values(ind, true);
    hoist(ind, 0, direct_read, true);
    if (K == 3) hoist(ind, 1, direct_read, true);
  };
  // for (; r < end; r += stride): the body at rank r, then the next combination `stride` on.
  auto strided_walk = [&](const std::string& ind, const std::string& end, const std::string& stride,
                          const std::vector<std::string>& named) {
    s << ind << "for (; r < " << end << "; r += " << stride << ") {\n";
    name_axes();
    body(ind + "  ", direct_read, "r", "acc");
    e.vname = named;
    std::fill(e.axis.begin(), e.axis.end(), std::string());
    advance_by(ind + "  ", stride, direct_read);
    s << ind << "}\n";
  };
  // A list (n, jb, il in scope, its values named as `named`) walked by the warp into acc<r>: lane l
  // its combinations l, l + 32, ... in Awkward's order (a walked or queued list; then the warp's tree).
  auto warp_walk = [&](const std::string& ind, const std::vector<std::string>& named) {
    s << ind << "const int cnt = static_cast<int>(" << count_of("n", "") << ");\n";
    declare_accs(ind, "acc");
    s << ind << "int r = lane;  // lane l: the combinations l, l + 32, ... in Awkward's order\n";
    s << ind << "if (r < cnt) {\n";
    combination_at_r(ind + "  ");
    strided_walk(ind + "  ", "cnt", "32", named);
    s << ind << "}\n";
  };

  if (warp_segments) {
    // Warp w: lists [w S, (w + 1) S) of the tile, their combinations 32 at a time in Awkward's order,
    // combination q by lane q % 32; then, per list, the lanes' values combined left to right (a
    // segmented reduction: lane i takes lane i + d's partial while it is in the same list) and the
    // list's first lane adds the result to s_res after the earlier trips' (the same order).
    const int per_warp = tile_lists / (block_threads / 32);
    // List t's length, first element and index.
    auto list_head = [&](const std::string& ind) {
      s << ind << "const int n = static_cast<int>(s_off[t + 1] - s_off[t]);\n";
      s << ind << "const long long jb = s_off[t];\n";
      s << ind << "const I il = static_cast<I>(i0 + t);\n";
    };
    s << in << "{  // warp segments\n";
    s << in2 << "const int lane = me & 31, jf_w0 = (me >> 5) * " << per_warp << ";\n";
    s << in2 << "const int t0 = jf_w0 < nl ? jf_w0 : nl, t1 = jf_w0 + " << per_warp << " < nl ? jf_w0 + " << per_warp
      << " : nl;\n";
    s << in2 << "const int ce = s_pre[t1];\n";
    s << in2 << "for (int q0 = s_pre[t0]; q0 < ce; q0 += 32) {  // (the same trips for every lane of the warp)\n";
    s << in3 << "const int q = q0 + lane;\n";
    s << in3 << "int t = t1;  // the lane's list (t1: past the segment)\n";
    declare_accs(in3, "acc");
    s << in3 << "if (q < ce) {\n";
    s << in4 << "t = jf_pairs::list_at(s_pre, t0, t1, q);\n";
    list_head(in4);
    s << in4 << "const int r = q - s_pre[t];  // the combination's rank in its list\n";
    combination_at_r(in4);
    name_axes();
    name_list_values("t");
    body(in4, direct_read, "r", "acc");
    restore();
    s << in3 << "}\n";
    s << in3 << "const int tp = __shfl_up_sync(jf_nest::full_mask, t, 1);\n";
    s << in3 << "const bool head = lane == 0 || tp != t;  // the list's first lane in this trip\n";
    s << in3 << "const unsigned after = __ballot_sync(jf_nest::full_mask, head) & ~((2u << lane) - 1u);\n";
    s << in3 << "const int last = after ? __ffs(after) - 2 : 31;  // the list's last lane in this trip\n";
    s << in3 << "#pragma unroll\n";
    s << in3 << "for (int d = 1; d < 32; d <<= 1) {\n";
    for (node_id r : reduces) {
      s << in4 << "const " << e.acc_type(r) << " o" << r << " = jf_nest::shfl_down(acc" << r << ", d);\n";
      s << in4 << "if (lane + d <= last) acc" << r << " = " << e.combine_fn(r) << "(acc" << r << ", o" << r << ");\n";
    }
    s << in3 << "}\n";
    s << in3 << "if (head && t < t1) {\n";
    for (node_id r : reduces)
      s << in4 << "acc" << r << " = " << e.combine_fn(r) << "(" << load_acc(r, "res", "t") << ", acc" << r << ");\n";
    store_acc(in4, "res", "t", "acc");
    s << in3 << "}\n";
    s << in2 << "}\n";
    // Longer lists (forced warp segments: more than 16 elements, not heavy, not queued): the warp
    // walks each, lane l its combinations l, l + 32, ... (phase 2's walk), then the lanes' tree.
    // Not emitted where no list is longer (its registers cost the trips 5 % on the H200).
    const std::string is_longer = cat(" > ", warp_segments_longest) + " && !" + heavy_of("nl_", "") +
                                  (thread_max > 0 ? " && !(" + short_of("nl_", "") + ")" : std::string()) +
                                  (warp_queue > 0 ? cat(" && nl_ <= ", warp_queue) : std::string());
    if (walk_longer) {
      s << in2 << "for (int tb = t0; tb < t1; tb += 32) {  // lists of more than " << warp_segments_longest
        << " elements: the warp walks each\n";
      s << in3 << "const int tl = tb + lane;\n";
      s << in3 << "const int nl_ = tl < t1 ? static_cast<int>(s_off[tl + 1] - s_off[tl]) : 0;\n";
      s << in3 << "unsigned jf_walk = __ballot_sync(jf_nest::full_mask, nl_" << is_longer << ");\n";
      s << in3 << "while (jf_walk) {\n";
      s << in4 << "const int t = tb + __ffs(jf_walk) - 1;\n";
      s << in4 << "jf_walk &= jf_walk - 1u;\n";
      list_head(in4);
      name_list_values("t");
      warp_walk(in4, e.vname);
      restore();
      for (node_id r : reduces)
        s << in4 << "acc" << r << " = jf_nest::warp_reduce(acc" << r << ", " << e.combine_lambda(r) << ");\n";
      s << in4 << "if (lane == 0) {\n";
      store_acc(in5, "res", "t", "acc");
      s << in4 << "}\n";
      s << in3 << "}\n";
      s << in2 << "}\n";
    }
    s << in << "}\n";
    s << in << "__syncthreads();  // (the results loop below reads s_res of other warps' lists)\n";
  } else {
    // Runs of lists whose elements fit the staging buffer.
    s << in << "for (int t0 = 0; t0 < nl;) {\n";
    s << in2 << "const long long lb = s_off[t0];\n";
    if (X) {  // both sides' elements fit
      s << in2 << "const long long lb1 = s_offb[t0];\n";
      s << in2 << "const int ta = jf_pairs::last_fitting(s_off, t0, nl, lb + jf_cap);\n";
      s << in2 << "const int tb = jf_pairs::last_fitting(s_offb, t0, nl, lb1 + jf_cap);\n";
      s << in2 << "const int t1 = ta < tb ? ta : tb;\n";
    } else {
      s << in2 << "const int t1 = jf_pairs::last_fitting(s_off, t0, nl, lb + jf_cap);\n";
    }
    s << in2 << "if (t1 == t0) {  // a list longer than the buffer (heavy, queued)\n";
    s << in3 << "++t0;\n";
    s << in3 << "continue;\n";
    s << in2 << "}\n";
    s << in2 << "const int W = s_pre[t1] - s_pre[t0];  // the run's combinations\n";
    s << in2 << "if (W == 0) {\n";
    s << in3 << "t0 = t1;\n";
    s << in3 << "continue;\n";
    s << in2 << "}\n";
    if (!by_size.empty()) {
      // A few loads in flight per thread (more would cost registers the body needs).
      const int lanes = std::clamp(8 / static_cast<int>(by_size.size()), 1, 4);
      s << in2 << "const int cnt0 = static_cast<int>(s_off[t1] - lb);\n";
      if (X) {
        s << in2 << "const int cnt1 = static_cast<int>(s_offb[t1] - lb1);\n";
        s << in2 << "const int cnt = cnt0 > cnt1 ? cnt0 : cnt1;\n";
      } else {
        s << in2 << "const int cnt = cnt0;\n";
      }
      // A field's own count and first element (slot 1 of a product: b's run).
      auto cnt_of = [&](const field& fd) { return X && fd.hint == 1 ? std::string("cnt1") : std::string("cnt0"); };
      auto lb_of = [&](const field& fd) { return X && fd.hint == 1 ? std::string("lb1") : std::string("lb"); };
      s << in2 << "// Staged: each field once, coalesced, " << lanes << " load(s) of each per thread per trip.\n";
      s << in2 << "for (int q = me; q < cnt; q += " << lanes * block_threads << ") {\n";
      for (int u = 0; u < lanes; ++u)
        for (const field& fd : by_size) {
          const std::string qq = u ? cat("q + ", u * block_threads) : std::string("q");
          s << in3 << e.T(fd.t) << " " << nm("l", fd.x) << "_" << u << "{};\n";
          s << in3 << "if (" << nm("own", fd.x) << " && " << qq << " < " << cnt_of(fd) << ") " << nm("l", fd.x) << "_"
            << u << " = in" << fd.k << "[(" << lb_of(fd) << " + " << qq << ") * " << nm("es", fd.x) << "];\n";
        }
      for (int u = 0; u < lanes; ++u)
        for (const field& fd : by_size) {
          const std::string qq = u ? cat("q + ", u * block_threads) : std::string("q");
          s << in3 << "if (" << nm("own", fd.x) << " && " << qq << " < " << cnt_of(fd) << ") " << nm("W", fd.x) << "["
            << qq << "] = " << nm("l", fd.x) << "_" << u << ";\n";
        }
      s << in2 << "}\n";
      s << in2 << "__syncthreads();\n";
    }
    s << in2 << "// Thread me: combinations [lo, hi) of the run, in Awkward's order.\n";
    if (list_weight > 0) {
      s << in2 << "// Split by weight: 4 units per combination and " << list_weight << " per list (its setup).\n";
      s << in2 << "s_lo[me] = jf_pairs::first_at_unit(s_pre, t0, t1, " << list_weight << ", (4LL * W + " << list_weight
        << "LL * (t1 - t0)) * me / " << block_threads << ");\n";
      s << in2 << "if (me == 0) s_lo[" << block_threads << "] = W;\n";
      s << in2 << "__syncthreads();\n";
      s << in2 << "const int lo = s_lo[me], hi = s_lo[me + 1];\n";
    } else {
      s << in2 << "const int lo = static_cast<int>(static_cast<long long>(W) * me / " << block_threads
        << "), hi = static_cast<int>(static_cast<long long>(W) * (me + 1) / " << block_threads << ");\n";
    }
    s << in2 << "int own = -1;  // the list this thread starts and a later thread continues\n";
    declare_accs(in2, "oacc");
    // One flat loop over the range: every lane runs the body in every trip (the ranges are equal to
    // one combination); moving to the next list is a short branch inside it.
    auto staged_read = [&](const field& fd, int k) {
      return nm("W", fd.x) + "[" + base_of("qb", k) + cat(" + u", k) + "]";
    };
    auto list_setup = [&](const std::string& ind) {
      s << ind << "pb = s_pre[t] - s_pre[t0];  // the list's combinations in the run: [pb, pe)\n";
      s << ind << "pe = s_pre[t + 1] - s_pre[t0];\n";
      s << ind << "n = static_cast<int>(s_off[t + 1] - s_off[t]);\n";
      s << ind << "qb = static_cast<int>(s_off[t] - lb);  // its first staged element\n";
      s << ind << "jb = s_off[t];\n";
      if (X) {
        s << ind << "nb = static_cast<int>(s_offb[t + 1] - s_offb[t]);\n";
        s << ind << "qb1 = static_cast<int>(s_offb[t] - lb1);  // slot 1's first staged element\n";
        s << ind << "jb1 = s_offb[t];\n";
      }
      s << ind << "il = static_cast<I>(i0 + t);\n";
    };
    s << in2 << "if (lo < hi) {\n";
    s << in3 << "int t = jf_pairs::list_at(s_pre, t0, t1, s_pre[t0] + lo);\n";
    s << in3 << "int pb, pe, n, qb" << (X ? ", nb, qb1" : "") << ";\n";
    s << in3 << "long long jb" << (X ? ", jb1" : "") << ";\n";
    s << in3 << "I il;\n";
    list_setup(in3);
    s << in3 << "int r = lo - pb;  // the combination's rank in its list\n";
    s << in3 << "int ";
    for (int k = 0; k < K; ++k) s << (k ? ", " : "") << "u" << k;
    s << ";\n";
    s << in3 << "{  // the range's first combination (the next ones are walked to)\n";
    s << in4 << "long long ";
    for (int k = 0; k < K; ++k) s << (k ? ", " : "") << "w" << k;
    s << ";\n";
    s << in4 << (X ? std::string("jf_pairs::unrank_product(nb, r") : "jf_pairs::unrank" + Ks + "(n, r");
    for (int k = 0; k < K; ++k) s << ", w" << k;
    s << ");\n";
    for (int k = 0; k < K; ++k) s << in4 << "u" << k << " = static_cast<int>(w" << k << ");\n";
    s << in3 << "}\n";
    declare_accs(in3, "acc");
    open_walk(in3, staged_read, "for (int f = lo; f < hi; ++f) {");
    advance(in4, staged_read);
    s << in4 << "if (f + 1 == pe) {  // the list's last combination\n";
    s << in5 << "if (pb < lo) {  // started before this thread: its first list, continued from the left\n";
    store_acc(in6, "hd", "me", "acc");
    s << in5 << "} else {  // wholly in this thread's range\n";
    store_acc(in6, "res", "t", "acc");
    s << in5 << "}\n";
    for (node_id r : reduces) s << in5 << "acc" << r << " = " << e.identity(r) << ";\n";
    s << in5 << "if (f + 1 < hi) {  // the next list with combinations, from its first\n";
    const std::string in7 = in6 + "  ";
    s << in6 << "++t;\n";
    s << in6 << "while (s_pre[t + 1] == s_pre[t]) ++t;\n";
    list_setup(in6);
    s << in6 << "r = 0;\n";
    for (int k = 0; k < K; ++k) s << in6 << "u" << k << " = " << (X ? 0 : k) << ";\n";
    list_values(in6, false);
    hoist(in6, 0, staged_read, false);
    if (K == 3) hoist(in6, 1, staged_read, false);
    s << in5 << "}\n";
    s << in4 << "}\n";
    s << in3 << "}\n";
    s << in3 << "if (pe > hi) {  // the range's last list goes on after it\n";
    s << in4 << "if (pb < lo) {  // started before too: this thread's part is a head\n";
    store_acc(in5, "hd", "me", "acc");
    s << in4 << "} else {  // started here: this thread combines it\n";
    s << in5 << "own = t;\n";
    for (node_id r : reduces) s << in5 << "oacc" << r << " = acc" << r << ";\n";
    s << in4 << "}\n";
    s << in3 << "}\n";
    s << in2 << "}\n";
    s << in2 << "__syncthreads();\n";
    s << in2 << "if (own >= 0) {  // the lists cut by range boundaries: the partials in thread order\n";
    s << in3 << "const int pe = s_pre[own + 1] - s_pre[t0];\n";
    // The threads after this one whose ranges start inside the list: up to the last whose first
    // combination (W r2 / 256, found once; s_lo[r2] when split by weight) is below pe, so that the
    // loop is a load and a combine per thread.
    if (list_weight > 0) {
      s << in3 << "for (int r2 = me + 1; r2 < " << block_threads << " && s_lo[r2] < pe; ++r2) {\n";
      s << in4 << "if (s_lo[r2 + 1] == s_lo[r2]) continue;  // an empty range\n";
    } else {
      s << in3 << "const long long jf_rl = (static_cast<long long>(" << block_threads << ") * pe + W - 1) / W - 1;\n";
      s << in3 << "const int rl = static_cast<int>(jf_rl < " << block_threads - 1 << " ? jf_rl : " << block_threads - 1
        << ");\n";
      s << in3 << "for (int r2 = me + 1; r2 <= rl; ++r2) {\n";
      s << in4 << "if (W < " << block_threads << " && static_cast<int>(static_cast<long long>(W) * (r2 + 1) / "
        << block_threads << ") == static_cast<int>(static_cast<long long>(W) * r2 / " << block_threads
        << ")) continue;  // an empty range (only when the run has fewer combinations than threads)\n";
    }
    for (node_id r : reduces)
      s << in4 << "oacc" << r << " = " << e.combine_fn(r) << "(oacc" << r << ", " << load_acc(r, "hd", "r2") << ");\n";
    s << in3 << "}\n";
    store_acc(in3, "res", "own", "oacc");
    s << in2 << "}\n";
    s << in2 << "__syncthreads();  // the staging buffer and the heads are free again\n";
    s << in2 << "t0 = t1;\n";
    s << in << "}\n";
  }
  // Per list: results, L's nodes, outputs.
  s << in << "for (int t = me; t < nl; t += " << block_threads << ") {  // each light list's results and outputs\n";
  s << in2 << "if (" << heavy_of("s_off[t + 1] - s_off[t]", "s_offb[t + 1] - s_offb[t]")
    << ") continue;  // phase 2 writes it\n";
  if (warp_queue > 0)
    s << in2 << "if (s_off[t + 1] - s_off[t] > " << warp_queue << ") continue;  // the warp queue writes it\n";
  s << in2 << "const I il = static_cast<I>(i0 + t);\n";
  {
    std::vector<std::string> accs;
    for (node_id r : reduces) accs.push_back(load_acc(r, "res", "t"));
    finish_list(in2, accs);
  }
  s << in << "}\n";
  s << "  }\n";

  // Where a list is combined outside a tile (phase 2, the warp queue): list il's values P reads,
  // named (returns the names to restore after each body).
  auto name_list_values_of_il = [&](const std::string& ind, const std::string& suffix) {
    if (!before.empty()) {
      e.axis[static_cast<std::size_t>(A)] = "il";
      e.emit_nodes(need0, ind, suffix, emitter::which::all);
      e.axis[static_cast<std::size_t>(A)].clear();
    }
    return e.vname;
  };
  // The list's results from the accumulators acc<r> (its values named as `named`).
  auto finish_from_accs = [&](const std::string& ind, const std::vector<std::string>& named) {
    e.vname = named;
    std::vector<std::string> accs;
    for (node_id r : reduces) accs.push_back(cat("acc", r));
    finish_list(ind, accs);
  };

  // ================= Phase 2: heavy lists in chunks =================
  s << "\n  // ---- Phase 2: heavy lists from the queue, a chunk of combinations per block at a time.\n";
  s << "  unsigned jf_cursor = 0;  // (thread 0) the first entry that may have chunks left\n";
  s << "  for (;;) {\n";
  s << in << "if (me == 0) {\n";
  s << in2 << "long long we = -1, wc = 0;\n";
  s << in2 << "unsigned cur = jf_nest::load_volatile(jf_ctr + 3);\n";
  s << in2 << "if (cur < jf_cursor) cur = jf_cursor;\n";
  s << in2 << "for (;;) {\n";
  s << in3 << "if (cur < jf_nest::load_volatile(jf_ctr + 2)) {\n";
  s << in4 << "while (jf_nest::load_volatile(jf_ready + cur) == 0u) __nanosleep(64);\n";
  s << in4 << "__threadfence();\n";
  s << in4 << "const long long m = jf_nest::load_volatile(&jf_entries[cur].chunks);\n";
  s << in4 << "const unsigned c = atomicAdd(&jf_entries[cur].taken, 1u);\n";
  s << in4 << "if (static_cast<long long>(c) < m) {\n";
  s << in5 << "we = cur;\n";
  s << in5 << "wc = c;\n";
  s << in5 << "break;\n";
  s << in4 << "}\n";
  s << in4 << "++cur;\n";
  s << in4 << "atomicMax(jf_ctr + 3, cur);\n";
  s << in4 << "continue;\n";
  s << in3 << "}\n";
  s << in3
    << "if (static_cast<long long>(jf_nest::load_volatile(jf_ctr + 1)) >= ntiles) {  // every tile queued its lists\n";
  s << in4 << "__threadfence();\n";
  s << in4 << "if (cur >= jf_nest::load_volatile(jf_ctr + 2)) break;\n";
  s << in4 << "continue;\n";
  s << in3 << "}\n";
  s << in3 << "__nanosleep(256);  // tiles are still being counted by running blocks\n";
  s << in2 << "}\n";
  s << in2 << "jf_cursor = cur;\n";
  s << in2 << "s_we = we;\n";
  s << in2 << "s_wc = wc;\n";
  s << in << "}\n";
  s << in << "__syncthreads();\n";
  s << in << "const long long we = s_we, wc = s_wc;\n";
  s << in << "if (we < 0) break;\n";
  s << in << "const long long il_l = jf_nest::load_volatile(&jf_entries[we].list);\n";
  s << in << "const long long base = jf_nest::load_volatile(&jf_entries[we].base);\n";
  s << in << "const long long m = jf_nest::load_volatile(&jf_entries[we].chunks);\n";
  s << in << "const I il = static_cast<I>(il_l);\n";
  s << in << "const long long jb = jf_off[il_l * jf_st_off], n = jf_off[(il_l + 1) * jf_st_off] - jb;\n";
  if (X) s << in << "const long long jb1 = jf_offb[il_l * jf_st_offb], nb = jf_offb[(il_l + 1) * jf_st_offb] - jb1;\n";
  s << in << "const long long total = " << count_of("n", "nb") << ", size = (total + m - 1) / m;\n";
  s << in
    << "const long long x0 = wc * size < total ? wc * size : total, x1 = x0 + size < total ? x0 + size : total;\n";
  s << in << "// Thread me: the chunk's combinations x0 + me, x0 + me + " << block_threads
    << ", ... (a warp reads consecutive elements).\n";
  const auto saved_before = name_list_values_of_il(in, "_l");
  declare_accs(in, "acc");
  s << in << "long long r = x0 + me;\n";
  s << in << "if (r < x1) {\n";
  s << in2 << "long long ";
  for (int k = 0; k < K; ++k) s << (k ? ", " : "") << "u" << k;
  s << ";\n";
  s << in2 << (X ? std::string("jf_pairs::unrank_product(nb, r") : "jf_pairs::unrank" + Ks + "(n, r");
  for (int k = 0; k < K; ++k) s << ", u" << k;
  s << ");\n";
  list_values(in2, true);
  hoist(in2, 0, direct_read, true);
  if (K == 3) hoist(in2, 1, direct_read, true);
  strided_walk(in2, "x1", std::to_string(block_threads), saved_before);
  s << in << "}\n";
  for (node_id r : reduces)
    s << in << "acc" << r << " = jf_nest::group_allreduce(acc" << r << ", " << e.combine_lambda(r) << ", "
      << e.identity(r) << ");\n";
  s << in << "if (me == 0) {\n";
  for (node_id r : reduces) e.store_partial(in2, r, "base + wc", cat("acc", r));
  s << in2 << "__threadfence();  // the partial before the count\n";
  s << in2 << "s_last = atomicAdd(&jf_entries[we].arrived, 1u) == static_cast<unsigned>(m - 1);\n";
  s << in << "}\n";
  s << in << "__syncthreads();\n";
  s << in << "if (s_last) {  // the list's last chunk: its partials in chunk order, then its results\n";
  s << in2 << "__threadfence();\n";
  for (node_id r : reduces) {
    s << in2 << "acc" << r << " = " << e.identity(r) << ";\n";
    s << in2 << "for (long long c = me; c < m; c += " << block_threads << ") acc" << r << " = " << e.combine_fn(r)
      << "(acc" << r << ", " << e.load_partial(r, "base + c") << ");\n";
    s << in2 << "acc" << r << " = jf_nest::group_allreduce(acc" << r << ", " << e.combine_lambda(r) << ", "
      << e.identity(r) << ");\n";
  }
  s << in2 << "if (me == 0) {\n";
  finish_from_accs(in3, saved_before);
  s << in2 << "}\n";
  s << in << "}\n";
  s << in << "__syncthreads();  // s_we, s_wc, s_last are rewritten next\n";
  s << "  }\n";

  // ================= The warp queue: a warp per queued list =================
  if (warp_queue > 0) {
    s << "\n  // ---- The warp queue: lists of more than " << warp_queue
      << " elements, a warp each, once every tile has queued its lists\n"
      << "  // (after the heavy lists' chunks, which may be queued and taken earlier).\n";
    s << "  {\n";
    s << in << "const int lane = me & 31;\n";
    s << in << "if (lane == 0)\n";
    s << in2 << "while (static_cast<long long>(jf_nest::load_volatile(jf_ctr + 1)) < ntiles) __nanosleep(256);\n";
    s << in << "__syncwarp();\n";
    s << in << "__threadfence();\n";
    s << in << "const unsigned jf_nq = jf_nest::load_volatile(jf_ctr + 6);\n";
    s << in << "for (;;) {\n";
    s << in2 << "unsigned k = 0;\n";
    s << in2 << "if (lane == 0) k = atomicAdd(jf_ctr + 7, 1u);\n";
    s << in2 << "k = __shfl_sync(jf_nest::full_mask, k, 0);\n";
    s << in2 << "if (k >= jf_nq) break;\n";
    s << in2 << "const long long il_l = jf_wq[k];\n";
    s << in2 << "const I il = static_cast<I>(il_l);\n";
    s << in2 << "const long long jb = jf_off[il_l * jf_st_off];\n";
    s << in2 << "const int n = static_cast<int>(jf_off[(il_l + 1) * jf_st_off] - jb);\n";
    const auto named = name_list_values_of_il(in2, "_q");
    warp_walk(in2, named);
    for (node_id r : reduces)
      s << in2 << "acc" << r << " = jf_nest::warp_reduce(acc" << r << ", " << e.combine_lambda(r) << ");\n";
    s << in2 << "if (lane == 0) {\n";
    finish_from_accs(in3, named);
    s << in2 << "}\n";
    s << in << "}\n";
    s << "  }\n";
  }
  e.close_kernel();
}

namespace {

// The scratch layout of the kernel (the same arithmetic as its prologue).
struct pairs_scratch {
  std::size_t zeroed = 0, bytes = 0;
};
pairs_scratch scratch_of(const launch_info& li, std::int64_t elements) {
  const std::size_t maxq = static_cast<std::size_t>(elements / li.pairs_min_heavy + 1);
  const std::size_t maxc = static_cast<std::size_t>(elements / chunk_elements) + maxq;
  pairs_scratch s;
  s.zeroed = 32 + 4 * maxq;
  s.bytes = align16(s.zeroed) + align16(32 * maxq);
  for (int b : li.partial_bytes) s.bytes += align16(static_cast<std::size_t>(b) * maxc);
  if (li.pairs_warp_queue > 0)
    s.bytes += align16(8 * static_cast<std::size_t>(elements / (li.pairs_warp_queue + 1) + 1));
  return s;
}

}  // namespace

launch_config configure_pairs(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  const std::int64_t lists = ext[li.outer_axes[0]];
  // (A product's queue and chunks are bounded by both sides' elements.)
  const std::int64_t elements = ext[li.reduced_axes[0]] + (li.pairs_product ? ext[li.reduced_axes[1]] : 0);
  if (lists <= 0) {
    c.grid[0] = 0;
    return c;
  }
  const std::int64_t tiles = (lists + li.pairs_tile_lists - 1) / li.pairs_tile_lists;
  // Blocks take tiles, then heavy chunks, from counters: one wave of resident blocks is enough, and
  // no more blocks than there can be tiles and chunks.
  std::int64_t resident = resident_blocks(dev, block_threads);
  if (dev.shared_per_sm > 0 && li.static_shared_bytes > 0)
    resident = std::min<std::int64_t>(
        resident, static_cast<std::int64_t>(std::max(1, dev.sm_count)) *
                      std::max<std::int64_t>(
                          1, static_cast<std::int64_t>(dev.shared_per_sm) /
                                 (li.static_shared_bytes + static_cast<std::int64_t>(dev.shared_reserved_per_block))));
  const std::int64_t heavy_chunks = elements / chunk_elements + elements / li.pairs_min_heavy + 1;
  c.grid[0] = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(resident, tiles + heavy_chunks)));
  c.block[0] = block_threads;
  const pairs_scratch s = scratch_of(li, elements);
  c.scratch_bytes = s.bytes;
  c.scratch_zero_bytes = s.zeroed;
  return c;
}

namespace {
std::string warp_queue_text(const launch_info& li) {
  return cat("; lists of more than ", li.pairs_warp_queue) +
         " elements queued on the device and combined after the tiles, a warp each (partials in lane order, "
         "then the warp's tree)";
}
}  // namespace

std::string describe_pairs(const launch_info& li, const launch_config* c) {
  const std::string kind = li.pairs_product ? std::string("pairs kernel (a cartesian product of two lists)")
                                            : cat("pairs kernel (combinations of ", li.pairs_arity) + ")";
  if (li.pairs_warp_segments) {
    std::string s = kind + cat(": tiles of ", li.pairs_tile_lists) +
                    " lists taken from a device counter by 256-thread blocks, each warp taking its share of a "
                    "tile's lists and their combinations 32 at a time, a lane each, fields read in place "
                    "(partials combined per list in lane order); lists with more than " +
                    std::to_string(heavy_combinations) +
                    " combinations queued on the device and combined in chunks by the blocks done with the tiles "
                    "(partials in chunk order)";
    if (li.pairs_thread_max > 0) s += cat("; lists of at most ", li.pairs_thread_max) + " elements by a thread each";
    if (li.pairs_warp_queue > 0) s += warp_queue_text(li);
    if (c && c->grid[0] > 0) s += cat(" (", c->grid[0]) + " blocks)";
    return s;
  }
  std::string s =
      kind + cat(": tiles of ", li.pairs_tile_lists) +
      " lists taken from a device counter by 256-thread blocks, each run of lists staged in shared memory and "
      "its combinations spread evenly over the block's threads (partials combined in thread order); lists "
      "with more than " +
      std::to_string(heavy_combinations) +
      " combinations queued on the device and combined in chunks by the blocks done with the tiles "
      "(partials in chunk order)";
  if (li.pairs_thread_max > 0) s += cat("; lists of at most ", li.pairs_thread_max) + " elements by a thread each";
  if (li.pairs_list_weight > 0)
    s += cat("; the runs split by weight (4 per combination, ", li.pairs_list_weight) + " per list)";
  if (li.pairs_warp_queue > 0) s += warp_queue_text(li);
  if (c && c->grid[0] > 0) s += cat(" (", c->grid[0]) + " blocks)";
  return s;
}

}  // namespace jf::ir::nest
