// The cartesian product of two jagged arrays (include/jetfuse/cartesian.hpp, the product domain of
// src/engine/evaluate_lists.cpp, the CPU list executor and the CUDA pairs kernels' product form):
// per-list reductions over ak.cartesian([a, b], axis=1) of two records — the mass of a muon and
// an electron, its opposite-charge mask, argmin/argmax ranks in Awkward's order, sums, counts, a
// per-list value, a sum over every pair — the pairs materialised and ak.argcartesian, printed
// (str, repr and type of ak.cartesian / ak.argcartesian, combinations_print.hpp), against
// Awkward's own answers (tests/data/cartesian_table.txt, written by
// tests/data/gen_cartesian_table.py), the errors, and jf::cuda against jf::cpu on fresh random
// events (printed seed) with empty lists on either side, a long list and offsets not at 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "jetfuse/jetfuse.hpp"
#include "awkward_values.hpp"
#include "pair_mass_check.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

struct side_words {
  std::vector<std::string> offsets, pt, eta, phi, charge;
};
struct cartesian_case {
  std::string dataset, op;
  side_words a, b;
  std::vector<std::string> values, result_dtype;
};

std::vector<cartesian_case> table() {
  std::vector<cartesian_case> out;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/cartesian_table.txt", 12)) {
    auto side = [&](std::size_t k) {
      return side_words{test_support::values_of(t.lines[k]), test_support::values_of(t.lines[k + 1]),
                        test_support::values_of(t.lines[k + 2]), test_support::values_of(t.lines[k + 3]),
                        test_support::values_of(t.lines[k + 4])};
    };
    out.push_back(cartesian_case{t.header.at(0), t.header.at(1), side(0), side(5), test_support::values_of(t.lines[10]),
                                 t.lines[11]});
  }
  return out;
}

// One side's particles: the fields from offsets[0] on, poison before (never read).
template <class T>
jf::array<T> with_poison(const std::vector<std::string>& words, i64 first, T poison, jf::device dev) {
  std::vector<T> v(static_cast<std::size_t>(first), poison);
  for (T x : test_support::parse_words<T>(words)) v.push_back(x);
  return jf::array<T>(v, dev);
}
jf::jagged_record particles(const side_words& w, jf::device dev) {
  const std::vector<i64> off = test_support::parse_words<i64>(w.offsets);
  const jf::array<i64> offsets(off, dev);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto field = [&](const std::vector<std::string>& x) {
    return jf::jagged<float>(offsets, with_poison<float>(x, off[0], nan, dev));
  };
  const jf::jagged<std::int32_t> charge(offsets, with_poison<std::int32_t>(w.charge, off[0], 7777, dev));
  return jf::zip({{"pt", field(w.pt)}, {"eta", field(w.eta)}, {"phi", field(w.phi)}, {"charge", charge}});
}

using test_support::expect_printed;  // Awkward's text and type (awkward_values.hpp)
using test_support::mass;            // the dielectron mass of two slots (pair_mass_check.hpp)
using test_support::same_value;  // Awkward's value against ours (awkward_values.hpp)
template <class R>
void expect_values(const cartesian_case& c, const std::vector<std::optional<R>>& got, double rel = 0) {
  EXPECT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.result_dtype.at(0));
  ASSERT_EQ(got.size(), c.values.size());
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same_value<R>(c.values[k], got[k], rel)) << "at " << k;
}
template <class R>
void expect_dense(const cartesian_case& c, const jf::array<R>& y, double rel = 0) {
  const std::vector<R> v = y.to_vector();
  expect_values<R>(c, std::vector<std::optional<R>>(v.begin(), v.end()), rel);
}

constexpr double mass_rel = 1e-5;
// The long list's 75000 products pass 2^24: Awkward's float32 sum is sequential (5e-6 off the
// exact sum here), ours pairwise.
constexpr double sum_rel = 1e-4;

