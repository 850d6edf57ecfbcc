// The array core never takes an input it cannot hold (issue 7): sizes that overflow int64 (item 1),
// null host pointers (3), slice bounds at the int64 limits (4), arange/linspace inputs numpy
// rejects (5), reshape views where numpy makes views (9), element writes and shapes from any
// integer type (11). Only jetfuse/array.hpp: no expression front end, no evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <jetfuse/array.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using v64 = std::vector<i64>;
using vd = std::vector<double>;
constexpr i64 int64_min = std::numeric_limits<i64>::min();
constexpr i64 int64_max = std::numeric_limits<i64>::max();
const std::string too_big =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

using test_support::message_of;

// ---- item 1: shape and byte counts ---------------------------------------------------------------

TEST(ShapeOverflow, FactoriesRejectShapesNoArrayCanHave) {
  // numpy: np.zeros((2**62 + 1, 4)) etc. raise "array is too big" before allocating.
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::zeros<double>({(i64(1) << 62) + 1, 4}); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::empty<float>({i64(1) << 62, 2}); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::zeros<double>({i64(1) << 40, i64(1) << 40}); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::empty<double>({i64(1) << 61}); }), too_big);  // 2**64 bytes
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::ones<std::int32_t>({i64(1) << 62, 1, 2}); }), too_big);
  // A zero entry does not make a shape valid: its strides must still fit (numpy counts it as 1).
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::full<bool>({i64(1) << 40, i64(1) << 40, 0}, true); }), too_big);
  EXPECT_EQ(jf::zeros<double>({0, i64(1) << 40}).size(), 0);
  EXPECT_EQ(jf::empty<bool>({i64(1) << 31, 0, i64(1) << 31}).size(), 0);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::zeros<double>({2, -1}); }),
            "negative dimensions are not allowed: shape (2, -1)");
}

TEST(ShapeOverflow, OutOfMemoryNamesTheTrueSize) {
  // 2**62 bytes fit in int64 but in no address space: out_of_memory with the real byte count.
  const std::string m = message_of<jf::out_of_memory>([] { jf::empty<double>({i64(1) << 59}); });
  EXPECT_NE(m.find(" 4611686018427387904 bytes"), std::string::npos) << m;
}

TEST(ShapeOverflow, VectorHostPointerAndAdopt) {
  const vd v4(4, 1.0);
  const jf::shape_t huge{(i64(1) << 62) + 1, 4};  // its product wraps to 4
  EXPECT_EQ(message_of<jf::shape_error>([&] { jf::array<double>(v4, huge); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([&] { jf::array<double>(v4.data(), huge); }), too_big);
  double mem[4] = {};
  int calls = 0;
  EXPECT_EQ(message_of<jf::shape_error>([&] {
              jf::array<double>::adopt(mem, huge, jf::cpu, [&](void*) { ++calls; });
            }),
            too_big);
  EXPECT_EQ(calls, 0);  // a failed adopt leaves the memory to the caller
}

TEST(ShapeOverflow, ReshapeChecksTheProduct) {
  const auto z = jf::zeros<double>({0});
  // numpy: np.zeros(0).reshape(2**62, 4) -> "cannot reshape array of size 0 into shape (...)".
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)z.reshape({i64(1) << 62, 4}); }),
            "cannot reshape array of shape (0,) (size 0) into shape (4611686018427387904, 4)");
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)z.reshape({i64(1) << 62, 4, 0}); }),
            "cannot reshape array of shape (0,) (size 0) into shape (4611686018427387904, 4, 0)");
  EXPECT_EQ(message_of<jf::shape_error>([&] { (void)z.reshape({i64(1) << 62, -1}); }), too_big);  // (2**62, 0)
  EXPECT_EQ(z.reshape({i64(1) << 40, -1}).shape(), (jf::shape_t{i64(1) << 40, 0}));
}

