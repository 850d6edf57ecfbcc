// jf::searchsorted on every backend against numpy's answers (tests/data/searchsorted_table.txt,
// written by tests/data/gen_searchsorted_table.py: sorted arrays with duplicates, NaN, +-inf, +-0,
// mixed dtypes compared in numpy's promoted dtype, both sides, empty arrays), fused with producers
// and consumers (binning by arbitrary edges in one evaluation), views, and the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;

struct search_case {
  std::string da, dv, side;
  std::vector<std::string> a, v;
  std::vector<i64> expected;
};

std::vector<search_case> table() {
  std::vector<search_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/searchsorted_table.txt", 3)) {
    search_case c{t.header.at(0), t.header.at(1), t.header.at(2), t.lines[0], t.lines[1], {}};
    for (i64 x : test_support::parse_words<i64>(t.lines[2])) c.expected.push_back(x);
    EXPECT_EQ(c.a.size(), std::stoul(t.header.at(3)));
    EXPECT_EQ(c.v.size(), std::stoul(t.header.at(4)));
    cases.push_back(std::move(c));
  }
  return cases;
}

template <class T> jf::array<T> parse(const std::vector<std::string>& words, jf::device dev) {
  return jf::array<T>(test_support::parse_words<T>(words), dev);
}

template <class A, class V> void check(const search_case& c, jf::device dev) {
  const jf::array<A> a = parse<A>(c.a, dev);
  const jf::array<V> v = parse<V>(c.v, dev);
  jf::array<i64> r = jf::full<i64>({static_cast<i64>(c.v.size())}, -7, dev);  // poisoned
  if (c.side == "left") r = jf::searchsorted(a, v);
  else r = jf::searchsorted(a, v, jf::side::right);
  const std::vector<i64> got = r.to_vector();
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(got[k], c.expected[k]) << c.da << " a, " << c.dv << " v, side " << c.side << ", len(a) " << c.a.size()
                                     << ": v[" << k << "] = " << c.v[k];
}

template <class A> void dispatch(const search_case& c, jf::device dev) {
  if (c.dv == "float64") check<A, double>(c, dev);
  else if (c.dv == "float32") check<A, float>(c, dev);
  else if (c.dv == "int64") check<A, i64>(c, dev);
  else if (c.dv == "int32") check<A, std::int32_t>(c, dev);
  else if (c.dv == "bool") check<A, bool>(c, dev);
  else FAIL() << "unknown dtype " << c.dv;
}

class SearchSorted : public test_support::on_backends {
};

TEST_P(SearchSorted, MatchesNumpy) {
  const std::vector<search_case> cases = table();
  ASSERT_GT(cases.size(), 50u);
  for (const search_case& c : cases) {
    if (c.da == "float64") dispatch<double>(c, dev());
    else if (c.da == "float32") dispatch<float>(c, dev());
    else if (c.da == "int64") dispatch<i64>(c, dev());
    else if (c.da == "int32") dispatch<std::int32_t>(c, dev());
    else if (c.da == "bool") dispatch<bool>(c, dev());
    if (HasFatalFailure()) return;
  }
}

TEST_P(SearchSorted, FusedViewsAndErrors) {
  // Histogram by irregular edges in one evaluation: numpy.bincount(numpy.searchsorted(edges, x * 2)).
  const jf::array<double> edges({0.0, 1.0, 10.0, 100.0}, dev());
  const jf::array<double> x({-1.0, 0.25, 0.5, 3.0, 7.0, 40.0, 60.0, 500.0}, dev());
  // x * 2 = -2 | 0.5 1 | 6 | 14 80 | 120 1000 (left side: 1 belongs with 0.5).
  const auto counts = jf::bincount(jf::searchsorted(edges, x * 2), 5);
  EXPECT_EQ(counts.to_vector(), (std::vector<i64>{1, 2, 1, 2, 2}));
  // A reversed view of a descending array is ascending: read in place with its negative stride.
  const jf::array<double> desc({9.0, 7.0, 5.0, 3.0, 1.0}, dev());
  const jf::array<double> asc = jf::flip(desc);
  EXPECT_EQ(jf::array<i64>(jf::searchsorted(asc, jf::array<double>({0.0, 3.0, 4.0, 9.5}, dev()))).to_vector(),
            (std::vector<i64>{0, 1, 2, 5}));
  EXPECT_EQ(jf::array<i64>(jf::searchsorted(asc, jf::array<double>({3.0}, dev()), jf::side::right)).to_vector(),
            (std::vector<i64>{2}));
  // 2-d values keep their shape.
  const jf::array<i64> m = jf::searchsorted(asc, jf::array<double>({{2.0, 8.0}, {6.0, 10.0}}, dev()));
  EXPECT_EQ(m.shape(), (jf::shape_t{2, 2}));
  EXPECT_EQ(m.to_vector(), (std::vector<i64>{1, 4, 3, 5}));
  EXPECT_EQ(message_of<jf::value_error>([&] {
              (void)jf::searchsorted(jf::zeros<double>({2, 2}, dev()), x);
            }),
            "object too deep for desired array");
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchSorted, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