bool print_case(const cartesian_case& c, const jf::jagged_record& mu, const jf::jagged_record& el) {
  const std::string& op = c.op;
  if (op.rfind("print_", 0) != 0 && op.rfind("repr_", 0) != 0) return false;
  if (op.find("argpairs") != std::string::npos)
    expect_printed(c, jf::argcartesian(mu, el));
  else if (op.find("records") != std::string::npos)
    expect_printed(c, jf::cartesian(mu, el));
  else if (op.find("mixed") != std::string::npos)
    expect_printed(c, jf::cartesian(mu.field<std::int32_t>("charge"), el));
  else
    expect_printed(c, jf::cartesian(mu.field<float>("pt"), el.field<float>("pt")));
  return true;
}

void run_case(const cartesian_case& c, jf::device dev) {
  SCOPED_TRACE(c.dataset + " " + c.op);
  const jf::jagged_record mu = particles(c.a, dev), el = particles(c.b, dev);
  if (print_case(c, mu, el)) return;
  std::vector<float> met_host;
  for (i64 i = 0; i < mu.size(); ++i) met_host.push_back(static_cast<float>(i) / 4 - 2);
  const jf::array<float> met(met_host, dev);
  auto [p, q] = jf::unzip(jf::cartesian(mu, el));
  const auto pt1 = p.field<float>("pt");
  const auto pt2 = q.field<float>("pt");
  const auto eta1 = p.field<float>("eta");
  const auto q1 = p.field<std::int32_t>("charge");
  const auto q2 = q.field<std::int32_t>("charge");
  const auto m = mass(p, q);
  const std::string& op = c.op;
  if (op == "max_mass") return expect_values<float>(c, jf::eval(jf::max(m, -1)).to_vector(), mass_rel);
  if (op == "max_mass_os") return expect_values<float>(c, jf::eval(jf::max(m(q1 != q2), -1)).to_vector(), mass_rel);
  if (op == "min_ptpt") return expect_values<float>(c, jf::eval(jf::min(pt1 * pt2, -1)).to_vector());
  if (op == "sum_ptpt") return expect_dense(c, jf::eval(jf::sum(pt1 * pt2, -1)), sum_rel);
  if (op == "sum_ptpt_os") return expect_dense(c, jf::eval(jf::sum((pt1 * pt2)(q1 != q2), -1)), sum_rel);
  if (op == "argmax_exact") return expect_values<i64>(c, jf::eval(jf::argmax(pt1 * pt2 - eta1, -1)).to_vector());
  if (op == "argmin_exact") return expect_values<i64>(c, jf::eval(jf::argmin(pt1 + pt2, -1)).to_vector());
  // Positions among the selected pairs (the selection materialised, then the per-list argmax).
  if (op == "argmax_exact_os") return expect_values<i64>(c, jf::eval(jf::argmax((pt1 * pt2 - eta1)(q1 != q2), -1)).to_vector());
  if (op == "argmin_exact_os") return expect_values<i64>(c, jf::eval(jf::argmin((pt1 + pt2)(q1 != q2), -1)).to_vector());
  if (op == "argmax_ptpt_ordered") return expect_values<i64>(c, jf::eval(jf::argmax((pt1 * pt2)(pt1 > pt2), -1)).to_vector());
  if (op == "count_pairs") return expect_dense(c, jf::eval(jf::count_nonzero(pt1 * pt2 == pt1 * pt2, -1)));
  if (op == "count_ordered") return expect_dense(c, jf::eval(jf::count_nonzero(pt1 > pt2, -1)));
  if (op == "any_same_charge") return expect_dense(c, jf::eval(jf::any(q1 == q2, -1)));
  if (op == "min_dpt_met") return expect_values<float>(c, jf::eval(jf::min(pt1 - pt2 + met, -1)).to_vector());
  if (op == "sum_all") return expect_dense(c, jf::eval(jf::sum(pt1 * pt2)), sum_rel);
  // Materialised on request: every pair's value (count -> scan -> fill), argcartesian.
  if (op == "pairs_flat") return expect_dense(c, jf::flatten(jf::jagged<float>(pt1 * pt2 + eta1)));
  if (op == "pairs_counts") return expect_dense(c, jf::num(jf::jagged<float>(pt1)));
  if (op == "pairs_os_flat") return expect_dense(c, jf::flatten(jf::jagged<float>((pt1 - pt2)(q1 != q2))));
  if (op == "pairs_os_counts") return expect_dense(c, jf::num(jf::jagged<float>((pt1 - pt2)(q1 != q2))));
  if (op == "argcartesian_0") return expect_dense(c, jf::flatten(jf::argcartesian(mu, el).slot(0)));
  if (op == "argcartesian_1") return expect_dense(c, jf::flatten(std::get<1>(jf::unzip(jf::argcartesian(mu, el)))));
  ADD_FAILURE() << "unknown op " << op;
}