TEST(ShapeOverflow, BroadcastProductAndStrides) {
  // numpy: np.broadcast_shapes((2**40, 1, 0), (1, 2**40, 0)) -> "broadcast dimensions too large."
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::broadcast_shapes({i64(1) << 40, 1, 0}, {1, i64(1) << 40, 0}); }),
            "broadcast dimensions too large.");
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::broadcast_shapes({i64(1) << 62, 1}, {1, 2}); }),
            "broadcast dimensions too large.");
  EXPECT_EQ(jf::broadcast_shapes({i64(1) << 61, 1}, {1, 2}), (jf::shape_t{i64(1) << 61, 2}));
  EXPECT_EQ(message_of<jf::shape_error>([] { (void)jf::shape_t{i64(1) << 40, i64(1) << 40}.product(); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { (void)jf::contiguous_strides({0, i64(1) << 40, i64(1) << 40}); }),
            too_big);
  EXPECT_EQ(jf::contiguous_strides({2, 0, 3}), (jf::strides_t{3, 3, 1}));
}

TEST(ShapeOverflow, CudaPathRejectsTheShapeBeforeTheDevice) {
  // The CUDA path once allocated the wrapped size and ended in "double free or corruption": the
  // shape is now refused before any device call, so this needs no GPU.
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::zeros<double>({(i64(1) << 62) + 1, 4}, jf::cuda); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::empty<float>({i64(1) << 62, 2}, jf::cuda); }), too_big);
  const vd v4(4, 1.0);
  EXPECT_EQ(message_of<jf::shape_error>([&] { jf::array<double>(v4, {(i64(1) << 62) + 1, 4}, jf::cuda); }), too_big);
}

// ---- item 3: null host pointers ------------------------------------------------------------------

TEST(NullPointer, CopyFromNullHostPointer) {
  EXPECT_EQ(message_of<jf::value_error>([] { jf::array<double>(static_cast<const double*>(nullptr), jf::shape_t{4}); }),
            "jetfuse: a null host pointer cannot hold the 4 elements of shape (4,)");
  const jf::array<double> e(static_cast<const double*>(nullptr), jf::shape_t{0, 3});  // nothing to read
  EXPECT_EQ(e.shape(), (jf::shape_t{0, 3}));
}

TEST(NullPointer, AdoptNull) {
  EXPECT_THROW(jf::array<double>::adopt(nullptr, {4}, jf::cpu, {}), jf::value_error);
  EXPECT_EQ(jf::array<double>::adopt(nullptr, {0}, jf::cpu, {}).size(), 0);
}

// ---- item 4: slice bounds at the int64 limits ----------------------------------------------------

TEST(SliceBounds, Int64LimitsAreBoundsNotSentinels) {
  const auto v = jf::arange<i64>(0, 10);
  const auto open = jf::range::none;
  EXPECT_EQ(v(jf::range(open, open, int64_min)).to_vector(), v64{9});  // v[::-2**63]
  EXPECT_EQ(v(jf::range(3, open, int64_min)).to_vector(), v64{3});     // v[3::-2**63]
  EXPECT_EQ(v(jf::range(open, int64_min)).size(), 0);                  // v[:-2**63]
  EXPECT_EQ(v(jf::range(int64_min, open, -1)).size(), 0);              // v[-2**63::-1]
  EXPECT_EQ(v(jf::range(int64_min, open)).size(), 10);                 // v[-2**63:]
  EXPECT_EQ(v(jf::range(open, open, int64_max)).to_vector(), v64{0});  // v[::2**63-1]
  // Unsigned bounds beyond INT64_MAX are past the end, never a negative bound: v[2**64-1:] is empty.
  EXPECT_EQ(v(jf::range(0, std::numeric_limits<std::uint64_t>::max())).size(), 10);
  EXPECT_EQ(v(jf::range(std::numeric_limits<std::uint64_t>::max(), open)).size(), 0);
  EXPECT_THROW((void)v(std::numeric_limits<std::uint64_t>::max()), jf::index_error);  // not v[-1]
  // A second axis with a stride: m[::-2**63, ::-2**63] is the last element.
  const auto m = jf::arange<i64>(0, 12).reshape({3, 4});
  EXPECT_EQ(m(jf::range(open, open, int64_min), jf::range(open, open, int64_min)).to_vector(), v64{11});
}

