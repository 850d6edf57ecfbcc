// jf::pad_none (jetfuse/pad_none.hpp), jf::fill_none / jf::is_none of its results, the n-d
// jf::option_array and jf::jagged_option, and per-list reductions with jf::keepdims, against
// Awkward 2.14's own answers (tests/data/pad_none_table.txt, written by
// tests/data/gen_pad_none_table.py): values with None, type strings, str() and repr() text, on
// both backends; the errors; fill_none(pad_none(x, k, true), v) as one kernel; the GPU against the
// CPU on fresh random lists (JF_TEST_SEED replays them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "explained_cuda.hpp"
#include "test_support.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#endif

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::values_of;

class PadNone : public test_support::on_backends {};

// A case: the header's words after "case" (the last: how many lines follow) and its raw lines.
struct raw_case {
  std::vector<std::string> header;
  std::vector<std::string> lines;
};
std::vector<std::string> words(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> w;
  for (std::string x; s >> x;) w.push_back(x);
  return w;
}
std::vector<raw_case> read_cases(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path << " is missing";
  std::vector<raw_case> cases;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    raw_case c;
    c.header = words(line);
    c.header.erase(c.header.begin());  // "case"
    const int n = std::stoi(c.header.back());
    for (int k = 0; k < n && std::getline(f, line); ++k) c.lines.push_back(line);
    cases.push_back(std::move(c));
  }
  return cases;
}

template <class T>
std::vector<T> parsed(const std::string& line) {
  return test_support::parse_words<T>(values_of(words(line)));
}
template <class T>
std::vector<std::optional<T>> optionals(const std::string& line) {
  std::vector<std::optional<T>> out;
  for (const std::string& w : values_of(words(line))) {
    if (w == "None")
      out.emplace_back();
    else
      out.emplace_back(test_support::parse_words<T>({w})[0]);
  }
  return out;
}

// The table's four content dtypes (fewer instantiations than test_support::with_dtype).
template <class F>
void with_table_dtype(const std::string& name, F&& f) {
  if (name == "bool")
    f.template operator()<bool>();
  else if (name == "int32")
    f.template operator()<std::int32_t>();
  else if (name == "float32")
    f.template operator()<float>();
  else if (name == "float64")
    f.template operator()<double>();
  else
    ADD_FAILURE() << "unknown dtype " << name;
}

template <class T>
jf::jagged<T> lists_of(const raw_case& c, jf::device dev) {
  return jf::jagged<T>(jf::array<i64>(parsed<i64>(c.lines[0]), dev), jf::array<T>(parsed<T>(c.lines[1]), dev));
}

template <class T>
std::vector<std::optional<T>> flat(const std::vector<std::vector<std::optional<T>>>& lists) {
  std::vector<std::optional<T>> out;
  for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

template <class T>
void check_pad(const raw_case& c, jf::device dev) {
  const auto& L = c.lines;
  SCOPED_TRACE("pad " + c.header[1] + " " + c.header[2] + " target " + c.header[3]);
  const jf::jagged<T> x = lists_of<T>(c, dev);
  const i64 n = x.size(), target = std::stoll(c.header[3]);
  const T fill = test_support::parse_words<T>({c.header[4]})[0];
  // clip=true: n * target * ?T
  if (L[2] == "error") {
    EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::pad_none(x, target, true); }),
              "negative dimensions are not allowed");
  } else {
    const jf::option_array<T> p = jf::pad_none(x, target, true);
    EXPECT_EQ(p.backend(), dev);
    EXPECT_EQ(p.shape(), (jf::shape_t{n, target}));
    EXPECT_EQ(p.to_vector(), optionals<T>(L[2]));
    EXPECT_EQ(jf::to_string(p), L[3]);
    EXPECT_EQ(jf::awkward_repr(p), L[4]);
    EXPECT_EQ(jf::type_string(p), L[5]);
    EXPECT_EQ(jf::type_string(jf::pad_none(x, target, true)), L[5]);
    EXPECT_EQ(jf::awkward_repr(jf::pad_none(x, target, true)), L[4]);
    const jf::array<T> f = jf::fill_none(jf::pad_none(x, target, true), fill);
    EXPECT_EQ(f.device(), dev);
    EXPECT_EQ(f.shape(), (jf::shape_t{n, target}));
    EXPECT_EQ(f.to_vector(), parsed<T>(L[11]));
    EXPECT_EQ(jf::awkward_str(f), L[12]);
    EXPECT_EQ(jf::fill_none(p, fill).to_vector(), parsed<T>(L[11]));
    EXPECT_EQ(jf::is_none(p).to_vector(), parsed<bool>(L[14]));
  }
  // clip=false: n * var * ?T
  const jf::jagged_option<T> q = jf::pad_none(x, target);
  EXPECT_EQ(q.backend(), dev);
  EXPECT_EQ(jf::num(q.values()).to_vector(), parsed<i64>(L[6]));
  EXPECT_EQ(flat(q.to_vector()), optionals<T>(L[7]));
  EXPECT_EQ(jf::to_string(q), L[8]);
  EXPECT_EQ(jf::awkward_repr(q), L[9]);
  EXPECT_EQ(jf::type_string(q), L[10]);
  EXPECT_EQ(jf::to_string(jf::pad_none(x, target, false, -1)), L[8]);
  const jf::jagged<T> qf = jf::fill_none(jf::pad_none(x, target), fill);
  EXPECT_EQ(jf::flatten(qf).to_vector(), parsed<T>(L[13]));
  EXPECT_EQ(jf::num(qf).to_vector(), parsed<i64>(L[6]));
  std::vector<bool> none;
  for (const auto& v : flat(q.to_vector())) none.push_back(!v.has_value());
  EXPECT_EQ(jf::flatten(jf::is_none(q)).to_vector(), none);
}

