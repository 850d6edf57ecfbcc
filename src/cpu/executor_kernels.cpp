// The typed reduction and combining loops of the CPU executor, instantiated once per (monoid or
// operation, dtype): every element goes through the jf::ops function the CUDA kernels call, so
// results agree bit for bit. (The element-wise loops: elementwise_kernels.cpp.)
#include "cpu/executor_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/loop_dtypes.hpp"
#include "cpu/target_clones.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::cpu_exec {
namespace {

using detail::op_fn;

// ---- reductions ---------------------------------------------------------------------------------
template <monoid M, class T>
struct monoid_of;
#define JF_X(m)                                                    \
  template <class T>                                               \
  struct monoid_of<monoid::m, T> {                                 \
    static auto identity() { return ops::jf_##m##_identity<T>(); } \
    template <class A>                                             \
    static A combine(A a, A b) {                                   \
      return ops::jf_##m##_combine(a, b);                          \
    }                                                              \
  };
JF_MONOIDS(JF_X)
#undef JF_X

template <monoid M, class T>
struct reducer {
  using mo = monoid_of<M, T>;
  using A = decltype(mo::identity());
  // Only floating-point sums gain from pairwise addition: the other monoids are exact, and a
  // product's relative error does not depend on the order of its factors.
  static constexpr bool pairwise = M == monoid::sum && std::is_floating_point_v<T>;
  // Monoids whose combine is associative in the bits (selections, integer arithmetic): any
  // bracketing of the same operands in the same order gives the same result.
  static constexpr bool associative = !std::is_floating_point_v<T> || (M != monoid::sum && M != monoid::prod);
  static constexpr int levels = 8;  // a piece has at most chunk_len / pair_len = 2^(levels - 1) blocks
  static_assert(chunk_len / pair_len <= (std::int64_t{1} << (levels - 1)));
  struct state {
    A lane[lanes];
    // Pairwise: the partials of the complete blocks as a binary counter (partial[j], bit j of
    // blocks set, holds 2^j blocks), and whether the lanes hold elements of an incomplete block.
    A partial[pairwise ? levels : 1];
    std::int64_t blocks;
    bool open;
  };

  static A value(const T* x, std::int64_t i, std::int64_t pos) {
    if constexpr (is_arg_monoid(M))
      return A{x[i], static_cast<long long>(pos + i)};
    else
      return x[i];
  }
  // l[(f + i) % lanes] = combine(l[...], x[i]) for i < n.
  static void add(A* l, const T* x, const bool* g, std::int64_t n, std::int64_t f, std::int64_t pos) {
    const A id = mo::identity();
    auto one = [&](std::int64_t i) {
      A& acc = l[(f + i) % lanes];
      acc = mo::combine(acc, (g && !g[i]) ? id : value(x, i, pos));
    };
    std::int64_t i = 0;
    for (; i < n && (f + i) % lanes != 0; ++i) one(i);
    // The body: lane k takes elements i + k, in a local array the compiler keeps in registers.
    A acc[lanes];
    for (int k = 0; k < lanes; ++k) acc[k] = l[k];
    if (g) {
      for (; i + lanes <= n; i += lanes)
        for (int k = 0; k < lanes; ++k) acc[k] = mo::combine(acc[k], g[i + k] ? value(x, i + k, pos) : id);
    } else {
      for (; i + lanes <= n; i += lanes)
        for (int k = 0; k < lanes; ++k) acc[k] = mo::combine(acc[k], value(x, i + k, pos));
    }
    for (int k = 0; k < lanes; ++k) l[k] = acc[k];
    for (; i < n; ++i) one(i);
  }
  // ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))
  static A tree(const A* l) {
    static_assert(lanes == 8);
    const A a = mo::combine(mo::combine(l[0], l[1]), mo::combine(l[2], l[3]));
    const A b = mo::combine(mo::combine(l[4], l[5]), mo::combine(l[6], l[7]));
    return mo::combine(a, b);
  }
  // Counts in one more block: equal-sized partials merge, the earlier one on the left.
  static void push(state& s, A v) {
    int j = 0;
    for (; (s.blocks >> j) & 1; ++j) v = mo::combine(s.partial[j], v);
    s.partial[j] = v;
    ++s.blocks;
  }