TEST(SliceBounds, NoneIsItsOwnType) {
  const auto v = jf::arange<i64>(0, 5);
  EXPECT_EQ(v(jf::range(jf::none, jf::none, -1)).to_vector(), (v64{4, 3, 2, 1, 0}));
  EXPECT_EQ(v(jf::range(jf::none, -2)).to_vector(), (v64{0, 1, 2}));
  EXPECT_EQ(v(jf::range(1, jf::none, jf::none)).to_vector(), (v64{1, 2, 3, 4}));  // an open step is 1
  EXPECT_EQ(v(jf::range(1, -1)).to_vector(), (v64{1, 2, 3}));
  const jf::range r;
  EXPECT_TRUE(r.start == jf::none && r.stop == jf::range::none && r.step == 1);
  EXPECT_FALSE(jf::range(int64_min, 0).start == jf::none);
  EXPECT_EQ(*jf::range(int64_min, 0).start, int64_min);
  static_assert(!std::is_convertible_v<jf::none_t, i64>, "none is no integer");
}

// ---- item 5: arange and linspace -----------------------------------------------------------------

TEST(Sequences, ArangeRejectsWhatNumpyRejects) {
  const double nan = std::nan(""), inf = INFINITY;
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<double>(0., nan, 1.); }), "arange: cannot compute length");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<double>(0., 10., nan); }), "arange: cannot compute length");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<float>(0.f, inf, inf); }), "arange: cannot compute length");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<double>(0., inf, 1.); }), "Maximum allowed size exceeded");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<double>(0., -inf, 1.); }), "Maximum allowed size exceeded");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<double>(0., 1e300, 1e-300); }),
            "Maximum allowed size exceeded");
  EXPECT_EQ(message_of<jf::value_error>([&] { jf::arange<i64>(int64_min, int64_max, 1); }),
            "Maximum allowed size exceeded");
  EXPECT_THROW(jf::arange<double>(0., 1., 0.), jf::value_error);  // numpy: ZeroDivisionError
  EXPECT_THROW(jf::arange<std::int32_t>(0, 1, 0), jf::value_error);
  // Lengths that fit: the byte count decides (shape_error past int64, out_of_memory past the host).
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::arange<double>(0., 0x1p62, 1.); }), too_big);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::arange<i64>(0, i64(1) << 62, 1); }), too_big);
  EXPECT_THROW(jf::arange<double>(0., 0x1p59, 1.), jf::out_of_memory);
}

TEST(Sequences, ArangeEdgesMatchNumpy) {
  const double inf = INFINITY;
  EXPECT_EQ(jf::arange<double>(0., 1., inf).to_vector(), vd{0.});  // numpy: one element
  EXPECT_EQ(jf::arange<double>(0., -1., inf).size(), 0);
  EXPECT_EQ(jf::arange<double>(0., 1e-320, 1e300).to_vector(), vd{0.});  // the quotient underflows
  EXPECT_EQ(jf::arange<double>(0., -0x1p63, 1.).size(), 0);
  // Integer lengths and values are exact even when stop - start exceeds INT64_MAX.
  EXPECT_EQ(jf::arange<i64>(int64_min + 1, int64_max, i64(1) << 62).to_vector(),
            (v64{-9223372036854775807, -4611686018427387903, 1, 4611686018427387905}));
  EXPECT_EQ(jf::arange<i64>(5, -5, int64_min).to_vector(), v64{5});
  EXPECT_EQ(jf::arange<i64>(0, 10, int64_min).size(), 0);
  EXPECT_EQ(jf::arange<std::int32_t>(2147483645, 2147483647, 1).to_vector(),
            (std::vector<std::int32_t>{2147483645, 2147483646}));
}

