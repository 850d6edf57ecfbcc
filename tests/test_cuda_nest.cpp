// Loop-nest kernels on the GPU: hand-built graphs (nest_graphs.hpp) generated, compiled, launched
// with jf::cuda_rt::launch_nest and compared with a scalar reference computed here with the same
// jf::ops monoids. Sizes 0, 1, odd, larger than a block, rows of 1, 31, 33, 1000, 40000; every
// shape also under forced grids (other block counts, splits, warp/block rows); two runs must give
// the same bits. Skips (saying why) without a GPU.
#include <gtest/gtest.h>

#ifdef JF_HAVE_CUDA

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/step_bindings.hpp"
#include "cuda/codegen/nest_emitter.hpp"
#include "cuda/launch_nest.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/ir/passes.hpp"
#include "jetfuse/scalar_ops.hpp"
#include "nest_graphs.hpp"

using namespace nest_test;
namespace rt = jf::cuda_rt;
using jf::ir::kernel_source;

namespace {

#define REQUIRE_GPU() \
  if (!rt::available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: loop-nest GPU tests skipped"

// Host storage of a dtype (bool as one byte: std::vector<bool> is packed).
template <class T> using elem = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
template <class T> using hvec = std::vector<elem<T>>;

template <class F> void with_type(dtype t, F&& f) {
  switch (t) {
  case dtype::bool_: f(bool{}); break;
  case dtype::int32: f(int{}); break;
  case dtype::int64: f(static_cast<long long>(0)); break;
  case dtype::float32: f(float{}); break;
  case dtype::float64: f(double{}); break;
  case dtype::int8: f(std::int8_t{}); break;
  case dtype::int16: f(std::int16_t{}); break;
  case dtype::uint8: f(std::uint8_t{}); break;
  case dtype::uint16: f(std::uint16_t{}); break;
  case dtype::uint32: f(std::uint32_t{}); break;
  case dtype::uint64: f(static_cast<unsigned long long>(0)); break;
  }
}

std::mt19937_64& rng() {
  static std::mt19937_64 r(12345);
  return r;
}

// Values for monoid m: exact powers of two near 1 for products (order-independent results), some
// NaN / inf / +-0 for floats, integer edge cases, random bools.
template <class T> hvec<T> values(std::size_t n, monoid m) {
  hvec<T> v(n);
  auto& r = rng();
  for (std::size_t i = 0; i < n; ++i) {
    auto& x = v[i];
    if constexpr (std::is_same_v<T, bool>) {
      x = static_cast<unsigned char>(r() % 4 != 0);
    } else if (m == monoid::prod) {
      // Factors 2 and 0.5 only among the first 64 elements: no partial product of any order
      // leaves [2^-64, 2^64] (a random walk over a million factors would over- or underflow).
      const int k = i < 64 ? static_cast<int>(r() % 4) : 2 + static_cast<int>(r() % 2);
      x = static_cast<T>(k == 0 ? 2 : k == 1 && std::is_floating_point_v<T> ? 0.5 : (k % 2 ? -1 : 1));
    } else if constexpr (std::is_floating_point_v<T>) {
      const int k = static_cast<int>(r() % 200);
      const T sp[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(), T(0), T(-0.0)};
      x = k < 5 ? sp[k] : static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(r));
    } else {
      const int k = static_cast<int>(r() % 100);
      x = k == 0 ? std::numeric_limits<T>::max() : k == 1 ? std::numeric_limits<T>::min()
                                                         : static_cast<T>(static_cast<long long>(r() % 2001) - 1000);
    }
  }
  return v;
}

// The reference of reduce(m, x if keep) in index order, with the kernels' jf::ops monoids.
template <class T> struct ref_result {
  T value{};
  long long index = -1;
};
template <class T> ref_result<T> reduce_ref(monoid m, const std::vector<T>& x, const std::vector<char>& keep) {
  namespace o = jf::ops;
  ref_result<T> res;
  auto fold = [&](T id, auto combine) {
    T acc = id;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (keep[i]) acc = combine(acc, x[i]);
    res.value = acc;
  };
  switch (m) {
  case monoid::sum: fold(o::jf_sum_identity<T>(), [](T a, T b) { return o::jf_sum_combine(a, b); }); break;
  case monoid::prod: fold(o::jf_prod_identity<T>(), [](T a, T b) { return o::jf_prod_combine(a, b); }); break;
  case monoid::min: fold(o::jf_min_identity<T>(), [](T a, T b) { return o::jf_min_combine(a, b); }); break;
  case monoid::max: fold(o::jf_max_identity<T>(), [](T a, T b) { return o::jf_max_combine(a, b); }); break;
  case monoid::nanmin: fold(o::jf_nanmin_identity<T>(), [](T a, T b) { return o::jf_nanmin_combine(a, b); }); break;
  case monoid::nanmax: fold(o::jf_nanmax_identity<T>(), [](T a, T b) { return o::jf_nanmax_combine(a, b); }); break;
  case monoid::any:
    if constexpr (std::is_same_v<T, bool>) fold(false, [](bool a, bool b) { return o::jf_any_combine(a, b); });
    break;
  case monoid::all:
    if constexpr (std::is_same_v<T, bool>) fold(true, [](bool a, bool b) { return o::jf_all_combine(a, b); });
    break;
  case monoid::argmin:
  case monoid::argmax: {
    o::jf_arg<T> acc = m == monoid::argmin ? o::jf_argmin_identity<T>() : o::jf_argmax_identity<T>();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (keep[i]) {
        const o::jf_arg<T> c{x[i], static_cast<long long>(i)};
        acc = m == monoid::argmin ? o::jf_argmin_combine(acc, c) : o::jf_argmax_combine(acc, c);
      }
    res.index = acc.index;
    break;
  }
  }
  return res;
}

// The guard of nest_graphs.hpp's guard_of on the host.
template <class T> bool guard_ref(T x) {
  if constexpr (std::is_same_v<T, bool>) return !x;
  else if constexpr (std::is_floating_point_v<T>) return x <= x;
  else return x != T(1);
}

// Whether got matches want: exact for integers, bool, positions and order-independent monoids;
// sums of floats within a tolerance scaled by the sum of magnitudes (the order differs).
template <class T> bool close(T got, T want, monoid m, double magnitude) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (m != monoid::sum || std::isinf(want)) return got == want;
    const double eps = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <= eps * (magnitude + 1);
  } else {
    return got == want;
  }
}

// Device memory for one operand, freed stream-ordered.
struct dbuf {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit dbuf(std::size_t n) : p(rt::allocate(n)), bytes(n) { rt::memset_d8(p, 0, n); }
  ~dbuf() { rt::deallocate(p); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  template <class E> static std::unique_ptr<dbuf> of(const std::vector<E>& h) {
    auto b = std::make_unique<dbuf>(h.size() * sizeof(E));
    rt::copy_htod(b->p, h.data(), h.size() * sizeof(E));
    return b;
  }
  template <class E> std::vector<E> get(std::size_t n) const {
    std::vector<E> h(n);
    rt::copy_dtoh(h.data(), p, n * sizeof(E));
    return h;
  }
  std::vector<unsigned char> raw() const { return get<unsigned char>(bytes); }
};

const rt::kernel& compiled(const kernel_source& k) { return rt::get_kernel(k.name, k.source, {}); }

// Launches with launch_nest, or with a forced grid/block when `forced` is set (to check that any
// grid gives a correct result; the scratch is sized for the forced grid).
void run(const kernel_source& k, const jf::detail::step_bindings& b, const jf::ir::launch_config* forced = nullptr) {
  if (!forced) {
    rt::launch_nest(k, compiled(k), b);
  } else {
    std::unique_ptr<dbuf> scratch;
    if (forced->scratch_bytes) scratch = std::make_unique<dbuf>(forced->scratch_bytes);
    const auto slots = rt::pack_nest_args(k, b, scratch ? scratch->p : nullptr);
    rt::launch(compiled(k), forced->grid, forced->block, forced->shared_bytes, slots.data());
  }
  rt::synchronize();
}

std::string what(monoid m, dtype t, bool guard, const std::string& sizes) {
  std::ostringstream s;
  s << jf::name(m) << " of " << jf::name(t) << (guard ? " with a guard" : "") << ", " << sizes;
  return s.str();
}

}  // namespace

// ---- full reduction ---------------------------------------------------------------------------

