// Pairs kernels on the GPU (docs/design.md, "Pairs kernels"): hand-built graphs with a pairs domain
// (tests/nest_graphs.hpp) generated, compiled, launched with launch_nest and compared with the CPU
// executor (cpu_exec::execute, the reference: Awkward's order, checked against Awkward in
// test_combinations.cpp) on the same graph, strides and fresh random inputs (seed printed). Lists:
// none, one, empty ones, lists of 1, Poisson(1.5) and Poisson(8), heavy tails (64, 181, 182, 600,
// 5000 elements), offsets not starting at 0, more lists than a tile, strided contents, slots read
// from one buffer (staged once) or from several. Every kernel runs twice and on forced grids of 1
// and 7 blocks: the same bits. Outputs are bound with stride 2 and poisoned: the elements between
// must stay untouched. Cartesian products (product domains, the same kernel): light and heavy lists
// by either side or by their pairs, lists empty on one side, one buffer read through both slots.
// Skips (saying why) without a GPU.
#include <gtest/gtest.h>

#ifdef JF_HAVE_CUDA

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/step_bindings.hpp"
#include "cpu/executor.hpp"
#include "cuda/codegen/nest_emitter.hpp"
#include "cuda/launch_nest.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/scalar_ops.hpp"
#include "nest_graphs.hpp"
#include "test_support.hpp"

using namespace nest_test;
namespace rt = jf::cuda_rt;
using jf::ir::kernel_source;
using test_support::rng;

namespace {

#define REQUIRE_GPU() \
  if (!rt::available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: pairs kernel tests skipped"

template <class T>
using elem = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;

template <class F>
void with_type(dtype t, F&& f) {
  switch (t) {
    case dtype::bool_:
      f(bool{});
      break;
    case dtype::int32:
      f(int{});
      break;
    case dtype::int64:
      f(static_cast<long long>(0));
      break;
    case dtype::float32:
      f(float{});
      break;
    case dtype::float64:
      f(double{});
      break;
    case dtype::int8:
      f(std::int8_t{});
      break;
    case dtype::int16:
      f(std::int16_t{});
      break;
    case dtype::uint8:
      f(std::uint8_t{});
      break;
    case dtype::uint16:
      f(std::uint16_t{});
      break;
    case dtype::uint32:
      f(std::uint32_t{});
      break;
    case dtype::uint64:
      f(static_cast<unsigned long long>(0));
      break;
  }
}

// Device memory, freed stream-ordered.
struct dbuf {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit dbuf(std::size_t n) : p(rt::allocate(std::max<std::size_t>(n, 1))), bytes(n) {}
  ~dbuf() { rt::deallocate(p); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
};

// Offsets of n lists from `start`: Poisson(lambda) lengths, then `fixed` (list, length) placed.
struct lists {
  std::vector<long long> off;
  std::string text;
  long long n() const { return static_cast<long long>(off.size()) - 1; }
  long long total() const { return off.back() - off.front(); }
};
lists make_lists(long long n, double lambda, long long start, const std::vector<std::pair<long long, long long>>& fixed,
                 const std::string& text) {
  lists l;
  std::poisson_distribution<long long> len(lambda > 0 ? lambda : 1);
  l.off.assign(static_cast<std::size_t>(n + 1), start);
  for (long long i = 0; i < n; ++i) {
    long long k = lambda > 0 ? len(rng()) : 0;
    for (const auto& [at, with] : fixed)
      if (at == i) k = with;
    l.off[static_cast<std::size_t>(i + 1)] = l.off[static_cast<std::size_t>(i)] + k;
  }
  l.text = text;
  return l;
}

// The layouts of the per-monoid tests (pairs: up to a list of 5000, 12.5 million pairs).
std::vector<lists> pair_layouts() {
  std::vector<std::pair<long long, long long>> tail;
  for (long long i = 17; i < 5000; i += 200) tail.push_back({i, 64});
  for (auto [at, len] :
       std::vector<std::pair<long long, long long>>{{40, 181}, {41, 182}, {42, 0}, {43, 600}, {44, 1}, {3000, 5000}})
    tail.push_back({at, len});
  return {make_lists(0, 1.5, 0, {}, "0 lists"),
          make_lists(1, 0, 0, {{0, 5}}, "1 list of 5"),
          make_lists(1, 0, 4, {{0, 1}}, "1 list of 1 from offset 4"),
          make_lists(300, 0, 3, {}, "300 empty lists from offset 3"),
          make_lists(2000, 1.5, 0, {}, "2000 Poisson(1.5) lists"),
          make_lists(3000, 8, 7, {}, "3000 Poisson(8) lists from offset 7"),
          make_lists(5000, 1.5, 11, tail,
                     "5000 Poisson(1.5) lists from offset 11, 0.5 % of 64, lists of 181, 182, 600, 5000")};
}
// Triples: heavy lists of 48 (17296 triples: queued) and 300 (4.5 million).
std::vector<lists> triple_layouts() {
  return {make_lists(0, 1.5, 0, {}, "0 lists"), make_lists(1, 0, 0, {{0, 3}}, "1 list of 3"),
          make_lists(2000, 2, 5, {}, "2000 Poisson(2) lists from offset 5"),
          make_lists(1500, 6, 0, {{10, 47}, {11, 48}, {12, 2}, {700, 300}},
                     "1500 Poisson(6) lists with lists of 47, 48, 300")};
}

// Field values for monoid m: for prod of floats 0 or 0.5 (bodies -0.5, 0, 0.5, 1: powers of two
// whose products are exact, or flush to 0, in any order), of integers 1 or 2 (wrapping products are
// exact in any order); else floats in (-10, 10) with NaN, +-inf and +-0 sprinkled, integers around 0
// with extremes, random bools.
template <class T>
std::vector<elem<T>> field(std::size_t n, monoid m) {
  std::vector<elem<T>> v(n);
  auto& r = rng();
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, bool>) {
      x = static_cast<unsigned char>(r() % 3 != 0);
    } else if (m == monoid::prod) {
      x = std::is_floating_point_v<T> ? static_cast<T>(0.5 * static_cast<double>(r() % 2))
                                      : static_cast<T>(1 + r() % 2);
    } else if constexpr (std::is_floating_point_v<T>) {
      const int k = static_cast<int>(r() % 400);
      const T sp[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(), T(0), T(-0.0)};
      x = k < 5 ? sp[k] : static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(r));
    } else {
      const int k = static_cast<int>(r() % 200);
      x = k == 0   ? std::numeric_limits<T>::max()
          : k == 1 ? std::numeric_limits<T>::min()
                   : static_cast<T>(static_cast<long long>(r() % 41) - 20);
    }
  }
  return v;
}
template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T>
std::vector<T> values_of(const std::vector<unsigned char>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

struct operand {
  std::vector<unsigned char> host;  // the buffer (empty when same_as names an earlier operand's)
  std::vector<std::int64_t> strides;
  int same_as = -1;  // reads the buffer of an earlier operand (the same pointer: staged once)
};
struct out_spec {
  std::size_t elem = 0, count = 0;  // one output element per list, bound with stride 2
};
struct results {
  std::vector<std::vector<unsigned char>> gpu, cpu;  // per output: count * 2 elements (odd ones poisoned)
};

const rt::kernel& compiled(const kernel_source& k) { return rt::get_kernel(k.name, k.source, {}); }

// Compiles the kernels of `graphs` on several host threads (NVRTC is the tests' long pole); the
// checks then find them in the module cache.
void precompile(const std::vector<graph>& graphs) {
  std::vector<kernel_source> ks;
  for (const graph& g : graphs) ks.push_back(jf::ir::generate_cuda(g));
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::min(12u, std::thread::hardware_concurrency())); ++t)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < ks.size(); i = next++) compiled(ks[i]);
    });
  for (auto& th : pool) th.join();
}

