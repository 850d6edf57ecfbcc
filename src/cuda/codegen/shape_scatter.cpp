// Kernel shape "scatter": the one output is a put (numpy's put, x[indices] = v, ufunc.at), fused with
// the expressions that compute its indices (claim domain I) and values (domain D, I or below it).
//
// The kernel is launched more than once on one scratch buffer when something must happen before any
// element is written (configure_scatter; each block learns which launch it is from a ticket counter).
// Stores (numpy's x[indices] = v, the last write winning) launch 5 times:
//   launch 1, over I: every index is normalised and checked (mode raise: an index outside [-n, n)
//     goes to the error record), each element named sets its bit in a bitmap (a reduction whose
//     result is unused: no round trip, and 1 bit an element stays in L2); raising gathers among the
//     values are evaluated over D too;
//   launch 2: the set bits counted;
//   launch 3, over D: nothing if the record holds a failure; with as many set bits as positions (no
//     duplicate) each value is stored plainly, since any order then gives the last write; else it
//     zeroes the claims (one an element of the target's scattered axis);
//   launches 4 and 5, only after a duplicate: each element claimed by the latest position naming it
//     (atomicMax of position + 1), then each value stored where its position holds the claim.
// Measured (H200, 2^26 float64 by int64 indices, bench_scatter): 5.21 ms on a permutation where
// claiming first took 7.93, and 9.02 with duplicates where it took 7.95; a plain scatter 4.14. The
// variants tried are in bench/experiments/put_claim_variants.cu.
// Through an index array remembered in bounds (remembered_indices.hpp) nothing is checked first;
// remembered distinct, a store is store_any; remembered with repeats, launches 1 and 2 do nothing,
// and launch 5 also sets each winning position's bit in a.aux, which the engine keeps: from then on
// the store is one launch writing the positions whose bit is set (put_winners::use; H200, 2^26
// random indices with duplicates: 2.70 ms in put_claim_variants.cu's `winners`, plain 4.13).
// ufunc.at combines each value into its element by an atomic (native atomicAdd / atomicMin /
// atomicMax where they compute exactly numpy's operation in the target's dtype, else a
// compare-and-swap loop), after a checking launch when mode raise or a raising gather asks for one.
// Combining without checks (wrap or clip, no raising gather) is one launch; so is store_any
// (indices promised unique: stored without the bitmap or claims) in mode wrap or clip.
#include <algorithm>
#include <functional>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/errors.hpp"

namespace jf::ir::nest {

namespace {

constexpr const char* scatter_helpers = R"(
#ifndef JF_SCATTER_HELPERS
#define JF_SCATTER_HELPERS
// Scatters (shape_scatter.cpp): an element combined with a value atomically, numpy's ufunc.at.
namespace jf_scatter {
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };
template <int Bytes> struct word;
template <> struct word<1> { using type = unsigned char; };
template <> struct word<2> { using type = unsigned short; };
template <> struct word<4> { using type = unsigned; };
template <> struct word<8> { using type = unsigned long long; };
// put_rule: 1 add, 2 subtract, 3 multiply, 4 minimum, 5 maximum (jf::ops, numpy's operations).
template <int R, class C> __device__ __forceinline__ C apply(C a, C b) {
  if constexpr (R == 1) return jf::ops::jf_add(a, b);
  else if constexpr (R == 2) return jf::ops::jf_subtract(a, b);
  else if constexpr (R == 3) return jf::ops::jf_multiply(a, b);
  else if constexpr (R == 4) return jf::ops::jf_minimum(a, b);
  else return jf::ops::jf_maximum(a, b);
}
template <class T, class W> __device__ __forceinline__ W word_of(T v) {
  union { W w; T t; } u;
  u.w = 0;
  u.t = v;
  return u.w;
}
template <class T, class W> __device__ __forceinline__ T value_of(W w) {
  union { W w; T t; } u;
  u.w = w;
  return u.t;
}
// *p = T(R(C(*p), v)) atomically: native atomics where they compute exactly that (x - v is
// x + (-v) in IEEE and in wrapping integers), else a compare-and-swap loop on the aligned word that
// holds *p (a bool, an 8- or 16-bit integer is a part of a 32-bit word).
template <int R, class T, class C> __device__ void combine(T* p, C v) {
  constexpr bool native = same<T, C>::value && !jf::ops::traits<T>::is_bool && sizeof(T) >= 4;
  if constexpr (native && (R == 1 || R == 2) && jf::ops::traits<T>::is_float) {
    atomicAdd(p, R == 1 ? v : -v);
  } else if constexpr (native && (R == 1 || R == 2)) {
    using W = typename word<sizeof(T)>::type;
    const W u = static_cast<W>(v);
    atomicAdd(reinterpret_cast<W*>(p), R == 1 ? u : W(0) - u);
  } else if constexpr (native && (R == 4 || R == 5) && !jf::ops::traits<T>::is_float) {
    if constexpr (R == 4) atomicMin(p, v);
    else atomicMax(p, v);
  } else if constexpr (sizeof(T) < 4) {
    using U = typename word<sizeof(T)>::type;
    constexpr unsigned mask = sizeof(T) == 1 ? 0xffu : 0xffffu;
    unsigned* w = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned long long>(p) & ~3ull);
    const unsigned shift = static_cast<unsigned>(reinterpret_cast<unsigned long long>(p) & 3ull) * 8u;
    unsigned old = *static_cast<volatile unsigned*>(w), assumed;
    do {
      assumed = old;
      const T cur = value_of<T, U>(static_cast<U>((assumed >> shift) & mask));
      const T next = jf::ops::jf_cast<T>(apply<R, C>(jf::ops::jf_cast<C>(cur), v));
      old = atomicCAS(w, assumed, (assumed & ~(mask << shift)) | (static_cast<unsigned>(word_of<T, U>(next)) << shift));
    } while (old != assumed);
  } else {
    using W = typename word<sizeof(T)>::type;
    W* w = reinterpret_cast<W*>(p);
    W old = *static_cast<volatile W*>(w), assumed;
    do {
      assumed = old;
      const T next = jf::ops::jf_cast<T>(apply<R, C>(jf::ops::jf_cast<C>(value_of<T, W>(assumed)), v));
      old = atomicCAS(w, assumed, word_of<T, W>(next));
    } while (old != assumed);
  }
}
}  // namespace jf_scatter
#endif
)";