// Awkward's value of a reduction against ours: integers and bools exactly, floats within `rel`
// (the order of a sum's additions may differ on the GPU).
template <class R>
::testing::AssertionResult close(const std::vector<R>& got, const std::vector<R>& want, double rel) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values, want " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok = got[i] == want[i];
    if constexpr (std::is_floating_point_v<R>)
      ok = ok || (std::isnan(got[i]) && std::isnan(want[i])) ||
           std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <=
               rel * std::abs(static_cast<double>(want[i]));
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want[i];
  }
  return ::testing::AssertionSuccess();
}

template <class T, class E>
void check_reduced(const raw_case& c, jf::device dev, const E& e) {
  const auto& L = c.lines;
  const std::string& red = c.header[3];
  const auto r = jf::eval(e);
  using R = typename decltype(r)::value_type;
  const i64 n = std::stoll(std::to_string(jf::num(lists_of<T>(c, dev), 0).item()));
  EXPECT_EQ(r.shape(), (jf::shape_t{n, 1}));
  // Documented difference: mean, var and std of float32 lists are float32 (Awkward: float64).
  const bool f32_moment = std::is_same_v<T, float> && (red == "mean" || red == "var" || red == "std");
  std::string type = L[3];
  if (f32_moment) type.replace(type.rfind("float64"), 7, "float32");
  const bool float_sum =
      std::is_floating_point_v<R> && (red == "sum" || red == "prod" || red == "mean" || red == "var" || red == "std");
  if constexpr (requires { r.valid(); }) {
    EXPECT_EQ(jf::type_string(r), type);
    EXPECT_EQ(r.to_vector(), optionals<R>(L[2]));
  } else {
    EXPECT_EQ(jf::awkward_type_string(r), type);
    EXPECT_TRUE(close(r.to_vector(), parsed<R>(L[2]), std::is_same_v<R, float> ? 1e-5 : 1e-12));
  }
  // The text, where the value is Awkward's to the last bit.
  if (!f32_moment && !(float_sum && dev != jf::cpu)) {
    EXPECT_EQ(jf::awkward_str(r), L[4]);
  }
}

