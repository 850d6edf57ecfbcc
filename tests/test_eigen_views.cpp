// jf::eigen_view (Eigen maps of jetfuse arrays) and jf::from_eigen (jetfuse arrays over Eigen
// storage): the same memory, strides of every layout, writes seen on both sides, values, errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <jetfuse/eigen.hpp>

namespace {

std::vector<double> iota_values(std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<double>(i) * 1.5 - 4;
  return v;
}

template <class M, class A> void expect_same_2d(const M& m, const A& a) {
  ASSERT_EQ(a.ndim(), 2);
  ASSERT_EQ(m.rows(), a.shape()[0]);
  ASSERT_EQ(m.cols(), a.shape()[1]);
  for (std::int64_t i = 0; i < a.shape()[0]; ++i)
    for (std::int64_t j = 0; j < a.shape()[1]; ++j) EXPECT_EQ(m(i, j), a(i, j)) << i << "," << j;
}

// ---- jetfuse -> Eigen -----------------------------------------------------------------------------

TEST(eigenView, Contiguous2d) {
  jf::array<double> a(iota_values(12), jf::shape_t{3, 4});
  auto m = jf::eigen_view(a);
  static_assert(std::is_same_v<decltype(m), jf::eigen_matrix_map<double>>);
  EXPECT_EQ(m.data(), a.data());  // no copy
  EXPECT_EQ(m.innerStride(), 4);  // between rows
  EXPECT_EQ(m.outerStride(), 1);  // between columns
  expect_same_2d(m, a);
  m(2, 1) = 100;  // writes through the map land in the array
  EXPECT_EQ(a(2, 1), 100);
  a(0, 3) = -7;  // and the other way
  EXPECT_EQ(m(0, 3), -7);
  // Eigen arithmetic on the map.
  const Eigen::MatrixXd twice = 2 * m;
  EXPECT_EQ(twice(2, 1), 200);
  EXPECT_DOUBLE_EQ(m.sum(), [&] {
    double s = 0;
    for (double x : a.to_vector()) s += x;
    return s;
  }());
}

TEST(eigenView, StridedViews) {
  jf::array<double> a(iota_values(30), jf::shape_t{5, 6});
  const jf::array<double> views[] = {
      a.transpose(),
      a(jf::range(1, jf::none, 2), jf::range(jf::none, jf::none, 3)),
      a(jf::range(jf::none, jf::none, -1), jf::range(4, 0, -2)),
      a.transpose()(jf::range(1, 4), jf::all),
  };
  for (const auto& v : views) {
    SCOPED_TRACE(jf::to_string(v.strides()));
    auto m = jf::eigen_view(v);  // const array: a const map
    static_assert(std::is_same_v<decltype(m), jf::eigen_const_matrix_map<double>>);
    EXPECT_EQ(m.data(), v.data());
    EXPECT_EQ(m.innerStride(), v.strides()[0]);
    EXPECT_EQ(m.outerStride(), v.strides()[1]);
    expect_same_2d(m, v);
    const Eigen::MatrixXd copy = m;  // Eigen evaluates through the strides
    expect_same_2d(copy, v);
  }
  // A write through the map of a temporary view lands in a.
  jf::eigen_view(a(jf::range(jf::none, jf::none, -1), jf::all))(0, 0) = 55;
  EXPECT_EQ(a(4, 0), 55);
}

TEST(eigenView, OneDimensional) {
  jf::array<float> v({1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  auto col = jf::eigen_view(v);
  EXPECT_EQ(col.rows(), 6);
  EXPECT_EQ(col.cols(), 1);
  EXPECT_EQ(col(4, 0), 5.f);
  auto every_other = jf::eigen_vector_view(v(jf::range(jf::none, jf::none, -2)));
  static_assert(std::is_same_v<decltype(every_other), jf::eigen_vector_map<float>>);
  EXPECT_EQ(every_other.size(), 3);
  EXPECT_EQ(every_other.innerStride(), -2);
  EXPECT_EQ(every_other(0), 6.f);
  EXPECT_EQ(every_other(2), 2.f);
  EXPECT_EQ(every_other.sum(), 12.f);
  every_other(1) = 40.f;
  EXPECT_EQ(v(3), 40.f);
  const jf::array<float>& cv = v;
  EXPECT_EQ(jf::eigen_vector_view(cv).dot(jf::eigen_vector_view(cv)), 1 + 4 + 9 + 1600 + 25 + 36);
}

TEST(eigenView, ArraysOfEveryDtype) {
  jf::array<std::int32_t> i32({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(jf::eigen_array_view(i32).sum(), 21);
  jf::array<std::int64_t> i64({{1, 2}, {3, 4}});
  auto m64 = jf::eigen_array_view(i64);
  m64 *= 10;
  EXPECT_EQ(i64.to_vector(), (std::vector<std::int64_t>{10, 20, 30, 40}));
  jf::array<bool> b(std::vector<bool>{true, false, false, true}, jf::shape_t{2, 2});
  EXPECT_EQ(jf::eigen_array_view(b).count(), 2);
  jf::array<double> z = jf::zeros<double>({0, 3});
  EXPECT_EQ(jf::eigen_view(z).size(), 0);
  jf::array<double> bcast(std::vector<double>{1, 2, 3}, jf::shape_t{3});
  // Stride 0: the same row three times (a broadcast view made through DLPack or reshape).
  jf::array<double> rows(jf::array_base(bcast.buffer(), jf::dtype::float64, jf::shape_t{3, 3}, jf::strides_t{0, 1}, 0));
  EXPECT_TRUE(jf::eigen_view(std::as_const(rows)).colwise().sum() == (Eigen::RowVector3d{3, 6, 9}));
}

TEST(eigenView, Errors) {
  EXPECT_THROW(jf::eigen_view(jf::array<double>()), jf::value_error);
  EXPECT_THROW(jf::eigen_view(jf::zeros<double>({2, 2, 2})), jf::shape_error);
  EXPECT_THROW(jf::eigen_view(jf::full<double>({}, 1.0)), jf::shape_error);
  EXPECT_THROW(jf::eigen_vector_view(jf::zeros<float>({2, 2})), jf::shape_error);
  EXPECT_THROW(jf::eigen_array_view(jf::zeros<float>({1, 1, 1})), jf::shape_error);
  if (jf::cuda_available()) {
    jf::array<double> g = jf::zeros<double>({2, 2}, jf::cuda);
    EXPECT_THROW(jf::eigen_view(g), jf::backend_mismatch);
    EXPECT_THROW(jf::eigen_vector_view(jf::zeros<double>({2}, jf::cuda)), jf::backend_mismatch);
  }
}

// ---- Eigen -> jetfuse -----------------------------------------------------------------------------

TEST(eigenFrom, ColumnAndRowMajor) {
  Eigen::MatrixXd cm(3, 4);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) cm(i, j) = rm(i, j) = i * 10 + j;
  jf::array<double> a = jf::from_eigen(cm);
  static_assert(jf::eigen_viewable_v<Eigen::MatrixXd>);
  EXPECT_EQ(a.data(), cm.data());
  EXPECT_EQ(a.shape(), (jf::shape_t{3, 4}));
  EXPECT_EQ(a.strides(), (jf::strides_t{1, 3}));
  expect_same_2d(cm, a);
  jf::array<double> r = jf::from_eigen(rm);
  EXPECT_EQ(r.data(), rm.data());
  EXPECT_EQ(r.strides(), (jf::strides_t{4, 1}));
  EXPECT_TRUE(r.is_contiguous());
  expect_same_2d(rm, r);
  a(2, 3) = -1;  // both ways
  EXPECT_EQ(cm(2, 3), -1);
  cm(1, 0) = 77;
  EXPECT_EQ(a(1, 0), 77);
  // The transposed column-major matrix is a contiguous row-major jetfuse array.
  EXPECT_TRUE(a.transpose().is_contiguous());
  // Back to Eigen: the same memory and strides.
  auto m = jf::eigen_view(a);
  EXPECT_EQ(m.data(), cm.data());
  EXPECT_EQ(m.innerStride(), 1);
  EXPECT_EQ(m.outerStride(), 3);
  EXPECT_TRUE(Eigen::MatrixXd(m) == cm);
}

TEST(eigenFrom, BlocksRowsColumnsAndMaps) {
  Eigen::MatrixXf m(5, 6);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) m(i, j) = static_cast<float>(i * 6 + j);
  jf::array<float> blk = jf::from_eigen(m.block(1, 2, 3, 2));
  EXPECT_EQ(blk.data(), &m(1, 2));
  EXPECT_EQ(blk.strides(), (jf::strides_t{1, 5}));
  expect_same_2d(m.block(1, 2, 3, 2), blk);

  jf::array<float> col = jf::from_eigen(m.col(4));
  EXPECT_EQ(col.ndim(), 1);
  EXPECT_EQ(col.data(), &m(0, 4));
  EXPECT_EQ(col.strides(), (jf::strides_t{1}));
  jf::array<float> row = jf::from_eigen(m.row(3));
  EXPECT_EQ(row.ndim(), 1);
  EXPECT_EQ(row.data(), &m(3, 0));
  EXPECT_EQ(row.strides(), (jf::strides_t{5}));
  for (int j = 0; j < 6; ++j) EXPECT_EQ(row(j), m(3, j));
  row(5) = 1000.f;
  EXPECT_EQ(m(3, 5), 1000.f);

  std::vector<double> storage = iota_values(40);
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> mapped(
      storage.data(), 3, 4, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(10, 2));
  jf::array<double> fm = jf::from_eigen(mapped);
  EXPECT_EQ(fm.data(), storage.data());
  EXPECT_EQ(fm.strides(), (jf::strides_t{2, 10}));
  expect_same_2d(mapped, fm);

  Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(7, 0, 6);
  jf::array<double> fv = jf::from_eigen(v);
  EXPECT_EQ(fv.shape(), (jf::shape_t{7}));
  EXPECT_EQ(fv.data(), v.data());
  EXPECT_EQ(fv.to_vector(), (std::vector<double>{0, 1, 2, 3, 4, 5, 6}));

  const Eigen::ArrayXXi ci = Eigen::ArrayXXi::Constant(2, 3, 9);
  jf::array<std::int32_t> fi = jf::from_eigen(ci);  // a const object: read only by convention
  EXPECT_EQ(fi.data(), ci.data());
  EXPECT_EQ(fi.to_vector(), std::vector<std::int32_t>(6, 9));

  Eigen::Matrix<std::int64_t, 2, 2> fixed;
  fixed << 1, 2, 3, 4;
  jf::array<std::int64_t> ff = jf::from_eigen(fixed);
  EXPECT_EQ(ff.data(), fixed.data());
  EXPECT_EQ(ff.to_vector(), (std::vector<std::int64_t>{1, 2, 3, 4}));

  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> bm(2, 2);
  bm << true, false, false, true;
  jf::array<bool> fb = jf::from_eigen(bm);
  EXPECT_EQ(fb.to_vector(), (std::vector<bool>{true, false, false, true}));

  Eigen::MatrixXd empty(0, 3);
  EXPECT_EQ(jf::from_eigen(empty).shape(), (jf::shape_t{0, 3}));
}

TEST(eigenFrom, ExpressionsAndCopies) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Constant(2, 3, 1.5);
  static_assert(!jf::eigen_viewable_v<decltype(m + m)>);
  jf::array<double> sum = jf::from_eigen(m + m);  // no memory to view: an owning copy
  EXPECT_TRUE(sum.is_contiguous());
  EXPECT_EQ(sum.to_vector(), std::vector<double>(6, 3.0));
  jf::array<double> copy = jf::from_eigen_copy(m);
  EXPECT_NE(copy.data(), m.data());
  m(0, 0) = 9;
  EXPECT_EQ(copy(0, 0), 1.5);
  jf::array<double> tmp = jf::from_eigen_copy(Eigen::MatrixXd::Identity(2, 2));  // temporaries: copies
  EXPECT_EQ(tmp.to_vector(), (std::vector<double>{1, 0, 0, 1}));
}

}  // namespace