// Runs g on the GPU (launch_nest, twice, then on grids of 1 and 7 blocks: the bits must repeat) and
// on the CPU (cpu_exec::execute), inputs as given, outputs with stride 2 along the lists, poisoned.
results run_both(const graph& g, const kernel_source& k, const std::vector<std::int64_t>& extents,
                 const std::vector<operand>& in, const std::vector<out_spec>& out, const std::string& what) {
  results res;
  jf::detail::step_bindings db, hb;
  db.extents = hb.extents = extents;
  std::vector<std::unique_ptr<dbuf>> keep;
  for (const operand& o : in) {
    if (o.same_as >= 0) {
      const auto from = static_cast<std::size_t>(o.same_as);
      db.inputs.push_back({db.inputs[from].ptr, o.strides});
      hb.inputs.push_back({hb.inputs[from].ptr, o.strides});
      continue;
    }
    keep.push_back(std::make_unique<dbuf>(o.host.size()));
    if (!o.host.empty()) rt::copy_htod(keep.back()->p, o.host.data(), o.host.size());
    db.inputs.push_back({keep.back()->p, o.strides});
    hb.inputs.push_back({const_cast<unsigned char*>(o.host.data()), o.strides});
  }
  std::vector<std::int64_t> st(extents.size(), 0);
  st[0] = 2;
  std::vector<std::unique_ptr<dbuf>> douts;
  const std::vector<unsigned char> poison_bytes(1, 0xAB);
  for (const out_spec& o : out) {
    const std::size_t bytes = std::max<std::size_t>(o.count, 1) * 2 * o.elem;
    douts.push_back(std::make_unique<dbuf>(bytes));
    res.cpu.emplace_back(bytes, 0xAB);
    db.outputs.push_back({douts.back()->p, st});
    hb.outputs.push_back({res.cpu.back().data(), st});
  }
  auto poison = [&] {
    for (auto& d : douts) {
      const std::vector<unsigned char> p(d->bytes, 0xAB);
      rt::copy_htod(d->p, p.data(), p.size());
    }
  };
  auto fetch = [&] {
    std::vector<std::vector<unsigned char>> v;
    for (auto& d : douts) {
      v.emplace_back(d->bytes);
      rt::copy_dtoh(v.back().data(), d->p, d->bytes);
    }
    return v;
  };
  poison();
  rt::launch_nest(k, compiled(k), db);
  rt::synchronize();
  res.gpu = fetch();
  poison();
  rt::launch_nest(k, compiled(k), db);
  rt::synchronize();
  EXPECT_EQ(fetch(), res.gpu) << "two runs differ: " << what;
  const jf::ir::launch_config c =
      jf::ir::configure_launch(k, extents.data(), static_cast<int>(extents.size()), rt::nest_device_limits());
  if (!c.empty())
    for (unsigned blocks : {1u, 7u}) {
      poison();
      dbuf scratch(c.scratch_bytes);
      rt::memset_d8(scratch.p, 0, c.scratch_bytes);
      const auto slots = rt::pack_nest_args(k, db, scratch.p);
      const unsigned grid[3] = {blocks, 1, 1}, block[3] = {256, 1, 1};
      rt::launch(compiled(k), grid, block, 0, slots.data());
      rt::synchronize();
      EXPECT_EQ(fetch(), res.gpu) << "a grid of " << blocks << " blocks differs: " << what;
    }
  jf::cpu_exec::execute(g, hb);
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t i = 0; i < out[o].count; ++i)
      for (std::size_t b = 0; b < out[o].elem; ++b)
        if (res.gpu[o][(2 * i + 1) * out[o].elem + b] != 0xAB) {
          ADD_FAILURE() << "out #" << o << " written between the lists' elements at list " << i << ": " << what;
          return res;
        }
  return res;
}

