// Awkward's printing (jetfuse/awkward_print.hpp) against Awkward 2.14's own text
// (tests/data/awkward_print_table.txt, written by tests/data/gen_awkward_print_table.py): str,
// repr, show(type, nbytes, backend) and the Jupyter view of jagged lists of every dtype (empty
// lists, long lists that need elision, offsets not starting at 0, special floats), option arrays,
// lists of records (non-identifier field names, many fields) and 1-d arrays, on both backends;
// and that printing a large array computes and copies only its shown window.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

struct print_case {
  std::string kind, label;
  std::vector<std::string> offsets, valid;
  std::vector<std::pair<std::string, std::string>> fields;  // dtype, name
  std::vector<std::vector<std::string>> values;
  std::string type, str, repr, show, display;
};

std::string unescaped(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    out += c == 'n' ? '\n' : c == 's' ? ' ' : c;
  }
  return out;
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  if (w.size() == 1 && w[0] == "-") w.clear();
  return w;
}

std::vector<print_case> table() {
  std::ifstream f(JF_TEST_DATA_DIR "/awkward_print_table.txt");
  EXPECT_TRUE(f.good());
  std::vector<print_case> cases;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp), rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "case") {
      cases.emplace_back();
      const auto sp2 = rest.find(' ');
      cases.back().kind = rest.substr(0, sp2);
      cases.back().label = rest.substr(sp2 + 1);
      continue;
    }
    print_case& c = cases.back();
    if (key == "offsets")
      c.offsets = split_words(rest);
    else if (key == "valid")
      c.valid = split_words(rest);
    else if (key == "field") {
      const auto sp2 = rest.find(' ');
      c.fields.emplace_back(rest.substr(0, sp2), sp2 == std::string::npos ? "" : unescaped(rest.substr(sp2 + 1)));
    } else if (key == "values")
      c.values.push_back(split_words(rest));
    else if (key == "type")
      c.type = unescaped(rest);
    else if (key == "str")
      c.str = unescaped(rest);
    else if (key == "repr")
      c.repr = unescaped(rest);
    else if (key == "show")
      c.show = unescaped(rest);
    else if (key == "display")
      c.display = unescaped(rest);
  }
  return cases;
}

// The walkthrough's lists, [[0, 1.1, 2.2], [], [3.3, 4.4], [5.5], [6.6, 7.7, 8.8, 9.9]] * 10000.
std::vector<std::vector<double>> walkthrough() {
  const std::vector<std::vector<double>> five{{0, 1.1, 2.2}, {}, {3.3, 4.4}, {5.5}, {6.6, 7.7, 8.8, 9.9}};
  std::vector<std::vector<double>> out;
  for (int i = 0; i < 10000; ++i) out.insert(out.end(), five.begin(), five.end());
  return out;
}

// The table's show and display name the backend Awkward ran on (cpu).
std::string on(const std::string& text, jf::device dev) {
  if (dev == jf::cpu) return text;
  std::string s = text;
  const auto at = s.find("backend: cpu");
  if (at != std::string::npos) s.replace(at, 12, "backend: cuda");
  return s;
}

template <class X>
void expect_prints(const X& x, const print_case& c, jf::device dev) {
  EXPECT_EQ(jf::awkward_str(x), c.str);
  EXPECT_EQ(jf::awkward_repr(x), c.repr);
  EXPECT_EQ(jf::show(x, {20, 80, true, true, true}), on(c.show, dev));
  EXPECT_EQ(jf::display(x), on(c.display, dev));
}

class AwkwardPrint : public test_support::on_backends {};

template <class T>
void check(const print_case& c, jf::device dev) {
  if (c.kind == "jagged") {
    jf::jagged<T> x;
    if (c.label.starts_with("walkthrough")) {
      if constexpr (std::is_same_v<T, double>) x = jf::jagged<double>(walkthrough(), dev);
      if (c.label == "walkthrough-slice") x = x(jf::range(100, jf::none));
    } else {
      x = jf::jagged<T>(jf::array<i64>(test_support::parse_words<i64>(c.offsets), dev),
                        jf::array<T>(test_support::parse_words<T>(c.values.at(0)), dev));
    }
    EXPECT_EQ(jf::type_string(x), c.type);
    EXPECT_EQ(jf::to_string(x), c.str);
    std::ostringstream os;
    os << x;
    EXPECT_EQ(os.str(), c.str);
    expect_prints(x, c, dev);
  } else if (c.kind == "option") {
    const std::vector<bool> valid = test_support::parse_words<bool>(c.valid);
    const jf::option_array<T> x(jf::array<T>(test_support::parse_words<T>(c.values.at(0)), dev),
                                jf::array<bool>(valid, dev));
    EXPECT_EQ(jf::type_string(x), c.type);
    EXPECT_EQ(jf::to_string(x), c.str);
    expect_prints(x, c, dev);
  } else if (c.kind == "dense") {
    jf::array<T> x;
    if (c.label == "walkthrough-num") {
      if constexpr (std::is_same_v<T, i64>) x = jf::num(jf::jagged<double>(walkthrough(), dev));
    } else {
      x = jf::array<T>(test_support::parse_words<T>(c.values.at(0)), dev);
    }
    expect_prints(x, c, dev);
  }
}

