// DLPack on jf::cuda: device tensors imported and exported without copies (the same device
// addresses), views both ways, the deleter called once after the last handle, kernels on imported
// memory, errors. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <jetfuse/dlpack.hpp>

#include "dlpack_test_util.hpp"
#include "gpu_test_util.hpp"

namespace {

using jf_test::dl_dtype;
using jf_test::make_tensor;
using jf_test::tensor_image;
using jf_test::tensor_spec;

template <class T> T value_at(std::int64_t i) {
  if constexpr (std::is_same_v<T, bool>) return (i % 3) == 1;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(i) * T(0.5) - T(3);
  else return static_cast<T>(i * 7 - 20);
}

template <class T> std::vector<T> values_of(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value_at<T>(i);
  return v;
}

// Device memory of a "producer": a jetfuse array used only for its allocation, exported as a
// plain kDLCUDA tensor whose deleter counts (the test keeps the allocation alive meanwhile).
template <class T> jf::array<T> device_storage(std::int64_t n) {
  return jf::array<T>(values_of<T>(n), jf::shape_t{n}, jf::cuda);
}

template <class T> class dlpackCudaTyped : public ::testing::Test {};
using element_types = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(dlpackCudaTyped, element_types);

template <class T, class M> void import_and_release() {
  JF_REQUIRE_GPU();
  jf::array<T> mem = device_storage<T>(12);
  int deletions = 0;
  M* t = make_tensor<M>({mem.data(), {kDLCUDA, 0}, dl_dtype<T>(), {3, 4}}, &deletions);
  {
    jf::array<T> a = jf::from_dlpack<T>(t);
    EXPECT_EQ(a.device(), jf::cuda);
    EXPECT_EQ(static_cast<const void*>(a.data()), static_cast<const void*>(mem.data()));  // the same device address
    EXPECT_EQ(a.shape(), (jf::shape_t{3, 4}));
    EXPECT_TRUE(jf_test::same_values(a.to_vector(), values_of<T>(12)));
    jf::array<T> col = a(jf::all, 2);
    a = jf::array<T>();
    EXPECT_EQ(deletions, 0);
    EXPECT_TRUE(jf_test::same_values(col.to_vector(), std::vector<T>{value_at<T>(2), value_at<T>(6), value_at<T>(10)}));
    col(1) = value_at<T>(1);  // a write lands in the producer's memory
    EXPECT_EQ(T(mem(6)), value_at<T>(1));
  }
  EXPECT_EQ(deletions, 1);
}

TYPED_TEST(dlpackCudaTyped, Import) { import_and_release<TypeParam, DLManagedTensor>(); }
TYPED_TEST(dlpackCudaTyped, ImportVersioned) { import_and_release<TypeParam, DLManagedTensorVersioned>(); }

TYPED_TEST(dlpackCudaTyped, RoundTrip) {
  JF_REQUIRE_GPU();
  using T = TypeParam;
  jf::array<T> a(values_of<T>(6), jf::shape_t{2, 3}, jf::cuda);
  const void* const data = a.data();
  for (int versioned = 0; versioned < 2; ++versioned) {
    SCOPED_TRACE(versioned ? "versioned" : "legacy");
    jf::array<T> back;
    if (versioned) {
      DLManagedTensorVersioned* t = jf::to_dlpack_versioned(a);
      EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
      EXPECT_EQ(t->dl_tensor.device.device_id, 0);
      EXPECT_EQ(t->dl_tensor.data, data);
      back = jf::from_dlpack<T>(t);
    } else {
      DLManagedTensor* t = jf::to_dlpack(a);
      EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
      EXPECT_EQ(t->dl_tensor.data, data);
      EXPECT_EQ(t->dl_tensor.strides[0], 3);
      back = jf::from_dlpack<T>(t);
    }
    EXPECT_EQ(static_cast<const void*>(back.data()), data);
    EXPECT_EQ(back.device(), jf::cuda);
    EXPECT_TRUE(jf_test::same_values(back.to_vector(), values_of<T>(6)));
  }
}

TYPED_TEST(dlpackCudaTyped, WrongDtypeLeavesTheTensorUntouched) {
  JF_REQUIRE_GPU();
  using T = TypeParam;
  using Other = std::conditional_t<std::is_same_v<T, std::int64_t>, std::int32_t, std::int64_t>;
  jf::array<Other> mem = device_storage<Other>(4);
  int deletions = 0;
  auto* t = make_tensor<DLManagedTensor>({mem.data(), {kDLCUDA, 0}, dl_dtype<Other>(), {4}}, &deletions);
  const tensor_image<DLManagedTensor> before(t);
  EXPECT_THROW(jf::from_dlpack<T>(t), jf::dtype_error);
  EXPECT_TRUE(tensor_image<DLManagedTensor>(t) == before);
  EXPECT_EQ(deletions, 0);
  t->deleter(t);
  EXPECT_EQ(deletions, 1);
}

TEST(dlpackCuda, ZeroDimensionalEmptyAndOne) {
  JF_REQUIRE_GPU();
  jf::array<double> s = jf::full<double>({}, 2.5, jf::cuda);
  jf::array<double> s2 = jf::from_dlpack<double>(jf::to_dlpack(s));
  EXPECT_EQ(s2.ndim(), 0);
  EXPECT_EQ(s2.data(), s.data());
  EXPECT_EQ(s2.item(), 2.5);

  jf::array<float> e = jf::zeros<float>({0, 4}, jf::cuda);
  DLManagedTensorVersioned* te = jf::to_dlpack_versioned(e);
  EXPECT_EQ(te->dl_tensor.data, nullptr);
  jf::array<float> e2 = jf::from_dlpack<float>(te);
  EXPECT_EQ(e2.device(), jf::cuda);
  EXPECT_EQ(e2.shape(), (jf::shape_t{0, 4}));
  EXPECT_TRUE(e2.to_vector().empty());

  int deletions = 0;
  jf::array<std::int32_t> one = device_storage<std::int32_t>(1);
  auto* t = make_tensor<DLManagedTensor>({one.data(), {kDLCUDA, 0}, dl_dtype<std::int32_t>(), {1}}, &deletions);
  {
    jf::array<std::int32_t> o = jf::from_dlpack<std::int32_t>(t);
    EXPECT_EQ(o.item(), value_at<std::int32_t>(0));
  }
  EXPECT_EQ(deletions, 1);
}

TEST(dlpackCuda, ImportStridedViews) {
  JF_REQUIRE_GPU();
  jf::array<double> mem = device_storage<double>(24);  // a (4, 6) producer array
  const std::vector<double> host = values_of<double>(24);
  int deletions = 0;
  // [1::2, 1::2] with a byte offset, then [::-1, ::-1], then a Fortran-order (4, 6).
  auto* t1 = make_tensor<DLManagedTensor>({mem.data(), {kDLCUDA, 0}, dl_dtype<double>(), {2, 3}, {{12, 2}}, 7 * 8}, &deletions);
  auto* t2 = make_tensor<DLManagedTensorVersioned>(
      {mem.data(), {kDLCUDA, 0}, dl_dtype<double>(), {4, 6}, {{-6, -1}}, 23 * 8}, &deletions);
  auto* t3 = make_tensor<DLManagedTensor>({mem.data(), {kDLCUDA, 0}, dl_dtype<double>(), {4, 6}, {{1, 4}}}, &deletions);
  {
    jf::array<double> a1 = jf::from_dlpack<double>(t1), a2 = jf::from_dlpack<double>(t2), a3 = jf::from_dlpack<double>(t3);
    std::vector<double> w1, w2, w3;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) w1.push_back(host[(1 + 2 * i) * 6 + 1 + 2 * j]);
    w2.assign(host.rbegin(), host.rend());
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) w3.push_back(host[j * 4 + i]);
    EXPECT_EQ(a1.to_vector(), w1);
    EXPECT_EQ(a2.to_vector(), w2);
    EXPECT_EQ(a3.to_vector(), w3);
    // A fused kernel reading imported strided memory, and one writing into it.
    jf::array<double> r = 2 * a2 + 1;
    std::vector<double> wr = w2;
    for (auto& x : wr) x = 2 * x + 1;
    EXPECT_TRUE(jf_test::same_values(r.to_vector(), wr));
    a2(jf::range(0, 1), jf::all) = 2 * a2(jf::range(0, 1), jf::all);  // a kernel writing through the view
    EXPECT_EQ(mem(23), 2 * host[23]);
  }
  EXPECT_EQ(deletions, 3);
}

