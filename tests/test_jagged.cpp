// jf::jagged (Awkward's ListOffsetArray) against Awkward's own answers
// (tests/data/jagged_table.txt, written by tests/data/gen_jagged_table.py with awkward): num,
// flatten, event slicing and type strings of random lists (Poisson multiplicities, empty lists),
// all-empty, zero lists, one long list, offsets not starting at 0, int32 offsets, every dtype;
// round trips through nested vectors, unflatten, backends, and the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;

struct jagged_case {
  std::string label, dtype, off_dtype, start, stop;
  std::vector<std::string> offsets, content, num, flat, type;
};

std::vector<jagged_case> table() {
  std::vector<jagged_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/jagged_table.txt", 5))
    cases.push_back({t.header.at(0), t.header.at(1), t.header.at(2), t.header.at(3), t.header.at(4), t.lines[0],
                     t.lines[1], t.lines[2], t.lines[3], t.lines[4]});
  return cases;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

jf::slice_bound bound(const std::string& b) {
  if (b == "none") return jf::none;
  return jf::slice_bound(std::stoll(b));
}

// Awkward's lists: the flattened values split by the counts.
template <class T>
std::vector<std::vector<T>> lists_of(const std::vector<i64>& counts, const std::vector<T>& flat) {
  std::vector<std::vector<T>> out;
  std::size_t at = 0;
  for (i64 c : counts) {
    out.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at),
                     flat.begin() + static_cast<std::ptrdiff_t>(at + c));
    at += static_cast<std::size_t>(c);
  }
  return out;
}

class Jagged : public test_support::on_backends {
};

template <class T>
void check(const jagged_case& c, jf::device dev) {
  SCOPED_TRACE(c.label + " " + c.dtype + " offsets " + c.off_dtype + " [" + c.start + ":" + c.stop + "] of " +
               std::to_string(c.offsets.size()) + " offsets");
  const jf::array<T> content(test_support::parse_words<T>(c.content), dev);
  const std::vector<i64> off = test_support::parse_words<i64>(c.offsets);
  jf::jagged<T> whole =
      c.off_dtype == "int32"
          ? jf::jagged<T>(jf::array<std::int32_t>(test_support::parse_words<std::int32_t>(c.offsets), dev), content)
          : jf::jagged<T>(jf::array<i64>(off, dev), content);
  ASSERT_EQ(whole.offsets().to_vector(), off);
  ASSERT_EQ(jf::backend(whole), dev);
  const jf::jagged<T> x = c.label == "slice" ? whole(jf::range(bound(c.start), bound(c.stop))) : whole;
  if (c.label == "slice") {  // zero copy: the same content buffer, offsets a view of the same offsets (int32 too)
    EXPECT_EQ(x.content().buffer(), whole.content().buffer());
    EXPECT_EQ(x.stored_offsets().buffer(), whole.stored_offsets().buffer());
    EXPECT_EQ(x.stored_offsets().dtype(), c.off_dtype == "int32" ? jf::dtype::int32 : jf::dtype::int64);
  }
  const std::vector<i64> counts = test_support::parse_words<i64>(c.num);
  const std::vector<T> flat = test_support::parse_words<T>(c.flat);
  EXPECT_EQ(x.size(), static_cast<i64>(counts.size()));
  EXPECT_EQ(jf::num(x, 0).item(), x.size());
  EXPECT_EQ(jf::num(x, -2).item(), x.size());
  jf::array<i64> n = jf::num(x, 1);
  EXPECT_EQ(n.device(), dev);
  EXPECT_EQ(n.shape(), jf::shape_t{x.size()});
  EXPECT_EQ(n.to_vector(), counts);
  EXPECT_EQ(jf::num(x, -1).to_vector(), counts);
  const jf::array<T> f = jf::flatten(x);
  EXPECT_EQ(f.buffer(), x.content().buffer());  // a view
  EXPECT_EQ(f.to_vector(), flat);
  EXPECT_EQ(jf::type_string(x), joined(c.type));
  // Round trips: nested vectors, unflatten, backends.
  const std::vector<std::vector<T>> lists = lists_of(counts, flat);
  EXPECT_EQ(x.to_vector(), lists);
  const jf::jagged<T> rebuilt(lists, dev);
  EXPECT_EQ(rebuilt.to_vector(), lists);
  EXPECT_EQ(jf::num(rebuilt).to_vector(), counts);
  EXPECT_EQ(rebuilt.offsets().to_vector()[0], 0);
  const jf::jagged<T> un = jf::unflatten(f, jf::array<i64>(counts, dev));
  EXPECT_EQ(un.to_vector(), lists);
  EXPECT_EQ(jf::type_string(un), joined(c.type));
  const jf::jagged<T> host = jf::to_backend(x, jf::cpu);
  EXPECT_EQ(jf::backend(host), jf::cpu);
  EXPECT_EQ(host.to_vector(), lists);
}

