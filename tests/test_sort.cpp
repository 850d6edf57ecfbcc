// jf::sort, jf::argsort, jf::unique and numpy 2's unique_counts / unique_inverse / unique_all on
// every backend against numpy's answers (tests/data/sort_table.txt, written by
// tests/data/gen_sort_table.py: every dtype; NaN of both signs, +-0.0, +-inf, denormals, the integer
// limits, many duplicates; 0-d, empty, odd and larger-than-a-block shapes of 1-3 dimensions; every
// axis and axis=None; out-of-range axes), each on four layouts of the same values (contiguous,
// reversed, transposed, every other element); expressions as operands; errors; inputs untouched;
// and on a GPU, jf::cuda against jf::cpu on random inputs up to 2^24 + 3 elements and many short
// rows, with pool memory poisoned before every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;

// ---- the numpy table --------------------------------------------------------------------------

struct result_words {
  jf::shape_t shape;
  std::vector<std::string> words;
};
struct sort_case {
  std::string op, dtype, axis;  // axis: an integer or "none"
  jf::shape_t shape;
  std::vector<std::string> input;
  std::string error_type, error_message;  // empty when numpy answered
  std::vector<result_words> results;
};

// Shapes in sort_table.txt are comma-separated ("3,4"; "scalar" for 0-d).
jf::shape_t parse_shape(const std::string& s) { return test_support::parse_shape(s, ','); }

std::vector<sort_case> table() {
  std::vector<sort_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/sort_table.txt", 6)) {
    sort_case c;
    c.op = t.header.at(0);
    c.dtype = t.header.at(1);
    c.shape = parse_shape(t.header.at(2));
    c.axis = t.header.at(3);
    c.input = t.lines[0];
    EXPECT_EQ(static_cast<i64>(c.input.size()), c.shape.product());
    const std::vector<std::string>& status = t.lines[1];
    if (status.at(0) == "error") {
      c.error_type = status.at(1);
      for (std::size_t k = 2; k < status.size(); ++k) c.error_message += (k > 2 ? " " : "") + status[k];
    }
    for (int k = 2; k < 6; ++k) {
      if (t.lines[static_cast<std::size_t>(k)].empty()) continue;
      const std::vector<std::string>& l = t.lines[static_cast<std::size_t>(k)];
      c.results.push_back({parse_shape(l[0]), std::vector<std::string>(l.begin() + 1, l.end())});
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Values equal as numpy's sort defines them: -0.0 == +0.0 (their order is not specified), any NaN
// equals any NaN (a NaN may lose its sign); everything else bit for bit.
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b;
  } else {
    return a == b;
  }
}

template <class T>
bool is_nan(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(a);
  else
    return false;
}

template <class T>
bool same_bits(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a == b;
  else
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void expect_values(const jf::array<T>& got, const result_words& want, const std::string& what) {
  ASSERT_FALSE(got.is_null()) << what;
  ASSERT_EQ(got.shape(), want.shape) << what;
  const std::vector<T> g = got.to_vector(), w = test_support::parse_words<T>(want.words);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (std::size_t k = 0; k < g.size(); ++k)
    ASSERT_TRUE(same_value(g[k], w[k])) << what << ": element " << k << " is " << g[k] << ", numpy has "
                                        << want.words[k];
}

// numpy 2's unique_inverse keeps every NaN a value of its own, and which NaN element maps to which
// NaN value follows its unstable sort (unique_all's stable one maps them in order, as jetfuse
// always does): elements that are not NaN must map as numpy's; the NaN elements to distinct NaNs.
template <class T>
void expect_inverse(const jf::array<i64>& got, const result_words& values, const result_words& want,
                    const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape) << what;
  const std::vector<T> v = test_support::parse_words<T>(values.words);
  const std::vector<i64> g = got.to_vector(), w = test_support::parse_words<i64>(want.words);
  std::vector<bool> taken(v.size(), false);
  for (std::size_t k = 0; k < g.size(); ++k) {
    if (is_nan(v[static_cast<std::size_t>(w[k])])) {
      ASSERT_TRUE(g[k] >= 0 && g[k] < static_cast<i64>(v.size())) << what << ": element " << k;
      const auto u = static_cast<std::size_t>(g[k]);
      ASSERT_TRUE(is_nan(v[u]) && !taken[u]) << what << ": NaN element " << k << " maps to " << g[k];
      taken[u] = true;
    } else {
      ASSERT_EQ(g[k], w[k]) << what << ": element " << k;
    }
  }
}

