// Type promotion against numpy: every row of data/promotion_table.csv (written by numpy through
// data/gen_promotion_table.py) is checked against the run-time rules (promote_types, promote,
// compute_dtype, result_dtype, accepts) AND against the static dtypes of front-end expressions.
#include <gtest/gtest.h>

#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace jf {
void PrintTo(dtype d, std::ostream* os) { *os << name(d); }
}  // namespace jf

namespace {

struct row {
  std::string kind, op, a, b, result, note;
};

std::vector<row> read_table() {
  std::ifstream in(JF_TEST_DATA_DIR "/promotion_table.csv");
  std::vector<row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    row r;
    std::getline(ss, r.kind, ',');
    std::getline(ss, r.op, ',');
    std::getline(ss, r.a, ',');
    std::getline(ss, r.b, ',');
    std::getline(ss, r.result, ',');
    std::getline(ss, r.note, ',');
    rows.push_back(r);
  }
  return rows;
}

jf::dtype parse(const std::string& s) {
  for (jf::dtype d : jf::all_dtypes)
    if (jf::name(d) == s) return d;
  throw std::runtime_error("unknown dtype " + s);
}

// The jetfuse op of a numpy ufunc name.
std::optional<jf::op> op_named(const std::string& numpy_name) {
  const std::string n = numpy_name == "true_divide" ? "divide" : numpy_name;
  for (int i = 0; i < 256; ++i) {
    const auto o = static_cast<jf::op>(i);
    if (jf::info(o).name == n) return o;
    if (o == jf::op::where) break;
  }
  return std::nullopt;
}

// What jetfuse says at run time: the result dtype, or nullopt when the op rejects the dtypes.
std::optional<jf::dtype> runtime_result(jf::op o, const std::string& a, const std::string& b) {
  const jf::op_rule rule = jf::info(o).rule;
  const jf::dtype c = b == "-" ? jf::compute_dtype(rule, parse(a)) : jf::compute_dtype(rule, parse(a), parse(b));
  if (!jf::accepts(rule, c)) return std::nullopt;
  return jf::result_dtype(rule, c);
}

// ---- static dtypes of front-end expressions, for every op and dtype pair -------------------------
using static_key = std::tuple<std::string, jf::dtype, jf::dtype>;  // op name, a, b (b = a for unary)
using element_types = std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                 std::uint16_t, std::uint32_t, std::uint64_t, float, double>;

// The expression node of op O on arrays of A (and B): the type jf::make_call and jf::where return
// (asserted below), named directly: deducing make_call's return type instantiated its body for each
// of the 3509 (op, A, B), which made this the slowest file of the build (102 s; 29 s named).
template <jf::op O, class... A>
using call_on_arrays = jf::call_node<jf::fn<O>, jf::capture_t<jf::array<A>>...>;
static_assert(std::is_same_v<decltype(jf::make_call<jf::fn<jf::op::add>>(jf::array<int>{}, jf::array<float>{})),
                             call_on_arrays<jf::op::add, int, float>>);
static_assert(std::is_same_v<decltype(jf::make_call<jf::fn<jf::op::sqrt>>(jf::array<std::uint8_t>{})),
                             call_on_arrays<jf::op::sqrt, std::uint8_t>>);
static_assert(std::is_same_v<decltype(jf::where(jf::array<bool>{}, jf::array<std::int8_t>{}, jf::array<double>{})),
                             call_on_arrays<jf::op::where, bool, std::int8_t, double>>);

template <jf::op O, class A, class B> void add_static(std::map<static_key, std::optional<jf::dtype>>& m) {
  constexpr jf::op_rule rule = jf::info(O).rule;
  constexpr int arity = jf::info(O).arity;
  constexpr jf::dtype p = arity == 1 ? jf::dtype_v<A> : jf::promote_types(jf::dtype_v<A>, jf::dtype_v<B>);
  constexpr bool ok = jf::accepts(rule, jf::compute_dtype(rule, p));
  std::optional<jf::dtype> r;
  if constexpr (ok) {
    if constexpr (O == jf::op::where) {
      r = jf::type_of_v<call_on_arrays<O, bool, A, B>>.type;
    } else if constexpr (arity == 1) {
      r = jf::type_of_v<call_on_arrays<O, A>>.type;
    } else {
      r = jf::type_of_v<call_on_arrays<O, A, B>>.type;
    }
  }
  m[{std::string(jf::info(O).name), jf::dtype_v<A>, jf::dtype_v<B>}] = r;
}

