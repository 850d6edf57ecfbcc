// jf::cumsum and jf::cumprod against numpy's answers (tests/data/scan_table.txt, written by
// tests/data/gen_scan_table.py: every dtype, 0-d to 3-d shapes with empty and size-1 axes, every
// axis and numpy's axis errors, int32 sums leaving int32, int64 products wrapping, NaN, inf, -0.0)
// on both backends, outputs poisoned first; then jf::cuda against the CPU executor (numpy's
// sequential order) on random inputs of many sizes and shapes (every kernel mode: tiles with the
// look-back, a warp per row, a thread per column), views, expressions as operands and consumers,
// repeated runs bit for bit, and the launches a fused scan costs. GPU tests skip without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::parse_shape;

// ---- the numpy table ---------------------------------------------------------------------------

struct scan_case {
  std::string fn, dtype, shape, axis;
  std::vector<std::string> x;
  bool ok = true;
  std::string result_dtype, result_shape, error;
  std::vector<std::string> result;
};

std::vector<scan_case> table() {
  std::vector<scan_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/scan_table.txt", 3)) {
    scan_case c;
    c.fn = t.header.at(0);
    c.dtype = t.header.at(1);
    c.shape = t.header.at(2);
    c.axis = t.header.at(3);
    c.x = t.lines[0];
    const auto& status = t.lines[1];
    c.ok = status.at(0) == "ok";
    if (c.ok) {
      c.result_dtype = status.at(1);
      c.result_shape = status.at(2);
      c.result = t.lines[2];
    } else {
      for (const std::string& w : t.lines[2]) c.error += (c.error.empty() ? "" : " ") + w;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Whether two floats agree: the same bits class (NaN, inf of a sign), and within tol otherwise.
template <class T> bool close(T got, T want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (tol == 0) return std::memcmp(&got, &want, sizeof(T)) == 0;  // -0.0 told from 0.0
  return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= tol;
}

template <class T> void check_case(const scan_case& c, jf::device dev) {
  SCOPED_TRACE(c.fn + " " + c.dtype + " shape " + c.shape + " axis " + c.axis + " on " + jf::to_string(dev));
  const jf::shape_t shape = parse_shape(c.shape);
  const jf::array<T> x(test_support::parse_words<T>(c.x), shape, dev);
  const bool cumsum = c.fn == "cumsum";
  const bool flat = c.axis == "None";
  const int axis = flat ? 0 : std::stoi(c.axis);
  auto run = [&](auto& out) {
    if (cumsum) out = flat ? jf::eval(jf::cumsum(x)) : jf::eval(jf::cumsum(x, axis));
    else out = flat ? jf::eval(jf::cumprod(x)) : jf::eval(jf::cumprod(x, axis));
  };
  using R = std::conditional_t<std::is_floating_point_v<T>, T, i64>;
  if (!c.ok) {
    ASSERT_EQ(c.error.rfind("axis ", 0), 0u) << c.error;  // the table's errors are AxisErrors
    jf::array<R> out;
    EXPECT_EQ(message_of<jf::axis_error>([&] { run(out); }), c.error);
    // An existing output is untouched by the failed evaluation.
    jf::array<R> poisoned = jf::full<R>({3}, R(7), dev);
    EXPECT_THROW(poisoned = cumsum ? (flat ? jf::eval(jf::cumsum(x)) : jf::eval(jf::cumsum(x, axis)))
                                   : (flat ? jf::eval(jf::cumprod(x)) : jf::eval(jf::cumprod(x, axis))),
                 jf::axis_error);
    EXPECT_EQ(poisoned.to_vector(), std::vector<R>(3, R(7)));
    return;
  }
  EXPECT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.result_dtype);
  // Into a new array, and into an existing poisoned one (the kernels write every element).
  jf::array<R> fresh;
  run(fresh);
  ASSERT_EQ(fresh.shape(), parse_shape(c.result_shape));
  jf::array<R> poisoned = jf::full<R>(fresh.shape(), std::is_floating_point_v<R> ? R(-12345.5) : R(-12345), dev);
  if (cumsum) poisoned = flat ? jf::cumsum(x) : jf::cumsum(x, axis);
  else poisoned = flat ? jf::cumprod(x) : jf::cumprod(x, axis);
  const std::vector<R> want = test_support::parse_words<R>(c.result);
  for (const jf::array<R>* r : {&fresh, &poisoned}) {
    const std::vector<R> got = r->to_vector();
    ASSERT_EQ(got.size(), want.size());
    // Floats: the CPU executor is numpy's sequential order (the same bits); the GPU combines in
    // its own fixed order, within the bound documented in docs/design.md.
    double sum_abs = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      if constexpr (std::is_floating_point_v<R>) {
        sum_abs = std::max(sum_abs, std::fabs(static_cast<double>(want[k])));
        const double tol = dev.kind == jf::device_kind::cpu
                               ? 0
                               : 2.0 * static_cast<double>(got.size()) * std::numeric_limits<R>::epsilon() * (1 + sum_abs);
        EXPECT_TRUE(close(got[k], want[k], tol)) << "element " << k << ": got " << got[k] << ", numpy " << want[k];
      } else {
        EXPECT_EQ(got[k], want[k]) << "element " << k;
      }
    }
  }
}