TEST(CudaNest, FullReductionEveryMonoidAndDtype) {
  REQUIRE_GPU();
  const std::int64_t sizes[] = {0, 1, 7, 255, 257, 1000, 40000, (1 << 20) + 3};
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) {
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          const graph g = full(m, t, guard, guard);
          const kernel_source k = jf::ir::generate_cuda(g);
          ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::full_reduction);
          for (std::int64_t n : sizes) {
            const hvec<T> xs = values<T>(static_cast<std::size_t>(n), m);
            std::vector<T> x(xs.begin(), xs.end());
            std::vector<char> keep(x.size());
            double mag = 0;
            for (std::size_t i = 0; i < x.size(); ++i) {
              keep[i] = !guard || guard_ref<T>(x[i]);
              if constexpr (std::is_floating_point_v<T>)
                if (keep[i] && std::isfinite(x[i])) mag += std::abs(static_cast<double>(x[i]));
            }
            const ref_result<T> want = reduce_ref(m, x, keep);
            auto in = dbuf::of(xs.empty() ? hvec<T>(1) : xs);
            dbuf out(8);
            jf::detail::step_bindings b;
            b.extents = {n};
            b.outputs = {{out.p, {0}}};
            b.inputs = {{in->p, {1}}};
            std::vector<unsigned char> first;
            for (int rep = 0; rep < 2; ++rep) {
              run(k, b);
              if (rep == 0) first = out.raw();
              else EXPECT_EQ(first, out.raw()) << "two runs differ: " << what(m, t, guard, "n = " + std::to_string(n));
            }
            if (jf::is_arg_monoid(m)) {
              EXPECT_EQ(out.get<long long>(1)[0], want.index) << what(m, t, guard, "n = " + std::to_string(n));
            } else {
              const T got = static_cast<T>(out.get<elem<T>>(1)[0]);
              EXPECT_TRUE(close(got, want.value, m, mag))
                  << what(m, t, guard, "n = " + std::to_string(n)) << ": got " << +got << ", want " << +want.value;
            }
            // Other grids (1, 3, 7, 300 blocks) give the same value (floating sums: within the tolerance).
            if (n > 0 && n <= 40000)
              for (unsigned blocks : {1u, 3u, 7u, 300u}) {
                jf::ir::launch_config c;
                c.grid[0] = blocks;
                c.block[0] = 256;
                c.scratch_bytes = 16 + 2 * ((std::size_t(blocks) * 8 + 15) / 16 * 16);  // >= every layout
                run(k, b, &c);
                if (jf::is_arg_monoid(m)) {
                  EXPECT_EQ(out.get<long long>(1)[0], want.index) << what(m, t, guard, "grid " + std::to_string(blocks));
                } else {
                  const T got = static_cast<T>(out.get<elem<T>>(1)[0]);
                  EXPECT_TRUE(close(got, want.value, m, mag))
                      << what(m, t, guard, "n = " + std::to_string(n) + ", grid " + std::to_string(blocks)) << ": got "
                      << +got << ", want " << +want.value;
                }
              }
          }
        });
      }
    }
}

TEST(CudaNest, FullReductionThreeReductionsOneKernel) {
  REQUIRE_GPU();
  for (bool i32 : {false, true})
    for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(33), std::int64_t(40000), std::int64_t(1) << 21}) {
      const kernel_source k = jf::ir::generate_cuda(full_three(i32));
      std::vector<double> a = values<double>(static_cast<std::size_t>(n), monoid::sum);
      std::vector<double> b2 = values<double>(static_cast<std::size_t>(2 * n), monoid::sum);  // b = b2[::2]
      std::vector<double> b(static_cast<std::size_t>(n));
      double sum = 0, mag = 0;
      std::vector<char> keep(static_cast<std::size_t>(n), 1);
      for (std::size_t i = 0; i < b.size(); ++i) {
        b[i] = b2[2 * i];
        sum = jf::ops::jf_add(sum, a[i] * b[i]);
        if (std::isfinite(a[i] * b[i])) mag += std::abs(a[i] * b[i]);
      }
      const double want_max = reduce_ref(monoid::max, a, keep).value;
      const long long want_arg = reduce_ref(monoid::argmin, b, keep).index;
      auto da = dbuf::of(a.empty() ? std::vector<double>(1) : a), db = dbuf::of(b2.empty() ? std::vector<double>(1) : b2);
      dbuf o0(8), o1(8), o2(8);
      jf::detail::step_bindings bind;
      bind.extents = {n};
      bind.outputs = {{o0.p, {0}}, {o1.p, {0}}, {o2.p, {0}}};
      bind.inputs = {{da->p, {1}}, {db->p, {2}}};
      run(k, bind);
      const std::string at = "n = " + std::to_string(n) + (i32 ? ", int indices" : "");
      EXPECT_TRUE(close(o0.get<double>(1)[0], std::sqrt(sum), monoid::sum, std::sqrt(mag)))
          << "sqrt(sum(a*b)), " << at << ": got " << o0.get<double>(1)[0] << ", want " << std::sqrt(sum);
      const double got_max = o1.get<double>(1)[0];
      EXPECT_TRUE(close(got_max, want_max, monoid::max, 0)) << "max(a), " << at << ": got " << got_max << ", want " << want_max;
      EXPECT_EQ(o2.get<long long>(1)[0], want_arg) << "argmin(b[::2]), " << at;
    }
}

// ---- row and column reductions ----------------------------------------------------------------

namespace {

// reduce(m, x) along the rows or the columns of a (rows, len) / (len, cols) matrix, checked per
// output against the reference, under launch_nest and forced launches; two runs bit-identical.
template <class T> void check_lines(monoid m, dtype t, bool guard, bool column, std::int64_t lines, std::int64_t len, bool i32) {
  const graph g = column ? columns(m, t, guard, i32) : rows(m, t, guard, i32);
  const kernel_source k = jf::ir::generate_cuda(g);
  ASSERT_EQ(k.launch.shape, column ? jf::ir::kernel_shape::column_reduction : jf::ir::kernel_shape::row_reduction);
  const std::size_t total = static_cast<std::size_t>(lines * len);
  const hvec<T> xs = values<T>(total, m);
  // Element (line l, position p): rows: x[l * len + p]; columns: x[p * lines + l].
  auto at = [&](std::int64_t l, std::int64_t p) {
    return static_cast<T>(xs[static_cast<std::size_t>(column ? p * lines + l : l * len + p)]);
  };
  auto in = dbuf::of(xs.empty() ? hvec<T>(1) : xs);
  const std::size_t out_elem = jf::is_arg_monoid(m) ? 8 : sizeof(elem<T>);
  dbuf out(static_cast<std::size_t>(std::max<std::int64_t>(lines, 1)) * out_elem);
  jf::detail::step_bindings b;
  if (column) {
    b.extents = {len, lines};
    b.inputs = {{in->p, {lines, 1}}};
    b.outputs = {{out.p, {0, 1}}};
  } else {
    b.extents = {lines, len};
    b.inputs = {{in->p, {len, 1}}};
    b.outputs = {{out.p, {1, 0}}};
  }
  const std::string sizes = std::string(column ? "columns" : "rows") + " " + std::to_string(lines) + " x " +
                            std::to_string(len) + (i32 ? ", int indices" : "");
  auto check = [&](const std::string& how) {
    for (std::int64_t l = 0; l < lines; ++l) {
      std::vector<T> x(static_cast<std::size_t>(len));
      std::vector<char> keep(x.size());
      double mag = 0;
      for (std::int64_t p = 0; p < len; ++p) {
        x[static_cast<std::size_t>(p)] = at(l, p);
        keep[static_cast<std::size_t>(p)] = !guard || guard_ref<T>(x[static_cast<std::size_t>(p)]);
        if constexpr (std::is_floating_point_v<T>)
          if (keep[static_cast<std::size_t>(p)] && std::isfinite(x[static_cast<std::size_t>(p)]))
            mag += std::abs(static_cast<double>(x[static_cast<std::size_t>(p)]));
      }
      const ref_result<T> want = reduce_ref(m, x, keep);
      if (jf::is_arg_monoid(m)) {
        const long long got = out.get<long long>(static_cast<std::size_t>(lines))[static_cast<std::size_t>(l)];
        if (got != want.index) {
          ADD_FAILURE() << what(m, t, guard, sizes) << how << ": line " << l << ": got position " << got << ", want " << want.index;
          return;
        }
      } else {
        const T got = static_cast<T>(out.get<elem<T>>(static_cast<std::size_t>(lines))[static_cast<std::size_t>(l)]);
        if (!close(got, want.value, m, mag)) {
          ADD_FAILURE() << what(m, t, guard, sizes) << how << ": line " << l << ": got " << +got << ", want " << +want.value;
          return;
        }
      }
    }
  };
  run(k, b);
  const std::vector<unsigned char> first = out.raw();
  check(" (launch_nest)");
  run(k, b);
  EXPECT_EQ(first, out.raw()) << "two runs differ: " << what(m, t, guard, sizes);
  if (lines == 0) return;
  // Forced launches: rows as warps (32x8) and as blocks (256x1) with 1 or 3 blocks; columns with
  // 1, 2 and 5 splits.
  std::vector<jf::ir::launch_config> forced;
  if (!column) {
    for (unsigned bx : {32u, 256u})
      for (unsigned blocks : {1u, 3u}) {
        jf::ir::launch_config c;
        c.grid[0] = blocks;
        c.block[0] = bx;
        c.block[1] = bx == 32 ? 8 : 1;
        forced.push_back(c);
      }
  } else {
    for (unsigned splits : {1u, 2u, 5u}) {
      jf::ir::launch_config c;
      c.grid[0] = static_cast<unsigned>((lines + 255) / 256);
      c.grid[1] = splits;
      c.block[0] = 256;
      c.scratch_bytes = 16 * (c.grid[0] + 1) + 2 * ((std::size_t(splits) * std::size_t(lines) * 8 + 15) / 16 * 16);
      forced.push_back(c);
    }
  }
  for (const auto& c : forced) {
    rt::memset_d8(out.p, 0xff, out.bytes);
    run(k, b, &c);
    check(" (forced grid " + std::to_string(c.grid[0]) + "x" + std::to_string(c.grid[1]) + ", block " +
          std::to_string(c.block[0]) + "x" + std::to_string(c.block[1]) + ")");
  }
}

const std::int64_t line_sizes[][2] = {{0, 5}, {5, 0}, {1, 1}, {3, 31}, {7, 33}, {5, 1000}, {2, 40000}, {1000, 1}, {300, 257}};

}  // namespace

