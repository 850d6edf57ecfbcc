// Combinations of jagged arrays (include/jetfuse/combinations.hpp, the pairs domain of
// src/engine/evaluate_lists.cpp, the CPU list executor and the CUDA pairs kernels): per-list
// reductions over ak.combinations of records — the seeds' dielectron mass, its opposite-charge
// mask, argmin/argmax ranks in Awkward's order, sums, counts, a per-list value, triples, a sum
// over every pair, pairs and triples materialised (ak.argcombinations) and printed (str, repr and
// type of ak.combinations / ak.argcombinations, combinations_print.hpp) — against Awkward's own
// answers (tests/data/combinations_table.txt, written by tests/data/gen_combinations_table.py), the
// errors, and jf::cuda against jf::cpu on fresh random events (printed seed) with empty lists,
// heavy tails, a long list and offsets not at 0.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "awkward_values.hpp"
#include "jetfuse/jetfuse.hpp"
#include "pair_mass_check.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

struct combo_case {
  std::string dataset, op;
  std::vector<std::string> offsets, pt, eta, phi, charge, values, result_dtype;
};

std::vector<combo_case> table() {
  std::vector<combo_case> out;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/combinations_table.txt", 7))
    out.push_back(combo_case{t.header.at(0), t.header.at(1), test_support::values_of(t.lines[0]),
                             test_support::values_of(t.lines[1]), test_support::values_of(t.lines[2]),
                             test_support::values_of(t.lines[3]), test_support::values_of(t.lines[4]),
                             test_support::values_of(t.lines[5]), t.lines[6]});
  return out;
}

// The events of a case: the fields from offsets[0] on, poison before (never read).
struct events {
  jf::jagged_record ev;
  jf::array<float> met;
};
template <class T>
jf::array<T> with_poison(const std::vector<std::string>& words, i64 first, T poison, jf::device dev) {
  std::vector<T> v(static_cast<std::size_t>(first), poison);
  for (T x : test_support::parse_words<T>(words)) v.push_back(x);
  return jf::array<T>(v, dev);
}
events events_of(const combo_case& c, jf::device dev) {
  const std::vector<i64> off = test_support::parse_words<i64>(c.offsets);
  const jf::array<i64> offsets(off, dev);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto field = [&](const std::vector<std::string>& w) {
    return jf::jagged<float>(offsets, with_poison<float>(w, off[0], nan, dev));
  };
  const jf::jagged<std::int32_t> charge(offsets, with_poison<std::int32_t>(c.charge, off[0], 7777, dev));
  std::vector<float> met;
  for (std::size_t i = 0; i + 1 < off.size(); ++i) met.push_back(static_cast<float>(i) / 4 - 2);
  return {jf::zip({{"pt", field(c.pt)}, {"eta", field(c.eta)}, {"phi", field(c.phi)}, {"charge", charge}}),
          jf::array<float>(met, dev)};
}

using test_support::joined;
using test_support::mass;        // the dielectron mass of two slots (pair_mass_check.hpp)
using test_support::same_value;  // Awkward's value against ours (awkward_values.hpp)
template <class R>
void expect_values(const combo_case& c, const std::vector<std::optional<R>>& got, double rel = 0) {
  EXPECT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.result_dtype.at(0));
  ASSERT_EQ(got.size(), c.values.size());
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same_value<R>(c.values[k], got[k], rel)) << "at " << k;
}
template <class R>
void expect_dense(const combo_case& c, const jf::array<R>& y) {
  const std::vector<R> v = y.to_vector();
  expect_values<R>(c, std::vector<std::optional<R>>(v.begin(), v.end()));
}

constexpr double mass_rel = 1e-5;

// Awkward's text and type (awkward_values.hpp), and str also through operator<<.
template <class X>
void expect_printed(const combo_case& c, const X& x) {
  test_support::expect_printed(c, x);
  if (c.op.rfind("repr_", 0) != 0) {
    std::ostringstream os;
    os << x;
    EXPECT_EQ(os.str(), joined(c.values));
  }
}
bool print_case(const combo_case& c, const events& e) {
  const std::string& op = c.op;
  if (op.rfind("print_", 0) != 0 && op.rfind("repr_", 0) != 0) return false;
  const int n = op.find("triples") != std::string::npos ? 3 : 2;
  if (op.find("arg") != std::string::npos)
    expect_printed(c, jf::argcombinations(e.ev, n));
  else if (op.find("records") != std::string::npos)
    expect_printed(c, jf::combinations(e.ev, n));
  else
    expect_printed(c, jf::combinations(e.ev.field<float>("pt"), n));
  return true;
}

