// The dense array core on every backend (jf::cpu; jf::cuda when a GPU is present): construction,
// factories, element reads, numpy basic slicing, reshape/transpose, backend copies, assignment
// with broadcasting and overlap, and the typed exceptions with their messages.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using jf::range;
using i64 = std::int64_t;

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}
i64 rand_int(i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng()); }

// Random non-zero-heavy values of T (no NaN: the comparisons are exact).
template <class T> std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) v[i] = (rng()() & 1) != 0;
    else if constexpr (std::is_integral_v<T>) v[i] = static_cast<T>(rand_int(-1000000, 1000000));
    else v[i] = static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng()));
  }
  return v;
}

template <class T> std::string message_of(auto&& f) {
  try {
    f();
  } catch (const T& e) {
    return e.what();
  }
  ADD_FAILURE() << "the expected exception was not thrown";
  return {};
}

// Python's slice(start, stop, step).indices(n) expanded into the selected indices.
std::vector<i64> py_slice(i64 n, range r) {
  const i64 step = r.step;
  i64 start, stop;
  if (r.start == range::none) start = step < 0 ? n - 1 : 0;
  else {
    start = *r.start < 0 ? *r.start + n : *r.start;
    if (start < 0) start = step < 0 ? -1 : 0;
    if (start >= n) start = step < 0 ? n - 1 : n;
  }
  if (r.stop == range::none) stop = step < 0 ? -1 : n;
  else {
    stop = *r.stop < 0 ? *r.stop + n : *r.stop;
    if (stop < 0) stop = step < 0 ? -1 : 0;
    if (stop >= n) stop = step < 0 ? n - 1 : n;
  }
  std::vector<i64> out;
  for (i64 i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(i);
  return out;
}

// Row-major gather of `data` (shape `shape`) at the per-axis index lists; `keep` says which axes
// remain in the result.
template <class T>
std::vector<T> gather(const std::vector<T>& data, const jf::shape_t& shape, const std::vector<std::vector<i64>>& idx) {
  const int nd = shape.size();
  const jf::strides_t st = jf::contiguous_strides(shape);
  std::vector<T> out;
  for (const auto& l : idx)
    if (l.empty()) return out;
  std::vector<std::size_t> pos(static_cast<std::size_t>(nd), 0);
  for (;;) {
    i64 off = 0;
    for (int a = 0; a < nd; ++a) off += idx[a][pos[a]] * st[a];
    out.push_back(data[static_cast<std::size_t>(off)]);
    int a = nd - 1;
    for (; a >= 0; --a) {
      if (++pos[a] < idx[a].size()) break;
      pos[a] = 0;
    }
    if (a < 0) break;
  }
  return out;
}

class ArrayTest : public test_support::on_backends {
};

// ---- construction ----------------------------------------------------------------------------------

TEST_P(ArrayTest, InitializerLists) {
  jf::array<double> a({1.5, -2.0, 3.25}, dev());
  EXPECT_EQ(a.shape(), (jf::shape_t{3}));
  EXPECT_EQ(a.dtype(), jf::dtype::float64);
  EXPECT_EQ(a.device(), dev());
  EXPECT_EQ(a.to_vector(), (std::vector<double>{1.5, -2.0, 3.25}));
  jf::array<std::int32_t> b({{1, 2, 3}, {4, 5, 6}}, dev());
  EXPECT_EQ(b.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(b.to_vector(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(b(1, 0), 4);
  EXPECT_EQ(b(-1, -1), 6);
  jf::array<bool> c({true, false, true}, dev());
  EXPECT_EQ(c.to_vector(), (std::vector<bool>{true, false, true}));
  EXPECT_THROW((jf::array<float>({{1.f, 2.f}, {3.f}}, dev())), jf::shape_error);
  EXPECT_TRUE(jf::array<float>().is_null());
}

template <class T> void check_vector_construction(jf::device dev) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(1000000)}) {
    const auto v = random_values<T>(n);
    jf::array<T> a(v, dev);
    EXPECT_EQ(a.size(), static_cast<i64>(n));
    EXPECT_TRUE(a.is_contiguous());
    EXPECT_EQ(a.to_vector(), v) << "n = " << n;
    if (n > 0) {
      EXPECT_EQ(a(0), v[0]);
      EXPECT_EQ(a(-1), v[n - 1]);
      EXPECT_EQ(a(static_cast<i64>(n / 2)), v[n / 2]);
    }
  }
  const auto v = random_values<T>(12);
  jf::array<T> m(v, jf::shape_t{3, 4}, dev);
  EXPECT_EQ(m.shape(), (jf::shape_t{3, 4}));
  EXPECT_EQ(m(2, 1), v[9]);
  EXPECT_EQ(m(-3, -4), v[0]);
  EXPECT_THROW(jf::array<T>(v, jf::shape_t{5, 3}, dev), jf::shape_error);
}

TEST_P(ArrayTest, FromVectorsAllDtypes) {
  check_vector_construction<double>(dev());
  check_vector_construction<float>(dev());
  check_vector_construction<std::int64_t>(dev());
  check_vector_construction<std::int32_t>(dev());
  check_vector_construction<bool>(dev());
}

TEST_P(ArrayTest, FromHostPointer) {
  const auto v = random_values<float>(17);
  jf::array<float> a(v.data(), jf::shape_t{17}, dev());
  EXPECT_EQ(a.to_vector(), v);
  jf::array<float> b(v.data(), jf::shape_t{2, 4}, dev());  // the first 8 elements
  EXPECT_EQ(b.to_vector(), std::vector<float>(v.begin(), v.begin() + 8));
  // A bool array from host bytes (1 byte per element).
  const unsigned char bytes[] = {1, 0, 0, 1};
  jf::array<bool> c(jf::detail::make_from_host(dev(), jf::dtype::bool_, {2, 2}, bytes));
  EXPECT_EQ(c.to_vector(), (std::vector<bool>{true, false, false, true}));
}

TEST_P(ArrayTest, FromEigen) {
  Eigen::ArrayXXd e = Eigen::ArrayXXd::Random(3, 5);  // column-major storage
  jf::array<double> a(e, dev());
  ASSERT_EQ(a.shape(), (jf::shape_t{3, 5}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(a(i, j), e(i, j));
  Eigen::VectorXf v = Eigen::VectorXf::Random(17);
  jf::array<float> b(v, dev());
  ASSERT_EQ(b.shape(), (jf::shape_t{17}));
  for (int i = 0; i < 17; ++i) EXPECT_EQ(b(i), v(i));
  std::vector<std::int32_t> raw = random_values<std::int32_t>(6);
  Eigen::Map<const Eigen::Array<std::int32_t, 2, 3, Eigen::RowMajor>> map(raw.data());
  jf::array<std::int32_t> c(map, dev());
  EXPECT_EQ(c.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(c.to_vector(), raw);
  jf::array<double> d(e * 2.0 + 1.0, dev());  // an Eigen expression
  EXPECT_EQ(d(2, 4), e(2, 4) * 2.0 + 1.0);
}

TEST(ArrayAdopt, DeleterRunsExactlyOnce) {
  std::atomic<int> calls{0};
  const auto v = random_values<double>(17);
  {
    double* p = new double[17];
    std::memcpy(p, v.data(), sizeof(double) * 17);
    auto a = jf::array<double>::adopt(p, {17}, jf::cpu, [&calls](void* q) {
      ++calls;
      delete[] static_cast<double*>(q);
    });
    EXPECT_EQ(a.data(), p);  // no copy
    EXPECT_EQ(a.to_vector(), v);
    jf::array<double> copy = a;                // handle copy
    auto view = a(range(2, 10, 3));            // view
    auto r = a.reshape({1, 17}).transpose();   // views of views
    a = jf::array<double>();
    copy = jf::array<double>();
    EXPECT_EQ(calls.load(), 0);
    EXPECT_EQ(view.to_vector(), (std::vector<double>{v[2], v[5], v[8]}));
    EXPECT_EQ(r(16, 0), v[16]);
  }
  EXPECT_EQ(calls.load(), 1);
}

TEST_P(ArrayTest, AdoptOnBackend) {
  // Memory of the backend itself (a buffer allocated by jetfuse, kept alive by the deleter).
  std::atomic<int> calls{0};
  {
    auto owner = jf::array<std::int64_t>({5, 6, 7}, dev());
    auto* p = static_cast<std::int64_t*>(owner.raw_data());
    auto holder = std::make_shared<jf::array<std::int64_t>>(owner);
    auto a = jf::array<std::int64_t>::adopt(p, {3}, dev(), [&calls, holder](void*) mutable {
      ++calls;
      holder.reset();
    });
    EXPECT_EQ(a.to_vector(), (std::vector<std::int64_t>{5, 6, 7}));
  }
  EXPECT_EQ(calls.load(), 1);
}

// ---- factories -------------------------------------------------------------------------------------

TEST_P(ArrayTest, ZerosOnesFullEmpty) {
  for (i64 n : {i64(0), i64(1), i64(17), i64(1000000)}) {
    EXPECT_EQ(jf::zeros<double>({n}, dev()).to_vector(), std::vector<double>(static_cast<std::size_t>(n), 0.0));
    EXPECT_EQ(jf::ones<std::int32_t>({n}, dev()).to_vector(), std::vector<std::int32_t>(static_cast<std::size_t>(n), 1));
    EXPECT_EQ(jf::full<float>({n}, -2.75f, dev()).to_vector(), std::vector<float>(static_cast<std::size_t>(n), -2.75f));
    EXPECT_EQ(jf::full<std::int64_t>({n}, -1, dev()).to_vector(), std::vector<std::int64_t>(static_cast<std::size_t>(n), -1));
    EXPECT_EQ(jf::full<bool>({n}, true, dev()).to_vector(), std::vector<bool>(static_cast<std::size_t>(n), true));
    auto e = jf::empty<double>({n, 3}, dev());
    EXPECT_EQ(e.shape(), (jf::shape_t{n, 3}));
    EXPECT_EQ(e.size(), n * 3);
  }
  auto z = jf::zeros<double>({2, 0, 3}, dev());
  EXPECT_EQ(z.size(), 0);
  EXPECT_TRUE(z.to_vector().empty());
  const double pi = 3.14159;
  auto s = jf::full<double>({}, pi, dev());  // 0-d
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.to_vector(), std::vector<double>{pi});
  EXPECT_THROW(jf::zeros<double>({2, -1}, dev()), jf::shape_error);
}

TEST_P(ArrayTest, Arange) {
  EXPECT_EQ(jf::arange<std::int64_t>(0, 10, 3, dev()).to_vector(), (std::vector<std::int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(jf::arange<std::int64_t>(10, 0, -3, dev()).to_vector(), (std::vector<std::int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(jf::arange<std::int32_t>(5, dev()).to_vector(), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(jf::arange<std::int64_t>(5, 5, 1, dev()).size(), 0);
  EXPECT_EQ(jf::arange<std::int64_t>(5, 0, 1, dev()).size(), 0);
  // numpy: np.arange(1, 2, 0.3) -> [1., 1.3, 1.6, 1.9]; np.arange(-1, -10, -2.5) -> 4 elements.
  auto a = jf::arange<double>(1, 2, 0.3, dev()).to_vector();
  ASSERT_EQ(a.size(), 4u);
  EXPECT_DOUBLE_EQ(a[3], 1.9);
  EXPECT_EQ(jf::arange<double>(-1, -10, -2.5, dev()).to_vector(), (std::vector<double>{-1, -3.5, -6, -8.5}));
  EXPECT_EQ(jf::arange<double>(0, 1, 0.1, dev()).size(), 10);
  EXPECT_EQ(jf::arange<std::int64_t>(0, 1000000, 1, dev())(999999), 999999);
  EXPECT_THROW(jf::arange<double>(0, 1, 0, dev()), jf::error);
}

TEST_P(ArrayTest, Linspace) {
  auto a = jf::linspace(0.0, 1.0, 4, dev()).to_vector();
  ASSERT_EQ(a.size(), 4u);
  EXPECT_DOUBLE_EQ(a[1], 1.0 / 3);
  EXPECT_EQ(a[3], 1.0);  // the endpoint exactly
  EXPECT_EQ(jf::linspace(0.0, 1.0, 4, dev(), false).to_vector(), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(jf::linspace(2.0, 3.0, 1, dev()).to_vector(), std::vector<double>{2.0});
  EXPECT_EQ(jf::linspace(2.0, 3.0, 1, dev(), false).to_vector(), std::vector<double>{2.0});
  EXPECT_EQ(jf::linspace(2.0, 3.0, 0, dev()).size(), 0);
  auto f = jf::linspace<float>(-1.0, 1.0, 17, dev()).to_vector();
  EXPECT_EQ(f.front(), -1.0f);
  EXPECT_EQ(f[8], 0.0f);
  EXPECT_EQ(f.back(), 1.0f);
  EXPECT_THROW(jf::linspace(0.0, 1.0, -1, dev()), jf::error);
}

// ---- element reads and slicing ---------------------------------------------------------------------

TEST_P(ArrayTest, ElementReadErrors) {
  jf::array<double> m(random_values<double>(12), {3, 4}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)m(1, 4); }), "index 4 is out of bounds for axis 1 with size 4");
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)m(-4, 0); }), "index -4 is out of bounds for axis 0 with size 3");
  EXPECT_THROW((void)m(0, 0, 0), jf::index_error);
  EXPECT_THROW((void)m(0), jf::index_error);  // an element read needs every index
  jf::array<double> e = jf::zeros<double>({0}, dev());
  EXPECT_THROW((void)e(0), jf::index_error);
}

// numpy results of list(range(n))[start:stop:step] (generated with Python/numpy).
struct slice_row {
  i64 n;
  range r;
  std::vector<i64> expect;
};
const slice_row numpy_slices[] = {
    {0, {jf::range::none, jf::range::none, -1}, {}},
    {0, {8, 2, -2}, {}},
    {0, {-3, jf::range::none, 1}, {}},
    {0, {jf::range::none, -3, 1}, {}},
    {0, {-100, 100, 1}, {}},
    {0, {100, jf::range::none, 1}, {}},
    {0, {5, 1, 1}, {}},
    {0, {jf::range::none, jf::range::none, 3}, {}},
    {0, {-1, -11, -1}, {}},
    {0, {3, -3, -1}, {}},
    {0, {-3, 3, -1}, {}},
    {0, {2, 100, 4}, {}},
    {0, {-100, jf::range::none, -1}, {}},
    {0, {jf::range::none, -100, -1}, {}},
    {0, {100, -100, -3}, {}},
    {0, {1, 2, 1}, {}},
    {0, {-2, -1, 1}, {}},
    {0, {0, 0, 1}, {}},
    {0, {jf::range::none, jf::range::none, 7}, {}},
    {0, {4, jf::range::none, -7}, {}},
    {1, {jf::range::none, jf::range::none, -1}, {0}},
    {1, {8, 2, -2}, {}},
    {1, {-3, jf::range::none, 1}, {0}},
    {1, {jf::range::none, -3, 1}, {}},
    {1, {-100, 100, 1}, {0}},
    {1, {100, jf::range::none, 1}, {}},
    {1, {5, 1, 1}, {}},
    {1, {jf::range::none, jf::range::none, 3}, {0}},
    {1, {-1, -11, -1}, {0}},
    {1, {3, -3, -1}, {0}},
    {1, {-3, 3, -1}, {}},
    {1, {2, 100, 4}, {}},
    {1, {-100, jf::range::none, -1}, {}},
    {1, {jf::range::none, -100, -1}, {0}},
    {1, {100, -100, -3}, {0}},
    {1, {1, 2, 1}, {}},
    {1, {-2, -1, 1}, {}},
    {1, {0, 0, 1}, {}},
    {1, {jf::range::none, jf::range::none, 7}, {0}},
    {1, {4, jf::range::none, -7}, {0}},
    {5, {jf::range::none, jf::range::none, -1}, {4, 3, 2, 1, 0}},
    {5, {8, 2, -2}, {4}},
    {5, {-3, jf::range::none, 1}, {2, 3, 4}},
    {5, {jf::range::none, -3, 1}, {0, 1}},
    {5, {-100, 100, 1}, {0, 1, 2, 3, 4}},
    {5, {100, jf::range::none, 1}, {}},
    {5, {5, 1, 1}, {}},
    {5, {jf::range::none, jf::range::none, 3}, {0, 3}},
    {5, {-1, -11, -1}, {4, 3, 2, 1, 0}},
    {5, {3, -3, -1}, {3}},
    {5, {-3, 3, -1}, {}},
    {5, {2, 100, 4}, {2}},
    {5, {-100, jf::range::none, -1}, {}},
    {5, {jf::range::none, -100, -1}, {4, 3, 2, 1, 0}},
    {5, {100, -100, -3}, {4, 1}},
    {5, {1, 2, 1}, {1}},
    {5, {-2, -1, 1}, {3}},
    {5, {0, 0, 1}, {}},
    {5, {jf::range::none, jf::range::none, 7}, {0}},
    {5, {4, jf::range::none, -7}, {4}},
    {10, {jf::range::none, jf::range::none, -1}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {10, {8, 2, -2}, {8, 6, 4}},
    {10, {-3, jf::range::none, 1}, {7, 8, 9}},
    {10, {jf::range::none, -3, 1}, {0, 1, 2, 3, 4, 5, 6}},
    {10, {-100, 100, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
    {10, {100, jf::range::none, 1}, {}},
    {10, {5, 1, 1}, {}},
    {10, {jf::range::none, jf::range::none, 3}, {0, 3, 6, 9}},
    {10, {-1, -11, -1}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {10, {3, -3, -1}, {}},
    {10, {-3, 3, -1}, {7, 6, 5, 4}},
    {10, {2, 100, 4}, {2, 6}},
    {10, {-100, jf::range::none, -1}, {}},
    {10, {jf::range::none, -100, -1}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {10, {100, -100, -3}, {9, 6, 3, 0}},
    {10, {1, 2, 1}, {1}},
    {10, {-2, -1, 1}, {8}},
    {10, {0, 0, 1}, {}},
    {10, {jf::range::none, jf::range::none, 7}, {0, 7}},
    {10, {4, jf::range::none, -7}, {4}},
};

TEST_P(ArrayTest, SliceTableMatchesNumpy) {
  for (const auto& row : numpy_slices) {
    auto x = jf::arange<i64>(0, row.n, 1, dev());
    auto v = x(row.r);
    EXPECT_EQ(v.to_vector(), row.expect) << "n=" << row.n << " [" << row.r.start << ":" << row.r.stop << ":" << row.r.step << "]";
    EXPECT_EQ(py_slice(row.n, row.r), row.expect);  // the reference used below agrees with numpy
  }
}

template <class T> void random_slicing(jf::device dev) {
  for (int trial = 0; trial < 300; ++trial) {
    const int nd = static_cast<int>(rand_int(1, 4));
    jf::shape_t shape;
    for (int a = 0; a < nd; ++a) shape.push_back(rand_int(0, 6));
    std::vector<T> data = random_values<T>(static_cast<std::size_t>(shape.product()));
    jf::array<T> x(data, shape, dev);
    // Two rounds: slicing a view checks the composition of offsets and strides.
    for (int round = 0; round < 2 && x.ndim() > 0; ++round) {
      const int nargs = static_cast<int>(rand_int(1, x.ndim()));
      std::vector<jf::index_arg> args;
      std::vector<std::vector<i64>> idx;
      jf::shape_t expect_shape;
      for (int a = 0; a < x.ndim(); ++a) {
        const i64 n = x.shape()[a];
        range r;  // ':' for the axes after the arguments and for jf::all
        if (a < nargs) {
          int kind = static_cast<int>(rand_int(0, 2));
          if (kind == 0 && n == 0) kind = 1;
          if (kind == 0) {  // an integer removes the axis
            const i64 i = rand_int(-n, n - 1);
            args.emplace_back(i);
            idx.push_back({i < 0 ? i + n : i});
            continue;
          }
          if (kind == 1) {
            auto bound = [&]() -> jf::slice_bound {
              if (rand_int(0, 3) == 0) return range::none;
              return rand_int(-n - 3, n + 3);
            };
            const i64 steps[] = {-3, -2, -1, 1, 1, 2, 3};
            r = range(bound(), bound(), steps[rand_int(0, 6)]);
            args.emplace_back(r);
          } else {
            args.emplace_back(jf::all);
          }
        }
        idx.push_back(py_slice(n, r));
        expect_shape.push_back(static_cast<i64>(idx.back().size()));
      }
      const std::vector<T> expect = gather(data, x.shape(), idx);
      jf::array<T> v(jf::detail::slice(x, args.data(), static_cast<int>(args.size())));
      ASSERT_EQ(v.shape(), expect_shape) << "trial " << trial;
      ASSERT_EQ(v.to_vector(), expect) << "trial " << trial << " shape " << jf::to_string(x.shape());
      EXPECT_EQ(v.buffer(), x.buffer());  // a view
      // Continue with the view; its logical elements are `expect`.
      x = v;
      data = expect;
    }
  }
}

TEST_P(ArrayTest, RandomSlicingMatchesReference) {
  random_slicing<double>(dev());
  random_slicing<std::int32_t>(dev());
  random_slicing<bool>(dev());
}

TEST_P(ArrayTest, SliceSemantics) {
  const auto v = random_values<float>(17);
  jf::array<float> x(v, dev());
  auto r = x(range(range::none, range::none, -1));
  ASSERT_EQ(r.size(), 17);
  EXPECT_EQ(r(0), v[16]);
  EXPECT_EQ(r(-1), v[0]);
  EXPECT_FALSE(r.is_contiguous());
  EXPECT_EQ(x(range(5, 2)).size(), 0);  // empty, not an error
  EXPECT_EQ(x(range(100, 200)).size(), 0);
  EXPECT_EQ(x(jf::all).to_vector(), v);
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)x(range(0, 5, 0)); }), "slice step cannot be zero (axis 0)");
  jf::array<float> m(random_values<float>(12), {3, 4}, dev());
  auto row = m(1, jf::all);
  EXPECT_EQ(row.shape(), (jf::shape_t{4}));
  EXPECT_EQ(row(-1), m(1, 3));
  auto col = m(jf::all, 2);
  EXPECT_EQ(col.shape(), (jf::shape_t{3}));
  EXPECT_EQ(col(2), m(2, 2));
  auto rows = m(range(-1, range::none, -2));  // rows 2, 0; remaining axis whole
  EXPECT_EQ(rows.shape(), (jf::shape_t{2, 4}));
  EXPECT_EQ(rows(1, 3), m(0, 3));
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)m(jf::all, jf::all, jf::all); }),
            "too many indices for array: array is 2-dimensional, but 3 were indexed");
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)m(jf::all, 7); }), "index 7 is out of bounds for axis 1 with size 4");
  // 10^6 elements, every 7th from the end.
  auto big = jf::arange<std::int64_t>(0, 1000000, 1, dev());
  auto s = big(range(-1, range::none, -7));
  EXPECT_EQ(s.size(), 142858);
  EXPECT_EQ(s(1), 999992);
  EXPECT_EQ(s(-1), 999999 - 7 * 142857);
}