template <class T>
void check_keep(const raw_case& c, jf::device dev) {
  const auto& L = c.lines;
  const std::string& red = c.header[3];
  SCOPED_TRACE("keepdims " + c.header[1] + " " + c.header[2] + " " + red);
  if (L[2] == "error") return;  // Awkward does not reduce this dtype so (none in this table)
  const jf::jagged<T> x = lists_of<T>(c, dev);
  const auto k = jf::keepdims;
  if (red == "sum")
    check_reduced<T>(c, dev, jf::sum(x, -1, k));
  else if (red == "prod")
    check_reduced<T>(c, dev, jf::prod(x, -1, k));
  else if (red == "mean")
    check_reduced<T>(c, dev, jf::mean(x, -1, k));
  else if (red == "var")
    check_reduced<T>(c, dev, jf::var(x, -1, k));
  else if (red == "std")
    check_reduced<T>(c, dev, jf::std(x, -1, k));
  else if (red == "any")
    check_reduced<T>(c, dev, jf::any(x, -1, k));
  else if (red == "all")
    check_reduced<T>(c, dev, jf::all(x, 1, k));
  else if (red == "count_nonzero")
    check_reduced<T>(c, dev, jf::count_nonzero(x, -1, k));
  else if (red == "min")
    check_reduced<T>(c, dev, jf::min(x, -1, k));
  else if (red == "max")
    check_reduced<T>(c, dev, jf::max(x, 1, k));
  else if (red == "argmin")
    check_reduced<T>(c, dev, jf::argmin(x, -1, k));
  else if (red == "argmax")
    check_reduced<T>(c, dev, jf::argmax(x, -1, k));
  else
    ADD_FAILURE() << "unknown reducer " << red;
}

TEST_P(PadNone, MatchesAwkward) {
  const auto cases = read_cases(JF_TEST_DATA_DIR "/pad_none_table.txt");
  ASSERT_EQ(cases.size(), 467u);  // 131 pad_none cases, 336 keepdims cases
  for (const auto& c : cases) {
    ASSERT_EQ(c.lines.size(), static_cast<std::size_t>(std::stoi(c.header.back()))) << "a truncated table";
    with_table_dtype(c.header.at(1), [&]<class T>() {
      if (c.header[0] == "pad")
        check_pad<T>(c, dev());
      else
        check_keep<T>(c, dev());
    });
  }
}

// The pad-and-fill idiom is one fused kernel (one CPU evaluation, one launch); the input is untouched.
TEST_P(PadNone, FillOfPadIsOneKernel) {
  const jf::jagged<float> whole({{1, 2, 3}, {}, {4}, {5, 6}, {7, 8, 9, 10}}, dev());
  const jf::jagged<float> x = whole(jf::range(1, jf::none));           // offsets from 3
  (void)jf::array<float>(jf::fill_none(jf::pad_none(x, 3, true), 0));  // compiled once
  jf::reset_stats();
  const jf::array<float> f = jf::fill_none(jf::pad_none(x, 3, true), -1);
  const jf::stats_t st = jf::stats();
  EXPECT_EQ(dev() == jf::cpu ? st.cpu_evaluations : st.launches, 1u);
  EXPECT_EQ(f.to_vector(), (std::vector<float>{-1, -1, -1, 4, -1, -1, 5, 6, -1, 7, 8, 9}));
  EXPECT_EQ(jf::awkward_repr(f), "<Array [[-1, -1, -1], [4, -1, -1], ..., [7, 8, 9]] type='4 * 3 * float32'>");
  EXPECT_EQ(x.to_vector(), (std::vector<std::vector<float>>{{}, {4}, {5, 6}, {7, 8, 9, 10}}));
  // jf::padded prints as what it converts to, computed when printed.
  EXPECT_EQ(jf::to_string(jf::pad_none(x, 1, true)), "[[None], [4], [5], [7]]");
  EXPECT_EQ(jf::to_string(jf::pad_none(x, 1)), "[[None], [4], [5, 6], [7, 8, 9, 10]]");
  std::ostringstream os;
  os << jf::pad_none(x, 2);
  EXPECT_EQ(os.str(), "[[None, None], [4, None], [5, 6], [7, 8, 9, 10]]");
}

