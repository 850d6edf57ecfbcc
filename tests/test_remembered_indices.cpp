// What the engine remembers about a scatter's index array (src/engine/remembered_indices.hpp):
//  - every jetfuse write into existing memory moves the buffer's write count (element writes,
//    compound assignment, put / setitem / add_at into the index array itself, writes through a
//    view, shuffle, assign); memory handed out (raw_data(), data(), DLPack) or adopted is external;
//  - facts are kept per buffer, view and target length, and lapse on any of those;
//  - the plans that use them (no checking launch, no marks) and their kernels compile with NVRTC;
//  - a store through indices known to repeat finds the winning positions once (one scatter at a
//    time), and they are kept with the repeats until the facts lapse;
//  - on a GPU: the second scatter through the same index array uses them (jf::stats), with the CPU
//    executor's results (the last write winning, add_at accumulating; the winners found, then
//    stored from alone; rows, int32 indices, two views
//    of one index buffer, another target length); every write above makes the
//    next scatter check again (numpy's IndexError, x untouched); a fact made wrong behind the
//    engine's back still raises and writes nothing outside the target.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <jetfuse/dlpack.hpp>
#include <jetfuse/jetfuse.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "engine/remembered_indices.hpp"
#include "explained_cuda.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::rand_int;
using test_support::seed;
namespace remembered = jf::detail::remembered_indices;

std::uint64_t writes_of(const jf::array_base& a) { return a.buffer()->writes.load(); }
bool external(const jf::array_base& a) { return a.buffer()->external.load(); }

// Teaches `facts` about `idx` into `target` elements as a clean record would.
void teach(const jf::array_base& idx, i64 target, bool marked, bool repeated) {
  remembered::lesson l;
  ASSERT_TRUE(remembered::lesson_for(idx, target, marked, l));
  remembered::learn(l, repeated);
}

std::vector<i64> permutation(i64 n) {
  std::vector<i64> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), i64(0));
  for (i64 k = n - 1; k > 0; --k)
    std::swap(p[static_cast<std::size_t>(k)], p[static_cast<std::size_t>(rand_int(0, k))]);
  return p;
}

TEST(RememberedIndices, JetfuseWritesMoveTheCount) {
  jf::array<i64> idx({0, 1, 2, 3, 4, 5});
  const std::vector<std::pair<std::string, std::function<void()>>> writes = {
      {"element", [&] { idx(1) = 5; }},
      {"compound", [&] { idx += 1; }},
      {"put into it", [&] { jf::put(idx, jf::array<i64>({0}), 3); }},
      {"setitem into it", [&] { idx(jf::array<i64>({2})) = 7; }},
      {"add_at into it", [&] { jf::add_at(idx, jf::array<i64>({2}), 1); }},
      {"through a view",
       [&] {
         idx(jf::range(1, 3)) = jf::array<i64>({8, 9});
       }},
      {"a view filled", [&] { idx(jf::range(4, 5)) = 1; }},
      {"assigned an expression", [&] { idx = idx * 1; }},
      {"shuffled", [&] { jf::random::philox(3).shuffle(idx); }},
  };
  for (const auto& [what, write] : writes) {
    const std::uint64_t before = writes_of(idx);
    write();
    EXPECT_GT(writes_of(idx), before) << what;
    EXPECT_FALSE(external(idx)) << what;
  }
  // A result over lists evaluated into an existing array (the jagged engine's own outputs).
  const jf::jagged<i64> lists({{1, 2}, {}, {3}});
  jf::array<i64> per_list({0, 0, 0});
  const std::uint64_t before = writes_of(per_list);
  per_list = jf::sum(lists, -1);
  EXPECT_EQ(per_list.to_vector(), (std::vector<i64>{3, 0, 3}));
  EXPECT_GT(writes_of(per_list), before);
}