// Raising gathers and index checks among the nodes `need` (they report into the error record when
// evaluated).
std::vector<node_id> raising_gathers(const graph& g, const std::vector<char>& need) {
  std::vector<node_id> v;
  for (std::size_t k = 0; k < need.size(); ++k)
    if (need[k] && (g.nodes[k].code == op::gather || g.nodes[k].code == op::check_index) &&
        mode_of_gather(g.nodes[k]) == gather_mode::raise)
      v.push_back(static_cast<node_id>(k));
  return v;
}

}  // namespace

void emit_scatter(emitter& e, const shape_plan& p, launch_info& li) {
  const graph& g = e.g;
  auto& s = e.s;
  const node_id put = g.outputs[0].value;
  const node& n = g.at(put);
  const node_id value = n.args[0], index = n.args[1];
  const domain_id D = p.inner, I = p.outer;
  const std::int32_t w = g.dom(target_of_put(n)).axes[0];
  const put_rule rule = rule_of_put(n);
  const gather_mode mode = mode_of_put(n);
  const std::vector<std::int32_t> claim_axes = g.chain_axes(I), value_axes = g.chain_axes(D);
  const std::vector<char> need_index = e.f.closure({index});
  const std::vector<char> need_all = e.f.closure({value, index});
  // Raising gathers the indices' launch does not already evaluate: checked over D in launch 1.
  std::vector<node_id> value_checks;
  for (node_id x : raising_gathers(g, need_all))
    if (!need_index[static_cast<std::size_t>(x)]) value_checks.push_back(x);
  const bool last_write = rule == put_rule::store;
  const bool plain_store = rule == put_rule::store_any;  // no claims: a duplicate's value, any one, wins
  // Remembered from an earlier call on the same unchanged index array (remembered_indices.hpp):
  // every index in bounds (each is then checked as it is written, with no checking launch), or some
  // element named twice (the claims without the marks), and then perhaps the winning positions: a
  // bit each in a.aux, filled by the claimed stores (build) or read instead of the claims (use).
  const bool known_in_bounds = put_known_in_bounds(n) && mode == gather_mode::raise;
  const bool known_repeats = put_known_repeats(n) && last_write && known_in_bounds;
  const put_winners winners = known_repeats ? winners_of_put(n) : put_winners::none;
  const bool claims = last_write && winners != put_winners::use;
  const bool checks_first = mode == gather_mode::raise && !known_in_bounds;
  const bool checks = checks_first || !raising_gathers(g, need_all).empty();
  li.block = 256;
  li.launches = claims ? 5 : checks ? 2 : 1;
  li.outer_axes = claim_axes;
  li.reduced_axes = value_axes;
  li.scatter_axis = w;
  li.claim_bytes = claims ? (g.index32 ? 4 : 8) : 0;
  e.add_operand_axis(0, w);  // the target is addressed along its scattered axis too

  const std::string T = e.T(n.type), CW = li.claim_bytes == 4 ? "unsigned" : "unsigned long long";
  const std::string Is = std::to_string(I), Ds = std::to_string(D);
  std::string plan = std::string("Put (") + put_rule_name(rule) + ") into out #0 along axis " + std::to_string(w) +
                     " at the index of D" + Is + ", the values of D" + Ds + ".";
  const std::string value_checked = value_checks.empty() ? "" : "; raising gathers of the values evaluated over D" + Ds;
  const std::string remembered =
      known_in_bounds
          ? std::string("\nIndices remembered in bounds") + (known_repeats ? ", naming some element twice" : "") +
                (winners == put_winners::use ? ", with the positions that win" : "") +
                " (the same index array, unchanged since an earlier call): each checked as it is written."
          : "";
  if (winners == put_winners::use)
    plan +=
        std::string(checks ? "\nLaunch 1 over D" + Ds + ": raising gathers of the values.\nLaunch 2" : "\nOne launch") +
        " over D" + Ds + ": " + (checks ? "nothing after a failure; else " : "") +
        "each value stored where its position's bit is set (the remembered winners: no claims).";
  else if (claims && known_repeats)
    plan += std::string("\nLaunch 1") +
            (checks_first           ? " over D" + Is + ": indices checked" + value_checked
             : value_checks.empty() ? ": nothing"
                                    : " over D" + Ds + ": raising gathers of the values") +
            ".\nLaunch 2: nothing (remembered: some element named twice).\nLaunch 3 over D" + Ds +
            ": nothing after a failure; else the claims zeroed.\nLaunches 4 and 5: each element claimed by its latest "
            "position over D" +
            Is + ", then each value stored where its position holds the claim" +
            (winners == put_winners::build
                 ? ", and that position's bit set in a.aux (the winners, kept for the next calls)."
                 : ".");
  else if (claims)
    plan += "\nLaunch 1 over D" + Is + ": " + (checks_first ? "indices checked, " : "") +
            "each element named marked in a bitmap" + value_checked + ".\nLaunch 2: the marked elements counted." +
            "\nLaunch 3 over D" + Ds + ": nothing after a failure; with as many marked elements as positions, each " +
            "value stored (no duplicates: any order gives the last write); else the claims zeroed." +
            "\nLaunches 4 and 5, only after a duplicate: each element claimed by its latest position over D" + Is +
            ", then each value stored where its position holds the claim.";
  else if (li.launches == 2)
    plan += "\nLaunch 1 over D" + Is + ": " +
            (checks_first ? "indices checked" + value_checked : "raising gathers of the values") +
            ".\nLaunch 2 over D" + Ds + ": nothing after a failure; else each value " +
            (plain_store ? "stored (indices promised unique: no claims)." : "combined atomically.");
  else
    plan += plain_store
                ? (known_in_bounds
                       ? "\nOne launch: each value stored (no claims: indices promised unique or remembered distinct)."
                       : "\nOne launch: each value stored (indices promised unique: no claims).")
                : "\nOne launch: each value combined atomically.";
  plan += remembered;
  e.header(p, plan);
  s << scatter_helpers;
  e.args_struct();
  e.open_kernel(std::string("// Launch: 256-thread blocks, grid-stride loops; ") +
                (claims ? "launched 5 times on one scratch (a ticket counter, the marked elements' count, the "
                          "bitmap; the claims after them, zeroed in launch 3 when needed).\n"
                 : li.launches == 2 ? "launched twice on one scratch (a ticket counter), zeroed by the launcher.\n"
                                    : "launched once.\n"));
  e.prologue("  ");
  const std::string ax = cat("", w);
  s << "  const long long size = e" << ax << ";  // the target's scattered axis\n";
  s << "  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
  if (claims) {
    // The layout configure_scatter allocates: 16 bytes of counters, the bitmap (16-byte aligned), the claims.
    s << "  const long long jf_words = (size + 31) / 32;\n";
    s << "  unsigned* const jf_bits = reinterpret_cast<unsigned*>(a.scratch + 16);\n";
    s << "  " << CW << "* const jf_claims = reinterpret_cast<" << CW
      << "*>(a.scratch + 16 + (jf_words * 4 + 15) / 16 * 16);\n";
    s << "  unsigned long long* const jf_marked = reinterpret_cast<unsigned long long*>(a.scratch + 8);\n";
  }
  const std::string& iv = "jf_j";
  // The index normalised into `jf_j`; `ok` says whether it names an element.
  auto normalise = [&](const std::string& ind, bool report) {
    const std::string& given = e.vname[static_cast<std::size_t>(index)];
    s << ind << "long long " << iv << " = " << given << ";\n";
    if (mode == gather_mode::wrap) {
      s << ind << iv << " %= size;\n" << ind << "if (" << iv << " < 0) " << iv << " += size;\n";
      s << ind << "const bool ok = size > 0;\n";
    } else if (mode == gather_mode::clip) {
      s << ind << iv << " = " << iv << " < 0 ? 0 : (" << iv << " >= size ? size - 1 : " << iv << ");\n";
      s << ind << "const bool ok = size > 0;\n";
    } else {
      s << ind << "if (" << iv << " < 0) " << iv << " += size;\n";
      s << ind << "const bool ok = static_cast<unsigned long long>(" << iv
        << ") < static_cast<unsigned long long>(size);\n";
      if (report)
        s << ind << "if (!ok) jf_nest::report_index(a.err, static_cast<unsigned long long>(" << e.position(I) << "), "
          << given << ", size, " << axis_of_put(n) << ");\n";
    }
  };
  // A loop over the index positions (D<I>) doing `then` with each normalised index that names an element.
  auto over_indices = [&](const std::string& what, bool report, const std::function<std::string()>& then) {
    s << "    // " << what << "\n";
    s << "    const long long n0 = " << e.extent_product(claim_axes) << ";\n";
    e.laned_loop("    ", "t0", "first", "step", "n0", claim_axes, e.unroll(), need_index,
                 [&](const std::string& ind, const std::string&) {
                   s << ind << "{\n";
                   normalise(ind + "  ", report);
                   if (then) s << ind << "  if (ok) " << then() << "\n";
                   s << ind << "}\n";
                 });
  };
  auto value_checks_loop = [&] {
    if (value_checks.empty()) return;
    s << "    // The values' raising gathers, evaluated for their checks only.\n";
    s << "    const long long n1 = " << e.extent_product(value_axes) << ";\n";
    e.laned_loop("    ", "t1", "first", "step", "n1", value_axes, 1, e.f.closure(value_checks),
                 [&](const std::string& ind, const std::string&) {
                   for (node_id x : value_checks) s << ind << "(void)" << e.vname[static_cast<std::size_t>(x)] << ";\n";
                 });
  };
  // The claim of the current position (inside a loop: its axes' variables).
  auto claim_of_position = [&] { return "static_cast<" + CW + ">(" + e.position(I) + ") + 1"; };
  if (li.launches > 1) {
    s << "  __shared__ unsigned jf_launch;  // which launch this is, from the ticket counter\n";
    s << "  if (threadIdx.x == 0) jf_launch = atomicAdd(reinterpret_cast<unsigned*>(a.scratch), 1u) / gridDim.x;\n";
    s << "  __syncthreads();\n";
    s << "  if (jf_launch == 0) {\n";
    if (claims && !known_repeats)
      // A reduction (the atomic's result unused): no round trip a position, the bitmap stays in L2.
      over_indices("Launch 1: the indices over D" + Is + ", each element named marked.", checks_first,
                   [&] { return "atomicOr(jf_bits + (" + iv + " >> 5), 1u << (" + iv + " & 31));"; });
    else if (checks_first)
      over_indices("Launch 1: the indices over D" + Is + ", checked.", true, nullptr);
    value_checks_loop();
    s << "    return;\n";
    s << "  }\n";
    if (claims && known_repeats) {
      s << "  if (jf_launch == 1) return;  // Launch 2: nothing to count (remembered: some element named twice)\n";
    } else if (claims) {
      s << "  if (jf_launch == 1) {\n";
      s << "    // Launch 2: the marked elements counted (a duplicate leaves fewer than the positions).\n";
      s << "    unsigned long long c = 0;\n";
      s << "    for (long long k = first; k < jf_words; k += step) c += __popc(jf_nest::load_volatile(jf_bits + k));\n";
      s << "    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);\n";
      s << "    if (threadIdx.x % 32 == 0 && c != 0) atomicAdd(jf_marked, c);\n";
      s << "    return;\n";
      s << "  }\n";
    }
    if (checks) s << "  if (jf_nest::load_volatile(&a.err->rank) != 0ull) return;  // numpy raises before it assigns\n";
    if (claims) {
      if (known_repeats)
        s << "  const bool jf_dups = true;  // remembered\n";
      else
        s << "  const bool jf_dups = jf_nest::load_volatile(jf_marked) != static_cast<unsigned long long>("
          << e.extent_product(claim_axes) << ");\n";
      s << "  if (jf_launch == 2 && jf_dups) {\n";
      if (mode == gather_mode::raise && !known_repeats)  // for the host to remember (remembered_indices.hpp)
        s << "    if (first == 0) a.err->repeats = 1ull;\n";
      s << "    for (long long k = first; k < size; k += step) jf_claims[k] = 0;  // for launch 4\n";
      s << "    return;\n";
      s << "  }\n";
      s << "  if (jf_launch == 3) {\n";
      s << "    if (!jf_dups) return;\n";
      over_indices("Launch 4: each element claimed by its latest position (numpy's last write wins).", false,
                   [&] { return "atomicMax(jf_claims + " + iv + ", " + claim_of_position() + ");"; });
      s << "    return;\n";
      s << "  }\n";
      s << "  if (jf_launch == 4 && !jf_dups) return;\n";
    }
  }
  s << "  // "
    << (claims             ? "Launch 3 without duplicates, launch 5 after one"
        : li.launches == 2 ? "Launch 2"
                           : "The launch")
    << ": the values over D" << D << ".\n";
  s << "  const long long n = " << e.extent_product(value_axes) << ";\n";
  e.laned_loop("  ", "t", "first", "step", "n", value_axes, e.unroll(), need_all,
               [&](const std::string& ind, const std::string&) {
                 s << ind << "{\n";
                 normalise(ind + "  ", known_in_bounds);  // remembered in bounds: checked here, not before
                 const std::string target = "out0 + (" + iv + " * st_out0_" + ax + " + " + e.offset(true, 0, D) + ")";
                 const std::string& v = e.vname[static_cast<std::size_t>(value)];
                 if (claims && winners == put_winners::build)  // launch 5 (remembered repeats)
                   s << ind << "  if (ok && jf_claims[" << iv << "] == " << claim_of_position() << ") {\n"
                     << ind << "    *(" << target << ") = " << v << ";\n"
                     << ind << "    const unsigned long long jf_p = " << e.position(I) << ";\n"
                     << ind
                     << "    atomicOr(a.aux + (jf_p >> 5), 1u << (jf_p & 31));  // a winner, for the next calls\n"
                     << ind << "  }\n";
                 else if (claims)
                   s << ind << "  if (ok && (jf_launch == 2 || jf_claims[" << iv << "] == " << claim_of_position()
                     << ")) *(" << target << ") = " << v << ";\n";
                 else if (winners == put_winners::use) {
                   s << ind << "  const unsigned long long jf_p = " << e.position(I) << ";\n";
                   s << ind << "  if (ok && ((a.aux[jf_p >> 5] >> (jf_p & 31)) & 1u)) *(" << target << ") = " << v
                     << ";  // the remembered winner\n";
                 } else if (plain_store)
                   s << ind << "  if (ok) *(" << target << ") = " << v << ";\n";
                 else
                   s << ind << "  if (ok) jf_scatter::combine<" << static_cast<int>(rule) << ", " << T << ">(" << target
                     << ", " << v << ");\n";
                 s << ind << "}\n";
               });
  e.close_kernel();
}