TEST_P(PadNone, Errors) {
  const jf::jagged<double> x({{1.5, 2}, {}, {3}}, dev());
  const std::vector<std::vector<double>> before = x.to_vector();
  for (int axis : {2, -3, 5})
    EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::pad_none(x, 2, true, axis); }),
              "axis=" + std::to_string(axis) + " exceeds the depth of this array (2)");
  EXPECT_THROW((void)jf::pad_none(x, 2, false, 0), jf::value_error);  // Awkward pads the number of lists
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::pad_none(x, -1, true); }),
            "negative dimensions are not allowed");
  // A negative target with clip=false pads nothing (Awkward's answer).
  EXPECT_EQ(jf::jagged_option<double>(jf::pad_none(x, -1)).to_vector().size(), 3u);
  // The conversion its clip does not give.
  EXPECT_THROW((void)jf::jagged_option<double>(jf::pad_none(x, 2, true)), jf::value_error);
  EXPECT_THROW((void)jf::option_array<double>(jf::pad_none(x, 2)), jf::value_error);
  EXPECT_THROW((void)jf::array<double>(jf::fill_none(jf::pad_none(x, 2), 0)), jf::value_error);
  EXPECT_THROW((void)jf::jagged<double>(jf::fill_none(jf::pad_none(x, 2, true), 0)), jf::value_error);
  // keepdims: per list only; a per-list (n, 1) value reduced again is not done.
  EXPECT_THROW((void)jf::array<double>(jf::sum(x, jf::keepdims)), jf::value_error);
  EXPECT_THROW((void)jf::array<double>(jf::sum(jf::sum(x, -1, jf::keepdims), 0)), jf::value_error);
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::array<double>(jf::sum(x, 2, jf::keepdims)); }),
            "axis=2 exceeds the depth of the nested list structure (which is 2)");
  // The option type's shapes.
  EXPECT_THROW(jf::option_array<double>(jf::zeros<double>(jf::shape_t{2, 3}), jf::zeros<bool>(jf::shape_t{3, 2})),
               jf::shape_error);
  EXPECT_THROW(jf::jagged_option<double>(x, jf::zeros<bool>(jf::shape_t{2}, dev())), jf::shape_error);
  if (dev() != jf::cpu) {  // mixed backends
    const jf::jagged<double> h = jf::to_backend(x, jf::cpu);
    EXPECT_THROW(jf::jagged_option<double>(x, jf::zeros<bool>(jf::shape_t{3})), jf::backend_mismatch);
    EXPECT_THROW(
        jf::option_array<double>(jf::zeros<double>(jf::shape_t{3, 1}, dev()), jf::zeros<bool>(jf::shape_t{3, 1})),
        jf::backend_mismatch);
    EXPECT_THROW((void)jf::array<double>(jf::sum(x, -1, jf::keepdims) + jf::sum(h, -1, jf::keepdims)),
                 jf::backend_mismatch);
  }
  EXPECT_EQ(x.to_vector(), before);
}

// keepdims in expressions: (n, 1) where the result is per list (Awkward's n * 1 * T, also after
// arithmetic); inside an expression over the elements a
// keepdims value broadcasts into each list as one without it (x - mean(x, -1, keepdims)).
TEST_P(PadNone, KeepdimsInExpressions) {
  const jf::jagged<double> x({{1, 2, 3}, {}, {4, 8}}, dev());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const jf::array<double> twice = jf::sum(x, -1, jf::keepdims) * 2 + jf::count_nonzero(x, -1, jf::keepdims);
  EXPECT_EQ(twice.shape(), (jf::shape_t{3, 1}));
  EXPECT_EQ(twice.to_vector(), (std::vector<double>{15, 0, 26}));
  // (n, 1) beside (n,): Awkward gives (n, n) (numpy's broadcasting): refused.
  EXPECT_THROW((void)jf::array<double>(jf::sum(x, -1, jf::keepdims) + jf::sum(x, -1)), jf::value_error);
  EXPECT_THROW((void)jf::array<double>(jf::sum(x, -1, jf::keepdims) + jf::array<double>({1., 2., 3.}, dev())),
               jf::value_error);
  EXPECT_EQ(jf::awkward_type_string(twice), "3 * 1 * float64");
  const jf::jagged<double> centred = x - jf::mean(x, -1, jf::keepdims);
  EXPECT_EQ(centred.to_vector(), (std::vector<std::vector<double>>{{-1, 0, 1}, {}, {-2, 2}}));
  const jf::array<double> spread = jf::sum(x - jf::mean(x, -1, jf::keepdims), -1);  // no keepdims outside
  EXPECT_EQ(spread.shape(), (jf::shape_t{3}));
  const jf::option_array<double> m = jf::max(x * 2, -1, jf::keepdims);
  EXPECT_EQ(jf::to_string(m), "[[6], [None], [16]]");
  EXPECT_EQ(jf::type_string(m), "3 * 1 * ?float64");
  // Into a poisoned destination of shape (n, 1): every element written.
  jf::array<double> out = jf::full<double>(jf::shape_t{3, 1}, nan, dev());
  out = jf::mean(x, 1, jf::keepdims);
  EXPECT_TRUE(test_support::same(out.to_vector(), std::vector<double>{2, nan, 6}));
  jf::array<double> flat_out = jf::full<double>(jf::shape_t{3}, nan, dev());
  EXPECT_THROW(flat_out = jf::mean(x, 1, jf::keepdims), jf::shape_error);
}