// ---- reshape and transpose -------------------------------------------------------------------------

TEST_P(ArrayTest, Reshape) {
  const auto v = random_values<double>(24);
  jf::array<double> x(v, {2, 3, 4}, dev());
  auto r = x.reshape({4, -1});
  EXPECT_EQ(r.shape(), (jf::shape_t{4, 6}));
  EXPECT_EQ(r.buffer(), x.buffer());  // contiguous: a view
  EXPECT_EQ(r.to_vector(), v);
  EXPECT_EQ(r(3, 5), v[23]);
  EXPECT_EQ(x.reshape({-1}).shape(), (jf::shape_t{24}));
  EXPECT_EQ(x.reshape({24, 1, 1}).shape(), (jf::shape_t{24, 1, 1}));
  // A view that is not contiguous is copied first.
  auto t = x.transpose();
  auto rt = t.reshape({-1});
  EXPECT_NE(rt.buffer(), x.buffer());
  EXPECT_EQ(rt.to_vector(), t.to_vector());
  EXPECT_EQ(rt(1), v[12]);  // t(0, 0, 1) = x(1, 0, 0)
  // A contiguous slice stays a view with its offset.
  auto slab = x(range(1, 2)).reshape({12});
  EXPECT_EQ(slab.buffer(), x.buffer());
  EXPECT_EQ(slab.to_vector(), std::vector<double>(v.begin() + 12, v.end()));
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)x.reshape({5, 5}); }),
            "cannot reshape array of shape (2, 3, 4) (size 24) into shape (5, 5)");
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)x.reshape({5, -1}); }),
            "cannot reshape array of shape (2, 3, 4) (size 24) into shape (5, -1)");
  EXPECT_THROW((void)x.reshape({-1, -1}), jf::shape_error);
  EXPECT_THROW((void)x.reshape({-2, -12}), jf::shape_error);
  auto e = jf::zeros<float>({0, 3}, dev());
  EXPECT_EQ(e.reshape({3, 0}).shape(), (jf::shape_t{3, 0}));
  EXPECT_THROW((void)e.reshape({0, -1}), jf::shape_error);  // numpy: the unknown is ambiguous
  auto one = jf::full<std::int32_t>({1}, 9, dev()).reshape({});
  EXPECT_EQ(one.ndim(), 0);
  EXPECT_EQ(one.to_vector(), std::vector<std::int32_t>{9});
  auto big = jf::arange<std::int64_t>(0, 1000000, 1, dev()).reshape({1000, -1});
  EXPECT_EQ(big(999, 999), 999999);
  EXPECT_EQ(big(range(0, 1000, 999), range(1, 3)).to_vector(), (std::vector<std::int64_t>{1, 2, 999001, 999002}));
}