class ScanTable : public test_support::on_backends {
};

TEST_P(ScanTable, MatchesNumpy) {
  const std::vector<scan_case> cases = table();
  ASSERT_GT(cases.size(), 1000u);
  for (const scan_case& c : cases) {
    test_support::with_dtype(c.dtype, [&]<class T>() { check_case<T>(c, GetParam()); });
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ScanTable, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// ---- semantics on both backends, against a sequential scan computed here ----------------------

// numpy's accumulate of row-major values of `shape` along `axis` (-1: flattened), in R.
template <class R> std::vector<R> host_scan(const std::vector<R>& x, const jf::shape_t& shape, int axis, bool prod) {
  std::vector<R> y(x.size());
  std::int64_t len = static_cast<std::int64_t>(x.size()), inner = 1;
  if (axis >= 0) {
    len = shape[axis];
    for (int k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  }
  const std::int64_t rows = len ? static_cast<std::int64_t>(x.size()) / len : 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t base = (r / inner) * len * inner + r % inner;
    R acc{};
    for (std::int64_t i = 0; i < len; ++i) {
      const R v = x[static_cast<std::size_t>(base + i * inner)];
      if (i == 0) acc = v;
      else if constexpr (std::is_integral_v<R>)
        acc = prod ? static_cast<R>(static_cast<std::uint64_t>(acc) * static_cast<std::uint64_t>(v))
                   : static_cast<R>(static_cast<std::uint64_t>(acc) + static_cast<std::uint64_t>(v));
      else acc = prod ? acc * v : acc + v;
      y[static_cast<std::size_t>(base + i * inner)] = acc;
    }
  }
  return y;
}

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

class Scan : public test_support::on_backends {
};

TEST_P(Scan, ExpressionsAsOperandsAndConsumers) {
  const std::vector<std::int32_t> xi = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, -8};
  const jf::array<std::int32_t> x(xi, {3, 4}, dev());
  std::vector<i64> prod2;  // x * 2 + 1 in int32, then accumulated in int64 (numpy)
  for (std::int32_t v : xi) prod2.push_back(v * 2 + 1);
  const jf::array<i64> a = jf::cumsum(x * 2 + 1);
  EXPECT_EQ(a.shape(), (jf::shape_t{12}));
  EXPECT_EQ(a.to_vector(), host_scan<i64>(prod2, {3, 4}, -1, false));
  // Along an axis, with consumers: cumsum(x, 1) * 2 - x in one evaluation.
  std::vector<i64> xs(xi.begin(), xi.end());
  const std::vector<i64> c1 = host_scan<i64>(xs, {3, 4}, 1, false);
  std::vector<i64> want(c1.size());
  for (std::size_t k = 0; k < want.size(); ++k) want[k] = c1[k] * 2 - xs[k];
  const jf::array<i64> b = jf::cumsum(x, 1) * 2 - x;
  EXPECT_EQ(b.to_vector(), want);
  EXPECT_EQ(jf::array<i64>(jf::cumprod(x, 0)).to_vector(), host_scan<i64>(xs, {3, 4}, 0, true));
  EXPECT_EQ(jf::array<i64>(jf::cumprod(x, -2)).to_vector(), host_scan<i64>(xs, {3, 4}, 0, true));
  // A bool expression counts (numpy's cumsum of bool is int64).
  std::vector<i64> pos;
  for (std::int32_t v : xi) pos.push_back(v > 0);
  EXPECT_EQ(jf::array<i64>(jf::cumsum(x > 0, 1)).to_vector(), host_scan<i64>(pos, {3, 4}, 1, false));
  // Reductions around scans: sum(cumsum(x, 1), 1), cumsum(x - mean(x, 1, keepdims), 1).
  const jf::array<i64> s = jf::sum(jf::cumsum(x, 1), 1);
  for (int r = 0; r < 3; ++r) {
    i64 t = 0;
    for (int c = 0; c < 4; ++c) t += c1[static_cast<std::size_t>(r * 4 + c)];
    EXPECT_EQ(s.to_vector()[static_cast<std::size_t>(r)], t);
  }
  const jf::array<double> xd = jf::astype<double>(x);
  const jf::array<double> centred = jf::cumsum(xd - jf::mean(xd, 1, jf::keepdims), 1);
  std::vector<double> cd;
  for (int r = 0; r < 3; ++r) {
    double m = 0;
    for (int c = 0; c < 4; ++c) m += xi[static_cast<std::size_t>(r * 4 + c)];
    for (int c = 0; c < 4; ++c) cd.push_back(xi[static_cast<std::size_t>(r * 4 + c)] - m / 4);
  }
  EXPECT_EQ(centred.to_vector(), host_scan<double>(cd, {3, 4}, 1, false));  // quarters: exact
  // A scan of a scan, and two scans in one evaluation.
  EXPECT_EQ(jf::array<i64>(jf::cumsum(jf::cumsum(x, 1), 1)).to_vector(), host_scan<i64>(c1, {3, 4}, 1, false));
  const auto [u, w] = jf::eval(jf::cumsum(x, 1), jf::cumprod(x, 1));
  EXPECT_EQ(u.to_vector(), c1);
  EXPECT_EQ(w.to_vector(), host_scan<i64>(xs, {3, 4}, 1, true));
}

TEST_P(Scan, ViewsOutputsAndErrors) {
  std::vector<double> v(24);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 7) % 11) - 4.5;
  const jf::array<double> m(v, {4, 6}, dev());
  // A transposed view: (6, 4) with strides (1, 6); along each axis and flattened (C order of the view).
  const jf::array<double> t = m.transpose();
  std::vector<double> tv(24);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) tv[static_cast<std::size_t>(i * 4 + j)] = v[static_cast<std::size_t>(j * 6 + i)];
  for (int axis : {0, 1})
    EXPECT_EQ(jf::array<double>(jf::cumsum(t, axis)).to_vector(), host_scan<double>(tv, {6, 4}, axis, false)) << axis;
  EXPECT_EQ(jf::array<double>(jf::cumsum(t)).to_vector(), host_scan<double>(tv, {6, 4}, -1, false));
  // A strided and a reversed view of a row.
  const jf::array<double> row = m(1, jf::all);
  const jf::array<double> every_other = m(jf::all, jf::range(0, 6, 2));
  std::vector<double> eo;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; j += 2) eo.push_back(v[static_cast<std::size_t>(i * 6 + j)]);
  EXPECT_EQ(jf::array<double>(jf::cumprod(every_other, 1)).to_vector(), host_scan<double>(eo, {4, 3}, 1, true));
  std::vector<double> rev(v.begin() + 6, v.begin() + 12);
  std::reverse(rev.begin(), rev.end());
  EXPECT_EQ(jf::array<double>(jf::cumsum(jf::flip(row))).to_vector(), host_scan<double>(rev, {6}, 0, false));
  // In place: x = cumsum(x) reads every element before it is overwritten (a temporary).
  jf::array<double> y = m.copy();
  y = jf::cumsum(y, 1);
  EXPECT_EQ(y.to_vector(), host_scan<double>(v, {4, 6}, 1, false));
  // A flattened scan into an existing 1-d view (strided), and into a destination it broadcasts to.
  jf::array<double> big = jf::full<double>({48}, -1.0, dev());
  jf::array<double> odd = big(jf::range(1, 48, 2));
  odd = jf::cumsum(m);
  const std::vector<double> flat = host_scan<double>(v, {4, 6}, -1, false);
  const std::vector<double> bv = big.to_vector();
  for (int k = 0; k < 24; ++k) {
    EXPECT_EQ(bv[static_cast<std::size_t>(2 * k + 1)], flat[static_cast<std::size_t>(k)]);
    EXPECT_EQ(bv[static_cast<std::size_t>(2 * k)], -1.0);  // untouched between
  }
  jf::array<double> two = jf::full<double>({2, 24}, 0.0, dev());
  two = jf::cumsum(m);
  std::vector<double> twice = flat;
  twice.insert(twice.end(), flat.begin(), flat.end());
  EXPECT_EQ(two.to_vector(), twice);
  // numpy's 0-d operand is one element; an axis out of range is numpy's AxisError.
  const jf::array<double> zero_d = jf::full<double>({}, 2.5, dev());
  EXPECT_EQ(jf::array<double>(jf::cumsum(zero_d)).to_vector(), std::vector<double>{2.5});
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::eval(jf::cumsum(m, 2)); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::eval(jf::cumsum(zero_d, 1)); }),
            "axis 1 is out of bounds for array of dimension 1");
  // A flattened scan of a 2-d operand must be the whole expression.
  EXPECT_NE(message_of<jf::value_error>([&] { (void)jf::eval(jf::cumsum(m) * 2); }).find("give an axis"),
            std::string::npos);
  EXPECT_EQ(m.to_vector(), v);  // the operand is untouched throughout
}