// The same values in four layouts: contiguous, reversed along every axis (negative strides),
// transposed (the last axis moves fastest in memory... the first), every other element of a wider
// array along the last axis.
template <class T>
std::vector<std::pair<std::string, jf::array<T>>> layouts(const jf::array<T>& a) {
  std::vector<std::pair<std::string, jf::array<T>>> v{{"contiguous", a}};
  if (a.ndim() == 0) return v;
  v.emplace_back("reversed", jf::flip(jf::flip(a).copy()));
  v.emplace_back("transposed", a.transpose().copy().transpose());
  const int last = a.ndim() - 1;
  const jf::array<T> wide = jf::repeat(a, 2, last);
  std::vector<jf::index_arg> args(static_cast<std::size_t>(a.ndim()), jf::index_arg(jf::all));
  args.back() = jf::index_arg(jf::range(0, jf::none, 2));
  v.emplace_back("strided", jf::array<T>(jf::detail::slice(wide, args.data(), a.ndim())));
  return v;
}

template <class T>
void run_case(const sort_case& c, const jf::array<T>& x, const std::string& what) {
  const bool flat = c.axis == "none";
  const int axis = flat ? 0 : std::stoi(c.axis);
  if (!c.error_type.empty()) {
    ASSERT_EQ(c.error_type, "AxisError") << what;
    if (c.op == "sort")
      EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::sort(x, axis); }), c.error_message) << what;
    else
      EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::argsort(x, axis); }), c.error_message) << what;
    return;
  }
  if (c.op == "sort") {
    expect_values(flat ? jf::sort(x, jf::none) : jf::sort(x, axis), c.results.at(0), what);
  } else if (c.op == "argsort") {
    expect_values(flat ? jf::argsort(x, jf::none) : jf::argsort(x, axis), c.results.at(0), what);
  } else if (c.op == "unique") {
    expect_values(jf::unique(x), c.results.at(0), what);
  } else if (c.op == "unique_counts") {
    auto [values, counts] = jf::unique_counts(x);
    expect_values(values, c.results.at(0), what + " values");
    expect_values(counts, c.results.at(1), what + " counts");
  } else if (c.op == "unique_inverse") {
    auto [values, inverse] = jf::unique_inverse(x);
    expect_values(values, c.results.at(0), what + " values");
    expect_inverse<T>(inverse, c.results.at(0), c.results.at(1), what + " inverse_indices");
  } else if (c.op == "unique_all") {
    auto [values, indices, inverse, counts] = jf::unique_all(x);
    expect_values(values, c.results.at(0), what + " values");
    expect_values(indices, c.results.at(1), what + " indices");
    expect_values(inverse, c.results.at(2), what + " inverse_indices");
    expect_values(counts, c.results.at(3), what + " counts");
  } else {
    FAIL() << "unknown op " << c.op;
  }
}

