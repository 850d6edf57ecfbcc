// Runs tests/data/reduction_table.txt (numpy's answers, gen_reduction_table.py) on a backend:
// every reducer x dtype x shape (empty ones included) x axis x keepdims (x ddof), NaN positions.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace reduction_table {

struct table_case {
  std::string reducer, dtype, expect_dtype, error;
  jf::shape_t shape, expect_shape;
  std::vector<int> axes;  // empty: axis=None
  bool keepdims = false;
  int ddof = 0;
  std::vector<std::string> input, expect;
  int line = 0;
};

// Shapes in reduction_table.txt: "3x4", "-" for 0-d.
inline jf::shape_t parse_shape(const std::string& s) { return test_support::parse_shape(s, 'x', "-"); }

inline std::vector<table_case> load() {
  std::ifstream f(JF_TEST_DATA_DIR "/reduction_table.txt");
  std::vector<table_case> cases;
  std::string line;
  int no = 0;
  while (std::getline(f, line)) {
    ++no;
    std::stringstream ss(line);
    std::string tag;
    ss >> tag;
    if (tag == "case") {
      table_case c;
      std::string shape, axes;
      int keep = 0;
      ss >> c.reducer >> c.dtype >> shape >> axes >> keep >> c.ddof;
      c.shape = parse_shape(shape);
      c.keepdims = keep != 0;
      if (axes != "none") {
        std::stringstream as(axes);
        for (std::string a; std::getline(as, a, ',');) c.axes.push_back(std::stoi(a));
      }
      c.line = no;
      cases.push_back(c);
    } else if (tag == "input") {
      for (std::string v; ss >> v;) cases.back().input.push_back(v);
    } else if (tag == "expect") {
      std::string shape;
      ss >> cases.back().expect_dtype >> shape;
      cases.back().expect_shape = parse_shape(shape);
      for (std::string v; ss >> v;) cases.back().expect.push_back(v);
    } else if (tag == "error") {
      ss >> cases.back().error;
    }
  }
  return cases;
}

template <class T> T parse_value(const std::string& s) {
  if constexpr (std::is_same_v<T, bool>) return s == "1";
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(std::stoll(s));
  else return static_cast<T>(std::strtod(s.c_str(), nullptr));
}

// Dispatches a reducer by name; the axis forms all give one expression type per reducer and dtype.
template <class T, class F> void with_reduction(const table_case& c, const jf::array<T>& x, F&& f) {
  auto run = [&](auto fn) {
    if (c.axes.empty()) {
      if (c.keepdims) f(fn(x, jf::keepdims));
      else f(fn(x));
    } else if (c.axes.size() == 1) {
      if (c.keepdims) f(fn(x, c.axes[0], jf::keepdims));
      else f(fn(x, c.axes[0]));
    } else if constexpr (requires { fn(x, std::initializer_list<int>{}); }) {
      const std::initializer_list<int> ax{c.axes[0], c.axes[1]};
      if (c.keepdims) f(fn(x, ax, jf::keepdims));
      else f(fn(x, ax));
    } else {
      FAIL() << c.reducer << " takes one axis";
    }
  };
#define JF_CASE(nm) \
  if (c.reducer == #nm) return run([](auto&&... a) -> decltype(jf::nm(a...)) { return jf::nm(a...); });
  JF_CASE(sum) JF_CASE(prod) JF_CASE(min) JF_CASE(max) JF_CASE(mean) JF_CASE(any) JF_CASE(argmin)
  JF_CASE(argmax) JF_CASE(count_nonzero) JF_CASE(nansum) JF_CASE(nanprod) JF_CASE(nanmin) JF_CASE(nanmax)
  JF_CASE(nanmean)
#undef JF_CASE
  if (c.reducer == "all") return run([](auto&&... a) -> decltype(jf::all(a...)) { return jf::all(a...); });
  auto moment = [&](auto fn) {
    const jf::ddof d(c.ddof);
    if (c.axes.empty()) {
      if (c.keepdims) f(fn(x, jf::keepdims, d));
      else f(fn(x, d));
    } else if (c.axes.size() == 1) {
      if (c.keepdims) f(fn(x, c.axes[0], jf::keepdims, d));
      else f(fn(x, c.axes[0], d));
    } else {
      const std::initializer_list<int> ax{c.axes[0], c.axes[1]};
      if (c.keepdims) f(fn(x, ax, jf::keepdims, d));
      else f(fn(x, ax, d));
    }
  };
  if (c.reducer == "var") return moment([](auto&&... a) { return jf::var(a...); });
  if (c.reducer == "std") return moment([](auto&&... a) { return jf::std(a...); });
  FAIL() << "unknown reducer " << c.reducer;
}

// Whether got matches numpy's value: exact for bool and integers (and min/max/arg*), NaN where
// NaN, else within a relative tolerance (the order of summation differs from numpy's pairwise one).
template <class R> bool close(R got, const std::string& want_text, const std::string& reducer) {
  const R want = parse_value<R>(want_text);
  if constexpr (std::is_floating_point_v<R>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    const bool exact = reducer == "min" || reducer == "max" || reducer == "nanmin" || reducer == "nanmax";
    if (exact || std::isinf(want)) return got == want;
    const double tol = std::is_same_v<R, float> ? 2e-5 : 1e-12;
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= tol * std::max(1.0, std::fabs(double(want)));
  } else {
    return got == want;
  }
}

template <class T> void check_case(const table_case& c, jf::device dev) {
  std::vector<T> in;
  for (const auto& s : c.input) in.push_back(parse_value<T>(s));
  const jf::array<T> x(in, c.shape, dev);
  const std::string where = c.reducer + " of " + c.dtype + " " + jf::to_string(c.shape) + " (table line " +
                            std::to_string(c.line) + ")";
  try {
    with_reduction<T>(c, x, [&](const auto& e) {
      auto r = jf::eval(e);
      using R = typename decltype(r)::value_type;
      EXPECT_EQ(std::string(jf::name(jf::dtype_v<R>)), c.expect_dtype) << where;
      ASSERT_TRUE(c.error.empty()) << where << ": numpy raises " << c.error << ", jetfuse gave a result";
      ASSERT_EQ(jf::to_string(r.shape()), jf::to_string(c.expect_shape)) << where;
      const auto got = jf::to_backend(r, jf::cpu).to_vector();
      ASSERT_EQ(got.size(), c.expect.size()) << where;
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(close<R>(got[i], c.expect[i], c.reducer))
            << where << " element " << i << ": jetfuse " << got[i] << ", numpy " << c.expect[i];
    });
  } catch (const jf::value_error& err) {
    EXPECT_EQ(c.error, "ValueError") << where << ": jetfuse raised " << err.what();
  }
}

inline void run_table(jf::device dev) {
  const auto cases = load();
  ASSERT_GT(cases.size(), 1000u) << "reduction_table.txt missing or truncated";
  for (const auto& c : cases) {
    if (c.dtype == "bool") check_case<bool>(c, dev);
    else if (c.dtype == "int32") check_case<std::int32_t>(c, dev);
    else if (c.dtype == "int64") check_case<std::int64_t>(c, dev);
    else if (c.dtype == "float32") check_case<float>(c, dev);
    else check_case<double>(c, dev);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace reduction_table
