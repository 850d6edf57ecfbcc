// The CPU executor of jf::ir graphs (src/cpu/executor.hpp) against scalar reference loops: map
// graphs of every operation and dtype over strided operands, every monoid, loop nests with
// broadcasts, in-place outputs, and the same bits whatever the number of threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu/executor.hpp"
#include "cpu/executor_kernels.hpp"
#include "cpu/thread_pool_testing.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace {

using namespace jf;
using ir::domain_id;
using ir::graph;
using ir::layout;
using ir::node_id;
using ir::scalar_value;
using i64 = std::int64_t;

// One seed per run, printed; JF_TEST_SEED reproduces a run.
std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* e = std::getenv("JF_TEST_SEED");
    const std::uint64_t v = e ? std::strtoull(e, nullptr, 10) : std::random_device{}();
    std::printf("test_cpu_executor: seed %llu (JF_TEST_SEED=%llu reproduces)\n", static_cast<unsigned long long>(v),
                static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}
std::mt19937_64& rng() {
  static std::mt19937_64 r(seed());
  return r;
}

// A typed host array (bool included: no std::vector<bool>), poisoned on creation.
template <class T>
struct arr {
  std::unique_ptr<T[]> d;
  std::size_t n;
  explicit arr(std::size_t size) : d(new T[size ? size : 1]), n(size) { poison(); }
  void poison() { std::memset(static_cast<void*>(d.get()), 0x7f, (n ? n : 1) * sizeof(T)); }
  T& operator[](std::size_t i) { return d[i]; }
  const T& operator[](std::size_t i) const { return d[i]; }
  T* data() { return d.get(); }
};

template <class T>
T random_of(bool exact = false) {
  auto& r = rng();
  if constexpr (std::is_same_v<T, bool>)
    return r() & 1;
  else if constexpr (std::is_integral_v<T>) {
    if (r() % 8 == 0) return static_cast<T>(r());  // anything: sums and products wrap
    return static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(r));
  } else {
    if (exact) return static_cast<T>(std::uniform_int_distribution<int>(-8, 8)(r));
    if (r() % 50 == 0) {
      static const double edge[] = {0.0,
                                    -0.0,
                                    1.0,
                                    -1.0,
                                    0.5,
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};
      return static_cast<T>(edge[r() % 8]);
    }
    return static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(r));
  }
}
template <class T>
void fill(arr<T>& a, bool exact = false) {
  for (std::size_t i = 0; i < a.n; ++i) a[i] = random_of<T>(exact);
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
  } else {
    return a == b;
  }
}
template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", static_cast<double>(v));
    return b;
  } else {
    return std::to_string(static_cast<long long>(v));
  }
}

detail::operand_binding binding(void* p, std::vector<i64> strides) { return {p, std::move(strides)}; }

node_id input_at(graph& g, dtype t, domain_id d) {
  const node_id id = g.add_input(t, layout::strided);
  g.nodes[static_cast<std::size_t>(id)].domain = d;
  return id;
}
void output_at(graph& g, node_id v, domain_id d, std::int32_t same_as = -1) {
  g.add_output(v, layout::strided, same_as);
  g.outputs.back().domain = d;
}
// A graph with the root only and ndim global axes (add boxes by hand).
graph nest(int ndim) {
  graph g;
  g.ndim = ndim;
  g.domains.resize(1);
  return g;
}

template <class T>
scalar_value sv(T x) {
  scalar_value s;
  if constexpr (std::is_floating_point_v<T>)
    s.f = static_cast<double>(x);
  else
    s.i = static_cast<i64>(x);
  return s;
}
template <class T>
T from_sv(const scalar_value& s) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(s.f);
  else if constexpr (std::is_same_v<T, bool>)
    return s.i != 0;
  else
    return static_cast<T>(s.i);
}

// ---- map graphs -----------------------------------------------------------------------------------

TEST(CpuExecutorMap, AxpyContiguousSizes) {
  for (i64 n : {0, 1, 7, 1023, 1024, 1025, 4097, 300001}) {
    graph g;
    g.set_map_rank(1);
    const node_id a = g.add_input(dtype::float64, layout::contiguous);
    const node_id b = g.add_input(dtype::float64, layout::contiguous);
    const node_id c = g.add_input(dtype::float64, layout::contiguous);
    g.add_output(g.add_op(op::add, dtype::float64, {g.add_op(op::multiply, dtype::float64, {a, b}), c}),
                 layout::contiguous);
    arr<double> x(static_cast<std::size_t>(n)), y(x.n), z(x.n), out(x.n);
    fill(x), fill(y), fill(z);
    detail::step_bindings bd{
        {n}, {binding(out.data(), {1})}, {binding(x.data(), {1}), binding(y.data(), {1}), binding(z.data(), {1})}, {}};
    cpu_exec::execute(g, bd);
    for (std::size_t i = 0; i < x.n; ++i)
      ASSERT_TRUE(same(out[i], ops::jf_add(ops::jf_multiply(x[i], y[i]), z[i]))) << "n=" << n << " i=" << i;
  }
}

