// jf::jagged's structure functions (jetfuse/jagged_structure.hpp), the option functions
// (option_ops.hpp) and records (record.hpp) against Awkward 2.14's own answers
// (tests/data/jagged_structure_table.txt, written by tests/data/gen_jagged_structure_table.py):
// firsts, x(all, 0), x(all, -1), local_index, x(positions), x(mask), concatenate along axis 1,
// fill_none and is_none, on random lists (Poisson multiplicities, empty lists, offsets not
// starting at 0, unused content, one long list) of every dtype, on both backends; fresh random
// lists against nested vectors; Awkward's errors; jf::zip's sharing and errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <jetfuse/jetfuse.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::values_of;

class JaggedStructure : public test_support::on_backends {};

template <class T>
std::vector<std::optional<T>> optionals(const std::vector<std::string>& words) {
  std::vector<std::optional<T>> out;
  for (const std::string& w : values_of(words)) {
    if (w == "None")
      out.emplace_back();
    else
      out.emplace_back(test_support::parse_words<T>({w})[0]);
  }
  return out;
}

template <class T>
std::vector<T> parsed(const std::vector<std::string>& words) {
  return test_support::parse_words<T>(values_of(words));
}

template <class T>
void check(const test_support::table_case& c, jf::device dev) {
  const auto& L = c.lines;
  SCOPED_TRACE(c.header.at(0) + " " + c.header.at(1));
  const jf::jagged<T> x(jf::array<i64>(parsed<i64>(L[0]), dev), jf::array<T>(parsed<T>(L[1]), dev));
  const jf::jagged<T> y(jf::array<i64>(parsed<i64>(L[12]), dev), jf::array<T>(parsed<T>(L[13]), dev));
  // firsts, is_none, fill_none
  const jf::option_array<T> f = jf::firsts(x);
  EXPECT_EQ(f.backend(), dev);
  EXPECT_EQ(f.to_vector(), optionals<T>(L[2]));
  EXPECT_EQ(jf::type_string(f), std::to_string(x.size()) + " * ?" + std::string(jf::name(jf::dtype_v<T>)));
  std::vector<bool> none;
  for (const auto& v : f.to_vector()) none.push_back(!v.has_value());
  EXPECT_EQ(jf::is_none(f).to_vector(), none);
  EXPECT_EQ(jf::fill_none(f, 0).to_vector(), parsed<T>(L[16]));
  // x[:, 0], x[:, -1]
  for (int k : {0, -1}) {
    const auto& want = L[k == 0 ? 3 : 4];
    if (want.size() == 1 && want[0] == "error") {
      EXPECT_EQ(message_of<jf::index_error>([&] { x(jf::all, k); }),
                "cannot slice ListArray (of length " + std::to_string(x.size()) + ") with array(" + std::to_string(k) +
                    "): index out of range while attempting to get index " + std::to_string(k));
    } else {
      EXPECT_EQ(x(jf::all, k).to_vector(), parsed<T>(want)) << "k " << k;
    }
  }
  // local_index: the same offsets (shared), the positions inside the lists
  const jf::jagged<i64> li = jf::local_index(x);
  EXPECT_EQ(li.offsets().buffer(), x.offsets().buffer());
  EXPECT_EQ(jf::flatten(li).to_vector(), parsed<i64>(L[5]));
  EXPECT_EQ(jf::type_string(li), std::to_string(x.size()) + " * var * int64");
  // x[positions], x[mask]
  const jf::jagged<T> by_pos = x(jf::array<i64>(parsed<i64>(L[6]), dev));
  EXPECT_EQ(jf::num(by_pos).to_vector(), parsed<i64>(L[7]));
  EXPECT_EQ(jf::flatten(by_pos).to_vector(), parsed<T>(L[8]));
  const jf::jagged<T> by_mask = x(jf::array<bool>(parsed<bool>(L[9]), dev));
  EXPECT_EQ(jf::num(by_mask).to_vector(), parsed<i64>(L[10]));
  EXPECT_EQ(jf::flatten(by_mask).to_vector(), parsed<T>(L[11]));
  EXPECT_EQ(jf::backend(by_mask), dev);
  // concatenate along axis 1
  const jf::jagged<T> cat = jf::concatenate(x, y, 1);
  EXPECT_EQ(jf::num(cat).to_vector(), parsed<i64>(L[14]));
  EXPECT_EQ(jf::flatten(cat).to_vector(), parsed<T>(L[15]));
  EXPECT_EQ(jf::concatenate(x, y, -1).to_vector(), cat.to_vector());
}