TEST_P(ArrayTest, Transpose) {
  const auto v = random_values<std::int32_t>(24);
  jf::array<std::int32_t> x(v, {2, 3, 4}, dev());
  auto t = x.transpose();
  EXPECT_EQ(t.shape(), (jf::shape_t{4, 3, 2}));
  EXPECT_EQ(t.buffer(), x.buffer());
  EXPECT_FALSE(t.is_contiguous());
  auto p = x.transpose({1, -1, 0});
  EXPECT_EQ(p.shape(), (jf::shape_t{3, 4, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(t(k, j, i), v[static_cast<std::size_t>(i * 12 + j * 4 + k)]);
        EXPECT_EQ(p(j, k, i), v[static_cast<std::size_t>(i * 12 + j * 4 + k)]);
      }
  EXPECT_EQ(t.transpose().to_vector(), v);
  EXPECT_TRUE(t.transpose().is_contiguous());
  EXPECT_THROW((void)x.transpose({0, 1}), jf::shape_error);
  EXPECT_THROW((void)x.transpose({0, 1, 1}), jf::shape_error);
  EXPECT_EQ(message_of<jf::index_error>([&] { (void)x.transpose({0, 1, 3}); }),
            "transpose: axis 3 is out of bounds for array of dimension 3");
  auto s = jf::full<double>({}, 2.5, dev());
  EXPECT_EQ(s.transpose().to_vector(), std::vector<double>{2.5});
  auto row = jf::array<float>(random_values<float>(17), dev());
  EXPECT_EQ(row.transpose().to_vector(), row.to_vector());
}

// ---- backends and copies ---------------------------------------------------------------------------

TEST_P(ArrayTest, ToBackendRoundTrip) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(1000000)}) {
    const auto v = random_values<double>(n);
    jf::array<double> h(v);
    auto d = jf::to_backend(h, dev());
    EXPECT_EQ(d.device(), dev());
    EXPECT_NE(d.buffer(), h.buffer());
    auto back = jf::to_backend(d, jf::cpu);
    EXPECT_EQ(back.device(), jf::cpu);
    EXPECT_EQ(back.to_vector(), v);
  }
  // Non-contiguous sources become contiguous copies of the logical elements.
  const auto v = random_values<std::int64_t>(60);
  jf::array<std::int64_t> x(v, {3, 4, 5}, dev());
  auto view = x(range(range::none, range::none, -1), jf::all, range(1, 5, 2)).transpose();
  const auto expect = view.to_vector();
  for (jf::device to : {jf::cpu, dev()}) {
    auto c = jf::to_backend(view, to);
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_EQ(c.shape(), view.shape());
    EXPECT_EQ(c.to_vector(), expect);
  }
  auto copy = x.copy();
  jf::array<std::int64_t>(x(range(0, 1))) = jf::zeros<std::int64_t>({1, 4, 5}, dev());
  EXPECT_EQ(copy.to_vector(), v);  // the copy is independent
  EXPECT_EQ(x(0, 0, 0), 0);
}