TEST(Sequences, Linspace) {
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::linspace(0, 1, i64(1) << 62); }), too_big);
  EXPECT_THROW(jf::linspace(0, 1, i64(1) << 59), jf::out_of_memory);
  EXPECT_EQ(message_of<jf::value_error>([] { jf::linspace(0, 1, -1); }),
            "Number of samples, -1, must be non-negative.");
  // numpy 2 rounds integer results down: np.linspace(-1, 1, 5, dtype=np.int32).
  EXPECT_EQ(jf::linspace<std::int32_t>(-1, 1, 5).to_vector(), (std::vector<std::int32_t>{-1, -1, 0, 0, 1}));
  EXPECT_EQ(jf::linspace(0, 1, 5).to_vector(), (vd{0, 0.25, 0.5, 0.75, 1}));
}

// ---- item 9: reshape makes a view wherever numpy does --------------------------------------------

TEST(ReshapeViews, WritesThroughReshapedViewsLand) {
  auto b = jf::arange<double>(0., 8.);
  const auto v = b(jf::range(0, 4, 2)).reshape({2});  // numpy: b[0:4:2].reshape(2) is a view
  EXPECT_EQ(v.buffer(), b.buffer());
  EXPECT_EQ(v.strides(), (jf::strides_t{2}));
  b(jf::range(0, 4, 2)).reshape({2}) = jf::array<double>({10., 20.});
  EXPECT_EQ(b.to_vector(), (vd{10, 1, 20, 3, 4, 5, 6, 7}));

  auto m = jf::arange<double>(0., 8.).reshape({2, 4});
  m(jf::all, 1).reshape({2, 1}) = jf::array<double>(vd{-1., -2.}, {2, 1});  // m[:, 1].reshape(2, 1)[...] = ...
  EXPECT_EQ(m.to_vector(), (vd{0, -1, 2, 3, 4, -2, 6, 7}));
}