TEST_P(Jagged, MatchesAwkward) {
  const std::vector<jagged_case> cases = table();
  ASSERT_GT(cases.size(), 80u);
  for (const jagged_case& c : cases) {
    test_support::with_dtype(c.dtype, [&]<class T>() { check<T>(c, dev()); });
  }
}

// Fresh random lists: every slice with bounds in [-n - 2, n + 2] against the nested vectors.
TEST_P(Jagged, RandomSlicesAgainstVectors) {
  for (i64 n : {0, 1, 7, 33}) {
    std::poisson_distribution<int> mult(2.0);
    std::vector<std::vector<float>> lists(static_cast<std::size_t>(n));
    for (auto& l : lists)
      for (int k = mult(test_support::rng()); k > 0; --k)
        l.push_back(static_cast<float>(test_support::rand_int(-99, 99)) / 4);
    const jf::jagged<float> x(lists, dev());
    ASSERT_EQ(x.to_vector(), lists);
    for (i64 a = -n - 2; a <= n + 2; ++a)
      for (i64 b = -n - 2; b <= n + 2; ++b) {
        const auto norm = [n](i64 v) { return std::clamp(v < 0 ? v + n : v, i64{0}, n); };
        const i64 lo = norm(a), hi = std::max(lo, norm(b));
        const std::vector<std::vector<float>> want(lists.begin() + lo, lists.begin() + hi);
        const jf::jagged<float> s = x(jf::range(a, b));
        ASSERT_EQ(s.to_vector(), want) << "n " << n << ", [" << a << ":" << b << "]";
        ASSERT_EQ(jf::num(s).size(), hi - lo);
        // A slice of a slice: offsets that start past 0 twice.
        ASSERT_EQ(s(jf::range(1, jf::none)).to_vector(),
                  std::vector<std::vector<float>>(want.begin() + std::min<i64>(1, hi - lo), want.end()));
      }
  }
}

TEST_P(Jagged, DefaultIsZeroLists) {
  const jf::jagged<double> x;
  EXPECT_EQ(x.size(), 0);
  EXPECT_EQ(jf::type_string(x), "0 * var * float64");
  EXPECT_EQ(jf::type_string(jf::jagged<bool>(std::vector<std::vector<bool>>{}, dev())), "0 * var * bool");
  EXPECT_EQ(jf::num(x).size(), 0);
  EXPECT_EQ(jf::flatten(x).size(), 0);
}

TEST_P(Jagged, BadOffsetsRaiseAwkwardsErrors) {
  const jf::array<double> content({0, 1, 2, 3, 4}, dev());
  using jf::value_error;
  const auto make = [&](std::vector<i64> off) { return jf::jagged<double>(jf::array<i64>(off, dev()), content); };
  EXPECT_EQ(message_of<value_error>([&] { make({}); }), "ListOffsetArray len(offsets) (0) must be >= 1");
  EXPECT_EQ(message_of<value_error>([&] {
              make({0, 3, 2});
            }),
            "jf::jagged: start[i] > stop[i] at i=1 (offsets[1] = 3, offsets[2] = 2, len(content) = 5)");
  EXPECT_EQ(message_of<value_error>([&] {
              make({0, 3, 7});
            }),
            "jf::jagged: stop[i] > len(content) at i=1 (offsets[1] = 3, offsets[2] = 7, len(content) = 5)");
  EXPECT_EQ(message_of<value_error>([&] {
              make({-1, 3});
            }),
            "jf::jagged: start[i] < 0 at i=0 (offsets[0] = -1, offsets[1] = 3, len(content) = 5)");
  // Zero lists: Awkward checks nothing; jetfuse still keeps the one offset inside the content.
  EXPECT_EQ(message_of<value_error>([&] { make({6}); }), "jf::jagged: offsets[-1] = 6 > len(content) = 5");
  EXPECT_EQ(message_of<value_error>([&] { make({-1}); }), "jf::jagged: offsets[0] = -1 < 0");
  EXPECT_EQ(message_of<value_error>([&] {
              jf::jagged<double>(jf::array<std::int32_t>({0, 4, 1}, dev()), content);
            }),
            "jf::jagged: start[i] > stop[i] at i=1 (offsets[1] = 4, offsets[2] = 1, len(content) = 5)");
  EXPECT_EQ(message_of<value_error>([&] {
              jf::jagged<double>(jf::array<i64>({0, 1, 2, 3}, {2, 2}, dev()), content);
            }),
            "jf::jagged: offsets must be 1-dimensional, not of shape (2, 2)");
  EXPECT_EQ(message_of<value_error>([&] {
              jf::jagged<double>(jf::array<i64>({0, 1}, dev()), content.reshape({1, 5}));
            }),
            "jf::jagged: the content must be 1-dimensional in this version, not of shape (1, 5)");
  EXPECT_EQ(message_of<value_error>([&] { jf::jagged<double>(jf::array<i64>(), content); }),
            "jf::jagged: the offsets are a null handle (default-constructed)");
  const jf::jagged<double> x = make({0, 2, 5});
  EXPECT_EQ(message_of<value_error>([&] { x(jf::range(jf::none, jf::none, 2)); }),
            "jf::jagged: slices with a step other than 1 are not supported yet (they are not a view of the offsets); "
            "got step 2");
  EXPECT_EQ(message_of<jf::axis_error>([&] { jf::num(x, 2); }), "axis=2 exceeds the depth of this array (2)");
  EXPECT_EQ(message_of<jf::axis_error>([&] { jf::num(x, -3); }), "axis=-3 exceeds the depth of this array (2)");
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<double>>{{0, 1}, {2, 3, 4}}));  // untouched
}