TEST(CudaNest, RowReductionEveryMonoidAndDtype) {
  REQUIRE_GPU();
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true})
        for (const auto& s : line_sizes)
          with_type(t, [&](auto tag) { check_lines<decltype(tag)>(m, t, guard, false, s[0], s[1], guard); });
    }
}

TEST(CudaNest, ColumnReductionEveryMonoidAndDtype) {
  REQUIRE_GPU();
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true})
        for (const auto& s : line_sizes)
          with_type(t, [&](auto tag) { check_lines<decltype(tag)>(m, t, guard, true, s[0], s[1], !guard); });
    }
}

// ---- x - mean(x, 1, keepdims) -----------------------------------------------------------------

TEST(CudaNest, RowWithMapMinusMean) {
  REQUIRE_GPU();
  for (dtype t : {dtype::float32, dtype::float64})
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        for (const auto& s : line_sizes) {
          const std::int64_t nr = s[0], len = s[1];
          const kernel_source k = jf::ir::generate_cuda(minus_row_mean(t, true, nr % 2 == 1));
          ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::row_with_map);
          std::vector<T> x(static_cast<std::size_t>(nr * len));
          for (auto& v : x) v = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(rng()));
          auto in = dbuf::of(x.empty() ? std::vector<T>(1) : x);
          dbuf y(std::max<std::size_t>(x.size(), 1) * sizeof(T)), mean(static_cast<std::size_t>(std::max<std::int64_t>(nr, 1)) * sizeof(T));
          jf::detail::step_bindings b;
          b.extents = {nr, len};
          b.inputs = {{in->p, {len, 1}}};
          b.outputs = {{y.p, {len, 1}}, {mean.p, {1, 0}}};
          run(k, b);
          const auto first = y.raw();
          run(k, b);
          EXPECT_EQ(first, y.raw()) << "two runs differ, " << nr << " x " << len;
          const std::vector<T> gy = y.get<T>(x.size()), gm = mean.get<T>(static_cast<std::size_t>(nr));
          const double eps = std::is_same_v<T, float> ? 2e-5 : 1e-12;
          for (std::int64_t r = 0; r < nr; ++r) {
            double sum = 0, mag = 0;
            for (std::int64_t j = 0; j < len; ++j) {
              sum += x[static_cast<std::size_t>(r * len + j)];
              mag += std::abs(static_cast<double>(x[static_cast<std::size_t>(r * len + j)]));
            }
            const double m = sum / static_cast<double>(len);
            if (len == 0) {
              EXPECT_TRUE(std::isnan(gm[static_cast<std::size_t>(r)])) << "mean of an empty row is 0/0";
              continue;
            }
            ASSERT_NEAR(gm[static_cast<std::size_t>(r)], m, eps * (mag + 1)) << "mean of row " << r << ", " << nr << " x " << len;
            for (std::int64_t j = 0; j < len; ++j) {
              const std::size_t i = static_cast<std::size_t>(r * len + j);
              ASSERT_NEAR(gy[i], x[i] - gm[static_cast<std::size_t>(r)], eps * (std::abs(x[i]) + mag / len + 1))
                  << "y[" << r << ", " << j << "], " << nr << " x " << len;
            }
          }
        }
      }
    });
}

// ---- row_with_map over the reduced domain: the row cache ------------------------------------------

namespace {

// A forced launch of a row-cache kernel and its name in failure messages.
struct forced_launch {
  jf::ir::launch_config c;
  std::string what;
};

// A 1024-thread and a 256-thread block per row and a warp per row (8 rows per block), each with no
// shared memory (reload), the cache's exact bytes (cached) and one byte too few (the kernel must
// reload). Launches over 48 KiB of shared memory are left out: they need the opt-in launch_nest does.
std::vector<forced_launch> row_cache_forced(const kernel_source& k, std::int64_t rows, std::int64_t len) {
  std::vector<forced_launch> v;
  for (unsigned bx : {1024u, 256u, 32u}) {
    const unsigned by = bx == 32 ? 8 : 1;
    std::size_t exact = 0;
    for (int e : k.launch.row_cache_bytes) exact += (std::size_t(e) * by * std::size_t(len) + 15) / 16 * 16;
    for (std::size_t shared : {std::size_t(0), exact, exact - 1}) {
      if (shared > 48 * 1024 || (shared == exact - 1 && exact == 0)) continue;
      forced_launch f;
      f.c.grid[0] = static_cast<unsigned>(std::min<std::int64_t>(3, (rows + by - 1) / by));
      f.c.block[0] = bx;
      f.c.block[1] = by;
      f.c.shared_bytes = shared;
      f.what = "forced grid " + std::to_string(f.c.grid[0]) + ", block " + std::to_string(bx) + "x" +
               std::to_string(by) + ", " + std::to_string(shared) + " B shared (" +
               (shared == exact && exact > 0 ? "cached" : "reload") + ")";
      v.push_back(f);
    }
  }
  return v;
}

// Runs k under launch_nest (twice: the same bits) and under row_cache_forced's launches; `check`
// compares the outputs with the reference (returns "" or what differs). Launches with the same
// block must give the same bits cached or not: the cache does not change the order of combination.
template <class Check>
void check_row_cache_runs(const kernel_source& k, const jf::detail::step_bindings& b,
                          const std::vector<const dbuf*>& outs, std::int64_t rows, std::int64_t len,
                          const std::string& sizes, const Check& check) {
  auto raw = [&] {
    std::vector<unsigned char> all;
    for (const dbuf* o : outs) {
      const auto r = o->raw();
      all.insert(all.end(), r.begin(), r.end());
    }
    return all;
  };
  const jf::ir::launch_config c = jf::ir::configure_launch(k, b.extents.data(), 2, rt::nest_device_limits());
  const std::string how = sizes + " (launch_nest: " + jf::ir::describe_launch(k, c) + ")";
  run(k, b);
  const auto first = raw();
  if (const std::string bad = check(); !bad.empty()) ADD_FAILURE() << how << ": " << bad;
  run(k, b);
  EXPECT_EQ(first, raw()) << "two runs differ: " << how;
  if (rows == 0 || len == 0) return;
  std::map<unsigned, std::pair<std::vector<unsigned char>, std::string>> by_block;
  for (const forced_launch& f : row_cache_forced(k, rows, len)) {
    for (const dbuf* o : outs) rt::memset_d8(o->p, 0xff, o->bytes);
    run(k, b, &f.c);
    if (const std::string bad = check(); !bad.empty()) ADD_FAILURE() << sizes << ", " << f.what << ": " << bad;
    const auto bits = raw();
    auto [it, fresh] = by_block.try_emplace(f.c.block[0], bits, f.what);
    if (!fresh) {
      EXPECT_TRUE(it->second.first == bits)
          << sizes << ": " << f.what << " and " << it->second.second << " differ in bits";
    }
  }
}

// Expected launch decisions on sm_90 (227 KiB of shared memory per block, 228 KiB per SM).
void expect_cached_on_hopper(const kernel_source& k, const std::int64_t ext[2], bool want, const std::string& sizes) {
  if (rt::props(0).cc_major != 9) return;
  const jf::ir::launch_config c = jf::ir::configure_launch(k, ext, 2, rt::nest_device_limits());
  EXPECT_EQ(c.shared_bytes > 0, want) << sizes << ": " << jf::ir::describe_launch(k, c);
}

}  // namespace

