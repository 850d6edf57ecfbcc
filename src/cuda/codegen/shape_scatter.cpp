// Kernel shape "scatter": the one output is a put (numpy's put, x[indices] = v, ufunc.at), fused with
// the expressions that compute its indices (claim domain I) and values (domain D, I or below it).
//
// The kernel is launched twice on one scratch buffer when something must happen before any element
// is written (configure_scatter; each block learns which launch it is from a ticket counter):
//   launch 1, over I: every index is normalised and checked (mode raise: an index outside [-n, n)
//     goes to the error record), and for stores each target element is claimed by the latest
//     position naming it (atomicMax of position + 1 into one claim per element of the target's
//     scattered axis); raising gathers among the values are evaluated over D too;
//   launch 2, over D: nothing at all if the record holds a failure; else each value is stored where
//     its position holds the claim (numpy's last write wins, whatever order the threads run in; when
//     launch 1 found no element claimed twice, without reading the claims), or
//     combined into its element by an atomic (native atomicAdd / atomicMin / atomicMax where they
//     compute exactly numpy's operation in the target's dtype, else a compare-and-swap loop).
// Combining without checks or claims (wrap or clip, no raising gather) is one launch; so is store_any
// (indices promised unique: stored without claims) in mode wrap or clip.
#include <algorithm>

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
  const bool claims = rule == put_rule::store;
  const bool plain_store = rule == put_rule::store_any;  // no claims: a duplicate's value, any one, wins
  const bool checks = mode == gather_mode::raise || !raising_gathers(g, need_all).empty();
  li.block = 256;
  li.launches = claims || checks ? 2 : 1;
  li.outer_axes = claim_axes;
  li.reduced_axes = value_axes;
  li.scatter_axis = w;
  li.claim_bytes = claims ? (g.index32 ? 4 : 8) : 0;
  e.add_operand_axis(0, w);  // the target is addressed along its scattered axis too

  const std::string T = e.T(n.type), CW = li.claim_bytes == 4 ? "unsigned" : "unsigned long long";
  std::string plan = std::string("Put (") + put_rule_name(rule) + ") into out #0 along axis " + std::to_string(w) +
                     " at the index of D" + std::to_string(I) + ", the values of D" + std::to_string(D) + ".";
  if (li.launches == 2)
    plan += "\nLaunch 1 over D" + std::to_string(I) + ": indices checked" +
            (claims ? ", each element claimed by its latest position" : "") +
            (value_checks.empty() ? "" : "; raising gathers of the values evaluated over D" + std::to_string(D)) +
            ".\nLaunch 2 over D" + std::to_string(D) + ": nothing after a failure; else each value " +
            (claims        ? "stored where its position holds the claim."
             : plain_store ? "stored (indices promised unique: no claims)."
                           : "combined atomically.");
  else
    plan += plain_store ? "\nOne launch: each value stored (indices promised unique: no claims)."
                        : "\nOne launch: each value combined atomically.";
  e.header(p, plan);
  s << scatter_helpers;
  e.args_struct();
  e.open_kernel(std::string("// Launch: 256-thread blocks, grid-stride loops; ") +
                (li.launches == 2 ? "launched twice on one scratch (a ticket counter, a duplicates flag, then " +
                                        std::string(claims ? "the claims" : "nothing") + "), zeroed by the launcher.\n"
                                  : "launched once.\n"));
  e.prologue("  ");
  const std::string ax = cat("", w);
  s << "  const long long size = e" << ax << ";  // the target's scattered axis\n";
  s << "  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  s << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n";
  if (claims) s << "  " << CW << "* const jf_claims = reinterpret_cast<" << CW << "*>(a.scratch + 16);\n";
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
  std::string in = "  ";
  if (li.launches == 2) {
    s << "  __shared__ unsigned jf_launch;  // 0: checks and claims, 1: values\n";
    s << "  if (threadIdx.x == 0) jf_launch = atomicAdd(reinterpret_cast<unsigned*>(a.scratch), 1u) / gridDim.x;\n";
    s << "  __syncthreads();\n";
    s << "  if (jf_launch == 0) {\n";
    s << "    // Launch 1: the indices over D" << I << (claims ? ", each element claimed by its latest position" : "")
      << ".\n";
    s << "    const long long n0 = " << e.extent_product(claim_axes) << ";\n";
    if (claims) s << "    bool jf_dup = false;  // an element this thread claimed had a claim already\n";
    e.laned_loop("    ", "t0", "first", "step", "n0", claim_axes, e.unroll(), need_index,
                 [&](const std::string& ind, const std::string&) {
                   s << ind << "{\n";
                   normalise(ind + "  ", mode == gather_mode::raise);
                   if (claims)
                     s << ind << "  if (ok && atomicMax(jf_claims + " << iv << ", static_cast<" << CW << ">("
                       << e.position(I) << ") + 1) != 0) jf_dup = true;\n";
                   s << ind << "}\n";
                 });
    if (!value_checks.empty()) {
      s << "    // The values' raising gathers, evaluated for their checks only.\n";
      s << "    const long long n1 = " << e.extent_product(value_axes) << ";\n";
      e.laned_loop("    ", "t1", "first", "step", "n1", value_axes, 1, e.f.closure(value_checks),
                   [&](const std::string& ind, const std::string&) {
                     for (node_id x : value_checks)
                       s << ind << "(void)" << e.vname[static_cast<std::size_t>(x)] << ";\n";
                   });
    }
    if (claims) {
      s << "    // Without duplicate indices, launch 2 needs no claim (a permutation writes like a plain scatter).\n";
      s << "    if (__syncthreads_or(jf_dup) && threadIdx.x == 0) atomicExch(reinterpret_cast<unsigned*>(a.scratch) + "
           "1, 1u);\n";
    }
    s << "    return;\n";
    s << "  }\n";
    if (checks) s << "  if (jf_nest::load_volatile(&a.err->rank) != 0ull) return;  // numpy raises before it assigns\n";
    if (claims)
      s << "  const bool jf_dups = jf_nest::load_volatile(reinterpret_cast<unsigned*>(a.scratch) + 1) != 0u;\n";
  }
  s << in << "// " << (li.launches == 2 ? "Launch 2" : "The launch") << ": the values over D" << D << ".\n";
  s << in << "const long long n = " << e.extent_product(value_axes) << ";\n";
  e.laned_loop(in, "t", "first", "step", "n", value_axes, e.unroll(), need_all,
               [&](const std::string& ind, const std::string&) {
                 s << ind << "{\n";
                 normalise(ind + "  ", false);
                 const std::string target = "out0 + (" + iv + " * st_out0_" + ax + " + " + e.offset(true, 0, D) + ")";
                 const std::string& v = e.vname[static_cast<std::size_t>(value)];
                 if (claims)
                   s << ind << "  if (ok && (!jf_dups || jf_claims[" << iv << "] == static_cast<" << CW << ">("
                     << e.position(I) << ") + 1)) *(" << target << ") = " << v << ";\n";
                 else if (plain_store)
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
  const std::int64_t n = std::max(product(li.outer_axes, ext), product(li.reduced_axes, ext));
  c.block[0] = static_cast<unsigned>(li.block);
  c.grid[0] =
      static_cast<unsigned>(std::min<std::int64_t>((n + li.block - 1) / li.block, resident_blocks(dev, li.block) * 4));
  c.launches = li.launches;
  if (li.launches > 1)
    c.scratch_bytes = 16 + static_cast<std::size_t>(li.claim_bytes) * static_cast<std::size_t>(ext[li.scatter_axis]);
  return c;
}

}  // namespace jf::ir::nest