TEST(RememberedIndices, MemoryHandedOutIsExternal) {
  const jf::array<i64> a({1, 2, 3});
  (void)static_cast<const jf::array<i64>&>(a).data();  // a read-only pointer: still jetfuse's alone
  EXPECT_FALSE(external(a));
  jf::array<i64> b({1, 2, 3});
  (void)b.data();
  EXPECT_TRUE(external(b));
  const jf::array<i64> c({1, 2, 3});
  (void)c.raw_data();
  EXPECT_TRUE(external(c));
  const jf::array<i64> d({1, 2, 3});
  DLManagedTensor* t = jf::to_dlpack(d);
  EXPECT_TRUE(external(d));
  t->deleter(t);
  std::vector<i64> mine = {4, 5};
  const auto e = jf::array<i64>::adopt(mine.data(), {2}, jf::cpu, nullptr);
  EXPECT_TRUE(external(e));
  const jf::array<i64> f({1, 2, 3});
  const jf::array<i64> g = f + 0;  // a new array: its own buffer, not external
  EXPECT_FALSE(external(g));
}

TEST(RememberedIndices, FactsLapse) {
  remembered::forget_all();
  jf::array<i64> idx({0, 3, 1, 2});
  teach(idx, 4, true, false);
  EXPECT_EQ(remembered::lookup(idx, 4), remembered::in_bounds | remembered::distinct);
  EXPECT_EQ(remembered::lookup(idx, 5), 0) << "another target length";
  EXPECT_EQ(remembered::lookup(idx(jf::range(1, jf::none)), 4), 0) << "another view";
  EXPECT_EQ(remembered::lookup(jf::array<i64>({0, 3, 1, 2}), 4), 0) << "equal values, another buffer";
  // A learning that did not mark keeps what was known about repeats.
  teach(idx, 4, false, false);
  EXPECT_EQ(remembered::lookup(idx, 4), remembered::in_bounds | remembered::distinct);
  idx(0) = 0;  // the same value, but a write
  EXPECT_EQ(remembered::lookup(idx, 4), 0);
  teach(idx, 4, true, true);
  EXPECT_EQ(remembered::lookup(idx, 4), remembered::in_bounds | remembered::repeats);
  // A lesson taken before a write teaches nothing.
  remembered::lesson stale;
  ASSERT_TRUE(remembered::lesson_for(idx, 4, true, stale));
  idx += 0;
  remembered::learn(stale, false);
  EXPECT_EQ(remembered::lookup(idx, 4), 0);
  teach(idx, 4, true, false);
  (void)idx.raw_data();
  EXPECT_EQ(remembered::lookup(idx, 4), 0) << "handed out";
  remembered::lesson none;
  EXPECT_FALSE(remembered::lesson_for(idx, 4, true, none)) << "external memory teaches nothing";
  // Strided views are not remembered; the oldest of more than a few arrays goes first.
  const jf::array<i64> m = jf::zeros<i64>({4, 4});
  EXPECT_FALSE(remembered::lesson_for(m(jf::all, 1), 4, true, none));
  std::vector<jf::array<i64>> many;
  for (int k = 0; k < 40; ++k) {
    many.push_back(jf::array<i64>({0, 1}));
    teach(many.back(), 2, true, false);
  }
  EXPECT_EQ(remembered::lookup(many.front(), 2), 0);
  EXPECT_EQ(remembered::lookup(many.back(), 2), remembered::in_bounds | remembered::distinct);
  remembered::forget_all();
  EXPECT_EQ(remembered::lookup(many.back(), 2), 0);
}