TEST_P(JaggedStructure, MatchesAwkward) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/jagged_structure_table.txt", 17);
  ASSERT_EQ(cases.size(), 40u);
  for (const auto& c : cases) test_support::with_dtype(c.header.at(0), [&]<class T>() { check<T>(c, dev()); });
}

// Fresh random lists (sizes 0, 1, odd, larger than a block) against nested vectors.
TEST_P(JaggedStructure, RandomAgainstVectors) {
  for (i64 n : {0, 1, 7, 33, 1500}) {
    std::poisson_distribution<int> mult(1.5);
    std::vector<std::vector<double>> lists(static_cast<std::size_t>(n));
    for (auto& l : lists)
      for (int k = mult(test_support::rng()); k > 0; --k)
        l.push_back(static_cast<double>(test_support::rand_int(-99, 99)));
    const jf::jagged<double> whole(lists, dev());
    // A slice: offsets that do not start at 0.
    const jf::jagged<double> x = whole(jf::range(n / 3, jf::none));
    const std::vector<std::vector<double>> want(lists.begin() + n / 3, lists.end());
    const i64 m = static_cast<i64>(want.size());
    std::vector<i64> pos;
    std::vector<bool> mask;
    std::vector<std::vector<double>> by_pos, by_mask, cat;
    for (i64 i = 0; i < 2 * m; ++i) {
      const i64 p = test_support::rand_int(-m, m - 1);
      pos.push_back(p);
      by_pos.push_back(want[static_cast<std::size_t>(p < 0 ? p + m : p)]);
    }
    for (i64 i = 0; i < m; ++i) {
      mask.push_back(test_support::rand_int(0, 1) == 1);
      if (mask.back()) by_mask.push_back(want[static_cast<std::size_t>(i)]);
      cat.push_back(want[static_cast<std::size_t>(i)]);
      cat.back().insert(cat.back().end(), want[static_cast<std::size_t>(m - 1 - i)].begin(),
                        want[static_cast<std::size_t>(m - 1 - i)].end());
    }
    ASSERT_EQ(x(jf::array<i64>(pos, dev())).to_vector(), by_pos) << "n " << n;
    // Non-contiguous positions and mask: reversed and strided views.
    const jf::array<i64> pos_arr(pos, dev());
    const std::vector<std::vector<double>> by_pos_rev(by_pos.rbegin(), by_pos.rend());
    ASSERT_EQ(x(jf::array<i64>(pos_arr(jf::range(jf::none, jf::none, -1)))).to_vector(), by_pos_rev) << "n " << n;
    std::vector<std::vector<double>> by_pos_even;
    for (std::size_t i = 0; i < by_pos.size(); i += 2) by_pos_even.push_back(by_pos[i]);
    ASSERT_EQ(x(jf::array<i64>(pos_arr(jf::range(jf::none, jf::none, 2)))).to_vector(), by_pos_even) << "n " << n;
    std::vector<bool> mask2(mask.size() * 2);
    for (std::size_t i = 0; i < mask.size(); ++i) mask2[2 * i] = mask[i];
    const jf::array<bool> mask2_arr(mask2, dev());
    ASSERT_EQ(x(jf::array<bool>(mask, dev())).to_vector(), by_mask) << "n " << n;
    ASSERT_EQ(x(jf::array<bool>(mask2_arr(jf::range(jf::none, jf::none, 2)))).to_vector(), by_mask) << "n " << n;
    std::vector<std::vector<double>> rev(want.rbegin(), want.rend());
    ASSERT_EQ(jf::concatenate(x, jf::jagged<double>(rev, dev()), 1).to_vector(), cat) << "n " << n;
    std::vector<std::optional<double>> firsts;
    for (const auto& l : want) firsts.push_back(l.empty() ? std::nullopt : std::optional<double>(l[0]));
    ASSERT_EQ(jf::firsts(x).to_vector(), firsts);
    const auto li = jf::local_index(x).to_vector();
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(li[i].size(), want[i].size());
  }
}