template <jf::op O, class A> void add_row(std::map<static_key, std::optional<jf::dtype>>& m) {
  std::apply([&](auto... b) { (add_static<O, A, decltype(b)>(m), ...); }, element_types{});
}
template <jf::op O> void add_all_pairs(std::map<static_key, std::optional<jf::dtype>>& m) {
  std::apply([&](auto... a) { (add_row<O, decltype(a)>(m), ...); }, element_types{});
}

template <jf::op... O> std::map<static_key, std::optional<jf::dtype>> static_table() {
  std::map<static_key, std::optional<jf::dtype>> m;
  (add_all_pairs<O>(m), ...);
  return m;
}

const auto& statics() {
  using jf::op;
  static const auto m =
      static_table<op::negative, op::absolute, op::sqrt, op::exp, op::floor, op::square, op::reciprocal, op::sign,
                   op::isnan, op::logical_not, op::invert, op::add, op::subtract, op::multiply, op::true_divide,
                   op::floor_divide, op::remainder, op::power, op::arctan2, op::minimum, op::fmax, op::less,
                   op::equal, op::logical_and, op::logical_or, op::bitwise_and, op::left_shift, op::right_shift,
                   op::where>();
  return m;
}

// C++ operators (not make_call) for add, with strong and weak operands on both sides.
template <class A, class B> jf::dtype static_plus() { return jf::type_of_v<decltype(jf::array<A>{} + jf::array<B>{})>.type; }
template <class A, class S> jf::dtype static_plus_scalar_right() { return jf::type_of_v<decltype(jf::array<A>{} + S{})>.type; }
template <class A, class S> jf::dtype static_plus_scalar_left() { return jf::type_of_v<decltype(S{} + jf::array<A>{})>.type; }

template <class A> jf::dtype static_weak(const std::string& kind, bool left) {
  if (kind == "bool") return left ? static_plus_scalar_left<A, bool>() : static_plus_scalar_right<A, bool>();
  if (kind == "int") return left ? static_plus_scalar_left<A, int>() : static_plus_scalar_right<A, int>();
  return left ? static_plus_scalar_left<A, double>() : static_plus_scalar_right<A, double>();
}

template <class F> auto with_types(jf::dtype a, jf::dtype b, F f) {
  return jf::visit_dtype(a, [&](auto ta) {
    return jf::visit_dtype(b, [&](auto tb) { return f(ta, tb); });
  });
}

TEST(Promotion, TableIsComplete) {
  const auto rows = read_table();
  ASSERT_FALSE(rows.empty()) << "cannot read " JF_TEST_DATA_DIR "/promotion_table.csv";
  int pairs = 0, weak = 0, ops = 0;
  for (const auto& r : rows) (r.kind == "pair" ? pairs : r.kind == "weak" ? weak : ops)++;
  EXPECT_EQ(pairs, 121);
  EXPECT_EQ(weak, 33);
  EXPECT_GE(ops, 11 * 11 + 18 * 121);
}

TEST(Promotion, StrongPairs) {
  for (const auto& r : read_table()) {
    if (r.kind != "pair") continue;
    const jf::dtype a = parse(r.a), b = parse(r.b), want = parse(r.result);
    EXPECT_EQ(jf::promote_types(a, b), want) << r.a << " + " << r.b;
    const jf::operand_type p = jf::promote(jf::strong(a), jf::strong(b));
    EXPECT_FALSE(p.is_weak());
    EXPECT_EQ(p.type, want) << r.a << " + " << r.b;
    EXPECT_EQ(with_types(a, b, [](auto ta, auto tb) { return static_plus<typename decltype(ta)::type, typename decltype(tb)::type>(); }), want)
        << "static dtype of array<" << r.a << "> + array<" << r.b << ">";
  }
}

TEST(Promotion, WeakScalars) {
  for (const auto& r : read_table()) {
    if (r.kind != "weak") continue;
    ASSERT_EQ(r.note, "") << r.a << " + " << r.b;
    const jf::dtype a = parse(r.a), want = parse(r.result);
    const jf::operand_type w = r.b == "bool" ? jf::weak_operand<bool>() : r.b == "int" ? jf::weak_operand<long>() : jf::weak_operand<double>();
    EXPECT_EQ(jf::promote(jf::strong(a), w).type, want) << r.a << " + python " << r.b;
    EXPECT_EQ(jf::promote(w, jf::strong(a)).type, want) << "python " << r.b << " + " << r.a;
    EXPECT_FALSE(jf::promote(w, jf::strong(a)).is_weak());
    for (bool left : {false, true}) {
      const jf::dtype got = jf::visit_dtype(a, [&](auto ta) { return static_weak<typename decltype(ta)::type>(r.b, left); });
      EXPECT_EQ(got, want) << "static dtype of array<" << r.a << "> + python " << r.b << (left ? " (scalar on the left)" : "");
    }
  }
}