void run_case(const combo_case& c, jf::device dev) {
  SCOPED_TRACE(c.dataset + " " + c.op);
  const events e = events_of(c, dev);
  const std::string& op = c.op;
  if (print_case(c, e)) return;
  if (op.rfind("argcombinations3_", 0) == 0)
    return expect_dense(c, jf::flatten(jf::argcombinations(e.ev, 3).slot(op.back() - '0')));
  if (op.find("triple") != std::string::npos) {
    auto [a, b, t] = jf::unzip<3>(jf::combinations(e.ev, 3));
    const auto pa = a.field<float>("pt");
    const auto pb = b.field<float>("pt");
    const auto pc = t.field<float>("pt");
    const auto ec = t.field<float>("eta");
    if (op == "max_triple_pt")
      return expect_values<float>(c, jf::option_array<float>(jf::max(pa + pb + pc, -1)).to_vector());
    // 280840 triples in the long list: a float32 sum past 2^24, rounded in another order than numpy's.
    if (op == "sum_triple") {
      const std::vector<float> v = jf::array<float>(jf::sum(pa * pb - ec, -1)).to_vector();
      return expect_values<float>(c, std::vector<std::optional<float>>(v.begin(), v.end()), 1e-4);
    }
    if (op == "argmax_triple")
      return expect_values<i64>(c, jf::option_array<i64>(jf::argmax(pa - pb + pc, -1)).to_vector());
    // Materialised on request (count -> scan -> fill), as pairs are.
    if (op == "triples_flat") return expect_dense(c, jf::flatten(jf::jagged<float>(pa * pb - ec)));
    if (op == "triples_counts") return expect_dense(c, jf::num(jf::jagged<float>(pa)));
  }
  auto [e1, e2] = jf::unzip(jf::combinations(e.ev, 2));
  const auto pt1 = e1.field<float>("pt");
  const auto pt2 = e2.field<float>("pt");
  const auto eta1 = e1.field<float>("eta");
  const auto q1 = e1.field<std::int32_t>("charge");
  const auto q2 = e2.field<std::int32_t>("charge");
  const auto m = mass(e1, e2);
  if (op == "max_mass") return expect_values<float>(c, jf::eval(jf::max(m, -1)).to_vector(), mass_rel);
  if (op == "max_mass_os") return expect_values<float>(c, jf::eval(jf::max(m(q1 != q2), -1)).to_vector(), mass_rel);
  if (op == "sum_ptpt") return expect_dense(c, jf::eval(jf::sum(pt1 * pt2, -1)));
  if (op == "sum_ptpt_os") return expect_dense(c, jf::eval(jf::sum((pt1 * pt2)(q1 != q2), -1)));
  if (op == "argmax_exact") return expect_values<i64>(c, jf::eval(jf::argmax(pt1 * pt2 - eta1, -1)).to_vector());
  if (op == "argmin_exact") return expect_values<i64>(c, jf::eval(jf::argmin(pt1 + pt2, -1)).to_vector());
  // Positions among the selected pairs (the selection materialised, then the per-list argmax).
  if (op == "argmax_exact_os")
    return expect_values<i64>(c, jf::eval(jf::argmax((pt1 * pt2 - eta1)(q1 != q2), -1)).to_vector());
  if (op == "argmin_exact_os")
    return expect_values<i64>(c, jf::eval(jf::argmin((pt1 + pt2)(q1 != q2), -1)).to_vector());
  if (op == "argmax_ptpt_ordered")
    return expect_values<i64>(c, jf::eval(jf::argmax((pt1 * pt2)(pt1 > pt2), -1)).to_vector());
  if (op == "count_ordered") return expect_dense(c, jf::eval(jf::count_nonzero(pt1 > pt2, -1)));
  if (op == "any_same_charge") return expect_dense(c, jf::eval(jf::any(q1 == q2, -1)));
  if (op == "min_dpt_met") return expect_values<float>(c, jf::eval(jf::min(pt1 - pt2 + e.met, -1)).to_vector());
  if (op == "sum_all") return expect_dense(c, jf::eval(jf::sum(pt1 * pt2)));
  // Materialised on request: every pair's value (count -> scan -> fill), argcombinations.
  if (op == "pairs_flat") return expect_dense(c, jf::flatten(jf::jagged<float>(pt1 * pt2 + eta1)));
  if (op == "pairs_counts") return expect_dense(c, jf::num(jf::jagged<float>(pt1)));
  if (op == "pairs_os_flat") return expect_dense(c, jf::flatten(jf::jagged<float>((pt1 - pt2)(q1 != q2))));
  if (op == "pairs_os_counts") return expect_dense(c, jf::num(jf::jagged<float>((pt1 - pt2)(q1 != q2))));
  if (op == "argcombinations_0") return expect_dense(c, jf::flatten(jf::argcombinations(e.ev, 2).slot(0)));
  if (op == "argcombinations_1")
    return expect_dense(c, jf::flatten(std::get<1>(jf::unzip(jf::argcombinations(e.ev, 2)))));
  ADD_FAILURE() << "unknown op " << op;
}