TEST_P(JaggedStructure, Errors) {
  const jf::jagged<double> x({{1.5}, {}, {2, 3, 4}}, dev());
  EXPECT_EQ(message_of<jf::index_error>([&] {
              x(jf::array<i64>({0, -4}, dev()));
            }),
            "cannot slice ListOffsetArray (of length 3) with array([ 0, -4]): index -4 is out of bounds for axis 0 "
            "with size 3");  // Awkward's words
  EXPECT_EQ(
      message_of<jf::index_error>([&] { x(jf::array<i64>({3}, dev())); }),
      "cannot slice ListOffsetArray (of length 3) with array([3]): index 3 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(message_of<jf::index_error>([&] {
              x(jf::array<bool>({true, false}, dev()));
            }),
            "boolean index did not match indexed array along axis 0; size of axis is 3 but size of corresponding "
            "boolean axis is 2");
  EXPECT_EQ(message_of<jf::index_error>([&] { x(jf::all, 1); }),
            "cannot slice ListArray (of length 3) with array(1): index out of range while attempting to get index 1");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::concatenate(x, x(jf::range(1, jf::none)), 1); }),
            "cannot broadcast RegularArray of size 2 with RegularArray of size 3");
  EXPECT_EQ(message_of<jf::axis_error>([&] { jf::concatenate(x, x, 2); }),
            "axis=2 is beyond the depth of this array or the depth of this array is ambiguous");
  EXPECT_EQ(x(jf::array<i64>(std::vector<i64>{}, dev())).size(), 0);
  EXPECT_EQ(x(jf::range(1, 1))(jf::all, 5).size(), 0);  // no lists: nothing to raise about
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<double>>{{1.5}, {}, {2, 3, 4}}));  // untouched
}

// Records: zip shares the offsets, fields come back without a copy, Awkward's errors.
TEST_P(JaggedStructure, Records) {
  const jf::jagged<float> pt({{10.5f, 20}, {}, {30}}, dev());
  const jf::jagged<float> eta(pt.offsets(), jf::array<float>({0.5f, -1, 2}, dev()));
  const jf::jagged<std::int32_t> charge(jf::array<i64>({0, 2, 2, 3}, dev()),
                                        jf::array<std::int32_t>({1, -1, 1}, dev()));
  const jf::jagged_record ev = jf::zip({{"pt", pt}, {"eta", eta}, {"charge", charge}});
  EXPECT_EQ(ev.offsets().buffer(), pt.offsets().buffer());  // one offsets array: pt's
  EXPECT_EQ(jf::type_string(ev), "3 * var * {pt: float32, eta: float32, charge: int32}");
  EXPECT_EQ(jf::to_string(ev),
            "[[{pt: 10.5, eta: 0.5, charge: 1}, {pt: 20, eta: -1, ...}], [], [{...}]]");  // Awkward's text
  EXPECT_EQ(ev.fields(), (std::vector<std::string>{"pt", "eta", "charge"}));
  const jf::jagged<float> pt2 = ev["pt"];
  EXPECT_EQ(pt2.content().buffer(), pt.content().buffer());
  EXPECT_EQ(pt2.offsets().buffer(), ev.offsets().buffer());
  EXPECT_EQ(ev.field<std::int32_t>("charge").to_vector(), charge.to_vector());
  EXPECT_EQ(ev.field<std::int32_t>("charge").content().buffer(), charge.content().buffer());
  EXPECT_EQ(jf::to_string(ev(jf::range(1, jf::none))), "[[], [{pt: 30, eta: 2, charge: 1}]]");
  EXPECT_EQ(message_of<jf::index_error>([&] { ev["mass"]; }), "no field 'mass' in record with 3 fields");
  EXPECT_EQ(message_of<jf::dtype_error>([&] { ev.field<double>("pt"); }),
            "jf::jagged_record: field 'pt' is float32, not float64");
  const jf::jagged<float> other({{1, 2}, {3}, {}}, dev());
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::zip({{"pt", pt}, {"x", other}}); }), "cannot broadcast nested list");
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::zip({{"pt", pt}, {"x", other(jf::range(1, jf::none))}});
            }),
            "cannot broadcast nested list");
  EXPECT_EQ(message_of<jf::value_error>([&] {
              jf::zip({{"pt", pt}, {"pt", eta}});
            }),
            "jf::zip: the field name 'pt' is repeated");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::zip({}); }), "jf::zip needs at least one field");
  // Same counts, other offsets (a slice starting past 0): rebased to 0, contents viewed.
  const jf::jagged<float> longer({{9}, {10.5f, 20}, {}, {30}}, dev());
  const jf::jagged_record r2 = jf::zip({{"a", longer(jf::range(1, jf::none))}, {"b", charge}});
  EXPECT_EQ(r2.offsets().to_vector(), (std::vector<i64>{0, 2, 2, 3}));
  EXPECT_EQ(r2.field<float>("a").to_vector(), pt.to_vector());
  EXPECT_EQ(jf::to_string(r2), "[[{a: 10.5, b: 1}, {a: 20, b: -1}], [], [{a: 30, b: 1}]]");
  const jf::jagged_record host = jf::to_backend(ev, jf::cpu);
  EXPECT_EQ(jf::backend(host), jf::cpu);
  EXPECT_EQ(jf::to_string(host), jf::to_string(ev));
}