TEST(Promotion, OperationResults) {
  int checked = 0;
  for (const auto& r : read_table()) {
    if (r.kind != "op") continue;
    const auto o = op_named(r.op);
    ASSERT_TRUE(o.has_value()) << "no jetfuse op for numpy's " << r.op;
    const std::string ctx = r.op + "(" + r.a + (r.b == "-" ? "" : ", " + r.b) + ")";
    const std::optional<jf::dtype> rt = runtime_result(*o, r.a, r.b);
    const jf::dtype b = r.b == "-" ? parse(r.a) : parse(r.b);
    const auto it = statics().find({std::string(jf::info(*o).name), parse(r.a), b});
    ASSERT_NE(it, statics().end()) << ctx;
    const std::optional<jf::dtype>& st = it->second;
    if (r.note == "error") {
      EXPECT_FALSE(rt.has_value()) << ctx << ": numpy gives " << r.note << ", jetfuse must reject it";
      EXPECT_FALSE(st.has_value()) << ctx;
    } else {
      // float16 rows: numpy's float functions of bool, int8 and uint8; jetfuse documents float32 instead.
      const jf::dtype want = parse(r.result);
      ASSERT_TRUE(rt.has_value()) << ctx << " rejected, numpy gives " << r.result;
      EXPECT_EQ(*rt, want) << ctx;
      ASSERT_TRUE(st.has_value()) << ctx;
      EXPECT_EQ(*st, want) << ctx << " (static dtype)";
    }
    ++checked;
  }
  EXPECT_GT(checked, 2000);
}

TEST(Promotion, ComputeDtypes) {
  using jf::dtype;
  using jf::op_rule;
  // The dtype operands are converted to (not visible in result dtypes for compare/logical).
  EXPECT_EQ(jf::compute_dtype(op_rule::compare, jf::promote_types(dtype::int32, dtype::float32)), dtype::float64);
  EXPECT_EQ(jf::compute_dtype(op_rule::logical, dtype::float64), dtype::bool_);
  EXPECT_EQ(jf::compute_dtype(op_rule::true_divide, dtype::bool_), dtype::float64);
  EXPECT_EQ(jf::compute_dtype(op_rule::true_divide, dtype::float32), dtype::float32);
  EXPECT_EQ(jf::compute_dtype(op_rule::float_fn, dtype::int32), dtype::float64);
  EXPECT_EQ(jf::compute_dtype(op_rule::float_fn, dtype::bool_), dtype::float32);
  using T = jf::op_types<jf::op::less, jf::capture_t<jf::array<int>>, jf::capture_t<jf::array<float>>>;
  static_assert(T::compute == dtype::float64 && T::result == dtype::bool_ && T::target(1) == dtype::float64);
  using W = jf::op_types<jf::op::less, jf::capture_t<jf::array<int>>, jf::capture_t<double>>;
  static_assert(W::compute == dtype::float64);  // int32 < 2.5: compare as float64, like numpy
  using I = jf::op_types<jf::op::less, jf::capture_t<jf::array<int>>, jf::capture_t<int>>;
  static_assert(I::compute == dtype::int32);
  // bool arithmetic numpy computes in int8 (square, //, %, **, shifts).
  EXPECT_EQ(jf::compute_dtype(op_rule::bool_int8, dtype::bool_), dtype::int8);
  EXPECT_EQ(jf::compute_dtype(op_rule::shift, dtype::bool_), dtype::int8);
  EXPECT_EQ(jf::compute_dtype(op_rule::float_fn, dtype::uint16), dtype::float32);
  // uint64 against a signed integer: promoted float64, but compared exactly as (uint64, int64).
  using M = jf::op_types<jf::op::less, jf::capture_t<jf::array<std::uint64_t>>, jf::capture_t<jf::array<std::int8_t>>>;
  static_assert(M::mixed_comparison && M::target(0) == dtype::uint64 && M::target(1) == dtype::int64);
  static_assert(M::compute == dtype::float64 && M::result == dtype::bool_);
  using N = jf::op_types<jf::op::less, jf::capture_t<jf::array<std::uint64_t>>, jf::capture_t<int>>;
  static_assert(!N::mixed_comparison && N::target(1) == dtype::uint64);  // a weak int takes uint64
  using P =
      jf::op_types<jf::op::maximum, jf::capture_t<jf::array<std::uint64_t>>, jf::capture_t<jf::array<std::int64_t>>>;
  static_assert(P::target(0) == dtype::float64);  // only comparisons are exact
}

}  // namespace
