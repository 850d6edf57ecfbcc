// ak.sort / ak.argsort of jagged arrays (jetfuse/jagged_sorting.hpp): the CPU and jf::cuda against
// Awkward's own results (tests/data/jagged_sort_table.txt from gen_jagged_sort_table.py: NaN first
// in either direction, -0.0 and +0.0 in their order, integer extremes, empty lists, offsets not
// starting at 0, poison before them), the GPU against the CPU on random lists (sizes 0 to 10^5, a
// 70000-element list, sliced offsets, strided content), and Awkward's axis errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <string>
#include <vector>

#include "core/offsets_registry.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

struct sort_case {
  std::string dtype, dataset, op;
  std::vector<std::string> offsets, content, result;
};

std::vector<sort_case> table() {
  std::vector<sort_case> out;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/jagged_sort_table.txt", 3))
    out.push_back(sort_case{t.header.at(0), t.header.at(1), t.header.at(2), test_support::values_of(t.lines[0]),
                            test_support::values_of(t.lines[1]), test_support::values_of(t.lines[2])});
  return out;
}

// Equal as Awkward's answer means: the same bits for numbers (so -0.0 is not +0.0), any NaN for NaN.
template <class T> bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <class T> std::vector<T> parse(const std::vector<std::string>& words) {
  std::vector<T> v;
  for (const std::string& w : words) {
    if constexpr (std::is_floating_point_v<T>)
      v.push_back(static_cast<T>(std::strtod(w.c_str(), nullptr)));
    else
      v.push_back(static_cast<T>(std::strtoll(w.c_str(), nullptr, 10)));
  }
  return v;
}

template <class T> void check_case(const sort_case& c, jf::device dev) {
  const std::vector<i64> off = parse<i64>(c.offsets);
  std::vector<T> content(static_cast<std::size_t>(off.front()), T(1));  // poison before the lists
  if constexpr (std::is_floating_point_v<T>)
    std::fill(content.begin(), content.end(), std::numeric_limits<T>::quiet_NaN());
  for (T v : parse<T>(c.content)) content.push_back(v);
  const jf::jagged<T> x(jf::array<i64>(off, dev), jf::array<T>(content, dev));
  const bool ascending = c.op.ends_with("_asc");
  const jf::sort_order order = ascending ? jf::sort_order::ascending : jf::sort_order::descending;
  const std::string where = c.dtype + " " + c.dataset + " " + c.op + " on " + jf::to_string(dev);

  jf::array<i64> offsets;
  std::vector<std::string> got_words;
  if (c.op.starts_with("sort")) {
    const jf::jagged<T> r = jf::sort(x, -1, order);
    offsets = r.offsets();
    const std::vector<T> got = r.content().to_vector(), want = parse<T>(c.result);
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(same(got[i], want[i])) << where << ": element " << i << " is " << +got[i] << ", Awkward "
                                         << c.result[i];
  } else {
    const jf::jagged<i64> r = jf::argsort(x, -1, order);
    offsets = r.offsets();
    EXPECT_EQ(r.content().to_vector(), parse<i64>(c.result)) << where;
  }
  std::vector<i64> rebased = off;
  for (auto& o : rebased) o -= off.front();
  EXPECT_EQ(offsets.to_vector(), rebased) << where;
}

void run_table(jf::device dev) {
  const std::vector<sort_case> cases = table();
  ASSERT_EQ(cases.size(), 100u);
  for (const sort_case& c : cases) {
    if (c.dtype == "float64") check_case<double>(c, dev);
    else if (c.dtype == "float32") check_case<float>(c, dev);
    else if (c.dtype == "int32") check_case<std::int32_t>(c, dev);
    else if (c.dtype == "int64") check_case<i64>(c, dev);
    else if (c.dtype == "bool") check_case<bool>(c, dev);
    else ADD_FAILURE() << "unknown dtype " << c.dtype;
  }
}

TEST(JaggedSort, MatchesAwkwardCpu) { run_table(jf::cpu); }
TEST(JaggedSort, MatchesAwkwardCuda) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  run_table(jf::cuda);
}

TEST(JaggedSort, SharesOffsetsStartingAtZero) {
  const jf::jagged<float> x(std::vector<std::vector<float>>{{3, 1, 2}, {}, {5, 4}});
  const jf::jagged<float> s = jf::sort(x);
  EXPECT_EQ(static_cast<const void*>(s.offsets().data()), static_cast<const void*>(x.offsets().data()));
  EXPECT_EQ(s.to_vector(), (std::vector<std::vector<float>>{{1, 2, 3}, {}, {4, 5}}));
  // The result's lists are x's: they broadcast with x (x - sort(x) is element-wise).
  const jf::jagged<float> d = x - s;
  EXPECT_EQ(d.to_vector(), (std::vector<std::vector<float>>{{2, -1, -1}, {}, {1, -1}}));
  const jf::jagged<float> tail = x(jf::range(2, jf::range::none));
  const jf::jagged<std::int64_t> a = jf::argsort(tail, -1, jf::sort_order::descending);
  EXPECT_EQ(a.to_vector(), (std::vector<std::vector<std::int64_t>>{{0, 1}}));
  EXPECT_EQ(a.offsets().to_vector(), (std::vector<std::int64_t>{0, 2}));
}