template <class T>
void check(const sort_case& c, jf::device dev) {
  const jf::array<T> a(test_support::parse_words<T>(c.input), c.shape, dev);
  const std::vector<T> before = a.to_vector();
  for (const auto& [layout, x] : layouts(a)) {
    const std::string what =
        c.op + " " + c.dtype + " shape " + jf::to_string(c.shape) + " axis " + c.axis + " (" + layout + ")";
    run_case(c, x, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const std::vector<T> after = a.to_vector();
  for (std::size_t k = 0; k < before.size(); ++k)
    ASSERT_TRUE(same_bits<T>(before[k], after[k])) << "the input changed at " << k;
}

class Sorting : public test_support::on_backends {
};

TEST_P(Sorting, MatchesNumpy) {
  const std::vector<sort_case> cases = table();
  ASSERT_GT(cases.size(), 1000u);
  for (const sort_case& c : cases) {
    test_support::with_dtype(c.dtype, [&]<class T>() { check<T>(c, dev()); });
    if (HasFatalFailure()) return;
  }
}

// ---- expressions, orders, errors ---------------------------------------------------------------

TEST_P(Sorting, ExpressionsAreEvaluatedFirst) {
  const jf::array<double> a({3.0, -1.0, 2.0, 0.5, -4.0, 2.0}, dev());
  const jf::array<std::int32_t> b({1, 2, 3, 4, 5, 6}, dev());
  // a * 2 + b = 7 0 7 5 -3 10 (float64: numpy's promotion of float64 and int32).
  const jf::array<double> s = jf::sort(a * 2 + b);
  EXPECT_EQ(s.to_vector(), (std::vector<double>{-3, 0, 5, 7, 7, 10}));
  EXPECT_EQ(jf::argsort(a * 2 + b).to_vector(), (std::vector<i64>{4, 1, 3, 0, 2, 5}));
  EXPECT_EQ(jf::unique(a * 2 + b).to_vector(), (std::vector<double>{-3, 0, 5, 7, 10}));
  // A 2-d expression along axis 0 and flattened; an int32 result stays int32.
  const jf::array<std::int32_t> m({{5, 1, 4}, {2, 8, 0}}, dev());
  const jf::array<std::int32_t> m2 = jf::sort(m * 3 - 1, 0);
  EXPECT_EQ(m2.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(m2.to_vector(), (std::vector<std::int32_t>{5, 2, -1, 14, 23, 11}));
  EXPECT_EQ(jf::argsort(m * 3 - 1, jf::none).to_vector(), (std::vector<i64>{5, 1, 3, 2, 0, 4}));
  // Comparisons give bool; random leaves are expressions too.
  EXPECT_EQ(jf::sort(m > 3).to_vector(), (std::vector<bool>{false, true, true, false, false, true}));
  auto [values, counts] = jf::unique_counts(m % 2);
  EXPECT_EQ(values.to_vector(), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(counts.to_vector(), (std::vector<i64>{4, 2}));
  jf::random::philox gen(7);
  const auto leaf = gen.random<float>({1000}, dev());
  const jf::array<float> drawn = leaf;  // the same values: a leaf is a pure function of its positions
  const std::vector<float> sorted = jf::sort(leaf).to_vector(), expected = jf::sort(drawn).to_vector();
  EXPECT_EQ(sorted, expected);
  for (std::size_t k = 1; k < sorted.size(); ++k) ASSERT_LE(sorted[k - 1], sorted[k]);
}

TEST_P(Sorting, StableOrderAndNanLast) {
  // Ties keep their order: every NaN, -0.0 and +0.0, equal values.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const jf::array<double> x({nan, 1.0, -0.0, -nan, 0.0, 1.0, -1.0, nan, 0.0}, dev());
  EXPECT_EQ(jf::argsort(x).to_vector(), (std::vector<i64>{6, 2, 4, 8, 1, 5, 0, 3, 7}));
  const std::vector<double> s = jf::sort(x).to_vector();
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(s[k], (std::vector<double>{-1, 0, 0, 0, 1, 1}[k]));
  for (std::size_t k = 6; k < 9; ++k) EXPECT_TRUE(std::isnan(s[k]));
  auto [values, indices, inverse, counts] = jf::unique_all(x);
  ASSERT_EQ(values.size(), 6);  // -1 0 1 nan nan nan: numpy 2's unique_all keeps every NaN
  EXPECT_FALSE(std::signbit(values.to_vector()[1]));
  EXPECT_EQ(indices.to_vector(), (std::vector<i64>{6, 2, 1, 0, 3, 7}));
  EXPECT_EQ(inverse.to_vector(), (std::vector<i64>{3, 2, 1, 4, 1, 2, 0, 5, 1}));
  EXPECT_EQ(counts.to_vector(), (std::vector<i64>{1, 3, 2, 1, 1, 1}));
  const std::vector<double> u = jf::unique(x).to_vector();  // np.unique: the NaNs are one
  ASSERT_EQ(u.size(), 4u);
  EXPECT_TRUE(std::isnan(u[3]));
  // The integer limits order as integers (no wrapping).
  const i64 lo = std::numeric_limits<i64>::min(), hi = std::numeric_limits<i64>::max();
  EXPECT_EQ(jf::sort(jf::array<i64>({hi, 0, lo, -1, hi, lo}, dev())).to_vector(),
            (std::vector<i64>{lo, lo, -1, 0, hi, hi}));
}

TEST_P(Sorting, Errors) {
  const jf::array<double> m = jf::zeros<double>({2, 3}, dev());
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::sort(m, 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::argsort(m * 2, -3); }),
            "axis -3 is out of bounds for array of dimension 2");
  const jf::array<double> s = jf::full<double>({}, 1.5, dev());
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::sort(s); }),
            "axis -1 is out of bounds for array of dimension 0");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::argsort(s, 1); }),
            "axis 1 is out of bounds for array of dimension 1");
  EXPECT_EQ(jf::sort(s, jf::none).shape(), (jf::shape_t{1}));
  const jf::array<double> null;
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::sort(null); }),
            "jf::sort: the array is a null handle (default-constructed)");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::argsort(null, jf::none); }),
            "jf::argsort: the array is a null handle (default-constructed)");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::unique_all(null); }),
            "jf::unique: the array is a null handle (default-constructed)");
}