// Every element-wise operation of the table with every dtype it takes, over a 2-d iteration space
// (m, n) with a transposed, a reversed and a broadcast operand and an output with gaps; checked
// against jf::ir::apply element by element.
TEST(CpuExecutorMap, EveryOperationStrided) {
  const i64 m = 37, n = 29;
  int checked = 0;
  for (op o : elementwise_ops) {
    const op_info oi = info(o);
    for (int ti = 0; ti < num_dtypes; ++ti) {
      const auto t = static_cast<dtype>(ti);
      const dtype argt = t;
      if (oi.rule != op_rule::select && (!accepts(oi.rule, t) || compute_dtype(oi.rule, t) != t)) continue;
      const dtype res = oi.rule == op_rule::select ? t : result_dtype(oi.rule, t);
      graph g;
      g.set_map_rank(2);
      std::vector<node_id> args;
      std::vector<dtype> types;
      for (int k = 0; k < oi.arity; ++k) {
        const dtype at = (o == op::where && k == 0) ? dtype::bool_ : argt;
        types.push_back(at);
        args.push_back(g.add_input(at, layout::strided));
      }
      node_id r;
      if (oi.arity == 1)
        r = g.add_op(o, res, {args[0]});
      else if (oi.arity == 2)
        r = g.add_op(o, res, {args[0], args[1]});
      else
        r = g.add_op(o, res, {args[0], args[1], args[2]});
      g.add_output(r, layout::strided);
      // Inputs: k = 0 row-major, k = 1 transposed, k = 2 reversed on both axes; every input
      // also broadcast along axis 0 for the last dtype loop (stride 0) to cover zeros.
      std::vector<std::vector<scalar_value>> vals(static_cast<std::size_t>(oi.arity));
      std::vector<std::unique_ptr<std::uint64_t[]>> mem;
      detail::step_bindings bd;
      bd.extents = {m, n};
      for (int k = 0; k < oi.arity; ++k) {
        auto& v = vals[static_cast<std::size_t>(k)];
        v.resize(static_cast<std::size_t>(m * n));
        mem.emplace_back(new std::uint64_t[static_cast<std::size_t>(m * n)]);
        void* base = mem.back().get();
        std::vector<i64> strides;
        i64 start = 0;
        const bool zero_rows = (ti + k) % 4 == 3;
        if (k % 3 == 0)
          strides = {zero_rows ? 0 : n, 1};
        else if (k % 3 == 1)
          strides = {1, m};
        else
          strides = {-n, -1}, start = m * n - 1;
        visit_dtype(types[static_cast<std::size_t>(k)], [&](auto tt) {
          using T = typename decltype(tt)::type;
          T* p = static_cast<T*>(base);
          for (i64 i = 0; i < m; ++i)
            for (i64 j = 0; j < n; ++j) {
              // A broadcast row holds row 0's values.
              const T x = (strides[0] == 0 && i > 0) ? p[start + j * strides[1]] : random_of<T>();
              p[start + i * strides[0] + j * strides[1]] = x;
              v[static_cast<std::size_t>(i * n + j)] = sv(x);
            }
          bd.inputs.push_back(binding(p + start, strides));
        });
      }
      std::unique_ptr<std::uint64_t[]> outm(new std::uint64_t[static_cast<std::size_t>(m * (n + 3))]);
      std::memset(outm.get(), 0x7f, static_cast<std::size_t>(m * (n + 3)) * 8);
      bd.outputs.push_back(binding(outm.get(), {n + 3, 1}));
      cpu_exec::execute(g, bd);
      visit_dtype(res, [&](auto rt) {
        using R = typename decltype(rt)::type;
        const R* out = reinterpret_cast<const R*>(outm.get());
        for (i64 i = 0; i < m; ++i)
          for (i64 j = 0; j < n; ++j) {
            scalar_value a[3];
            for (int k = 0; k < oi.arity; ++k)
              a[k] = vals[static_cast<std::size_t>(k)][static_cast<std::size_t>(i * n + j)];
            const R want = from_sv<R>(ir::apply(o, res, argt, a));
            ASSERT_TRUE(same(out[i * (n + 3) + j], want)) << oi.name << " " << name(t) << " at " << i << "," << j
                                                          << ": " << show(out[i * (n + 3) + j]) << " vs " << show(want);
          }
        // The gaps of the output are untouched.
        const unsigned char* bytes = reinterpret_cast<const unsigned char*>(outm.get());
        for (i64 i = 0; i < m; ++i)
          for (i64 j = n; j < n + 3; ++j)
            for (std::size_t b = 0; b < sizeof(R); ++b)
              ASSERT_EQ(bytes[static_cast<std::size_t>(i * (n + 3) + j) * sizeof(R) + b], 0x7f);
      });
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

// Several outputs of different dtypes; a param, a constant, a cast, where; a 3-d space whose
// inner extent is 3 (blocks span many rows) and a 0-d one.
TEST(CpuExecutorMap, SeveralOutputsSmallInnerAndZeroD) {
  for (std::vector<i64> ext : {std::vector<i64>{50, 41, 3}, std::vector<i64>{}, std::vector<i64>{2, 0, 5}}) {
    const int r = static_cast<int>(ext.size());
    graph g;
    g.set_map_rank(r);
    const node_id a = g.add_input(dtype::float32, layout::strided);
    const node_id b = g.add_input(dtype::int32, layout::strided);
    const node_id p = g.add_param(dtype::float32);
    const node_id c = g.add_constant(dtype::float32, scalar_value::of(dtype::float32, 0.25));
    const node_id bf = g.add_cast(dtype::float32, b);
    const node_id s = g.add_op(op::add, dtype::float32, {g.add_op(op::multiply, dtype::float32, {a, p}), bf});
    const node_id l = g.add_op(op::less, dtype::bool_, {s, c});
    const node_id w = g.add_op(op::where, dtype::float32, {l, a, c});
    g.add_output(s, layout::strided);
    g.add_output(l, layout::strided);
    g.add_output(g.add_cast(dtype::int64, w), layout::strided);
    g.add_output(c, layout::strided);  // a uniform value stored everywhere
    i64 total = 1;
    for (i64 e : ext) total *= e;
    const auto N = static_cast<std::size_t>(total);
    arr<float> x(N), o0(N), o3(N);
    arr<std::int32_t> y(N);
    arr<bool> o1(N);
    arr<std::int64_t> o2(N);
    fill(x), fill(y);
    // Row-major strides; y is read in reverse.
    std::vector<i64> st(static_cast<std::size_t>(r)), rev(static_cast<std::size_t>(r));
    i64 s1 = 1;
    for (int k = r - 1; k >= 0; --k)
      st[static_cast<std::size_t>(k)] = s1, rev[static_cast<std::size_t>(k)] = -s1,
      s1 *= ext[static_cast<std::size_t>(k)];
    const float pv = 1.5f;
    std::uint64_t pbits = 0;
    std::memcpy(&pbits, &pv, sizeof pv);
    detail::step_bindings bd{
        ext,
        {binding(o0.data(), st), binding(o1.data(), st), binding(o2.data(), st), binding(o3.data(), st)},
        {binding(x.data(), st), binding(N ? y.data() + N - 1 : y.data(), rev)},
        {pbits}};
    cpu_exec::execute(g, bd);
    for (std::size_t i = 0; i < N; ++i) {
      const float sx = ops::jf_add(ops::jf_multiply(x[i], pv), ops::jf_cast<float>(y[N - 1 - i]));
      const bool lx = sx < 0.25f;
      ASSERT_TRUE(same(o0[i], sx)) << i;
      ASSERT_EQ(o1[i], lx) << i;
      ASSERT_EQ(o2[i], ops::jf_cast<std::int64_t>(lx ? x[i] : 0.25f)) << i;
      ASSERT_EQ(o3[i], 0.25f) << i;
    }
  }
}

// ---- reductions -----------------------------------------------------------------------------------

// The sequential reference: identity, then every kept value in position order.
template <class T>
struct ref_result {
  T value{};
  i64 index = -1;
};
template <class T>
ref_result<T> ref_reduce(monoid m, const std::vector<T>& v, const std::vector<char>* keep) {
  auto run = [&](auto id, auto comb) {
    auto acc = id;
    for (std::size_t p = 0; p < v.size(); ++p) {
      if (keep && !(*keep)[p]) continue;
      if constexpr (std::is_same_v<decltype(acc), ops::jf_arg<T>>)
        acc = comb(acc, ops::jf_arg<T>{v[p], static_cast<long long>(p)});
      else
        acc = comb(acc, v[p]);
    }
    ref_result<T> r;
    if constexpr (std::is_same_v<decltype(acc), ops::jf_arg<T>>)
      r.index = acc.index;
    else
      r.value = acc;
    return r;
  };
  switch (m) {
    case monoid::sum:
      return run(ops::jf_sum_identity<T>(), [](T a, T b) { return ops::jf_sum_combine(a, b); });
    case monoid::prod:
      return run(ops::jf_prod_identity<T>(), [](T a, T b) { return ops::jf_prod_combine(a, b); });
    case monoid::min:
      return run(ops::jf_min_identity<T>(), [](T a, T b) { return ops::jf_min_combine(a, b); });
    case monoid::max:
      return run(ops::jf_max_identity<T>(), [](T a, T b) { return ops::jf_max_combine(a, b); });
    case monoid::nanmin:
      return run(ops::jf_nanmin_identity<T>(), [](T a, T b) { return ops::jf_nanmin_combine(a, b); });
    case monoid::nanmax:
      return run(ops::jf_nanmax_identity<T>(), [](T a, T b) { return ops::jf_nanmax_combine(a, b); });
    case monoid::any:
      if constexpr (std::is_same_v<T, bool>)
        return run(ops::jf_any_identity<T>(), [](T a, T b) { return ops::jf_any_combine(a, b); });
      break;
    case monoid::all:
      if constexpr (std::is_same_v<T, bool>)
        return run(ops::jf_all_identity<T>(), [](T a, T b) { return ops::jf_all_combine(a, b); });
      break;
    case monoid::argmin:
      return run(ops::jf_argmin_identity<T>(), [](auto a, auto b) { return ops::jf_argmin_combine(a, b); });
    case monoid::argmax:
      return run(ops::jf_argmax_identity<T>(), [](auto a, auto b) { return ops::jf_argmax_combine(a, b); });
  }
  ADD_FAILURE() << "no reference for " << name(m);
  return {};
}

constexpr monoid all_monoids[] = {
#define JF_X(m) monoid::m,
    JF_MONOIDS(JF_X)
#undef JF_X
};

// Values whose reductions are exact in any order (small integers; powers of two for products;
// no -0.0), with NaNs mixed in for float `nan` runs and ties everywhere.
template <class T>
T reduce_value(monoid m, bool nan) {
  auto& r = rng();
  if constexpr (std::is_floating_point_v<T>) {
    if (nan && r() % 7 == 0) return std::numeric_limits<T>::quiet_NaN();
    if (m == monoid::prod) {
      // Mostly +-1: the exponent's random walk stays far from float32's range.
      static const T pw[] = {2, -2, T(0.5), T(-0.5)};
      return r() % 100 < 2 ? pw[r() % 4] : (r() % 2 ? T(1) : T(-1));
    }
    return static_cast<T>(std::uniform_int_distribution<int>(-8, 8)(r));
  } else if constexpr (std::is_same_v<T, bool>) {
    return r() % 5 != 0;
  } else {
    return random_of<T>();
  }
}

// Every monoid x dtype, full reduction of an (m, n) box (transposed in memory) into the root:
// root -> D1 = box(axis 0) -> D2 = box(axis 1), reduce from D2 into the root.
TEST(CpuExecutorReduce, EveryMonoidFullReductionPositionOrder) {
  for (monoid mo : all_monoids)
    for (int ti = 0; ti < num_dtypes; ++ti)
      for (int guarded = 0; guarded < 2; ++guarded)
        for (int nan = 0; nan < 2; ++nan) {
          const auto t = static_cast<dtype>(ti);
          if ((mo == monoid::any || mo == monoid::all) && t != dtype::bool_) continue;
          if (nan && !is_floating(t)) continue;
          visit_dtype(t, [&](auto tt) {
            using T = typename decltype(tt)::type;
            const i64 m = 131, n = 257;  // 33667 iterations: pieces cut at 16384 and 32768
            graph g = nest(2);
            const domain_id d1 = g.add_box(0, {0}), d2 = g.add_box(d1, {1});
            const node_id x = input_at(g, t, d2);
            node_id guard = ir::no_node;
            if (guarded) guard = g.add_op(op::isfinite, dtype::bool_, {input_at(g, t, d2)});
            const node_id r = g.add_reduce(mo, x, guard, 0);
            output_at(g, r, 0);
            arr<T> xs(static_cast<std::size_t>(m * n));
            std::vector<T> pos(xs.n);
            std::vector<char> keep(xs.n);
            for (i64 i = 0; i < m; ++i)
              for (i64 j = 0; j < n; ++j) {
                const T v = reduce_value<T>(mo, nan != 0);
                xs[static_cast<std::size_t>(j * m + i)] = v;  // column-major memory
                pos[static_cast<std::size_t>(i * n + j)] = v;
                keep[static_cast<std::size_t>(i * n + j)] = ops::jf_isfinite(v);
              }
            const bool arg = is_arg_monoid(mo);
            arr<T> out(1);
            arr<i64> outi(1);
            detail::step_bindings bd;
            bd.extents = {m, n};
            bd.inputs.push_back(binding(xs.data(), {1, m}));
            if (guarded) bd.inputs.push_back(binding(xs.data(), {1, m}));
            bd.outputs.push_back(arg ? binding(outi.data(), {0, 0}) : binding(out.data(), {0, 0}));
            cpu_exec::execute(g, bd);
            const auto want = ref_reduce<T>(mo, pos, guarded ? &keep : nullptr);
            const std::string what = std::string(name(mo)) + " " + std::string(name(t)) + (guarded ? " guarded" : "") +
                                     (nan ? " with NaN" : "");
            if (arg)
              EXPECT_EQ(outi[0], want.index) << what;
            else
              EXPECT_TRUE(same(out[0], want.value)) << what << ": " << show(out[0]) << " vs " << show(want.value);
          });
        }
}

// NaN rules and ties on hand-made rows (row reduction into D1 of an (rows, 6) box).
TEST(CpuExecutorReduce, NanRulesAndTies) {
  const double N = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> rows = {
      {3, 1, 2, 1, 5, 5}, {N, 1, N, 0, 9, 9}, {N, N, N, N, N, N}, {2, 2, 2, 2, 2, 2}, {4, N, -7, N, 8, -7}};
  const i64 m = static_cast<i64>(rows.size()), n = 6;
  arr<double> xs(static_cast<std::size_t>(m * n));
  for (i64 i = 0; i < m; ++i)
    for (i64 j = 0; j < n; ++j)
      xs[static_cast<std::size_t>(i * n + j)] = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  struct want_t {
    monoid mo;
    std::vector<double> v;
  };
  const std::vector<want_t> wants = {
      {monoid::min, {1, N, N, 2, N}},    {monoid::max, {5, N, N, 2, N}},    {monoid::nanmin, {1, 0, N, 2, -7}},
      {monoid::nanmax, {5, 9, N, 2, 8}}, {monoid::argmin, {1, 0, 0, 0, 1}}, {monoid::argmax, {4, 0, 0, 0, 1}},
  };
  for (const auto& w : wants) {
    graph g = nest(2);
    const domain_id d1 = g.add_box(0, {0}), d2 = g.add_box(d1, {1});
    output_at(g, g.add_reduce(w.mo, input_at(g, dtype::float64, d2)), d1);
    const bool arg = is_arg_monoid(w.mo);
    arr<double> out(static_cast<std::size_t>(m));
    arr<i64> outi(static_cast<std::size_t>(m));
    detail::step_bindings bd{
        {m, n}, {arg ? binding(outi.data(), {1, 0}) : binding(out.data(), {1, 0})}, {binding(xs.data(), {n, 1})}, {}};
    cpu_exec::execute(g, bd);
    for (i64 i = 0; i < m; ++i) {
      if (arg)
        EXPECT_EQ(outi[static_cast<std::size_t>(i)], static_cast<i64>(w.v[static_cast<std::size_t>(i)]))
            << name(w.mo) << " row " << i;
      else
        EXPECT_TRUE(same(out[static_cast<std::size_t>(i)], w.v[static_cast<std::size_t>(i)]))
            << name(w.mo) << " row " << i;
    }
  }
}

// Row sums and column sums of an (m, n) int64 matrix (wrapping), many shapes, and sums over an
// empty axis (the identity) — outputs poisoned first.
TEST(CpuExecutorReduce, RowsColumnsAndEmpty) {
  for (auto [m, n] : {std::pair<i64, i64>{1, 1}, {3, 5}, {1000, 3}, {3, 40000}, {70, 1025}, {5, 0}, {0, 5}}) {
    arr<i64> xs(static_cast<std::size_t>(m * n));
    fill(xs);
    // Rows: D1 = box(0), D2 = box(1) in D1.
    {
      graph g = nest(2);
      const domain_id d1 = g.add_box(0, {0}), d2 = g.add_box(d1, {1});
      const node_id x = input_at(g, dtype::int64, d2);
      output_at(g, g.add_reduce(monoid::sum, x), d1);
      output_at(g, g.add_reduce(monoid::argmin, x), d1);
      arr<i64> s(static_cast<std::size_t>(m)), a(static_cast<std::size_t>(m));
      detail::step_bindings bd{
          {m, n}, {binding(s.data(), {1, 0}), binding(a.data(), {1, 0})}, {binding(xs.data(), {n, 1})}, {}};
      cpu_exec::execute(g, bd);
      for (i64 i = 0; i < m; ++i) {
        std::vector<i64> row(xs.data() + i * n, xs.data() + i * n + n);
        ASSERT_EQ(s[static_cast<std::size_t>(i)], ref_reduce<i64>(monoid::sum, row, nullptr).value)
            << m << "x" << n << " row " << i;
        ASSERT_EQ(a[static_cast<std::size_t>(i)], ref_reduce<i64>(monoid::argmin, row, nullptr).index)
            << m << "x" << n << " row " << i;
      }
    }
    // Columns: D1 = box(1), D2 = box(0) in D1.
    {
      graph g = nest(2);
      const domain_id d1 = g.add_box(0, {1}), d2 = g.add_box(d1, {0});
      const node_id x = input_at(g, dtype::int64, d2);
      output_at(g, g.add_reduce(monoid::max, x), d1);
      output_at(g, g.add_reduce(monoid::prod, x), d1);
      arr<i64> s(static_cast<std::size_t>(n)), p(static_cast<std::size_t>(n));
      detail::step_bindings bd{
          {m, n}, {binding(s.data(), {0, 1}), binding(p.data(), {0, 1})}, {binding(xs.data(), {n, 1})}, {}};
      cpu_exec::execute(g, bd);
      for (i64 j = 0; j < n; ++j) {
        std::vector<i64> c;
        for (i64 i = 0; i < m; ++i) c.push_back(xs[static_cast<std::size_t>(i * n + j)]);
        ASSERT_EQ(s[static_cast<std::size_t>(j)], ref_reduce<i64>(monoid::max, c, nullptr).value)
            << m << "x" << n << " col " << j;
        ASSERT_EQ(p[static_cast<std::size_t>(j)], ref_reduce<i64>(monoid::prod, c, nullptr).value)
            << m << "x" << n << " col " << j;
      }
    }
  }
}

// mean = sum / extent, and x - mean(x, axis 1, keepdims) with the mean broadcast from the
// enclosing domain; also the kept axis stored as an (m, 1) output.
TEST(CpuExecutorNest, RowMeanCentred) {
  for (auto [m, n] : {std::pair<i64, i64>{4, 3}, {257, 129}, {2, 70000}}) {
    graph g = nest(2);
    const domain_id dr = g.add_box(0, {0}), dc = g.add_box(dr, {1});
    const node_id x = input_at(g, dtype::float32, dc);
    const node_id s = g.add_reduce(monoid::sum, x);
    const node_id cnt = g.add_cast(dtype::float32, g.add_extent(dc));
    const node_id mean = g.add_op(op::true_divide, dtype::float32, {s, cnt});
    const node_id c = g.add_op(op::subtract, dtype::float32, {x, g.add_broadcast(mean, dc)});
    output_at(g, c, dc);
    output_at(g, mean, dr);
    arr<float> xs(static_cast<std::size_t>(m * n)), out(xs.n), means(static_cast<std::size_t>(m));
    fill(xs, true);
    detail::step_bindings bd{
        {m, n}, {binding(out.data(), {n, 1}), binding(means.data(), {1, 0})}, {binding(xs.data(), {n, 1})}, {}};
    cpu_exec::execute(g, bd);
    for (i64 i = 0; i < m; ++i) {
      std::vector<float> row(xs.data() + i * n, xs.data() + i * n + n);
      const float mu = ops::jf_true_divide(ref_reduce<float>(monoid::sum, row, nullptr).value, static_cast<float>(n));
      ASSERT_TRUE(same(means[static_cast<std::size_t>(i)], mu)) << i;
      for (i64 j = 0; j < n; ++j)
        ASSERT_TRUE(same(out[static_cast<std::size_t>(i * n + j)],
                         ops::jf_subtract(xs[static_cast<std::size_t>(i * n + j)], mu)));
    }
  }
}

// Column means (box(axis 1) under the root) broadcast into box(axis 0) -> box(axis 1): a
// broadcast from a domain that does not enclose the user; plus sum(x - rowmean(x)) into the root.
TEST(CpuExecutorNest, ColumnMeansAndNestedSum) {
  for (auto [m, n] : {std::pair<i64, i64>{3, 4}, {300, 77}, {40000, 2}}) {
    graph g = nest(2);
    const domain_id dr = g.add_box(0, {0}), dc = g.add_box(dr, {1});
    const domain_id ec = g.add_box(0, {1}), er = g.add_box(ec, {0});
    const node_id x = input_at(g, dtype::float64, dc);
    const node_id xt = input_at(g, dtype::float64, er);
    const node_id colsum = g.add_reduce(monoid::sum, xt);
    const node_id m_f = g.add_cast(dtype::float64, g.add_extent(er));
    g.nodes[static_cast<std::size_t>(m_f)].domain = ec;  // add_op puts an op of uniform arguments in D1
    const node_id colmean = g.add_op(op::true_divide, dtype::float64, {colsum, m_f});
    output_at(g, g.add_op(op::subtract, dtype::float64, {x, g.add_broadcast(colmean, dc)}), dc);
    const node_id rowmean = g.add_op(op::true_divide, dtype::float64,
                                     {g.add_reduce(monoid::sum, x), g.add_cast(dtype::float64, g.add_extent(dc))});
    const node_id centred = g.add_op(op::subtract, dtype::float64, {x, g.add_broadcast(rowmean, dc)});
    output_at(g, g.add_reduce(monoid::sum, centred, ir::no_node, 0), 0);
    arr<double> xs(static_cast<std::size_t>(m * n)), out(xs.n), total(1);
    fill(xs, true);
    detail::step_bindings bd{{m, n},
                             {binding(out.data(), {n, 1}), binding(total.data(), {0, 0})},
                             {binding(xs.data(), {n, 1}), binding(xs.data(), {n, 1})},
                             {}};
    cpu_exec::execute(g, bd);
    auto at = [&](i64 i, i64 j) { return xs[static_cast<std::size_t>(i * n + j)]; };
    for (i64 j = 0; j < n; ++j) {
      std::vector<double> col;
      for (i64 i = 0; i < m; ++i) col.push_back(at(i, j));
      const double mu = ref_reduce<double>(monoid::sum, col, nullptr).value / static_cast<double>(m);
      for (i64 i = 0; i < m; ++i)
        ASSERT_TRUE(same(out[static_cast<std::size_t>(i * n + j)], at(i, j) - mu)) << i << "," << j;
    }
    // sum(x - rowmean) is not exact: check it against a tolerance (the bits are checked by the
    // determinism test).
    double want = 0;
    for (i64 i = 0; i < m; ++i) {
      double s = 0;
      for (i64 j = 0; j < n; ++j) s += at(i, j);
      for (i64 j = 0; j < n; ++j) want += at(i, j) - s / static_cast<double>(n);
    }
    EXPECT_NEAR(total[0], want, 1e-9 * static_cast<double>(m * n)) << m << "x" << n;
  }
}

// x = x - mean(x, 1, keepdims) into x itself; with a second output x * var(x) read after x was
// written (the executor must defer the in-place store), and an undeclared overlapping output.
TEST(CpuExecutorNest, InPlace) {
  const i64 m = 93, n = 1001;
  arr<double> xs(static_cast<std::size_t>(m * n));
  fill(xs, true);
  std::vector<double> orig(xs.data(), xs.data() + xs.n);
  for (int second = 0; second < 2; ++second) {
    std::copy(orig.begin(), orig.end(), xs.data());
    graph g = nest(2);
    const domain_id dr = g.add_box(0, {0}), dc = g.add_box(dr, {1});
    const node_id x = input_at(g, dtype::float64, dc);
    const node_id cnt = g.add_cast(dtype::float64, g.add_extent(dc));
    const node_id mean = g.add_op(op::true_divide, dtype::float64, {g.add_reduce(monoid::sum, x), cnt});
    const node_id c = g.add_op(op::subtract, dtype::float64, {x, g.add_broadcast(mean, dc)});
    output_at(g, c, dc, 0);
    arr<double> o2(xs.n);
    detail::step_bindings bd{{m, n}, {binding(xs.data(), {n, 1})}, {binding(xs.data(), {n, 1})}, {}};
    if (second) {
      const node_id var = g.add_op(op::true_divide, dtype::float64,
                                   {g.add_reduce(monoid::sum, g.add_op(op::square, dtype::float64, {c})), cnt});
      output_at(g, g.add_op(op::multiply, dtype::float64, {x, g.add_broadcast(var, dc)}), dc);
      bd.outputs.push_back(binding(o2.data(), {n, 1}));
    }
    cpu_exec::execute(g, bd);
    for (i64 i = 0; i < m; ++i) {
      double s = 0, v = 0;
      for (i64 j = 0; j < n; ++j) s += orig[static_cast<std::size_t>(i * n + j)];
      const double mu = s / static_cast<double>(n);
      for (i64 j = 0; j < n; ++j)
        v += (orig[static_cast<std::size_t>(i * n + j)] - mu) * (orig[static_cast<std::size_t>(i * n + j)] - mu);
      for (i64 j = 0; j < n; ++j) {
        const double o = orig[static_cast<std::size_t>(i * n + j)];
        ASSERT_EQ(xs[static_cast<std::size_t>(i * n + j)], o - mu) << i << "," << j;
        if (second) {
          ASSERT_NEAR(o2[static_cast<std::size_t>(i * n + j)], o * (v / static_cast<double>(n)), 1e-9 * std::abs(o * v))
              << i << "," << j;
        }
      }
    }
  }
  // y[1:] = y[:-1] * 2 over the same memory, not declared: computed from the old values.
  const i64 len = 100000;
  arr<double> y(static_cast<std::size_t>(len + 1));
  fill(y);
  std::vector<double> old(y.data(), y.data() + y.n);
  graph g;
  g.set_map_rank(1);
  g.add_output(
      g.add_op(op::multiply, dtype::float64,
               {g.add_input(dtype::float64, layout::contiguous), g.add_constant(dtype::float64, scalar_value{2.0, 0})}),
      layout::contiguous);
  cpu_exec::execute(g, {{len}, {binding(y.data() + 1, {1})}, {binding(y.data(), {1})}, {}});
  for (i64 i = 0; i < len; ++i)
    ASSERT_TRUE(same(y[static_cast<std::size_t>(i + 1)], old[static_cast<std::size_t>(i)] * 2)) << i;
}

// ---- determinism ----------------------------------------------------------------------------------

// The documented order of combination (src/cpu/executor.cpp), written from its definition:
// pieces cut at multiples of chunk_len and result boundaries; float sums cut them into blocks at
// multiples of pair_len, each 8 lanes by flat index and a fixed tree, the blocks combined pairwise;
// other monoids run the 8 lanes over the whole piece; a result combines its pieces pairwise.
template <class F>
double pairwise(const std::vector<double>& p, std::size_t lo, std::size_t n, F op) {
  if (n == 1) return p[lo];
  std::size_t h = 1;  // the largest power of two below n
  while (2 * h < n) h *= 2;
  return op(pairwise(p, lo, h, op), pairwise(p, lo + h, n - h, op));
}
template <class F>
double canonical(const std::vector<double>& flat, i64 r, i64 R, bool blocks, double id, F op) {
  auto lanes = [&](i64 start, i64 end) {
    double l[8];
    std::fill(l, l + 8, id);
    for (i64 f = start; f < end; ++f) l[f % 8] = op(l[f % 8], flat[static_cast<std::size_t>(f)]);
    return op(op(op(l[0], l[1]), op(l[2], l[3])), op(op(l[4], l[5]), op(l[6], l[7])));
  };
  std::vector<double> pieces;
  for (i64 start = r * R; start < (r + 1) * R;) {
    const i64 end = std::min((r + 1) * R, (start / cpu_exec::chunk_len + 1) * cpu_exec::chunk_len);
    if (blocks) {
      std::vector<double> parts;
      for (i64 b = start; b < end; b = std::min(end, (b / cpu_exec::pair_len + 1) * cpu_exec::pair_len))
        parts.push_back(lanes(b, std::min(end, (b / cpu_exec::pair_len + 1) * cpu_exec::pair_len)));
      pieces.push_back(pairwise(parts, 0, parts.size(), op));
    } else {
      pieces.push_back(lanes(start, end));
    }
    start = end;
  }
  return op(id, pairwise(pieces, 0, pieces.size(), op));
}
double canonical_sum(const std::vector<double>& flat, i64 r, i64 R) {
  return canonical(flat, r, R, true, 0.0, [](double a, double b) { return a + b; });
}
double canonical_prod(const std::vector<double>& flat, i64 r, i64 R) {
  return canonical(flat, r, R, false, 1.0, [](double a, double b) { return a * b; });
}

TEST(CpuExecutorDeterminism, SameBitsWhateverTheThreads) {
  // Rows straddling several chunks, and short rows (not multiples of pair_len) within or across.
  for (const auto& [m, n] : {std::pair<i64, i64>{3, 700001}, std::pair<i64, i64>{4099, 333}}) {
    arr<double> xs(static_cast<std::size_t>(m * n)), ys(xs.n);
    fill(xs);
    for (std::size_t i = 0; i < xs.n; ++i) {
      if (std::isnan(xs[i]) || std::isinf(xs[i])) xs[i] = 1.25;
      // Factors near 1: products of 2 million of them stay in range and round at every step.
      ys[i] = 1 + std::ldexp(xs[i], -22);
    }
    graph g = nest(2);
    const domain_id dr = g.add_box(0, {0}), dc = g.add_box(dr, {1});
    const node_id x = input_at(g, dtype::float64, dc), y = input_at(g, dtype::float64, dc);
    const node_id sq = g.add_op(op::multiply, dtype::float64, {x, x});
    output_at(g, g.add_reduce(monoid::sum, sq), dr);
    output_at(g, g.add_reduce(monoid::sum, x, ir::no_node, 0), 0);
    output_at(g, g.add_reduce(monoid::argmax, x, ir::no_node, 0), 0);
    output_at(g, g.add_reduce(monoid::prod, y), dr);
    output_at(g, g.add_reduce(monoid::prod, y, ir::no_node, 0), 0);
    std::vector<double> flat(xs.data(), xs.data() + xs.n), flatsq(flat), flaty(ys.data(), ys.data() + ys.n);
    for (double& v : flatsq) v = v * v;
    std::vector<std::uint64_t> first;
    for (int threads : {0, 1, 2, 3, 5, 16}) {
      cpu_eval::set_thread_limit(threads);
      arr<double> rows(static_cast<std::size_t>(m)), total(1), prows(static_cast<std::size_t>(m)), ptotal(1);
      arr<i64> am(1);
      cpu_exec::execute(g, {{m, n},
                            {binding(rows.data(), {1, 0}), binding(total.data(), {0, 0}), binding(am.data(), {0, 0}),
                             binding(prows.data(), {1, 0}), binding(ptotal.data(), {0, 0})},
                            {binding(xs.data(), {n, 1}), binding(ys.data(), {n, 1})},
                            {}});
      std::vector<std::uint64_t> bits;
      for (i64 i = 0; i < m; ++i) {
        bits.push_back(std::bit_cast<std::uint64_t>(rows[static_cast<std::size_t>(i)]));
        bits.push_back(std::bit_cast<std::uint64_t>(prows[static_cast<std::size_t>(i)]));
        if (threads != 0) continue;  // the bits are compared with the first run's below
        ASSERT_EQ(rows[static_cast<std::size_t>(i)], canonical_sum(flatsq, i, n)) << "row " << i << " of " << m;
        ASSERT_EQ(prows[static_cast<std::size_t>(i)], canonical_prod(flaty, i, n)) << "row " << i << " of " << m;
      }
      bits.push_back(std::bit_cast<std::uint64_t>(total[0]));
      bits.push_back(std::bit_cast<std::uint64_t>(ptotal[0]));
      EXPECT_EQ(total[0], canonical_sum(flat, 0, m * n)) << "threads " << threads;
      EXPECT_EQ(ptotal[0], canonical_prod(flaty, 0, m * n)) << "threads " << threads;
      EXPECT_EQ(am[0], ref_reduce<double>(monoid::argmax, flat, nullptr).index);
      if (first.empty()) first = bits;
      EXPECT_EQ(bits, first) << "threads " << threads << ", " << m << " rows";
    }
  }
  cpu_eval::set_thread_limit(0);
}

// Float sums are pairwise: float32 sums of 2^22 values in [0, 1) within 1e-6 of a long double
// reference, in rows and in all; and of 2^22 times 0.1f, whose roundings all go the same way
// (8 lanes adding whole pieces, then the pieces in order, were 1.8e-5 off).
TEST(CpuExecutorDeterminism, FloatSumsArePairwise) {
  const i64 n = i64(1) << 22, m = 64;
  std::vector<float> xs(static_cast<std::size_t>(n));
  std::uniform_real_distribution<float> u(0, 1);
  for (float& v : xs) v = u(rng());
  graph g = nest(2);
  const domain_id dr = g.add_box(0, {0}), dc = g.add_box(dr, {1});
  const node_id x = input_at(g, dtype::float32, dc);
  output_at(g, g.add_reduce(monoid::sum, x, ir::no_node, 0), 0);
  output_at(g, g.add_reduce(monoid::sum, x), dr);
  float total = 0;
  std::vector<float> rows(static_cast<std::size_t>(m));
  cpu_exec::execute(
      g, {{m, n / m}, {binding(&total, {0, 0}), binding(rows.data(), {1, 0})}, {binding(xs.data(), {n / m, 1})}, {}});
  long double ref = 0;
  for (i64 i = 0; i < m; ++i) {
    long double row = 0;
    for (i64 j = 0; j < n / m; ++j) row += xs[static_cast<std::size_t>(i * (n / m) + j)];
    EXPECT_LE(std::abs(static_cast<double>((rows[static_cast<std::size_t>(i)] - row) / row)), 1e-6) << "row " << i;
    ref += row;
  }
  EXPECT_LE(std::abs(static_cast<double>((total - ref) / ref)), 1e-6) << total << " vs " << static_cast<double>(ref);
  std::fill(xs.begin(), xs.end(), 0.1f);
  cpu_exec::execute(
      g, {{m, n / m}, {binding(&total, {0, 0}), binding(rows.data(), {1, 0})}, {binding(xs.data(), {n / m, 1})}, {}});
  const double want = static_cast<double>(0.1f) * static_cast<double>(n);
  EXPECT_LE(std::abs((total - want) / want), 1e-6) << total << " vs " << want;
}

// ---- bad graphs and bindings ------------------------------------------------------------------------

TEST(CpuExecutorErrors, Rejected) {
  double v = 0, o = 0;
  {
    graph g = nest(1);
    const domain_id l = static_cast<domain_id>(g.domains.size());
    g.domains.push_back(ir::domain{ir::domain_kind::list, 0, {}, 0, 0});
    output_at(g, g.add_reduce(monoid::sum, input_at(g, dtype::float64, l)), 0);
    try {
      cpu_exec::execute(g, {{1}, {binding(&o, {0})}, {binding(&v, {0})}, {}});
      ADD_FAILURE() << "a list domain was accepted";
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find("list domain"), std::string::npos) << e.what();
    }
  }
  graph g;
  g.set_map_rank(1);
  g.add_output(g.add_input(dtype::float64, layout::contiguous), layout::contiguous);
  EXPECT_THROW(cpu_exec::execute(g, {{1, 1}, {binding(&o, {1})}, {binding(&v, {1})}, {}}), error);  // extents
  EXPECT_THROW(cpu_exec::execute(g, {{1}, {binding(&o, {1})}, {}, {}}), error);                     // inputs
  EXPECT_THROW(cpu_exec::execute(g, {{1}, {binding(&o, {1})}, {binding(&v, {})}, {}}), error);      // strides
  EXPECT_THROW(cpu_exec::execute(g, {{-1}, {binding(&o, {1})}, {binding(&v, {1})}, {}}), error);    // extent
  g.nodes[0].type = dtype::int32;                                                                   // invalid graph
  EXPECT_THROW(cpu_exec::execute(g, {{1}, {binding(&o, {1})}, {binding(&v, {1})}, {}}), error);
}

}  // namespace