TEST(dlpackCuda, ExportViews) {
  JF_REQUIRE_GPU();
  const std::vector<float> host = values_of<float>(20);
  jf::array<float> x(host, jf::shape_t{4, 5}, jf::cuda);
  const jf::array<float> views[] = {x(jf::range(jf::none, jf::none, 2), jf::range(jf::none, jf::none, -1)), x.transpose(),
                                    x(jf::range(1, 3), jf::range(1, jf::none, 3))};
  for (const auto& v : views) {
    DLManagedTensor* t = jf::to_dlpack(v);
    EXPECT_EQ(t->dl_tensor.data, v.data());
    EXPECT_EQ(t->dl_tensor.strides[0], v.strides()[0]);
    EXPECT_EQ(t->dl_tensor.strides[1], v.strides()[1]);
    jf::array<float> back = jf::from_dlpack<float>(t);
    EXPECT_EQ(back.data(), v.data());
    EXPECT_EQ(back.to_vector(), v.to_vector());
  }
}

TEST(dlpackCuda, ExportedTensorKeepsTheBufferAlive) {
  JF_REQUIRE_GPU();
  int deletions = 0;
  jf::array<double> mem = device_storage<double>(8);
  auto* t = make_tensor<DLManagedTensor>({mem.data(), {kDLCUDA, 0}, dl_dtype<double>(), {8}}, &deletions);
  DLManagedTensorVersioned* e = nullptr;
  {
    jf::array<double> a = jf::from_dlpack<double>(t);
    jf::array<double> b = a + 1;  // in flight while the handle goes away
    e = jf::to_dlpack_versioned(a(jf::range(2, 6)));
  }
  EXPECT_EQ(deletions, 0);
  EXPECT_EQ(e->dl_tensor.data, static_cast<const void*>(mem.data() + 2));
  e->deleter(e);
  EXPECT_EQ(deletions, 1);
}

TEST(dlpackCuda, Rejected) {
  JF_REQUIRE_GPU();
  jf::array<double> mem = device_storage<double>(4);
  for (DLDevice dev : {DLDevice{kDLCUDAHost, 0}, DLDevice{kDLCUDAManaged, 0}, DLDevice{kDLCUDA, 1}, DLDevice{kDLROCM, 0}}) {
    int deletions = 0;
    auto* t = make_tensor<DLManagedTensorVersioned>({mem.data(), dev, dl_dtype<double>(), {4}}, &deletions);
    const tensor_image<DLManagedTensorVersioned> before(t);
    EXPECT_THROW(jf::from_dlpack<double>(t), jf::error) << dev.device_type << ":" << dev.device_id;
    EXPECT_TRUE(tensor_image<DLManagedTensorVersioned>(t) == before);
    EXPECT_EQ(deletions, 0);
    t->deleter(t);
  }
}

}  // namespace
