// numpy's shape functions on every backend (jf::cpu; jf::cuda when a GPU is present): the views
// (flip, expand_dims, squeeze, broadcast_to, swapaxes, moveaxis, ravel) against index arithmetic,
// concatenate/stack against the operands element by element, isclose/allclose against numpy's
// answers (tests/data/isclose_table.txt, written by tests/data/gen_isclose_table.py), array_equal,
// eye and the *_like functions, and numpy's errors with numpy's messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using jf::range;

using test_support::message_of;
using test_support::rand_int;
using test_support::rng;
using test_support::seed;

// An array of `shape` with distinct values (its flat index + 0.5), as a view with a gap on the last
// axis when `strided` (every second element of a wider array), on `dev`.
jf::array<double> numbered(const jf::shape_t& shape, jf::device dev, bool strided) {
  jf::shape_t wide = shape;
  if (strided && wide.size() > 0) wide[wide.size() - 1] *= 2;
  std::vector<double> v(static_cast<std::size_t>(wide.product()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) + 0.5;
  jf::array<double> a(v, wide, dev);
  if (!strided || shape.size() == 0) return a;
  jf::array<double> r = a;
  std::vector<jf::index_arg> args(static_cast<std::size_t>(shape.size()), jf::index_arg(jf::all));
  args.back() = jf::index_arg(range(0, jf::none, 2));
  return jf::array<double>(jf::detail::slice(a, args.data(), shape.size()));
}

// Every element of r equals a at the index `from` maps r's index to.
void expect_mapped(const jf::array<double>& r, const jf::array<double>& a,
                   const std::function<std::vector<i64>(const std::vector<i64>&)>& from) {
  const std::vector<double> rv = r.to_vector(), av = a.to_vector();
  const jf::strides_t as = jf::contiguous_strides(a.shape());
  std::vector<i64> idx(static_cast<std::size_t>(r.ndim()), 0);
  for (std::size_t flat = 0; flat < rv.size(); ++flat) {
    const std::vector<i64> src = from(idx);
    i64 off = 0;
    for (int k = 0; k < a.ndim(); ++k) off += src[static_cast<std::size_t>(k)] * as[k];
    ASSERT_EQ(rv[flat], av[static_cast<std::size_t>(off)]) << "element " << flat << " seed " << seed();
    for (int k = r.ndim() - 1; k >= 0; --k) {
      if (++idx[static_cast<std::size_t>(k)] < r.shape()[k]) break;
      idx[static_cast<std::size_t>(k)] = 0;
    }
  }
}

jf::shape_t random_shape(int nd) {
  jf::shape_t s;
  for (int k = 0; k < nd; ++k) s.push_back(rand_int(0, 9) == 0 ? rand_int(0, 1) : rand_int(1, 7));
  return s;
}

class ShapeFunctions : public test_support::on_backends {
};

// ---- views -------------------------------------------------------------------------------------

TEST_P(ShapeFunctions, FlipIsAReversedView) {
  for (int trial = 0; trial < 40; ++trial) {
    const int nd = static_cast<int>(rand_int(1, 4));
    const jf::array<double> a = numbered(random_shape(nd), dev(), trial % 2 == 1);
    const int axis = static_cast<int>(rand_int(-nd, nd - 1));
    const int ax = axis < 0 ? axis + nd : axis;
    const jf::array<double> f = jf::flip(a, axis);
    EXPECT_EQ(f.shape(), a.shape());
    EXPECT_EQ(f.buffer(), a.buffer());  // a view
    expect_mapped(f, a, [&](std::vector<i64> i) {
      i[static_cast<std::size_t>(ax)] = a.shape()[ax] - 1 - i[static_cast<std::size_t>(ax)];
      return i;
    });
    expect_mapped(jf::flip(a), a, [&](std::vector<i64> i) {
      for (int k = 0; k < nd; ++k) i[static_cast<std::size_t>(k)] = a.shape()[k] - 1 - i[static_cast<std::size_t>(k)];
      return i;
    });
    // Flipping twice gives the elements back, and a flipped view fuses like any operand.
    expect_mapped(jf::flip(jf::flip(a, axis), axis), a, [](std::vector<i64> i) { return i; });
    const jf::array<double> twice = jf::flip(a, axis) * 2;
    expect_mapped(twice * 0.5, a, [&](std::vector<i64> i) {
      i[static_cast<std::size_t>(ax)] = a.shape()[ax] - 1 - i[static_cast<std::size_t>(ax)];
      return i;
    });
  }
  const jf::array<double> a = numbered({2, 3}, dev(), false);
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::flip(a, 2); }), "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::flip(a, {0, -2}); }), "repeated axis");
}