TEST(CudaNest, RowCacheMinusMean) {
  REQUIRE_GPU();
  // The lowering's graph: out #0 = x - mean(x) over R, x one load read by the reduce and the map.
  const std::int64_t sizes[][2] = {{1, 1},     {3, 31},    {7, 33}, {9, 1000}, {3, 4097},
                                   {2, 40000}, {2, 70000}, {0, 8},  {4, 0},    {33, 2049}};
  for (dtype t : {dtype::float32, dtype::float64})
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        for (const auto& sz : sizes) {
          const std::int64_t nr = sz[0], len = sz[1];
          const kernel_source k = jf::ir::generate_cuda(x_minus_row_mean(t, nr % 2 == 1));
          ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::row_with_map);
          ASSERT_FALSE(k.launch.row_cache_bytes.empty()) << "x - mean(x) over R itself must keep x";
          const std::string at = std::string(jf::name(t)) + " " + std::to_string(nr) + " x " + std::to_string(len) +
                                 (nr % 2 == 1 ? ", int indices" : "");
          const std::int64_t ext[2] = {nr, len};
          if (nr == 2 && len == 70000) expect_cached_on_hopper(k, ext, false, at + " (280 KB rows)");
          if (t == dtype::float32 && ((nr == 2 && len == 40000) || (nr == 9 && len == 1000)))
            expect_cached_on_hopper(k, ext, true, at);
          if (t == dtype::float64 && nr == 2 && len == 40000)
            expect_cached_on_hopper(k, ext, false, at + " (320 KB rows)");
          std::vector<T> x(static_cast<std::size_t>(nr * len));
          for (auto& v : x) v = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(rng()));
          auto in = dbuf::of(x.empty() ? std::vector<T>(1) : x);
          dbuf y(std::max<std::size_t>(x.size(), 1) * sizeof(T));
          jf::detail::step_bindings b;
          b.extents = {nr, len};
          b.inputs = {{in->p, {len, 1}}};
          b.outputs = {{y.p, {len, 1}}};
          // The reference mean in double, in index order.
          std::vector<double> mean(static_cast<std::size_t>(nr)), mag(static_cast<std::size_t>(nr));
          for (std::int64_t r = 0; r < nr; ++r) {
            double sum = 0;
            for (std::int64_t j = 0; j < len; ++j) {
              sum += x[static_cast<std::size_t>(r * len + j)];
              mag[static_cast<std::size_t>(r)] +=
                  std::abs(static_cast<double>(x[static_cast<std::size_t>(r * len + j)]));
            }
            mean[static_cast<std::size_t>(r)] = sum / static_cast<double>(len);
          }
          const double eps = std::is_same_v<T, float> ? 2e-5 : 1e-12;
          auto check = [&]() -> std::string {
            const std::vector<T> gy = y.get<T>(x.size());
            for (std::int64_t r = 0; r < nr; ++r)
              for (std::int64_t j = 0; j < len; ++j) {
                const std::size_t i = static_cast<std::size_t>(r * len + j);
                const double want = static_cast<double>(x[i]) - mean[static_cast<std::size_t>(r)];
                const double tol = eps * (std::abs(static_cast<double>(x[i])) +
                                          mag[static_cast<std::size_t>(r)] / static_cast<double>(len) + 1);
                if (!(std::abs(static_cast<double>(gy[i]) - want) <= tol)) {
                  std::ostringstream o;
                  o.precision(17);
                  o << "y[" << r << ", " << j << "] = " << gy[i] << ", want " << want << " (x = " << x[i] << ", mean "
                    << mean[static_cast<std::size_t>(r)] << ")";
                  return o.str();
                }
              }
            return "";
          };
          check_row_cache_runs(k, b, {&y}, nr, len, at, check);
        }
      }
    });
}

TEST(CudaNest, RowCacheIntegers) {
  REQUIRE_GPU();
  // y = x - reduce(m, x) per row: exact.
  const std::int64_t sizes[][2] = {{7, 33}, {5, 1000}, {3, 4097}, {2, 40000}, {2, 70000}};
  for (dtype t : {dtype::int32, dtype::int64})
    for (monoid m : {monoid::sum, monoid::max})
      with_type(t, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          for (const auto& sz : sizes) {
            const std::int64_t nr = sz[0], len = sz[1];
            const kernel_source k = jf::ir::generate_cuda(minus_row_reduce(m, t, t == dtype::int32));
            ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::row_with_map);
            const std::string at = what(m, t, false, std::to_string(nr) + " x " + std::to_string(len));
            std::vector<T> x(static_cast<std::size_t>(nr * len));
            for (auto& v : x) v = static_cast<T>(static_cast<long long>(rng()() % 2001) - 1000);
            std::vector<T> red(static_cast<std::size_t>(nr));
            std::vector<char> keep(static_cast<std::size_t>(len), 1);
            for (std::int64_t r = 0; r < nr; ++r)
              red[static_cast<std::size_t>(r)] =
                  reduce_ref(m, std::vector<T>(x.begin() + r * len, x.begin() + (r + 1) * len), keep).value;
            auto in = dbuf::of(x);
            dbuf y(x.size() * sizeof(T));
            jf::detail::step_bindings b;
            b.extents = {nr, len};
            b.inputs = {{in->p, {len, 1}}};
            b.outputs = {{y.p, {len, 1}}};
            auto check = [&]() -> std::string {
              const std::vector<T> gy = y.get<T>(x.size());
              for (std::size_t i = 0; i < x.size(); ++i) {
                const T want = static_cast<T>(x[i] - red[i / static_cast<std::size_t>(len)]);
                if (gy[i] != want)
                  return "y[" + std::to_string(i / len) + ", " + std::to_string(i % len) +
                         "] = " + std::to_string(gy[i]) + ", want " + std::to_string(want);
              }
              return "";
            };
            check_row_cache_runs(k, b, {&y}, nr, len, at, check);
          }
        }
      });
}