// The GPU against the CPU on fresh random lists (Poisson(3), a slice whose offsets start past 0):
// pad_none both ways, fill_none, keepdims reductions into poisoned destinations.
TEST(PadNoneLarge, GpuMatchesCpu) {
  if (!jf::cuda_available() && !std::getenv("JF_TEST_LARGE_ON_CPU"))
    GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  const jf::device other = jf::cuda_available() ? jf::cuda : jf::cpu;  // cpu: a check of the test itself
  const i64 n = 300'000;
  std::poisson_distribution<int> mult(3.0);
  std::normal_distribution<float> val(0, 10);
  std::vector<std::vector<float>> lists(static_cast<std::size_t>(n));
  for (auto& l : lists)
    for (int k = mult(test_support::rng()); k > 0; --k) l.push_back(val(test_support::rng()));
  const jf::jagged<float> cpu = jf::jagged<float>(lists)(jf::range(1000, jf::none));
  const jf::jagged<float> gpu = jf::to_backend(jf::jagged<float>(lists), other)(jf::range(1000, jf::none));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (i64 k : {0, 1, 3, 7}) {
    SCOPED_TRACE("target " + std::to_string(k));
    // Poison the allocator's memory: the results' buffers may come from it.
    (void)jf::full<float>(jf::shape_t{4 * n * (k + 1)}, nan, other);
    const jf::option_array<float> pg = jf::pad_none(gpu, k, true), pc = jf::pad_none(cpu, k, true);
    EXPECT_EQ(pg.to_vector(), pc.to_vector());
    const jf::jagged_option<float> qg = jf::pad_none(gpu, k), qc = jf::pad_none(cpu, k);
    EXPECT_EQ(qg.offsets().to_vector(), qc.offsets().to_vector());
    EXPECT_EQ(qg.to_vector(), qc.to_vector());
    EXPECT_EQ(jf::array<float>(jf::fill_none(jf::pad_none(gpu, k, true), -1)).to_vector(),
              jf::array<float>(jf::fill_none(jf::pad_none(cpu, k, true), -1)).to_vector());
    EXPECT_EQ(jf::to_string(pg), jf::to_string(pc));
    EXPECT_EQ(jf::to_string(qg), jf::to_string(qc));
  }
  const i64 m = cpu.size();
  jf::array<float> sg = jf::full<float>(jf::shape_t{m, 1}, nan, other), sc = jf::full<float>(jf::shape_t{m, 1}, nan);
  sg = jf::sum(gpu * gpu, -1, jf::keepdims);
  sc = jf::sum(cpu * cpu, -1, jf::keepdims);
  const std::vector<float> a = sg.to_vector(), b = sc.to_vector();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4f * std::abs(b[i]) + 1e-6f) << "list " << i;
  const jf::option_array<float> mg = jf::max(gpu, -1, jf::keepdims), mc = jf::max(cpu, -1, jf::keepdims);
  EXPECT_EQ(mg.shape(), (jf::shape_t{m, 1}));
  EXPECT_EQ(mg.to_vector(), mc.to_vector());
  const jf::option_array<std::int64_t> ag = jf::argmin(gpu, -1, jf::keepdims), ac = jf::argmin(cpu, -1, jf::keepdims);
  EXPECT_EQ(ag.to_vector(), ac.to_vector());
}

// Arithmetic with None propagating (Awkward's p * 2 + 1, p + q) is written on the values, the
// validity carried (and AND-ed for two option arrays): one fused kernel each.
TEST_P(PadNone, ArithmeticOnValuesWithValidity) {
  const jf::jagged<float> x({{}, {4}, {5, 6}, {7, 8, 9, 10}}, dev());
  const jf::jagged<float> y({{7, 8, 9, 10}, {5, 6}, {4}, {}}, dev());
  const jf::option_array<float> p = jf::pad_none(x, 2, true), q = jf::pad_none(y, 2, true);
  const jf::option_array<float> affine(jf::array<float>(p.values() * 2 + 1), p.valid());
  EXPECT_EQ(jf::to_string(affine), "[[None, None], [9, None], [11, 13], [15, 17]]");  // Awkward's text
  auto [sum_values, both] = jf::eval(p.values() + q.values(), p.valid() && q.valid());
  const jf::option_array<float> added(sum_values, both);
  EXPECT_EQ(jf::to_string(added), "[[None, None], [9, None], [9, None], [None, None]]");
  EXPECT_EQ(jf::type_string(added), "4 * 2 * ?float32");
}