class Combinations : public test_support::on_backends {};

TEST_P(Combinations, MatchesAwkward) {
  const std::vector<combo_case> cases = table();
  ASSERT_GT(cases.size(), 280u);
  for (const combo_case& c : cases) run_case(c, dev());
}

// A small event set of known values (the first test's tables aside): both unzip forms agree.
TEST_P(Combinations, PlainJaggedAndRecordSlotsAgree) {
  const jf::jagged<float> pt(std::vector<std::vector<float>>{{3, 1, 2}, {}, {5}, {1, 4}}, dev());
  auto [a, b] = jf::unzip(jf::combinations(pt, 2));
  EXPECT_EQ(jf::option_array<float>(jf::max(a * b, -1)).to_vector(),
            (std::vector<std::optional<float>>{6.f, std::nullopt, std::nullopt, 4.f}));
  EXPECT_EQ(jf::array<float>(jf::sum(a - b, -1)).to_vector(), (std::vector<float>{2.f, 0.f, 0.f, -3.f}));
  // Masked: pairs whose first element is the larger; the per-list count of pairs.
  EXPECT_EQ(jf::option_array<float>(jf::min((a + b)(a > b), -1)).to_vector(),
            (std::vector<std::optional<float>>{4.f, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(jf::array<i64>(jf::count_nonzero(a == a, -1)).to_vector(), (std::vector<i64>{3, 0, 0, 1}));
  auto ev = jf::zip({{"pt", pt}});
  auto [r1, r2] = jf::unzip(jf::combinations(ev, 2));
  EXPECT_EQ(jf::option_array<i64>(jf::argmax(r1.field<float>("pt") * r2.field<float>("pt"), -1)).to_vector(),
            (std::vector<std::optional<i64>>{1, std::nullopt, std::nullopt, 0}));
}

// y = x(mask) materialised (Awkward's x[mask] of a jagged mask), and a masked reduction.
TEST_P(Combinations, JaggedMaskMaterialisedAndReduced) {
  const jf::jagged<float> x(std::vector<std::vector<float>>{{1, 25, 3, 40}, {}, {30}, {2, 4}, {21, 22}}, dev());
  const jf::jagged<float> y = x(x > 20.f);
  EXPECT_EQ(y.to_vector(), (std::vector<std::vector<float>>{{25, 40}, {}, {30}, {}, {21, 22}}));
  const jf::jagged<float> z = (x * 2)(x < 20.f);
  EXPECT_EQ(z.to_vector(), (std::vector<std::vector<float>>{{2, 6}, {}, {}, {4, 8}, {}}));
  const jf::jagged<bool> m = x > 2.f;
  const jf::jagged<float> w = x(m);
  EXPECT_EQ(w.to_vector(), (std::vector<std::vector<float>>{{25, 3, 40}, {}, {30}, {4}, {21, 22}}));
  EXPECT_EQ(jf::option_array<float>(jf::max(x(x < 20.f), -1)).to_vector(),
            (std::vector<std::optional<float>>{3.f, std::nullopt, std::nullopt, 4.f, std::nullopt}));
  EXPECT_EQ(jf::array<float>(jf::sum(x(x > 20.f) * 2, -1)).to_vector(), (std::vector<float>{130, 0, 60, 0, 86}));
  EXPECT_EQ(jf::array<float>(jf::mean(x(x > 20.f), -1))(jf::range(0, 1)).to_vector(), (std::vector<float>{32.5f}));
  // A mask of other lists: Awkward's broadcasting error.
  const jf::jagged<bool> other(std::vector<std::vector<bool>>{{true}, {}, {true}, {true, false}, {true, true}}, dev());
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { jf::jagged<float> v = x(other); }).find("cannot broadcast"),
            std::string::npos);
}

TEST_P(Combinations, Errors) {
  const jf::jagged<float> x(std::vector<std::vector<float>>{{1, 2, 3}, {4}}, dev());
  const jf::jagged<float> y(std::vector<std::vector<float>>{{1, 2}, {4, 5}}, dev());
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::combinations(x, 4); }).find("n=4"),
            std::string::npos);
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::unzip<3>(jf::combinations(x, 2)); }).find("unzip<2>"),
      std::string::npos);
  auto [a, b] = jf::unzip(jf::combinations(x, 2));
  // A pair's value is not an element's: Awkward's broadcasting error.
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::eval(jf::sum(a + x, -1)); }).find("cannot broadcast"),
      std::string::npos);
  // Combinations of lists of other lengths.
  auto [c, d] = jf::unzip(jf::combinations(y, 2));
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::eval(jf::sum(a * c, -1)); }).find("cannot broadcast"),
      std::string::npos);
  // Fields of pairs and of triples of the same lists in one materialised value; unzip<2> of triples.
  auto [t1, t2, t3] = jf::unzip<3>(jf::combinations(x, 3));
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { jf::jagged<float> z = t1 * a; }).find("cannot broadcast"),
            std::string::npos);
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::unzip(jf::argcombinations(x, 3)); }).find("unzip<3>"),
      std::string::npos);
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::argcombinations(x, 4); }).find("n=4"),
            std::string::npos);
  // A masked value inside a result.
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { jf::jagged<float> z = x(x > 1.f) * 2; }).find("(x * 2)(mask)"),
      std::string::npos);
  // argmax of an expression of a masked value (jf::argmax((a * 2)(a > b), -1) is the supported form),
  // two different masks.
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)jf::eval(jf::argmax(a(a > b) * 2, -1));
            }).find("apply the mask last"),
            std::string::npos);
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)jf::eval(jf::sum(a(a > b) + b(a < b), -1));
            }).find("different masks"),
            std::string::npos);
  // Awkward's depth error.
  EXPECT_NE(
      test_support::message_of<jf::axis_error>([&] { (void)jf::eval(jf::sum(a * b, 2)); }).find("exceeds the depth"),
      std::string::npos);
}