TEST_P(ShapeFunctions, ExpandDimsAndSqueeze) {
  const jf::array<double> a = numbered({3, 4}, dev(), true);
  const jf::array<double> e = jf::expand_dims(a, {0, 3});
  EXPECT_EQ(e.shape(), (jf::shape_t{1, 3, 4, 1}));
  EXPECT_EQ(e.buffer(), a.buffer());
  expect_mapped(e, a, [](const std::vector<i64>& i) { return std::vector<i64>{i[1], i[2]}; });
  EXPECT_EQ(jf::expand_dims(a, -1).shape(), (jf::shape_t{3, 4, 1}));
  EXPECT_EQ(jf::squeeze(e).shape(), (jf::shape_t{3, 4}));
  expect_mapped(jf::squeeze(e), a, [](const std::vector<i64>& i) { return i; });
  EXPECT_EQ(jf::squeeze(e, -1).shape(), (jf::shape_t{1, 3, 4}));
  EXPECT_EQ(jf::squeeze(e, {0, 3}).shape(), (jf::shape_t{3, 4}));
  EXPECT_EQ(jf::squeeze(jf::zeros<float>({1, 1}, dev())).shape(), jf::shape_t{});
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::expand_dims(a, 3); }),
            "axis 3 is out of bounds for array of dimension 3");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::squeeze(e, 1); }),
            "cannot select an axis to squeeze out which has size not equal to one");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::squeeze(e, 4); }), "axis 4 is out of bounds for array of dimension 4");
}

TEST_P(ShapeFunctions, BroadcastToIsAReadOnlyView) {
  const jf::array<double> a = numbered({3, 1}, dev(), false);
  const jf::array<double> b = jf::broadcast_to(a, {2, 3, 5});
  EXPECT_EQ(b.shape(), (jf::shape_t{2, 3, 5}));
  EXPECT_EQ(b.strides(), (jf::strides_t{0, 1, 0}));
  expect_mapped(b, a, [](const std::vector<i64>& i) { return std::vector<i64>{i[1], 0}; });
  EXPECT_DOUBLE_EQ(jf::sum(b).item(), 10 * (0.5 + 1.5 + 2.5));  // read by a fused reduction
  // numpy's broadcast_to views are read-only: every way of writing raises and changes nothing.
  const std::vector<double> before = a.to_vector();
  jf::array<double> w = b;
  EXPECT_EQ(message_of<jf::value_error>([&] { w(0, 0, 0) = 7.0; }), "assignment destination is read-only");
  EXPECT_EQ(message_of<jf::value_error>([&] { w = 7.0; }), "assignment destination is read-only");
  EXPECT_EQ(message_of<jf::value_error>([&] { w = a * 2; }), "assignment destination is read-only");
  EXPECT_EQ(message_of<jf::value_error>([&] { w(0, jf::all, jf::all) = jf::ones<double>({3, 5}, dev()); }),
            "assignment destination is read-only");
  EXPECT_EQ(a.to_vector(), before);
  // A view of one element of each stretched axis is writable again (numpy: still read-only; here
  // writable because no two elements alias).
  EXPECT_TRUE(jf::detail::is_writable(w(0, jf::all, range(0, 1))));
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::broadcast_to(a, {4, 2}); }),
            "operands could not be broadcast together with remapped shapes [original->remapped]: (3,1)  and "
            "requested shape (4,2)");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::broadcast_to(a, {3}); }),
            "input operand has more dimensions than allowed by the axis remapping");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::broadcast_to(a, {-1, 1}); }),
            "all elements of broadcast shape must be non-negative");
}