// Results are new C-contiguous arrays of numpy's shapes, whatever the operand's layout.
TEST_P(Sorting, ResultsAreNewContiguousArrays) {
  const jf::array<float> x = jf::arange<float>(0, 24, 1, dev()).reshape({2, 3, 4}).transpose();  // (4, 3, 2)
  for (int axis : {0, 1, 2}) {
    const jf::array<float> s = jf::sort(x, axis);
    EXPECT_EQ(s.shape(), x.shape());
    EXPECT_TRUE(s.is_contiguous());
    EXPECT_NE(s.raw_data(), x.raw_data());
    const jf::array<i64> p = jf::argsort(x, axis);
    EXPECT_TRUE(p.is_contiguous());
  }
  // x(i, j, k) = 12 k + 4 j + i: sorted along every axis already.
  EXPECT_EQ(jf::sort(x, 0).to_vector(), x.copy().to_vector());
  const std::vector<float> flat = jf::sort(x, jf::none).to_vector();
  for (std::size_t k = 0; k < flat.size(); ++k) ASSERT_EQ(flat[k], static_cast<float>(k));
  auto [values, inverse] = jf::unique_inverse(x);
  EXPECT_EQ(inverse.shape(), x.shape());
  EXPECT_EQ(jf::array<float>(jf::take(values, inverse.reshape({-1}))).to_vector(), x.copy().to_vector());
}

// ---- random inputs: against a serial reference, and jf::cuda against jf::cpu -------------------

// Random values with many duplicates; floats with NaNs of both signs, +-0.0, +-inf, denormals;
// integers with their limits.
template <class T>
std::vector<T> random_values(i64 n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  auto& rng = test_support::rng();
  std::uniform_int_distribution<int> pick(0, 99);
  for (auto&& e : v) {
    const int p = pick(rng);
    if constexpr (std::is_same_v<T, bool>) {
      e = p < 50;
    } else if constexpr (std::is_integral_v<T>) {
      const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      e = p < 2 ? lo : p < 4 ? hi : p < 50 ? static_cast<T>(p % 7 - 3) : static_cast<T>(test_support::rand_int(lo, hi));
    } else {
      const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
      const T specials[] = {nan, -nan, inf, -inf, T(0), -T(0), std::numeric_limits<T>::denorm_min(), T(1.5)};
      e = p < 16   ? specials[p / 2]
          : p < 50 ? static_cast<T>(p % 9 - 4) / 2
                   : static_cast<T>(std::normal_distribution<double>(0, 1e3)(rng));
    }
  }
  return v;
}