TEST(CudaNest, RowCacheTwoKeptLoadsAndStridedOperands) {
  REQUIRE_GPU();
  // a (float32) and b (float64, every other element) kept; c read by the map only; z stored
  // column-major; s per row.
  const std::int64_t sizes[][2] = {{5, 33}, {9, 1000}, {3, 4097}, {2, 40000}, {2, 70000}};
  for (const auto& sz : sizes) {
    const std::int64_t nr = sz[0], len = sz[1];
    const std::size_t n = static_cast<std::size_t>(nr * len);
    const kernel_source k = jf::ir::generate_cuda(row_cache_mixed(nr % 2 == 1));
    ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::row_with_map);
    ASSERT_EQ(k.launch.row_cache_bytes, (std::vector<int>{4, 8}));
    const std::string at = "a f32, b f64 kept, " + std::to_string(nr) + " x " + std::to_string(len);
    std::vector<float> a(n);
    std::vector<double> b2(2 * n), c(n);
    for (auto& v : a) v = static_cast<float>(std::uniform_real_distribution<double>(-10, 10)(rng()));
    for (auto& v : b2) v = std::uniform_real_distribution<double>(-10, 10)(rng());
    for (auto& v : c) v = std::uniform_real_distribution<double>(-10, 10)(rng());
    std::vector<double> p(n), sref(static_cast<std::size_t>(nr)), mag(static_cast<std::size_t>(nr));
    for (std::size_t i = 0; i < n; ++i) {
      p[i] = static_cast<double>(a[i]) * b2[2 * i];
      sref[i / static_cast<std::size_t>(len)] += p[i];
      mag[i / static_cast<std::size_t>(len)] += std::abs(p[i]);
    }
    auto da = dbuf::of(a), db = dbuf::of(b2), dc = dbuf::of(c);
    dbuf y(n * 8), z(n * 8), s(static_cast<std::size_t>(nr) * 8);
    jf::detail::step_bindings b;
    b.extents = {nr, len};
    b.inputs = {{da->p, {len, 1}}, {db->p, {2 * len, 2}}, {dc->p, {len, 1}}};
    b.outputs = {{y.p, {len, 1}}, {z.p, {1, nr}}, {s.p, {1, 0}}};
    auto check = [&]() -> std::string {
      const auto gy = y.get<double>(n), gz = z.get<double>(n), gs = s.get<double>(static_cast<std::size_t>(nr));
      std::ostringstream o;
      o.precision(17);
      for (std::int64_t r = 0; r < nr; ++r) {
        const std::size_t ur = static_cast<std::size_t>(r);
        const double tol = 1e-12 * (mag[ur] + 1);
        if (!(std::abs(gs[ur] - sref[ur]) <= tol)) {
          o << "s[" << r << "] = " << gs[ur] << ", want " << sref[ur];
          return o.str();
        }
        for (std::int64_t j = 0; j < len; ++j) {
          const std::size_t i = static_cast<std::size_t>(r * len + j);
          const double want_y = p[i] - gs[ur] / static_cast<double>(len);
          const double want_z = c[i] + gs[ur];
          const double got_z = gz[static_cast<std::size_t>(j * nr + r)];
          if (!(std::abs(gy[i] - want_y) <= 1e-12 * (std::abs(want_y) + 1))) {
            o << "y[" << r << ", " << j << "] = " << gy[i] << ", want " << want_y;
            return o.str();
          }
          if (!(std::abs(got_z - want_z) <= 1e-12 * (std::abs(want_z) + 1))) {
            o << "z[" << r << ", " << j << "] = " << got_z << ", want " << want_z;
            return o.str();
          }
        }
      }
      return "";
    };
    check_row_cache_runs(k, b, {&y, &z, &s}, nr, len, at, check);
  }
}

// ---- 3-d shapes and the generic nest ----------------------------------------------------------

TEST(CudaNest, ThreeDimensionalRowAndColumn) {
  REQUIRE_GPU();
  const std::int64_t A = 5, B = 37, C = 41;
  std::vector<double> x(static_cast<std::size_t>(A * B * C)), y(static_cast<std::size_t>(A));
  for (auto& v : x) v = std::uniform_real_distribution<double>(-1, 1)(rng());
  for (auto& v : y) v = std::uniform_real_distribution<double>(-1, 1)(rng());
  auto dx = dbuf::of(x), dy = dbuf::of(y);
  {  // sum over axes (1, 2) of x - y[i]: a row reduction over two axes
    const kernel_source k = jf::ir::generate_cuda(last_two_axes(dtype::float64));
    dbuf out(A * 8);
    jf::detail::step_bindings b;
    b.extents = {A, B, C};
    b.inputs = {{dx->p, {B * C, C, 1}}, {dy->p, {1, 0, 0}}};
    b.outputs = {{out.p, {1, 0, 0}}};
    run(k, b);
    const auto got = out.get<double>(A);
    for (std::int64_t i = 0; i < A; ++i) {
      double want = 0;
      for (std::int64_t j = 0; j < B * C; ++j) want += x[static_cast<std::size_t>(i * B * C + j)] - y[static_cast<std::size_t>(i)];
      EXPECT_NEAR(got[static_cast<std::size_t>(i)], want, 1e-10) << "sum over axes 1, 2 minus y[i], i = " << i;
    }
  }
  {  // max over axis 1: a column reduction with K = (axis 0, axis 2)
    const kernel_source k = jf::ir::generate_cuda(middle_axis(monoid::max, dtype::float64));
    dbuf out(A * C * 8);
    jf::detail::step_bindings b;
    b.extents = {A, B, C};
    b.inputs = {{dx->p, {B * C, C, 1}}};
    b.outputs = {{out.p, {C, 0, 1}}};
    run(k, b);
    const auto got = out.get<double>(static_cast<std::size_t>(A * C));
    for (std::int64_t i = 0; i < A; ++i)
      for (std::int64_t l = 0; l < C; ++l) {
        double want = -INFINITY;
        for (std::int64_t j = 0; j < B; ++j) want = std::max(want, x[static_cast<std::size_t>((i * B + j) * C + l)]);
        EXPECT_EQ(got[static_cast<std::size_t>(i * C + l)], want) << "max over axis 1 at (" << i << ", " << l << ")";
      }
  }
}

TEST(CudaNest, GenericNestedAndTwoPass) {
  REQUIRE_GPU();
  for (const auto& s : line_sizes) {
    const std::int64_t nr = s[0], len = s[1];
    if (nr * len > 100000) continue;  // the generic nest is serial per output
    std::vector<double> x(static_cast<std::size_t>(nr * len));
    for (auto& v : x) v = std::uniform_real_distribution<double>(-10, 10)(rng());
    auto dx = dbuf::of(x.empty() ? std::vector<double>(1) : x);
    const std::string sizes = std::to_string(nr) + " x " + std::to_string(len);
    {  // max over rows of the row sums, and the row sums
      const kernel_source k = jf::ir::generate_cuda(max_of_row_sums(dtype::float64));
      ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::generic_nest);
      dbuf mx(8), sums(static_cast<std::size_t>(std::max<std::int64_t>(nr, 1)) * 8);
      jf::detail::step_bindings b;
      b.extents = {nr, len};
      b.inputs = {{dx->p, {len, 1}}};
      b.outputs = {{mx.p, {0, 0}}, {sums.p, {1, 0}}};
      run(k, b);
      const auto got = sums.get<double>(static_cast<std::size_t>(nr));
      double want_max = -INFINITY;
      for (std::int64_t r = 0; r < nr; ++r) {
        double sum = 0;
        for (std::int64_t j = 0; j < len; ++j) sum += x[static_cast<std::size_t>(r * len + j)];  // the kernel's order
        EXPECT_EQ(got[static_cast<std::size_t>(r)], sum) << "row sum " << r << ", " << sizes;
        want_max = std::max(want_max, sum);
      }
      EXPECT_EQ(mx.get<double>(1)[0], want_max) << "max of row sums, " << sizes;
    }
    {  // two-pass row variance
      const kernel_source k = jf::ir::generate_cuda(row_variance(dtype::float64));
      dbuf var(static_cast<std::size_t>(std::max<std::int64_t>(nr, 1)) * 8);
      jf::detail::step_bindings b;
      b.extents = {nr, len};
      b.inputs = {{dx->p, {len, 1}}};
      b.outputs = {{var.p, {1, 0}}};
      run(k, b);
      const auto got = var.get<double>(static_cast<std::size_t>(nr));
      for (std::int64_t r = 0; r < nr; ++r) {
        double sum = 0, ss = 0;
        for (std::int64_t j = 0; j < len; ++j) sum += x[static_cast<std::size_t>(r * len + j)];
        const double mean = sum / static_cast<double>(len);
        for (std::int64_t j = 0; j < len; ++j) {
          const double d = x[static_cast<std::size_t>(r * len + j)] - mean;
          ss += d * d;
        }
        const double want = ss / static_cast<double>(len);
        if (len == 0) EXPECT_TRUE(std::isnan(got[static_cast<std::size_t>(r)])) << "variance of an empty row";
        else EXPECT_EQ(got[static_cast<std::size_t>(r)], want) << "variance of row " << r << ", " << sizes;
      }
    }
  }
}