// Output o's value for list i (stride 2).
template <class T>
T at(const std::vector<unsigned char>& raw, std::size_t i) {
  elem<T> v;
  std::memcpy(&v, raw.data() + 2 * i * sizeof(elem<T>), sizeof(v));
  return static_cast<T>(v);
}

// Whether got equals want: integers, bools and positions exactly, floats by value (NaN = NaN; the
// sign of a zero from min/max may depend on the order), float sums within `tol`.
template <class T>
bool matches(T got, T want, double tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || std::isinf(got) || tol == 0) return got == want;
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <= tol;
  } else {
    return got == want;
  }
}

// C(n, k) for k = 0 .. 3.
long long choose(long long n, int k) {
  if (n < k) return 0;
  long long c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

std::string what(monoid m, dtype t, int arity, bool guard, const std::string& text) {
  return std::string(jf::name(m)) + " of " + std::string(jf::name(t)) + (guard ? " with a guard" : "") +
         (arity == 3 ? ", triples, " : ", pairs, ") + text;
}

// reduce(m, body [if guard]) per list over the combinations of `arity` (pairs_reduce): GPU = CPU.
// Slots read one buffer (strided by 3 in one layout), or each its own buffer (every other layout);
// the slots promised by operand_desc::slot, or found from the strides at run time.
void check_reduce(monoid m, dtype t, int arity, bool guard, const std::vector<lists>& layouts, bool promised = true) {
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    const graph g = pairs_reduce(m, t, arity, guard, guard, promised);
    const kernel_source k = jf::ir::generate_cuda(g);
    ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::pairs);
    for (std::size_t li = 0; li < layouts.size(); ++li) {
      const lists& lay = layouts[li];
      const std::string w = what(m, t, arity, guard, lay.text) + (promised ? "" : ", slots from the strides");
      const long long stride = li == 3 ? 3 : 1;
      const bool shared = li % 2 == 0;
      const std::size_t extent = static_cast<std::size_t>(lay.off.back() * stride + 1);
      std::vector<operand> in{{bytes_of(lay.off), std::vector<std::int64_t>(static_cast<std::size_t>(2 + arity), 0)}};
      in[0].strides[0] = 1;
      std::vector<std::vector<elem<T>>> fields;  // per slot
      for (int s = 0; s < arity; ++s) {
        fields.push_back(s == 0 || !shared ? field<T>(extent, m) : fields[0]);
        std::vector<std::int64_t> st(static_cast<std::size_t>(2 + arity), 0);
        st[static_cast<std::size_t>(2 + s)] = stride;
        if (s > 0 && shared)
          in.push_back({{}, st, 1});
        else
          in.push_back({bytes_of(fields.back()), st});
      }
      const std::size_t n = static_cast<std::size_t>(lay.n());
      const std::size_t oe = jf::is_arg_monoid(m) ? 8 : sizeof(elem<T>);
      std::vector<std::int64_t> ext{lay.n(), lay.total()};
      for (int s = 0; s < arity; ++s) ext.push_back(lay.total());
      const results r = run_both(g, k, ext, in, {{oe, n}}, w);
      // Float sums: the kernel's order differs from the CPU's sequential one; a bound of the rounding
      // from the magnitudes (each element is in C(len - 1, arity - 1) combinations).
      std::vector<double> mag(n, 0);
      if constexpr (std::is_floating_point_v<T>)
        for (std::size_t i = 0; i < n; ++i)
          for (long long j = lay.off[i]; j < lay.off[i + 1]; ++j)
            for (const auto& f : fields) {  // (a slot reading another's buffer counts again: it is read again)
              const double v = std::abs(static_cast<double>(f[static_cast<std::size_t>(j * stride)]));
              if (std::isfinite(v))
                mag[i] += v * static_cast<double>(choose(lay.off[i + 1] - lay.off[i] - 1, arity - 1));
            }
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n && bad < 5; ++i) {
        bool ok;
        if (jf::is_arg_monoid(m)) {
          ok = at<long long>(r.gpu[0], i) == at<long long>(r.cpu[0], i);
          if (!ok)
            ADD_FAILURE() << w << ", list " << i << ": rank " << at<long long>(r.gpu[0], i) << ", want "
                          << at<long long>(r.cpu[0], i);
        } else {
          // Any order of n terms: within (n - 1) roundings of their magnitude.
          const double eps = std::is_same_v<T, float> ? 0x1p-23 : 0x1p-52;
          const double terms = static_cast<double>(choose(lay.off[i + 1] - lay.off[i], arity));
          const double tol = m == monoid::sum && std::is_floating_point_v<T> ? eps * (terms + 1) * (mag[i] + 1) : 0;
          ok = matches<T>(at<T>(r.gpu[0], i), at<T>(r.cpu[0], i), tol);
          if (!ok)
            ADD_FAILURE() << w << ", list " << i << ": got " << +at<T>(r.gpu[0], i) << ", want " << +at<T>(r.cpu[0], i);
        }
        bad += !ok;
      }
    }
  });
}

}  // namespace