class Cartesian : public test_support::on_backends {};

TEST_P(Cartesian, MatchesAwkward) {
  const std::vector<cartesian_case> cases = table();
  ASSERT_GT(cases.size(), 180u);
  for (const cartesian_case& c : cases) run_case(c, dev());
}

// Known values: plain jagged slots, a list empty on one side, masks, ranks, the pairs materialised.
TEST_P(Cartesian, PlainJaggedSlots) {
  const jf::jagged<float> a(std::vector<std::vector<float>>{{3, 1}, {}, {5}, {1, 4, 2}}, dev());
  const jf::jagged<float> b(std::vector<std::vector<float>>{{2, 6, 1}, {7}, {}, {3}}, dev());
  auto [x, y] = jf::unzip(jf::cartesian(a, b));
  EXPECT_EQ(jf::option_array<float>(jf::max(x * y, -1)).to_vector(),
            (std::vector<std::optional<float>>{18.f, std::nullopt, std::nullopt, 12.f}));
  EXPECT_EQ(jf::array<float>(jf::sum(x - y, -1)).to_vector(), (std::vector<float>{-6.f, 0.f, 0.f, -2.f}));
  // Rank in Awkward's order: j_a * len_b + j_b (x*y of list 0: 6 18 3 2 6 1).
  EXPECT_EQ(jf::option_array<i64>(jf::argmin(x * y, -1)).to_vector(),
            (std::vector<std::optional<i64>>{5, std::nullopt, std::nullopt, 0}));
  EXPECT_EQ(jf::option_array<float>(jf::min((x + y)(x > y), -1)).to_vector(),
            (std::vector<std::optional<float>>{4.f, std::nullopt, std::nullopt, 7.f}));
  EXPECT_EQ(jf::array<i64>(jf::count_nonzero(x == x, -1)).to_vector(), (std::vector<i64>{6, 0, 0, 3}));
  // Per-list values broadcast into the product; a sum over every pair.
  const jf::array<float> w(std::vector<float>{1, 2, 3, 4}, dev());
  EXPECT_EQ(jf::array<float>(jf::sum(x * w + y, -1)).to_vector(), (std::vector<float>{30.f, 0.f, 0.f, 37.f}));
  EXPECT_EQ(jf::array<float>(jf::sum(x * y)).item(), 36.f + 21.f);
  // Materialised: every pair, and Awkward's argcartesian.
  EXPECT_EQ(jf::jagged<float>(x * 10 + y).to_vector(),
            (std::vector<std::vector<float>>{{32, 36, 31, 12, 16, 11}, {}, {}, {13, 43, 23}}));
  EXPECT_EQ(jf::jagged<float>((x - y)(x > y)).to_vector(), (std::vector<std::vector<float>>{{1, 2}, {}, {}, {1}}));
  const auto [ia, ib] = jf::unzip(jf::argcartesian(a, b));
  EXPECT_EQ(ia.to_vector(), (std::vector<std::vector<i64>>{{0, 0, 0, 1, 1, 1}, {}, {}, {0, 1, 2}}));
  EXPECT_EQ(ib.to_vector(), (std::vector<std::vector<i64>>{{0, 1, 2, 0, 1, 2}, {}, {}, {0, 0, 0}}));
  // A product of an array with itself is every ordered pair (both offsets the same).
  auto [s, t] = jf::unzip(jf::cartesian(a, a));
  EXPECT_EQ(jf::array<i64>(jf::count_nonzero(s < t, -1)).to_vector(), (std::vector<i64>{1, 0, 0, 3}));
  // Records and plain arrays mixed; slices (offsets not at 0) on either side.
  // ({}, {5}, {1, 4, 2}) x ({2, 6, 1}, {7}, {}): a's offsets start at 2, b's at 0.
  auto [r, u] = jf::unzip(jf::cartesian(jf::zip({{"pt", a}})(jf::range(1, jf::none)), b(jf::range(0, 3))));
  EXPECT_EQ(jf::array<float>(jf::sum(r.field<float>("pt") * u, -1)).to_vector(), (std::vector<float>{0.f, 35.f, 0.f}));
  EXPECT_EQ(jf::jagged<float>(u - r.field<float>("pt")).to_vector(), (std::vector<std::vector<float>>{{}, {2}, {}}));
}