TEST_P(Jagged, UnflattenChecksTheCounts) {
  const jf::array<float> content({1, 2, 3, 4, 5}, dev());
  EXPECT_EQ(jf::unflatten(content, jf::array<std::int32_t>({2, 0, 3}, dev())).to_vector(),
            (std::vector<std::vector<float>>{{1, 2}, {}, {3, 4, 5}}));
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::unflatten(content, jf::array<i64>({2, 2}, dev()));
            }),
            "structure imposed by 'counts' does not fit in the array or partition at axis=0 (the counts add up to 4, "
            "the content has 5 elements)");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::unflatten(content, jf::array<i64>(std::vector<i64>{}, dev())); }),
            "structure imposed by 'counts' does not fit in the array or partition at axis=0 (the counts add up to 0, "
            "the content has 5 elements)");
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::unflatten(content, jf::array<i64>({2, -1, 4}, dev()));
            }),
            "jf::unflatten: counts must not be negative (the offsets would decrease); the smallest is -1");
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::unflatten(content, jf::array<i64>({2, 3}, {1, 2}, dev()));
            }),
            "counts must be an integer or a one-dimensional array of integers");
  EXPECT_EQ(
      jf::unflatten(jf::array<float>(std::vector<float>{}, dev()), jf::array<i64>(std::vector<i64>{}, dev())).size(),
      0);
}

// The user guide's example, as written there.
TEST_P(Jagged, UserGuideExample) {
  jf::jagged<double> x({{0, 1.1, 2.2}, {}, {3.3, 4.4}}, dev());
  EXPECT_EQ(jf::type_string(x), "3 * var * float64");
  EXPECT_EQ(jf::num(x, 1).to_vector(), (std::vector<i64>{3, 0, 2}));
  EXPECT_EQ(jf::num(x, 0).item(), 3);
  EXPECT_EQ(jf::flatten(x).to_vector(), (std::vector<double>{0, 1.1, 2.2, 3.3, 4.4}));
  EXPECT_EQ(x(jf::range(1, jf::none)).to_vector(), (std::vector<std::vector<double>>{{}, {3.3, 4.4}}));
  EXPECT_EQ(jf::type_string(x(jf::range(1, jf::none))), "2 * var * float64");
}

TEST(JaggedBackends, MixingBackendsRaises) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: no second backend to mix";
  const jf::array<i64> off({0, 1, 3}, jf::cpu);
  const jf::array<double> content({1, 2, 3}, jf::cuda);
  EXPECT_EQ(message_of<jf::backend_mismatch>([&] { jf::jagged<double>(off, content); }),
            "jf::jagged: the offsets are on cpu and the content on cuda:0; move them with jf::to_backend");
  EXPECT_EQ(message_of<jf::backend_mismatch>([&] {
              jf::unflatten(content, jf::array<i64>({1, 2}, jf::cpu));
            }),
            "jf::unflatten: the content is on cuda:0 and the counts on cpu; move them with jf::to_backend");
  const jf::jagged<double> x = jf::to_backend(jf::jagged<double>(jf::to_backend(off, jf::cuda), content), jf::cpu);
  EXPECT_EQ(jf::backend(x), jf::cpu);
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<double>>{{1}, {2, 3}}));
}

INSTANTIATE_TEST_SUITE_P(Backends, Jagged, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