TEST(RememberedIndices, WinnersKeptWithTheRepeats) {
  remembered::forget_all();
  jf::array<i64> idx({1, 1, 0, 2});
  teach(idx, 4, true, true);
  remembered::known k = remembered::lookup_for_store(idx, 4, true);
  EXPECT_EQ(k.facts, remembered::in_bounds | remembered::repeats);
  EXPECT_TRUE(k.find_winners);
  EXPECT_EQ(k.winners, nullptr);
  EXPECT_FALSE(remembered::lookup_for_store(idx, 4, false).find_winners) << "only when asked";
  // One scatter finds them; while its bitmap lives (its lesson not learned yet) no other does.
  remembered::lesson finder;
  ASSERT_TRUE(remembered::lesson_for(idx, 4, false, finder));
  finder.winners = jf::zeros<std::uint32_t>({1}).buffer();
  remembered::finding_winners(idx, 4, finder.winners);
  EXPECT_FALSE(remembered::lookup_for_store(idx, 4, true).find_winners);
  {
    remembered::lesson dropped = finder;  // a copy learned nowhere: the bitmap lives on in `finder`
  }
  EXPECT_FALSE(remembered::lookup_for_store(idx, 4, true).find_winners);
  const void* bits = finder.winners->ptr;
  remembered::learn(finder, false);
  finder = remembered::lesson();
  k = remembered::lookup_for_store(idx, 4, true);
  EXPECT_EQ(k.facts, remembered::in_bounds | remembered::repeats | remembered::winners);
  EXPECT_EQ(k.winners->ptr, bits) << "kept by the facts, the lesson gone";
  EXPECT_FALSE(k.find_winners);
  // Later lessons (scatters through the winners) keep them; a write lapses everything.
  teach(idx, 4, false, false);
  EXPECT_EQ(remembered::lookup(idx, 4), remembered::in_bounds | remembered::repeats | remembered::winners);
  idx(0) = 1;
  EXPECT_EQ(remembered::lookup(idx, 4), 0);
  // Winners go with repeats only: a lesson that found the indices distinct keeps none.
  remembered::lesson distinct;
  ASSERT_TRUE(remembered::lesson_for(idx, 4, true, distinct));
  distinct.winners = jf::zeros<std::uint32_t>({1}).buffer();
  remembered::learn(distinct, false);
  EXPECT_EQ(remembered::lookup(idx, 4), remembered::in_bounds | remembered::distinct);
  // A finder whose lesson is dropped (its bitmap freed) leaves the finding to the next scatter.
  teach(idx, 4, true, true);
  {
    const jf::array<std::uint32_t> lost = jf::zeros<std::uint32_t>({1});
    remembered::finding_winners(idx, 4, lost.buffer());
    EXPECT_FALSE(remembered::lookup_for_store(idx, 4, true).find_winners);
  }
  EXPECT_TRUE(remembered::lookup_for_store(idx, 4, true).find_winners);
  remembered::forget_all();
}

// jf::explain describes jf::cuda's plan with what is remembered (taught here for CPU arrays: the
// engine learns only on a GPU).
std::vector<std::string> remembered_plans() {
  remembered::forget_all();
  std::vector<std::string> p;
  const jf::array<double> x = jf::zeros<double>({6});
  const jf::array<i64> perm({5, 0, -3, 1, 2, 4}), dup({1, 1, -5, 0});
  teach(perm, 6, true, false);
  teach(dup, 6, true, true);
  p.push_back(jf::explain_put(x, perm, 2.0));
  p.push_back(jf::explain_put(x, dup, jf::array<double>({1.0, 2.0, 3.0, 4.0})));
  p.push_back(jf::explain_add_at(x, perm, 1.5));
  const jf::array<float> rows = jf::zeros<float>({6, 3});
  std::string setitem;  // rows(perm) = ones * 2 (numpy's x[perm] = v), described
  jf::detail::scatter_into<jf::detail::scatter_kind::setitem, jf::ir::put_rule::store, jf::ir::gather_mode::raise,
                           jf::dtype::float32>(rows, jf::capture(perm), jf::capture(jf::ones<float>({6, 3}) * 2.0f),
                                               &setitem);
  p.push_back(setitem);
  // The winners kept (as the scatter that found them teaches): one launch, no claims.
  remembered::lesson found;
  EXPECT_TRUE(remembered::lesson_for(dup, 6, false, found));
  found.winners = jf::zeros<std::uint32_t>({1}).buffer();
  remembered::learn(found, false);
  p.push_back(jf::explain_put(x, dup, jf::array<double>({1.0, 2.0, 3.0, 4.0})));
  const jf::array<i64> rows_dup({4, 4, 0, -1, 4});
  teach(rows_dup, 6, true, true);
  remembered::lesson rows_found;
  EXPECT_TRUE(remembered::lesson_for(rows_dup, 6, false, rows_found));
  rows_found.winners = jf::zeros<std::uint32_t>({1}).buffer();
  remembered::learn(rows_found, false);
  std::string rows_winners;  // rows(rows_dup) = ones * 2, described
  jf::detail::scatter_into<jf::detail::scatter_kind::setitem, jf::ir::put_rule::store, jf::ir::gather_mode::raise,
                           jf::dtype::float32>(rows, jf::capture(rows_dup), jf::capture(jf::ones<float>({5, 3}) * 2.0f),
                                               &rows_winners);
  p.push_back(rows_winners);
  // Values with a raising gather of their own: checked in a first launch, the winners in a second.
  const jf::array<double> y = jf::zeros<double>({8});
  const jf::array<i64> q({7, 0, -8, 2});
  p.push_back(jf::explain_put(x, dup, y(q) * 2.0));
  return p;
}