// ---- assignment ------------------------------------------------------------------------------------

TEST_P(ArrayTest, AssignBroadcast) {
  auto m = jf::zeros<double>({3, 4}, dev());
  const auto r = random_values<double>(4);
  m(jf::all) = jf::array<double>(r, dev());  // a row broadcast over the rows
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(m(i, j), r[static_cast<std::size_t>(j)]);
  const auto c = random_values<double>(3);
  m(jf::all, range(1, 3)) = jf::array<double>(c, {3, 1}, dev());  // a column into a slice
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m(i, 0), r[0]);
    EXPECT_EQ(m(i, 1), c[static_cast<std::size_t>(i)]);
    EXPECT_EQ(m(i, 2), c[static_cast<std::size_t>(i)]);
    EXPECT_EQ(m(i, 3), r[3]);
  }
  m = 7.5;  // scalar fill
  EXPECT_EQ(m.to_vector(), std::vector<double>(12, 7.5));
  m(range(range::none, range::none, -1), 0) = jf::array<double>({1.0, 2.0, 3.0}, dev());
  EXPECT_EQ(m(0, 0), 3.0);
  EXPECT_EQ(m(2, 0), 1.0);
  // numpy accepts leading length-1 axes in the source.
  auto v = jf::zeros<std::int32_t>({4}, dev());
  v(jf::all) = jf::array<std::int32_t>({{1, 2, 3, 4}}, dev());
  EXPECT_EQ(v.to_vector(), (std::vector<std::int32_t>{1, 2, 3, 4}));
  // Through a transposed view.
  auto t = jf::zeros<std::int32_t>({2, 3}, dev());
  t.transpose() = jf::array<std::int32_t>({{1, 2}, {3, 4}, {5, 6}}, dev());
  EXPECT_EQ(t.to_vector(), (std::vector<std::int32_t>{1, 3, 5, 2, 4, 6}));
  // Size 0 is a no-op, size 10^6 copies everything.
  jf::array<double>(m(range(2, 2))) = jf::zeros<double>({4}, dev());
  auto big = jf::zeros<float>({1000, 1000}, dev());
  const auto bv = random_values<float>(1000);
  big(jf::all) = jf::array<float>(bv, dev());
  const auto got = big.to_vector();
  EXPECT_EQ(got[0], bv[0]);
  EXPECT_EQ(got[999999], bv[999]);
  EXPECT_EQ(got[500 * 1000 + 17], bv[17]);
}