TEST_P(ShapeFunctions, SwapaxesMoveaxisRavel) {
  const jf::array<double> a = numbered({2, 3, 4}, dev(), true);
  const jf::array<double> s = jf::swapaxes(a, 0, -1);
  EXPECT_EQ(s.shape(), (jf::shape_t{4, 3, 2}));
  expect_mapped(s, a, [](const std::vector<i64>& i) { return std::vector<i64>{i[2], i[1], i[0]}; });
  const jf::array<double> m = jf::moveaxis(a, 0, -1);
  EXPECT_EQ(m.shape(), (jf::shape_t{3, 4, 2}));
  expect_mapped(m, a, [](const std::vector<i64>& i) { return std::vector<i64>{i[2], i[0], i[1]}; });
  const jf::array<double> m2 = jf::moveaxis(a, 2, 0);
  EXPECT_EQ(m2.shape(), (jf::shape_t{4, 2, 3}));
  expect_mapped(m2, a, [](const std::vector<i64>& i) { return std::vector<i64>{i[1], i[2], i[0]}; });
  const jf::array<double> r = jf::ravel(a);  // not contiguous: a copy, in C order
  EXPECT_EQ(r.shape(), (jf::shape_t{24}));
  EXPECT_EQ(r.to_vector(), a.to_vector());
  const jf::array<double> c = numbered({2, 3}, dev(), false);
  EXPECT_EQ(jf::ravel(c).buffer(), c.buffer());  // contiguous: a view
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::moveaxis(a, 3, 0); }),
            "source: axis 3 is out of bounds for array of dimension 3");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::swapaxes(a, 0, -4); }),
            "axis -4 is out of bounds for array of dimension 3");
}

// ---- joining -----------------------------------------------------------------------------------

TEST_P(ShapeFunctions, ConcatenateRandomPieces) {
  for (int trial = 0; trial < 30; ++trial) {
    const int nd = static_cast<int>(rand_int(1, 3));
    const int axis = static_cast<int>(rand_int(-nd, nd - 1));
    const int ax = axis < 0 ? axis + nd : axis;
    const jf::shape_t base = random_shape(nd);
    const int n = static_cast<int>(rand_int(1, 4));
    std::vector<jf::array<double>> parts;
    std::vector<i64> starts;
    i64 total = 0;
    for (int k = 0; k < n; ++k) {
      jf::shape_t s = base;
      s[ax] = rand_int(0, 5);
      starts.push_back(total);
      total += s[ax];
      jf::array<double> p = numbered(s, dev(), k % 2 == 1);
      parts.push_back(k == 2 ? jf::array<double>(p * -1.0) : p);
    }
    const jf::array<double> c = jf::concatenate(parts, axis);
    jf::shape_t expect = base;
    expect[ax] = total;
    ASSERT_EQ(c.shape(), expect);
    ASSERT_EQ(c.device(), dev());
    const std::vector<double> cv = c.to_vector();
    // Compare piece by piece: the slice of c that holds part k equals part k.
    for (int k = 0; k < n; ++k) {
      std::vector<jf::index_arg> args(static_cast<std::size_t>(nd), jf::index_arg(jf::all));
      args[static_cast<std::size_t>(ax)] = jf::index_arg(range(starts[static_cast<std::size_t>(k)],
                                                               starts[static_cast<std::size_t>(k)] + parts[static_cast<std::size_t>(k)].shape()[ax]));
      const jf::array<double> piece(jf::detail::slice(c, args.data(), nd));
      ASSERT_EQ(piece.to_vector(), parts[static_cast<std::size_t>(k)].to_vector()) << "part " << k << " seed " << seed();
    }
  }
}