launch_config configure_scatter(const launch_info& li, const std::int64_t* ext, const device_limits& dev) {
  launch_config c;
  std::int64_t n = std::max(product(li.outer_axes, ext), product(li.reduced_axes, ext));
  // The bitmap's count (launch 2) reads a word a thread: enough blocks for a large target too.
  if (li.claim_bytes) n = std::max(n, (ext[li.scatter_axis] + 31) / 32);
  c.block[0] = static_cast<unsigned>(li.block);
  c.grid[0] =
      static_cast<unsigned>(std::min<std::int64_t>((n + li.block - 1) / li.block, resident_blocks(dev, li.block) * 4));
  c.launches = li.launches;
  if (li.launches > 1) {
    // 16 bytes of counters; with claims, a bit an element (16-byte aligned) and the claims, which
    // launch 3 zeroes only after a duplicate.
    const auto size = static_cast<std::size_t>(ext[li.scatter_axis]);
    const std::size_t bitmap = li.claim_bytes ? ((size + 31) / 32 * 4 + 15) / 16 * 16 : 0;
    c.scratch_bytes = 16 + bitmap + static_cast<std::size_t>(li.claim_bytes) * size;
    c.scratch_zero_bytes = 16 + bitmap;
  }
  return c;
}

}  // namespace jf::ir::nest