  // The partial of a whole block starting at x[0] (lanes from the identity), kept in registers.
  template <bool guarded>
  static A block(const T* x, const bool* g) {
    const A id = mo::identity();
    A acc[lanes];
    for (int k = 0; k < lanes; ++k) acc[k] = id;
    for (std::int64_t i = 0; i < pair_len; i += lanes)
      for (int k = 0; k < lanes; ++k) acc[k] = mo::combine(acc[k], !guarded || g[i + k] ? x[i + k] : id);
    return tree(acc);
  }

  static void identity(void* acc) { *static_cast<A*>(acc) = mo::identity(); }
  static void begin(void* st) {
    state& s = *new (st) state;
    for (A& a : s.lane) a = mo::identity();
    s.blocks = 0;
    s.open = false;
  }
  static void accumulate(void* st, const void* xv, const bool* g, std::int64_t n, std::int64_t f, std::int64_t pos) {
    state& s = *static_cast<state*>(st);
    const T* x = static_cast<const T*>(xv);
    if constexpr (!pairwise) {
      add(s.lane, x, g, n, f, pos);
    } else {
      for (std::int64_t i = 0; i < n;) {
        if (!s.open && (f + i) % pair_len == 0 && n - i >= pair_len) {  // whole blocks: the hot path
          if (g)
            for (; n - i >= pair_len; i += pair_len) push(s, block<true>(x + i, g + i));
          else
            for (; n - i >= pair_len; i += pair_len) push(s, block<false>(x + i, nullptr));
          continue;
        }
        const std::int64_t m = std::min(n - i, pair_len - (f + i) % pair_len);
        add(s.lane, x + i, g ? g + i : nullptr, m, f + i, pos + i);
        i += m;
        s.open = true;
        if ((f + i) % pair_len == 0) {  // the block is complete
          push(s, tree(s.lane));
          for (A& a : s.lane) a = mo::identity();
          s.open = false;
        }
      }
    }
  }
  static void end(void* st, void* piece) {
    state& s = *static_cast<state*>(st);
    A& out = *static_cast<A*>(piece);
    if constexpr (!pairwise) {
      out = tree(s.lane);
    } else {
      if (s.open || s.blocks == 0) push(s, tree(s.lane));
      // The binary counter's partials, the smallest (latest) first: every earlier one on the left.
      int j = 0;
      while (!((s.blocks >> j) & 1)) ++j;
      out = s.partial[j];
      for (++j; j < levels; ++j)
        if ((s.blocks >> j) & 1) out = mo::combine(s.partial[j], out);
    }
  }
  static void combine(void* acc, const void* piece) {
    A& a = *static_cast<A*>(acc);
    a = mo::combine(a, *static_cast<const A*>(piece));
  }
  // A row added into the results element by element (the column reductions' tiles).
  JF_CPU_CLONES static void accumulate_rows(void* accv, const void* xv, const bool* g, std::int64_t n) {
    A* acc = static_cast<A*>(accv);
    const T* x = static_cast<const T*>(xv);
    if (g) {
      for (std::int64_t i = 0; i < n; ++i)
        if (g[i]) acc[i] = mo::combine(acc[i], x[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) acc[i] = mo::combine(acc[i], x[i]);
    }
  }
  // pairwise(p[0..n)) of the list executor (its `pairwise`): split at the largest power of two below n.
  struct boxed {  // a piece (std::vector<bool> has no data())
    A v;
  };
  static A pairwise_of(const boxed* p, std::size_t n) {
    if (n == 1) return p[0].v;
    std::size_t h = 1;
    while (2 * h < n) h *= 2;
    return mo::combine(pairwise_of(p, h), pairwise_of(p + h, n - h));
  }
  static void reduce_segments(const void* xv, const bool* g, const std::int64_t* start, std::int64_t first,
                              std::int64_t nseg, void* results) {
    const T* x = static_cast<const T*>(xv);
    alignas(state) std::byte st[sizeof(state)];
    std::vector<boxed> pieces;
    for (std::int64_t s = 0; s < nseg; ++s) {
      const std::int64_t a = start[s] - first, m = start[s + 1] - start[s];
      A acc = mo::identity();
      if (associative && m <= lanes) {
        // At most one element per lane: the tree keeps the elements' order, so for an associative
        // combine (ties and NaNs included) a fold left to right gives the same bits without the
        // lanes' identities and the tree (most lists of HEP events are this short).
        for (std::int64_t i = 0; i < m; ++i)
          if (!g || g[a + i]) acc = mo::combine(acc, value(x + a, i, 0));
      } else if (m > 0) {
        A total;
        if (m < pair_len) {  // one piece, one block: lane i % lanes from the identity, then tree
          const A id = mo::identity();
          A l[lanes];
          for (A& v : l) v = id;
          for (std::int64_t i = 0; i < m; ++i) {
            A& v = l[i % lanes];
            v = mo::combine(v, (g && !g[a + i]) ? id : value(x + a, i, 0));
          }
          total = tree(l);
        } else if (m <= chunk_len) {
          begin(st);
          accumulate(st, x + a, g ? g + a : nullptr, m, 0, 0);
          end(st, &total);
        } else {
          pieces.clear();
          for (std::int64_t f = 0; f < m; f += chunk_len) {
            begin(st);
            accumulate(st, x + a + f, g ? g + a + f : nullptr, std::min(chunk_len, m - f), f, f);
            end(st, &total);
            pieces.push_back({total});
          }
          total = pairwise_of(pieces.data(), pieces.size());
        }
        acc = mo::combine(acc, total);
      }
      store(&acc, results, s);
    }
  }
  static void store(const void* acc, void* results, std::int64_t r) {
    const A& a = *static_cast<const A*>(acc);
    if constexpr (is_arg_monoid(M))
      static_cast<std::int64_t*>(results)[r] = static_cast<std::int64_t>(a.index);
    else
      static_cast<T*>(results)[r] = a;
  }
};

template <monoid M>
reduce_kernels pick_reduce(dtype t) {
  return visit_dtype(t, [&](auto ti) -> reduce_kernels {
    using T = typename decltype(ti)::type;
    if constexpr ((M == monoid::any || M == monoid::all) && !std::is_same_v<T, bool>) {
      throw dtype_error("jf::cpu_exec: reduce " + std::string(name(M)) + " needs a bool argument, not " +
                        std::string(name(t)));
    } else {
      using R = reducer<M, T>;
      reduce_kernels k{sizeof(typename R::A), sizeof(typename R::state), &R::identity, &R::begin, &R::accumulate,
                       &R::end, &R::combine, &R::store};
      if constexpr (!is_arg_monoid(M)) k.accumulate_rows = &R::accumulate_rows;
      k.reduce_segments = &R::reduce_segments;
      return k;
    }
  });
}

}  // namespace

namespace {
template <op O, class T, class C> void put_combine(void* target, const void* value) {
  T t;
  C v;
  std::memcpy(&t, target, sizeof t);
  std::memcpy(&v, value, sizeof v);
  const T r = ops::jf_cast<T>(op_fn<O>{}(ops::jf_cast<C>(t), v));
  std::memcpy(target, &r, sizeof r);
}
template <op O> put_combine_fn pick_put(dtype target, dtype value) {
  return visit_dtype(target, [value](auto tt) {
    using T = typename decltype(tt)::type;
    return visit_dtype(value, [](auto vt) -> put_combine_fn {
      using C = typename decltype(vt)::type;
      if constexpr (defined_for<O, C>()) return &put_combine<O, T, C>;
      else return nullptr;
    });
  });
}
}  // namespace

put_combine_fn find_put_combine(op code, dtype target, dtype value) {
  switch (code) {
  case op::add: return pick_put<op::add>(target, value);
  case op::subtract: return pick_put<op::subtract>(target, value);
  case op::multiply: return pick_put<op::multiply>(target, value);
  case op::minimum: return pick_put<op::minimum>(target, value);
  case op::maximum: return pick_put<op::maximum>(target, value);
  default: throw error("jf::cpu_exec: a put combines with add, multiply, minimum or maximum");
  }
}

reduce_kernels find_reduce(monoid m, dtype t) {
  switch (m) {
#define JF_X(mo)   \
  case monoid::mo: \
    return pick_reduce<monoid::mo>(t);
    JF_MONOIDS(JF_X)
#undef JF_X
  }
  throw error("jf::cpu_exec: unknown monoid");
}

}  // namespace jf::cpu_exec