// One fused loop: the IR holds a product domain and no pair is stored.
TEST_P(Cartesian, OneLoopOverTheProduct) {
  const jf::jagged<float> a(std::vector<std::vector<float>>{{3, 1}, {2}}, dev());
  const jf::jagged<float> b(std::vector<std::vector<float>>{{2}, {7, 1}}, dev());
  auto [x, y] = jf::unzip(jf::cartesian(a, b));
  const std::string text = jf::explain(jf::max(jf::sqrt(x * y), -1));
  EXPECT_NE(text.find("product("), std::string::npos) << text;
}

// The engine's graphs for jf::cuda, planned and generated on any machine (jf::explain_cuda): the
// mass of every pair, masked, with a per-list value and its argmax is ONE pairs kernel in its
// product form; a sum over every pair is that kernel and the lists' full reduction.
TEST(CartesianCudaPlan, OneKernelPerListReduction) {
  const jf::jagged<float> a(std::vector<std::vector<float>>{{3, 1}, {2}, {}}, jf::cpu);
  const jf::jagged<std::int32_t> qa(std::vector<std::vector<std::int32_t>>{{1, -1}, {1}, {}}, jf::cpu);
  const jf::jagged<float> b(std::vector<std::vector<float>>{{2}, {7, 1}, {4}}, jf::cpu);
  const jf::jagged<std::int32_t> qb(std::vector<std::vector<std::int32_t>>{{1}, {-1, -1}, {1}}, jf::cpu);
  auto [p, q] = jf::unzip(jf::cartesian(jf::zip({{"pt", a}, {"q", qa}}), jf::zip({{"pt", b}, {"q", qb}})));
  const jf::array<float> met(std::vector<float>{1, 2, 3}, jf::cpu);
  const auto m = jf::sqrt(p.field<float>("pt") * q.field<float>("pt") + met);
  const auto os = p.field<std::int32_t>("q") != q.field<std::int32_t>("q");
  for (const std::string& text :
       {jf::explain_cuda(jf::max(m(os), -1)), jf::explain_cuda(jf::argmax(m, -1)), jf::explain_cuda(jf::sum(m, -1))}) {
    EXPECT_NE(text.find("plan: 1 kernel(s), 0 temporaries"), std::string::npos) << text;
    EXPECT_NE(text.find("pairs kernel (a cartesian product of two lists)"), std::string::npos) << text;
  }
  const std::string all = jf::explain_cuda(jf::sum(m));
  EXPECT_NE(all.find("plan: 2 kernel(s)"), std::string::npos) << all;
  EXPECT_NE(all.find("cartesian product"), std::string::npos) << all;
}

// One list: its per-list value has one element, which the engine reads as a uniform operand; the
// product kernel still needs its slot promised (a value per list), else it refused the graph (seen
// on the H200 in the Awkward table's min_dpt_met case with one event).
TEST(CartesianCudaPlan, OneListWithAPerListValue) {
  const jf::jagged<float> a(std::vector<std::vector<float>>{{3, 1}}, jf::cpu);
  const jf::jagged<float> b(std::vector<std::vector<float>>{{2, 5}}, jf::cpu);
  auto [x, y] = jf::unzip(jf::cartesian(a, b));
  const jf::array<float> met(std::vector<float>{-2}, jf::cpu);
  const std::string text = jf::explain_cuda(jf::min(x - y + met, -1));
  EXPECT_NE(text.find("plan: 1 kernel(s), 0 temporaries"), std::string::npos) << text;
  EXPECT_EQ(jf::eval(jf::min(x - y + met, -1)).to_vector(), (std::vector<std::optional<float>>{-6.0f}));
}