// Triples materialised for lists up to 230 elements (2 million triples in the last), with empty
// and short lists between and offsets not at 0: every triple's local indices and a value of its
// fields against the host's enumeration in Awkward's order (the float root corrected exactly).
TEST_P(Combinations, TriplesMaterialisedMatchEnumeration) {
  const std::vector<i64> sizes{0, 3, 1, 2, 4, 0, 7, 57, 0, 120, 5, 230};
  std::vector<i64> off{2};
  for (i64 m : sizes) off.push_back(off.back() + m);
  std::vector<std::int32_t> v(static_cast<std::size_t>(off.back()));
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = static_cast<std::int32_t>(j * 7 % 1000);
  const jf::jagged<std::int32_t> x(jf::array<i64>(off, dev()), jf::array<std::int32_t>(v, dev()));
  std::vector<i64> want_i, want_j, want_k, want_counts;
  std::vector<std::int32_t> want_value;
  for (std::size_t l = 0; l + 1 < off.size(); ++l) {
    const i64 start = off[l], m = off[l + 1] - start;
    want_counts.push_back(m * (m - 1) * (m - 2) / 6);
    for (i64 i = 0; i < m; ++i)
      for (i64 j = i + 1; j < m; ++j)
        for (i64 k = j + 1; k < m; ++k) {
          want_i.push_back(i), want_j.push_back(j), want_k.push_back(k);
          const auto at = [&](i64 e) { return v[static_cast<std::size_t>(start + e)]; };
          want_value.push_back(at(i) * 1000000 + at(j) * 1000 - at(k));
        }
  }
  const auto [i, j, k] = jf::unzip<3>(jf::argcombinations(x, 3));
  EXPECT_EQ(jf::num(i).to_vector(), want_counts);
  EXPECT_EQ(jf::flatten(i).to_vector(), want_i);
  EXPECT_EQ(jf::flatten(j).to_vector(), want_j);
  EXPECT_EQ(jf::flatten(k).to_vector(), want_k);
  auto [a, b, c] = jf::unzip<3>(jf::combinations(x, 3));
  const jf::jagged<std::int32_t> value = a * 1000000 + b * 1000 - c;
  EXPECT_EQ(jf::num(value).to_vector(), want_counts);
  EXPECT_EQ(jf::flatten(value).to_vector(), want_value);
}