TEST_P(ArrayTest, AssignOverlap) {
  for (i64 n : {i64(1), i64(2), i64(17), i64(1000000)}) {
    const auto v = random_values<std::int64_t>(static_cast<std::size_t>(n));
    // numpy: x[1:] = x[:-1] -> x[0], x[0], x[1], ..., x[n-2]
    jf::array<std::int64_t> x(v, dev());
    x(range(1, n)) = x(range(0, n - 1));
    auto got = x.to_vector();
    EXPECT_EQ(got[0], v[0]);
    bool ok = true;
    for (i64 i = 1; i < n; ++i) ok = ok && got[static_cast<std::size_t>(i)] == v[static_cast<std::size_t>(i - 1)];
    EXPECT_TRUE(ok) << "n = " << n;
    // x[:-1] = x[1:]
    jf::array<std::int64_t> y(v, dev());
    y(range(0, n - 1)) = y(range(1, n));
    got = y.to_vector();
    ok = got[static_cast<std::size_t>(n - 1)] == v[static_cast<std::size_t>(n - 1)];
    for (i64 i = 0; i + 1 < n; ++i) ok = ok && got[static_cast<std::size_t>(i)] == v[static_cast<std::size_t>(i + 1)];
    EXPECT_TRUE(ok) << "n = " << n;
    // In-place reversal: x[...] = x[::-1]
    jf::array<std::int64_t> z(v, dev());
    z(jf::all) = z(range(range::none, range::none, -1));
    got = z.to_vector();
    ok = true;
    for (i64 i = 0; i < n; ++i) ok = ok && got[static_cast<std::size_t>(i)] == v[static_cast<std::size_t>(n - 1 - i)];
    EXPECT_TRUE(ok) << "n = " << n;
  }
  // In-place transpose of a square matrix.
  const auto v = random_values<double>(9);
  jf::array<double> s(v, {3, 3}, dev());
  s(jf::all) = s.transpose();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(s(i, j), v[static_cast<std::size_t>(j * 3 + i)]);
  // Self-assignment leaves the values.
  jf::array<double> w(v, dev());
  w(jf::all) = w;
  EXPECT_EQ(w.to_vector(), v);
}