TEST(CudaPairs, PerListReductionsOfPairsEveryMonoidAndDtype) {
  REQUIRE_GPU();
  test_support::seed();
  const std::vector<lists> layouts = pair_layouts();
  std::vector<graph> graphs;
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes)
      for (bool guard : {false, true})
        if (monoid_accepts(m, t)) graphs.push_back(pairs_reduce(m, t, 2, guard, guard));
  for (monoid m : {monoid::sum, monoid::max, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32}) graphs.push_back(pairs_reduce(m, t, 2, true, true, false));
  precompile(graphs);
  for (monoid m : all_monoids)
    for (dtype t : all_dtypes) {
      if (!monoid_accepts(m, t)) continue;
      for (bool guard : {false, true}) check_reduce(m, t, 2, guard, layouts);
    }
  // Slots found from the strides at run time (no operand_desc::slot promise).
  for (monoid m : {monoid::sum, monoid::max, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32}) check_reduce(m, t, 2, true, layouts, false);
}

namespace {

// Cartesian products (pairs_reduce over a product domain): list i of a x list i of b, Awkward's
// order. Each layout is a's and b's lists (the same number): light and heavy lists by either side's
// length or by na * nb (128 x 128 = 16384 pairs is light, 129 x 128 heavy), lists empty on one
// side, offsets not at 0; in the even layouts slot 1 reads slot 0's buffer with b = a (cartesian(x,
// x): one buffer, two slots at different positions).
struct product_layout {
  lists a, b;
};
std::vector<product_layout> product_layouts() {
  std::vector<product_layout> out;
  auto add = [&](lists a, lists b) { out.push_back({std::move(a), std::move(b)}); };
  add(make_lists(0, 1.5, 0, {}, "0 lists"), make_lists(0, 1.5, 0, {}, ""));
  add(make_lists(1, 0, 0, {{0, 5}}, "1 list of 5 x 3"), make_lists(1, 0, 2, {{0, 3}}, ""));
  const lists same = make_lists(2000, 1.5, 4, {}, "2000 Poisson(1.5) lists x themselves");
  add(same, same);
  add(make_lists(300, 0, 3, {}, "300 empty lists x Poisson(2)"), make_lists(300, 2, 0, {}, ""));
  const lists heavy_self =
      make_lists(700, 3, 0, {{5, 129}, {6, 128}, {300, 5000}}, "700 Poisson(3) x themselves, 129, 128, 5000");
  add(heavy_self, heavy_self);
  add(make_lists(5000, 1.5, 7, {{10, 128}, {11, 129}, {12, 5000}, {13, 1}, {14, 0}, {4000, 300}},
                 "5000 Poisson(1.5) x Poisson(2) from offsets 7 and 3: 128 x 128, 129 x 128, 5000 x 1, 1 x 5000, 0 x "
                 "5000, 300 x 250"),
      make_lists(5000, 2, 3, {{10, 128}, {11, 128}, {12, 1}, {13, 5000}, {14, 5000}, {4000, 250}}, ""));
  return out;
}

void check_product(monoid m, dtype t, bool guard) {
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    const graph g = pairs_reduce(m, t, 2, guard, guard, true, true);
    const kernel_source k = jf::ir::generate_cuda(g);
    ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::pairs);
    const std::vector<product_layout> layouts = product_layouts();
    for (std::size_t li = 0; li < layouts.size(); ++li) {
      const lists &la = layouts[li].a, &lb = layouts[li].b;
      const std::string w = what(m, t, 2, guard, la.text) + " (a cartesian product)";
      const bool shared = li % 2 == 0 && la.off == lb.off;
      std::vector<std::int64_t> st_off{1, 0, 0, 0};
      std::vector<operand> in{{bytes_of(la.off), st_off}, {bytes_of(lb.off), st_off}};
      const std::vector<elem<T>> fa = field<T>(static_cast<std::size_t>(la.off.back() + 1), m);
      const std::vector<elem<T>> fb = shared ? fa : field<T>(static_cast<std::size_t>(lb.off.back() + 1), m);
      in.push_back({bytes_of(fa), {0, 0, 1, 0}});
      if (shared)
        in.push_back({{}, {0, 0, 0, 1}, 2});
      else
        in.push_back({bytes_of(fb), {0, 0, 0, 1}});
      const std::size_t n = static_cast<std::size_t>(la.n());
      const std::size_t oe = jf::is_arg_monoid(m) ? 8 : sizeof(elem<T>);
      const results r = run_both(g, k, {la.n(), la.total(), la.total(), lb.total()}, in, {{oe, n}}, w);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n && bad < 5; ++i) {
        const long long na = la.off[i + 1] - la.off[i], nb = lb.off[i + 1] - lb.off[i];
        bool ok;
        if (jf::is_arg_monoid(m)) {
          ok = at<long long>(r.gpu[0], i) == at<long long>(r.cpu[0], i);
          if (!ok)
            ADD_FAILURE() << w << ", list " << i << ": rank " << at<long long>(r.gpu[0], i) << ", want "
                          << at<long long>(r.cpu[0], i);
        } else {
          double mag = 1;  // each of a's elements is in nb pairs, each of b's in na
          if constexpr (std::is_floating_point_v<T>) {
            for (long long j = la.off[i]; j < la.off[i + 1]; ++j)
              if (std::isfinite(fa[static_cast<std::size_t>(j)]))
                mag += std::abs(double(fa[static_cast<std::size_t>(j)])) * double(nb);
            for (long long j = lb.off[i]; j < lb.off[i + 1]; ++j)
              if (std::isfinite(fb[static_cast<std::size_t>(j)]))
                mag += std::abs(double(fb[static_cast<std::size_t>(j)])) * double(na);
          }
          const double eps = std::is_same_v<T, float> ? 0x1p-23 : 0x1p-52;
          const double tol = m == monoid::sum && std::is_floating_point_v<T> ? eps * double(na * nb + 1) * mag : 0;
          ok = matches<T>(at<T>(r.gpu[0], i), at<T>(r.cpu[0], i), tol);
          if (!ok)
            ADD_FAILURE() << w << ", list " << i << " (" << na << " x " << nb << "): got " << +at<T>(r.gpu[0], i)
                          << ", want " << +at<T>(r.cpu[0], i);
        }
        bad += !ok;
      }
    }
  });
}

}  // namespace