TEST(RememberedIndices, PlansWithoutTheCheckingPass) {
  const std::vector<std::string> p = remembered_plans();
  EXPECT_NE(p[0].find("put store_any f64"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("scatter: one launch"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("Indices remembered in bounds (the same index array"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("jf_nest::report_index"), std::string::npos) << p[0];  // checked as written
  EXPECT_EQ(p[0].find("jf_bits"), std::string::npos) << p[0];
  EXPECT_NE(p[1].find("launched 5 times"), std::string::npos) << p[1];
  EXPECT_NE(p[1].find("naming some element twice"), std::string::npos) << p[1];
  EXPECT_NE(p[1].find("const bool jf_dups = true;"), std::string::npos) << p[1];
  EXPECT_EQ(p[1].find("atomicOr(jf_bits"), std::string::npos) << p[1];  // no marks
  EXPECT_NE(p[1].find("atomicMax(jf_claims"), std::string::npos) << p[1];
  // ... and finds the winners for the next calls (the plan of the next such call)
  EXPECT_NE(p[1].find("atomicOr(a.aux + (jf_p >> 5)"), std::string::npos) << p[1];
  EXPECT_NE(p[1].find("winners found"), std::string::npos) << p[1];
  EXPECT_NE(p[2].find("scatter: one launch"), std::string::npos) << p[2];
  EXPECT_NE(p[2].find("jf_scatter::combine<1"), std::string::npos) << p[2];
  EXPECT_NE(p[3].find("scatter: one launch"), std::string::npos) << p[3];
  EXPECT_NE(p[6].find("Launch 2 over D"), std::string::npos) << p[6];
  EXPECT_NE(p[6].find("raising gathers of the values"), std::string::npos) << p[6];
  EXPECT_NE(p[6].find("(a.aux[jf_p >> 5] >> (jf_p & 31))"), std::string::npos) << p[6];
  EXPECT_EQ(p[6].find("jf_claims"), std::string::npos) << p[6];
  for (std::size_t k : {std::size_t(4), std::size_t(5)}) {  // the winners kept: one launch, no claims
    EXPECT_NE(p[k].find("scatter: one launch"), std::string::npos) << p[k];
    EXPECT_NE(p[k].find("remembered winners"), std::string::npos) << p[k];
    EXPECT_NE(p[k].find("with the positions that win"), std::string::npos) << p[k];
    EXPECT_NE(p[k].find("(a.aux[jf_p >> 5] >> (jf_p & 31))"), std::string::npos) << p[k];
    EXPECT_NE(p[k].find("jf_nest::report_index"), std::string::npos) << p[k];  // still checked as written
    EXPECT_EQ(p[k].find("jf_claims"), std::string::npos) << p[k];
  }
  // Not remembered: numpy's checking launch first.
  remembered::forget_all();
  const std::string fresh = jf::explain_put(jf::zeros<double>({6}), jf::array<i64>({5, 0}), 2.0);
  EXPECT_NE(fresh.find("launched 5 times"), std::string::npos) << fresh;
  EXPECT_NE(fresh.find("a.err->repeats = 1ull"), std::string::npos) << fresh;  // what the host learns from
  EXPECT_EQ(fresh.find("Indices remembered"), std::string::npos) << fresh;
}

TEST(RememberedIndices, KernelsCompileWithNvrtc) {
  for (const std::string& plan : remembered_plans()) test_support::expect_explained_cuda_compiles(plan);
  remembered::forget_all();
}

// ---- on a GPU ------------------------------------------------------------------------------------

class RememberedIndicesGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
    remembered::forget_all();
  }
};

// Sevenths (any bits), or whole numbers where atomics add in any order (sums exact in float64).
std::vector<double> random_values(std::size_t n, bool whole) {
  std::vector<double> v(n);
  for (auto& x : v) x = static_cast<double>(rand_int(-1000000, 1000000)) / (whole ? 1.0 : 7.0);
  return v;
}

// Four rounds of `scatter` into GPU and CPU targets (poisoned alike): the first teaches (after the
// wait), the next three must use the facts and give the CPU executor's bits.
// `finds_winners`: a store through indices with a repeat, which finds the winning positions in the
// second round (after the first's wait) and stores from them alone in the third and fourth.
template <class F>
void rounds(const std::vector<i64>& iv, i64 n, F scatter, const std::string& what, bool whole = false,
            bool finds_winners = false) {
  const jf::array<i64> gi(iv, jf::cuda), ci(iv, jf::cpu);
  const std::vector<double> poison(static_cast<std::size_t>(n), -12345.0);
  jf::array<double> gx(poison, jf::cuda), cx(poison, jf::cpu);
  for (int round = 0; round < 4; ++round) {
    const std::vector<double> v = random_values(iv.size(), whole);
    const jf::array<double> gv(v, jf::cuda), cv(v, jf::cpu);
    jf::reset_stats();
    scatter(gx, gi, gv);
    jf::synchronize();
    EXPECT_EQ(jf::stats().indices_remembered, round == 0 ? 0u : 1u) << what << " round " << round;
    EXPECT_EQ((remembered::lookup(gi, n) & remembered::winners) != 0, finds_winners && round >= 1)
        << what << " round " << round;
    scatter(cx, ci, cv);
    EXPECT_EQ(gx.to_vector(), cx.to_vector()) << what << " round " << round << " n " << n << " seed " << seed();
  }
}

TEST_F(RememberedIndicesGpu, LaterCallsUseTheFactsWithNumpysResults) {
  for (i64 n : {i64(1), i64(257), i64(1000), i64(1 << 20) + 3}) {
    const std::vector<i64> perm = permutation(n);
    std::vector<i64> negative = perm;  // the same elements, some named from the end
    for (auto& j : negative)
      if (rand_int(0, 1)) j -= n;
    std::vector<i64> dup(static_cast<std::size_t>(n) + 5);
    for (auto& j : dup) j = rand_int(-n, n - 1);
    const auto put = [](jf::array<double>& x, const jf::array<i64>& i, const jf::array<double>& v) {
      jf::put(x, i, v);
    };
    const auto setitem = [](jf::array<double>& x, const jf::array<i64>& i, const jf::array<double>& v) {
      x(i) = v * 2.0 + 1.0;
    };
    const auto add_at = [](jf::array<double>& x, const jf::array<i64>& i, const jf::array<double>& v) {
      jf::add_at(x, i, v);
    };
    rounds(perm, n, put, "put perm");
    rounds(negative, n, put, "put negative");
    // Remembered repeats: claims without marks finding the winners, then the winners alone.
    rounds(dup, n, put, "put dup", false, true);
    rounds(perm, n, setitem, "setitem perm");
    rounds(dup, n, setitem, "setitem dup", false, true);
    rounds(dup, n, add_at, "add_at dup", true);
    if (HasFailure()) return;
  }
}

// Rows (x(p) = v along the first axis of a 2-d x), int32 indices, and two views of one index
// buffer: each view and target length is remembered on its own, with the CPU executor's bits.
TEST_F(RememberedIndicesGpu, RowsInt32IndicesAndViews) {
  const i64 n = 1000, cols = 3;
  const std::vector<i64> perm = permutation(n);
  std::vector<std::int32_t> p32(perm.begin(), perm.end());
  const jf::array<std::int32_t> gi(p32, jf::cuda), ci(p32, jf::cpu);
  std::vector<double> poison(static_cast<std::size_t>(n * cols), -7.0);
  jf::array<double> gx(poison, {n, cols}, jf::cuda), cx(poison, {n, cols}, jf::cpu);
  for (int round = 0; round < 3; ++round) {
    const std::vector<double> v = random_values(static_cast<std::size_t>(n * cols), false);
    const jf::array<double> gv(v, {n, cols}, jf::cuda), cv(v, {n, cols}, jf::cpu);
    jf::reset_stats();
    gx(gi) = gv * 2.0;
    jf::synchronize();
    EXPECT_EQ(jf::stats().indices_remembered, round == 0 ? 0u : 1u) << "rows, round " << round;
    cx(ci) = cv * 2.0;
    EXPECT_EQ(gx.to_vector(), cx.to_vector()) << "rows, round " << round << " seed " << seed();
  }
  // Two views of one int64 buffer: the first half (distinct) and all of it with a repeat at the end.
  std::vector<i64> iv = perm;
  iv.push_back(perm[0]);
  const jf::array<i64> whole(iv, jf::cuda), whole_cpu(iv, jf::cpu);
  const jf::array<i64> half = whole(jf::range(0, n / 2)), half_cpu = whole_cpu(jf::range(0, n / 2));
  jf::array<double> gy = jf::zeros<double>({n}, jf::cuda), cy = jf::zeros<double>({n}, jf::cpu);
  for (int round = 0; round < 3; ++round) {
    const std::vector<double> a = random_values(static_cast<std::size_t>(n / 2), false);
    const std::vector<double> b = random_values(iv.size(), false);
    jf::reset_stats();
    jf::put(gy, half, jf::array<double>(a, jf::cuda));
    jf::put(gy, whole, jf::array<double>(b, jf::cuda));
    jf::synchronize();
    EXPECT_EQ(jf::stats().indices_remembered, round == 0 ? 0u : 2u) << "views, round " << round;
    jf::put(cy, half_cpu, jf::array<double>(a, jf::cpu));
    jf::put(cy, whole_cpu, jf::array<double>(b, jf::cpu));
    EXPECT_EQ(gy.to_vector(), cy.to_vector()) << "views, round " << round << " seed " << seed();
  }
  // The same index array into a target of another length: not what was learned, checked first.
  const jf::array<double> longer = jf::zeros<double>({n + 1}, jf::cuda);
  jf::reset_stats();
  jf::put(longer, half, 1.0);
  jf::synchronize();
  EXPECT_EQ(jf::stats().indices_remembered, 0u);
}

// Rows stored through int32 indices with repeats: the winners found once, then stored from alone;
// a write into the index array lapses them (the next call checks and claims), and they are found
// again. Every round against the CPU executor, whose loop leaves the last write.
TEST_F(RememberedIndicesGpu, WinnersOfRowsLapseAndAreFoundAgain) {
  const i64 n = 1000, cols = 3;
  std::vector<std::int32_t> iv(static_cast<std::size_t>(n + 7));
  for (auto& j : iv) j = static_cast<std::int32_t>(rand_int(-n, n - 1));
  jf::array<std::int32_t> gi(iv, jf::cuda), ci(iv, jf::cpu);
  const std::vector<double> poison(static_cast<std::size_t>(n * cols), -7.0);
  jf::array<double> gx(poison, {n, cols}, jf::cuda), cx(poison, {n, cols}, jf::cpu);
  const i64 rows = static_cast<i64>(iv.size());
  for (int round = 0; round < 8; ++round) {
    if (round == 4) {  // a write: a repeat of the first index where the last one was
      gi(rows - 1) = iv[0];
      ci(rows - 1) = iv[0];
    }
    const std::vector<double> v = random_values(static_cast<std::size_t>(rows * cols), false);
    const jf::array<double> gv(v, {rows, cols}, jf::cuda), cv(v, {rows, cols}, jf::cpu);
    jf::reset_stats();
    gx(gi) = gv * 2.0 + 1.0;
    jf::synchronize();
    const int since = round % 4;  // rounds since the facts were last taught from scratch
    EXPECT_EQ(jf::stats().indices_remembered, since == 0 ? 0u : 1u) << "round " << round;
    EXPECT_EQ((remembered::lookup(gi, n) & remembered::winners) != 0, since >= 1) << "round " << round;
    cx(ci) = cv * 2.0 + 1.0;
    EXPECT_EQ(gx.to_vector(), cx.to_vector()) << "round " << round << " seed " << seed();
  }
}

// After each write into the index array the next scatter checks again: an index made out of
// bounds raises numpy's IndexError with x untouched; a repeat made in a permutation leaves the last
// write.
TEST_F(RememberedIndicesGpu, WritesMakeTheNextScatterCheck) {
  const i64 n = 1000;
  const std::vector<i64> perm = permutation(n);
  const std::vector<std::pair<std::string, std::function<void(jf::array<i64>&)>>> breaks = {
      {"element", [&](jf::array<i64>& i) { i(7) = n; }},
      {"compound", [&](jf::array<i64>& i) { i += n; }},
      {"put into it", [&](jf::array<i64>& i) { jf::put(i, jf::array<i64>({3}, jf::cuda), -n - 1); }},
      {"setitem into it", [&](jf::array<i64>& i) { i(jf::array<i64>({3}, jf::cuda)) = 2 * n; }},
      {"through a view",
       [&](jf::array<i64>& i) {
         i(jf::range(10, 12)) = jf::array<i64>({n, n}, jf::cuda);
       }},
      {"assigned", [&](jf::array<i64>& i) { i = i + n; }},
  };
  for (const auto& [what, brk] : breaks)
    for (bool add : {false, true}) {
      jf::array<i64> idx(perm, jf::cuda);
      jf::array<double> x = jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda);
      for (int k = 0; k < 2; ++k) {  // learned, then used
        if (add)
          jf::add_at(x, idx, 1.0);
        else
          jf::put(x, idx, 2.0);
        jf::synchronize();
      }
      const std::vector<double> before = x.to_vector();
      brk(idx);
      jf::reset_stats();
      EXPECT_THROW(
          {
            if (add)
              jf::add_at(x, idx, 1.0);
            else
              jf::put(x, idx, 3.0);
            jf::synchronize();
          },
          jf::index_error)
          << what;
      EXPECT_EQ(jf::stats().indices_remembered, 0u) << what;
      EXPECT_EQ(x.to_vector(), before) << what << (add ? " add_at" : " put");
    }
  // A repeat written into a remembered permutation: the claims again, the last write wins.
  jf::array<i64> idx(perm, jf::cuda);
  std::vector<i64> host = perm;
  jf::array<double> x = jf::zeros<double>({n}, jf::cuda);
  for (int k = 0; k < 2; ++k) {
    jf::put(x, idx, jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda));
    jf::synchronize();
  }
  idx(n - 1) = perm[0];
  host[static_cast<std::size_t>(n - 1)] = perm[0];
  jf::put(x, idx, jf::arange<double>(0, static_cast<double>(n), 1, jf::cuda));
  EXPECT_EQ(x.to_vector()[static_cast<std::size_t>(perm[0])], static_cast<double>(n - 1)) << "seed " << seed();
}

