// The Eigen CPU evaluator (the reference backend): one expression becomes ONE Eigen Array
// expression, assigned block by block in parallel on a persistent thread pool.
//
// Per expression type only two assignment loops are instantiated:
//  - flat: every leaf and the output are contiguous on the iteration space -> Eigen Maps;
//  - indexed: anything else (strides, broadcasting, negative steps, 0-d arrays) -> every array
//    operand is an Eigen 3.4 indexed view `Map(base, extent)(offsets)` through an offset table
//    computed per block (src/cpu/eval_plan.cpp). Weak scalars are Constants of their target dtype.
// Choosing Map / Constant / view per leaf would instantiate 3^leaves loops; two keep compile
// times reasonable. Every element operation is a functor calling jf::ops (scalar_ops.hpp), the
// code the generated CUDA kernels run, so both backends agree bit for bit where the math library
// does. The result is computed in the expression's dtype; an output of another dtype receives it
// through jf_cast (a non-template pass, src/cpu/eval_plan.cpp).
//
// Unfused mode (eval_options::mode) has no meaning here: the CPU evaluator always computes each
// element of the whole expression in registers, which gives the same values as materialising
// every intermediate in its dtype (the intermediates are rounded to their dtype either way).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/cpu/eval_plan.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/scalar_ops.hpp"
#include "jetfuse/stats.hpp"

namespace jf::cpu_eval {

// ---- element functors --------------------------------------------------------------------------
template <op O> struct scalar_fn;
#define JF_X(code, nm, ar, rl)                                  \
  template <> struct scalar_fn<op::code> {                      \
    template <class... T> auto operator()(T... a) const {       \
      return ops::jf_##code(a...);                              \
    }                                                           \
  };
JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X

// A comparison whose answer may be known: against a weak integer outside the compared dtype
// (numpy 2 compares exactly). The branch is loop-invariant.
template <op O> struct compare_fn {
  int known;  // -1: compare; 0 or 1: the answer
  template <class T> bool operator()(T a, T b) const { return known < 0 ? scalar_fn<O>{}(a, b) : known != 0; }
};

template <class To> struct cast_fn {
  template <class From> To operator()(From v) const { return ops::jf_cast<To>(v); }
};

template <class T> using column = Eigen::Array<T, Eigen::Dynamic, 1>;
using offsets_map = Eigen::Map<const column<std::int64_t>>;

// What the leaves of one block [start, start + len) are.
struct block {
  const eval_plan* plan;
  const detail::scalar_slot* scalars;
  std::int64_t start;
  std::int64_t len;
  const std::int64_t* offsets;  // indexed plan: the block's offset tables

