// jf::histogram and jf::bincount against numpy's answers (tests/data/binning_table.txt, written by
// tests/data/gen_binning_table.py): counts, edges bit for bit and numpy's error messages, on
// jf::cpu and, with a GPU, on jf::cuda; the operand as an array and as a fused expression.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

namespace {

struct table_case {
  std::string kind, dtype, error, edge_dtype;
  jf::shape_t shape;
  std::int64_t bins = 0, minlength = 0;
  bool auto_range = false;
  double lo = 0, hi = 0;
  std::vector<std::string> input;
  std::vector<std::int64_t> counts;
  std::vector<double> edges;
  int line = 0;
};

std::vector<table_case> load() {
  std::ifstream f(JF_TEST_DATA_DIR "/binning_table.txt");
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
      c.line = no;
      std::string n;
      ss >> c.kind >> c.dtype >> n;
      std::stringstream ns(n);
      for (std::string part; std::getline(ns, part, 'x');) c.shape.push_back(std::stoll(part));
      if (c.kind == "histogram") {
        std::string lo, hi;
        ss >> c.bins >> lo >> hi;
        c.auto_range = lo == "auto";
        if (!c.auto_range) {
          c.lo = std::strtod(lo.c_str(), nullptr);
          c.hi = std::strtod(hi.c_str(), nullptr);
        }
      } else {
        ss >> c.minlength;
      }
      cases.push_back(c);
    } else if (tag == "input") {
      for (std::string v; ss >> v;) cases.back().input.push_back(v);
    } else if (tag == "hist" || tag == "counts") {
      for (std::int64_t v; ss >> v;) cases.back().counts.push_back(v);
    } else if (tag == "edges") {
      ss >> cases.back().edge_dtype;
      for (std::string v; ss >> v;) cases.back().edges.push_back(std::strtod(v.c_str(), nullptr));
    } else if (tag == "error") {
      cases.back().error = line.substr(6);
    }
  }
  return cases;
}

template <class T> jf::array<T> input_array(const table_case& c, jf::device dev) {
  std::vector<T> v;
  for (const std::string& s : c.input) {
    if constexpr (std::is_floating_point_v<T>) v.push_back(static_cast<T>(std::strtod(s.c_str(), nullptr)));
    else v.push_back(static_cast<T>(std::stoll(s)));
  }
  return jf::array<T>(v, c.shape, dev);
}

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

template <class E> bool same_edges(const jf::array<E>& got, const std::vector<double>& want) {
  const std::vector<E> g = host(got);
  if (g.size() != want.size()) return false;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const E w = static_cast<E>(want[i]);
    if (std::memcmp(&g[i], &w, sizeof(E)) != 0) return false;
  }
  return true;
}

// Runs one case with operand x (an array or an expression of it).
template <class T, class X> void run(const table_case& c, const X& x) {
  using E = std::conditional_t<std::is_same_v<T, float>, float, double>;
  try {
    if (c.kind == "histogram") {
      const auto [h, e] = c.auto_range ? jf::histogram(x, c.bins) : jf::histogram(x, c.bins, {c.lo, c.hi});
      EXPECT_TRUE(c.error.empty()) << "numpy raises: " << c.error;
      EXPECT_EQ(host(h), c.counts);
      EXPECT_EQ(c.edge_dtype, std::string(jf::name(jf::dtype_v<E>)));
      EXPECT_TRUE(same_edges(e, c.edges)) << e;
    } else if constexpr (!std::is_floating_point_v<T>) {
      const jf::array<std::int64_t> n = jf::bincount(x, c.minlength);
      EXPECT_TRUE(c.error.empty()) << "numpy raises: " << c.error;
      EXPECT_EQ(host(n), c.counts);
    }
  } catch (const jf::value_error& err) {
    EXPECT_EQ(std::string(err.what()), c.error);
  }
}

template <class T> void run_case(const table_case& c, jf::device dev) {
  const jf::array<T> x = input_array<T>(c, dev);
  run<T>(c, x);
  if constexpr (std::is_same_v<T, bool>) run<T>(c, x & true);
  else run<T>(c, x + T(0));  // the same values, fused with the counting
}

void run_table(jf::device dev) {
  const std::vector<table_case> cases = load();
  ASSERT_GT(cases.size(), 700u) << "binning_table.txt missing or truncated";
  for (const table_case& c : cases) {
    SCOPED_TRACE("binning_table.txt line " + std::to_string(c.line) + ": " + c.kind + " " + c.dtype);
    if (c.dtype == "float64") run_case<double>(c, dev);
    else if (c.dtype == "float32") run_case<float>(c, dev);
    else if (c.dtype == "int32") run_case<std::int32_t>(c, dev);
    else if (c.dtype == "int64") run_case<std::int64_t>(c, dev);
    else run_case<bool>(c, dev);
  }
}

TEST(Binning, NumpyTableOnTheCpu) { run_table(jf::cpu); }

TEST(Binning, NumpyTableOnTheGpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped";
  run_table(jf::cuda);
}

TEST(Binning, ErrorsLeaveNothingBehindAndNameTheProblem) {
  const jf::array<double> x({0.5, 1.5});
  EXPECT_THROW(jf::histogram(x, 0, {0.0, 1.0}), jf::value_error);
  const jf::array<float> f({0.5f});
  // numpy fails with an IndexError for a float32 range beyond float32; jetfuse says why.
  EXPECT_THROW(jf::histogram(f, 3, {-1e300, 1e300}), jf::value_error);
  EXPECT_THROW(jf::bincount(jf::array<std::int64_t>({1, 2}), -1), jf::value_error);
  const auto [h, e] = jf::histogram(x, 2, {0.0, 2.0});
  EXPECT_EQ(host(h), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(host(e), (std::vector<double>{0.0, 1.0, 2.0}));
}

}  // namespace