template <class T>
bool numpy_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a < b || (std::isnan(b) && !std::isnan(a));
  else
    return a < b;
}

// Stable argsort of every row of a C-contiguous (rows, n) block, one std::stable_sort each.
template <class T>
std::vector<i64> reference_argsort(const std::vector<T>& x, i64 rows, i64 n) {
  std::vector<i64> p(x.size());
  for (i64 r = 0; r < rows; ++r) {
    const auto first = p.begin() + r * n;
    for (i64 j = 0; j < n; ++j) first[j] = j;
    std::stable_sort(first, first + n, [&](i64 a, i64 b) {
      return numpy_less(x[static_cast<std::size_t>(r * n + a)], x[static_cast<std::size_t>(r * n + b)]);
    });
  }
  return p;
}

template <class T>
void check_against_reference(jf::device dev, i64 rows, i64 n) {
  const std::vector<T> v = random_values<T>(rows * n);
  const jf::array<T> x(v, {rows, n}, dev);
  const std::vector<i64> want = reference_argsort(v, rows, n);
  const std::string what =
      std::string(jf::name(jf::dtype_v<T>)) + " (" + std::to_string(rows) + ", " + std::to_string(n) + ")";
  ASSERT_EQ(jf::argsort(x).to_vector(), want) << what;
  const std::vector<T> s = jf::sort(x).to_vector();
  for (std::size_t k = 0; k < s.size(); ++k) {
    const T w = v[k / static_cast<std::size_t>(n) * static_cast<std::size_t>(n) + static_cast<std::size_t>(want[k])];
    ASSERT_TRUE(same_value(s[k], w)) << what << ": element " << k;
  }
  // Along axis 0 of the transpose: the same rows, read with a stride.
  ASSERT_EQ(jf::argsort(x.transpose(), 0).transpose().copy().to_vector(), want) << what << " transposed";
}

// Long rows take the CPU's parallel pieces and merges; many rows its parallel loop over rows.
TEST_P(Sorting, RandomAgainstSerialStableSort) {
  test_support::seed();
  check_against_reference<double>(dev(), 1, (i64(1) << 20) + 3);
  check_against_reference<float>(dev(), 1, (i64(1) << 18) + 1);
  check_against_reference<i64>(dev(), 1, 300001);
  check_against_reference<std::int32_t>(dev(), 3, 100001);
  check_against_reference<bool>(dev(), 1, 70001);
  check_against_reference<float>(dev(), 20000, 7);
  check_against_reference<double>(dev(), 3000, 129);
  check_against_reference<bool>(dev(), 5000, 3);
}

// Fills pool memory (the GPU's stream-ordered pool, the host allocator) with a pattern and frees
// it, so that results allocated next start from garbage rather than zeros.
void poison_pool(jf::device dev, i64 bytes) {
  { const jf::array<std::int32_t> junk = jf::full<std::int32_t>({bytes / 4 + 1}, 0x7FBADBAD, dev); }
  jf::synchronize();
}

template <class T>
void expect_same(const jf::array<T>& gpu, const jf::array<T>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const std::vector<T> g = gpu.to_vector(), c = cpu.to_vector();
  for (std::size_t k = 0; k < g.size(); ++k)
    ASSERT_TRUE(same_value(g[k], c[k])) << what << ": element " << k << " is " << g[k] << " on the GPU, " << c[k]
                                        << " on the CPU";
}

