// numpy.repeat with per-element counts (jf::repeat(a, counts[, axis])) against numpy's answers
// (tests/data/repeat_table.txt, written by tests/data/gen_repeat_table.py) on each backend: values,
// shapes and numpy's ValueError messages; then random counts (zeros included) on views and int32
// counts, checked against a host loop, and the GPU against the CPU. GPU cases skip without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using test_support::message_of;
using test_support::parse_words;

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

class RepeatCounts : public ::testing::TestWithParam<jf::device> {
 protected:
  void SetUp() override {
    if (GetParam() == jf::cuda && !jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine";
  }
  jf::device dev() const { return GetParam(); }
};

TEST_P(RepeatCounts, NumpysTable) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/repeat_table.txt", 5);
  ASSERT_EQ(cases.size(), 17u);
  for (const auto& c : cases) {
    const jf::shape_t shape = test_support::shape_of(parse_words<std::int64_t>(c.lines[0]));
    const jf::array<double> a(parse_words<double>(c.lines[1]), shape, dev());
    const jf::array<std::int64_t> counts(parse_words<std::int64_t>(c.lines[2]),
                                         jf::shape_t{static_cast<std::int64_t>(c.lines[2].size())}, dev());
    const bool flat = c.header[0] == "none";
    const int axis = flat ? 0 : std::stoi(c.header[0]);
    auto run = [&] { return flat ? jf::repeat(a, counts) : jf::repeat(a, counts, axis); };
    SCOPED_TRACE("case axis " + c.header[0] + ", shape " + joined(c.lines[0]) + ", counts " + joined(c.lines[2]));
    if (!c.lines[3].empty() && c.lines[3][0] == "error") {
      EXPECT_EQ(message_of<jf::value_error>([&] { (void)run(); }), joined(c.lines[4]));
      continue;
    }
    const jf::array<double> r = run();
    EXPECT_EQ(r.shape(), test_support::shape_of(parse_words<std::int64_t>(c.lines[3])));
    EXPECT_EQ(jf::to_backend(r, jf::cpu).to_vector(), parse_words<double>(c.lines[4]));
  }
}

// Random counts (a third of them 0) along each axis of a transposed view, int32 counts, against a
// host loop over the view's elements.
TEST_P(RepeatCounts, RandomCountsOnViews) {
  const std::int64_t rows = 37, cols = 1025;
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (auto& x : v) x = static_cast<float>(test_support::rand_int(-1000, 1000));
  const jf::array<float> base(v, {rows, cols}, dev());
  const jf::array<float> t = base.transpose();  // (cols, rows), strided
  for (int axis : {0, 1}) {
    const std::int64_t len = t.shape()[axis];
    std::vector<std::int32_t> counts(static_cast<std::size_t>(len));
    for (auto& k : counts) k = static_cast<std::int32_t>(std::max<std::int64_t>(0, test_support::rand_int(-2, 4)));
    const jf::array<float> r = jf::repeat(t, jf::array<std::int32_t>(counts, {len}, dev()), axis);
    std::vector<float> want;
    jf::shape_t want_shape = t.shape();
    want_shape[axis] = 0;
    for (auto k : counts) want_shape[axis] += k;
    for (std::int64_t i = 0; i < t.shape()[0]; ++i) {
      const std::int64_t ri = axis == 0 ? counts[static_cast<std::size_t>(i)] : 1;
      for (std::int64_t a = 0; a < ri; ++a)
        for (std::int64_t j = 0; j < t.shape()[1]; ++j) {
          const std::int64_t rj = axis == 1 ? counts[static_cast<std::size_t>(j)] : 1;
          for (std::int64_t b = 0; b < rj; ++b) want.push_back(v[static_cast<std::size_t>(j * cols + i)]);
        }
    }
    EXPECT_EQ(r.shape(), want_shape) << "axis " << axis;
    EXPECT_EQ(jf::to_backend(r, jf::cpu).to_vector(), want) << "axis " << axis;
  }
  // numpy's AxisError; the inputs are never changed.
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::repeat(t, jf::array<std::int64_t>({1, 2}, dev()), 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(jf::to_backend(base, jf::cpu).to_vector(), v);
}

INSTANTIATE_TEST_SUITE_P(Backends, RepeatCounts, ::testing::Values(jf::cpu, jf::cuda),
                         [](const auto& info) { return std::string(info.param == jf::cpu ? "cpu" : "cuda"); });

}  // namespace