TEST_P(ShapeFunctions, ConcatenateFlatAndStack) {
  const jf::array<std::int32_t> a({{1, 2}, {3, 4}}, dev());
  const jf::array<std::int32_t> b({{5, 6}, {7, 8}}, dev());
  EXPECT_EQ(jf::concatenate({a, b}, 1).to_vector(), (std::vector<std::int32_t>{1, 2, 5, 6, 3, 4, 7, 8}));
  EXPECT_EQ(jf::concatenate({a, b.transpose()}, 0).to_vector(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 7, 6, 8}));
  EXPECT_EQ(jf::concatenate(std::vector{a, b}, jf::none).to_vector(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  const jf::array<std::int32_t> s = jf::stack({a, b}, 0);
  EXPECT_EQ(s.shape(), (jf::shape_t{2, 2, 2}));
  EXPECT_EQ(s.to_vector(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  const jf::array<std::int32_t> s2 = jf::stack({a, b}, -1);
  EXPECT_EQ(s2.shape(), (jf::shape_t{2, 2, 2}));
  EXPECT_EQ(s2.to_vector(), (std::vector<std::int32_t>{1, 5, 2, 6, 3, 7, 4, 8}));
  const jf::array<bool> t({true, false}, dev());
  EXPECT_EQ(jf::concatenate({t, t}).to_vector(), (std::vector<bool>{true, false, true, false}));
  // numpy's errors.
  const jf::array<std::int32_t> row({1, 2, 3}, dev());
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::concatenate(std::vector<jf::array<std::int32_t>>{}); }),
            "need at least one array to concatenate");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::concatenate({a, row}); }),
            "all the input arrays must have same number of dimensions, but the array at index 0 has 2 dimension(s) "
            "and the array at index 1 has 1 dimension(s)");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::concatenate({a, jf::zeros<std::int32_t>({2, 3}, dev())}, 0); }),
            "all the input array dimensions except for the concatenation axis must match exactly, but along dimension "
            "1, the array at index 0 has size 2 and the array at index 1 has size 3");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::concatenate({a, b}, 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::concatenate({jf::zeros<std::int32_t>({}, dev())}); }),
            "zero-dimensional arrays cannot be concatenated");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::stack({a, row}); }), "all input arrays must have the same shape");
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::stack({a, b}, 3); }),
            "axis 3 is out of bounds for array of dimension 3");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::concatenate({a, jf::array<std::int32_t>{}}); }),
            "jf::concatenate: the array at index 1 is a null handle (default-constructed)");
  if (dev().kind == jf::device_kind::cuda) {
    EXPECT_THROW((void)jf::concatenate({a, jf::array<std::int32_t>({{1, 2}})}), jf::backend_mismatch);
  }
}