template <class T>
void gpu_against_cpu(const jf::shape_t& shape, std::initializer_list<int> axes, bool flat) {
  const std::vector<T> v = random_values<T>(shape.product());
  const jf::array<T> h(v, shape, jf::cpu), d(v, shape, jf::cuda);
  const i64 bytes = shape.product() * 24 + 4096;
  const std::string what = std::string(jf::name(jf::dtype_v<T>)) + " " + jf::to_string(shape);
  for (int axis : axes) {
    poison_pool(jf::cuda, bytes);
    expect_same(jf::sort(d, axis), jf::sort(h, axis), what + " sort axis " + std::to_string(axis));
    poison_pool(jf::cuda, bytes);
    expect_same(jf::argsort(d, axis), jf::argsort(h, axis), what + " argsort axis " + std::to_string(axis));
    if (::testing::Test::HasFatalFailure()) return;
  }
  if (flat) {
    poison_pool(jf::cuda, bytes);
    expect_same(jf::sort(d, jf::none), jf::sort(h, jf::none), what + " sort axis None");
    poison_pool(jf::cuda, bytes);
    expect_same(jf::argsort(d, jf::none), jf::argsort(h, jf::none), what + " argsort axis None");
    poison_pool(jf::cuda, bytes);
    expect_same(jf::unique(d), jf::unique(h), what + " unique");
    poison_pool(jf::cuda, bytes);
    auto [gv, gc] = jf::unique_counts(d);
    auto [cv, cc] = jf::unique_counts(h);
    expect_same(gv, cv, what + " unique_counts values");
    expect_same(gc, cc, what + " unique_counts counts");
    poison_pool(jf::cuda, bytes);
    auto [gv2, gi, ginv, gc2] = jf::unique_all(d);
    auto [cv2, ci, cinv, cc2] = jf::unique_all(h);
    expect_same(gv2, cv2, what + " unique_all values");
    expect_same(gi, ci, what + " unique_all indices");
    expect_same(ginv, cinv, what + " unique_all inverse");
    expect_same(gc2, cc2, what + " unique_all counts");
  }
  const std::vector<T> after = d.to_vector();
  for (std::size_t k = 0; k < v.size(); ++k)
    ASSERT_TRUE(same_bits<T>(v[k], after[k])) << what << ": the input changed at " << k;
}

TEST(SortingCuda, RandomAgainstCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  test_support::seed();
  const i64 big = (i64(1) << 24) + 3;
  gpu_against_cpu<float>({big}, {-1}, true);
  gpu_against_cpu<double>({big}, {0}, true);
  gpu_against_cpu<i64>({big}, {-1}, true);
  gpu_against_cpu<std::int32_t>({big}, {-1}, true);
  gpu_against_cpu<bool>({big}, {-1}, true);
  for (i64 n : {0, 1, 2, 3, 255, 256, 257, 4097}) {
    gpu_against_cpu<float>({n}, {-1}, true);
    gpu_against_cpu<double>({n}, {-1}, true);
    gpu_against_cpu<i64>({n}, {0}, true);
    gpu_against_cpu<std::int32_t>({n}, {0}, true);
    gpu_against_cpu<bool>({n}, {0}, true);
  }
  // Segments: many short rows, rows read with a stride (axis 0), a middle axis.
  gpu_against_cpu<float>({1 << 20, 2}, {-1, 0}, true);
  gpu_against_cpu<double>({100003, 7}, {-1, 0}, false);
  gpu_against_cpu<std::int32_t>({4099, 33}, {-1, 0}, true);
  gpu_against_cpu<i64>({3, 1000, 33}, {1, 0, 2}, true);
  gpu_against_cpu<bool>({30000, 9}, {-1, 0}, true);
  gpu_against_cpu<float>({2, 3000000}, {-1}, false);
  gpu_against_cpu<double>({1, 70001}, {-1, 0}, false);
}

