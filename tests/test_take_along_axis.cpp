// jf::take_along_axis (numpy.take_along_axis) on every backend: numpy's values and errors from
// tests/data/take_along_table.txt (gen_take_along_table.py: rows, columns, 3-d, broadcast indices
// and x, empty results, out-of-range indices, another rank, shapes that do not broadcast), the
// argmax idiom fused into one evaluation, expression indices and views against host loops on
// fresh random inputs, and GPU against CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::parse_shape;
using test_support::parse_words;
using test_support::same;
using test_support::values_of;

class TakeAlongAxis : public test_support::on_backends {};

TEST_P(TakeAlongAxis, MatchesNumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/take_along_table.txt", 6);
  ASSERT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    const int axis = std::stoi(c.header[0]);
    const jf::shape_t xs = parse_shape(c.lines[0][0]), is = parse_shape(c.lines[2][0]);
    SCOPED_TRACE("x " + c.lines[0][0] + ", indices " + c.lines[2][0] + ", axis " + std::to_string(axis));
    const jf::array<double> x = jf::array<double>(parse_words<double>(values_of(c.lines[1])), dev()).reshape(xs);
    const jf::array<i64> idx = jf::array<i64>(parse_words<i64>(values_of(c.lines[3])), dev()).reshape(is);
    const std::vector<double> x_before = x.to_vector();
    if (c.lines[4][0] == "error") {
      std::string msg;
      for (std::size_t k = 0; k < c.lines[5].size(); ++k) msg += (k ? " " : "") + c.lines[5][k];
      const std::string kind = c.lines[4][1];
      auto run = [&] { jf::array<double> r = jf::take_along_axis(x, idx, axis); };
      if (kind == "index") EXPECT_EQ(test_support::message_of<jf::index_error>(run), msg);
      else if (kind == "value") EXPECT_EQ(test_support::message_of<jf::value_error>(run), msg);
      else EXPECT_NE(test_support::message_of<jf::shape_error>(run).find("shape mismatch"), std::string::npos);
      EXPECT_EQ(x.to_vector(), x_before);
      continue;
    }
    // Into an existing array of the result's shape, poisoned first.
    jf::array<double> out = jf::full<double>(parse_shape(c.lines[4][0]), -99.0, dev());
    out = jf::take_along_axis(x, idx, axis);
    EXPECT_EQ(out.shape(), parse_shape(c.lines[4][0]));
    EXPECT_TRUE(same(out.to_vector(), parse_words<double>(values_of(c.lines[5]))));
  }
}

// numpy's idiom: each row's largest value and its neighbour, found and read in one evaluation.
TEST_P(TakeAlongAxis, ArgmaxIdiomAndExpressionIndices) {
  auto& r = test_support::rng();
  for (i64 rows : {i64{1}, i64{7}, i64{1000}}) {
    for (i64 cols : {i64{1}, i64{33}, i64{1025}}) {
      std::vector<float> xv(static_cast<std::size_t>(rows * cols));
      for (float& e : xv) e = static_cast<float>(r() % 20011) - 10000.0f;
      const jf::array<float> x = jf::array<float>(xv, dev()).reshape({rows, cols});
      const jf::array<float> best = jf::take_along_axis(x, jf::argmax(x, 1, jf::keepdims), 1);
      const jf::array<float> next = jf::take_along_axis(x, (jf::argmax(x, 1, jf::keepdims) + 1) % cols, 1) * 2;
      ASSERT_EQ(best.shape(), (jf::shape_t{rows, 1}));
      const std::vector<float> b = best.to_vector(), n = next.to_vector();
      for (i64 i = 0; i < rows; ++i) {
        i64 k = 0;
        for (i64 j = 1; j < cols; ++j)
          if (xv[static_cast<std::size_t>(i * cols + j)] > xv[static_cast<std::size_t>(i * cols + k)]) k = j;
        ASSERT_EQ(b[static_cast<std::size_t>(i)], xv[static_cast<std::size_t>(i * cols + k)]) << "row " << i;
        ASSERT_EQ(n[static_cast<std::size_t>(i)], 2 * xv[static_cast<std::size_t>(i * cols + (k + 1) % cols)]) << "row " << i;
      }
    }
  }
}

// Views of x (transposed, reversed, strided) and of the indices, against host loops; negative
// indices count from the end.
TEST_P(TakeAlongAxis, ViewsAgainstHostLoops) {
  auto& r = test_support::rng();
  const i64 m = 37, n = 23;
  std::vector<i64> base(static_cast<std::size_t>(m * n));
  for (i64& e : base) e = static_cast<i64>(r() % 1000);
  const jf::array<i64> a = jf::array<i64>(base, dev()).reshape({m, n});
  const jf::array<i64> t = a.transpose();                                                   // (n, m)
  const jf::array<i64> rev = a(jf::range(jf::range::none, jf::range::none, -1), jf::all);  // rows reversed
  auto at = [&](i64 i, i64 j) { return base[static_cast<std::size_t>(i * n + j)]; };
  std::vector<i64> iv(static_cast<std::size_t>(n * 5));
  for (i64& e : iv) e = static_cast<i64>(r() % static_cast<std::uint64_t>(2 * m)) - m;  // [-m, m)
  const jf::array<i64> idx = jf::array<i64>(iv, dev()).reshape({n, 5});
  auto norm = [&](i64 v) { return v < 0 ? v + m : v; };
  const std::vector<i64> got = jf::array<i64>(jf::take_along_axis(t, idx, 1)).to_vector();
  for (i64 i = 0; i < n; ++i)
    for (i64 k = 0; k < 5; ++k)
      ASSERT_EQ(got[static_cast<std::size_t>(i * 5 + k)], at(norm(iv[static_cast<std::size_t>(i * 5 + k)]), i));
  // Along axis 0 of the reversed rows, with the indices transposed (a (5, n) view).
  const std::vector<i64> got0 = jf::array<i64>(jf::take_along_axis(rev, idx.transpose(), 0)).to_vector();
  for (i64 k = 0; k < 5; ++k)
    for (i64 j = 0; j < n; ++j)
      ASSERT_EQ(got0[static_cast<std::size_t>(k * n + j)], at(m - 1 - norm(iv[static_cast<std::size_t>(j * 5 + k)]), j));
}

INSTANTIATE_TEST_SUITE_P(Backends, TakeAlongAxis, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

// jf::cuda against jf::cpu on a large random case (every index in range, some negative).
TEST(TakeAlongAxisGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& r = test_support::rng();
  const i64 m = 4099, n = 1031, k = 17;
  std::vector<double> xv(static_cast<std::size_t>(m * n));
  for (double& e : xv) e = static_cast<double>(r() % 100003) * 0.5;
  std::vector<std::int32_t> iv(static_cast<std::size_t>(m * k));
  for (auto& e : iv) e = static_cast<std::int32_t>(r() % static_cast<std::uint64_t>(2 * n)) - static_cast<std::int32_t>(n);
  auto run = [&](jf::device dev) {
    const jf::array<double> x = jf::array<double>(xv, dev).reshape({m, n});
    const jf::array<std::int32_t> idx = jf::array<std::int32_t>(iv, dev).reshape({m, k});
    return jf::array<double>(jf::sqrt(jf::take_along_axis(x, idx, 1)) + 1).to_vector();
  };
  EXPECT_TRUE(same(run(jf::cuda), run(jf::cpu)));
}

}  // namespace
