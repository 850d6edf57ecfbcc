// x(mask) = values (numpy's x[mask] = v with one value per selected element): against
// tests/data/masked_values_table.txt (numpy, from tests/data/gen_masked_values_table.py) on both
// backends, then views, expression masks and values, and failures that leave x untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::parse_shape;
using test_support::parse_words;
using test_support::values_of;

// Bit-equal floats (-0.0 told from 0.0).
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  else
    return a == b;
}

template <class T, class V>
void check_case(const test_support::table_case& t, jf::device dev) {
  const std::string& xs = t.header.at(1);
  const std::string& ms = t.header.at(2);
  const std::string& vs = t.header.at(4);
  SCOPED_TRACE("x " + t.header.at(0) + " " + xs + " mask " + ms + " values " + t.header.at(3) + " " + vs + " on " +
               jf::to_string(dev));
  const std::vector<T> x0 = parse_words<T>(values_of(t.lines[0]));
  jf::array<T> x(x0, parse_shape(xs), dev);
  const jf::array<bool> m(parse_words<bool>(values_of(t.lines[1])), parse_shape(ms), dev);
  const jf::array<V> v(parse_words<V>(values_of(t.lines[2])), parse_shape(vs), dev);
  auto assign = [&] { x(m) = v; };
  if (t.lines[3].at(0) == "ok") {
    assign();
    const std::vector<T> got = jf::to_backend(x, jf::cpu).to_vector();
    const std::vector<T> want = parse_words<T>(values_of(t.lines[4]));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k)
      EXPECT_TRUE(same(got[k], want[k])) << "element " << k << ": " << got[k] << " vs " << want[k];
    return;
  }
  std::string message;
  for (const std::string& w : t.lines[4]) message += (message.empty() ? "" : " ") + w;
  const std::string& type = t.lines[3].at(1);
  // numpy's TypeError for values of the wrong rank is a jf::shape_error (docs/design.md).
  if (type == "IndexError")
    EXPECT_EQ(message_of<jf::index_error>(assign), message);
  else if (type == "TypeError")
    EXPECT_EQ(message_of<jf::shape_error>(assign), message);
  else if (message.rfind("shape mismatch", 0) == 0)
    EXPECT_EQ(message_of<jf::shape_error>(assign), message);
  else if (type == "ValueError")
    EXPECT_EQ(message_of<jf::value_error>(assign), message);
  else
    FAIL() << "unexpected numpy error " << type;
  EXPECT_EQ(jf::to_backend(x, jf::cpu).to_vector(), x0) << "x changed by a failing assignment";
}

class MaskedValues : public test_support::on_backends {
};

TEST_P(MaskedValues, MatchesNumpy) {
  const auto cases = test_support::read_table(JF_TEST_DATA_DIR "/masked_values_table.txt", 5);
  ASSERT_GT(cases.size(), 250u);
  for (const test_support::table_case& t : cases) {
    const std::string xt = t.header.at(0), vt = t.header.at(3);
    if (xt == "float64" && vt == "float64")
      check_case<double, double>(t, GetParam());
    else if (xt == "float32" && vt == "float64")
      check_case<float, double>(t, GetParam());
    else if (xt == "int32" && vt == "float64")
      check_case<std::int32_t, double>(t, GetParam());
    else if (xt == "int64" && vt == "int32")
      check_case<i64, std::int32_t>(t, GetParam());
    else
      FAIL() << "unknown dtypes " << xt << " " << vt;
    if (HasFatalFailure()) return;
  }
}

// Views of x (transposed: the values go in through a contiguous copy written back; a strided slice
// of a contiguous array), an expression mask and expression values, against a host loop.
TEST_P(MaskedValues, ViewsAndExpressions) {
  const jf::device dev = GetParam();
  for (const i64 n : {1, 33, 1000, 70001}) {
    SCOPED_TRACE("n " + std::to_string(n) + " seed " + std::to_string(test_support::seed()));
    std::vector<double> host(static_cast<std::size_t>(2 * n));
    for (double& e : host) e = static_cast<double>(test_support::rand_int(-1000, 1000)) / 8;
    // Every other element of a contiguous array: x(x > 0) = (selected count values) * 2 + 1.
    jf::array<double> base(host, {2 * n}, dev);
    jf::array<double> x = base(jf::range(0, 2 * n, 2));
    std::vector<double> want = host;
    i64 count = 0;
    for (i64 k = 0; k < 2 * n; k += 2) count += host[static_cast<std::size_t>(k)] > 0;
    std::vector<double> vals(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < vals.size(); ++k) vals[k] = static_cast<double>(k) - 0.5;
    const jf::array<double> v(vals, {count}, dev);
    x(x > 0.0) = v * 2.0 + 1.0;
    for (i64 k = 0, j = 0; k < 2 * n; k += 2)
      if (host[static_cast<std::size_t>(k)] > 0)
        want[static_cast<std::size_t>(k)] = vals[static_cast<std::size_t>(j++)] * 2 + 1;
    EXPECT_EQ(jf::to_backend(base, jf::cpu).to_vector(), want);
  }
  // A transposed 2-d x and a full mask: values in the C order of the transposed view.
  const i64 r = 37, c = 5;
  std::vector<i64> h(static_cast<std::size_t>(r * c));
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = static_cast<i64>(k);
  jf::array<i64> a(h, {r, c}, dev);
  jf::array<i64> t = a.transpose();  // c x r
  std::vector<bool> mh(static_cast<std::size_t>(r * c));
  i64 count = 0;
  for (std::size_t k = 0; k < mh.size(); ++k) count += (mh[k] = (k * 7) % 3 == 0);
  const jf::array<bool> m(mh, {c, r}, dev);
  t(m) = jf::arange<i64>(0, count, 1, dev) + 1000;
  std::vector<i64> want = h;
  for (i64 i = 0, j = 0; i < c; ++i)
    for (i64 k = 0; k < r; ++k)
      if (mh[static_cast<std::size_t>(i * r + k)]) want[static_cast<std::size_t>(k * c + i)] = 1000 + j++;
  EXPECT_EQ(jf::to_backend(a, jf::cpu).to_vector(), want);
}

INSTANTIATE_TEST_SUITE_P(Backends, MaskedValues, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