// Scans stored into outputs of every layout (the CPU executor scans straight into an output with
// the scan's own layout and no memory shared with the operands): a contiguous slice of a larger
// array, a block of whole rows, a block of columns (another layout), the same scan as an output
// and in a consumer, the operand's own memory; nothing outside the destination written.
TEST_P(Scan, IntoOutputsOfEveryLayout) {
  std::vector<std::int32_t> xi(24);
  for (std::size_t k = 0; k < xi.size(); ++k) xi[k] = static_cast<std::int32_t>((k * 5) % 13) - 6;
  const jf::array<std::int32_t> x(xi, {4, 6}, dev());
  std::vector<i64> xs(xi.begin(), xi.end());
  const std::vector<i64> flat = host_scan<i64>(xs, {4, 6}, -1, false), rows = host_scan<i64>(xs, {4, 6}, 1, false);
  // A contiguous slice [5, 29) of 40.
  jf::array<i64> big = jf::full<i64>({40}, -9, dev());
  jf::array<i64> mid = big(jf::range(5, 29));
  mid = jf::cumsum(x);
  std::vector<i64> got = big.to_vector();
  for (int k = 0; k < 40; ++k)
    EXPECT_EQ(got[static_cast<std::size_t>(k)], k >= 5 && k < 29 ? flat[static_cast<std::size_t>(k - 5)] : -9) << k;
  // Rows 1 and 2 of a 4 x 6 destination (the scan's layout), and columns 0..2 of it (not).
  const jf::array<std::int32_t> two_rows = x(jf::range(0, 2), jf::all);
  jf::array<i64> dst = jf::full<i64>({4, 6}, -9, dev());
  jf::array<i64> block = dst(jf::range(1, 3), jf::all);
  block = jf::cumsum(two_rows, 1);
  got = dst.to_vector();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      EXPECT_EQ(got[static_cast<std::size_t>(r * 6 + c)],
                r >= 1 && r < 3 ? rows[static_cast<std::size_t>((r - 1) * 6 + c)] : -9)
          << r << ", " << c;
  const jf::array<std::int32_t> left = x(jf::all, jf::range(0, 3));
  std::vector<i64> lv;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) lv.push_back(xi[static_cast<std::size_t>(r * 6 + c)]);
  const std::vector<i64> lrows = host_scan<i64>(lv, {4, 3}, 1, false);
  jf::array<i64> cols = jf::full<i64>({4, 6}, -9, dev());
  jf::array<i64> first3 = cols(jf::all, jf::range(0, 3));
  first3 = jf::cumsum(left, 1);
  got = cols.to_vector();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      EXPECT_EQ(got[static_cast<std::size_t>(r * 6 + c)], c < 3 ? lrows[static_cast<std::size_t>(r * 3 + c)] : -9)
          << r << ", " << c;
  // The same scan as an output and in a second output's expression.
  const auto [plain, doubled] = jf::eval(jf::cumsum(x, 1), jf::cumsum(x, 1) * 2 + 1);
  EXPECT_EQ(plain.to_vector(), rows);
  std::vector<i64> want2;
  for (i64 v : rows) want2.push_back(v * 2 + 1);
  EXPECT_EQ(doubled.to_vector(), want2);
  // Into the operand's own memory, with the dtype the scan has.
  jf::array<i64> self = jf::array<i64>(xs, {4, 6}, dev());
  self = jf::cumsum(self, 1);
  EXPECT_EQ(self.to_vector(), rows);
  EXPECT_EQ(x.to_vector(), xi);
}

