// jf::einsum against tests/data/einsum_table.txt (numpy, from tests/data/gen_einsum_table.py) on
// both backends: values (small integers: exact in any order of summation), result dtypes and
// shapes, numpy's errors; then views and expressions as operands, and larger random contractions
// on the GPU against the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::parse_shape;
using test_support::parse_words;
using test_support::values_of;

// An operand of the table as the untyped array the dtype names.
jf::array_base operand(const std::string& dt, const std::string& shape, const std::vector<std::string>& v,
                       jf::device dev) {
  const jf::shape_t s = parse_shape(shape);
  if (dt == "bool") return jf::array<bool>(parse_words<bool>(values_of(v)), s, dev);
  if (dt == "int32") return jf::array<std::int32_t>(parse_words<std::int32_t>(values_of(v)), s, dev);
  if (dt == "int64") return jf::array<i64>(parse_words<i64>(values_of(v)), s, dev);
  if (dt == "float32") return jf::array<float>(parse_words<float>(values_of(v)), s, dev);
  return jf::array<double>(parse_words<double>(values_of(v)), s, dev);
}

template <class T>
jf::array<T> typed(const jf::array_base& a) {
  return jf::array<T>(a);
}

// Calls jf::einsum with the operands as arrays of their dtypes (the template front end).
template <class F>
auto with_operands(const std::vector<std::string>& dts, const std::vector<jf::array_base>& ops, F&& f) {
  auto one = [&](const std::string& dt, const jf::array_base& a, auto&& g) {
    if (dt == "bool") return g(typed<bool>(a));
    if (dt == "int32") return g(typed<std::int32_t>(a));
    if (dt == "int64") return g(typed<i64>(a));
    if (dt == "float32") return g(typed<float>(a));
    return g(typed<double>(a));
  };
  if (ops.size() == 1) return one(dts[0], ops[0], [&](auto a) { return f(a); });
  if (ops.size() == 2)
    return one(dts[0], ops[0], [&](auto a) { return one(dts[1], ops[1], [&](auto b) { return f(a, b); }); });
  return one(dts[0], ops[0], [&](auto a) {
    return one(dts[1], ops[1], [&](auto b) { return one(dts[2], ops[2], [&](auto c) { return f(a, b, c); }); });
  });
}

class Einsum : public test_support::on_backends {
};

TEST_P(Einsum, MatchesNumpy) {
  const jf::device dev = GetParam();
  std::ifstream f(JF_TEST_DATA_DIR "/einsum_table.txt");
  ASSERT_TRUE(f.good());
  int cases = 0;
  for (std::string line; std::getline(f, line);) {
    std::istringstream h(line);
    std::string word, subscripts;
    int n = 0;
    h >> word >> subscripts >> n;
    ASSERT_EQ(word, "case");
    std::vector<std::string> dts;
    std::vector<jf::array_base> ops;
    std::string description = subscripts;
    for (int k = 0; k < n; ++k) {
      std::string head, vals;
      std::getline(f, head);
      std::getline(f, vals);
      std::istringstream hs(head), vs(vals);
      std::string dt, shape;
      hs >> dt >> shape;
      std::vector<std::string> v;
      for (std::string w; vs >> w;) v.push_back(w);
      dts.push_back(dt);
      ops.push_back(operand(dt, shape, v, dev));
      description += " " + dt + " " + shape;
    }
    std::string result_line, result_values;
    std::getline(f, result_line);
    std::getline(f, result_values);
    SCOPED_TRACE(description + " on " + jf::to_string(dev));
    ++cases;
    std::istringstream rs(result_line);
    std::string status, rdt, rshape;
    rs >> status >> rdt >> rshape;
    auto run = [&] {
      return with_operands(dts, ops, [&](const auto&... a) { return jf::array_base(jf::einsum(subscripts, a...)); });
    };
    if (status == "error") {
      EXPECT_EQ(message_of<jf::value_error>(run), result_values);
      continue;
    }
    const jf::array_base r = run();
    EXPECT_EQ(std::string(jf::name(r.dtype())), rdt);
    EXPECT_EQ(r.shape(), parse_shape(rshape));
    std::istringstream vs(result_values);
    std::vector<std::string> want;
    for (std::string w; vs >> w;) want.push_back(w);
    const jf::array_base host = jf::detail::to_backend(r, jf::cpu);
    const jf::array_base expected = operand(rdt, rshape, want, jf::cpu);
    std::vector<double> got(static_cast<std::size_t>(host.size())), exp(static_cast<std::size_t>(host.size()));
    auto as_doubles = [](const jf::array_base& a, std::vector<double>& out) {
      switch (a.dtype()) {
        case jf::dtype::bool_: {
          auto v = jf::array<bool>(a).to_vector();
          for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
          break;
        }
        case jf::dtype::int32: {
          auto v = jf::array<std::int32_t>(a).to_vector();
          for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
          break;
        }
        case jf::dtype::int64: {
          auto v = jf::array<i64>(a).to_vector();
          for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]);
          break;
        }
        case jf::dtype::float32: {
          auto v = jf::array<float>(a).to_vector();
          for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
          break;
        }
        case jf::dtype::float64: {
          auto v = jf::array<double>(a).to_vector();
          for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
          break;
        }
        default: FAIL() << "the table has no " << jf::name(a.dtype());
      }
    };
    ASSERT_EQ(host.size(), expected.size());
    as_doubles(host, got);
    as_doubles(expected, exp);
    EXPECT_EQ(got, exp);
  }
  EXPECT_GT(cases, 120);
}