TEST(CudaPairs, PerListReductionsOfCartesianProducts) {
  REQUIRE_GPU();
  test_support::seed();
  const std::vector<monoid> monoids{monoid::sum, monoid::prod,   monoid::max,
                                    monoid::min, monoid::argmin, monoid::argmax};
  std::vector<graph> graphs;
  for (monoid m : monoids)
    for (dtype t : {dtype::int32, dtype::float32, dtype::float64})
      for (bool guard : {false, true}) graphs.push_back(pairs_reduce(m, t, 2, guard, guard, true, true));
  for (monoid m : {monoid::any, monoid::all})
    graphs.push_back(pairs_reduce(m, dtype::bool_, 2, true, true, true, true));
  precompile(graphs);
  for (monoid m : monoids)
    for (dtype t : {dtype::int32, dtype::float32, dtype::float64})
      for (bool guard : {false, true}) check_product(m, t, guard);
  for (monoid m : {monoid::any, monoid::all}) check_product(m, dtype::bool_, true);
}

TEST(CudaPairs, PerListReductionsOfTriples) {
  REQUIRE_GPU();
  test_support::seed();
  const std::vector<lists> layouts = triple_layouts();
  std::vector<graph> graphs;
  for (monoid m : {monoid::sum, monoid::prod, monoid::max, monoid::argmin, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32, dtype::float64})
      for (bool guard : {false, true}) graphs.push_back(pairs_reduce(m, t, 3, guard, guard));
  for (monoid m : {monoid::any, monoid::all}) graphs.push_back(pairs_reduce(m, dtype::bool_, 3, true, true));
  for (monoid m : {monoid::sum, monoid::argmin})
    graphs.push_back(pairs_reduce(m, dtype::int64, 3, false, false, false));
  precompile(graphs);
  for (monoid m : {monoid::sum, monoid::prod, monoid::max, monoid::argmin, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32, dtype::float64})
      for (bool guard : {false, true}) check_reduce(m, t, 3, guard, layouts);
  for (monoid m : {monoid::any, monoid::all}) check_reduce(m, dtype::bool_, 3, true, layouts);
  for (monoid m : {monoid::sum, monoid::argmin}) check_reduce(m, dtype::int64, 3, false, layouts, false);
}

namespace {

// The dielectron mass of the pair at `rank` of list i (Awkward's order), with the kernels' functions
// on the host, and a bound of the difference the GPU's coshf and cosf (a few ulp from the host's)
// make: the error of m^2 = 2 pt pt (cosh - cos) is about 2 pt pt (|cosh| + |cos|) 4 ulp whatever m,
// so a small mass (cosh close to cos) differs relatively more.
struct mass_and_tol {
  float m;
  double tol;
};
mass_and_tol mass_at(const std::vector<long long>& off, std::size_t i, long long rank, const std::vector<float>& pt,
                     const std::vector<float>& eta, const std::vector<float>& phi) {
  namespace o = jf::ops;
  const long long n = off[i + 1] - off[i];
  long long a = 0;
  while (rank >= n - 1 - a) rank -= n - 1 - a++;
  const auto p = static_cast<std::size_t>(off[i] + a), q = static_cast<std::size_t>(off[i] + a + 1 + rank);
  const float two = 2, ch = o::jf_cosh(o::jf_subtract(eta[p], eta[q])), co = o::jf_cos(o::jf_subtract(phi[p], phi[q]));
  const float m = o::jf_sqrt(o::jf_multiply(o::jf_multiply(o::jf_multiply(two, pt[p]), pt[q]), o::jf_subtract(ch, co)));
  const double d = 8 * 0x1p-24 * 2.0 * pt[p] * pt[q] * (std::abs(ch) + std::abs(co));
  return {m, std::min(std::sqrt(d), m > 0 ? d / (2.0 * m) : std::sqrt(d)) + 8 * 0x1p-24 * m};
}

// The dielectron query (pairs_dielectron): max mass, pair count, validity and argmax per list, with
// and without the opposite-charge guard, GPU against CPU. cosh and cos of the CUDA library and of
// the host differ in the last bits: the max within mass_at's bound, and the argmax must name a pair
// whose mass is that close to the CPU's max (the same pair unless two masses tie that closely).
void check_dielectron(const lists& lay, bool i32, bool promised = true) {
  auto& r = rng();
  const std::size_t ne = static_cast<std::size_t>(lay.off.back());
  std::vector<float> pt(ne), eta(ne), phi(ne);
  std::vector<int> q(ne);
  std::exponential_distribution<float> e20(1.f / 20);
  std::uniform_real_distribution<float> ue(-2.5f, 2.5f), up(-3.14159265f, 3.14159265f);
  for (std::size_t j = 0; j < ne; ++j) {
    pt[j] = 5 + e20(r);
    eta[j] = ue(r);
    phi[j] = up(r);
    q[j] = r() % 2 ? 1 : -1;
  }
  const std::size_t n = static_cast<std::size_t>(lay.n());
  for (bool charge : {false, true}) {
    const graph g = pairs_dielectron(charge, true, i32, promised);
    const kernel_source k = jf::ir::generate_cuda(g);
    ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::pairs);
    const std::string w = lay.text + (charge ? ", opposite charges" : ", every pair") + (i32 ? ", int indices" : "") +
                          (promised ? "" : ", slots from the strides");
    auto slot = [](int s) {
      std::vector<std::int64_t> st(4, 0);
      st[static_cast<std::size_t>(2 + s)] = 1;
      return st;
    };
    // Inputs #1..#3 slot 0's pt, eta, phi; #4..#6 the same buffers at slot 1 (as the engine binds them).
    std::vector<operand> in{{bytes_of(lay.off), {1, 0, 0, 0}}};
    for (const auto* f : {&pt, &eta, &phi}) in.push_back({bytes_of(*f), slot(0)});
    for (int f = 0; f < 3; ++f) in.push_back({{}, slot(1), 1 + f});
    if (charge) {
      in.push_back({bytes_of(q), slot(0)});
      in.push_back({{}, slot(1), 7});
    }
    const results res =
        run_both(g, k, {lay.n(), lay.total(), lay.total(), lay.total()}, in, {{4, n}, {8, n}, {1, n}, {8, n}}, w);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n && bad < 5; ++i) {
      const float gm = at<float>(res.gpu[0], i), cm = at<float>(res.cpu[0], i);
      const long long gc = at<long long>(res.gpu[1], i), cc = at<long long>(res.cpu[1], i);
      const long long ga = at<long long>(res.gpu[3], i), ca = at<long long>(res.cpu[3], i);
      const std::string where = w + ", list " + std::to_string(i);
      bool ok = gc == cc && at<bool>(res.gpu[2], i) == at<bool>(res.cpu[2], i) && (ga < 0) == (ca < 0);
      if (ok && ca >= 0) {
        const mass_and_tol want = mass_at(lay.off, i, ca, pt, eta, phi);
        ok = want.m == cm && matches<float>(gm, cm, want.tol);
        if (ok && ga != ca) {
          const mass_and_tol other = mass_at(lay.off, i, ga, pt, eta, phi);
          ok = cm - other.m <= want.tol + other.tol;
        }
      } else if (ok) {
        ok = matches<float>(gm, cm, 0);
      }
      if (!ok) {
        ++bad;
        ADD_FAILURE() << where << ": max " << gm << " (want " << cm << "), count " << gc << " (want " << cc
                      << "), argmax " << ga << " (want " << ca << ")";
      }
    }
  }
}

}  // namespace