// Scans of inputs as they are or cast (the CPU executor scans such an input itself, converting a
// chunk of 1024 at a time: src/cpu/executor.cpp, scan_from_inputs): lengths around the chunk, rows
// (the last axis) and columns, views that are not laid out as the scan (every other element,
// reversed), against numpy's sequential order in the result dtype (wrapping integers).
template <class T>
void check_scans_of_inputs(jf::device dev) {
  auto& r = test_support::rng();
  for (const i64 n : {i64(0), i64(1), i64(1023), i64(1024), i64(1025), i64(3001)}) {
    std::vector<T> xv(static_cast<std::size_t>(2 * n));
    for (std::size_t i = 0; i < xv.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        xv[i] = r() % 3 == 0;
      else if constexpr (std::is_floating_point_v<T>)
        xv[i] = static_cast<T>(std::uniform_real_distribution<double>(-2, 2)(r));
      else
        xv[i] = static_cast<T>(r());  // every bit pattern: sums and products wrap
    }
    const jf::array<T> whole(xv, {2 * n}, dev);
    const jf::array<T> views[] = {whole, whole(jf::range(0, jf::none, 2)), whole(jf::range(jf::none, jf::none, -1)),
                                  whole.reshape({2, n})};
    for (const jf::array<T>& x : views)
      for (const bool prod : {false, true})
        for (const int axis : {-1, 0, 1}) {
          if (axis >= x.ndim()) continue;
          using R = jf::value_type_t<decltype(jf::cumsum(x))>;
          jf::array<R> got;
          if (prod)
            got = axis < 0 ? jf::eval(jf::cumprod(x)) : jf::eval(jf::cumprod(x, axis));
          else
            got = axis < 0 ? jf::eval(jf::cumsum(x)) : jf::eval(jf::cumsum(x, axis));
          const std::vector<T> in = x.to_vector();
          const i64 rows = axis == 1 ? x.shape()[0] : 1, cols = axis == 0 && x.ndim() == 2 ? x.shape()[1] : 1;
          const i64 len = rows * cols == 0 ? 0 : static_cast<i64>(in.size()) / (rows * cols);
          std::vector<R> want(in.size());
          for (i64 a = 0; a < rows; ++a)
            for (i64 c = 0; c < cols; ++c) {
              R acc{};
              for (i64 k = 0; k < len; ++k) {
                const std::size_t at = static_cast<std::size_t>((a * len + k) * cols + c);
                const R v = static_cast<R>(in[at]);
                if (k == 0)
                  acc = v;
                else if constexpr (std::is_integral_v<R>)  // numpy wraps: compute unsigned
                  acc = static_cast<R>(prod ? static_cast<std::uint64_t>(acc) * static_cast<std::uint64_t>(v)
                                            : static_cast<std::uint64_t>(acc) + static_cast<std::uint64_t>(v));
                else
                  acc = prod ? acc * v : acc + v;
                want[at] = acc;
              }
            }
          const std::vector<R> gv = got.to_vector();
          ASSERT_EQ(gv.size(), want.size());
          for (std::size_t k = 0; k < gv.size(); ++k) {
            if constexpr (std::is_floating_point_v<R>) {
              // The CPU's order is numpy's (the same bits); the GPU's within the documented bound.
              if (dev.kind == jf::device_kind::cpu) {
                ASSERT_TRUE(close(gv[k], want[k], 0)) << k << ": " << gv[k] << " vs " << want[k];
              } else if (!prod) {  // |x| <= 2: the partial sums' magnitudes are at most 2 len
                ASSERT_NEAR(
                    gv[k], want[k],
                    2.0 * static_cast<double>(len) * std::numeric_limits<R>::epsilon() * 2 * static_cast<double>(len));
              }
            } else {
              ASSERT_EQ(gv[k], want[k]) << jf::name(jf::dtype_v<T>) << " n " << n << " axis " << axis << " prod "
                                        << prod << " element " << k << ", seed " << test_support::seed();
            }
          }
        }
  }
}