TEST_P(Cartesian, Errors) {
  const jf::jagged<float> a(std::vector<std::vector<float>>{{1, 2, 3}, {4}}, dev());
  const jf::jagged<float> b(std::vector<std::vector<float>>{{1, 2}, {4, 5}, {6}}, dev());
  const jf::jagged<float> c(std::vector<std::vector<float>>{{1}, {4, 5}}, dev());
  // Other numbers of lists: Awkward's ValueError, raised by jf::cartesian itself.
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::cartesian(a, b); }).find("cannot broadcast"),
            std::string::npos);
  EXPECT_NE(test_support::message_of<jf::value_error>([&] { (void)jf::argcartesian(a, b); }).find("2 and 3 lists"),
            std::string::npos);
  auto [x, y] = jf::unzip(jf::cartesian(a, c));
  // A pair's value is not an element's.
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::eval(jf::sum(x + a, -1)); }).find("cannot broadcast"),
      std::string::npos);
  // Slot 1 read with lists of other lengths; a product beside combinations.
  auto [x2, y2] = jf::unzip(jf::cartesian(a, a));
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::eval(jf::sum(x * y2, -1)); }).find("cannot broadcast"),
      std::string::npos);
  auto [k1, k2] = jf::unzip(jf::combinations(a, 2));
  EXPECT_NE(
      test_support::message_of<jf::value_error>([&] { (void)jf::eval(jf::sum(x * k1, -1)); }).find("combinations"),
      std::string::npos);
  EXPECT_NE(
      test_support::message_of<jf::axis_error>([&] { (void)jf::eval(jf::sum(x * y, 2)); }).find("exceeds the depth"),
      std::string::npos);
  // The inputs are untouched by the failures.
  EXPECT_EQ(a.to_vector(), (std::vector<std::vector<float>>{{1, 2, 3}, {4}}));
  EXPECT_EQ(b.to_vector(), (std::vector<std::vector<float>>{{1, 2}, {4, 5}, {6}}));
  // Two backends.
  if (jf::cuda_available()) {
    const jf::jagged<float> other(std::vector<std::vector<float>>{{1}, {2}},
                                  dev().kind == jf::device_kind::cpu ? jf::cuda : jf::cpu);
    EXPECT_NE(test_support::message_of<jf::backend_mismatch>([&] { (void)jf::cartesian(a, other); }).find("backend"),
              std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Cartesian, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// Random muons and electrons (Poisson multiplicities, lists empty on either side, a long event,
// offsets not at 0): jf::cuda equals jf::cpu, the reference, into outputs poisoned before the run.
TEST(CartesianGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& rng = test_support::rng();
  for (const i64 n : {i64{0}, i64{1}, i64{7}, i64{1000}, i64{200001}}) {
    SCOPED_TRACE("events " + std::to_string(n));
    std::poisson_distribution<int> mult_a(1.2), mult_b(1.8);
    std::vector<i64> oa{4}, ob{9};
    for (i64 i = 0; i < n; ++i) {
      i64 ka = mult_a(rng), kb = mult_b(rng);
      if (rng() % 300 == 0) ka = 70;
      if (i == n / 2 && n > 100) {
        ka = 400;
        kb = 300;
      }
      oa.push_back(oa.back() + ka);
      ob.push_back(ob.back() + kb);
    }
    auto fields = [&](std::size_t total) {
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
      return std::make_tuple(pt, eta, phi, q);
    };
    const auto fa = fields(static_cast<std::size_t>(oa.back()));
    const auto fb = fields(static_cast<std::size_t>(ob.back()));
    auto record = [](const std::vector<i64>& off, const auto& f, jf::device dev) {
      const jf::array<i64> offsets(off, dev);
      return jf::zip({{"pt", jf::jagged<float>(offsets, jf::array<float>(std::get<0>(f), dev))},
                      {"eta", jf::jagged<float>(offsets, jf::array<float>(std::get<1>(f), dev))},
                      {"phi", jf::jagged<float>(offsets, jf::array<float>(std::get<2>(f), dev))},
                      {"charge", jf::jagged<std::int32_t>(offsets, jf::array<std::int32_t>(std::get<3>(f), dev))}});
    };
    auto run = [&](jf::device dev) {
      const jf::jagged_record mu = record(oa, fa, dev), el = record(ob, fb, dev);
      auto [p, q] = jf::unzip(jf::cartesian(mu, el));
      const auto m = mass(p, q);
      const auto q1 = p.field<std::int32_t>("charge");
      const auto q2 = q.field<std::int32_t>("charge");
      const auto pt1 = p.field<float>("pt");
      const auto pt2 = q.field<float>("pt");
      // Outputs poisoned before the run: every value is written (None's value and validity too).
      auto option_of = [&](const auto& e, auto poison) {
        using T = decltype(poison);
        jf::array_base values = jf::full<T>(jf::shape_t{n}, poison, dev);
        jf::array_base valid = jf::full<bool>(jf::shape_t{n}, true, dev);
        jf::detail::evaluate_lists_into<typename jf::node_of<std::remove_cvref_t<decltype(e)>>::type>(
            values, jf::dtype_v<T>, nullptr, &valid, jf::detail::eval_options{}, e);
        return jf::option_array<T>(jf::array<T>(values), jf::array<bool>(valid)).to_vector();
      };
      jf::array<i64> count = jf::full<i64>(jf::shape_t{n}, i64{-777}, dev);
      count = jf::count_nonzero((pt1 > pt2)(q1 == q2), -1);
      return std::make_tuple(option_of(jf::max(m, -1), std::numeric_limits<float>::quiet_NaN()),
                             option_of(jf::max(m(q1 != q2), -1), std::numeric_limits<float>::quiet_NaN()),
                             option_of(jf::argmax(m, -1), i64{-777}), count.to_vector(),
                             option_of(jf::min(pt1 * pt2, -1), std::numeric_limits<float>::quiet_NaN()),
                             // Materialised: every pair's product, the opposite-charge ones, the local indices.
                             jf::flatten(jf::jagged<float>(pt1 * pt2)).to_vector(),
                             jf::num(jf::jagged<float>((pt1 - pt2)(q1 != q2))).to_vector(),
                             jf::flatten(jf::argcartesian(mu, el).slot(1)).to_vector(),
                             // Positions among the selected pairs (products of floats: exact).
                             jf::option_array<i64>(jf::argmax((pt1 * pt2)(q1 != q2), -1)).to_vector(),
                             jf::option_array<i64>(jf::argmin((pt1 - pt2)(pt1 > pt2), -1)).to_vector());
    };
    const auto cpu = run(jf::cpu);
    const auto gpu = run(jf::cuda);
    std::vector<double> band(static_cast<std::size_t>(n), 0);
    for (i64 i = 0; i < n; ++i)
      for (i64 ja = oa[static_cast<std::size_t>(i)]; ja < oa[static_cast<std::size_t>(i + 1)]; ++ja)
        for (i64 jb = ob[static_cast<std::size_t>(i)]; jb < ob[static_cast<std::size_t>(i + 1)]; ++jb) {
          const auto ua = static_cast<std::size_t>(ja), ub = static_cast<std::size_t>(jb);
          band[static_cast<std::size_t>(i)] = std::max(
              band[static_cast<std::size_t>(i)],
              test_support::pair_mass_band(std::get<0>(fa)[ua], std::get<1>(fa)[ua], std::get<2>(fa)[ua],
                                           std::get<0>(fb)[ub], std::get<1>(fb)[ub], std::get<2>(fb)[ub]));
        }
    test_support::expect_masses_close(std::get<0>(cpu), std::get<0>(gpu), band);
    test_support::expect_masses_close(std::get<1>(cpu), std::get<1>(gpu), band);
    test_support::expect_argmax_mostly_equal(std::get<2>(cpu), std::get<2>(gpu));
    EXPECT_EQ(std::get<3>(cpu), std::get<3>(gpu));
    EXPECT_EQ(std::get<4>(cpu), std::get<4>(gpu));  // products of floats: exact, min in any order
    EXPECT_EQ(std::get<5>(cpu), std::get<5>(gpu));
    EXPECT_EQ(std::get<6>(cpu), std::get<6>(gpu));
    EXPECT_EQ(std::get<7>(cpu), std::get<7>(gpu));
    EXPECT_EQ(std::get<8>(cpu), std::get<8>(gpu));
    EXPECT_EQ(std::get<9>(cpu), std::get<9>(gpu));
  }
}

}  // namespace