// Views (transposed, strided) and an expression as operands; a mismatch of extents.
TEST_P(Einsum, ViewsExpressionsAndErrors) {
  const jf::device dev = GetParam();
  const i64 n = 37, m = 29, k = 11;
  std::vector<double> ha(static_cast<std::size_t>(n * m)), hb(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = static_cast<double>(test_support::rand_int(-4, 4));
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = static_cast<double>(test_support::rand_int(-4, 4));
  const jf::array<double> a(ha, {n, m}, dev), b(hb, {m, k}, dev);
  const jf::array<double> at = a.transpose();  // m x n, a view
  // sum_i sum_j (2 a[i, j] + 1) b[j, l], with a given transposed ("ji").
  const jf::array<double> r = jf::einsum("ji,jl->l", at, b);
  const jf::array<double> r2 = jf::einsum("ij,jl->l", a * 2.0 + 1.0, b);
  std::vector<double> want(static_cast<std::size_t>(k)), want2(static_cast<std::size_t>(k));
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < m; ++j)
      for (i64 l = 0; l < k; ++l) {
        want[static_cast<std::size_t>(l)] +=
            ha[static_cast<std::size_t>(i * m + j)] * hb[static_cast<std::size_t>(j * k + l)];
        want2[static_cast<std::size_t>(l)] +=
            (2 * ha[static_cast<std::size_t>(i * m + j)] + 1) * hb[static_cast<std::size_t>(j * k + l)];
      }
  EXPECT_EQ(jf::to_backend(r, jf::cpu).to_vector(), want);
  EXPECT_EQ(jf::to_backend(r2, jf::cpu).to_vector(), want2);
  // Every other row of a (a strided view): the trace-like "ii" of a square block.
  const jf::array<double> sq = a(jf::range(0, 2 * 10, 2), jf::range(0, 10));
  double trace = 0;
  for (i64 i = 0; i < 10; ++i) trace += ha[static_cast<std::size_t>(2 * i * m + i)];
  EXPECT_EQ(jf::einsum("ii", sq).item(), trace);
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)jf::einsum("ij,jk->ik", a, a); }),
            "einsum: the operands' extents of subscript 'j' do not match (29 and 37): operands could not be broadcast "
            "together");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::einsum("...i->i", a); }),
            "jetfuse: einsum with '...' (broadcasting an ellipsis) is not supported yet");
}

// Larger random contractions on the GPU against the CPU (floats: the same products summed in another
// order; |terms| <= 143^2 and at most n * m of them per element, so 1e-3 is far above any rounding
// difference and far below any wrong term).
TEST(CudaEinsum, MatchesTheCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  const i64 n = 1000, m = 517, k = 300;
  SCOPED_TRACE("seed " + std::to_string(test_support::seed()));
  std::vector<double> ha(static_cast<std::size_t>(n * m)), hb(static_cast<std::size_t>(m * k));
  for (double& e : ha) e = static_cast<double>(test_support::rand_int(-1000, 1000)) / 7;
  for (double& e : hb) e = static_cast<double>(test_support::rand_int(-1000, 1000)) / 7;
  const jf::array<double> a(ha, {n, m}), b(hb, {m, k});
  for (const std::string s : {"ij,jk->k", "ij,jk->ik", "ij,jk", "ij,jk->", "ij->j"}) {
    SCOPED_TRACE(s);
    const std::vector<double> cpu = (s == "ij->j" ? jf::einsum(s, a) : jf::einsum(s, a, b)).to_vector();
    const jf::array<double> ga = jf::to_backend(a, jf::cuda), gb = jf::to_backend(b, jf::cuda);
    const std::vector<double> gpu =
        jf::to_backend(s == "ij->j" ? jf::einsum(s, ga) : jf::einsum(s, ga, gb), jf::cpu).to_vector();
    ASSERT_EQ(cpu.size(), gpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(gpu[i], cpu[i], 1e-3) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Einsum, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