TEST(JaggedSort, AxisErrors) {
  const jf::jagged<double> x(std::vector<std::vector<double>>{{1, 2}, {3}});
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)jf::sort(x, 2); }),
            "axis=2 exceeds the depth of the nested list structure (which is 2)");
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)jf::argsort(x, -3); }),
            "axis=-3 exceeds the depth of the nested list structure (which is 2)");
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::sort(x, 0); }).find("across lists"),
            std::string::npos);
  EXPECT_EQ(jf::sort(x, 1).to_vector(), x.to_vector());  // axis=1 is axis=-1 at depth 2
}

// Random lists with Poisson lengths, empty lists, one long list; values with ties, NaN and signed
// zeros; the GPU's result bit-for-bit the CPU's (stable sorts: one answer).
template <class T> jf::jagged<T> random_lists(i64 lists, i64 long_list, jf::device dev, bool strided) {
  std::vector<i64> off{0};
  for (i64 i = 0; i < lists; ++i) {
    i64 n = i == long_list ? 70000 : std::poisson_distribution<i64>(3)(test_support::rng());
    if (i % 11 == 5) n = 0;
    off.push_back(off.back() + n);
  }
  std::vector<T> v(static_cast<std::size_t>(off.back()) * (strided ? 2 : 1));
  for (auto& e : v) {
    const i64 r = test_support::rand_int(-40, 40);
    if constexpr (std::is_floating_point_v<T>)
      e = r == 40 ? std::numeric_limits<T>::quiet_NaN() : r == 39 ? T(-0.0) : static_cast<T>(r) / 4;
    else
      e = static_cast<T>(r);
  }
  jf::array<T> content(v, dev);
  if (strided) content = content(jf::range(0, jf::range::none, 2));
  return jf::jagged<T>(jf::array<i64>(off, dev), content);
}

// Lists of at most 16 take jf::cuda's thread-a-list path, lists with a longer one CUB's (both tried
// at 100003 lists).
template <class T> void gpu_matches_cpu() {
  for (i64 lists : {0, 1, 7, 1000, 100003, -100003})
    for (bool strided : {false, true}) {
      const jf::jagged<T> g = random_lists<T>(std::abs(lists), lists < 0 ? -lists / 2 : -1, jf::cuda, strided);
      const jf::jagged<T> c = jf::to_backend(g, jf::cpu);
      for (bool sliced : {false, true})
        for (jf::sort_order o : {jf::sort_order::ascending, jf::sort_order::descending}) {
          const jf::range r = sliced ? jf::range(lists / 3, jf::range::none) : jf::range();
          const std::string where = std::to_string(lists) + " lists" + (strided ? " strided" : "") +
                                    (sliced ? " sliced" : "") +
                                    (o == jf::sort_order::ascending ? " ascending" : " descending");
          const std::vector<T> gs = jf::sort(g(r), -1, o).content().to_vector(),
                               cs = jf::sort(c(r), -1, o).content().to_vector();
          ASSERT_EQ(gs.size(), cs.size()) << where;
          for (std::size_t i = 0; i < gs.size(); ++i) ASSERT_TRUE(same(gs[i], cs[i])) << where << " at " << i;
          EXPECT_EQ(jf::argsort(g(r), -1, o).content().to_vector(), jf::argsort(c(r), -1, o).content().to_vector())
              << where;
        }
    }
}