TEST(CudaPairs, DielectronMaxCountValidityArgmax) {
  REQUIRE_GPU();
  test_support::seed();
  std::vector<std::pair<long long, long long>> tail;
  for (long long i = 17; i < 100000; i += 200) tail.push_back({i, 64});
  tail.push_back({777, 5000});
  for (bool i32 : {false, true}) {
    check_dielectron(make_lists(0, 1.5, 0, {}, "0 lists"), i32);
    check_dielectron(make_lists(1, 0, 0, {{0, 2}}, "1 list of 2"), i32);
    check_dielectron(make_lists(100000, 1.5, 9, {}, "10^5 Poisson(1.5) events from offset 9"), i32);
  }
  check_dielectron(make_lists(30000, 1.5, 0, {{5, 64}, {6, 200}}, "3 10^4 Poisson(1.5) events, lists of 64, 200"),
                   false, false);
  check_dielectron(make_lists(100000, 1.5, 0, tail, "10^5 Poisson(1.5) events, 0.5 % of 64, one of 5000"), false);
  check_dielectron(make_lists(20000, 8, 0, {}, "2 10^4 Poisson(8) events"), false);
}

TEST(CudaPairs, TenMillionEvents) {
  REQUIRE_GPU();
  test_support::seed();
  // 10^7 lists (> 2^24 elements, 1.1 10^7 pairs) and 2 10^6 Poisson(8) lists (5.6 10^7 pairs).
  check_dielectron(make_lists(10000000, 1.5, 0, {}, "10^7 Poisson(1.5) events"), true);
  check_dielectron(make_lists(2000000, 8, 0, {}, "2 10^6 Poisson(8) events"), true);
}