// Printing the combinations of a list of 3000 elements (4.5e9 triples, 4.5e6 pairs) gathers only
// the shown window: nothing is materialised. The expected texts are Awkward 2.14's (the pairs' repr
// and the small cases; Awkward cannot make the 4.5e9 triples: their first and last tuples).
TEST_P(Combinations, PrintingComputesOnlyTheWindow) {
  const jf::jagged<i64> x(jf::array<i64>(std::vector<i64>{0, 3000, 3000}, dev()), jf::arange<i64>(3000, dev()));
  const std::string triples = jf::to_string(jf::combinations(x, 3));
  EXPECT_EQ(triples.rfind("[[(0, 1, 2), (0, 1, 3), ", 0), 0u) << triples;
  EXPECT_EQ(triples.substr(triples.size() - 46), ", (2996, 2998, 2999), (2997, 2998, 2999)], []]") << triples;
  EXPECT_EQ(jf::type_string(jf::combinations(x, 3)), "2 * var * (int64, int64, int64)");
  EXPECT_EQ(jf::awkward_repr(jf::combinations(x, 2)),
            "<Array [[(0, 1), ..., (2998, 2999)], []] type='2 * var * (int64, int64)'>");
  // Tuples of short, empty and no lists.
  const jf::jagged<float> small(std::vector<std::vector<float>>{{1.5f, 2, 3}, {}, {4}}, dev());
  EXPECT_EQ(jf::to_string(jf::combinations(small, 2)), "[[(1.5, 2), (1.5, 3), (2, 3)], [], []]");
  EXPECT_EQ(jf::to_string(jf::argcombinations(small, 3)), "[[(0, 1, 2)], [], []]");
  jf::detail::show_options all;
  all.type = all.nbytes = all.backend = true;
  EXPECT_EQ(jf::show(jf::argcombinations(small, 2), all),
            "type: 3 * var * (\n    int64,\n    int64\n)\nnbytes: 80 B\nbackend: " +
                jf::detail::awkward_backend_name(dev()) + "\n[[(0, 1), (0, 2), (1, 2)],\n [],\n []]");
  EXPECT_EQ(jf::to_string(jf::cartesian(small, small)),
            "[[(1.5, 1.5), (1.5, 2), (1.5, 3), (...), ..., (3, 1.5), (3, 2), (3, 3)], ...]");
  EXPECT_EQ(jf::to_string(jf::combinations(small(jf::range(0, 0)), 2)), "[]");
}