// Short lists (lengths 0 to 16, ties, NaN and signed zeros) of every dtype, offsets not starting at
// 0, content strided: the thread-a-list path's sort and argsort have the bits of CUB's path, taken
// for the same lists followed by one list of 17 (on jf::cpu: one path, the same check of lists
// sorted each on its own), and the CPU's answer.
template <class T>
void short_lists_as_general_path(jf::device dev) {
  std::vector<i64> off{3};  // three poison elements before the first list
  for (i64 i = 0; i < 5001; ++i) off.push_back(off.back() + (i % 7 == 0 ? 16 : test_support::rand_int(0, 16)));
  const i64 total = off.back();
  std::vector<T> v(static_cast<std::size_t>(total + 17) * 2);
  for (auto&& e : v) {
    const i64 r = test_support::rand_int(-8, 8);
    if constexpr (std::is_floating_point_v<T>)
      e = r == 8   ? std::numeric_limits<T>::quiet_NaN()
          : r == 7 ? -std::numeric_limits<T>::quiet_NaN()
          : r == 6 ? T(-0.0)
                   : static_cast<T>(r) / 2;
    else if constexpr (std::is_same_v<T, bool>)
      e = r > 0;
    else
      e = static_cast<T>(r);  // (wraps to the top of the unsigned types: large keys too)
  }
  const jf::array<T> content = jf::array<T>(v, dev)(jf::range(0, jf::range::none, 2));
  std::vector<i64> longer = off;
  longer.push_back(total + 17);
  const jf::jagged<T> x(jf::array<i64>(off, dev), content), with_long(jf::array<i64>(longer, dev), content);
  const jf::jagged<T> c = jf::to_backend(x, jf::cpu);
  const std::string where = std::string(jf::name(jf::dtype_v<T>)) + " on " + jf::to_string(dev);
  const auto bits = [](const std::vector<T>& a, const std::vector<T>& b, std::size_t n) {
    if (a.size() < n || b.size() < n) return false;
    for (std::size_t i = 0; i < n; ++i) {
      const T p = a[i], q = b[i];  // (std::vector<bool> has no data())
      if (std::memcmp(&p, &q, sizeof(T)) != 0) return false;
    }
    return true;
  };
  for (jf::sort_order o : {jf::sort_order::ascending, jf::sort_order::descending}) {
    const std::vector<T> got = jf::sort(x, -1, o).content().to_vector();
    const std::vector<T> general = jf::sort(with_long, -1, o).content().to_vector();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(total - 3)) << where;
    EXPECT_TRUE(bits(got, general, got.size())) << where << " sort";
    const std::vector<T> cpu = jf::sort(c, -1, o).content().to_vector();
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(same(got[i], cpu[i])) << where << " at " << i;
    const std::vector<i64> order = jf::argsort(x, -1, o).content().to_vector();
    std::vector<i64> order_general = jf::argsort(with_long, -1, o).content().to_vector();
    order_general.resize(order.size());
    EXPECT_EQ(order, order_general) << where << " argsort";
    EXPECT_EQ(order, jf::argsort(c, -1, o).content().to_vector()) << where << " argsort";
  }
}

void short_lists_every_dtype(jf::device dev) {
  (void)test_support::seed();
  short_lists_as_general_path<bool>(dev);
  short_lists_as_general_path<std::int8_t>(dev);
  short_lists_as_general_path<std::int16_t>(dev);
  short_lists_as_general_path<std::int32_t>(dev);
  short_lists_as_general_path<i64>(dev);
  short_lists_as_general_path<std::uint8_t>(dev);
  short_lists_as_general_path<std::uint16_t>(dev);
  short_lists_as_general_path<std::uint32_t>(dev);
  short_lists_as_general_path<std::uint64_t>(dev);
  short_lists_as_general_path<float>(dev);
  short_lists_as_general_path<double>(dev);
}

TEST(JaggedSort, ShortListsEveryDtypeCpu) { short_lists_every_dtype(jf::cpu); }
TEST(JaggedSortGpu, ShortListsEveryDtypeAsTheGeneralPath) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  short_lists_every_dtype(jf::cuda);
}

// A bound of the longest list that does not hold (offsets written after the jagged array was made,
// which jetfuse does not support) still sorts exactly: the thread-a-list kernel sorts a longer list
// on its slow path rather than its first 16 elements.
TEST(JaggedSortGpu, ShortPathWithABoundThatDoesNotHold) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  (void)test_support::seed();
  std::vector<i64> off{0};
  for (i64 len : {3, 40, 0, 17, 16, 1000, 5}) off.push_back(off.back() + len);
  std::vector<double> v(static_cast<std::size_t>(off.back()));
  for (auto& e : v) {
    const i64 r = test_support::rand_int(-6, 6);
    e = r == 6 ? std::numeric_limits<double>::quiet_NaN() : r == 5 ? -0.0 : static_cast<double>(r) / 2;
  }
  const jf::jagged<double> x(jf::array<i64>(off, jf::cuda), jf::array<double>(v, jf::cuda));
  const jf::jagged<double> c = jf::to_backend(x, jf::cpu);
  jf::detail::remember_offsets_longest(x.offsets(), 16);  // a bound that is wrong: the longest is 1000
  ASSERT_EQ(jf::detail::offsets_longest(x.offsets()), 16);
  for (jf::sort_order o : {jf::sort_order::ascending, jf::sort_order::descending}) {
    const std::vector<double> got = jf::sort(x, -1, o).content().to_vector(),
                              want = jf::sort(c, -1, o).content().to_vector();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(same(got[i], want[i])) << "element " << i;
    EXPECT_EQ(jf::argsort(x, -1, o).content().to_vector(), jf::argsort(c, -1, o).content().to_vector());
  }
}

TEST(JaggedSortGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  (void)test_support::seed();
  gpu_matches_cpu<float>();
  gpu_matches_cpu<double>();
  gpu_matches_cpu<std::int32_t>();
  gpu_matches_cpu<i64>();
}

}  // namespace