TEST_P(Scan, OfInputsAcrossChunksAndLayouts) {
  check_scans_of_inputs<std::int32_t>(dev());
  check_scans_of_inputs<std::int8_t>(dev());
  check_scans_of_inputs<std::uint8_t>(dev());
  check_scans_of_inputs<std::uint32_t>(dev());
  check_scans_of_inputs<bool>(dev());
  check_scans_of_inputs<std::int64_t>(dev());
  check_scans_of_inputs<float>(dev());
  check_scans_of_inputs<double>(dev());
}

INSTANTIATE_TEST_SUITE_P(Backends, Scan, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

// ---- jf::cuda against the CPU executor ---------------------------------------------------------

#define JF_REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

// Random values: integers in [lo, hi] (as T; integer-valued floats make every order of a sum exact),
// or, when `fractions`, uniform reals in [lo, hi].
template <class T> std::vector<T> random_values(std::size_t n, double lo, double hi, bool fractions) {
  std::vector<T> v(n);
  auto& r = test_support::rng();
  if (fractions) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (auto&& x : v) x = static_cast<T>(u(r));
  } else {
    std::uniform_int_distribution<long long> u(static_cast<long long>(lo), static_cast<long long>(hi));
    for (auto&& x : v) x = static_cast<T>(u(r));
  }
  return v;
}