// The GPU against the CPU reference on more than 2^24 elements (6M lists, Poisson(2) + 1).
TEST(JaggedStructureLarge, GpuMatchesCpu) {
  if (!jf::cuda_available() && !std::getenv("JF_TEST_LARGE_ON_CPU"))
    GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  const jf::device other = jf::cuda_available() ? jf::cuda : jf::cpu;  // cpu: a check of the test itself
  const i64 n = 6'000'000;
  std::poisson_distribution<int> mult(2.0);
  std::vector<i64> counts(static_cast<std::size_t>(n));
  for (auto& c : counts) c = 1 + mult(test_support::rng());
  i64 total = 0;
  for (i64 c : counts) total += c;
  ASSERT_GE(total, i64{1} << 24);
  // Exact positions (a float arange's length would round above 2^24), then halved.
  const jf::array<float> content = jf::astype<float>(jf::arange<i64>(0, total, 1)) * 0.5f;
  const jf::jagged<float> cpu = jf::unflatten(content, jf::array<i64>(counts));
  const jf::jagged<float> gpu = jf::to_backend(cpu, other);
  std::vector<i64> pos(static_cast<std::size_t>(n / 2));
  for (auto& p : pos) p = test_support::rand_int(-n, n - 1);
  std::vector<bool> mask(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = test_support::rand_int(0, 2) == 0;
  EXPECT_EQ(jf::firsts(gpu).to_vector(), jf::firsts(cpu).to_vector());
  EXPECT_EQ(gpu(jf::all, -1).to_vector(), cpu(jf::all, -1).to_vector());
  EXPECT_EQ(gpu(jf::all, 0).to_vector(), cpu(jf::all, 0).to_vector());
  EXPECT_EQ(jf::flatten(jf::local_index(gpu)).to_vector(), jf::flatten(jf::local_index(cpu)).to_vector());
  const jf::jagged<float> sp = gpu(jf::array<i64>(pos, other)), cp = cpu(jf::array<i64>(pos));
  EXPECT_EQ(sp.offsets().to_vector(), cp.offsets().to_vector());
  EXPECT_EQ(sp.content().to_vector(), cp.content().to_vector());
  const jf::jagged<float> sm = gpu(jf::array<bool>(mask, other)), cm = cpu(jf::array<bool>(mask));
  EXPECT_EQ(sm.offsets().to_vector(), cm.offsets().to_vector());
  EXPECT_EQ(sm.content().to_vector(), cm.content().to_vector());
  const jf::jagged<float> rg = jf::concatenate(gpu, gpu, 1), rc = jf::concatenate(cpu, cpu, 1);
  EXPECT_EQ(rg.content().to_vector(), rc.content().to_vector());
  EXPECT_EQ(jf::to_string(gpu), jf::to_string(cpu));
  EXPECT_EQ(jf::display(gpu), [&] {
    std::string s = jf::display(cpu);
    if (other != jf::cpu) s.replace(s.find("backend: cpu"), 12, "backend: cuda");
    return s;
  }());
}

INSTANTIATE_TEST_SUITE_P(Backends, JaggedStructure, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