TEST(CudaPairs, PerListValuesInTheBody) {
  REQUIRE_GPU();
  test_support::seed();
  // sum(x0 * x1 + met), argmin(x0 * x1 - w) and sum * met per list (float64): met from the list
  // domain, w read in the pairs domain with stride 0 along the slots (a value per list), or with
  // strides along the list and slot 0 (read in place: w[i + j0]).
  for (int arity : {2, 3})
    for (bool in_place : {false, true}) {
      // w[i + j0] is no promised role: that graph makes no promise.
      const graph g = pairs_with_list_values(arity, false, !in_place);
      const kernel_source k = jf::ir::generate_cuda(g);
      ASSERT_EQ(k.launch.shape, jf::ir::kernel_shape::pairs);
      for (const lists& lay : arity == 2 ? pair_layouts() : triple_layouts()) {
        const std::size_t n = static_cast<std::size_t>(lay.n()), ne = static_cast<std::size_t>(lay.off.back());
        std::uniform_real_distribution<double> u(-3, 3);
        std::vector<double> x(ne), met(std::max<std::size_t>(n, 1)), w(n + ne + 1);
        for (double& v : x) v = u(rng());
        for (double& v : met) v = u(rng());
        for (double& v : w) v = u(rng());
        const std::size_t na = static_cast<std::size_t>(2 + arity);
        auto strides = [&](std::initializer_list<std::pair<int, std::int64_t>> s) {
          std::vector<std::int64_t> st(na, 0);
          for (auto [axis, v] : s) st[static_cast<std::size_t>(axis)] = v;
          return st;
        };
        std::vector<operand> in{{bytes_of(lay.off), strides({{0, 1}})},
                                {bytes_of(x), strides({{2, 1}})},
                                {{}, strides({{3, 1}}), 1},
                                {bytes_of(met), strides({{0, 1}})},
                                {bytes_of(w), in_place ? strides({{0, 1}, {2, 1}}) : strides({{0, 1}})}};
        std::vector<std::int64_t> ext{lay.n(), lay.total()};
        for (int s = 0; s < arity; ++s) ext.push_back(lay.total());
        const std::string what =
            lay.text + (arity == 3 ? ", triples" : ", pairs") + (in_place ? ", w[i + j0]" : ", w[i]");
        const results r = run_both(g, k, ext, in, {{8, n}, {8, n}, {8, n}}, what);
        for (std::size_t i = 0; i < n; ++i) {
          const double terms = static_cast<double>(choose(lay.off[i + 1] - lay.off[i], arity));
          const double tol = 0x1p-52 * (terms + 1) * ((9 + std::abs(met[i])) * terms + 1);  // any order of the terms
          ASSERT_TRUE(matches<double>(at<double>(r.gpu[0], i), at<double>(r.cpu[0], i), tol)) << what << ", list " << i;
          ASSERT_EQ(at<long long>(r.gpu[1], i), at<long long>(r.cpu[1], i)) << what << ", list " << i;
          ASSERT_TRUE(matches<double>(at<double>(r.gpu[2], i), at<double>(r.cpu[2], i), tol * (std::abs(met[i]) + 1)))
              << what << ", list " << i;
        }
      }
    }
}

TEST(CudaPairs, TenThousandElementListSplitOverBlocks) {
  REQUIRE_GPU();
  test_support::seed();
  // 5 10^7 pairs in one list among short ones, against a host loop (exact: integer sums, and the
  // max of float differences): the heavy list's chunks are spread over the blocks.
  const lists lay = make_lists(3000, 1.5, 2, {{1234, 10000}, {1235, 3}}, "3000 lists with one of 10^4");
  const std::size_t n = static_cast<std::size_t>(lay.n()), ne = static_cast<std::size_t>(lay.off.back());
  for (dtype t : {dtype::int64, dtype::float32}) {
    const monoid m = t == dtype::int64 ? monoid::sum : monoid::max;
    const graph g = pairs_reduce(m, t, 2, false);
    const kernel_source k = jf::ir::generate_cuda(g);
    std::vector<long long> xi(ne);
    std::vector<float> xf(ne);
    for (std::size_t j = 0; j < ne; ++j) {
      xi[j] = static_cast<long long>(rng()() % 2001) - 1000;
      xf[j] = std::uniform_real_distribution<float>(-100, 100)(rng());
    }
    std::vector<operand> in{{bytes_of(lay.off), {1, 0, 0, 0}}};
    for (int s = 0; s < 2; ++s) {
      std::vector<std::int64_t> st(4, 0);
      st[static_cast<std::size_t>(2 + s)] = 1;
      in.push_back({t == dtype::int64 ? bytes_of(xi) : bytes_of(xf), st});
    }
    jf::detail::step_bindings db;
    db.extents = {lay.n(), lay.total(), lay.total(), lay.total()};
    std::vector<std::unique_ptr<dbuf>> keep;
    for (const operand& o : in) {
      keep.push_back(std::make_unique<dbuf>(o.host.size()));
      rt::copy_htod(keep.back()->p, o.host.data(), o.host.size());
      db.inputs.push_back({keep.back()->p, o.strides});
    }
    dbuf out(n * 8);
    db.outputs = {{out.p, {1, 0, 0, 0}}};
    rt::launch_nest(k, compiled(k), db);
    rt::synchronize();
    std::vector<unsigned char> raw(n * 8);
    rt::copy_dtoh(raw.data(), out.p, raw.size());
    for (std::size_t i = 0; i < n; ++i) {
      long long si = 0;
      float mf = -std::numeric_limits<float>::infinity();
      for (long long a = lay.off[i]; a < lay.off[i + 1]; ++a)
        for (long long b = a + 1; b < lay.off[i + 1]; ++b) {
          si += xi[static_cast<std::size_t>(a)] - xi[static_cast<std::size_t>(b)];
          mf = std::max(mf, xf[static_cast<std::size_t>(a)] - xf[static_cast<std::size_t>(b)]);
        }
      if (t == dtype::int64) {
        long long got;
        std::memcpy(&got, raw.data() + i * 8, 8);
        ASSERT_EQ(got, si) << "sum, list " << i;
      } else {
        float got;
        std::memcpy(&got, raw.data() + i * 4, 4);
        ASSERT_EQ(got, mf) << "max, list " << i;
      }
    }
  }
}

TEST(CudaPairs, Int32IndicesAreChecked) {
  REQUIRE_GPU();
  const kernel_source k = jf::ir::generate_cuda(pairs_reduce(monoid::sum, dtype::float32, 2, false, true));
  dbuf off(16), in(16), out(16);
  jf::detail::step_bindings b;
  b.extents = {std::int64_t(1) << 31, 1, 1, 1};
  b.inputs = {{off.p, {1, 0, 0, 0}}, {in.p, {0, 0, 1, 0}}, {in.p, {0, 0, 0, 1}}};
  b.outputs = {{out.p, {1, 0, 0, 0}}};
  EXPECT_THROW(rt::launch_nest(k, compiled(k), b), jf::error);
}