template <class R> bool same_bits(const std::vector<R>& a, const std::vector<R>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(R)) == 0);
}

// The GPU's scan of x along `axis` (-1: flattened) against the CPU executor's: exact for integers
// and for integer-valued floats (every order of their sums is exact); for other floats within the
// documented bound 2 k eps S_k (k: the position in the row from 1, S_k: the sum of |x| (products:
// the product of |x|) up to it). Two GPU runs give the same bits; the output was poisoned.
template <class T> void compare(const jf::array<T>& xc, int axis, bool prod, bool exact) {
  using R = std::conditional_t<std::is_floating_point_v<T>, T, i64>;
  SCOPED_TRACE(std::string(jf::name(jf::dtype_v<T>)) + " " + jf::to_string(xc.shape()) + (prod ? " cumprod" : " cumsum") +
               " axis " + std::to_string(axis));
  auto scan = [&](const jf::array<T>& x, jf::array<R>& out) {
    if (prod) out = axis < 0 ? jf::cumprod(x) : jf::cumprod(x, axis);
    else out = axis < 0 ? jf::cumsum(x) : jf::cumsum(x, axis);
  };
  jf::array<R> cpu;
  scan(xc, cpu);
  const jf::array<T> xg = jf::to_backend(xc, jf::cuda);
  jf::array<R> gpu = jf::full<R>(cpu.shape(), R(77), jf::cuda);
  scan(xg, gpu);
  const std::vector<R> c = cpu.to_vector(), g = host(gpu);
  ASSERT_EQ(c.size(), g.size());
  if (exact || !std::is_floating_point_v<R>) {
    for (std::size_t k = 0; k < c.size(); ++k) ASSERT_EQ(g[k], c[k]) << "element " << k;
  } else {
    // The bound needs each element's position in its row and the running sum of |x|.
    std::vector<T> xv = xc.to_vector();
    std::vector<double> ax(xv.size());
    for (std::size_t k = 0; k < xv.size(); ++k) ax[k] = std::fabs(static_cast<double>(xv[k]));
    const std::vector<double> run = host_scan<double>(ax, xc.shape(), axis, prod);
    std::vector<double> ones(xv.size(), 1.0);
    const std::vector<double> pos = host_scan<double>(ones, xc.shape(), axis, false);
    const double eps = std::numeric_limits<R>::epsilon();
    for (std::size_t k = 0; k < c.size(); ++k)
      ASSERT_LE(std::fabs(static_cast<double>(g[k]) - static_cast<double>(c[k])), 2 * pos[k] * eps * run[k])
          << "element " << k << ": gpu " << g[k] << ", cpu " << c[k];
  }
  jf::array<R> again = jf::full<R>(cpu.shape(), R(78), jf::cuda);
  scan(xg, again);
  EXPECT_TRUE(same_bits(host(again), g)) << "two runs differ";
}