// Rows of 129 to 4096 (and one row of up to 4096): one thread block a row (block_sort_rows.cuh),
// rows read with a stride among them (axis 0 of (777, 257): 257 rows of 777).
TEST(SortingCuda, RowsSortedByOneBlockAgainstCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  test_support::seed();
  gpu_against_cpu<float>({2000, 1024}, {-1, 0}, false);
  gpu_against_cpu<double>({777, 257}, {-1, 0}, false);
  gpu_against_cpu<std::int32_t>({150, 4096}, {-1}, false);
  gpu_against_cpu<i64>({129, 2049}, {-1, 0}, false);
  gpu_against_cpu<bool>({2000, 300}, {-1}, false);
  gpu_against_cpu<float>({4, 200, 513}, {2, 1}, false);
  for (i64 n : {129, 1000, 4096}) gpu_against_cpu<double>({1, n}, {-1}, false);
  gpu_against_cpu<std::uint64_t>({3001, 130}, {-1, 0}, true);
  gpu_against_cpu<std::int8_t>({64, 2000}, {-1}, true);
}

// unique's values alone: sorted, then selected. int32 and int64 select into the result's own
// memory and keep it when the distinct values fill half of it, else copy them out; the rest decode.
TEST(SortingCuda, UniqueValuesAgainstCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  test_support::seed();
  auto& rng = test_support::rng();
  for (i64 n : {1, 2, 1000, 300001}) {
    for (i64 range : {n, n / 3 + 1, i64(4)}) {
      std::vector<std::int32_t> v(static_cast<std::size_t>(n));
      std::uniform_int_distribution<std::int32_t> pick(-1000, static_cast<std::int32_t>(range) - 1001);
      for (auto& e : v) e = pick(rng);
      if (range == n)
        for (i64 k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(k * 7 % n - 1000);
      std::shuffle(v.begin(), v.end(), rng);
      const std::string what = "n " + std::to_string(n) + " range " + std::to_string(range);
      const jf::array<std::int32_t> h(v, {n}, jf::cpu), d(v, {n}, jf::cuda);
      poison_pool(jf::cuda, n * 16 + 4096);
      const jf::array<std::int32_t> got = jf::unique(d), want = jf::unique(h);
      expect_same(got, want, what + " int32");
      // The result is an array like any other: its strides, and an expression over it.
      ASSERT_EQ(got.strides(), jf::strides_t{1}) << what;
      expect_same(jf::array<std::int32_t>(got * 3 + 1), jf::array<std::int32_t>(want * 3 + 1),
                  what + " int32, then 3 x + 1");
      // int64 read with a stride (keys encoded first), and as float64 (keys decoded).
      std::vector<i64> w(static_cast<std::size_t>(2 * n));
      for (std::size_t k = 0; k < w.size(); ++k) w[k] = k % 2 ? v[k / 2] : -v[k / 2];
      const jf::array<i64> hw(w, {n, 2}, jf::cpu), dw(w, {n, 2}, jf::cuda);
      expect_same(jf::unique(dw.transpose()), jf::unique(hw.transpose()), what + " int64 transposed");
      const jf::array<double> hf = jf::astype<double>(h), df = jf::astype<double>(d);
      expect_same(jf::unique(df), jf::unique(hf), what + " float64");
    }
  }
}

// Threads sort at once, each on its own stream (jf::cuda: CUB through the static runtime on the
// context the driver API made current in that thread).
TEST_P(Sorting, ConcurrentThreads) {
  const i64 n = 300001;
  std::vector<std::vector<float>> inputs(4);
  std::vector<std::vector<i64>> want(inputs.size());
  for (std::size_t t = 0; t < inputs.size(); ++t) {
    inputs[t] = random_values<float>(n);
    want[t] = reference_argsort(inputs[t], 1, n);
  }
  std::vector<std::vector<i64>> got(inputs.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < inputs.size(); ++t)
    threads.emplace_back([&, t] {
      const jf::array<float> x(inputs[t], dev());
      for (int rep = 0; rep < 3; ++rep) got[t] = jf::argsort(x * 1.0f).to_vector();
    });
  for (std::thread& th : threads) th.join();
  for (std::size_t t = 0; t < inputs.size(); ++t) EXPECT_EQ(got[t], want[t]) << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(Backends, Sorting, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