// numpy's results, written out (np.roll, np.tile, np.repeat of np.arange(6).reshape(2, 3)).
TEST_P(ShapeFunctions, RollTileRepeat) {
  const jf::array<std::int32_t> a(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}, jf::shape_t{2, 3}, dev());
  using v = std::vector<std::int32_t>;
  EXPECT_EQ(jf::roll(a, 2).to_vector(), (v{4, 5, 0, 1, 2, 3}));             // np.roll(a, 2)
  EXPECT_EQ(jf::roll(a, -7).to_vector(), (v{1, 2, 3, 4, 5, 0}));            // np.roll(a, -7)
  EXPECT_EQ(jf::roll(a, 1, 1).to_vector(), (v{2, 0, 1, 5, 3, 4}));          // np.roll(a, 1, axis=1)
  EXPECT_EQ(jf::roll(a, 1, 0).to_vector(), (v{3, 4, 5, 0, 1, 2}));          // np.roll(a, 1, axis=0)
  EXPECT_EQ(jf::roll(a, 3, -1).to_vector(), a.to_vector());
  const jf::array<std::int32_t> t = jf::tile(a, {2, 2});                    // np.tile(a, (2, 2))
  EXPECT_EQ(t.shape(), (jf::shape_t{4, 6}));
  EXPECT_EQ(t.to_vector(), (v{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  const jf::array<std::int32_t> t3 = jf::tile(a, {2, 1, 1});                // np.tile(a, (2, 1, 1)): a new axis
  EXPECT_EQ(t3.shape(), (jf::shape_t{2, 2, 3}));
  EXPECT_EQ(t3.to_vector(), (v{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(jf::tile(a, {2}).shape(), (jf::shape_t{2, 6}));                 // reps padded with 1s
  EXPECT_EQ(jf::tile(a, {0, 1}).shape(), (jf::shape_t{0, 3}));
  EXPECT_EQ(jf::repeat(a, 2).to_vector(), (v{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));  // np.repeat(a, 2)
  const jf::array<std::int32_t> r1 = jf::repeat(a, 2, 1);                   // np.repeat(a, 2, axis=1)
  EXPECT_EQ(r1.shape(), (jf::shape_t{2, 6}));
  EXPECT_EQ(r1.to_vector(), (v{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  const jf::array<std::int32_t> r0 = jf::repeat(a, 3, 0);                   // np.repeat(a, 3, axis=0)
  EXPECT_EQ(r0.shape(), (jf::shape_t{6, 3}));
  EXPECT_EQ(r0.to_vector(), (v{0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(jf::repeat(a, 0, 1).shape(), (jf::shape_t{2, 0}));
  // Views are read in place; results are new arrays (writing them leaves a alone).
  const jf::array<std::int32_t> tr = a.transpose();                         // [[0, 3], [1, 4], [2, 5]]
  EXPECT_EQ(jf::roll(tr, 1, 0).to_vector(), (v{2, 5, 0, 3, 1, 4}));
  EXPECT_EQ(jf::repeat(tr, 2, 1).to_vector(), (v{0, 0, 3, 3, 1, 1, 4, 4, 2, 2, 5, 5}));
  jf::array<std::int32_t> w = jf::tile(a, {1, 1});
  w = 9;
  EXPECT_EQ(a.to_vector(), (v{0, 1, 2, 3, 4, 5}));
  // Random 1-d rolls against index arithmetic, sizes 0, 1, odd.
  for (i64 n : {i64(0), i64(1), i64(7), i64(1000)}) {
    std::vector<double> xv(static_cast<std::size_t>(n));
    for (auto& x : xv) x = static_cast<double>(rand_int(-1000, 1000));
    const jf::array<double> x(xv, dev());
    const i64 k = rand_int(-3000, 3000);
    const std::vector<double> r = jf::roll(x, k).to_vector();
    for (i64 j = 0; j < n; ++j)
      ASSERT_EQ(r[static_cast<std::size_t>(((j + k) % n + n) % n)], xv[static_cast<std::size_t>(j)]) << "n " << n << " k " << k;
  }
  EXPECT_EQ(message_of<jf::axis_error>([&] { (void)jf::roll(a, 1, 2); }), "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::repeat(a, -1); }), "negative dimensions are not allowed");
  EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::tile(a, {1, -2}); }), "negative dimensions are not allowed");
}

// ---- comparisons -------------------------------------------------------------------------------

struct isclose_case {
  std::string da, db;
  double rtol = 0, atol = 0;
  bool equal_nan = false;
  std::vector<std::string> a, b;
  std::vector<bool> expected;
};

std::vector<isclose_case> isclose_table() {
  std::vector<isclose_case> cases;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/isclose_table.txt", 3)) {
    isclose_case c;
    c.da = t.header.at(0);
    c.db = t.header.at(1);
    c.rtol = std::strtod(t.header.at(2).c_str(), nullptr);
    c.atol = std::strtod(t.header.at(3).c_str(), nullptr);
    c.equal_nan = t.header.at(4) != "0";
    c.a = t.lines[0];
    c.b = t.lines[1];
    for (int x : test_support::parse_words<int>(t.lines[2])) c.expected.push_back(x != 0);
    EXPECT_EQ(c.a.size(), std::stoul(t.header.at(5)));
    cases.push_back(std::move(c));
  }
  return cases;
}

template <class T> jf::array<T> parse(const std::vector<std::string>& words, jf::device dev) {
  return jf::array<T>(test_support::parse_words<T>(words), dev);
}

template <class A, class B> void check_isclose(const isclose_case& c, jf::device dev) {
  const jf::array<A> a = parse<A>(c.a, dev);
  const jf::array<B> b = parse<B>(c.b, dev);
  jf::array<bool> r = jf::full<bool>(a.shape(), false, dev);  // poisoned: the opposite of numpy's first answer
  if (!c.expected.empty()) r = jf::full<bool>(a.shape(), !c.expected[0], dev);
  if (c.equal_nan) r = jf::isclose(a, b, c.rtol, c.atol, jf::equal_nan);
  else r = jf::isclose(a, b, c.rtol, c.atol);
  const std::vector<bool> got = r.to_vector();
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], c.expected[i]) << c.da << " vs " << c.db << " rtol " << c.rtol << " atol " << c.atol
                                     << " equal_nan " << c.equal_nan << ": element " << i << " (" << c.a[i] << ", "
                                     << c.b[i] << ")";
  bool all = true;
  for (bool e : c.expected) all = all && e;
  EXPECT_EQ(c.equal_nan ? jf::allclose(a, b, c.rtol, c.atol, jf::equal_nan) : jf::allclose(a, b, c.rtol, c.atol), all);
  // Fused with a producer: isclose(a * 1, b) is one expression.
  if constexpr (std::is_floating_point_v<A>) {
    const jf::array<bool> fused = c.equal_nan ? jf::array<bool>(jf::isclose(a * 1, b, c.rtol, c.atol, jf::equal_nan))
                                              : jf::array<bool>(jf::isclose(a * 1, b, c.rtol, c.atol));
    EXPECT_EQ(fused.to_vector(), got);
  }
}

template <class A> void dispatch_b(const isclose_case& c, jf::device dev) {
  if (c.db == "float64") check_isclose<A, double>(c, dev);
  else if (c.db == "float32") check_isclose<A, float>(c, dev);
  else if (c.db == "int32") check_isclose<A, std::int32_t>(c, dev);
  else if (c.db == "int64") check_isclose<A, std::int64_t>(c, dev);
  else if (c.db == "bool") check_isclose<A, bool>(c, dev);
  else FAIL() << "unknown dtype " << c.db;
}

TEST_P(ShapeFunctions, IscloseMatchesNumpy) {
  const std::vector<isclose_case> cases = isclose_table();
  ASSERT_GT(cases.size(), 100u);
  for (const isclose_case& c : cases) {
    if (c.da == "float64") dispatch_b<double>(c, dev());
    else if (c.da == "float32") dispatch_b<float>(c, dev());
    else if (c.da == "int32") dispatch_b<std::int32_t>(c, dev());
    else if (c.da == "int64") dispatch_b<std::int64_t>(c, dev());
    else if (c.da == "bool") dispatch_b<bool>(c, dev());
    if (HasFatalFailure()) return;
  }
}

TEST_P(ShapeFunctions, ArrayEqual) {
  const jf::array<double> a({1.0, 2.0, std::nan("")}, dev());
  const jf::array<std::int64_t> b({1, 2, 3}, dev());
  EXPECT_FALSE(jf::array_equal(a, a));                // NaN != NaN
  EXPECT_TRUE(jf::array_equal(a, a, jf::equal_nan));  // unless asked
  EXPECT_TRUE(jf::array_equal(b, jf::array<double>({1.0, 2.0, 3.0}, dev())));
  EXPECT_FALSE(jf::array_equal(b, jf::array<std::int64_t>({1, 2}, dev())));   // shapes differ: no broadcasting
  EXPECT_FALSE(jf::array_equal(b, jf::array<std::int64_t>({{1, 2, 3}}, dev())));
  EXPECT_TRUE(jf::array_equal(jf::zeros<float>({0, 3}, dev()), jf::zeros<float>({0, 3}, dev())));
}

// ---- creation ----------------------------------------------------------------------------------

TEST_P(ShapeFunctions, EyeAndLike) {
  for (i64 n : {0, 1, 3, 5})
    for (i64 m : {0, 1, 4})
      for (i64 k : {-6, -1, 0, 2, 5}) {
        const std::vector<double> e = jf::eye<double>(n, m, k, dev()).to_vector();
        ASSERT_EQ(static_cast<i64>(e.size()), n * m);
        for (i64 i = 0; i < n; ++i)
          for (i64 j = 0; j < m; ++j)
            ASSERT_EQ(e[static_cast<std::size_t>(i * m + j)], j - i == k ? 1.0 : 0.0) << n << "x" << m << " k " << k;
      }
  EXPECT_EQ(jf::identity<std::int32_t>(2, dev()).to_vector(), (std::vector<std::int32_t>{1, 0, 0, 1}));
  const jf::array<float> a = jf::ones<float>({2, 3}, dev()).transpose();
  const auto z = jf::zeros_like(a);
  static_assert(std::is_same_v<decltype(z), const jf::array<float>>);
  EXPECT_EQ(z.shape(), (jf::shape_t{3, 2}));
  EXPECT_EQ(z.device(), dev());
  EXPECT_EQ(z.to_vector(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(jf::ones_like<std::int64_t>(a).to_vector(), std::vector<std::int64_t>(6, 1));
  EXPECT_EQ(jf::full_like(a, 2.5).to_vector(), std::vector<float>(6, 2.5f));
  EXPECT_EQ(jf::empty_like<double>(a).shape(), (jf::shape_t{3, 2}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ShapeFunctions, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