TEST(CudaScan, LongRowsMatchTheCpuExecutor) {
  JF_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(33), std::size_t(1000),
                        std::size_t(4097), (std::size_t(1) << 20) + 7, (std::size_t(1) << 24) + 3}) {
    const jf::shape_t s{static_cast<std::int64_t>(n)};
    compare(jf::array<std::int32_t>(random_values<std::int32_t>(n, -1000, 1000, false), s), -1, false, true);
    compare(jf::array<i64>(random_values<i64>(n, -(1ll << 40), 1ll << 40, false), s), 0, false, true);
    compare(jf::array<i64>(random_values<i64>(n, -3, 3, false), s), 0, true, true);  // wraps
    compare(jf::array<double>(random_values<double>(n, -8, 8, false), s), 0, false, true);
    compare(jf::array<float>(random_values<float>(n, 0, 1, false), s), 0, false, true);  // < 2^24: exact
    compare(jf::array<double>(random_values<double>(n, -1, 1, true), s), -1, false, false);
    if (n <= (std::size_t(1) << 20) + 7) compare(jf::array<float>(random_values<float>(n, -1, 1, true), s), 0, false, false);
    compare(jf::array<double>(random_values<double>(n, 0.999, 1.001, true), s), 0, true, false);
    compare(jf::array<bool>(random_values<bool>(n, 0, 1, false), s), -1, false, true);
    if (HasFatalFailure()) return;
  }
}

TEST(CudaScan, RowsAndColumnsOfManyLengthsMatchTheCpuExecutor) {
  JF_REQUIRE_GPU();
  // Rows along the fastest axis (a warp per row up to 4096, tiles beyond), columns (a thread per row).
  for (std::int64_t len : {1, 31, 33, 1000, 4096, 4097, 40000}) {
    const std::int64_t rows = std::max<std::int64_t>(1, (std::int64_t(1) << 21) / len);
    for (const jf::shape_t& s : {jf::shape_t{rows, len}, jf::shape_t{3, len}}) {
      const auto n = static_cast<std::size_t>(s.product());
      const jf::array<i64> xi(random_values<i64>(n, -100, 100, false), s);
      const jf::array<double> xd(random_values<double>(n, -1, 1, true), s);
      for (int axis : {1, 0}) {
        compare(xi, axis, false, true);
        compare(xd, axis, false, false);
      }
      compare(xi, -1, false, true);
      if (HasFatalFailure()) return;
    }
  }
  // The middle axis of a 3-d array, views, and a 3-d flattened one.
  const jf::array<float> x3(random_values<float>(40 * 50 * 60, -4, 4, false), {40, 50, 60});
  for (int axis : {0, 1, 2, -1}) compare(x3, axis, false, true);
  compare(x3.transpose(), 1, false, true);
  compare(x3(jf::range(0, 40, 3), jf::all, jf::range(59, 0, -2)), 2, false, true);
  const jf::array<double> x3d(random_values<double>(40 * 50 * 60, -1, 1, true), {40, 50, 60});
  compare(x3d.transpose(), 2, true, false);
}