TEST(CudaNest, Int32IndicesAreChecked) {
  REQUIRE_GPU();
  const kernel_source k = jf::ir::generate_cuda(rows(monoid::sum, dtype::float32, false, true));
  dbuf in(16), out(16);
  jf::detail::step_bindings b;
  b.extents = {2, std::int64_t(1) << 31};
  b.inputs = {{in.p, {std::int64_t(1) << 31, 1}}};
  b.outputs = {{out.p, {1, 0}}};
  EXPECT_THROW(rt::launch_nest(k, compiled(k), b), jf::error);
}

// ---- jagged arrays: list kernels ----------------------------------------------------------------
// Hand-built list graphs (nest_graphs.hpp: axis 0 the lists, axis 1 the elements, input #0 the
// offsets) against per-list references computed here with the same jf::ops monoids.

namespace {

// Offsets of n lists starting at `start`: Poisson(lambda) lengths, then the given lengths placed at
// the given lists (long ones, empty ones). Seeded from the test's rng (seed printed by the caller).
struct list_layout {
  std::vector<long long> offsets;  // n + 1 entries
  std::string text;                // for messages
  long long n() const { return static_cast<long long>(offsets.size()) - 1; }
  long long total() const { return offsets.back() - offsets.front(); }
  long long longest() const {
    long long m = 0;
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) m = std::max(m, offsets[i + 1] - offsets[i]);
    return m;
  }
};
list_layout make_lists(long long n, double lambda, long long start, const std::vector<std::pair<long long, long long>>& fixed,
                       const std::string& text) {
  list_layout l;
  std::poisson_distribution<long long> len(lambda > 0 ? lambda : 1);
  l.offsets.resize(static_cast<std::size_t>(n + 1));
  l.offsets[0] = start;
  for (long long i = 0; i < n; ++i) {
    long long k = lambda > 0 ? len(rng()) : 0;
    for (const auto& [at, with] : fixed)
      if (at == i) k = with;
    l.offsets[static_cast<std::size_t>(i + 1)] = l.offsets[static_cast<std::size_t>(i)] + k;
  }
  l.text = text;
  return l;
}

// n lists from offset 5 (Poisson(2) lengths) with the lengths `at` placed at the given lists.
list_layout with_lengths(long long n, const std::vector<std::pair<long long, long long>>& at, const std::string& text) {
  return make_lists(n, 2, 5, at, text);
}
// n lists of one length.
list_layout all_of(long long n, long long len, const std::string& text) {
  std::vector<std::pair<long long, long long>> at;
  for (long long i = 0; i < n; ++i) at.push_back({i, len});
  return make_lists(n, 0, 0, at, text);
}

std::vector<list_layout> list_layouts() {
  // The list kernel's thresholds (docs/design.md, "List kernels"): a list of at most 16 elements by
  // its lane, up to 4096 by its warp, longer by the block; warp tiles of 32, 64 or 128 lists (1, 2,
  // 4 per lane), block tiles of 256, 512 or 1024: lists of 16/17 and 4096/4097 elements on both
  // sides of those boundaries, and tiles of more than 4096 elements next to light ones.
  std::vector<std::pair<long long, long long>> edges;
  for (long long i : {31LL, 127LL, 511LL, 2047LL}) edges.push_back({i, 17});
  for (long long i : {32LL, 128LL, 512LL, 1025LL}) edges.push_back({i, 16});
  for (long long i : {63LL, 256LL, 1023LL}) edges.push_back({i, 4097});
  for (long long i : {64LL, 255LL, 1024LL}) edges.push_back({i, 4096});
  edges.push_back({1500, 0});
  return {make_lists(0, 2, 0, {}, "0 lists"),
          make_lists(1, 0, 0, {{0, 5}}, "1 list of 5"),
          make_lists(300, 0, 3, {}, "300 empty lists"),
          make_lists(1000, 2, 0, {}, "1000 Poisson(2) lists"),
          make_lists(777, 2, 11, {{5, 40}, {6, 33}, {300, 1000}, {301, 0}, {500, 5000}, {600, 100000}},
                     "777 lists from offset 11 with lists of 33, 40, 1000, 5000, 100000"),
          with_lengths(2100, edges, "2100 lists from offset 5 with lists of 16, 17, 4096, 4097 at warp and tile boundaries"),
          make_lists(1, 0, 7, {{0, 200000}}, "1 list of 200000 from offset 7"),
          all_of(700, 16, "700 lists of 16"),
          all_of(700, 17, "700 lists of 17")};
}

// reduce(m, x [if guard]) per list (list_reduce) on each layout against reduce_ref: the same bits in
// two runs and on grids of 1 and 7 blocks, nothing written between the outputs.
// With `classes`, also the kernels for lists known to be short (domain::longest 16 and 4096: no warp
// or block paths, no block path) on the layouts whose lists fit them: the same bits.
void check_reduce(monoid m, dtype t, bool guard, const std::vector<list_layout>& layouts, bool classes = false) {
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    const kernel_source k = jf::ir::generate_cuda(list_reduce(m, t, guard, guard));
    ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::list);
    std::vector<kernel_source> short_kernels;
    for (std::int64_t cls : jf::ir::list_length_classes) {
      if (!classes) break;
      jf::ir::graph gl = list_reduce(m, t, guard, guard);
      gl.domains[1].longest = cls;
      short_kernels.push_back(jf::ir::generate_cuda(gl));
      const kernel_source& kl = short_kernels.back();
      const std::string body = kl.source.substr(kl.source.find("extern \"C\" __global__"));
      EXPECT_EQ(kl.launch.list_longest, cls);
      EXPECT_EQ(body.find("s_big"), std::string::npos) << "a block queue with lists of at most " << cls;
      EXPECT_EQ(body.find("__ballot_sync") == std::string::npos, cls <= kl.launch.list_thread_max) << "lists of at most " << cls;
    }
    for (const list_layout& lay : layouts) {
      const long long stride = lay.n() == 777 ? 3 : 1;  // strided content once
      const std::size_t extent = static_cast<std::size_t>(lay.offsets.back()) * static_cast<std::size_t>(stride) + 1;
      const hvec<T> xs = values<T>(extent, m);
      const std::size_t out_elem = jf::is_arg_monoid(m) ? 8 : sizeof(elem<T>);
      const std::size_t n = static_cast<std::size_t>(lay.n());
      auto off = dbuf::of(lay.offsets);
      auto in = dbuf::of(xs);
      dbuf out(std::max<std::size_t>(n, 1) * out_elem * 2);
      jf::detail::step_bindings b;
      b.extents = {lay.n(), lay.total()};
      b.inputs = {{off->p, {1, 0}}, {in->p, {0, stride}}};
      b.outputs = {{out.p, {2, 0}}};  // every other element: the ones between stay poisoned
      const std::vector<unsigned char> poison(out.bytes, 0xAB);
      rt::copy_htod(out.p, poison.data(), poison.size());
      run(k, b);
      const std::vector<unsigned char> first = out.raw();
      run(k, b);
      EXPECT_EQ(first, out.raw()) << "two runs differ: " << what(m, t, guard, lay.text);
      for (unsigned blocks : {1u, 7u}) {
        jf::ir::launch_config c;
        c.grid[0] = blocks;
        c.block[0] = 256;
        run(k, b, &c);
        EXPECT_EQ(first, out.raw()) << "grid " << blocks << " differs: " << what(m, t, guard, lay.text);
      }
      for (const kernel_source& kl : short_kernels) {
        if (lay.longest() > kl.launch.list_longest) continue;
        rt::copy_htod(out.p, poison.data(), poison.size());
        run(kl, b);
        EXPECT_EQ(first, out.raw()) << "the kernel for lists of at most " << kl.launch.list_longest
                                    << " differs: " << what(m, t, guard, lay.text);
      }
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<T> x;
        std::vector<char> keep;
        double mag = 0;
        for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
          const T v = static_cast<T>(xs[static_cast<std::size_t>(j * stride)]);
          x.push_back(v);
          keep.push_back(!guard || guard_ref<T>(v));
          if constexpr (std::is_floating_point_v<T>)
            if (keep.back() && std::isfinite(v)) mag += std::abs(static_cast<double>(v));
        }
        const ref_result<T> want = reduce_ref(m, x, keep);
        const std::string at = what(m, t, guard, lay.text) + ", list " + std::to_string(i);
        if (jf::is_arg_monoid(m)) {
          long long got;
          std::memcpy(&got, first.data() + 2 * i * out_elem, 8);
          ASSERT_EQ(got, want.index) << at;
        } else {
          elem<T> raw;
          std::memcpy(&raw, first.data() + 2 * i * out_elem, sizeof(raw));
          const T got = static_cast<T>(raw);
          ASSERT_TRUE(close(got, want.value, m, mag)) << at << ": got " << +got << ", want " << +want.value;
        }
        for (std::size_t byte = 0; byte < out_elem; ++byte)
          ASSERT_EQ(first[(2 * i + 1) * out_elem + byte], 0xAB) << "written between the outputs: " << at;
      }
    }
  });
}