// A record's fields, each a jagged array over the table's offsets, zipped.
jf::jagged_record record_of(const print_case& c, jf::device dev) {
  const jf::array<i64> off(test_support::parse_words<i64>(c.offsets), dev);
  std::vector<jf::zip_field> fields;
  for (std::size_t i = 0; i < c.fields.size(); ++i) {
    test_support::with_dtype(c.fields[i].first, [&]<class T>() {
      fields.emplace_back(c.fields[i].second,
                          jf::jagged<T>(off, jf::array<T>(test_support::parse_words<T>(c.values[i]), dev)));
    });
  }
  return jf::zip(fields);
}

TEST_P(AwkwardPrint, MatchesAwkward) {
  const std::vector<print_case> cases = table();
  ASSERT_GT(cases.size(), 100u);
  for (const print_case& c : cases) {
    SCOPED_TRACE(c.kind + " " + c.label + " " + (c.fields.empty() ? "" : c.fields[0].first));
    if (c.kind == "record") {
      const jf::jagged_record x = record_of(c, dev());
      EXPECT_EQ(jf::type_string(x), c.type);
      EXPECT_EQ(jf::to_string(x), c.str);
      expect_prints(x, c, dev());
    } else {
      test_support::with_dtype(c.fields.at(0).first, [&]<class T>() { check<T>(c, dev()); });
    }
  }
}

// 2M lists: printing computes only the window (a few thousand elements, two gathers on jf::cpu).
TEST_P(AwkwardPrint, GathersOnlyTheWindow) {
  const i64 n = 2'000'000;
  std::poisson_distribution<int> mult(2.0);
  std::vector<i64> counts(static_cast<std::size_t>(n));
  for (auto& c : counts) c = mult(test_support::rng());
  i64 total = 0;
  for (i64 c : counts) total += c;
  const jf::jagged<float> x =
      jf::unflatten(jf::arange<float>(0.f, static_cast<float>(total), 1.f, dev()), jf::array<i64>(counts, dev()));
  jf::reset_stats();
  const std::string s = jf::to_string(x);
  const jf::stats_t st = jf::stats();
  EXPECT_EQ(s.size() <= 80u, true) << s;
  EXPECT_EQ(s.substr(0, 2), "[[");
  if (dev() == jf::cpu) {
    EXPECT_EQ(st.cpu_evaluations, 2u);  // the window's offsets, then its elements
    EXPECT_LT(st.cpu_elements, 4u * 48 * 48 + 4 * 48);
  } else {
    EXPECT_LE(st.launches, 2u);
  }
  // The same text as the nested vectors' window rebuilt on the host.
  std::vector<std::vector<float>> head, tail;
  const std::vector<i64> off = x.offsets().to_vector();
  const std::vector<float> flat = x.content().to_vector();
  for (i64 i = 0; i < 48; ++i) head.emplace_back(flat.begin() + off[i], flat.begin() + off[i + 1]);
  for (i64 i = n - 48; i < n; ++i) tail.emplace_back(flat.begin() + off[i], flat.begin() + off[i + 1]);
  std::vector<std::vector<float>> both = head;
  both.insert(both.end(), tail.begin(), tail.end());
  const std::string small = jf::to_string(jf::jagged<float>(both, dev()));
  // Up to the elision both show the same lists from the front.
  EXPECT_EQ(s.substr(0, s.find("...")), small.substr(0, small.find("...")));
}

TEST(AwkwardPrintNumbers, FormatsAsPython) {
  using jf::detail::awkward_number;
  EXPECT_EQ(awkward_number(1.1), "1.1");
  EXPECT_EQ(awkward_number(1e20), "1e+20");
  EXPECT_EQ(awkward_number(-0.0), "-0");
  EXPECT_EQ(awkward_number(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(awkward_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(awkward_number(123456789.0), "1.23e+08");
  EXPECT_EQ(awkward_number(0.0001), "0.0001");
  EXPECT_EQ(awkward_number(std::int64_t{-9223372036854775807 - 1}), "-9223372036854775808");
  EXPECT_EQ(awkward_number(true), "True");
}

INSTANTIATE_TEST_SUITE_P(Backends, AwkwardPrint, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