// A fact made wrong behind the engine's back (here taught directly): the scatter that uses it
// checks each index as it writes it, so it raises numpy's IndexError and writes nowhere outside x.
TEST_F(RememberedIndicesGpu, AWrongFactStillRaises) {
  const i64 n = 4096;
  std::vector<i64> iv = permutation(n);
  iv[100] = n + 5;
  const jf::array<i64> idx(iv, jf::cuda);
  teach(idx, n, true, false);
  const jf::array<double> guard_before = jf::full<double>({64}, 7.0, jf::cuda);
  const jf::array<double> x = jf::zeros<double>({n}, jf::cuda);
  const jf::array<double> guard_after = jf::full<double>({64}, 7.0, jf::cuda);
  jf::reset_stats();
  const std::string m = test_support::message_of<jf::index_error>([&] {
    jf::put(x, idx, 1.0);
    jf::synchronize();
  });
  EXPECT_EQ(m, "index " + std::to_string(n + 5) + " is out of bounds for axis 0 with size " + std::to_string(n));
  EXPECT_EQ(jf::stats().indices_remembered, 1u);
  EXPECT_EQ(guard_before.to_vector(), std::vector<double>(64, 7.0));
  EXPECT_EQ(guard_after.to_vector(), std::vector<double>(64, 7.0));
  // The failure taught nothing: the next call checks first again, x untouched.
  const std::vector<double> before = x.to_vector();
  jf::reset_stats();
  EXPECT_THROW(
      {
        jf::add_at(x, idx, 1.0);
        jf::synchronize();
      },
      jf::index_error);
  EXPECT_EQ(x.to_vector(), before);
}

}  // namespace