// x * 2 + met per element (list_map), met broadcast per list or read in E (direct).
void check_map(dtype t, bool direct, bool i32, const std::vector<list_layout>& layouts) {
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) return;  // (not among the dtypes)
    else {
      const kernel_source k = jf::ir::generate_cuda(list_map(t, direct, i32));
      ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::list);
      for (const list_layout& lay : layouts) {
        const std::size_t extent = static_cast<std::size_t>(lay.offsets.back());
        const std::size_t n = static_cast<std::size_t>(lay.n());
        const std::vector<T> x = values<T>(extent + 1, monoid::sum);
        const std::vector<T> met = values<T>(std::max<std::size_t>(2 * n, 1), monoid::sum);  // met[2 i]
        auto off = dbuf::of(lay.offsets);
        auto dx = dbuf::of(x), dm = dbuf::of(met);
        dbuf out((extent + 1) * sizeof(T));
        const std::vector<unsigned char> poison(out.bytes, 0xAB);
        rt::copy_htod(out.p, poison.data(), poison.size());
        jf::detail::step_bindings b;
        b.extents = {lay.n(), lay.total()};
        b.inputs = {{off->p, {1, 0}}, {dx->p, {0, 1}}, {dm->p, {2, 0}}};
        b.outputs = {{out.p, {0, 1}}};  // the content of the result: element j at j
        run(k, b);
        const std::vector<T> got = out.get<T>(extent + 1);
        const std::vector<unsigned char> raw = out.raw();
        const std::string at = std::string(jf::name(t)) + (direct ? ", met read in E" : ", met broadcast") +
                               (i32 ? ", int indices, " : ", ") + lay.text;
        for (std::size_t i = 0; i < n; ++i)
          for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
            const T want = jf::ops::jf_add(jf::ops::jf_multiply(x[static_cast<std::size_t>(j)], T(2)), met[2 * i]);
            const T g = got[static_cast<std::size_t>(j)];
            const bool same = std::memcmp(&g, &want, sizeof(T)) == 0 || (g != g && want != want);
            ASSERT_TRUE(same) << at << ": list " << i << ", element " << j << ": got " << +g << ", want " << +want;
          }
        // Elements before offsets[0] and after the last list are not written.
        for (long long j = 0; j < lay.offsets.front(); ++j)
          for (std::size_t byte = 0; byte < sizeof(T); ++byte)
            ASSERT_EQ(raw[static_cast<std::size_t>(j) * sizeof(T) + byte], 0xAB) << at << ": element " << j << " written";
        for (std::size_t byte = 0; byte < sizeof(T); ++byte) ASSERT_EQ(raw[extent * sizeof(T) + byte], 0xAB) << at;
      }
    }
  });
}

// sum(x) / count, count, count > 0 per list (list_mean): the count is the list's length.
void check_mean(bool i32, const std::vector<list_layout>& layouts) {
  const kernel_source k = jf::ir::generate_cuda(list_mean(dtype::float32, i32));
  ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::list);
  for (const list_layout& lay : layouts) {
    const std::size_t n = static_cast<std::size_t>(lay.n());
    const std::vector<float> x = values<float>(static_cast<std::size_t>(lay.offsets.back()) + 1, monoid::sum);
    auto off = dbuf::of(lay.offsets);
    auto dx = dbuf::of(x);
    dbuf mean(std::max<std::size_t>(n, 1) * 8), count(std::max<std::size_t>(n, 1) * 8), valid(std::max<std::size_t>(n, 1));
    for (dbuf* d : {&mean, &count, &valid}) {
      const std::vector<unsigned char> poison(d->bytes, 0xAB);
      rt::copy_htod(d->p, poison.data(), poison.size());
    }
    jf::detail::step_bindings b;
    b.extents = {lay.n(), lay.total()};
    b.inputs = {{off->p, {1, 0}}, {dx->p, {0, 1}}};
    b.outputs = {{mean.p, {1, 0}}, {count.p, {1, 0}}, {valid.p, {1, 0}}};
    run(k, b);
    const auto gm = mean.get<double>(n);
    const auto gc = count.get<long long>(n);
    const auto gv = valid.get<unsigned char>(n);
    for (std::size_t i = 0; i < n; ++i) {
      float s = 0;
      double mag = 0;
      for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
        s = jf::ops::jf_add(s, x[static_cast<std::size_t>(j)]);
        if (std::isfinite(x[static_cast<std::size_t>(j)])) mag += std::abs(x[static_cast<std::size_t>(j)]);
      }
      const long long c = lay.offsets[i + 1] - lay.offsets[i];
      const std::string at = lay.text + ", list " + std::to_string(i) + (i32 ? ", int indices" : "");
      ASSERT_EQ(gc[i], c) << at;
      ASSERT_EQ(gv[i], c > 0 ? 1 : 0) << at;
      const double want = static_cast<double>(s) / static_cast<double>(c);
      if (c == 0) {
        ASSERT_TRUE(std::isnan(gm[i])) << at << ": the mean of an empty list is NaN, got " << gm[i];
      } else if (std::isnan(want) || std::isinf(want)) {
        ASSERT_TRUE(gm[i] == want || (std::isnan(gm[i]) && std::isnan(want))) << at << ": got " << gm[i] << ", want " << want;
      } else {
        // The sum is float32: a warp's or block's tree order differs from the sequential one by float32 roundings.
        ASSERT_LE(std::abs(gm[i] - want) * static_cast<double>(c), 2e-6 * (mag + 1)) << at << ": got " << gm[i] << ", want " << want;
      }
    }
  }
}

// x - mean(x) per list of float64 (list_minus_mean): the reduction, then the map reading it.
void check_minus_mean(bool i32, const std::vector<list_layout>& layouts) {
  const kernel_source k = jf::ir::generate_cuda(list_minus_mean(i32));
  ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::list);
  for (const list_layout& lay : layouts) {
    const std::size_t n = static_cast<std::size_t>(lay.n()), extent = static_cast<std::size_t>(lay.offsets.back());
    std::vector<double> x = values<double>(2 * extent + 2, monoid::sum);
    for (double& v : x)
      if (!std::isfinite(v)) v = 1.5;  // finite, so that every difference is comparable
    auto off = dbuf::of(lay.offsets);
    auto dx = dbuf::of(x);
    dbuf out((2 * extent + 2) * 8);
    jf::detail::step_bindings b;
    b.extents = {lay.n(), lay.total()};
    b.inputs = {{off->p, {1, 0}}, {dx->p, {0, 2}}};  // strided content: element j at 2 j
    b.outputs = {{out.p, {0, 2}}};
    run(k, b);
    const std::vector<unsigned char> first = out.raw();
    run(k, b);
    EXPECT_EQ(first, out.raw()) << "two runs differ: " << lay.text;
    const auto got = out.get<double>(2 * extent + 2);
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0, mag = 0;
      for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
        s += x[static_cast<std::size_t>(2 * j)];
        mag += std::abs(x[static_cast<std::size_t>(2 * j)]);
      }
      const double c = static_cast<double>(lay.offsets[i + 1] - lay.offsets[i]);
      for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
        const double want = x[static_cast<std::size_t>(2 * j)] - s / c;
        ASSERT_TRUE(close(got[static_cast<std::size_t>(2 * j)], want, monoid::sum, mag / c + std::abs(want)))
            << lay.text << ", list " << i << ", element " << j << ": got " << got[static_cast<std::size_t>(2 * j)]
            << ", want " << want;
      }
    }
  }
}

}  // namespace

TEST(CudaLists, PerListReductionsOfEveryMonoidAndDtype) {
  REQUIRE_GPU();
  std::cout << "rng seed 12345 (test_cuda_nest's rng)\n";
  const std::vector<list_layout> layouts = list_layouts();
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) check_reduce(m, t, guard, layouts);
    }
}