// Array.show(type=True) as Awkward 2.14 writes it (its text pasted here), and a strided content
// view and reversed offsets' view as operands.
TEST_P(PadNone, ShowAndViews) {
  const jf::array<double> wide({1.5, -1, 2, -1, 3, -1, 4, -1, 5, -1, 6, -1}, dev());
  const jf::jagged<double> x(jf::array<i64>({0, 3, 3, 4, 6}, dev()),
                             jf::array<double>(wide(jf::range(0, jf::none, 2))));
  jf::detail::show_options t;
  t.type = true;
  EXPECT_EQ(jf::show(jf::pad_none(x, 2, true), t),
            "type: 4 * 2 * ?float64\n[[1.5, 2],\n [None, None],\n [4, None],\n [5, 6]]");
  EXPECT_EQ(jf::show(jf::pad_none(x, 2), t),
            "type: 4 * var * ?float64\n[[1.5, 2, 3],\n [None, None],\n [4, None],\n [5, 6]]");
  EXPECT_EQ(jf::show(jf::array<double>(jf::sum(x, -1, jf::keepdims)), t),
            "type: 4 * 1 * float64\n[[6.5],\n [0],\n [4],\n [11]]");
  EXPECT_EQ(jf::show(jf::array<double>(jf::fill_none(jf::pad_none(x, 2, true), 0)), t),
            "type: 4 * 2 * float64\n[[1.5, 2],\n [0, 0],\n [4, 0],\n [5, 6]]");
  // Offsets as a strided view (every other entry of a longer array).
  const jf::array<i64> off_wide({0, 9, 3, 9, 3, 9, 4, 9, 6}, dev());
  const jf::jagged<double> y(jf::array<i64>(off_wide(jf::range(0, jf::none, 2))), x.content());
  EXPECT_EQ(jf::array<double>(jf::fill_none(jf::pad_none(y, 3, true), -1)).to_vector(),
            (std::vector<double>{1.5, 2, 3, -1, -1, -1, 4, -1, -1, 5, 6, -1}));
  EXPECT_EQ(jf::to_string(jf::pad_none(y, 3)), "[[1.5, 2, 3], [None, None, None], [4, None, None], [5, 6, None]]");
}

// The kernels jf::cuda runs for pad_none (jf::explain_cuda: no GPU needed): one each, and each
// compiles with NVRTC for sm_90 where the CUDA toolkit is (the expressions pad_none.hpp builds).
TEST(PadNoneCuda, OneKernelEachCompilingWithNvrtc) {
  const jf::jagged<float> x({{1, 2, 3}, {}, {4}, {5, 6}}, jf::cpu);
  const jf::detail::rectangle r = jf::detail::rectangle_of(x.offsets(), 3);
  const jf::array<i64> j = jf::arange<i64>(0, 9, 1);
  const jf::array<i64> off({0, 3, 6, 9, 12});
  const jf::detail::padded_lists p{jf::detail::starts_of(x.offsets()), jf::num(x), off,
                                   jf::array<i64>(jf::detail::list_of_elements(off, j)), j};
  const std::string plans[] = {
      jf::explain_cuda(jf::detail::rectangle_values(x.content(), r, -1.f)),  // fill_none(pad_none(x, 3, true))
      jf::explain_cuda(jf::detail::rectangle_values(x.content(), r, 0.f), jf::detail::inside(r)),    // clip
      jf::explain_cuda(jf::detail::padded_list_values(x.content(), p, 0.f), jf::detail::inside(p)),  // no clip
  };
  for (const std::string& e : plans) {
    SCOPED_TRACE(e);
    std::size_t kernels = 0;
    for (std::size_t at = 0; (at = e.find("--- kernel ", at)) != std::string::npos; ++at) ++kernels;
    EXPECT_EQ(kernels, 1u);
    test_support::expect_explained_cuda_compiles(e);
  }
#ifndef JF_HAVE_CUDA
  GTEST_SKIP() << "built without the CUDA toolkit: NVRTC compilation not checked";
#endif
}

INSTANTIATE_TEST_SUITE_P(Backends, PadNone, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