TEST(CudaScan, NarrowContiguousInputsMatchTheCpuExecutor) {
  JF_REQUIRE_GPU();
  // Inputs of at most 4 bytes scanned as they are (the lean tile form, a later tile's inputs read
  // into L2 where they are consecutive in memory): rows of odd lengths (tiles at any alignment,
  // rows' last tiles partial), views starting 1, 3 and 4 elements in.
  for (const jf::shape_t& s :
       {jf::shape_t{(std::int64_t(1) << 20) + 7}, jf::shape_t{3, 40001}, jf::shape_t{5, 40000}, jf::shape_t{2, 8193}}) {
    const auto n = static_cast<std::size_t>(s.product());
    const jf::array<std::int32_t> i32(random_values<std::int32_t>(n, -100000, 100000, false), s);
    const jf::array<std::int16_t> i16(random_values<std::int16_t>(n, -300, 300, false), s);
    const jf::array<std::int8_t> i8(random_values<std::int8_t>(n, -128, 127, false), s);
    const jf::array<bool> b(random_values<bool>(n, 0, 1, false), s);
    const jf::array<float> f(random_values<float>(n, -4, 4, false), s);  // integer sums below 2^24: exact
    for (int axis : {static_cast<int>(s.size()) - 1, -1}) {
      compare(i32, axis, false, true);
      compare(i16, axis, false, true);
      compare(i8, axis, false, true);
      compare(b, axis, false, true);
      compare(f, axis, false, true);
      compare(i16, axis, true, true);  // products wrap
    }
    if (HasFatalFailure()) return;
  }
  const std::size_t n = (std::size_t(1) << 20) + 9;
  const jf::array<std::int32_t> x(random_values<std::int32_t>(n, -1000, 1000, false), {static_cast<std::int64_t>(n)});
  const jf::array<std::int8_t> y(random_values<std::int8_t>(n, -128, 127, false), {static_cast<std::int64_t>(n)});
  for (std::int64_t start : {1, 3, 4}) {
    compare(x(jf::range(start, static_cast<std::int64_t>(n))), -1, false, true);
    compare(y(jf::range(start, static_cast<std::int64_t>(n))), -1, false, true);
  }
}

TEST(CudaScan, FusedProducerIsOneLaunch) {
  JF_REQUIRE_GPU();
  const std::size_t n = (std::size_t(1) << 20) + 7;
  const std::vector<double> v = random_values<double>(n, -8, 8, false);
  const jf::array<double> xc(v, {static_cast<std::int64_t>(n)});
  const jf::array<double> xg = jf::to_backend(xc, jf::cuda);
  jf::array<double> out = jf::empty<double>({static_cast<std::int64_t>(n)}, jf::cuda);
  out = jf::cumsum(xg * 2 + 1);  // compiled and run once
  jf::synchronize();
  jf::reset_stats();
  out = jf::cumsum(xg * 2 + 1);
  jf::synchronize();
  EXPECT_EQ(jf::stats().launches, 1u) << jf::to_string(jf::stats());
  EXPECT_EQ(jf::stats().temporaries, 0u);
  EXPECT_EQ(host(out), jf::array<double>(jf::cumsum(xc * 2 + 1)).to_vector());
  // Unfused: a kernel per operation, the same values.
  EXPECT_EQ(host(jf::eval(jf::unfused, jf::cumsum(xg * 2 + 1))), host(out));
}

}  // namespace