TEST(CudaLists, ElementMapsWithPerListValues) {
  REQUIRE_GPU();
  for (dtype t : {dtype::float32, dtype::float64, dtype::int32})
    for (bool direct : {false, true})
      for (bool i32 : {false, true}) check_map(t, direct, i32, list_layouts());
}

TEST(CudaLists, MeanCountAndValidityPerList) {
  REQUIRE_GPU();
  for (bool i32 : {false, true}) check_mean(i32, list_layouts());
}

TEST(CudaLists, MinusMeanPerListIsOneKernel) {
  REQUIRE_GPU();
  const jf::ir::plan p = jf::ir::make_nest_plan(list_minus_mean(), jf::ir::fusion_mode::fused);
  ASSERT_EQ(p.steps.size(), 1u);
  for (bool i32 : {false, true}) check_minus_mean(i32, list_layouts());
}

TEST(CudaLists, EverySchedule) {
  // Lists per lane 1, 2, 4 (warp tiles of 32, 64, 128 lists) and lanes combining lists of at most 1
  // or 32 elements (16, the default, in the tests above; bench_lists compares them): the same
  // results on every layout.
  REQUIRE_GPU();
  const std::vector<list_layout> layouts = list_layouts();
  for (int lists_per_lane : {1, 2, 4})
    for (int thread_max : {1, 32}) {
      // (lock steps per trip: 3, with a remainder trip, for the long lists; 1, the default, elsewhere)
      const int lock_steps = thread_max == 32 ? 3 : 1;
      SCOPED_TRACE(testing::Message() << lists_per_lane << " lists per lane, lanes up to " << thread_max << " elements, "
                                      << lock_steps << " lock steps per trip");
      jf::ir::nest::list_schedule_override() = {lists_per_lane, thread_max, 0, lock_steps};
      check_reduce(monoid::sum, dtype::float32, false, layouts, true);
      check_reduce(monoid::max, dtype::float32, true, layouts, true);
      check_reduce(monoid::argmax, dtype::float64, true, layouts);
      check_reduce(monoid::prod, dtype::int32, false, layouts);
      check_map(dtype::float32, true, true, layouts);
      check_mean(false, layouts);
      check_minus_mean(true, layouts);
      jf::ir::nest::list_schedule_override() = {};
    }
}

TEST(CudaLists, KnownShortListsGiveTheSameBits) {
  // The kernels for lists known to be short (domain::longest: what the offsets' validation records)
  // against the kernel with every path, on the layouts whose lists fit: each monoid, a few dtypes.
  REQUIRE_GPU();
  std::vector<list_layout> layouts = list_layouts();
  layouts.push_back(make_lists(5000, 2, 3, {}, "5000 Poisson(2) lists from offset 3"));
  layouts.push_back(all_of(3000, 300, "3000 lists of 300"));
  for (monoid m : all_monoids)
    for (dtype t : {dtype::float32, dtype::int64, dtype::bool_}) {
      if (!monoid_accepts(m, t)) continue;
      SCOPED_TRACE(testing::Message() << jf::name(t));
      check_reduce(m, t, m == monoid::sum || m == monoid::argmax, layouts, true);
    }
}

TEST(CudaLists, FullReductionsOverElementsAndLists) {
  REQUIRE_GPU();
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool of_lists : {false, true})
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          const bool guard = m == monoid::sum || m == monoid::argmax;
          const kernel_source k = jf::ir::generate_cuda(list_full(m, t, guard, of_lists, !of_lists));
          ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::full_reduction);
          for (const list_layout& lay : list_layouts()) {
            const std::size_t n = static_cast<std::size_t>(lay.n());
            const hvec<T> xs = values<T>(static_cast<std::size_t>(lay.offsets.back()) + n + 1, m);
            auto off = dbuf::of(lay.offsets);
            auto in = dbuf::of(xs);
            dbuf out(8);
            jf::detail::step_bindings b;
            b.extents = {lay.n(), lay.total()};
            b.inputs = {{off->p, {1, 0}}, {in->p, of_lists ? std::vector<std::int64_t>{1, 0} : std::vector<std::int64_t>{0, 1}}};
            b.outputs = {{out.p, {0, 0}}};
            run(k, b);
            std::vector<T> x;
            std::vector<char> keep;
            double mag = 0;
            const long long from = of_lists ? 0 : lay.offsets.front(), to = of_lists ? lay.n() : lay.offsets.back();
            for (long long j = from; j < to; ++j) {
              x.push_back(static_cast<T>(xs[static_cast<std::size_t>(j)]));
              keep.push_back(!guard || guard_ref<T>(x.back()));
              if constexpr (std::is_floating_point_v<T>)
                if (keep.back() && std::isfinite(x.back())) mag += std::abs(static_cast<double>(x.back()));
            }
            const ref_result<T> want = reduce_ref(m, x, keep);
            const std::string at = what(m, t, guard, lay.text) + (of_lists ? ", over the lists" : ", over the elements");
            if (jf::is_arg_monoid(m)) {
              EXPECT_EQ(out.get<long long>(1)[0], want.index) << at;  // j - offsets[0]
            } else {
              const T got = static_cast<T>(out.get<elem<T>>(1)[0]);
              EXPECT_TRUE(close(got, want.value, m, mag)) << at << ": got " << +got << ", want " << +want.value;
            }
          }
        });
    }
}

TEST(CudaLists, TenMillionListsAndALongTail) {
  REQUIRE_GPU();
  // 10^7 Poisson(2) lists (2 * 10^7 > 2^24 elements), and a long tail: 0.5 % lists of 64 and one of 10^6.
  std::vector<std::pair<long long, long long>> tail;
  for (long long i = 0; i < 1000000; i += 200) tail.push_back({i + 17, 64});
  tail.push_back({654321, 1000000});
  const list_layout layouts[] = {make_lists(10000000, 2, 0, {}, "10^7 Poisson(2) lists"),
                                 make_lists(1000000, 2, 0, tail, "10^6 lists with a long tail")};
  const kernel_source k = jf::ir::generate_cuda(list_pipeline_max());
  for (const list_layout& lay : layouts) {
    const std::size_t n = static_cast<std::size_t>(lay.n()), extent = static_cast<std::size_t>(lay.offsets.back());
    std::vector<float> x(extent), met(n);
    std::uniform_real_distribution<float> u(-3, 3);
    for (float& v : x) v = u(rng());
    for (float& v : met) v = u(rng()) + 3;
    auto off = dbuf::of(lay.offsets);
    auto dx = dbuf::of(x), dm = dbuf::of(met);
    dbuf out(n * 4);
    jf::detail::step_bindings b;
    b.extents = {lay.n(), lay.total()};
    b.inputs = {{off->p, {1, 0}}, {dx->p, {0, 1}}, {dm->p, {1, 0}}};
    b.outputs = {{out.p, {1, 0}}};
    run(k, b);
    const auto got = out.get<float>(n);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n && bad < 5; ++i) {
      float acc = jf::ops::jf_max_identity<float>();
      for (long long j = lay.offsets[i]; j < lay.offsets[i + 1]; ++j) {
        const float v = x[static_cast<std::size_t>(j)];
        acc = jf::ops::jf_max_combine(acc, jf::ops::jf_subtract(jf::ops::jf_sqrt(jf::ops::jf_add(jf::ops::jf_multiply(jf::ops::jf_multiply(v, v), 2.0f), met[i])), 1.0f));
      }
      if (std::memcmp(&acc, &got[i], 4) != 0) {
        ++bad;
        ADD_FAILURE() << lay.text << ", list " << i << ": got " << got[i] << ", want " << acc;
      }
    }
  }
}

TEST(CudaLists, Int32IndicesAreChecked) {
  REQUIRE_GPU();
  const kernel_source k = jf::ir::generate_cuda(list_reduce(monoid::sum, dtype::float32, false, true));
  dbuf off(16), in(16), out(16);
  jf::detail::step_bindings b;
  b.extents = {std::int64_t(1) << 31, 1};
  b.inputs = {{off.p, {1, 0}}, {in.p, {0, 1}}};
  b.outputs = {{out.p, {1, 0}}};
  EXPECT_THROW(rt::launch_nest(k, compiled(k), b), jf::error);
}

#else

TEST(CudaNest, NeedsTheCudaBackend) { GTEST_SKIP() << "built without the CUDA backend: loop-nest GPU tests skipped"; }

#endif