TEST(ReshapeViews, StridesAndCopiesAsNumpy) {
  const auto x = jf::arange<double>(0., 24.).reshape({2, 3, 4});
  const auto s = x(jf::all, jf::range(0, 3), jf::range(0, 4, 2));  // x[:, 0:3, ::2], shape (2, 3, 2)
  struct {
    jf::shape_t shape;
    jf::strides_t strides;  // numpy's strides / itemsize
  } const views[] = {{{12}, {2}}, {{6, 2}, {4, 2}}, {{2, 6}, {12, 2}}, {{3, 4}, {8, 2}}};
  for (const auto& c : views) {
    const auto r = s.reshape(c.shape);
    EXPECT_EQ(r.buffer(), x.buffer()) << jf::to_string(c.shape);
    EXPECT_EQ(r.strides(), c.strides) << jf::to_string(c.shape);
    EXPECT_EQ(r.to_vector(), s.to_vector()) << jf::to_string(c.shape);
  }
  // x[:, :, 1].reshape(3, 2): strides (8, 4).
  EXPECT_EQ(x(jf::all, jf::all, 1).reshape({3, 2}).strides(), (jf::strides_t{8, 4}));
  // Where numpy copies: x[:, 0:2, :].reshape(16) (its rows do not merge); the view for (2, 8).
  const auto rows = x(jf::all, jf::range(0, 2), jf::all);
  EXPECT_NE(rows.reshape({16}).buffer(), x.buffer());
  EXPECT_EQ(rows.reshape({16}).to_vector(), rows.to_vector());
  EXPECT_EQ(rows.reshape({2, 8}).buffer(), x.buffer());
  EXPECT_EQ(rows.reshape({2, 8}).strides(), (jf::strides_t{12, 1}));
  // A transpose: (4, 1, 2) is a view with numpy's strides (1, 8, 4); (8,) is a copy.
  const auto m = jf::arange<double>(0., 8.).reshape({2, 4});
  const auto t = m.transpose();
  EXPECT_EQ(t.reshape({4, 1, 2}).buffer(), m.buffer());
  EXPECT_EQ(t.reshape({4, 1, 2}).strides(), (jf::strides_t{1, 8, 4}));
  EXPECT_EQ(t.reshape({4, 1, 2}).to_vector(), (vd{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_NE(t.reshape({8}).buffer(), m.buffer());
  EXPECT_EQ(t.reshape({8}).to_vector(), (vd{0, 4, 1, 5, 2, 6, 3, 7}));
}

// ---- item 11: element writes and shapes from any integer type ------------------------------------

TEST(ElementWrite, WritesLandAndIndicesAreChecked) {
  auto m = jf::zeros<double>({3, 4});
  m(1, 2) = 5.0;
  m(-1, -1) = 7.0;  // negative indices count from the end, as for reads
  EXPECT_EQ(m.to_vector(), (vd{0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 7}));
  EXPECT_EQ(message_of<jf::index_error>([&] { m(3, 0) = 1.0; }), "index 3 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(message_of<jf::index_error>([&] { m(0, -5) = 1.0; }), "index -5 is out of bounds for axis 1 with size 4");
  EXPECT_THROW(m(0) = 1.0, jf::index_error);  // an element needs every index
  EXPECT_THROW(m(0, 0, 0) = 1.0, jf::index_error);
  EXPECT_EQ(m.to_vector(), (vd{0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 7}));  // failed writes change nothing

  // Reads keep their value and type: T v = a(i), EXPECT_EQ(a(i), x), auto.
  const double d = m(1, 2);
  EXPECT_EQ(d, 5.0);
  EXPECT_EQ(m(1, 2), 5.0);
  auto a = m(1, 2), b = m(-1, -1);  // values as they were, like numpy's `a = m[1, 2]`
  m(1, 2) = b;                      // a swap through auto
  m(-1, -1) = a;
  EXPECT_EQ(m(1, 2), 7.0);
  EXPECT_EQ(m(2, 3), 5.0);
  EXPECT_EQ(a + 1.0, 6.0);
  m(0, 0) = m(1, 2);  // element to element
  EXPECT_EQ(m(0, 0), 7.0);
  const auto& cm = m;
  static_assert(std::is_same_v<decltype(cm(0, 0)), double>, "a const array reads a plain T");

  // Through a view, and for bool and integer arrays.
  auto col = m(jf::all, 3);
  col(0) = -1.0;
  EXPECT_EQ(m(0, 3), -1.0);
  auto f = jf::zeros<bool>({2});
  f(1) = true;
  EXPECT_EQ(f.to_vector(), (std::vector<bool>{false, true}));
  jf::array<std::int32_t> k({1, 2, 3});
  k(std::size_t(2)) = 30;
  k(i64(-3)) = -10;
  EXPECT_EQ(k.to_vector(), (std::vector<std::int32_t>{-10, 2, 30}));
}

TEST(ElementWrite, OnTheGpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  auto m = jf::zeros<float>({2, 3}, jf::cuda);
  m(1, -1) = 2.5f;
  m(0, 0) = m(1, 2);
  EXPECT_EQ(m.to_vector(), (std::vector<float>{2.5f, 0, 0, 0, 0, 2.5f}));
  EXPECT_THROW(m(2, 0) = 1.0f, jf::index_error);
}

TEST(ShapeFromIntegers, AnyIntegerTypeWithoutNarrowing) {
  const vd values(5);
  std::size_t n = values.size();  // not a constant: a narrowing error before
  unsigned u = 2;
  int i = 3;
  i64 l = 4;
  const jf::shape_t s{n, u, i, l};
  EXPECT_EQ(s, (jf::shape_t{5, 2, 3, 4}));
  EXPECT_EQ(jf::zeros<float>({n}).size(), 5);
  EXPECT_EQ(jf::array<double>(values, {n}).size(), 5);
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::shape_t{std::size_t(1) << 63}; }),
            "Maximum allowed dimension exceeded");
  EXPECT_EQ(message_of<jf::shape_error>([] { jf::shape_t{1, 2, 3, 4, 5, 6, 7, 8, 9}; }),
            "jetfuse arrays have at most 8 dimensions");
}

}  // namespace