TEST_P(ArrayTest, AssignErrors) {
  auto m = jf::zeros<double>({3, 4}, dev());
  EXPECT_EQ(message_of<jf::shape_error>([&] { m(jf::all) = jf::zeros<double>({3}, dev()); }),
            "could not broadcast input array from shape (3,) into shape (3, 4)");
  EXPECT_EQ(message_of<jf::shape_error>([&] { m(jf::all) = jf::zeros<double>({2, 3, 4}, dev()); }),
            "could not broadcast input array from shape (2, 3, 4) into shape (3, 4)");
  const jf::array_base f = jf::zeros<float>({3, 4}, dev());
  EXPECT_EQ(message_of<jf::dtype_error>([&] { jf::detail::assign(m, f); }),
            "cannot assign an array of float32 to an array of float64 (jetfuse does not cast implicitly)");
  EXPECT_THROW(jf::array<double>{f}, jf::dtype_error);
  EXPECT_THROW(jf::detail::assign(m, jf::array_base()), jf::error);
}

TEST(ArrayErrors, BackendMismatch) {
  // A handle that claims to live on jf::cuda: the check comes before any data are touched.
  auto buf = std::make_shared<jf::detail::buffer>();
  buf->dev = jf::cuda;
  buf->bytes = 3 * sizeof(double);
  const jf::array_base fake(buf, jf::dtype::float64, {3}, {1}, 0);
  auto h = jf::zeros<double>({3});
  EXPECT_EQ(message_of<jf::backend_mismatch>([&] { jf::detail::assign(h, fake); }),
            "cannot assign an array on cuda:0 to an array on cpu; move it with jf::to_backend first");
  EXPECT_EQ(fake.device(), jf::cuda);
}

TEST(ArrayShape, Helpers) {
  EXPECT_EQ(jf::to_string(jf::shape_t{}), "()");
  EXPECT_EQ(jf::to_string(jf::shape_t{5}), "(5,)");
  EXPECT_EQ(jf::to_string(jf::shape_t{3, 4}), "(3, 4)");
  EXPECT_EQ(jf::broadcast_shapes({3, 1, 5}, {4, 1}), (jf::shape_t{3, 4, 5}));
  EXPECT_EQ(jf::broadcast_shapes({}, {2, 0}), (jf::shape_t{2, 0}));
  EXPECT_EQ(jf::broadcast_shapes({1}, {0}), (jf::shape_t{0}));
  EXPECT_EQ(message_of<jf::shape_error>([] { (void)jf::broadcast_shapes({3, 4}, {5}); }),
            "operands could not be broadcast together with shapes (3, 4) (5,)");
  EXPECT_EQ(jf::contiguous_strides({2, 3, 4}), (jf::strides_t{12, 4, 1}));
  EXPECT_EQ(jf::contiguous_strides({}), jf::strides_t{});
}

INSTANTIATE_TEST_SUITE_P(Backends, ArrayTest, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