// A pairs schedule forced for one test's kernels (pairs_schedule_override), the generator's
// choice again when it ends.
struct forced_schedule {
  explicit forced_schedule(jf::ir::nest::pairs_schedule s) { jf::ir::nest::pairs_schedule_override() = s; }
  ~forced_schedule() { jf::ir::nest::pairs_schedule_override() = {}; }
  forced_schedule(const forced_schedule&) = delete;
  forced_schedule& operator=(const forced_schedule&) = delete;
};

// pairs_schedule::thread_max (a shape to measure, not the generator's choice yet): lists of at most
// 8 elements combined by a thread each, fields read in place, beside the staged runs and the heavy
// queue of the same tiles; every check against the host reference as above.
TEST(CudaPairs, AThreadPerShortList) {
  REQUIRE_GPU();
  test_support::seed();
  const forced_schedule schedule({.thread_max = 8});
  const std::vector<lists> layouts = pair_layouts(), triples = triple_layouts();
  for (monoid m : {monoid::sum, monoid::prod, monoid::max, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32})
      for (bool guard : {false, true}) check_reduce(m, t, 2, guard, layouts);
  check_reduce(monoid::argmax, dtype::float32, 2, true, layouts, false);  // slots classified at run time
  for (monoid m : {monoid::sum, monoid::argmin}) check_reduce(m, dtype::float64, 3, true, triples);
  for (monoid m : {monoid::sum, monoid::argmax}) check_product(m, dtype::float32, true);
  std::vector<std::pair<long long, long long>> tail;
  for (long long i = 17; i < 100000; i += 200) tail.push_back({i, 64});
  check_dielectron(make_lists(100000, 1.5, 9, {}, "10^5 Poisson(1.5) events from offset 9"), true);
  check_dielectron(make_lists(100000, 1.5, 0, tail, "10^5 Poisson(1.5) events, 0.5 % of 64"), false);
  check_dielectron(make_lists(20000, 8, 0, {}, "2 10^4 Poisson(8) events"), false);
}

TEST(CudaPairs, SplitByWeight) {
  // pairs_schedule::list_weight: each run's threads take combinations by weight (4 per combination,
  // w per list); the ranges, heads and the fold of cut lists change, the results do not.
  REQUIRE_GPU();
  test_support::seed();
  for (int w : {4, 13}) {
    const forced_schedule schedule({.list_weight = w});
    const std::vector<lists> layouts = pair_layouts();
    for (monoid m : {monoid::sum, monoid::max, monoid::argmax})
      for (bool guard : {false, true}) check_reduce(m, dtype::float32, 2, guard, layouts);
    check_reduce(monoid::sum, dtype::int64, 2, true, layouts);
    for (monoid m : {monoid::sum, monoid::argmin}) check_reduce(m, dtype::float64, 3, true, triple_layouts());
    check_product(monoid::argmax, dtype::float32, true);
    std::vector<std::pair<long long, long long>> tail;
    for (long long i = 17; i < 100000; i += 200) tail.push_back({i, 64});
    check_dielectron(make_lists(100000, 1.5, 9, {}, "10^5 Poisson(1.5) events from offset 9"), true);
    check_dielectron(make_lists(100000, 1.5, 0, tail, "10^5 Poisson(1.5) events, 0.5 % of 64"), false);
  }
}

// pairs_schedule::warp_segments (the generator's choice where every list has at most 16 elements;
// forced here on lists of every length): each warp its share of a tile's lists, a lane per
// combination, the lanes' values combined per list in lane order, the heavy queue unchanged; lists
// of more than 16 elements walked by their warp. With pairs_schedule::warp_queue, the lists of more
// than that many elements queued and combined after the tiles, a warp each (beside warp segments or
// the staged runs).
void check_schedule(jf::ir::nest::pairs_schedule forced) {
  const forced_schedule schedule(forced);
  const std::vector<lists> layouts = pair_layouts(), triples = triple_layouts();
  for (monoid m : {monoid::sum, monoid::prod, monoid::min, monoid::max, monoid::argmin, monoid::argmax})
    for (dtype t : {dtype::int64, dtype::float32})
      for (bool guard : {false, true}) check_reduce(m, t, 2, guard, layouts);
  check_reduce(monoid::argmax, dtype::float32, 2, true, layouts, false);  // slots classified at run time
  for (monoid m : {monoid::sum, monoid::argmin, monoid::max}) check_reduce(m, dtype::float64, 3, true, triples);
  std::vector<std::pair<long long, long long>> tail;
  for (long long i = 17; i < 100000; i += 200) tail.push_back({i, 64});
  check_dielectron(make_lists(100000, 1.5, 9, {}, "10^5 Poisson(1.5) events from offset 9"), true);
  check_dielectron(make_lists(100000, 1.5, 0, tail, "10^5 Poisson(1.5) events, 0.5 % of 64"), false);
  check_dielectron(make_lists(20000, 8, 0, {}, "2 10^4 Poisson(8) events"), true);
}

TEST(CudaPairs, WarpSegments) {
  REQUIRE_GPU();
  test_support::seed();
  check_schedule({.warp_segments = 1, .warp_queue = -1});  // lists of more than 16 walked by their warp
}

TEST(CudaPairs, AWarpQueue) {
  REQUIRE_GPU();
  test_support::seed();
  check_schedule({.warp_segments = 1, .warp_queue = 16});  // every list of more than 16 elements queued
  check_schedule({.warp_segments = -1, .warp_queue = 8});  // beside the staged runs; many queued
}

#else

TEST(CudaPairs, NeedsTheCudaBackend) { GTEST_SKIP() << "built without the CUDA backend: pairs kernel tests skipped"; }

#endif