INSTANTIATE_TEST_SUITE_P(Backends, Combinations, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// Random events like the seed's (Poisson multiplicities, a heavy tail, one long event, empty
// events, offsets not starting at 0): jf::cuda equals jf::cpu, the reference.
TEST(CombinationsGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& rng = test_support::rng();
  for (const i64 n : {i64{0}, i64{1}, i64{7}, i64{1000}, i64{300001}}) {
    SCOPED_TRACE("events " + std::to_string(n));
    std::poisson_distribution<int> mult(1.5);
    std::vector<i64> off{3};
    for (i64 i = 0; i < n; ++i) {
      i64 k = mult(rng);
      if (rng() % 200 == 0) k = 64;
      if (i == n / 2 && n > 100) k = 3000;
      off.push_back(off.back() + k);
    }
    const std::size_t total = static_cast<std::size_t>(off.back());
    std::uniform_real_distribution<float> u(-2.5f, 2.5f), ph(-3.14159f, 3.14159f);
    std::exponential_distribution<float> ex(1.f / 20);
    std::vector<float> pt(total), eta(total), phi(total);
    std::vector<std::int32_t> q(total);
    for (std::size_t j = 0; j < total; ++j) {
      pt[j] = 5 + ex(rng);
      eta[j] = u(rng);
      phi[j] = ph(rng);
      q[j] = rng() % 2 ? 1 : -1;
    }
    auto run = [&](jf::device dev) {
      const jf::array<i64> offsets(off, dev);
      auto ev = jf::zip({{"pt", jf::jagged<float>(offsets, jf::array<float>(pt, dev))},
                         {"eta", jf::jagged<float>(offsets, jf::array<float>(eta, dev))},
                         {"phi", jf::jagged<float>(offsets, jf::array<float>(phi, dev))},
                         {"charge", jf::jagged<std::int32_t>(offsets, jf::array<std::int32_t>(q, dev))}});
      auto [e1, e2] = jf::unzip(jf::combinations(ev, 2));
      const auto m = mass(e1, e2);
      const auto q1 = e1.field<std::int32_t>("charge");
      const auto q2 = e2.field<std::int32_t>("charge");
      const auto pt1 = e1.field<float>("pt");
      const auto pt2 = e2.field<float>("pt");
      return std::make_tuple(jf::option_array<float>(jf::max(m, -1)).to_vector(),
                             jf::option_array<float>(jf::max(m(q1 != q2), -1)).to_vector(),
                             jf::option_array<i64>(jf::argmax(m, -1)).to_vector(),
                             jf::array<i64>(jf::count_nonzero((pt1 > pt2)(q1 == q2), -1)).to_vector(),
                             // Positions among the selected pairs (products of floats: exact).
                             jf::option_array<i64>(jf::argmax((pt1 * pt2)(q1 != q2), -1)).to_vector(),
                             jf::option_array<i64>(jf::argmin((pt1 - pt2)(pt1 > pt2), -1)).to_vector());
    };
    const auto cpu = run(jf::cpu);
    const auto gpu = run(jf::cuda);
    // How far two float32 evaluations of an event's heaviest mass may be apart: pair_mass_check.hpp.
    std::vector<double> band(static_cast<std::size_t>(n), 0);
    for (i64 i = 0; i < n; ++i)
      for (i64 a = off[static_cast<std::size_t>(i)]; a < off[static_cast<std::size_t>(i + 1)]; ++a)
        for (i64 b = a + 1; b < off[static_cast<std::size_t>(i + 1)]; ++b) {
          const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
          band[static_cast<std::size_t>(i)] =
              std::max(band[static_cast<std::size_t>(i)],
                       test_support::pair_mass_band(pt[ua], eta[ua], phi[ua], pt[ub], eta[ub], phi[ub]));
        }
    test_support::expect_masses_close(std::get<0>(cpu), std::get<0>(gpu), band);
    test_support::expect_masses_close(std::get<1>(cpu), std::get<1>(gpu), band);
    test_support::expect_argmax_mostly_equal(std::get<2>(cpu), std::get<2>(gpu));
    EXPECT_EQ(std::get<3>(cpu), std::get<3>(gpu));
    EXPECT_EQ(std::get<4>(cpu), std::get<4>(gpu));
    EXPECT_EQ(std::get<5>(cpu), std::get<5>(gpu));
  }
}

// The host's unranking (the printed window's tuples) against the ranking formula, for lists up to
// 3 million elements (C(m, 3) = 4.5e18, near 2^62): rank(unrank(r)) == r at the edges of every first slot.
// mean and var over every pair (axis=None): the count of pairs is reduced per list first, like the
// sum beside it (found by the jagged fuzzer on the H200: the CUDA pairs kernel refused a count
// reduced straight into the root). jf::explain_cuda plans and generates the kernels anywhere.
TEST(CombinationsCudaPlan, MeanOverEveryPair) {
  const jf::jagged<std::int32_t> x(std::vector<std::vector<std::int32_t>>{{0, -3, 15}, {5}, {}, {3, -1}}, jf::cpu);
  auto [p0, p1] = jf::unzip(jf::combinations(x, 2));
  EXPECT_NO_THROW((void)jf::explain_cuda(jf::mean(p0)));
  EXPECT_NO_THROW((void)jf::explain_cuda(jf::var(p0 - p1)));
  // pairs (0, -3), (0, 15), (-3, 15), (3, -1): first elements 0, 0, -3, 3; second -3, 15, 15, -1
  EXPECT_DOUBLE_EQ(jf::eval(jf::mean(p0)).item(), 0.0);
  EXPECT_DOUBLE_EQ(jf::eval(jf::mean(p1)).item(), 26.0 / 4);
}

// The dielectron query through the front end: events validated with at most 16 electrons take the
// pairs kernel's warp segments (no staging), longer ones the staged runs (docs/design.md, "Pairs
// kernels"); a cartesian product never does (b's lengths are not known to the kernel).
TEST(CombinationsCudaPlan, WarpSegmentsWhereEveryEventIsShort) {
  // (short_ones: more lists of one element, making the mean at most 1.875 elements a list.)
  auto query = [](std::size_t longest, std::size_t short_ones = 0) {
    std::vector<std::vector<float>> lists{{30, 20}, {}, std::vector<float>(longest, 10.0f), {40}};
    lists.resize(lists.size() + short_ones, std::vector<float>{50});
    const jf::jagged<float> pt(lists, jf::cpu), eta(lists, jf::cpu);
    auto [e1, e2] = jf::unzip(jf::combinations(jf::zip({{"pt", pt}, {"eta", eta}}), 2));
    return jf::explain_cuda(jf::max(jf::sqrt(2 * e1.field<float>("pt") * e2.field<float>("pt") *
                                             jf::cosh(e1.field<float>("eta") - e2.field<float>("eta"))),
                                    -1));
  };
  const std::string short16 = query(16), long17 = query(17);
  EXPECT_NE(short16.find("each warp taking its share"), std::string::npos) << short16;
  EXPECT_EQ(short16.find("Staged: each field once"), std::string::npos) << short16;
  EXPECT_EQ(long17.find("each warp taking its share"), std::string::npos) << long17;
  EXPECT_NE(long17.find("Staged: each field once"), std::string::npos) << long17;
  EXPECT_EQ(long17.find("a warp each"), std::string::npos) << long17;
  // Short on average, one list of 17: warp segments, the longer list in the warp queue.
  const std::string mean_short = query(17, 16);
  EXPECT_NE(mean_short.find("each warp taking its share"), std::string::npos) << mean_short;
  EXPECT_NE(mean_short.find("lists of more than 16 elements queued on the device and combined after the tiles"),
            std::string::npos)
      << mean_short;
  EXPECT_NE(mean_short.find("at most 1.875 elements a list on average"), std::string::npos) << mean_short;
  // Only the combinations' kernel reads the mean: a per-list sum of the same short lists keeps the
  // one variant (and source) it has for any mean.
  const jf::jagged<float> ones(std::vector<std::vector<float>>(20, std::vector<float>{1.0f}), jf::cpu);
  const std::string list_sum = jf::explain_cuda(jf::sum(ones * 2, -1));
  EXPECT_EQ(list_sum.find("on average"), std::string::npos) << list_sum;
  const jf::jagged<float> a(std::vector<std::vector<float>>{{1, 2}, {3}}, jf::cpu);
  auto [x, y] = jf::unzip(jf::cartesian(a, a));
  const std::string product = jf::explain_cuda(jf::sum(x * y, -1));
  EXPECT_EQ(product.find("each warp taking its share"), std::string::npos) << product;
}

TEST(CombinationsUnrank, ExactForLargeLists) {
  const auto choose = [](i64 c, int k) {  // the division by 3 first: C(3e6, 3) fits, c (c - 1) (c - 2) / 2 does not
    const i64 two = c * (c - 1) / 2;
    return k == 2 ? two : two % 3 == 0 ? two / 3 * (c - 2) : two * ((c - 2) / 3);
  };
  for (const int k : {2, 3})
    for (const i64 m : {i64{3}, i64{4}, i64{1000}, i64{123457}, i64{3000000}}) {
      SCOPED_TRACE("k " + std::to_string(k) + " m " + std::to_string(m));
      const i64 total = jf::detail::combinations_count(m, k);
      ASSERT_EQ(total, choose(m, k));
      for (const i64 r : {i64{0}, i64{1}, total / 3, total / 2 + 1, total - m, total - 2, total - 1}) {
        if (r < 0 || r >= total) continue;
        const std::array<i64, 3> j = jf::detail::unrank_combination(m, k, r);
        ASSERT_LT(j[0], j[1]);
        if (k == 3) {
          ASSERT_LT(j[1], j[2]);
        }
        ASSERT_LT(j[static_cast<std::size_t>(k - 1)], m);
        // The combinations before j in Awkward's order.
        const i64 before =
            k == 2 ? total - choose(m - j[0], 2) + (j[1] - j[0] - 1)
                   : total - choose(m - j[0], 3) + choose(m - j[0] - 1, 2) - choose(m - j[1], 2) + (j[2] - j[1] - 1);
        EXPECT_EQ(before, r);
      }
    }
  EXPECT_THROW((void)jf::detail::combinations_count(i64{1} << 32, 3), jf::value_error);
}

}  // namespace