  template <class T, bool Indexed> auto leaf(int i) const {
    const operand_access& a = plan->leaves[static_cast<std::size_t>(i)];
    if constexpr (Indexed) {
      const Eigen::Map<const column<T>> all(reinterpret_cast<const T*>(a.base), a.extent);
      return all(offsets_map(offsets + a.table * block_elements, len));
    } else {
      return Eigen::Map<const column<T>>(reinterpret_cast<const T*>(a.base) + start, len);
    }
  }
  template <class T> auto constant(int s) const {
    T v;
    std::memcpy(&v, &scalars[s].bits, sizeof(T));
    return column<T>::Constant(len, v);
  }
};

// x converted to T with numpy's casts (nothing when it already is T).
template <class T, class X> auto convert(X x) {
  if constexpr (std::is_same_v<typename X::Scalar, T>) return x;
  else return x.unaryExpr(cast_fn<T>{});
}

// ---- the expression builder: node type -> Eigen expression (no plain Arrays inside: E1) -------
template <class E> struct xpr;

template <class T> struct xpr<term<array<T>>> {
  template <dtype Target, bool Indexed> static auto make(const block& b, int ai, int) {
    return b.template leaf<T, Indexed>(ai);
  }
};
template <class S>
  requires std::is_arithmetic_v<S>
struct xpr<term<S>> {
  template <dtype Target, bool Indexed> static auto make(const block& b, int, int si) {
    return b.template constant<cpp_type_t<Target>>(si);
  }
};

template <class Tag, class... A> struct xpr<call_node<Tag, A...>> {
  using node = call_node<Tag, A...>;
  // Leaf numbers where operand I starts (depth first, as detail::tree gathers them).
  template <std::size_t I> static constexpr int arrays_before() {
    constexpr int n[] = {leaf_counts<A>::arrays..., 0};
    int s = 0;
    for (std::size_t k = 0; k < I; ++k) s += n[k];
    return s;
  }
  template <std::size_t I> static constexpr int scalars_before() {
    constexpr int n[] = {leaf_counts<A>::scalars..., 0};
    int s = 0;
    for (std::size_t k = 0; k < I; ++k) s += n[k];
    return s;
  }
  template <std::size_t I, bool Indexed> static auto operand(const block& b, int ai, int si) {
    using Arg = std::tuple_element_t<I, std::tuple<A...>>;
    constexpr dtype target = detail::tree<node>::template arg_target<I>();
    return convert<cpp_type_t<target>>(
        xpr<Arg>::template make<target, Indexed>(b, ai + arrays_before<I>(), si + scalars_before<I>()));
  }
  template <dtype Target, bool Indexed> static auto make(const block& b, int ai, int si) {
    if constexpr (is_cast_tag<Tag>::value) {
      return convert<cpp_type_t<Tag::type>>(operand<0, Indexed>(b, ai, si));
    } else if constexpr (Tag::code == op::where) {
      // Eigen's select is c ? x : y per element, exactly jf_where.
      return operand<0, Indexed>(b, ai, si).select(operand<1, Indexed>(b, ai, si), operand<2, Indexed>(b, ai, si));
    } else if constexpr (detail::tree<node>::may_be_known()) {
      const compare_fn<Tag::code> f{detail::tree<node>::known_result(b.scalars + si)};
      return operand<0, Indexed>(b, ai, si).binaryExpr(operand<1, Indexed>(b, ai, si), f);
    } else if constexpr (sizeof...(A) == 1) {
      return operand<0, Indexed>(b, ai, si).unaryExpr(scalar_fn<Tag::code>{});
    } else {
      return operand<0, Indexed>(b, ai, si).binaryExpr(operand<1, Indexed>(b, ai, si), scalar_fn<Tag::code>{});
    }
  }
};

// ---- assignment --------------------------------------------------------------------------------
struct job {
  const eval_plan* plan;
  const detail::scalar_slot* scalars;
};

template <class E, bool Indexed> void run_chunk(void* ctx, std::int64_t begin, std::int64_t end) {
  const job& j = *static_cast<const job*>(ctx);
  constexpr dtype R = type_of_v<E>.type;
  using T = cpp_type_t<R>;
  if constexpr (!Indexed) {
    const block b{j.plan, j.scalars, begin, end - begin, nullptr};
    Eigen::Map<column<T>>(reinterpret_cast<T*>(j.plan->out.base) + begin, end - begin) =
        xpr<E>::template make<R, false>(b, 0, 0);
  } else {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(block_elements) * j.plan->tables.size());
    Eigen::Map<column<T>> all(reinterpret_cast<T*>(j.plan->out.base), j.plan->out.extent);
    for (std::int64_t s = begin; s < end; s += block_elements) {
      const std::int64_t len = end - s < block_elements ? end - s : block_elements;
      fill_offsets(*j.plan, s, len, offsets.data());
      const block b{j.plan, j.scalars, s, len, offsets.data()};
      all(offsets_map(offsets.data() + j.plan->out.table * block_elements, len)) =
          xpr<E>::template make<R, true>(b, 0, 0);
    }
  }
}

// Evaluates e into out (a cpu array whose shape is the iteration space; see eval.hpp).
template <class E> void evaluate(const E& e, const array_base& out, const detail::eval_options& /*opt: see top*/) {
  constexpr int A = leaf_counts<E>::arrays, S = leaf_counts<E>::scalars;
  constexpr dtype R = type_of_v<E>.type;
  const array_base* arrays[A > 0 ? A : 1] = {};
  detail::scalar_slot scalars[S > 0 ? S : 1] = {};
  detail::tree<E>::template gather<R>(e, arrays, scalars, detail::scalar_use::value);  // checks scalar ranges
  detail::bump(detail::counter::cpu_evaluations);
  if (out.size() == 0) return;
  detail::bump(detail::counter::cpu_elements, static_cast<std::uint64_t>(out.size()));
  // Computed in the expression's dtype; another output dtype receives it through jf_cast.
  const bool cast_after = out.dtype() != R;
  if (cast_after) {
    detail::bump(detail::counter::temporaries);
    detail::bump(detail::counter::temporary_bytes, static_cast<std::uint64_t>(out.size() * size_of(R)));
  }
  const array_base target = cast_after ? detail::make_array(cpu, R, out.shape()) : out;
  eval_plan plan;
  make_plan(plan, arrays, A, target);
  job j{&plan, scalars};
  parallel_for(plan.n, min_chunk_elements, plan.flat ? &run_chunk<E, false> : &run_chunk<E, true>, &j);
  if (cast_after) cast_into(out, target);
}

}  // namespace jf::cpu_eval
